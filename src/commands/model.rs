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
        println!(
            "{}",
            app::model::stored_words(version, added, fitted.model.name())
        );
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
    eprint!("{}", app::model::fit_words(&fitted, &prior));
    Ok(())
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
    println!(
        "{}",
        app::model::stored_words(version, added, file.model.name())
    );
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
    print!("{}", app::model::list_table(&models?));
    Ok(())
}
