//! Housemates sharing the evening: one after the other on their own
//! devices, side by side, or taking turns at one computer.

use super::{Device, Session};
use crate::draw::pick;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Housemates on their own devices who play one after the other every
/// evening at home, in the order of `present`, each the relay gap after the
/// one before ([`crate::Habits::evening_relay`]).
pub(super) fn relay(
    h: &crate::Habits,
    ip: u32,
    midnight: i64,
    present: &[u32],
    rng: &mut ChaCha8Rng,
    out: &mut Vec<Session>,
) {
    let (lo, hi) = h.relay_gap_minutes;
    let mut t = midnight + (rng.gen_range(19.0..21.0) * 3600.0) as i64;
    for &m in present {
        let len = rng.gen_range(15 * 60..40 * 60);
        out.push(Session {
            person: m,
            start: t,
            end: t + len,
            ip,
            device: Device::Home,
        });
        t += rng.gen_range(lo as i64 * 60..hi as i64 * 60);
    }
}

/// A couple who often play side by side in the evening, each on their own
/// device at home: the other joins a home session (of those from `begin`).
pub(super) fn side_by_side(
    together: f64,
    midnight: i64,
    present: &[u32],
    begin: usize,
    rng: &mut ChaCha8Rng,
    out: &mut Vec<Session>,
) {
    for i in begin..out.len() {
        let s = out[i];
        let hour = (s.start - midnight) as f64 / 3600.0;
        if s.device == Device::Home && (hour >= 17.0 || together >= 0.9) && rng.gen_bool(together) {
            let other = pick(rng, present);
            if other != s.person {
                let start = s.start + rng.gen_range(0..300);
                out.push(Session {
                    person: other,
                    start,
                    end: start + (s.end - s.start + rng.gen_range(-300..300)).max(120),
                    ..s
                });
            }
        }
    }
}

/// A family with one computer (on `ip`) takes turns at it in the evening,
/// and on a free day in the afternoon too: in a new order each time, or in
/// the order of `present` when `fixed`.
#[allow(clippy::too_many_arguments)]
pub(super) fn turns(
    h: &crate::Habits,
    ip: u32,
    midnight: i64,
    free_day: bool,
    fixed: bool,
    present: &mut [u32],
    rng: &mut ChaCha8Rng,
    out: &mut Vec<Session>,
) {
    let (turn_lo, turn_hi) = (h.turn_minutes.0 as i64 * 60, h.turn_minutes.1 as i64 * 60);
    let (gap_lo, gap_hi) = (h.turn_gap_seconds.0 as i64, h.turn_gap_seconds.1 as i64);
    let blocks = if free_day { rng.gen_range(1..3) } else { 1 };
    for b in 0..blocks {
        let hour = if b == 1 {
            rng.gen_range(13.0..17.0)
        } else {
            rng.gen_range(18.5..21.5)
        };
        let mut t = midnight + (hour * 3600.0) as i64;
        if !fixed {
            present.shuffle(rng);
        }
        for &m in present.iter() {
            let len = rng.gen_range(turn_lo..turn_hi);
            out.push(Session {
                person: m,
                start: t,
                end: t + len,
                ip,
                device: Device::Home,
            });
            t += len + rng.gen_range(gap_lo..gap_hi);
        }
    }
}
