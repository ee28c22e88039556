//! The optimization-detection side of a machine profile (`[optimizations]`,
//! `augur characterize --optimizations`): which standard optimizations the compiler with
//! its flags applies, from paired timing experiments (Saavedra-Barrera's optimization
//! benchmark, seed 001 §4.5, tables 4.9-4.11; the Naive/Opt and Naive/Cripple tests of
//! seed 000 §6.2).
//!
//! Each test times up to three versions of one kernel: the *naive* code the optimization
//! would improve, the *hand-optimized* equivalent, and the *cripple*: the naive code with
//! the opportunity hidden from the compiler (a value read at run time instead of a
//! constant, a procedure compiled separately instead of in the same file). Each row of the
//! summary rates one optimization (and scope) over its contexts (integer, floating-point,
//! mixed) as `yes`, `partial`, `marginal` or `no`.

use serde::{Deserialize, Serialize};

/// The ratings, best first.
pub const RATINGS: [&str; 4] = ["yes", "partial", "marginal", "no"];

/// The optimizations a detection table rates, in table order: each key (the
/// `optimization` of a summary row) with its name in the tables.
pub const OPTIMIZATIONS: &[(&str, &str)] = &[
    ("constant_folding", "constant folding"),
    ("cse", "common subexpression elimination"),
    ("code_motion", "code motion of invariants"),
    ("dead_code", "dead-code elimination"),
    ("copy_propagation", "copy propagation"),
    ("strength_reduction", "strength reduction"),
    ("induction_variable", "induction-variable elimination"),
    ("address_collapsing", "address-calculation collapsing"),
    ("register_allocation", "register allocation of scalars"),
    ("inlining", "inlining"),
    ("unrolling", "loop unrolling"),
    ("interchange", "loop interchange"),
    ("vectorization", "vectorization"),
    ("if_conversion", "if-conversion"),
    ("tail_recursion", "tail recursion"),
];

/// The name in the tables of an optimization key (the key itself when unknown).
pub fn optimization_words(key: &str) -> &str {
    OPTIMIZATIONS
        .iter()
        .find(|(k, _)| *k == key)
        .map_or(key, |(_, w)| w)
}

/// A test whose verdict could not be reached (the opportunity is worth nothing measurable
/// on this machine, or the test failed).
pub const INCONCLUSIVE: &str = "inconclusive";

/// The optimization tests of one compiler with its flags.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OptimizationsProfile {
    /// The one-sided significance level of the tests (0.05).
    pub alpha: f64,
    /// Observations of each version of each test.
    pub observations: u32,
    /// Target duration of one observation, ms.
    pub window_ms: f64,
    /// Wall time of the detection run, s.
    pub elapsed_s: f64,
    /// One row per optimization (and scope), in catalogue order.
    #[serde(default, rename = "summary")]
    pub summaries: Vec<Summary>,
    /// One row per test (optimization, scope, context).
    #[serde(default, rename = "test")]
    pub tests: Vec<TestResult>,
}

/// The rating of one optimization in one scope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The optimization's key, e.g. `constant_folding`.
    pub optimization: String,
    /// `local` (inside one basic block), `global` (across blocks) or `-`.
    pub scope: String,
    /// `yes`, `partial`, `marginal`, `no` or `inconclusive`.
    pub rating: String,
    /// Tests with a verdict.
    pub conclusive: u32,
    /// Tests in which the optimization was detected.
    pub detected: u32,
    /// What the compiler's own report says, where it covers this optimization
    /// (`reported`, `not reported`), else empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub report: String,
    /// Set when the rating contradicts the report: what disagrees.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub contradiction: String,
    /// With `--repeat N`: the rating of each run, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repeats: Vec<String>,
}

/// One test: the versions' times and the verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    /// `optimization/scope/context`, e.g. `constant_folding/local/int`.
    pub key: String,
    /// The rule of the verdict: `effectiveness` (naive, optimized and cripple),
    /// `naive/opt` or `naive/cripple` (the ratio rule of seed 000).
    pub rule: String,
    /// Naive version, ns per iteration (mean of the kept observations).
    pub naive_ns: f64,
    /// Hand-optimized version, ns per iteration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opt_ns: Option<f64>,
    /// Cripple version, ns per iteration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cripple_ns: Option<f64>,
    /// Effectiveness `(cripple - naive) / (cripple - opt)`: 1 when the compiler got all
    /// of the hand optimization's gain, 0 when none (rule `effectiveness`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effectiveness: Option<f64>,
    /// The ratio of the rule and its confidence interval (ratio rules).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
    /// Lower end of the ratio's interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_low: Option<f64>,
    /// Upper end of the ratio's interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_high: Option<f64>,
    /// The ratio expected at best when the optimization is not applied (`R_p`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_threshold: Option<f64>,
    /// One-sided p-value of Welch's test that the naive version is faster than the
    /// cripple (rule `effectiveness`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
    /// `yes`, `partial`, `marginal`, `no` or `inconclusive`.
    pub verdict: String,
    /// Why the verdict is what it is, in a few words.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

impl OptimizationsProfile {
    /// The first value that cannot be right: a rating or verdict outside the known
    /// words, a time that is negative or not finite.
    pub fn inconsistency(&self) -> Option<String> {
        let valid = |r: &str| RATINGS.contains(&r) || r == INCONCLUSIVE;
        if let Some(s) = self.summaries.iter().find(|s| !valid(&s.rating)) {
            return Some(format!(
                "[[optimizations.summary]] {} has an invalid rating `{}`",
                s.optimization, s.rating
            ));
        }
        let bad = |x: Option<f64>| x.is_some_and(|x| !x.is_finite() || x < 0.0);
        self.tests.iter().find_map(|t| {
            if !valid(&t.verdict) {
                Some(format!(
                    "[[optimizations.test]] {} has an invalid verdict `{}`",
                    t.key, t.verdict
                ))
            } else if bad(Some(t.naive_ns)) || bad(t.opt_ns) || bad(t.cripple_ns) {
                Some(format!(
                    "[[optimizations.test]] {} has a negative or infinite time",
                    t.key
                ))
            } else {
                None
            }
        })
    }

    /// The summary row of an optimization and scope.
    pub fn summary(&self, optimization: &str, scope: &str) -> Option<&Summary> {
        self.summaries
            .iter()
            .find(|s| s.optimization == optimization && s.scope == scope)
    }
}
