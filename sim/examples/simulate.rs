//! Writes a world's moves and reports how many and how fast.
//!
//! `cargo run --release -p detect-sim --example simulate -- ACCOUNTS DAYS [SEED] [OUT]`
//! (no OUT: the moves are counted, not kept). `accounts=20000 days=42` gives
//! about ten million moves.

use detect_sim as sim;
use std::io::{self, Write};
use std::time::Instant;

/// Counts bytes and lines.
struct Count(u64, u64);

impl Write for Count {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0 += b.len() as u64;
        self.1 += b.iter().filter(|&&c| c == b'\n').count() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: u64| args.get(i).map_or(d, |s| s.parse().expect("a number"));
    let accounts = num(0, 300) as usize;
    let cfg = sim::WorldConfig {
        accounts,
        days: num(1, 28) as u32,
        seed: num(2, 1),
        cliques: (accounts / 25).max(1),
        ..Default::default()
    };
    let t = Instant::now();
    let (bytes, lines, truth) = match args.get(3) {
        Some(path) => {
            let mut f = io::BufWriter::new(std::fs::File::create(path)?);
            let mut c = Count(0, 0);
            let truth = sim::simulate_each(&cfg, |m| {
                c.1 += 1;
                writeln!(
                    f,
                    "{{\"username\": \"{}\", \"game\": \"{}\", \"timestamp_utc\": \"{}\", \"ip\": \"{}\"}}",
                    m.username,
                    m.game,
                    sim::format_utc(m.timestamp),
                    m.ip
                )
            })?;
            f.flush()?;
            (std::fs::metadata(path)?.len(), c.1, truth)
        }
        None => {
            let mut c = Count(0, 0);
            let truth = sim::simulate(&cfg, &mut c)?;
            (c.0, c.1, truth)
        }
    };
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{lines} moves ({:.2} x expected {}), {:.1} MB, {:.2} s, {:.2} M moves/s; {} groups, {} lookalike sets",
        lines as f64 / cfg.expected_moves() as f64,
        cfg.expected_moves(),
        bytes as f64 / 1e6,
        secs,
        lines as f64 / secs / 1e6,
        truth.groups.len(),
        truth.lookalikes.len()
    );
    Ok(())
}
