//! The season page says which model scored an improved scan and how that
//! model was measured or fitted: the one the scan recorded, not the one
//! this build ships, and the stored model version it recorded.

use crate::support::*;
use reqwest::header::COOKIE;
use schema::{Mode, ScanParams, ScanResult, Season};
use scoring::improved::Model;

/// The shipped model under another name, as `detect model fit` would
/// write a site's.
fn site_model() -> String {
    let mut m: serde_json::Value = serde_json::from_str(&Model::shipped().to_json()).unwrap();
    m["name"] = "site model 7".into();
    m.to_string()
}

/// Stores a model file as `detect model import` would; returns its version.
async fn store_model(app: &App, file: &str) -> i64 {
    let model = Model::from_json(file).unwrap();
    let (version, added) = app
        .store
        .add_model(
            &store::NewModel {
                name: model.name(),
                file,
                digest: "a digest",
                fitted_on: "verdicts",
                measured: "",
                source: "imported from site-<model>.json",
                added_by: "detect model import",
            },
            0,
        )
        .await
        .unwrap();
    assert!(added);
    version
}

async fn season_page(app: &App, model: Option<&str>) -> String {
    let result = ScanResult {
        params: ScanParams {
            mode: Mode::Improved,
            ..ScanParams::default()
        },
        participants: 0,
        candidate_pairs: 0,
        pairs: Vec::new(),
        cliques: Vec::new(),
        crowded: Vec::new(),
    };
    let season = Season::inferred(1);
    let version = match model {
        Some(file) => Some(store_model(app, file).await),
        None => None,
    };
    let scan_model = model
        .zip(version)
        .map(|(file, version)| store::ScanModel { file, version });
    app.store
        .save_scan(&season, &result, 0, 0, None, scan_model)
        .await
        .unwrap();
    let c = client();
    let session = session(&c, app).await;
    let r = c
        .get(app.url("/season/1"))
        .header(COOKIE, session)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.text().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_season_page_names_the_model_its_scan_recorded() {
    let app = App::start(web::Options::default()).await;
    let page = season_page(&app, Some(&site_model())).await;
    assert!(page.contains("probability (site model 7)"), "{page}");
    assert!(!page.contains(Model::shipped().name()), "{page}");
    // The stored version, where it came from (escaped) and when.
    assert!(
        page.contains(
            "Scored with model version 1 (site model 7): imported from site-&#60;model&#62;.json, \
             added 1970-01-01 00:00 UTC by detect model import."
        ),
        "{page}"
    );
    // A scan stored before models were recorded: the shipped one's words.
    let app = App::start(web::Options::default()).await;
    let page = season_page(&app, None).await;
    assert!(
        page.contains(&format!("probability ({})", Model::shipped().name())),
        "{page}"
    );
    assert!(!page.contains("Scored with model version"), "{page}");
}
