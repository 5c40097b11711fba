//! Improved mode's hand-offs on hand-worked moves by second, through a
//! table, and the moves by second it reads them from. Worlds as in
//! `improved.rs`: address id 0 is IP 1 of `world`, which extra accounts
//! crowd.

use crate::common::{address, world};
use detect_scoring::improved::{handoffs, Context, Handoffs, MoveTimes};
use schema::Season;

/// One hand-off row: a's and b's moves as (second, address id), extra
/// accounts on address 0 that day, the expected hand-offs, and why.
type HandoffRow<'a> = (&'a [(i64, u32)], &'a [(i64, u32)], u32, Handoffs, &'a str);

const fn h(
    close: u32,
    switches: u32,
    quick: u32,
    turns: u32,
    spaced: u32,
    returns: u32,
) -> Handoffs {
    Handoffs {
        close,
        switches,
        quick,
        turns,
        spaced,
        returns,
    }
}

/// Address 0 is IP 1 of `world` (crowdable), address 7 another one.
const HANDOFF_ROWS: &[HandoffRow<'static>] = &[
    (
        &[(0, 0), (600, 0)],
        &[(900, 0)],
        0,
        h(0, 1, 0, 1, 0, 0),
        "a's last move at 600 s, b's first at 900 s: one turn of 5 minutes",
    ),
    (
        &[(0, 0), (100, 0), (200, 0)],
        &[(50, 0), (150, 0)],
        0,
        h(0, 4, 4, 0, 0, 3),
        "two tabs: four quick switches, the last three back to an account that moved 50 s before",
    ),
    (
        &[(0, 0), (1200, 0)],
        &[(2400, 0), (3000, 0)],
        0,
        h(0, 1, 0, 1, 0, 0),
        "a family: one hand-over after a 20-minute turn",
    ),
    (
        &[(0, 0)],
        &[(3600, 0)],
        0,
        h(0, 1, 0, 0, 1, 0),
        "a careful owner: the second account an hour after the first",
    ),
    (
        &[(0, 0)],
        &[(7201, 0)],
        0,
        h(0, 0, 0, 0, 0, 0),
        "more than two hours apart: no switch",
    ),
    (
        &[(0, 0)],
        &[(60, 7)],
        0,
        h(0, 0, 0, 0, 0, 0),
        "another address: no switch",
    ),
    (
        &[(0, 0), (30, 0)],
        &[(10, 0)],
        0,
        h(2, 2, 2, 0, 0, 1),
        "10 s apart, both ways: two close moves (two bodies), and a return",
    ),
    (
        &[(0, 0), (2000, 0)],
        &[(60, 0), (1960, 0)],
        0,
        h(0, 2, 2, 0, 0, 0),
        "b's run lasted 1900 s, more than half an hour: not a return",
    ),
    (
        &[(0, 0)],
        &[(60, 0)],
        20,
        h(0, 0, 0, 0, 0, 0),
        "22 accounts on address 0 that day: crowded, no switch",
    ),
    (
        &[(0, 0)],
        &[(60, 0)],
        5,
        h(0, 1, 1, 0, 0, 0),
        "7 accounts on address 0 (weight 0.92): not crowded",
    ),
];

#[test]
fn hand_offs_bin_each_switch_on_one_address_by_its_gap() {
    for &(a, b, crowd, want, why) in HANDOFF_ROWS {
        let segs = world("M1", "M1", crowd, 1);
        let times = MoveTimes::new(&segs);
        let season = Season::inferred(1);
        let cx = Context::new(&segs, &season, &times);
        assert_eq!(handoffs(&cx, a, b), want, "{why}");
        assert_eq!(handoffs(&cx, b, a), want, "{why} (swapped)");
    }
}

#[test]
fn move_times_keep_the_season_and_known_names_only() {
    let segs = world("M1", "M2", 0, 1);
    let mut times = MoveTimes::new(&segs);
    times.push(&segs, "b", 500, "10.0.0.2");
    times.push(&segs, "b", 100, "10.0.0.1");
    times.push(&segs, "nobody", 100, "10.0.0.1");
    times.push(&segs, "b", 200, "10.9.9.9");
    let times = times.finish();
    let ip = |n| segs.ips.get(&address(n)).expect("ip");
    let all = Season::inferred(1);
    assert_eq!(times.in_season(1, &all), &[(100, ip(1)), (500, ip(2))]);
    assert_eq!(times.in_season(0, &all), &[]);
    let late = Season::new(1, Some(150), Some(600), None).expect("season");
    assert_eq!(times.in_season(1, &late), &[(500, ip(2))]);
}

/// A keyed store's addresses are hashes: their networks come from what the
/// store recorded beside them (`moves.net`), so a key changes no network.
#[test]
fn networks_of_hashed_addresses_come_from_the_store() {
    let mut segs = world("M1", "M2", 0, 1);
    let hashed: Vec<u32> = ["ipk_1", "ipk_2", "ipk_3", "ipk_4"]
        .iter()
        .map(|s| segs.ips.intern(s))
        .collect();
    let mut times = MoveTimes::new(&segs);
    // ipk_1 and ipk_2 in one network, ipk_3 in another, ipk_4 unknown.
    for (k, net) in [
        (1, Some("netk_a")),
        (2, Some("netk_a")),
        (3, Some("netk_b")),
        (4, None),
    ] {
        times.push_with_network(&segs, "b", 100 * k, &format!("ipk_{k}"), net);
    }
    // A second sighting does not move an address to another network.
    times.push_with_network(&segs, "b", 900, "ipk_1", Some("netk_b"));
    let times = times.finish();
    let season = Season::inferred(1);
    let cx = Context::new(&segs, &season, &times);
    let [one, two, three, four] = hashed[..] else {
        panic!()
    };
    assert!(cx.same_network(one, two));
    assert!(!cx.same_network(one, three));
    assert!(!cx.same_network(three, four) && !cx.same_network(one, four));
    assert_eq!(cx.network_key(one), cx.network_key(two));
    assert_ne!(cx.network_key(one), cx.network_key(three));
    // Plain addresses are read as before: 10.0.0.1 and 10.0.0.2 share a /24.
    let ip = |n| segs.ips.get(&address(n)).expect("ip");
    assert!(cx.same_network(ip(1), ip(2)));
    assert!(!cx.same_network(ip(1), one));
}

/// Moves pushed a chunk at a time, as a store keeps them beside its
/// segments, are the moves pushed one by one: unknown accounts and
/// addresses left out, each address's network kept, the chunk's order
/// not the time order.
#[test]
fn a_chunk_of_moves_is_its_moves_one_by_one() {
    let mut segs = world("M1", "M2", 0, 1);
    segs.ips.intern("ipk_1");
    let ips = [
        ("ipk_1", Some("netk_a")),
        ("10.9.9.9", Some("10.9.9.0/24")),
        (address(2).as_str(), None),
    ]
    .map(|(ip, net)| (ip.to_owned(), net));
    let moves = [(500, 2), (100, 0), (300, 1), (50, 0)];
    let mut one_by_one = MoveTimes::new(&segs);
    for &(t, i) in &moves {
        let (ip, net) = &ips[i as usize];
        one_by_one.push_with_network(&segs, "b", t, ip, *net);
        one_by_one.push_with_network(&segs, "nobody", t, ip, *net);
    }
    let one_by_one = one_by_one.finish();
    let mut chunked = MoveTimes::new(&segs);
    let view: Vec<(&str, Option<&str>)> = ips.iter().map(|(ip, n)| (ip.as_str(), *n)).collect();
    chunked.push_chunk(&segs, "b", &view, &moves);
    chunked.push_chunk(&segs, "nobody", &view, &moves);
    let chunked = chunked.finish();
    assert_eq!(chunked, one_by_one);
    let k = segs.ips.get("ipk_1").expect("ip");
    let all = Season::inferred(1);
    let ip2 = segs.ips.get(&address(2)).expect("ip");
    assert_eq!(chunked.in_season(1, &all), &[(50, k), (100, k), (500, ip2)]);
    assert!(chunked.network(k).is_some());
    assert_eq!(chunked.network(ip2), None);
}
