//! `detect model`: fit, import, export and list improved mode's models.

use crate::cli::{ModelCommand, ModelExportArgs, ModelFitArgs, ModelImportArgs};
use anyhow::Result;
use app::model::{read_model_file, ModelFile};
use app::pipeline;

pub async fn run(db: &pipeline::Db, cmd: ModelCommand) -> Result<()> {
    match cmd {
        ModelCommand::Fit(args) => fit(db, args).await,
        ModelCommand::Import(args) => import(db, args).await,
        ModelCommand::Export(args) => export(db, args).await,
        ModelCommand::List => list(db).await,
    }
}

async fn fit(db: &pipeline::Db, args: ModelFitArgs) -> Result<()> {
    let prior = match &args.prior {
        Some(path) => read_model_file(path)?.model,
        None => scoring::improved::Model::shipped().clone(),
    };
    let store = pipeline::open_store(db).await?;
    let fitted = app::model::fit_on_season(&store, args.season, &prior, &args.name).await?;
    let json = fitted.model.to_json();
    if args.save {
        let file = ModelFile {
            model: fitted.model.clone(),
            text: json.clone(),
        };
        let source = format!("fitted on season {}", args.season);
        let (version, added) = app::model::add(&store, &file, &source, "detect model fit").await?;
        println!("{}", stored_words(version, added, fitted.model.name()));
    }
    store.close().await;
    match &args.out {
        Some(path) => app::report::write_atomically(path, |out| {
            out.write_all(json.as_bytes())?;
            Ok(())
        })?,
        None if !args.save => println!("{json}"),
        None => {}
    }
    print_fit(&fitted, &prior);
    Ok(())
}

/// What `fit` says of the fit, on standard error.
fn print_fit(fitted: &app::model::Fitted, prior: &scoring::improved::Model) {
    eprintln!(
        "fitted on {} judged pairs of scan #{} ({} one person, {} different people), \
         starting from the model {}",
        fitted.same + fitted.different,
        fitted.scan_id,
        fitted.same,
        fitted.different,
        prior.name()
    );
    let cv = &fitted.cross_validated;
    let words = |a: &scoring::improved::verdicts::Agreement| {
        format!(
            "precision {:.3}, recall {:.3}, F1 {:.3}",
            a.precision, a.recall, a.f1
        )
    };
    eprintln!(
        "cross-validated on these verdicts ({} folds, flags at {}): the new model {}; \
         the model {} on the same verdicts {}",
        cv.folds,
        prior.threshold(),
        words(&cv.fitted),
        prior.name(),
        words(&cv.prior)
    );
    for (name, before, after) in &fitted.weights {
        eprintln!("  {name:<28} {before:>8.3} -> {after:>8.3}");
    }
}

/// "stored as model version 3: NAME", or that the store held it already.
fn stored_words(version: i64, added: bool, name: &str) -> String {
    if added {
        format!("stored as model version {version}: {name}")
    } else {
        format!("the store holds this model already, as model version {version}: {name}")
    }
}

async fn import(db: &pipeline::Db, args: ModelImportArgs) -> Result<()> {
    // Checked before the store is opened: a bad file stores nothing.
    let mut file = read_model_file(&args.file)?;
    if let Some(name) = &args.name {
        let model = file.model.renamed(name);
        file.text = model.to_json();
        file.model = model;
    }
    let store = pipeline::open_store(db).await?;
    let source = format!("imported from {}", args.file.display());
    let added = app::model::add(&store, &file, &source, "detect model import").await;
    store.close().await;
    let (version, added) = added?;
    println!("{}", stored_words(version, added, file.model.name()));
    Ok(())
}

async fn export(db: &pipeline::Db, args: ModelExportArgs) -> Result<()> {
    let store = pipeline::open_store(db).await?;
    let stored = app::model::stored(&store, args.model_version).await;
    store.close().await;
    let (row, _) = stored?;
    app::report::write_atomically(&args.out, |out| {
        out.write_all(row.file.as_bytes())?;
        Ok(())
    })?;
    eprintln!(
        "wrote model version {} ({}) to {}",
        row.version,
        row.name,
        args.out.display()
    );
    Ok(())
}

async fn list(db: &pipeline::Db) -> Result<()> {
    let store = pipeline::open_store(db).await?;
    let models = store.models().await;
    store.close().await;
    let models = models?;
    if models.is_empty() {
        println!("no model versions stored yet: improved scans, `detect model import` and `detect model fit --save` add them");
        return Ok(());
    }
    println!(
        "{:>7}  {:<24}  {:>5}  {:<20}  source (added by)",
        "version", "name", "scans", "added"
    );
    for m in &models {
        let added = chrono::DateTime::from_timestamp(m.added_at, 0).map_or_else(
            || m.added_at.to_string(),
            |t| t.format("%Y-%m-%d %H:%M UTC").to_string(),
        );
        println!(
            "{:>7}  {:<24}  {:>5}  {:<20}  {} ({})",
            m.version, m.name, m.scans, added, m.source, m.added_by
        );
    }
    Ok(())
}
