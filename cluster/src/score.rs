//! `detect_score(account, partners, segments, bucket_seconds) OVER
//! (PARTITION BY part)`: detect's own scoring as a DataFusion window
//! function, run by the executors on one part of the scan at a time (see
//! [`crate::plan`]).
//!
//! A part has one row for each account its pairs name: the account's
//! segments, and the accounts it is paired with in this part (`account` <
//! partner; none when it is only the second account of its pairs). The
//! function turns each account's segments into [`schema::Segment`]s once,
//! with IP ids shared by the part, and scores each pair both ways with
//! [`scoring::score_pair`]: a row's result is the list of its pairs'
//! scores ([`layout::scored_type`]). The scoring crate is not changed for it.

use crate::layout;
use crate::packed::unpack;
use crate::segments::{segments_at, IpIds};
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Float64Builder, Int64Builder, ListArray, StringArray, StringBuilder,
    StructArray,
};
use datafusion::arrow::buffer::{OffsetBuffer, ScalarBuffer};
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
            layout::scored_type(),
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
        let [account, partners, segments, bucket_seconds] = values else {
            return exec_err!("{NAME}: 4 arguments expected, got {}", values.len());
        };
        let mut out = Scored::default();
        if num_rows == 0 {
            return out.finish();
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
        let names = DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)));
        let partners = cast(partners, &names)?;
        let partners = partners.as_list::<i32>();
        let held = held_accounts(account, segments, num_rows)?;
        let none = Vec::new();
        for r in 0..num_rows {
            if !partners.is_null(r) {
                let x = held.get(account.value(r)).unwrap_or(&none);
                let ys = partners.value(r);
                let ys = ys.as_string::<i32>();
                for k in 0..ys.len() {
                    let y = held.get(ys.value(k)).unwrap_or(&none);
                    out.push(
                        ys.value(k),
                        &scoring::score_pair(x, y, bucket_seconds),
                        &scoring::score_pair(y, x, bucket_seconds),
                    );
                }
            }
            out.end_row();
        }
        out.finish()
    }
}

/// The segments of every account row of the part, by account (an account
/// without segments in the season has none).
fn held_accounts<'a>(
    account: &'a StringArray,
    segments: &ArrayRef,
    num_rows: usize,
) -> Result<HashMap<&'a str, Vec<Segment>>> {
    let mut held = HashMap::new();
    let mut ips = IpIds::default();
    if segments.data_type() == &DataType::Null {
        return Ok(held);
    }
    // Packed ([`crate::packed`], as the plan ships them), or the layout's list.
    if let Some(packed) = segments.as_binary_opt::<i32>() {
        for r in 0..num_rows {
            if !packed.is_null(r) {
                held.insert(account.value(r), unpack(packed.value(r), &mut ips)?);
            }
        }
        return Ok(held);
    }
    let Some(segments) = segments.as_list_opt::<i32>() else {
        return exec_err!(
            "{NAME}: the segments must be packed or a list, got {}",
            segments.data_type()
        );
    };
    for r in 0..num_rows {
        if !segments.is_null(r) {
            held.insert(account.value(r), segments_at(segments, r, &mut ips, NAME)?);
        }
    }
    Ok(held)
}

/// Each row's list of scored pairs: the partner, and the scores of both
/// directions in the columns of [`layout::score_type`].
#[derive(Default)]
struct Scored {
    partner: StringBuilder,
    similarity: [Float64Builder; 2],
    sum: [Int64Builder; 2],
    weight: [Int64Builder; 2],
    evidence: [StringBuilder; 2],
    offsets: Vec<i32>,
    pairs: i32,
}

impl Scored {
    /// Appends a pair of the current row: `xy`, then `yx`.
    fn push(&mut self, partner: &str, xy: &scoring::PairOutcome, yx: &scoring::PairOutcome) {
        self.partner.append_value(partner);
        for (d, out) in [xy, yx].into_iter().enumerate() {
            self.similarity[d].append_value(out.similarity());
            self.sum[d].append_value(out.sum);
            self.weight[d].append_value(out.weight);
            let json = serde_json::to_string(&out.evidence).expect("evidence serialises");
            self.evidence[d].append_value(json);
        }
        self.pairs += 1;
    }

    /// Ends the current row's list.
    fn end_row(&mut self) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.offsets.push(self.pairs);
    }

    fn finish(mut self) -> Result<ArrayRef> {
        let (DataType::List(item), DataType::Struct(score_fields)) =
            (layout::scored_type(), layout::score_type())
        else {
            unreachable!("the scored type is a list, the score type a struct")
        };
        let DataType::Struct(pair_fields) = item.data_type().clone() else {
            unreachable!("a scored pair is a struct")
        };
        let mut columns: Vec<ArrayRef> = Vec::new();
        for d in 0..2 {
            columns.push(Arc::new(self.similarity[d].finish()));
            columns.push(Arc::new(self.sum[d].finish()));
            columns.push(Arc::new(self.weight[d].finish()));
            columns.push(Arc::new(self.evidence[d].finish()));
        }
        let score = StructArray::try_new(score_fields, columns, None)?;
        let pairs = StructArray::try_new(
            pair_fields,
            vec![Arc::new(self.partner.finish()), Arc::new(score)],
            None,
        )?;
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        let offsets = OffsetBuffer::new(ScalarBuffer::from(self.offsets));
        Ok(Arc::new(ListArray::try_new(
            item,
            offsets,
            Arc::new(pairs),
            None,
        )?))
    }
}
