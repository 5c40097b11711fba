//! Random draws that give the same values on every platform.
//!
//! `rand` samples `usize` ranges differently on 32- and 64-bit targets, and
//! the platform's `ln`/`exp` may differ in the last bit; so indices go
//! through `u32`, and the logarithm is computed here from IEEE basic
//! operations only (which are exactly rounded everywhere).

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// A uniform index below `len` (> 0).
pub(crate) fn index(rng: &mut ChaCha8Rng, len: usize) -> usize {
    debug_assert!(len > 0 && len <= u32::MAX as usize);
    rng.gen_range(0..len as u32) as usize
}

/// A uniform element of a non-empty slice.
pub(crate) fn pick<T: Copy>(rng: &mut ChaCha8Rng, v: &[T]) -> T {
    v[index(rng, v.len())]
}

/// The natural logarithm of `x` > 0, to about 1e-15 relative, from basic
/// arithmetic: `x = m 2^e` with `m` in [1, 2), `ln m = 2 atanh((m-1)/(m+1))`.
pub(crate) fn ln(x: f64) -> f64 {
    debug_assert!(x > 0.0 && x.is_finite());
    let bits = x.to_bits();
    let (mut e, mut m) = if bits >> 52 == 0 {
        // Subnormal: scale into the normal range first.
        let y = x * f64::from_bits(0x4350_0000_0000_0000); // 2^54
        let b = y.to_bits();
        (
            (b >> 52) as i64 - 1023 - 54,
            f64::from_bits((b & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000),
        )
    } else {
        (
            (bits >> 52) as i64 - 1023,
            f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000),
        )
    };
    // Centre m on 1 (m in [0.707, 1.414)) so the series converges fast.
    if m > std::f64::consts::SQRT_2 {
        m /= 2.0;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut term = s;
    let mut sum = 0.0;
    let mut k = 1.0;
    // |s| < 0.172: s^(2k+1)/(2k+1) is below 1e-17 by k = 11.
    for _ in 0..12 {
        sum += term / k;
        term *= s2;
        k += 2.0;
    }
    2.0 * sum + e as f64 * std::f64::consts::LN_2
}

/// An exponential draw with the given mean.
pub(crate) fn exp(rng: &mut ChaCha8Rng, mean: f64) -> f64 {
    // 1 - u lies in (0, 1].
    -mean * ln(1.0 - rng.gen::<f64>())
}

/// A Poisson draw: the number of unit-rate arrivals before `mean`.
pub(crate) fn poisson(rng: &mut ChaCha8Rng, mean: f64) -> u32 {
    let mut t = 0.0;
    let mut k = 0;
    loop {
        t += exp(rng, 1.0);
        if t > mean || k >= 200 {
            return k;
        }
        k += 1;
    }
}

/// A generator of its own for one thing on one day (an office's lunch, a
/// household's phone address), drawn from the world's `seed`, a `tag` for
/// the thing's kind, its number and the day: everyone who reads it reads
/// the same, and the world's own draws are untouched.
pub(crate) fn sub_rng(seed: u64, tag: u64, item: u64, day: i32) -> ChaCha8Rng {
    use rand::SeedableRng;
    // SplitMix64's finaliser over the four numbers.
    let mut z = seed;
    for x in [tag, item, day as i64 as u64] {
        z = (z ^ x).wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
    }
    ChaCha8Rng::seed_from_u64(z)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn ln_agrees_with_the_platform() {
        for &x in &[
            1.0, 0.5, 2.0, 1e-300, 5e-324, 0.999_999, 1.414, 1.415, 3.0, 12345.678, 1e300,
        ] {
            let (a, b) = (ln(x), x.ln());
            assert!((a - b).abs() <= 1e-15 * b.abs().max(1.0), "{x}: {a} vs {b}");
        }
        assert_eq!(ln(1.0), 0.0);
    }

    #[test]
    fn draws_have_their_means() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let n = 20_000;
        let e: f64 = (0..n).map(|_| exp(&mut rng, 3.0)).sum::<f64>() / n as f64;
        assert!((e - 3.0).abs() < 0.1, "{e}");
        let p: f64 = (0..n).map(|_| poisson(&mut rng, 4.5) as f64).sum::<f64>() / n as f64;
        assert!((p - 4.5).abs() < 0.1, "{p}");
        assert!((0..1000).all(|_| index(&mut rng, 7) < 7));
    }
}
