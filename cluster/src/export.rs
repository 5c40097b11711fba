//! Writes a season as Parquet in the layout of [`crate::layout`].

use crate::layout::{self, Meta};
use crate::spill::Earlier;
use anyhow::{Context, Result};
use datafusion::arrow::array::{
    ArrayRef, Int64Builder, ListArray, ListBuilder, StringBuilder, StructArray, UInt32Builder,
};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::datatypes::{DataType, Field, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::parquet::arrow::ArrowWriter;
use schema::{AccountId, Season, Segments};
use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

/// Rows a record batch holds at most.
const BATCH_ROWS: usize = 65_536;

/// Writes the season's segments and IP-day sightings under `dir` (created;
/// must not hold a season already), `partitions` parts by a hash of the account.
pub fn write_season(
    segments: &Segments,
    season: &Season,
    partitions: u32,
    generation: i64,
    dir: &Path,
) -> Result<Meta> {
    let none = &mut |_| Ok(Earlier::new());
    write_season_from(segments, none, season, partitions, generation, dir)
}

/// [`write_season`] of segments held partly elsewhere: `earlier(part)`
/// gives, for the part's accounts, the segments that come before what
/// `segments` hold for them (a log's settled segments, [`crate::spill`]),
/// once a part, parts in order. `segments` hold the names, the sightings
/// and the days in games of all of them.
pub fn write_season_from(
    segments: &Segments,
    earlier: &mut dyn FnMut(u32) -> Result<Earlier>,
    season: &Season,
    partitions: u32,
    generation: i64,
    dir: &Path,
) -> Result<Meta> {
    let partitions = partitions.max(1);
    let members = scoring::participants(segments, season)?;
    let mut by_part: Vec<Vec<AccountId>> = vec![Vec::new(); partitions as usize];
    for &u in &members {
        by_part[layout::partition_of(segments.accounts.name(u), partitions) as usize].push(u);
    }
    let mut is_member = vec![false; segments.accounts.len()];
    for &u in &members {
        is_member[u as usize] = true;
    }
    let mut days_by_part: Vec<Vec<usize>> = vec![Vec::new(); partitions as usize];
    for (i, d) in segments.ip_days.iter().enumerate() {
        if is_member[d.account as usize] && scoring::days_in_season(d.day, d.day, season) {
            let name = segments.accounts.name(d.account);
            days_by_part[layout::partition_of(name, partitions) as usize].push(i);
        }
    }
    for sub in [layout::SEGMENTS, layout::IP_DAYS] {
        std::fs::create_dir_all(dir.join(sub))
            .with_context(|| format!("cannot create {}", dir.join(sub).display()))?;
    }
    let mut meta = Meta {
        format: layout::FORMAT,
        season: season.number,
        bucket_seconds: segments.bucket_seconds,
        participants: members.len(),
        partitions,
        generation,
        segments: 0,
        ip_days: 0,
        games: Some(season.games.clone()),
    };
    for part in 0..partitions {
        let name = layout::part_name(part);
        let accounts = &by_part[part as usize];
        let mut held = earlier(part)?;
        meta.segments += write_segments(
            segments,
            &mut held,
            season,
            accounts,
            &dir.join(layout::SEGMENTS).join(&name),
        )?;
        let days = &days_by_part[part as usize];
        write_ip_days(segments, days, &dir.join(layout::IP_DAYS).join(&name))?;
        meta.ip_days += days.len();
    }
    write_meta(&meta, &dir.join(layout::META))?;
    Ok(meta)
}

/// Writes `meta` as pretty JSON.
pub fn write_meta(meta: &Meta, path: &Path) -> Result<()> {
    std::fs::write(path, serde_json::to_string_pretty(meta)? + "\n")
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Reads a folder's `meta.json`.
pub fn read_meta(dir: &Path) -> Result<Meta> {
    let path = dir.join(layout::META);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let meta: Meta = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a season's meta.json", path.display()))?;
    anyhow::ensure!(
        (layout::OLDEST_FORMAT..=layout::FORMAT).contains(&meta.format),
        "{}: layout version {} (this detect reads {} to {})",
        path.display(),
        meta.format,
        layout::OLDEST_FORMAT,
        layout::FORMAT
    );
    Ok(meta)
}

/// Writes the in-season segments of `accounts` (those `earlier` holds for
/// them, then those of `segments`), a row each; returns how many segments.
fn write_segments(
    segments: &Segments,
    earlier: &mut Earlier,
    season: &Season,
    accounts: &[AccountId],
    path: &Path,
) -> Result<usize> {
    let mut out = Writer::create(path, layout::segments_schema())?;
    let mut rows = AccountRows::default();
    let mut total = 0;
    for &u in accounts {
        let bs = segments.bucket_seconds;
        let rest = &segments.by_account[u as usize];
        let all = match earlier.remove(&u) {
            Some(mut held) => {
                held.extend_from_slice(rest);
                Cow::Owned(held)
            }
            None => Cow::Borrowed(rest.as_slice()),
        };
        let segs = scoring::in_season(&all, season, bs);
        rows.push(segments, segments.accounts.name(u), &segs);
        total += segs.len();
        if rows.segments >= BATCH_SEGMENTS {
            out.write(rows.finish()?)?;
        }
    }
    out.write(rows.finish()?)?;
    out.close()?;
    Ok(total)
}

/// Segments a record batch of the segments table holds, about.
const BATCH_SEGMENTS: usize = 65_536;

/// Rows of the segments table being built: names, and the segments of all
/// of them flat, cut into one list per account at the end.
#[derive(Default)]
struct AccountRows {
    account: StringBuilder,
    lengths: Vec<usize>,
    segments: usize,
    bucket: Int64Builder,
    stalls: UInt32Builder,
    stall_ip: StringBuilder,
    move_ips: ListBuilder<StringBuilder>,
    move_counts: ListBuilder<UInt32Builder>,
}

impl AccountRows {
    fn push(&mut self, all: &Segments, name: &str, segs: &[schema::Segment]) {
        self.account.append_value(name);
        self.lengths.push(segs.len());
        self.segments += segs.len();
        for s in segs {
            self.bucket.append_value(s.bucket);
            self.stalls.append_value(s.stalls);
            self.stall_ip
                .append_option(s.stall_ip.map(|ip| all.ips.name(ip.get())));
            for &(ip, count) in s.moves.iter() {
                self.move_ips.values().append_value(all.ips.name(ip));
                self.move_counts.values().append_value(count);
            }
            self.move_ips.append(true);
            self.move_counts.append(true);
        }
    }

    fn finish(&mut self) -> Result<Vec<ArrayRef>> {
        let fields = layout::segment_fields();
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.bucket.finish()),
            Arc::new(self.stalls.finish()),
            Arc::new(self.stall_ip.finish()),
            Arc::new(self.move_ips.finish()),
            Arc::new(self.move_counts.finish()),
        ];
        let structs = StructArray::try_new(fields.clone(), columns, None)?;
        let item = Arc::new(Field::new("item", DataType::Struct(fields), false));
        let offsets = OffsetBuffer::from_lengths(std::mem::take(&mut self.lengths));
        let lists = ListArray::try_new(item, offsets, Arc::new(structs), None)?;
        self.segments = 0;
        Ok(vec![Arc::new(self.account.finish()), Arc::new(lists)])
    }
}

fn write_ip_days(segments: &Segments, rows: &[usize], path: &Path) -> Result<()> {
    let mut out = Writer::create(path, layout::ip_days_schema())?;
    for chunk in rows.chunks(BATCH_ROWS) {
        let mut account = StringBuilder::new();
        let mut day = Int64Builder::new();
        let mut ip = StringBuilder::new();
        for &i in chunk {
            let d = &segments.ip_days[i];
            account.append_value(segments.accounts.name(d.account));
            day.append_value(d.day);
            ip.append_value(segments.ips.name(d.ip));
        }
        out.write(vec![
            Arc::new(account.finish()),
            Arc::new(day.finish()),
            Arc::new(ip.finish()),
        ])?;
    }
    out.close()
}

/// A Parquet file being written, one schema.
pub(crate) struct Writer {
    schema: SchemaRef,
    inner: ArrowWriter<std::fs::File>,
    path: String,
}

impl Writer {
    pub(crate) fn create(path: &Path, schema: SchemaRef) -> Result<Writer> {
        let file = std::fs::File::create(path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        Ok(Writer {
            inner: ArrowWriter::try_new(file, schema.clone(), None)?,
            schema,
            path: path.display().to_string(),
        })
    }

    pub(crate) fn write(&mut self, columns: Vec<ArrayRef>) -> Result<()> {
        if columns.first().is_none_or(|c| c.is_empty()) {
            return Ok(());
        }
        let batch = RecordBatch::try_new(self.schema.clone(), columns)?;
        self.inner
            .write(&batch)
            .with_context(|| format!("cannot write {}", self.path))
    }

    pub(crate) fn close(self) -> Result<()> {
        let path = self.path;
        self.inner
            .close()
            .with_context(|| format!("cannot write {path}"))?;
        Ok(())
    }
}
