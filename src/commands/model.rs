//! `detect model fit`.

use crate::cli::{read_model, ModelCommand, ModelFitArgs};
use anyhow::Result;
use app::pipeline;

pub async fn run(db: &pipeline::Db, cmd: ModelCommand) -> Result<()> {
    match cmd {
        ModelCommand::Fit(args) => fit(db, args).await,
    }
}

async fn fit(db: &pipeline::Db, args: ModelFitArgs) -> Result<()> {
    let prior = match &args.prior {
        Some(path) => read_model(path)?,
        None => scoring::improved::Model::shipped().clone(),
    };
    let store = pipeline::open_store(db).await?;
    let fitted = app::model::fit_on_season(&store, args.season, &prior, &args.name).await?;
    store.close().await;
    let json = fitted.model.to_json();
    match &args.out {
        Some(path) => app::report::write_atomically(path, |out| {
            out.write_all(json.as_bytes())?;
            Ok(())
        })?,
        None => println!("{json}"),
    }
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
    Ok(())
}
