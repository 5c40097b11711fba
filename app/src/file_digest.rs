//! The digest of a log file as read (a gzip file's compressed bytes): how
//! an ingest knows it has stored the very same file before.

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use std::io::Read;

/// A file's SHA-256 (lower-case hex) and size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDigest {
    pub hex: String,
    pub bytes: u64,
}

impl FileDigest {
    /// The digest of the file at `path`; `None` for standard input (`-`),
    /// which cannot be read twice and is never skipped.
    pub fn of(path: &str) -> Result<Option<FileDigest>> {
        if path == "-" {
            return Ok(None);
        }
        let mut file = std::fs::File::open(path).with_context(|| format!("cannot open {path}"))?;
        let mut hasher = Sha256::new();
        let mut buf = vec![0u8; 1 << 16];
        let mut bytes = 0u64;
        loop {
            let n = file
                .read(&mut buf)
                .with_context(|| format!("cannot read {path}"))?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
            bytes += n as u64;
        }
        Ok(Some(FileDigest {
            hex: format!("{:x}", hasher.finalize()),
            bytes,
        }))
    }
}
