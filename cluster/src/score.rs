//! `detect_score(segs_x, segs_y, bucket_seconds)`: detect's own scoring as a
//! DataFusion scalar function, run by the executors.
//!
//! A thin adapter: each argument row is an account's segments as the plan packs
//! them (a list of structs with the columns of [`crate::layout::segments_schema`]
//! but `account`), turned into [`schema::Segment`]s with IP ids local to the
//! pair, and scored by [`scoring::score_pair`] in both directions. The
//! scoring crate is not changed for it.

use crate::layout;
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Float64Builder, Int64Builder, StringBuilder, StructArray,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Int64Type, UInt32Type};
use datafusion::common::{exec_err, Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use schema::Segment;
use std::collections::HashMap;
use std::sync::Arc;

/// The function's name in SQL.
pub const NAME: &str = "detect_score";

/// The scoring function, to register in a session.
pub fn udf() -> ScalarUDF {
    ScalarUDF::new_from_impl(DetectScore {
        signature: Signature::any(3, Volatility::Immutable),
    })
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct DetectScore {
    signature: Signature,
}

impl ScalarUDFImpl for DetectScore {
    fn name(&self) -> &str {
        NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _args: &[DataType]) -> Result<DataType> {
        Ok(layout::score_type())
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let bucket_seconds = match &args.args[2] {
            ColumnarValue::Scalar(ScalarValue::Int64(Some(b))) => *b,
            other => {
                return exec_err!("{NAME}: bucket_seconds must be an Int64 literal, got {other:?}")
            }
        };
        let arrays = ColumnarValue::values_to_arrays(&args.args[..2])?;
        let scores = score_rows(&arrays[0], &arrays[1], bucket_seconds)?;
        Ok(ColumnarValue::Array(Arc::new(scores)))
    }
}

/// Scores row `i` of `xs` against row `i` of `ys`, both ways.
fn score_rows(xs: &ArrayRef, ys: &ArrayRef, bucket_seconds: i64) -> Result<StructArray> {
    let (Some(xs), Some(ys)) = (xs.as_list_opt::<i32>(), ys.as_list_opt::<i32>()) else {
        return exec_err!(
            "{NAME}: the segments must be lists, got {} and {}",
            xs.data_type(),
            ys.data_type()
        );
    };
    let mut out = ScoreColumns::default();
    for i in 0..xs.len() {
        let mut ips = HashMap::new();
        let x = segments_at(xs, i, &mut ips)?;
        let y = segments_at(ys, i, &mut ips)?;
        out.push(&scoring::score_pair(&x, &y, bucket_seconds));
        out.push(&scoring::score_pair(&y, &x, bucket_seconds));
    }
    out.finish()
}

/// An account's segments from one list row (a null row has none), sorted by
/// bucket; IPs get ids from `ips`, shared by both accounts of the pair.
fn segments_at(
    list: &datafusion::arrow::array::ListArray,
    row: usize,
    ips: &mut HashMap<String, u32>,
) -> Result<Vec<Segment>> {
    if list.is_null(row) {
        return Ok(Vec::new());
    }
    let value = list.value(row);
    let Some(rows) = value.as_struct_opt() else {
        return exec_err!(
            "{NAME}: a segment must be a struct, got {}",
            value.data_type()
        );
    };
    let column = |name: &str| {
        rows.column_by_name(name).cloned().ok_or_else(|| {
            datafusion::error::DataFusionError::Execution(format!("{NAME}: no field {name}"))
        })
    };
    let bucket = column("bucket")?;
    let bucket = bucket.as_primitive::<Int64Type>();
    // Stalls from the bucket on (layout 2), or whether it was stalled
    // (layout 1, one segment a bucket).
    let stalls = match rows.column_by_name("stalls") {
        Some(stalls) => cast(stalls, &DataType::UInt32)?,
        None => cast(&column("stalled")?, &DataType::UInt32)?,
    };
    let stalls = stalls.as_primitive::<UInt32Type>();
    // Parquet readers may hand strings over as views: one type here.
    let stall_ip = cast(&column("stall_ip")?, &DataType::Utf8)?;
    let stall_ip = stall_ip.as_string::<i32>();
    let utf8_list = DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)));
    let move_ips = cast(&column("move_ips")?, &utf8_list)?;
    let move_ips = move_ips.as_list::<i32>();
    let move_counts = column("move_counts")?;
    let move_counts = move_counts.as_list::<i32>();
    let mut id = |ip: &str| {
        let next = ips.len() as u32;
        *ips.entry(ip.to_owned()).or_insert(next)
    };
    let mut segs = Vec::with_capacity(rows.len());
    for r in 0..rows.len() {
        let names = move_ips.value(r);
        let names = names.as_string::<i32>();
        let counts = move_counts.value(r);
        let counts = counts.as_primitive::<UInt32Type>();
        if names.len() != counts.len() {
            return exec_err!(
                "{NAME}: {} move IPs but {} counts in a segment",
                names.len(),
                counts.len()
            );
        }
        segs.push(Segment {
            bucket: bucket.value(r),
            moves: (0..names.len())
                .map(|k| (id(names.value(k)), counts.value(k)))
                .collect(),
            stalls: stalls.value(r),
            stall_ip: (!stall_ip.is_null(r)).then(|| schema::StallIp::new(id(stall_ip.value(r)))),
        });
    }
    segs.sort_by_key(|s| s.bucket);
    Ok(segs)
}

/// The columns of [`layout::score_type`], filled row by row: `xy` then `yx`.
#[derive(Default)]
struct ScoreColumns {
    similarity: [Float64Builder; 2],
    sum: [Int64Builder; 2],
    weight: [Int64Builder; 2],
    evidence: [StringBuilder; 2],
    next: usize,
}

impl ScoreColumns {
    fn push(&mut self, out: &scoring::PairOutcome) {
        let d = self.next;
        self.similarity[d].append_value(out.similarity());
        self.sum[d].append_value(out.sum);
        self.weight[d].append_value(out.weight);
        let json = serde_json::to_string(&out.evidence).expect("evidence serialises");
        self.evidence[d].append_value(json);
        self.next = 1 - d;
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
        Ok(StructArray::try_new(fields, columns, None)?)
    }
}
