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

    /// Clique `k`'s pictures (1-based), if they were drawn for `key`: the
    /// overview whole, the timeline up to its root element
    /// (`root_element`), as the page beside them reads them.
    pub fn get(&self, k: usize, key: &str) -> Option<viz::CliquePictures> {
        if self.keys.get(&k).map(String::as_str) != Some(key) {
            return None;
        }
        Some(viz::CliquePictures {
            timeline: root_element(&self.dir.join(timeline_file(k)))?,
            overview: std::fs::read_to_string(self.dir.join(overview_file(k))).ok()?,
        })
    }
}

/// How far into a kept timeline its root element is looked for.
const ROOT_WITHIN: u64 = 64 * 1024;

/// A kept timeline up to the end of its root `<svg ...>` tag: the page
/// links to the file and reads only its size there (at ten million moves a
/// season's timelines weigh 1.9 GB, read back whole at every tick before).
/// `None` when the file cannot be read or has no root tag near its start.
fn root_element(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(ROOT_WITHIN)
        .read_to_end(&mut head)
        .ok()?;
    let text = String::from_utf8_lossy(&head);
    let start = text.find("<svg")?;
    let end = start + text[start..].find('>')?;
    Some(text[..=end].to_owned())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_timeline_is_read_up_to_its_root_element() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.svg");
        let body = "<g>".repeat(100_000);
        std::fs::write(
            &path,
            format!("<?xml version=\"1.0\"?>\n<svg width=\"10\" height=\"20\">{body}</svg>"),
        )
        .unwrap();
        assert_eq!(
            root_element(&path).as_deref(),
            Some("<?xml version=\"1.0\"?>\n<svg width=\"10\" height=\"20\">")
        );
        // No root tag near the start, or no file: drawn again.
        std::fs::write(&path, format!("{body}<svg>")).unwrap();
        assert_eq!(root_element(&path), None);
        assert_eq!(root_element(&dir.path().join("none.svg")), None);
    }
}
