//! Improved mode's model as a data value: which features it reads, their
//! weights, the threshold it flags at, and where it comes from (which
//! world families or verdicts it was fitted on, and how it did on the ones
//! it was not). The shipped model is a JSON file in this crate
//! (`model.json`, [`Model::shipped`]); any other loads from a file
//! ([`Model::from_json`]) and writes back ([`Model::to_json`]).
//!
//! Every feature has a sign fixed by reasoning ([`Feature::sign`], the
//! reason beside it in [`super::features::FEATURES`]): a model whose weight disagrees with
//! its feature's sign is refused, and [`super::fit::fit`] keeps to them.

use super::features::{feature, Feature, Reading};
use super::fit::{logistic, Sign};
use super::timing::{TimeModel, TIME_SIGNS};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;

/// Where a model comes from, and what it was measured to do on data it
/// was not fitted on.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Provenance {
    /// What it was fitted on, in a few words.
    pub fitted_on: String,
    /// The world families it was fitted on (simulated seasons), if any.
    pub families: Vec<String>,
    /// The seeds of each family, as written (`1-10`).
    pub seeds: String,
    /// Labelled pairs it was fitted on, and how many were one person.
    pub pairs: u64,
    pub positives: u64,
    /// How it was measured: on each held-out family, a model of the same
    /// features fitted without that family.
    pub measured: String,
    pub held_out: Vec<HeldOut>,
}

/// A model's figures on data it was not fitted on: undirected pairs at
/// the model's threshold, beside reference mode's at 0.9 on the same.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct HeldOut {
    /// A world family, or what else was held out.
    pub family: String,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub average_precision: f64,
    pub reference_precision: f64,
    pub reference_recall: f64,
    pub reference_f1: f64,
    pub reference_average_precision: f64,
}

/// A model file, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ModelFile {
    /// The file format (1).
    format: u32,
    /// A name for people ("shipped 2026-05", "site verdicts 3").
    name: String,
    features: Vec<String>,
    intercept: f64,
    weights: Vec<f64>,
    threshold: f64,
    /// The timing pairs' model; none: timing pairs are not looked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    timing: Option<TimeModel>,
    #[serde(default)]
    provenance: Provenance,
}

/// A logistic model over named [`Feature`]s, checked: every feature known,
/// one weight each, each weight of its feature's sign, a threshold in
/// (0, 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ModelFile", into = "ModelFile")]
pub struct Model {
    name: String,
    features: Vec<&'static Feature>,
    intercept: f64,
    weights: Vec<f64>,
    threshold: f64,
    timing: Option<TimeModel>,
    provenance: Provenance,
}

/// Why a model was refused; one sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelError(pub String);

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ModelError {}

/// The model file format this build reads and writes.
pub const FORMAT: u32 = 1;

impl Model {
    /// A model of the features named `features` (and of timing pairs when
    /// `timing` is given), checked.
    pub fn new(
        name: &str,
        features: &[&str],
        intercept: f64,
        weights: &[f64],
        threshold: f64,
        timing: Option<TimeModel>,
        provenance: Provenance,
    ) -> Result<Model, ModelError> {
        let err = |s: String| Err(ModelError(s));
        if features.len() != weights.len() {
            return err(format!(
                "the model lists {} features and {} weights",
                features.len(),
                weights.len()
            ));
        }
        if !(threshold > 0.0 && threshold < 1.0) {
            return err(format!(
                "the model's threshold must lie between 0 and 1, not {threshold}"
            ));
        }
        if !intercept.is_finite() {
            return err("the model's intercept is not a number".into());
        }
        let mut found = Vec::with_capacity(features.len());
        for (&name, &w) in features.iter().zip(weights) {
            let Some(f) = feature(name) else {
                return err(format!(
                    "the model reads a feature this build does not know: {name}"
                ));
            };
            if found.contains(&f) {
                return err(format!("the model lists the feature {name} twice"));
            }
            if !w.is_finite() || !f.sign.allows(w) {
                return err(format!(
                    "the weight of {name} is {w}, but its sign is fixed {}: {}",
                    match f.sign {
                        Sign::Positive => "positive",
                        Sign::Negative => "negative",
                    },
                    f.reason
                ));
            }
            found.push(f);
        }
        if let Some(t) = &timing {
            let names = ["following", "first mover", "close moves"];
            for ((w, (sign, reason)), name) in t.weights.iter().zip(TIME_SIGNS).zip(names) {
                if !w.is_finite() || !sign.allows(*w) {
                    return err(format!(
                        "the timing weight of {name} is {w}, but its sign is fixed: {reason}"
                    ));
                }
            }
            if !t.intercept.is_finite() {
                return err("the timing model's intercept is not a number".into());
            }
        }
        Ok(Model {
            name: name.to_owned(),
            features: found,
            intercept,
            weights: weights.to_vec(),
            threshold,
            timing,
            provenance,
        })
    }

    /// The model improved mode scores with unless told otherwise
    /// (`model.json` in this crate).
    pub fn shipped() -> &'static Model {
        static SHIPPED: std::sync::OnceLock<Model> = std::sync::OnceLock::new();
        SHIPPED.get_or_init(|| {
            Model::from_json(include_str!("model.json")).expect("the shipped model is valid")
        })
    }

    /// Reads a model file; the error names what is wrong in one sentence.
    pub fn from_json(text: &str) -> Result<Model, ModelError> {
        serde_json::from_str(text).map_err(|e| ModelError(format!("not a model file: {e}")))
    }

    /// The model a scan recorded (`json`, its file as stored), or the
    /// shipped one for a scan that recorded none (stored before scans
    /// recorded their model): what every surface that shows an improved
    /// scan's score in words, or weighs its signals, reads.
    pub fn recorded(json: Option<&str>) -> Result<Cow<'static, Model>, ModelError> {
        Ok(match json {
            Some(text) => Cow::Owned(Model::from_json(text)?),
            None => Cow::Borrowed(Model::shipped()),
        })
    }

    /// The model as a file (pretty JSON, ending in a newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a model serializes");
        s.push('\n');
        s
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The same model, its provenance saying how it was measured.
    pub fn measured(&self, measured: &str) -> Model {
        let mut m = self.clone();
        m.provenance.measured = measured.to_owned();
        m
    }

    /// The same model under another name.
    pub fn renamed(&self, name: &str) -> Model {
        Model {
            name: name.to_owned(),
            ..self.clone()
        }
    }

    pub fn features(&self) -> &[&'static Feature] {
        &self.features
    }

    pub fn intercept(&self) -> f64 {
        self.intercept
    }

    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// The threshold the model flags at by default.
    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    pub fn provenance(&self) -> &Provenance {
        &self.provenance
    }

    /// The timing pairs' model, if the model looks for timing pairs.
    pub fn timing(&self) -> Option<&TimeModel> {
        self.timing.as_ref()
    }

    /// The feature values of a reading, in the model's order.
    pub fn values(&self, r: &Reading<'_>) -> Vec<f64> {
        self.features.iter().map(|f| (f.value)(r)).collect()
    }

    /// The probability that the pair is one person, in [0, 1].
    pub fn probability(&self, r: &Reading<'_>) -> f64 {
        let z = self.intercept
            + self
                .features
                .iter()
                .zip(&self.weights)
                .map(|(f, w)| w * (f.value)(r))
                .sum::<f64>();
        logistic(z)
    }

    /// Each feature's share of the log-odds for a reading: (name, value,
    /// weight times value), in the model's order.
    pub fn contributions(&self, r: &Reading<'_>) -> Vec<(&'static str, f64, f64)> {
        self.features
            .iter()
            .zip(&self.weights)
            .map(|(f, w)| {
                let v = (f.value)(r);
                (f.name, v, w * v)
            })
            .collect()
    }
}

impl TryFrom<ModelFile> for Model {
    type Error = ModelError;

    fn try_from(f: ModelFile) -> Result<Model, ModelError> {
        if f.format != FORMAT {
            return Err(ModelError(format!(
                "model file format {} is not the one this build reads ({FORMAT})",
                f.format
            )));
        }
        let names: Vec<&str> = f.features.iter().map(String::as_str).collect();
        Model::new(
            &f.name,
            &names,
            f.intercept,
            &f.weights,
            f.threshold,
            f.timing,
            f.provenance,
        )
    }
}

impl From<Model> for ModelFile {
    fn from(m: Model) -> ModelFile {
        ModelFile {
            format: FORMAT,
            name: m.name,
            features: m.features.iter().map(|f| f.name.to_owned()).collect(),
            intercept: m.intercept,
            weights: m.weights,
            threshold: m.threshold,
            timing: m.timing,
            provenance: m.provenance,
        }
    }
}
