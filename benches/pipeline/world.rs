//! The simulated worlds the harness measures, and their shape.
//!
//! A *dense* world is the simulator's own for the move count: about 12
//! moves an account a day. A *sparse* world (`--sparse K`) is shaped like a
//! real site's long tail: the simulator's world with K times the accounts,
//! of whose moves one in K is kept (by a hash of the line, so the same
//! options give the same bytes). Accounts then make a few moves a day and
//! their games wait hours to days between moves, which the stall rule
//! turns into long stall runs: many segments (counted by bucket, as the
//! reference counts them) a move. The simulator's default world is not
//! changed; the thinning is the bench's own.

use super::Options;
use std::hash::{Hash, Hasher};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The simulated world of about `moves` moves, generated once.
pub fn world(opts: &Options, moves: u64) -> PathBuf {
    let shape = match opts.sparse {
        1 => String::new(),
        k => format!("-sparse{k}"),
    };
    let file = opts
        .data
        .join(format!("world-{moves}-{}d{shape}.jsonl", opts.days));
    if file.is_file() {
        return file;
    }
    let k = opts.sparse.max(1) as u64;
    let cfg = sim::WorldConfig::for_moves(7, moves * k, opts.days);
    let tmp = file.with_extension("tmp");
    let start = Instant::now();
    let out = BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp).expect("create world"));
    let mut out = Thinned::new(out, k);
    let truth = sim::simulate(&cfg, &mut out).expect("simulate");
    out.flush().expect("write world");
    drop(out);
    std::fs::rename(&tmp, &file).expect("rename world");
    std::fs::write(
        file.with_extension("truth.json"),
        serde_json::to_vec_pretty(&truth).expect("truth"),
    )
    .expect("write truth");
    let n = line_count(&file);
    let s = start.elapsed().as_secs_f64();
    println!(
        "generated {} moves in {s:.1} s ({:.0} moves/s)",
        n,
        n as f64 / s
    );
    file
}

pub fn line_count(file: &Path) -> u64 {
    use std::io::BufRead;
    let f = std::io::BufReader::new(std::fs::File::open(file).expect("open world"));
    f.split(b'\n').count() as u64
}

/// Passes on one line in `k` (all of them when `k` is 1), chosen by a hash
/// of the line.
struct Thinned<W: Write> {
    out: W,
    k: u64,
    line: Vec<u8>,
}

impl<W: Write> Thinned<W> {
    fn new(out: W, k: u64) -> Self {
        Thinned {
            out,
            k,
            line: Vec::new(),
        }
    }

    fn kept(&self) -> bool {
        // SipHash with fixed keys: the same line, the same choice.
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.line.hash(&mut h);
        h.finish().is_multiple_of(self.k)
    }
}

impl<W: Write> Write for Thinned<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.k == 1 {
            return self.out.write(buf);
        }
        let mut rest = buf;
        while let Some(n) = rest.iter().position(|&c| c == b'\n') {
            self.line.extend_from_slice(&rest[..=n]);
            if self.kept() {
                self.out.write_all(&self.line)?;
            }
            self.line.clear();
            rest = &rest[n + 1..];
        }
        self.line.extend_from_slice(rest);
        Ok(buf.len())
    }

    /// Flushes the lines passed on; a line not yet ended waits for its end.
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// The world's shape from its segments: segments a move counted by bucket
/// (as the reference counts them), and the records held (moved buckets and
/// stall runs).
pub fn shape(segs: &schema::Segments, moves: u64) -> String {
    let mut buckets = 0u64;
    let mut records = 0u64;
    for list in &segs.by_account {
        buckets += schema::bucket_counts(list).0;
        records += list.len() as u64;
    }
    format!(
        "{:.2} segments a move ({buckets} segments by bucket, {records} records, {} accounts)",
        buckets as f64 / moves.max(1) as f64,
        segs.accounts.len()
    )
}
