//! Improved mode's models in the store, versioned: which model a command
//! scores with ([`ModelChoice`], resolved in [`resolve`]), model files read
//! and checked ([`read_model_file`]), and the stored version every improved
//! scan records ([`scan_version`]).

use anyhow::{anyhow, bail, Context, Result};
use scoring::improved::Model;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use store::{NewModel, Store, StoredModel};

/// The model improved mode is asked to score with.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ModelChoice {
    /// The model this build ships.
    #[default]
    Shipped,
    /// A model file (`--model FILE`, `model = "FILE"`).
    File(PathBuf),
    /// A version stored in the store (`--model-version N`,
    /// `model_version = N`).
    Version(i64),
}

/// A model file read and checked, with its text as it came.
#[derive(Debug, Clone)]
pub struct ModelFile {
    pub model: Model,
    pub text: String,
}

/// Reads and checks a model file, naming it in any error.
pub fn read_model_file(path: &Path) -> Result<ModelFile> {
    let text = std::fs::read_to_string(path).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let model = Model::from_json(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    Ok(ModelFile { model, text })
}

/// The model a choice names: `None` for the shipped one. A file is read
/// and checked, and stored (as "imported from FILE", unless the store
/// holds it already) when a store is given; a version is read from the
/// store, which must then be given. `by` says who adds a file.
pub async fn resolve(
    store: Option<&Store>,
    choice: &ModelChoice,
    by: &str,
) -> Result<Option<Model>> {
    match choice {
        ModelChoice::Shipped => Ok(None),
        ModelChoice::File(path) => {
            let file = read_model_file(path)?;
            if let Some(store) = store {
                let source = format!("imported from {}", path.display());
                add(store, &file, &source, by).await?;
            }
            Ok(Some(file.model))
        }
        ModelChoice::Version(version) => {
            let Some(store) = store else {
                bail!("model version {version} is read from a store, and none is open here");
            };
            Ok(Some(stored(store, *version).await?.1))
        }
    }
}

/// Stores a model file as the next version unless the store holds the
/// same model; returns its version and whether it was added now.
pub async fn add(store: &Store, file: &ModelFile, source: &str, by: &str) -> Result<(i64, bool)> {
    let m = &file.model;
    let p = m.provenance();
    let added = store
        .add_model(
            &NewModel {
                name: m.name(),
                file: &file.text,
                digest: &digest(m),
                fitted_on: &p.fitted_on,
                measured: &p.measured,
                source,
                added_by: by,
            },
            chrono::Utc::now().timestamp(),
        )
        .await?;
    Ok(added)
}

/// Stored model `version` and the model it holds.
pub async fn stored(store: &Store, version: i64) -> Result<(StoredModel, Model)> {
    let Some(row) = store.model(version).await? else {
        bail!("the store holds no model version {version} (`detect model list` shows them)");
    };
    let model = Model::from_json(&row.file)
        .with_context(|| format!("model version {version} of the store"))?;
    Ok((row, model))
}

/// The stored version an improved scan scoring with `model` (the shipped
/// one when `None`) records: the store's version of that model, added now
/// if it holds none ("shipped", or "given to a scan").
pub async fn scan_version(store: &Store, model: Option<&Model>) -> Result<i64> {
    let model = model.unwrap_or(Model::shipped());
    let source = if model == Model::shipped() {
        "shipped"
    } else {
        "given to a scan"
    };
    let file = ModelFile {
        model: model.clone(),
        text: model.to_json(),
    };
    Ok(add(store, &file, source, "a scan").await?.0)
}

/// Identifies a model whatever its file's layout: the SHA-256 of the model
/// as this build writes it.
pub fn digest(model: &Model) -> String {
    let hash = Sha256::digest(model.to_json().as_bytes());
    hash.iter().map(|b| format!("{b:02x}")).collect()
}
