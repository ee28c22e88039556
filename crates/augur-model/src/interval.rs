//! The interval a user can trust: the model's own error on real programs beside the
//! uncertainty of the machine parameters.
//!
//! The parameters' uncertainty alone (the [`Estimate`]'s standard deviation) says how
//! well the machine was measured, not how well the model describes a program: real
//! programs missed by 30-60% fell outside intervals of a few percent, and a badly fitted
//! parameter could stretch another interval to 30 times its centre. The model's error is
//! log-normal in shape (a time is off by a factor), so the two combine in log space:
//! `s² = σ² + max(0, p² − p₀²)`, `p² = ln(1 + (sd/t)²)`, the 90% interval
//! `t · exp(∓1.645 s)`. σ is the root mean square of `ln(predicted/measured)` over the
//! development set of real programs and the corpus, measured per kind of build and per
//! way of pricing loops (from their compiled instructions, or by their AbOps:
//! [`model_error_sd`]); it already holds the parameters' errors of those programs,
//! whose `p` is typically `p₀` ([`TYPICAL_PARAMETER_LOG_SD`]), so only a program that
//! leans on parameters less certain than that widens its interval further. The
//! coverage that results is checked on the part of the set kept aside
//! (docs/ACCURACY.md).

use crate::cost::{Estimate, Z90};
use serde::Serialize;

/// σ of an optimizing build: the RMS of ln(predicted/measured) over the development
/// part of the real programs and the corpus together (gfortran 12 -O2, Zen 3 guests:
/// `bench/real` dev part, 20 programs timed 2026-11-26, 0.228; the corpus, 48 programs
/// timed 2026-11-25, 0.326; pooled 0.30). docs/ACCURACY.md, "An interval a user can
/// trust", has the coverage this gives, on the part set aside too.
pub const OPTIMIZED_LOG_SD: f64 = 0.30;

/// σ of a build without optimization (-O0), pooled the same way: the development part
/// (18 programs, 0.436) and the corpus (48, 0.359), 0.38.
pub const UNOPTIMIZED_LOG_SD: f64 = 0.38;

/// The parameters' uncertainty of a typical program, as the σ of a log-normal: the
/// median of `p` over the development part of the real programs (20 programs, gfortran
/// 12 -O2, the Zen 3 guest's profile of 2026-11-26: 0.14; from 0.04 for a program of
/// few kinds of operation to 0.66 for one leaning on a poorly fitted cost). σ holds
/// errors of this size already.
pub const TYPICAL_PARAMETER_LOG_SD: f64 = 0.14;

/// σ of an optimizing build whose loops are priced from the instructions the compiler
/// emitted (the machine profile has `[incore]`, the program an optimization report of its
/// compiler and flags), for code of each kind ([`KindErrors`]): gfortran 12 -O2, session
/// 57's model (2026-12-01) on the kept times of three hosts pooled, an Intel Xeon guest,
/// a Zen 4 and a Zen 5 guest (`bench/real`, 31 programs each; the corpus, 48), the
/// smallest median factor whose interval covers at least 90% of the 237 times pooled and
/// 88% of each host's: regular code 0.16, calls and branches 0.28 (covered 90%, 90-91% by
/// host, a median factor of 1.34 either way, against 92% and 1.37 with session 50's 0.18
/// and 0.26, fitted the same way on its model). docs/ACCURACY.md, "Session 57".
pub const OPTIMIZED_COMPILED: KindErrors = KindErrors {
    regular: 0.16,
    irregular: 0.28,
};

/// The same without optimization (-O0): regular code 0.16, calls and branches 0.26
/// (covered 90%, 88-92% by host, a median factor of 1.31; session 50's 0.14 and 0.54
/// covered 92% at 1.33 on session 57's model, one host at 88%).
pub const UNOPTIMIZED_COMPILED: KindErrors = KindErrors {
    regular: 0.16,
    irregular: 0.26,
};

/// The model's error for the two kinds of code it knows unequally well: loops and
/// straight-line arithmetic and their memory traffic (`regular`), which it prices from
/// their compiled instructions and the caches, and the time spent in calls (procedures,
/// the mathematical and run-time libraries, input/output, characters, random numbers) and
/// in mispredicted branches (`irregular`), priced by narrow-spectrum experiments whose
/// context a program rarely repeats. Each is the σ of `ln(predicted/measured)` of code of
/// that kind alone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KindErrors {
    /// σ of regular code.
    pub regular: f64,
    /// σ of calls and mispredicted branches.
    pub irregular: f64,
}

impl KindErrors {
    /// σ of a program whose predicted time is `irregular_share` (0-1) calls and
    /// mispredicted branches: the two kinds' variances mixed in proportion.
    pub fn of(&self, irregular_share: f64) -> f64 {
        let x = irregular_share.clamp(0.0, 1.0);
        ((1.0 - x) * self.regular.powi(2) + x * self.irregular.powi(2)).sqrt()
    }
}

/// Whether an AbOp is time of the irregular kind ([`KindErrors`]): a procedure call or
/// its arguments, a call into the mathematical library (logarithms, exponentials,
/// trigonometric and hyperbolic functions, `fmod`, rounding to a whole real, `X**Y`,
/// complex intrinsics), input/output, character operations, random numbers, or a
/// mispredicted branch. Square roots, absolute values, minima and the like are
/// instructions, not calls.
pub fn is_irregular(op: augur_ir::AbOp) -> bool {
    use augur_ir::AbOp::*;
    let group = op.info().group;
    matches!(
        group,
        "calls" | "character" | "input/output" | "random numbers" | "intrinsics, complex"
    ) || matches!(
        op,
        BRMP | BRMC
            | LOGS
            | EXPS
            | SINS
            | TANS
            | MODS
            | LOGD
            | EXPD
            | SIND
            | TAND
            | MODD
            | ATNS
            | ATND
            | HYPS
            | HYPD
            | ANIS
            | ANID
            | XRSL
            | XRDL
            | XRSG
            | XRDG
            | XCSL
            | XCDL
            | XCSG
            | XCDG
    )
}

/// The share (0-1) of `total` seconds that `seconds_by_abop` puts in irregular AbOps
/// ([`is_irregular`]).
pub fn irregular_share(seconds_by_abop: &[(augur_ir::AbOp, f64)], total: f64) -> f64 {
    if total <= 0.0 {
        return 0.0;
    }
    let irregular: f64 = seconds_by_abop
        .iter()
        .filter(|(op, _)| is_irregular(*op))
        .map(|(_, s)| s)
        .sum();
    (irregular / total).clamp(0.0, 1.0)
}

/// The model's error, as the standard deviation of `ln(predicted/measured)`, for a
/// machine profile measured with these flags; `compiled`: the program's loops are priced
/// from their compiled instructions, then weighted by the share of the time in calls and
/// mispredicted branches (`irregular_share`, [`KindErrors::of`]).
pub fn model_error_sd(fflags: &str, compiled: bool, irregular_share: f64) -> f64 {
    match (crate::cost::optimizing(fflags), compiled) {
        (true, true) => OPTIMIZED_COMPILED.of(irregular_share),
        (true, false) => OPTIMIZED_LOG_SD,
        (false, true) => UNOPTIMIZED_COMPILED.of(irregular_share),
        (false, false) => UNOPTIMIZED_LOG_SD,
    }
}

/// A predicted time's 90% interval with what it is made of.
#[derive(Debug, Clone, Copy, Serialize, schemars::JsonSchema)]
pub struct Interval {
    /// Lower end, seconds.
    pub low: f64,
    /// Upper end, seconds.
    pub high: f64,
    /// The model's error taken (σ of `ln(predicted/measured)`).
    pub model_log_sd: f64,
    /// The parameters' uncertainty, as the σ of a log-normal of the same relative
    /// standard deviation.
    pub parameter_log_sd: f64,
    /// The counts' uncertainty of a profile computed at a size never run
    /// ([`count_log_sd`]); 0 for counted profiles.
    #[serde(default)]
    pub count_log_sd: f64,
    /// The share (0-1) of the predicted time in calls and mispredicted branches, which
    /// the model's error weighs ([`KindErrors`]); 0 where it was not weighed.
    #[serde(default)]
    pub irregular_share: f64,
    /// The uncertainty of a last cache level other guests contest ([`contested_log_sd`]);
    /// 0 where the machine's last level is not contested or the program's data do not
    /// depend on its share.
    #[serde(default)]
    pub contested_log_sd: f64,
}

/// The σ a contested last level adds to a prediction of `total` seconds that would take
/// `contested` seconds more with half its share (`augur_model::memory::contested_seconds`):
/// that time at the interval's 90% edge. A guest's share of a last level other guests
/// use moves by the hour, and the same characterization repeated minutes apart reads it
/// at one size or half of it (session 97: five profiles of one Zen 4 guest, 8 MiB in two
/// and 16 MiB in three; the memory-bound programs between the two moved by up to ±9.7%).
pub fn contested_log_sd(contested: f64, total: f64) -> f64 {
    if contested <= 0.0 || total <= 0.0 {
        return 0.0;
    }
    (1.0 + contested / total).ln() / Z90
}

impl Interval {
    /// The 90% interval of `total` with the model's error `model_log_sd`.
    pub fn new(total: &Estimate, model_log_sd: f64) -> Interval {
        let t = total.seconds;
        let relative = if t > 0.0 { total.sd_seconds / t } else { 0.0 };
        let parameter_log_sd = (1.0 + relative * relative).ln().sqrt();
        let beyond_typical = (parameter_log_sd.powi(2) - TYPICAL_PARAMETER_LOG_SD.powi(2)).max(0.0);
        let s = (model_log_sd.powi(2) + beyond_typical).sqrt();
        Interval {
            low: t * (-Z90 * s).exp(),
            high: t * (Z90 * s).exp(),
            model_log_sd,
            parameter_log_sd,
            count_log_sd: 0.0,
            irregular_share: 0.0,
            contested_log_sd: 0.0,
        }
    }

    /// The interval widened by the counts' uncertainty `count_log_sd` (added in log
    /// space like the others).
    pub fn with_counts(self, count_log_sd: f64) -> Interval {
        Interval {
            count_log_sd,
            ..self.widened(count_log_sd)
        }
    }

    /// The interval widened by a contested last level's uncertainty ([`contested_log_sd`]).
    pub fn with_contested(self, contested_log_sd: f64) -> Interval {
        Interval {
            contested_log_sd,
            ..self.widened(contested_log_sd)
        }
    }

    /// The interval with `log_sd` added to its σ in log space.
    fn widened(self, log_sd: f64) -> Interval {
        if log_sd <= 0.0 || self.low <= 0.0 {
            return self;
        }
        let t = (self.low * self.high).sqrt();
        let s = (t / self.low).ln() / Z90;
        let s = (s * s + log_sd * log_sd).sqrt();
        Interval {
            low: t * (-Z90 * s).exp(),
            high: t * (Z90 * s).exp(),
            ..self
        }
    }

    /// The factor the interval spans either way of its centre (`high / t = t / low`), as
    /// every view prints it; 1 for an empty or degenerate interval.
    pub fn factor(&self) -> f64 {
        if self.low > 0.0 && self.high > self.low {
            (self.high / self.low).sqrt()
        } else {
            1.0
        }
    }

    /// Whether `seconds` lies inside.
    pub fn contains(&self, seconds: f64) -> bool {
        (self.low..=self.high).contains(&seconds)
    }
}

/// The machine parameter whose uncertainty widens a prediction's interval most, named
/// when the parameters widen it beyond a typical program's (what to measure again).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct WidestParameter {
    /// The AbOp whose cost it is.
    pub abop: augur_ir::AbOp,
    /// Its share (0-1) of the sum of the parameters' own variances.
    pub share: f64,
    /// How the machine knows its cost (in the context below).
    pub status: crate::cost::CostStatus,
    /// Which of its costs: `chain` (the narrow-spectrum experiment's), `stream` (loops
    /// the compiler did not vectorize) or `vector` (loops it vectorized): the one whose
    /// uncertainty weighs most.
    pub context: &'static str,
}

/// The parameter of `table` that makes most of the variance of the coefficients `all`
/// (whose estimate is `total`), when the parameters widen `interval` beyond a typical
/// program's ([`TYPICAL_PARAMETER_LOG_SD`]); `None` otherwise.
pub(crate) fn widest_parameter(
    table: &crate::cost::CostTable,
    all: &crate::cost::Coefficients,
    total: &Estimate,
    interval: &Interval,
) -> Option<WidestParameter> {
    if interval.parameter_log_sd <= TYPICAL_PARAMETER_LOG_SD || total.sd_seconds <= 0.0 {
        return None;
    }
    // Shares of the parameters' own variances (the covariances of costs fitted together
    // belong to no one parameter, and would push a share past 1).
    let own: Vec<(augur_ir::AbOp, f64)> = augur_ir::abop::ALL
        .iter()
        .map(|&op| (op, table.variance_of(all, op)))
        .collect();
    let var: f64 = own.iter().map(|x| x.1).sum();
    let (abop, largest) = own.into_iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let share = largest / var.max(f64::MIN_POSITIVE);
    let terms = table.variances_of(all, abop);
    let k = (0..3).max_by(|&a, &b| terms[a].0.total_cmp(&terms[b].0))?;
    Some(WidestParameter {
        abop,
        share,
        status: terms[k].1.status,
        context: ["stream", "vector", "chain"][k],
    })
}

/// The counts' uncertainty of a profile computed at a size never run (`augur predict
/// --at`): the blocks whose executions come from a fitted model (Extra-P's form, or a
/// share of their loop's iterations) weigh their cross-validation error by their share of
/// the operations; exact, constant and polynomial counts add nothing. 0 for a counted
/// profile.
pub fn count_log_sd(program: &augur_program_profile::ProgramProfile) -> f64 {
    use augur_program_profile::scaling::CountModel;
    let Some(sc) = program.scaling.as_ref().filter(|s| s.extrapolated) else {
        return 0.0;
    };
    let total = program.operations;
    if total <= 0.0 {
        return 0.0;
    }
    let relative: f64 = sc
        .blocks
        .iter()
        .filter_map(|b| {
            let cv = match &b.model {
                CountModel::Fitted(m) => m.cv_error,
                CountModel::Share { cv_error, .. } => *cv_error,
                _ => return None,
            };
            let block = program.units.get(b.unit)?.blocks.get(b.block as usize)?;
            let share = block.counts.total() * block.executions.unwrap_or(0.0) / total;
            Some(share * cv)
        })
        .sum();
    (1.0 + relative).ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parameter_that_widens_the_interval_most_is_named() {
        use crate::cost::{Coefficients, CostTable};
        use crate::test_support::machine;
        use augur_ir::AbOp;
        use augur_machine_profile::MEASURED;
        // Adds known to ±200%, multiplies to ±0.1%: a program of adds is wide, and the
        // adds make all of it; a program of multiplies is a typical one, nothing named.
        let m = machine(&[
            (AbOp::ARDL, MEASURED, Some(2.0), Some(4.0), 10),
            (AbOp::MRDL, MEASURED, Some(3.0), Some(0.003), 10),
        ]);
        let t = CostTable::from_profile(&m);
        let of = |op: AbOp| {
            let mut c = Coefficients::default();
            c.chain.add(op, 1e9);
            c.chain.add(AbOp::MRDL, 1e9);
            let total = t.cost_of(&c);
            let i = Interval::new(&total, 0.3);
            widest_parameter(&t, &c, &total, &i)
        };
        let w = of(AbOp::ARDL).expect("the adds widen it");
        assert_eq!((w.abop, w.context), (AbOp::ARDL, "chain"));
        assert!(w.share > 0.99, "{w:?}");
        assert_eq!(of(AbOp::MRDL), None);
    }

    #[test]
    fn fitted_counts_widen_the_interval_in_log_space() {
        let t = Estimate {
            seconds: 3.0,
            sd_seconds: 0.0,
        };
        let i = Interval::new(&t, 0.30);
        let w = i.with_counts(0.40);
        let s = (0.30f64 * 0.30 + 0.40 * 0.40).sqrt();
        assert!((w.high / 3.0 - (Z90 * s).exp()).abs() < 1e-9, "{w:?}");
        assert!((w.low * w.high - 9.0).abs() < 1e-9);
        // The factor every view prints is the interval's own, the counts' term included.
        assert!((w.factor() - (Z90 * s).exp()).abs() < 1e-9, "{w:?}");
        assert_eq!(w.count_log_sd, 0.40);
        let same = i.with_counts(0.0);
        assert_eq!((same.low, same.high), (i.low, i.high));
    }

    #[test]
    fn a_contested_last_level_puts_half_its_share_at_the_edge() {
        // 1 s predicted, 0.25 s more with half the last level: alone, that time is the
        // 90% edge; with the model's error the two add in log space.
        let sd = contested_log_sd(0.25, 1.0);
        assert!((sd * Z90 - 1.25f64.ln()).abs() < 1e-12);
        assert_eq!(contested_log_sd(0.0, 1.0), 0.0);
        assert_eq!(contested_log_sd(0.25, 0.0), 0.0);
        let t = Estimate {
            seconds: 1.0,
            sd_seconds: 0.0,
        };
        let w = Interval::new(&t, 0.16).with_contested(sd);
        let s = (0.16f64 * 0.16 + sd * sd).sqrt();
        assert!((w.high - (Z90 * s).exp()).abs() < 1e-9, "{w:?}");
        assert_eq!(w.contested_log_sd, sd);
        assert_eq!(
            Interval::new(&t, 0.16).with_contested(0.0).high,
            Interval::new(&t, 0.16).high
        );
    }

    #[test]
    fn model_and_parameter_errors_add_in_log_space() {
        let exact = Estimate {
            seconds: 2.0,
            sd_seconds: 0.0,
        };
        let i = Interval::new(&exact, 0.25);
        assert!((i.low - 2.0 * (-Z90 * 0.25f64).exp()).abs() < 1e-12);
        // A typical parameter uncertainty is in σ already: it adds nothing.
        let typical = Estimate {
            seconds: 2.0,
            sd_seconds: 2.0 * (TYPICAL_PARAMETER_LOG_SD.powi(2).exp() - 1.0).sqrt(),
        };
        let t = Interval::new(&typical, 0.25);
        assert!((t.low - i.low).abs() < 1e-9 && (t.high - i.high).abs() < 1e-9);
        assert!((i.high * i.low - 4.0).abs() < 1e-12, "symmetric by factor");
        assert!(i.contains(2.0) && !i.contains(2.0 * 1.6) && i.contains(2.0 * 1.5));
        // A parameter uncertainty of 30 times the centre no longer makes a 1-to-30 span
        // around the model's own error alone, but it widens it.
        let vague = Estimate {
            seconds: 2.0,
            sd_seconds: 60.0,
        };
        let w = Interval::new(&vague, 0.25);
        assert!(w.high > i.high && w.low < i.low && w.low > 0.0);
        assert!((w.parameter_log_sd - (1.0f64 + 900.0).ln().sqrt()).abs() < 1e-12);
        let beyond = (900.0f64 + 1.0).ln() - TYPICAL_PARAMETER_LOG_SD.powi(2);
        assert!((w.high / 2.0 - (Z90 * (0.0625 + beyond).sqrt()).exp()).abs() < 1e-9);
        let none = Interval::new(&exact, 0.0);
        assert_eq!((none.low, none.high), (2.0, 2.0));
    }

    #[test]
    fn optimized_and_unoptimized_builds_have_their_own_error() {
        assert_eq!(
            model_error_sd("-O2 -march=native", false, 0.5),
            OPTIMIZED_LOG_SD
        );
        assert_eq!(model_error_sd("-O0 -g", false, 0.5), UNOPTIMIZED_LOG_SD);
        // Loops priced from their compiled instructions: the smaller error measured, by
        // the kind of code.
        assert_eq!(model_error_sd("-O2", true, 0.0), OPTIMIZED_COMPILED.regular);
        assert_eq!(
            model_error_sd("-O0", true, 1.0),
            UNOPTIMIZED_COMPILED.irregular
        );
    }

    #[test]
    fn calls_and_mispredicted_branches_widen_the_model_error() {
        use augur_ir::AbOp;
        let k = OPTIMIZED_COMPILED;
        let half = k.of(0.5);
        assert!((half * half - (k.regular.powi(2) + k.irregular.powi(2)) / 2.0).abs() < 1e-12);
        assert!(k.of(0.0) < half && half < k.of(1.0));
        assert_eq!(k.of(-1.0), k.regular);
        assert!(is_irregular(AbOp::BRMP) && is_irregular(AbOp::SIND) && is_irregular(AbOp::PROC));
        assert!(is_irregular(AbOp::IOST) && is_irregular(AbOp::CCAT) && is_irregular(AbOp::EXPC));
        assert!(
            !is_irregular(AbOp::ARDL) && !is_irregular(AbOp::SQRD) && !is_irregular(AbOp::LOOV)
        );
        let share = irregular_share(&[(AbOp::ARDL, 3.0), (AbOp::SIND, 1.0)], 4.0);
        assert!((share - 0.25).abs() < 1e-12);
        assert_eq!(irregular_share(&[], 0.0), 0.0);
    }
}
