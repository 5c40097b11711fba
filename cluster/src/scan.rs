//! Runs the scan plan on a session (a cluster's or a local one) and writes
//! its results as Parquet; reads them back as a [`schema::ScanResult`].

use crate::export::{read_meta, write_meta, Writer};
use crate::{layout, plan};
use anyhow::{bail, Context, Result};
use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{Float64Type, Int64Type};
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use datafusion::prelude::SessionContext;
use schema::{CrowdedAddress, Evidence, Mode, PairScore, ScanParams, ScanResult};
use std::path::Path;

/// The parameters of a scan, beside its results.
pub const PARAMS: &str = "params.json";

/// Scans the season folder `season_dir` on `ctx` and writes the results to
/// `out` (created). Reference mode only.
pub async fn run(
    ctx: &SessionContext,
    season_dir: &Path,
    params: &ScanParams,
    out: &Path,
) -> Result<ScanResult> {
    if params.mode != Mode::Reference {
        bail!(
            "a cluster scan scores in reference mode only (asked: {:?})",
            params.mode
        );
    }
    let meta = read_meta(season_dir)?;
    if meta.bucket_seconds != params.bucket_seconds {
        bail!(
            "{}: the segments were cut into {}-second buckets but the scan asks for {}",
            season_dir.display(),
            meta.bucket_seconds,
            params.bucket_seconds
        );
    }
    plan::register_season(ctx, season_dir).await?;
    let pairs = collect(
        ctx,
        &plan::pairs_sql(
            params.crowd_limit,
            params.bucket_seconds,
            ctx.state().config().target_partitions(),
        ),
    )
    .await?;
    let crowded = collect(ctx, &plan::crowded_sql(params.crowd_limit)).await?;
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    write_batches(&out.join(layout::PAIRS), layout::pairs_schema(), &pairs)?;
    write_batches(
        &out.join(layout::CROWDED),
        layout::crowded_schema(),
        &crowded,
    )?;
    write_meta(&meta, &out.join(layout::META))?;
    std::fs::write(
        out.join(PARAMS),
        serde_json::to_string_pretty(params)? + "\n",
    )?;
    read(out)
}

async fn collect(ctx: &SessionContext, sql: &str) -> Result<Vec<RecordBatch>> {
    let df = ctx.sql(sql).await.context("cannot plan the scan")?;
    df.collect().await.context("the scan failed")
}

/// Writes batches under the layout's schema (names and types; the plan's
/// nullability may be looser).
fn write_batches(
    path: &Path,
    schema: datafusion::arrow::datatypes::SchemaRef,
    batches: &[RecordBatch],
) -> Result<()> {
    let mut out = Writer::create(path, schema.clone())?;
    for b in batches {
        let columns = b
            .columns()
            .iter()
            .zip(schema.fields())
            .map(|(c, f)| cast(c, f.data_type()))
            .collect::<Result<Vec<_>, _>>()?;
        out.write(columns)?;
    }
    out.close()
}

/// Reads a scan's results folder into a [`ScanResult`]: the directed pairs in
/// report order, the cliques at the threshold, the crowded addresses.
pub fn read(dir: &Path) -> Result<ScanResult> {
    let meta = read_meta(dir)?;
    let params_path = dir.join(PARAMS);
    let params: ScanParams = serde_json::from_str(
        &std::fs::read_to_string(&params_path)
            .with_context(|| format!("cannot read {}", params_path.display()))?,
    )
    .with_context(|| format!("{}: not a scan's parameters", params_path.display()))?;
    let mut pairs = Vec::new();
    let mut candidate_pairs = 0;
    for batch in read_batches(&dir.join(layout::PAIRS))? {
        candidate_pairs += batch.num_rows();
        pairs_of(&batch, &mut pairs)
            .with_context(|| format!("{}", dir.join(layout::PAIRS).display()))?;
    }
    let mut crowded = Vec::new();
    for batch in read_batches(&dir.join(layout::CROWDED))? {
        let day = batch.column(0).as_primitive::<Int64Type>();
        let ip = batch.column(1).as_string::<i32>();
        let accounts = batch.column(2).as_primitive::<Int64Type>();
        for r in 0..batch.num_rows() {
            crowded.push(CrowdedAddress {
                day: day.value(r),
                ip: ip.value(r).to_owned(),
                accounts: accounts.value(r) as usize,
            });
        }
    }
    crowded.sort_by(|a, b| b.accounts.cmp(&a.accounts).then_with(|| a.cmp(b)));
    Ok(scoring::scan_result(
        params,
        meta.participants,
        candidate_pairs,
        pairs,
        crowded,
    ))
}

fn read_batches(path: &Path) -> Result<Vec<RecordBatch>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .with_context(|| format!("{}: not a Parquet file", path.display()))?
        .build()?;
    reader
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("cannot read {}", path.display()))
}

/// Both directed pairs of every row of a `pairs.parquet` batch.
fn pairs_of(batch: &RecordBatch, out: &mut Vec<PairScore>) -> Result<()> {
    let x = batch.column(0).as_string::<i32>();
    let y = batch.column(1).as_string::<i32>();
    let score = batch.column(2).as_struct();
    for r in 0..batch.num_rows() {
        if score.is_null(r) {
            bail!("row {r}: a pair without a score");
        }
        for (d, a, b) in [("xy", x, y), ("yx", y, x)] {
            let col = |f: &str| {
                score
                    .column_by_name(&format!("{d}_{f}"))
                    .cloned()
                    .with_context(|| format!("no score field {d}_{f}"))
            };
            let evidence_json = col("evidence")?;
            let evidence: Evidence =
                serde_json::from_str(evidence_json.as_string::<i32>().value(r))
                    .with_context(|| format!("row {r}: bad evidence"))?;
            out.push(PairScore {
                account_a: a.value(r).to_owned(),
                account_b: b.value(r).to_owned(),
                similarity: col("similarity")?.as_primitive::<Float64Type>().value(r),
                sum: col("sum")?.as_primitive::<Int64Type>().value(r),
                weight: col("weight")?.as_primitive::<Int64Type>().value(r),
                evidence,
            });
        }
    }
    Ok(())
}
