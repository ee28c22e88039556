//! A scalable profile: counting runs at several values of one scale variable (`n`) and,
//! per block, its executions as a function of `n` — an exact symbolic sum over its DO
//! nest where the bounds allow, otherwise a model fitted to the runs — so that the
//! program can be priced at sizes never run (`augur predict --at n=...`).

use crate::locality::{NestValues, RuntimeShape};
use serde::{Deserialize, Serialize};

/// How the profile scales with its variable.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ScalingProfile {
    /// The scale variable's name (`n` of `--scale n=32,48,64`).
    pub symbol: String,
    /// The values analyzed, ascending.
    pub values: Vec<i64>,
    /// The value the rest of the profile describes (the largest analyzed, or the size it
    /// was extrapolated to when `extrapolated`).
    pub profile_value: i64,
    /// Whether the rest of the profile was computed at `profile_value` from these models
    /// rather than counted.
    #[serde(default)]
    pub extrapolated: bool,
    /// How the program was built and run, with `{symbol}` where the value goes.
    pub inputs: ScaledInputs,
    /// What each counting run recorded beyond the block counts.
    pub runs: Vec<ScaledRun>,
    /// Per executed block, its model.
    pub blocks: Vec<BlockScaling>,
}

/// The command line of a scalable analysis, `{n}` left in place.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct ScaledInputs {
    /// Fortran sources, absolute paths.
    pub sources: Vec<String>,
    /// Forced source form (`fixed`, `free`), if any.
    #[serde(default)]
    pub form: Option<String>,
    /// Whether the C preprocessor ran on every file.
    #[serde(default)]
    pub cpp: bool,
    /// Preprocessor definitions (`NAME=VALUE`).
    #[serde(default)]
    pub defines: Vec<String>,
    /// Include directories, absolute.
    #[serde(default)]
    pub include_dirs: Vec<String>,
    /// Program arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Standard input file.
    #[serde(default)]
    pub stdin: Option<String>,
}

impl ScaledInputs {
    /// `text` with `{symbol}` replaced by `value`.
    pub fn substitute(text: &str, symbol: &str, value: i64) -> String {
        text.replace(&format!("{{{symbol}}}"), &value.to_string())
    }
}

/// One counting run of a scalable analysis.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ScaledRun {
    /// The scale variable's value.
    pub value: i64,
    /// Abstract operations counted.
    pub operations: f64,
    /// Wall time of the counting run, seconds.
    pub wall_seconds: f64,
    /// Pages the run touched first (its page faults), when recorded.
    #[serde(default)]
    pub first_touch_pages: Option<u64>,
    /// The values each recorded nest ran with.
    #[serde(default)]
    pub nest_values: Vec<NestValues>,
    /// Runtime shapes of arrays whose declarations do not give them.
    #[serde(default)]
    pub runtime_shapes: Vec<RuntimeShape>,
}

/// The executions of one block as a function of the scale variable.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BlockScaling {
    /// Unit index in the profile.
    pub unit: usize,
    /// Block id.
    pub block: u32,
    /// Executions in each run (as `values`).
    pub observed: Vec<f64>,
    /// The model.
    pub model: CountModel,
    /// A fitted model too, for when the exact one cannot be evaluated (its nest's
    /// values do not extrapolate, or enumerating it would take too long).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fit: Option<PowerLaw>,
}

/// How a block's executions depend on the scale variable.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CountModel {
    /// A symbolic sum over the block's DO nest (P^3T+), exact at every run: the
    /// iterations of loop `loop_id` per entry of the nest's outermost loop `root`, times
    /// the entries, with the scalars the bounds read as they ran.
    Exact {
        /// The loop whose iterations these are.
        loop_id: u32,
        /// The outermost loop of its nest.
        root: u32,
        /// The count per entry of `root`, as nested sums.
        per_entry: String,
        /// The same in closed form (a polynomial in the names the bounds read), when the
        /// bounds are polynomials and the steps ±1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        closed_form: Option<String>,
        /// How the names the bounds read depend on the scale variable (`nx = n + 2`).
        #[serde(default)]
        symbols: Vec<String>,
        /// Whether the count is weighted by the value sets recorded at `root` (each with
        /// its entries, extrapolated), rather than by the executions of `root`'s entry
        /// block (whose own model must then be exact, constant or polynomial).
        #[serde(default)]
        by_value_sets: bool,
    },
    /// The same at every run.
    Constant {
        /// The executions.
        value: f64,
    },
    /// A polynomial in the scale variable through every run, with at least one run more
    /// than its degree needs (so checked): coefficients by degree, as exact fractions.
    Polynomial {
        /// `coefficients[d]` multiplies `n^d` (`"3/2"`).
        coefficients: Vec<String>,
        /// Written out.
        form: String,
    },
    /// Extra-P's normal form fitted to the runs.
    Fitted(PowerLaw),
    /// A constant share of the executions of the header block of the block's loop (an
    /// arm of a branch on data: its probability holds across sizes), when that block's
    /// model is exact, constant or polynomial and the share predicts each run from the
    /// others better than a fit.
    Share {
        /// The loop header block whose executions it is a share of.
        of_block: u32,
        /// The share (executions over the header's, pooled over the runs).
        ratio: f64,
        /// Leave-one-out error, as for [`PowerLaw::cv_error`].
        cv_error: f64,
    },
}

impl CountModel {
    /// Its kind's name, as in the profile (`exact`, `constant`, `polynomial`, `fitted`,
    /// `share`).
    pub fn kind(&self) -> &'static str {
        match self {
            CountModel::Exact { .. } => "exact",
            CountModel::Constant { .. } => "constant",
            CountModel::Polynomial { .. } => "polynomial",
            CountModel::Fitted(_) => "fitted",
            CountModel::Share { .. } => "share",
        }
    }
}

/// Extra-P's normal form with one term: `c0 + c1 · n^(i_num/i_den) · log2(n)^j`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PowerLaw {
    /// Constant term.
    pub c0: f64,
    /// Coefficient of the growing term (0 for a constant model).
    pub c1: f64,
    /// Exponent of `n`, numerator.
    pub i_num: u32,
    /// Exponent of `n`, denominator.
    pub i_den: u32,
    /// Exponent of `log2(n)`.
    pub j: u32,
    /// Leave-one-out cross-validation error: the root mean square of the relative
    /// errors of each run predicted from the others.
    pub cv_error: f64,
}

impl PowerLaw {
    /// The growing term's value at `n`.
    pub fn term(i_num: u32, i_den: u32, j: u32, n: f64) -> f64 {
        n.powf(f64::from(i_num) / f64::from(i_den.max(1))) * n.log2().powi(j as i32)
    }

    /// The model's value at `n` (never negative: a count).
    pub fn eval(&self, n: f64) -> f64 {
        (self.c0 + self.c1 * Self::term(self.i_num, self.i_den, self.j, n)).max(0.0)
    }

    /// The model written out: `12 + 3.5*n^(3/2)*log2(n)`.
    pub fn describe(&self, var: &str) -> String {
        if self.c1 == 0.0 {
            return format!("{}", self.c0);
        }
        let power = match (self.i_num, self.i_den) {
            (0, _) => String::new(),
            (1, 1) => format!("*{var}"),
            (a, 1) => format!("*{var}^{a}"),
            (a, b) => format!("*{var}^({a}/{b})"),
        };
        let log = match self.j {
            0 => String::new(),
            1 => format!("*log2({var})"),
            j => format!("*log2({var})^{j}"),
        };
        format!("{:.6e} + {:.6e}{power}{log}", self.c0, self.c1)
    }
}
