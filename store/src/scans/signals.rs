//! Improved mode's signals are stored once per unordered pair: on the row
//! whose `account_a` sorts first, when the other row's signals are exactly its
//! own seen from the other side ([`Signals::swapped`]); that row stores
//! none and is given them back when read. Half the bytes of an improved
//! scan's evidence, and nothing lost: a row whose signals are not its
//! partner's swapped (or that has no partner) keeps its own.
//!
//! A row stores its signals as a JSON array, the fields in the order
//! [`Signals`] declares them, the timing as a nested array or `null`
//! ([`compact`]): about a sixth of the bytes of the named form, which
//! rows stored before it hold and which still reads (serde reads a struct
//! from either).
//! So a field added to [`Signals`] goes last, with `#[serde(default)]`.

use rustc_hash::FxHashMap;
use schema::model::PairScore;
use schema::signals::Signals;
use std::fmt::Write;

/// The signals each row stores, as JSON (`None`: none, or its partner's).
/// A scan names each directed pair once, and scans put a pair's two rows
/// side by side: a row's partner is looked for beside it first, and in a
/// map of every row only when it is not there.
pub(super) fn stored(pairs: &[PairScore]) -> Vec<Option<String>> {
    // Reference mode's rows have none: no map, nothing to write.
    if pairs.iter().all(|p| p.evidence.signals.is_none()) {
        return vec![None; pairs.len()];
    }
    let partner_of = |i: usize, p: &PairScore| {
        let is_partner = |q: &&PairScore| q.account_a == p.account_b && q.account_b == p.account_a;
        let beside = [i.checked_sub(1), Some(i + 1)];
        beside
            .into_iter()
            .flatten()
            .filter_map(|j| pairs.get(j))
            .find(is_partner)
    };
    let mut by_pair: Option<FxHashMap<(&str, &str), &Signals>> = None;
    pairs
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let s = p.evidence.signals.as_deref()?;
            if p.account_a <= p.account_b {
                return Some(compact(s));
            }
            let partner = match partner_of(i, p) {
                Some(q) => q.evidence.signals.as_deref(),
                None => by_pair
                    .get_or_insert_with(|| by_pair_map(pairs))
                    .get(&(p.account_b.as_str(), p.account_a.as_str()))
                    .copied(),
            };
            let from_partner = partner.is_some_and(|q| q.swapped() == *s);
            (!from_partner).then(|| compact(s))
        })
        .collect()
}

/// Every row's signals by its (account a, account b).
fn by_pair_map(pairs: &[PairScore]) -> FxHashMap<(&str, &str), &Signals> {
    let mut by_pair: FxHashMap<(&str, &str), &Signals> =
        FxHashMap::with_capacity_and_hasher(pairs.len(), Default::default());
    by_pair.extend(pairs.iter().filter_map(|p| {
        Some((
            (p.account_a.as_str(), p.account_b.as_str()),
            p.evidence.signals.as_deref()?,
        ))
    }));
    by_pair
}

/// The stored form of one row's signals (see the module): its fields in
/// declaration order, as the derived `Deserialize` reads a sequence.
pub(super) fn compact(s: &Signals) -> String {
    let counts = [
        s.a_buckets,
        s.b_buckets,
        s.a_accompanied_milli,
        s.b_accompanied_milli,
        s.a_sittings,
        s.a_followed,
        s.b_sittings,
        s.b_followed,
        s.a_followed_by_chance_milli,
        s.b_followed_by_chance_milli,
        s.a_followed_long,
        s.b_followed_long,
        s.a_followed_long_by_chance_milli,
        s.b_followed_long_by_chance_milli,
        s.apart,
        s.networks,
        s.shared_ip_days,
        s.crowded_ip_days,
        s.close,
        s.switches,
        s.quick,
        s.turns,
        s.spaced,
        s.returns,
        s.a_first,
        s.b_first,
    ];
    let timing = s.timing.map(|t| {
        (
            t.a_hidden,
            t.sittings,
            t.followed,
            t.followed_by_chance_milli,
            t.other_opened,
            t.hidden_opened,
            t.other_opened_by_chance_milli,
            t.tested,
        )
    });
    // Written as serde_json writes these arrays (a test holds them equal),
    // into one string: no string per part. The timing is written even
    // when there is none (`null`), so that the fields added after it keep
    // their places.
    let mut out = String::with_capacity(160);
    let ints = |out: &mut String, xs: &[u32]| {
        for x in xs {
            write!(out, "{x},").expect("writing to a string");
        }
    };
    out.push('[');
    ints(&mut out, &counts);
    match timing {
        None => out.push_str("null"),
        Some((hidden, sittings, followed, by_chance, other, own, other_by_chance, tested)) => {
            out.push_str(if hidden { "[true," } else { "[false," });
            ints(
                &mut out,
                &[
                    sittings,
                    followed,
                    by_chance,
                    other,
                    own,
                    other_by_chance,
                    tested,
                ],
            );
            out.pop();
            out.push(']');
        }
    }
    out.push(',');
    ints(
        &mut out,
        &[
            s.places,
            s.a_private_milli,
            s.b_private_milli,
            s.a_pace_close,
            s.a_pace_near,
            s.b_pace_close,
            s.b_pace_near,
            s.near,
        ],
    );
    out.pop();
    out.push(']');
    out
}

/// Gives rows read without signals their partner's, swapped (see the module).
pub(super) fn fill_from_partners(pairs: &mut [PairScore]) {
    let by_pair: FxHashMap<(&str, &str), &Signals> = pairs
        .iter()
        .filter(|p| p.account_a < p.account_b)
        .filter_map(|p| {
            Some((
                (p.account_a.as_str(), p.account_b.as_str()),
                p.evidence.signals.as_deref()?,
            ))
        })
        .collect();
    if by_pair.is_empty() {
        return;
    }
    let fills: Vec<(usize, Signals)> = pairs
        .iter()
        .enumerate()
        .filter(|(_, p)| p.evidence.signals.is_none() && p.account_a > p.account_b)
        .filter_map(|(i, p)| {
            let s = by_pair.get(&(p.account_b.as_str(), p.account_a.as_str()))?;
            Some((i, s.swapped()))
        })
        .collect();
    for (i, s) in fills {
        pairs[i].evidence.signals = Some(Box::new(s));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schema::signals::Timing;

    fn pair(a: &str, b: &str, signals: Option<Signals>) -> PairScore {
        let mut p = PairScore {
            account_a: a.into(),
            account_b: b.into(),
            similarity: 0.5,
            sum: 0,
            weight: 0,
            evidence: Default::default(),
        };
        p.evidence.signals = signals.map(Box::new);
        p
    }

    /// Every field distinct, so that a field out of place reads wrong.
    fn every_field(timing: Option<Timing>) -> Signals {
        Signals {
            a_buckets: 1,
            b_buckets: 2,
            a_accompanied_milli: 3,
            b_accompanied_milli: 4,
            a_sittings: 5,
            a_followed: 6,
            b_sittings: 7,
            b_followed: 8,
            a_followed_by_chance_milli: 9,
            b_followed_by_chance_milli: 10,
            a_followed_long: 11,
            b_followed_long: 12,
            a_followed_long_by_chance_milli: 13,
            b_followed_long_by_chance_milli: 14,
            apart: 15,
            networks: 16,
            shared_ip_days: 17,
            crowded_ip_days: 18,
            close: 19,
            switches: 20,
            quick: 21,
            turns: 22,
            spaced: 23,
            returns: 24,
            a_first: 25,
            b_first: 4_000_000_026,
            timing,
            places: 41,
            a_private_milli: 42,
            b_private_milli: 43,
            a_pace_close: 44,
            a_pace_near: 45,
            b_pace_close: 46,
            b_pace_near: 47,
            near: 48,
        }
    }

    #[test]
    fn the_compact_form_reads_back_every_field() {
        let timing = Timing {
            a_hidden: true,
            sittings: 31,
            followed: 32,
            followed_by_chance_milli: 33,
            other_opened: 34,
            hidden_opened: 35,
            other_opened_by_chance_milli: 36,
            tested: 37,
        };
        for s in [every_field(None), every_field(Some(timing))] {
            let stored = compact(&s);
            assert!(stored.starts_with("[1,2,3,"), "{stored}");
            let read: Signals = serde_json::from_str(&stored).unwrap();
            assert_eq!(read, s);
            let named = serde_json::to_string(&s).unwrap();
            assert!(stored.len() * 3 < named.len(), "{stored} against {named}");
        }
        assert!(compact(&every_field(Some(timing)))
            .ends_with(",4000000026,[true,31,32,33,34,35,36,37],41,42,43,44,45,46,47,48]"));
        assert!(compact(&every_field(None)).ends_with(",4000000026,null,41,42,43,44,45,46,47,48]"));
        // Stored before the places and private shares (and what came
        // after them): absent, 0.
        let older = compact(&every_field(None)).replace(",41,42,43,44,45,46,47,48]", "]");
        let read: Signals = serde_json::from_str(&older).unwrap();
        assert_eq!(
            (read.places, read.a_private_milli, read.b_first),
            (0, 0, 4_000_000_026)
        );
        // A timing stored before the members it was read against: 0.
        let older = compact(&every_field(Some(timing))).replace(",36,37]", ",36]");
        let read: Signals = serde_json::from_str(&older).unwrap();
        let t = read.timing.expect("a timing");
        assert_eq!((t.other_opened_by_chance_milli, t.tested), (36, 0));
        // Stored before the paces: absent, 0.
        let older = compact(&every_field(None)).replace(",44,45,46,47,48]", "]");
        let read: Signals = serde_json::from_str(&older).unwrap();
        assert_eq!(
            (read.b_private_milli, read.a_pace_close, read.near),
            (43, 0, 0)
        );
    }

    proptest::proptest! {
        /// The compact form is serde_json's own form of the array (what it
        /// was built with before it was written by hand) and reads back.
        #[test]
        fn the_compact_form_is_serde_jsons_array(
            counts in proptest::collection::vec(proptest::prelude::any::<u32>(), 26),
            timing in proptest::option::of((
                proptest::prelude::any::<bool>(),
                proptest::collection::vec(proptest::prelude::any::<u32>(), 7),
            )),
            tail in proptest::collection::vec(proptest::prelude::any::<u32>(), 8),
        ) {
            let timing = timing.map(|(hidden, t)| {
                let mut v = vec![serde_json::json!(hidden)];
                v.extend(t.into_iter().map(|x| serde_json::json!(x)));
                v
            });
            let array = serde_json::json!([counts, timing, tail]);
            let flat: Vec<serde_json::Value> = array
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
                .flat_map(|(i, part)| match (i, part) {
                    (1, t) => vec![t.clone()],
                    (_, xs) => xs.as_array().unwrap().clone(),
                })
                .collect();
            let s: Signals = serde_json::from_value(serde_json::Value::Array(flat.clone())).unwrap();
            let stored = compact(&s);
            proptest::prop_assert_eq!(&stored, &serde_json::to_string(&flat).unwrap());
            let read: Signals = serde_json::from_str(&stored).unwrap();
            proptest::prop_assert_eq!(read, s);
        }
    }

    #[test]
    fn rows_stored_named_still_read() {
        // As an improved scan stored before the compact form wrote it, and
        // one stored before the later signals (absent: 0).
        let s = every_field(None);
        let named = serde_json::to_string(&s).unwrap();
        assert!(named.starts_with("{\"a_buckets\":1,"), "{named}");
        assert_eq!(serde_json::from_str::<Signals>(&named).unwrap(), s);
        let older = r#"{"a_buckets":1,"b_buckets":2,"a_accompanied_milli":3,"b_accompanied_milli":4,
            "a_sittings":5,"a_followed":6,"b_sittings":7,"b_followed":8,"apart":15,"networks":16,
            "shared_ip_days":17,"crowded_ip_days":18}"#;
        let read: Signals = serde_json::from_str(older).unwrap();
        assert_eq!((read.apart, read.switches, read.a_first), (15, 0, 0));
    }

    #[test]
    fn one_copy_per_pair_and_every_row_read_back() {
        let s = Signals {
            a_buckets: 3,
            b_buckets: 7,
            a_followed: 2,
            a_first: 5,
            ..Signals::default()
        };
        let odd = Signals {
            a_buckets: 9,
            ..Signals::default()
        };
        let pairs = vec![
            pair("x", "y", Some(s)),
            pair("y", "x", Some(s.swapped())),
            // Not its partner's swapped: kept whole.
            pair("q", "p", Some(odd)),
            pair("p", "q", Some(odd)),
            // No partner: kept.
            pair("z", "w", Some(s)),
            // Reference mode: none.
            pair("m", "n", None),
            pair("n", "m", None),
            // Partners apart (found in the map): one copy.
            pair("v", "u", Some(s.swapped())),
            pair("r", "s", Some(odd)),
            pair("u", "v", Some(s)),
        ];
        let stored = stored(&pairs);
        let kept: Vec<bool> = stored.iter().map(Option::is_some).collect();
        assert_eq!(
            kept,
            [true, false, true, true, true, false, false, false, true, true]
        );
        let mut read: Vec<PairScore> = pairs
            .iter()
            .zip(&stored)
            .map(|(p, s)| {
                let signals = s.as_deref().map(|j| serde_json::from_str(j).unwrap());
                pair(&p.account_a, &p.account_b, signals)
            })
            .collect();
        fill_from_partners(&mut read);
        assert_eq!(read, pairs);
    }
}
