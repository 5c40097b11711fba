//! The simulator's output: deterministic, time-sorted, in the reference
//! format, of the promised volume and shape.

use detect_sim::{
    simulate, simulate_each, simulate_moves, LookalikeKind, Style, Truth, WorldConfig,
};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::{self, Write};
use std::time::Instant;

fn small(seed: u64) -> WorldConfig {
    WorldConfig {
        seed,
        accounts: 80,
        days: 6,
        cliques: 4,
        season: 3,
        ..Default::default()
    }
}

fn bytes(cfg: &WorldConfig) -> (Vec<u8>, Truth) {
    let mut out = Vec::new();
    let truth = simulate(cfg, &mut out).unwrap();
    (out, truth)
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    let (a, ta) = bytes(&small(7));
    let (b, tb) = bytes(&small(7));
    assert!(!a.is_empty());
    assert!(a == b, "same seed, different output");
    assert_eq!(ta, tb);
    let (c, tc) = bytes(&small(8));
    assert!(a != c);
    assert_ne!(ta, tc);
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    username: String,
    game: String,
    timestamp_utc: String,
    ip: String,
}

fn lines(out: &[u8]) -> Vec<Line> {
    out.split(|&c| c == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("a JSON line with exactly the 4 fields"))
        .collect()
}

#[test]
fn lines_are_json_with_four_plain_fields_sorted_by_time() {
    let cfg = small(11);
    let (out, truth) = bytes(&cfg);
    assert_eq!(out.last(), Some(&b'\n'));
    let lines = lines(&out);
    assert!(lines.len() > 1000);
    let plain = |s: &str| {
        s.bytes()
            .all(|c| c.is_ascii_graphic() && c != b',' && c != b'"')
    };
    for l in &lines {
        assert!(
            plain(&l.username) && plain(&l.game),
            "{} {}",
            l.username,
            l.game
        );
        assert!(l.ip.parse::<std::net::Ipv4Addr>().is_ok(), "{}", l.ip);
        assert_eq!(l.timestamp_utc.len(), 19);
    }
    // `YYYY-MM-DD hh:mm:ss` sorts as text in time order.
    assert!(lines
        .windows(2)
        .all(|w| w[0].timestamp_utc <= w[1].timestamp_utc));
    // Inside the configured days.
    let first = detect_sim::format_utc(cfg.start);
    let end = detect_sim::format_utc(cfg.start + cfg.days as i64 * 86_400);
    assert!(lines[0].timestamp_utc >= first && lines.last().unwrap().timestamp_utc < end);
    // Every account of the truth that moved is a known one, and vice versa.
    let known: HashSet<&str> = truth
        .people
        .iter()
        .flat_map(|p| p.accounts.iter().map(|a| a.as_str()))
        .collect();
    assert_eq!(known.len(), cfg.accounts);
    assert!(lines.iter().all(|l| known.contains(l.username.as_str())));
}

#[test]
fn the_log_reads_back_through_ingest() {
    let cfg = small(12);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("moves.jsonl");
    let mut f = io::BufWriter::new(std::fs::File::create(&path).unwrap());
    simulate(&cfg, &mut f).unwrap();
    drop(f);
    let (direct, _) = simulate_moves(&cfg).unwrap();
    let read: Vec<schema::Move> = ingest::open_log(path.to_str().unwrap())
        .unwrap()
        .map(|l| match l.unwrap().1 {
            ingest::LogLine::Move(m) => m,
            ingest::LogLine::Skipped => panic!("a line without username or ip"),
        })
        .collect();
    assert_eq!(read, direct);
}

#[test]
fn games_have_three_to_five_players_and_league_games_four() {
    let cfg = WorldConfig {
        seed: 5,
        accounts: 200,
        days: 14,
        cliques: 8,
        season: 7,
        ..Default::default()
    };
    let (moves, truth) = simulate_moves(&cfg).unwrap();
    let mut players: HashMap<&str, BTreeSet<&str>> = HashMap::new();
    let mut count: HashMap<&str, usize> = HashMap::new();
    for m in &moves {
        players.entry(&m.game).or_default().insert(&m.username);
        *count.entry(&m.game).or_default() += 1;
    }
    let league = regex_like_league(cfg.season);
    let (mut n_league, mut n_casual) = (0, 0);
    for (game, who) in &players {
        assert!(who.len() <= 5, "{game}: {who:?}");
        // A game seen for long enough shows all its players.
        if count[game] >= 30 {
            if league(game) {
                assert_eq!(who.len(), 4, "{game}");
                n_league += 1;
            } else if !game.starts_with("4pLeague_") {
                assert!((3..=5).contains(&who.len()), "{game}: {who:?}");
                n_casual += 1;
            }
        }
    }
    assert!(n_league >= 20 && n_casual >= 100, "{n_league} {n_casual}");
    // Most players play both kinds of game.
    let mut kinds: HashMap<&str, (bool, bool)> = HashMap::new();
    for m in &moves {
        let k = kinds.entry(&m.username).or_default();
        if league(&m.game) {
            k.0 = true;
        } else {
            k.1 = true;
        }
    }
    let both = kinds.values().filter(|k| k.0 && k.1).count();
    assert!(both * 2 > kinds.len(), "{both} of {}", kinds.len());
    // Every account of every multi-account owner plays in the league.
    let in_league: HashSet<&str> = moves
        .iter()
        .filter(|m| league(&m.game))
        .map(|m| m.username.as_str())
        .collect();
    for g in &truth.groups {
        for a in &g.accounts {
            assert!(
                in_league.contains(a.as_str()),
                "{a} of {} ({})",
                g.person,
                g.style
            );
        }
    }
    // Mostly in different league games from each other.
    let (mut together, mut any) = (0, 0);
    for g in &truth.groups {
        let acc: HashSet<&str> = g.accounts.iter().map(|a| a.as_str()).collect();
        for (game, who) in &players {
            let n = who.iter().filter(|u| acc.contains(*u)).count();
            if league(game) && n > 0 {
                any += 1;
                together += (n > 1) as usize;
            }
        }
    }
    assert!(together * 4 < any, "{together} of {any}");
}

/// Matches `^4pLeague_S{season}_D\d+L\d+G\d+$`.
fn regex_like_league(season: u32) -> impl Fn(&str) -> bool {
    let prefix = format!("4pLeague_S{season}_D");
    move |g: &str| {
        let Some(rest) = g.strip_prefix(&prefix) else {
            return false;
        };
        let mut parts = rest.split(['L', 'G']);
        let ok = |p: Option<&str>| {
            p.is_some_and(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()))
        };
        ok(parts.next()) && ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
    }
}

#[test]
fn the_volume_follows_the_formula() {
    for (accounts, days) in [(300, 14), (120, 30)] {
        let cfg = WorldConfig {
            accounts,
            days,
            cliques: accounts / 25,
            ..Default::default()
        };
        let mut n = 0u64;
        simulate_each(&cfg, |_| {
            n += 1;
            Ok(())
        })
        .unwrap();
        let ratio = n as f64 / cfg.expected_moves() as f64;
        assert!(
            (0.75..1.25).contains(&ratio),
            "{accounts} x {days}: {n} moves, {ratio:.2} of expected"
        );
    }
}

#[test]
fn ips_are_shared_the_ways_real_ones_are() {
    let cfg = WorldConfig {
        seed: 3,
        accounts: 300,
        days: 10,
        ..Default::default()
    };
    let (moves, truth) = simulate_moves(&cfg).unwrap();
    // Accounts per (ip, day), and IPs per account.
    let mut per_ip_day: HashMap<(&str, i64), HashSet<&str>> = HashMap::new();
    let mut ips: HashMap<&str, HashSet<&str>> = HashMap::new();
    for m in &moves {
        per_ip_day
            .entry((&m.ip, m.timestamp.div_euclid(86_400)))
            .or_default()
            .insert(&m.username);
        ips.entry(&m.username).or_default().insert(&m.ip);
    }
    // Some address serves many accounts on one day (carrier NAT, campus).
    let busiest = per_ip_day.values().map(|s| s.len()).max().unwrap();
    assert!(busiest >= 5, "{busiest}");
    // Most accounts use several addresses (home, phone, work, a new lease).
    let several = ips.values().filter(|s| s.len() >= 3).count();
    assert!(several * 2 > ips.len(), "{several} of {}", ips.len());
    // Every kind of honest sharing is there.
    let kinds: HashSet<LookalikeKind> = truth.lookalikes.iter().map(|l| l.kind).collect();
    assert_eq!(kinds.len(), 5, "{kinds:?}");
    let styles: HashSet<Style> = truth.groups.iter().map(|g| g.style).collect();
    assert_eq!(styles.len(), 4);
    assert!(truth
        .groups
        .iter()
        .all(|g| (2..=8).contains(&g.accounts.len())));
}

#[test]
fn people_keep_hours() {
    // Moves by local hour of the mover: few at night, many in the evening.
    let cfg = small(4);
    let (moves, truth) = simulate_moves(&cfg).unwrap();
    let offset: HashMap<&str, i64> = truth
        .people
        .iter()
        .flat_map(|p| {
            p.accounts
                .iter()
                .map(move |a| (a.as_str(), p.utc_offset_minutes as i64 * 60))
        })
        .collect();
    let mut by_hour = BTreeMap::<i64, usize>::new();
    for m in &moves {
        let local = (m.timestamp + offset[m.username.as_str()]).rem_euclid(86_400) / 3600;
        *by_hour.entry(local).or_default() += 1;
    }
    let at = |h: std::ops::Range<i64>| {
        h.map(|h| by_hour.get(&h).copied().unwrap_or(0))
            .sum::<usize>()
    };
    assert!(at(3..6) * 15 < at(19..22), "{by_hour:?}");
}

/// Counts what is written.
struct Counter {
    bytes: u64,
    lines: u64,
}

impl Write for Counter {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.bytes += b.len() as u64;
        self.lines += b.iter().filter(|&&c| c == b'\n').count() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn streams_half_a_million_moves() {
    // About half a million moves into a counting sink: nothing is kept.
    // (Ten million: `cargo run --release -p detect-sim --example simulate --
    // 20000 42`, some 8 s.)
    let cfg = WorldConfig::for_moves(2, 500_000, 14);
    let mut sink = Counter { bytes: 0, lines: 0 };
    let t = Instant::now();
    let truth = simulate(&cfg, &mut sink).unwrap();
    let secs = t.elapsed().as_secs_f64();
    assert!(sink.lines > 375_000, "{} moves", sink.lines);
    assert!(sink.bytes > sink.lines * 80);
    assert_eq!(truth.groups.len(), cfg.cliques);
    // Generous, for unoptimised builds on a busy machine.
    assert!(secs < 30.0, "{secs:.1} s");
}

#[test]
fn a_failing_writer_stops_the_simulation() {
    struct Broken;
    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::other("disk full"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let err = simulate(&small(1), &mut Broken).unwrap_err();
    assert_eq!(err.to_string(), "disk full");
    let bad = WorldConfig {
        accounts: 3,
        ..Default::default()
    };
    let err = simulate(&bad, &mut Vec::new()).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
}
