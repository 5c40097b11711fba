//! Which IP goes in which column: IPs numbered by first use, ephemeral ones
//! folded into the "other IPs" column, and the name each is shown by.

use super::{plural, Kind, Mark, TimelineOptions, FOLD_MAX_BUCKETS, OTHER};
use crate::escape::xml_safe;
use schema::{IpId, Segments};
use std::collections::{BTreeSet, HashMap};

/// How an IP is used in the drawn range.
struct IpUse {
    ip: IpId,
    accounts: BTreeSet<usize>,
    moved_buckets: usize,
}

/// A column of the picture.
pub(super) struct Column {
    /// `IP-n`, or "other".
    pub key: String,
    pub label: String,
    pub tooltip: String,
    pub other: bool,
}

/// The columns of a picture and where each IP's marks go.
pub(super) struct Columns {
    pub columns: Vec<Column>,
    /// Index into the uses, by IP.
    index: HashMap<IpId, usize>,
    /// Each use's pseudonym (`IP-n`): column keys and `data-ip`.
    pseudonyms: Vec<String>,
    /// Each use's label: the pseudonym, or the escaped raw address when
    /// asked for.
    labels: Vec<String>,
    folded: Vec<bool>,
    column_of_use: Vec<usize>,
    other_column: Option<usize>,
}

/// Where one mark goes and how it is named.
pub(super) struct Placement {
    pub column: usize,
    /// Shown in the tooltip.
    pub ip_label: String,
    /// The `data-ip` attribute.
    pub data_ip: String,
}

impl Columns {
    pub fn new(marks: &[Mark], segments: &Segments, opts: &TimelineOptions) -> Columns {
        let (uses, index) = uses(marks);
        let ephemeral: Vec<bool> = uses
            .iter()
            .map(|u| u.accounts.len() <= 1 && u.moved_buckets <= FOLD_MAX_BUCKETS)
            .collect();
        let n_ephemeral = ephemeral.iter().filter(|&&e| e).count();
        let fold = n_ephemeral >= 2 && n_ephemeral < uses.len();
        let folded: Vec<bool> = ephemeral.iter().map(|&e| fold && e).collect();
        let unknown_stall = marks
            .iter()
            .any(|m| matches!(m.kind, Kind::Stall { ip: None }));
        let pseudonyms: Vec<String> = uses
            .iter()
            .enumerate()
            .map(|(i, u)| match &opts.pseudonyms {
                Some(p) => p.label(u.ip),
                None => format!("IP-{}", i + 1),
            })
            .collect();
        let labels: Vec<String> = if opts.show_ips {
            uses.iter()
                .map(|u| xml_safe(segments.ips.name(u.ip)).into_owned())
                .collect()
        } else {
            pseudonyms.clone()
        };

        let mut columns: Vec<Column> = Vec::new();
        let mut column_of_use: Vec<usize> = vec![0; uses.len()];
        for (i, u) in uses.iter().enumerate() {
            if folded[i] {
                continue;
            }
            column_of_use[i] = columns.len();
            columns.push(Column {
                key: pseudonyms[i].clone(),
                tooltip: format!(
                    "{}: {} account{}, {} moved bucket{}",
                    labels[i],
                    u.accounts.len(),
                    plural(u.accounts.len()),
                    u.moved_buckets,
                    plural(u.moved_buckets)
                ),
                label: labels[i].clone(),
                other: false,
            });
        }
        let other_column = (fold || unknown_stall).then(|| {
            columns.push(other(folded.iter().filter(|&&f| f).count()));
            columns.len() - 1
        });
        for (i, c) in column_of_use.iter_mut().enumerate() {
            if folded[i] {
                *c = other_column.expect("folding makes the other column");
            }
        }
        Columns {
            columns,
            index,
            pseudonyms,
            labels,
            folded,
            column_of_use,
            other_column,
        }
    }

    /// The column of a mark and the names of its IP.
    pub fn place(&self, kind: Kind) -> Placement {
        let use_index = match kind {
            Kind::Move { ip, .. } => Some(self.index[&ip]),
            Kind::Stall { ip } => ip.map(|ip| self.index[&ip]),
        };
        match use_index {
            Some(i) => Placement {
                column: self.column_of_use[i],
                ip_label: if self.folded[i] {
                    format!("{} ({OTHER})", self.labels[i])
                } else {
                    self.labels[i].clone()
                },
                data_ip: self.pseudonyms[i].clone(),
            },
            None => Placement {
                column: self
                    .other_column
                    .expect("a stall without IP makes the other column"),
                ip_label: "no later move".to_owned(),
                data_ip: "none".to_owned(),
            },
        }
    }
}

/// The IPs of the marks in order of first use (time, then account name), with
/// who used them and in how many moved buckets.
fn uses(marks: &[Mark]) -> (Vec<IpUse>, HashMap<IpId, usize>) {
    let mut uses: Vec<IpUse> = Vec::new();
    let mut index: HashMap<IpId, usize> = HashMap::new();
    for m in marks {
        let ip = match m.kind {
            Kind::Move { ip, .. } | Kind::Stall { ip: Some(ip) } => ip,
            Kind::Stall { ip: None } => continue,
        };
        let i = *index.entry(ip).or_insert_with(|| {
            uses.push(IpUse {
                ip,
                accounts: BTreeSet::new(),
                moved_buckets: 0,
            });
            uses.len() - 1
        });
        uses[i].accounts.insert(m.account);
        if matches!(m.kind, Kind::Move { .. }) {
            uses[i].moved_buckets += 1;
        }
    }
    (uses, index)
}

/// The "other IPs" column holding `n` folded addresses.
fn other(n: usize) -> Column {
    Column {
        key: "other".to_owned(),
        label: OTHER.to_owned(),
        tooltip: format!(
            "{OTHER}: {n} address{} each used by one account in at most {FOLD_MAX_BUCKETS} \
             moved buckets, and stalls with no later move",
            if n == 1 { "" } else { "es" }
        ),
        other: true,
    }
}
