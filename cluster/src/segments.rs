//! An account's segments from the layout's Arrow list (a list of structs with
//! the fields of [`crate::layout::segment_fields`]) as [`schema::Segment`]s.

use datafusion::arrow::array::{Array, AsArray, ListArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Int64Type, UInt32Type};
use datafusion::common::{exec_err, DataFusionError, Result};
use schema::Segment;
use std::collections::HashMap;
use std::sync::Arc;

/// IP ids for the accounts scored together: equal ids, equal addresses (the
/// scoring compares IPs only for equality).
#[derive(Debug, Default)]
pub struct IpIds(HashMap<String, u32>);

impl IpIds {
    /// The id of `ip`: the next free one when it is new.
    pub fn id(&mut self, ip: &str) -> u32 {
        if let Some(&id) = self.0.get(ip) {
            return id;
        }
        let next = self.0.len() as u32;
        self.0.insert(ip.to_owned(), next);
        next
    }

    /// The addresses, by id.
    pub fn names(&self) -> Vec<&str> {
        let mut names = vec![""; self.0.len()];
        for (name, &id) in &self.0 {
            names[id as usize] = name;
        }
        names
    }
}

/// The segments of row `row` of `list` (a null row has none), sorted by
/// bucket; `what` names the caller in errors.
pub fn segments_at(
    list: &ListArray,
    row: usize,
    ips: &mut IpIds,
    what: &str,
) -> Result<Vec<Segment>> {
    if list.is_null(row) {
        return Ok(Vec::new());
    }
    let value = list.value(row);
    let Some(rows) = value.as_struct_opt() else {
        return exec_err!(
            "{what}: a segment must be a struct, got {}",
            value.data_type()
        );
    };
    let column = |name: &str| {
        rows.column_by_name(name)
            .cloned()
            .ok_or_else(|| DataFusionError::Execution(format!("{what}: no field {name}")))
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
    let mut segs = Vec::with_capacity(rows.len());
    for r in 0..rows.len() {
        let names = move_ips.value(r);
        let names = names.as_string::<i32>();
        let counts = move_counts.value(r);
        let counts = counts.as_primitive::<UInt32Type>();
        if names.len() != counts.len() {
            return exec_err!(
                "{what}: {} move IPs but {} counts in a segment",
                names.len(),
                counts.len()
            );
        }
        segs.push(Segment {
            bucket: bucket.value(r),
            moves: (0..names.len())
                .map(|k| (ips.id(names.value(k)), counts.value(k)))
                .collect(),
            stalls: stalls.value(r),
            stall_ip: (!stall_ip.is_null(r))
                .then(|| schema::StallIp::new(ips.id(stall_ip.value(r)))),
        });
    }
    segs.sort_by_key(|s| s.bucket);
    Ok(segs)
}
