//! `detect_score(account, partner, segments, bucket_seconds) OVER (PARTITION
//! BY part)`: detect's own scoring as a DataFusion window function, run by the
//! executors on one part of the scan at a time (see [`crate::plan`]).
//!
//! A part's rows are of two kinds: an account's row (`segments` set,
//! `partner` null), once for each account the part's pairs name, and a pair's
//! row (`account` < `partner`, `segments` null). The function turns each
//! account's segments into [`schema::Segment`]s once, with IP ids shared by
//! the part, and scores every pair row both ways with
//! [`scoring::score_pair`]; an account's row gets a null score. The scoring
//! crate is not changed for it.

use crate::layout;
use crate::segments::{segments_at, IpIds};
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Float64Builder, Int64Builder, StringBuilder, StructArray,
};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Int64Type};
use datafusion::common::{exec_err, Result};
use datafusion::logical_expr::function::{PartitionEvaluatorArgs, WindowUDFFieldArgs};
use datafusion::logical_expr::{
    PartitionEvaluator, Signature, Volatility, WindowUDF, WindowUDFImpl,
};
use schema::Segment;
use std::collections::HashMap;
use std::sync::Arc;

/// The function's name in SQL.
pub const NAME: &str = "detect_score";

/// The scoring function, to register in a session.
pub fn udwf() -> WindowUDF {
    WindowUDF::new_from_impl(DetectScore {
        signature: Signature::any(4, Volatility::Immutable),
    })
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct DetectScore {
    signature: Signature,
}

impl WindowUDFImpl for DetectScore {
    fn name(&self) -> &str {
        NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn partition_evaluator(
        &self,
        _args: PartitionEvaluatorArgs,
    ) -> Result<Box<dyn PartitionEvaluator>> {
        Ok(Box::new(PartScorer))
    }

    fn field(&self, args: WindowUDFFieldArgs) -> Result<FieldRef> {
        Ok(Arc::new(Field::new(
            args.name(),
            layout::score_type(),
            true,
        )))
    }
}

/// Scores one part: the whole part at once (no window frame, no bounded
/// execution), so the part's accounts are held once while its pairs are
/// scored.
#[derive(Debug)]
struct PartScorer;

impl PartitionEvaluator for PartScorer {
    fn evaluate_all(&mut self, values: &[ArrayRef], num_rows: usize) -> Result<ArrayRef> {
        let [account, partner, segments, bucket_seconds] = values else {
            return exec_err!("{NAME}: 4 arguments expected, got {}", values.len());
        };
        let mut out = ScoreColumns::default();
        if num_rows == 0 {
            return Ok(Arc::new(out.finish()?));
        }
        let Some(bucket_seconds) = bucket_seconds.as_primitive_opt::<Int64Type>() else {
            return exec_err!(
                "{NAME}: bucket_seconds must be Int64, got {}",
                bucket_seconds.data_type()
            );
        };
        let bucket_seconds = bucket_seconds.value(0);
        // String views or plain strings from the shuffle: one type here.
        let account = cast(account, &DataType::Utf8)?;
        let account = account.as_string::<i32>();
        let partner = cast(partner, &DataType::Utf8)?;
        let partner = partner.as_string::<i32>();
        let held = held_accounts(account, segments, num_rows)?;
        let none = Vec::new();
        for r in 0..num_rows {
            if partner.is_null(r) {
                out.push_null();
                continue;
            }
            let x = held.get(account.value(r)).unwrap_or(&none);
            let y = held.get(partner.value(r)).unwrap_or(&none);
            out.push(&scoring::score_pair(x, y, bucket_seconds));
            out.push(&scoring::score_pair(y, x, bucket_seconds));
        }
        Ok(Arc::new(out.finish()?))
    }
}

/// The segments of every account row of the part, by account (an account
/// without segments in the season has none).
fn held_accounts<'a>(
    account: &'a datafusion::arrow::array::StringArray,
    segments: &ArrayRef,
    num_rows: usize,
) -> Result<HashMap<&'a str, Vec<Segment>>> {
    let mut held = HashMap::new();
    if segments.data_type() == &DataType::Null {
        return Ok(held);
    }
    let Some(segments) = segments.as_list_opt::<i32>() else {
        return exec_err!(
            "{NAME}: the segments must be a list, got {}",
            segments.data_type()
        );
    };
    let mut ips = IpIds::default();
    for r in 0..num_rows {
        if !segments.is_null(r) {
            held.insert(account.value(r), segments_at(segments, r, &mut ips, NAME)?);
        }
    }
    Ok(held)
}

/// The columns of [`layout::score_type`], filled row by row: `xy` then `yx`,
/// or a null row.
#[derive(Default)]
struct ScoreColumns {
    similarity: [Float64Builder; 2],
    sum: [Int64Builder; 2],
    weight: [Int64Builder; 2],
    evidence: [StringBuilder; 2],
    valid: Vec<bool>,
    next: usize,
}

impl ScoreColumns {
    /// Appends both directions of a pair, `xy` first.
    fn push(&mut self, out: &scoring::PairOutcome) {
        let d = self.next;
        self.similarity[d].append_value(out.similarity());
        self.sum[d].append_value(out.sum);
        self.weight[d].append_value(out.weight);
        let json = serde_json::to_string(&out.evidence).expect("evidence serialises");
        self.evidence[d].append_value(json);
        if d == 0 {
            self.valid.push(true);
        }
        self.next = 1 - d;
    }

    /// Appends a row without a score (the children hold placeholders).
    fn push_null(&mut self) {
        for d in 0..2 {
            self.similarity[d].append_value(0.0);
            self.sum[d].append_value(0);
            self.weight[d].append_value(0);
            self.evidence[d].append_value("");
        }
        self.valid.push(false);
    }

    fn finish(mut self) -> Result<StructArray> {
        let DataType::Struct(fields) = layout::score_type() else {
            unreachable!("the score type is a struct")
        };
        let mut columns: Vec<ArrayRef> = Vec::new();
        for d in 0..2 {
            columns.push(Arc::new(self.similarity[d].finish()));
            columns.push(Arc::new(self.sum[d].finish()));
            columns.push(Arc::new(self.weight[d].finish()));
            columns.push(Arc::new(self.evidence[d].finish()));
        }
        let nulls = NullBuffer::from(self.valid);
        Ok(StructArray::try_new(fields, columns, Some(nulls))?)
    }
}
