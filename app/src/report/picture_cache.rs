//! Clique pictures kept from one report to the next in the same directory:
//! `pictures.keys` names the key each `clique-K.svg` and
//! `clique-K-overview.svg` was drawn for, and a picture whose key is the
//! same is read back instead of drawn again (a daemon's scan tick at 10M
//! moves drew 801 cliques, some 640 MB of SVG, every time).
//!
//! A key hashes everything a picture is drawn from: its title and options,
//! the marked buckets, each member's segments with their IPs by name and
//! pseudonym, the bucket size, and the source of the drawing code
//! (`DETECT_DRAWING_SOURCE`, from build.rs), so that a new drawing never
//! reuses an old picture.

use super::write_atomic;
use anyhow::Result;
use schema::Segments;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The file beside the pictures that names their keys.
pub const KEYS_FILE: &str = "pictures.keys";

/// The pictures of an earlier report in a directory, by clique number.
pub struct PictureCache {
    dir: PathBuf,
    keys: HashMap<usize, String>,
}

impl PictureCache {
    /// What `dir` holds; nothing if it has no readable keys file.
    pub fn open(dir: &Path) -> PictureCache {
        let text = std::fs::read_to_string(dir.join(KEYS_FILE)).unwrap_or_default();
        let keys = text
            .lines()
            .filter_map(|l| {
                let (k, key) = l.split_once(' ')?;
                Some((k.parse().ok()?, key.to_owned()))
            })
            .collect();
        PictureCache {
            dir: dir.to_owned(),
            keys,
        }
    }

    /// Clique `k`'s pictures (1-based), if they were drawn for `key`.
    pub fn get(&self, k: usize, key: &str) -> Option<viz::CliquePictures> {
        if self.keys.get(&k).map(String::as_str) != Some(key) {
            return None;
        }
        Some(viz::CliquePictures {
            timeline: std::fs::read_to_string(self.dir.join(timeline_file(k))).ok()?,
            overview: std::fs::read_to_string(self.dir.join(overview_file(k))).ok()?,
        })
    }
}

/// The file of clique `k`'s timeline (1-based).
pub fn timeline_file(k: usize) -> String {
    format!("clique-{k}.svg")
}

/// The file of clique `k`'s overview (1-based).
pub fn overview_file(k: usize) -> String {
    format!("clique-{k}-overview.svg")
}

/// Writes the keys of the pictures just written, clique 1 first.
pub fn write_keys(dir: &Path, keys: &[String]) -> Result<()> {
    let text: String = keys
        .iter()
        .enumerate()
        .map(|(i, key)| format!("{} {key}\n", i + 1))
        .collect();
    write_atomic(&dir.join(KEYS_FILE), text.as_bytes())
}

/// The key of the pictures of `members` drawn with `opts`.
pub fn key(segments: &Segments, members: &[&str], opts: &viz::TimelineOptions) -> String {
    let mut h = Sha256::new();
    let mut text = |s: &str| {
        h.update((s.len() as u64).to_le_bytes());
        h.update(s.as_bytes());
    };
    text(env!("DETECT_DRAWING_SOURCE"));
    text(env!("CARGO_PKG_VERSION"));
    text(&opts.title);
    text(&format!(
        "{} {:?} {:?} {}",
        opts.show_ips, opts.from, opts.to, segments.bucket_seconds
    ));
    for m in &opts.highlights {
        text(&format!("{} {}", m.bucket, m.note));
    }
    let label = |ip: u32| {
        let number = opts.pseudonyms.as_ref().and_then(|p| p.number(ip));
        format!("{} {number:?}", segments.ips.name(ip))
    };
    let mut labels: HashMap<u32, String> = HashMap::new();
    let mut ip = |id: u32, h: &mut Sha256| {
        let l = labels.entry(id).or_insert_with(|| label(id));
        h.update((l.len() as u64).to_le_bytes());
        h.update(l.as_bytes());
    };
    for name in members {
        h.update((name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        let segs = segments.of(name);
        h.update((segs.len() as u64).to_le_bytes());
        for s in segs {
            h.update(s.bucket.to_le_bytes());
            h.update(s.stalls.to_le_bytes());
            h.update([s.stall_ip.is_some() as u8]);
            if let Some(i) = s.stall_ip {
                ip(i.get(), &mut h);
            }
            h.update((s.moves.len() as u64).to_le_bytes());
            for &(i, count) in &s.moves {
                ip(i, &mut h);
                h.update(count.to_le_bytes());
            }
        }
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}
