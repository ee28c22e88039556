//! From observations to verdicts: Welch's one-sided test, the effectiveness of a
//! three-version test, seed 000's confidence-interval ratio rule, and the ratings of
//! tables 4.9-4.11.
//!
//! * **Effectiveness** (naive N, optimized O, cripple C): the hand optimization must be
//!   worth something here (O faster than C by Welch's test at level α and by at least
//!   [`MIN_GAIN`] of C), else the test is `inconclusive`; the naive kernel must be faster
//!   than the cripple (Welch, α), else `no`; then `e = (C - N) / (C - O)`, the share of the
//!   hand optimization's gain the compiler got: `yes` from 2/3, `partial` from 1/3,
//!   `marginal` from [`MARGINAL`], else `no` (table 4.11: partial and marginal are the
//!   effectiveness of a single test).
//! * **Ratio rule** (seed 000, §6.2): the 95% intervals of the two means give an interval
//!   of their ratio `((m1 - c1) / (m2 + c2), (m1 + c1) / (m2 - c2))`, of coverage at least
//!   90%; below the threshold `R_p` the optimization is applied (`yes`), above it is not
//!   (`no`), and an interval across it is `marginal` (seed 000's "maybe").
//! * **Ratings** over contexts (tables 4.9 and 4.10): `yes` when every conclusive test
//!   detected the optimization (verdict `yes` or `partial`), `partial` when at least half
//!   did (2 of 3), `marginal` when some did (1 of 3), `no` when none did.

use augur_machine_profile::optimizations::INCONCLUSIVE;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The one-sided significance level.
pub const ALPHA: f64 = 0.05;

/// The least gain of the hand optimization over the cripple, as a share of the cripple's
/// time, for a three-version test to be conclusive: below it the effectiveness is a ratio
/// of small differences, noise.
pub const MIN_GAIN: f64 = 0.10;

/// The least effectiveness of a `marginal` verdict.
pub const MARGINAL: f64 = 0.15;

pub use augur_toolchain::experiment::Sample;

/// Half-width of the two-sided 95% interval of the mean of `s` (infinite for fewer than
/// two observations).
pub fn half_width95(s: &Sample) -> f64 {
    if s.n < 2 {
        return f64::INFINITY;
    }
    let t = StudentsT::new(0.0, 1.0, (s.n - 1) as f64)
        .map(|d| d.inverse_cdf(0.975))
        .unwrap_or(1.96);
    t * s.sd / (s.n as f64).sqrt()
}

/// One-sided p-value of Welch's test of `H0: mean(slow) <= mean(fast)` against
/// `mean(slow) > mean(fast)`: small when `fast` is faster.
pub fn welch_p(fast: &Sample, slow: &Sample) -> f64 {
    if fast.n < 2 || slow.n < 2 {
        return 1.0;
    }
    let (vf, vs) = (
        fast.sd.powi(2) / fast.n as f64,
        slow.sd.powi(2) / slow.n as f64,
    );
    let se = (vf + vs).sqrt();
    let diff = slow.mean - fast.mean;
    if se == 0.0 {
        return if diff > 0.0 { 0.0 } else { 1.0 };
    }
    let df =
        (vf + vs).powi(2) / (vf.powi(2) / (fast.n - 1) as f64 + vs.powi(2) / (slow.n - 1) as f64);
    let t = diff / se;
    match StudentsT::new(0.0, 1.0, df.max(1.0)) {
        Ok(d) => 1.0 - d.cdf(t),
        Err(_) => 1.0,
    }
}

/// A test's verdict with the numbers behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// `yes`, `partial`, `marginal`, `no` or `inconclusive`.
    pub verdict: &'static str,
    /// Effectiveness (three-version tests).
    pub effectiveness: Option<f64>,
    /// Welch's p-value, naive faster than cripple (three-version tests).
    pub p_value: Option<f64>,
    /// The ratio and its interval (ratio rules).
    pub ratio: Option<(f64, f64, f64)>,
    /// Why, in a few words.
    pub note: String,
}

/// The verdict of a three-version test.
pub fn effectiveness(naive: &Sample, opt: &Sample, cripple: &Sample) -> Verdict {
    let gap = cripple.mean - opt.mean;
    let p_gap = welch_p(opt, cripple);
    let p = welch_p(naive, cripple);
    let e = gap.abs().max(f64::MIN_POSITIVE);
    let e = (cripple.mean - naive.mean) / e;
    let mut v = Verdict {
        verdict: INCONCLUSIVE,
        effectiveness: Some(e),
        p_value: Some(p),
        ratio: None,
        note: String::new(),
    };
    if p_gap >= ALPHA || gap < MIN_GAIN * cripple.mean {
        v.note = format!(
            "the hand optimization gains {:.0}% here: too little to judge",
            100.0 * gap / cripple.mean.max(f64::MIN_POSITIVE)
        );
        return v;
    }
    v.verdict = if p >= ALPHA {
        "no"
    } else if e >= 2.0 / 3.0 {
        "yes"
    } else if e >= 1.0 / 3.0 {
        "partial"
    } else if e >= MARGINAL {
        "marginal"
    } else {
        "no"
    };
    v
}

/// The interval of `m1 / m2` from the two samples' 95% intervals (seed 000): coverage at
/// least 90%. A denominator interval reaching 0 gives an infinite upper end.
pub fn ratio_interval(num: &Sample, den: &Sample) -> (f64, f64, f64) {
    let (c1, c2) = (half_width95(num), half_width95(den));
    let r = num.mean / den.mean;
    let low = (num.mean - c1) / (den.mean + c2);
    let high = if den.mean - c2 > 0.0 {
        (num.mean + c1) / (den.mean - c2)
    } else {
        f64::INFINITY
    };
    (r, low.max(0.0), high)
}

/// The ratio rule: `yes` when the interval of `num / den` lies below `threshold`, `no`
/// when above, `marginal` when across.
pub fn ratio_rule(num: &Sample, den: &Sample, threshold: f64) -> Verdict {
    let (r, low, high) = ratio_interval(num, den);
    let verdict = if high < threshold {
        "yes"
    } else if low > threshold {
        "no"
    } else {
        "marginal"
    };
    Verdict {
        verdict,
        effectiveness: None,
        p_value: None,
        ratio: Some((r, low, high)),
        note: if verdict == "marginal" {
            format!("the ratio's interval {low:.2}-{high:.2} contains {threshold}")
        } else {
            String::new()
        },
    }
}

/// Whether a verdict counts as detected in a rating over contexts.
pub fn detected(verdict: &str) -> bool {
    matches!(verdict, "yes" | "partial")
}

/// The rating of an optimization from its tests' verdicts: a single test keeps its own;
/// several give `yes` (all detected), `partial` (at least half), `marginal` (some), `no`
/// (none), over the conclusive ones; none conclusive is `inconclusive`.
pub fn rating(verdicts: &[&str]) -> (&'static str, u32, u32) {
    let conclusive: Vec<&str> = verdicts
        .iter()
        .copied()
        .filter(|v| *v != INCONCLUSIVE)
        .collect();
    let hits = conclusive.iter().filter(|v| detected(v)).count();
    let (c, h) = (conclusive.len() as u32, hits as u32);
    if conclusive.is_empty() {
        return (INCONCLUSIVE, 0, 0);
    }
    if verdicts.len() == 1 {
        let own = ["yes", "partial", "marginal", "no"]
            .into_iter()
            .find(|r| *r == conclusive[0])
            .unwrap_or("no");
        return (own, c, h);
    }
    let r = if hits == conclusive.len() {
        "yes"
    } else if 2 * hits >= conclusive.len() {
        "partial"
    } else if hits > 0 {
        "marginal"
    } else {
        "no"
    };
    (r, c, h)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Observations around `mean` with a spread of ±1%, deterministic.
    fn around(mean: f64) -> Sample {
        let xs: Vec<f64> = (0..10)
            .map(|k| mean * (1.0 + 0.01 * ((k % 5) as f64 - 2.0) / 2.0))
            .collect();
        Sample::of(&xs)
    }

    #[test]
    fn welch_sees_a_clear_difference_and_not_a_tie() {
        assert!(welch_p(&around(1.0), &around(2.0)) < 1e-6);
        assert!(welch_p(&around(2.0), &around(1.0)) > 0.99);
        let p = welch_p(&around(1.0), &around(1.0));
        assert!((p - 0.5).abs() < 1e-9, "{p}");
    }

    #[test]
    fn effectiveness_gives_each_verdict() {
        let (o, c) = (around(1.0), around(4.0));
        assert_eq!(effectiveness(&around(1.1), &o, &c).verdict, "yes");
        assert_eq!(effectiveness(&around(2.5), &o, &c).verdict, "partial");
        assert_eq!(effectiveness(&around(3.4), &o, &c).verdict, "marginal");
        assert_eq!(effectiveness(&around(3.9), &o, &c).verdict, "no");
        assert_eq!(effectiveness(&around(4.0), &o, &c).verdict, "no");
        // Slower than the cripple: no.
        assert_eq!(effectiveness(&around(5.0), &o, &c).verdict, "no");
        // The hand optimization gains 5%: nothing to judge.
        let v = effectiveness(&around(1.0), &around(0.96), &around(1.0));
        assert_eq!(v.verdict, INCONCLUSIVE);
        assert!(v.note.contains("too little"));
        let e = effectiveness(&around(1.1), &o, &c).effectiveness.unwrap();
        assert!((e - 2.9 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn noisy_samples_are_not_a_detection() {
        // Naive and cripple overlap widely: Welch does not reject, whatever the means.
        let naive = Sample::of(&[1.0, 3.0, 1.5, 2.8, 1.2, 3.1]);
        let cripple = Sample::of(&[1.3, 3.2, 2.0, 2.9, 1.4, 3.0]);
        let v = effectiveness(&naive, &around(0.5), &cripple);
        assert_eq!(v.verdict, "no");
        assert!(v.p_value.unwrap() > ALPHA);
    }

    #[test]
    fn ratio_rule_below_above_and_across() {
        assert_eq!(ratio_rule(&around(1.0), &around(1.0), 1.5).verdict, "yes");
        assert_eq!(ratio_rule(&around(3.0), &around(1.0), 1.5).verdict, "no");
        let wide = Sample::of(&[1.0, 2.0, 1.5, 1.0, 2.0]);
        let v = ratio_rule(&wide, &around(1.0), 1.5);
        assert_eq!(v.verdict, "marginal");
        let (r, low, high) = v.ratio.unwrap();
        assert!(low < 1.5 && 1.5 < high && (r - 1.5).abs() < 1e-9);
        // Naive/Cripple: a vectorized naive loop at a third of the cripple's time.
        assert_eq!(ratio_rule(&around(1.0), &around(3.0), 0.7).verdict, "yes");
        // A denominator whose interval reaches 0: an infinite upper end, not a panic.
        let zero = Sample::of(&[0.0, 1.0, 0.0]);
        assert_eq!(ratio_interval(&around(1.0), &zero).2, f64::INFINITY);
    }

    #[test]
    fn ratings_follow_tables_4_9_to_4_11() {
        assert_eq!(rating(&["yes", "yes", "partial"]).0, "yes");
        assert_eq!(rating(&["yes", "no", "yes"]), ("partial", 3, 2));
        assert_eq!(rating(&["no", "marginal", "yes"]).0, "marginal");
        assert_eq!(rating(&["no", "no", "marginal"]).0, "no");
        assert_eq!(rating(&["yes", INCONCLUSIVE, "yes"]), ("yes", 2, 2));
        assert_eq!(rating(&[INCONCLUSIVE, INCONCLUSIVE]).0, INCONCLUSIVE);
        // A single test keeps its own verdict (table 4.11).
        assert_eq!(rating(&["partial"]), ("partial", 1, 1));
        assert_eq!(rating(&["marginal"]), ("marginal", 1, 0));
    }

    #[test]
    fn samples_of_few_observations_do_not_panic() {
        let one = Sample::of(&[1.0]);
        assert!(half_width95(&one).is_infinite());
        assert_eq!(welch_p(&one, &around(2.0)), 1.0);
        let none = Sample::of(&[]);
        assert_eq!(none.n, 0);
    }
}
