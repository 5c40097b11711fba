//! The segmenter on small logs: runs, stalls, out-of-order moves.
use super::*;

const K0: i64 = 1_430_647_200;
const B: i64 = 1800;

fn mv(u: &str, g: &str, k: i64, ip: &str) -> Move {
    Move {
        username: u.into(),
        game: g.into(),
        timestamp: K0 + k * B + 60,
        ip: ip.into(),
    }
}

/// Bucket by bucket: (bucket, moved, stalled).
fn states(s: &Segments, account: &str) -> Vec<(i64, bool, bool)> {
    schema::expand(s.of(account), B)
        .iter()
        .map(|g| ((g.bucket - K0) / B, !g.moves.is_empty(), g.stalled()))
        .collect()
}

#[test]
fn wait_between_moves_goes_to_the_next_mover() {
    let moves = [mv("a", "g", 0, "1"), mv("b", "g", 4, "2")];
    let s = segment_moves(&moves, B);
    assert_eq!(
        states(&s, "b"),
        vec![
            (1, false, true),
            (2, false, true),
            (3, false, true),
            (4, true, false)
        ]
    );
    assert_eq!(states(&s, "a"), vec![(0, true, false)]);
    let (run, moved) = (&s.of("b")[0], &s.of("b")[1]);
    assert_eq!(
        (run.bucket, run.stalls),
        (K0 + B, 3),
        "one run of three stalls"
    );
    assert_eq!(run.stall_ip.map(|ip| ip.get()), s.ips.get("2"));
    assert_eq!((moved.bucket, moved.stalls), (K0 + 4 * B, 0));
}

#[test]
fn a_wait_of_three_days_is_one_record() {
    let moves = [mv("a", "g", 0, "1"), mv("b", "g", 3 * 48 + 1, "2")];
    let s = segment_moves(&moves, B);
    assert_eq!(s.of("b").len(), 2);
    assert_eq!(s.of("b")[0].stalls, 3 * 48);
}

#[test]
fn an_older_move_splits_a_run() {
    // b waits k1..k5 in g; then, out of order, b moves at k3 in h (whose
    // previous move, by a, was at k0): k3 becomes moved and stalled, its
    // walk finds k2 stalled already.
    let moves = [
        mv("a", "g", 0, "1"),
        mv("b", "g", 6, "2"),
        mv("a", "h", 0, "1"),
        mv("b", "h", 3, "3"),
    ];
    let s = segment_moves(&moves, B);
    assert_eq!(
        states(&s, "b"),
        vec![
            (1, false, true),
            (2, false, true),
            (3, true, true),
            (4, false, true),
            (5, false, true),
            (6, true, false)
        ]
    );
    let spans: Vec<_> = s
        .of("b")
        .iter()
        .map(|g| ((g.bucket - K0) / B, g.span()))
        .collect();
    assert_eq!(spans, [(1, 2), (3, 1), (4, 2), (6, 1)]);
    // The stalls before k3 are charged to its IP, those after to k6's.
    let ip = |g: &Segment| g.stall_ip.map(|i| s.ips.name(i.get()).to_owned());
    assert_eq!(ip(&s.of("b")[0]).as_deref(), Some("3"));
    assert_eq!(ip(&s.of("b")[2]).as_deref(), Some("2"));
}

#[test]
fn walk_stops_at_an_existing_record() {
    // b moved at k2 in another game: the walk from k5 marks k4, k3 and stops.
    let moves = [
        mv("a", "g", 0, "1"),
        mv("b", "h", 2, "2"),
        mv("b", "g", 5, "3"),
    ];
    let s = segment_moves(&moves, B);
    assert_eq!(
        states(&s, "b"),
        vec![
            (2, true, false),
            (3, false, true),
            (4, false, true),
            (5, true, false)
        ]
    );
}

#[test]
fn first_move_of_a_game_marks_nothing() {
    let s = segment_moves(&[mv("a", "g", 5, "1")], B);
    assert_eq!(states(&s, "a"), vec![(5, true, false)]);
}

#[test]
fn several_ips_in_a_bucket_keep_counts_and_first_use_order() {
    let moves = [
        mv("a", "g", 0, "x"),
        mv("a", "g", 0, "y"),
        mv("a", "g", 0, "x"),
    ];
    let s = segment_moves(&moves, B);
    let seg = &s.of("a")[0];
    let named: Vec<_> = seg
        .moves
        .iter()
        .map(|&(ip, c)| (s.ips.name(ip), c))
        .collect();
    assert_eq!(named, vec![("x", 2), ("y", 1)]);
}

#[test]
fn sort_is_stable_for_equal_times() {
    let mut moves = vec![
        mv("b", "g", 3, "1"),
        mv("a", "g", 1, "1"),
        mv("c", "g", 1, "1"),
    ];
    sort_by_time(&mut moves);
    let order: Vec<_> = moves.iter().map(|m| m.username.as_str()).collect();
    assert_eq!(order, ["a", "c", "b"]);
}

#[test]
fn records_tidied_as_they_come_equal_one_sort_at_the_end() {
    // Two tidies' worth of game days and more, many repeated, in an
    // order a log gives (days rising, accounts and games mixed).
    let n = 2 * Pending::<GameDays>::FIRST_TIDY + 12_345;
    let mut x: u64 = 7;
    let runs: Vec<GameDays> = (0..n)
        .map(|i| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let day = 16_000 + (i / 50_000) as i64;
            GameDays {
                account: (x >> 40) as u32 % 3_000,
                game: (x >> 20) as u32 % 40,
                first_day: day,
                last_day: day + (x % 3) as i64,
            }
        })
        .collect();
    let mut pending = Pending::new(GameDays::merge);
    for r in &runs {
        pending.push(*r);
    }
    assert!(pending.tidied > 0, "tidied along the way");
    assert_eq!(pending.finish(), GameDays::merge(runs));
}
