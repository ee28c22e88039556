//! The program profile: static counts S, block executions μ, the dynamic AbOp
//! vector C = Σ μ·S, and its breakdowns by line, procedure, loop and region.
//!
//! Profiles are machine-independent (they depend only on the source and the
//! input), versioned (`schema`) and documented in `docs/FORMATS.md`.

pub mod compiled;
pub mod locality;
pub mod mpi;
pub mod openmp;
pub mod optreport;
pub mod scaling;

use augur_ir::{AbOpCounts, BlockKind, LoopKind, ScalarOperands, UnitKind};

use serde::{Deserialize, Serialize};

/// Version of the program-profile format.
pub const PROFILE_SCHEMA: u32 = 1;
/// The `kind` of a program profile document.
pub const PROFILE_KIND: &str = "augur-program-profile";

/// How the note that says why a profile is partial starts ([`ProgramProfile::notes`]):
/// `partial profile: the program exited with status 1`.
pub const PARTIAL_NOTE: &str = "partial profile: ";

/// A program profile.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ProgramProfile {
    /// Format version ([`PROFILE_SCHEMA`]).
    pub schema: u32,
    /// Always [`PROFILE_KIND`].
    pub kind: String,
    /// augur version that wrote it.
    pub augur_version: String,
    /// Every source file read, with its content hash.
    pub sources: Vec<SourceEntry>,
    /// How the counting run was built and run.
    pub run: RunEntry,
    /// True when the counts are incomplete (written only with `--keep-partial`).
    pub partial: bool,
    /// Why the profile is partial (the note that starts with [`PARTIAL_NOTE`]), or notes
    /// on approximations.
    pub notes: Vec<String>,
    /// The dynamic AbOp vector C of the whole program.
    pub totals: AbOpCounts,
    /// Total number of abstract operations executed.
    pub operations: f64,
    /// Per program unit: its blocks (S and μ), loops and totals.
    pub units: Vec<UnitProfile>,
    /// Per source line with operations: the AbOps executed there.
    pub lines: Vec<LineProfile>,
    /// Per region (`!augur region NAME` ... `!augur end region`).
    pub regions: Vec<RegionProfile>,
    /// Locality of the affine loop nests: reuse-distance histograms per nest
    /// and array at 64-byte lines, from which the misses of any cache follow
    /// ([`crate::locality`]); absent when not analyzed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locality: Option<locality::LocalityProfile>,
    /// The compiler's optimization report for the counting run's compiler and flags:
    /// vectorized loops and inlined calls by line ([`crate::optreport`]); absent when
    /// it could not be made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optimization: Option<optreport::OptReport>,
    /// Branch mispredictions simulated from the outcome sequences of a second run
    /// (`augur_program::branches`); when present, the blocks' `BRMP`/`BRMC` counts are these,
    /// otherwise the bound from the block counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branches: Option<BranchProfile>,
    /// Counting runs at several problem sizes and each block's executions as a function
    /// of the size ([`crate::scaling`]); absent for a profile of one run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scaling: Option<scaling::ScalingProfile>,
    /// The OpenMP constructs and each block's executions per thread at the thread
    /// counts analyzed ([`crate::openmp`]); absent for a sequential analysis.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openmp: Option<openmp::OpenMpProfile>,
    /// Each rank's compute segments and MPI calls at the rank counts analyzed
    /// ([`mpi`]); absent when not analyzed with `--mpi-ranks`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mpi: Option<mpi::MpiProfile>,
}

/// The branch run's summary: simulated mispredictions against the bound.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BranchProfile {
    /// The reference predictors simulated; a branch's mispredictions are the fewest of any.
    pub predictors: Vec<String>,
    /// Simulated mispredictions of the run (conditions and loop exits).
    pub mispredictions: f64,
    /// The part of them at DO loop exits.
    #[serde(default)]
    pub loop_exit_mispredictions: f64,
    /// The bound from the block counts over the same branches (every outcome against
    /// the most frequent direction).
    pub bound: f64,
    /// Recorded conditions that ran, most mispredicted first (at most 200).
    pub conditions: Vec<BranchRow>,
    /// Counted DO loops that ran, most mispredicted exits first (at most 200).
    pub loop_exits: Vec<LoopExitRow>,
}

/// One simulated condition.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BranchRow {
    /// Source file.
    pub file: String,
    /// Line of the IF, ELSE IF or DO WHILE.
    pub line: u32,
    /// What it is.
    pub kind: BranchKind,
    /// Executions.
    pub executions: u64,
    /// Executions with the condition true.
    pub taken: u64,
    /// Fewest mispredictions of any predictor.
    pub mispredictions: u64,
    /// The predictor that had them.
    pub predictor: String,
}

/// One simulated loop exit.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LoopExitRow {
    /// Source file.
    pub file: String,
    /// Line of the DO statement.
    pub line: u32,
    /// Entries of the loop.
    pub entries: u64,
    /// Entries whose trip count differed from the previous entry's (exits mispredicted).
    pub mispredictions: u64,
}

/// One source file of the program.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SourceEntry {
    /// Path as given (or as an include resolved it).
    pub path: String,
    /// Hex SHA-256 of its bytes.
    pub sha256: String,
    /// Number of lines.
    pub lines: u32,
}

/// The counting run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct RunEntry {
    /// Compiler used for the instrumented build.
    pub compiler: String,
    /// Its version line.
    pub compiler_version: String,
    /// Flags of the build.
    pub fflags: Vec<String>,
    /// Program arguments.
    pub args: Vec<String>,
    /// Standard input file, if any.
    pub stdin: Option<String>,
    /// Exit status of the run.
    pub exit_code: Option<i32>,
    /// Wall time of the instrumented run, seconds.
    pub wall_seconds: f64,
    /// Number of counters the instrumented program carried.
    pub counters: usize,
    /// Pages the program touched for the first time (minor page faults of the counting
    /// run from its start to its end, less those of augur's own sample buffers): what
    /// the operating system zeroes and maps, at a cost per page the machine profile
    /// measures. Base pages of the run's machine (4 KiB here). Absent in older profiles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_touch_pages: Option<u64>,
    /// The processor's sticky floating-point flags at the counting run's end that say
    /// its arithmetic met subnormal numbers (x86: `denormal`, an operand was
    /// subnormal; `underflow`, a result was too small to be normal), the main thread's;
    /// an empty list when neither was set. Absent in older profiles and on other
    /// architectures. An operation on a subnormal can cost a hundred cycles or more (a
    /// microcode assist on Intel cores), which no AbOp prices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fp_flags: Option<Vec<String>>,
}

impl RunEntry {
    /// True when the counting run's arithmetic met subnormal numbers
    /// ([`RunEntry::fp_flags`]).
    pub fn met_subnormals(&self) -> bool {
        self.fp_flags.as_ref().is_some_and(|f| !f.is_empty())
    }
}

/// One program unit.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct UnitProfile {
    /// Lower-case name.
    pub name: String,
    /// `program`, `subroutine`, `function`, `module`, `block_data`.
    pub unit_kind: UnitKind,
    /// Its file.
    pub file: String,
    /// First line.
    pub first_line: u32,
    /// Last line.
    pub last_line: u32,
    /// Host unit of an internal or module procedure.
    pub host: Option<String>,
    /// Times the unit was entered (executions of its entry block), when measured.
    pub calls: Option<f64>,
    /// AbOps executed in the unit.
    pub totals: AbOpCounts,
    /// Its basic blocks.
    pub blocks: Vec<BlockProfile>,
    /// Its loops.
    pub loops: Vec<LoopProfile>,
    /// The AbOps on the longest dependent path through one call's statements outside
    /// loops, each weighted by the share of calls that run it
    /// (`augur_ir::chain::weighted_span_counts`): what a long straight-line body waits
    /// for on every call. Empty without calls, and in profiles made before the field.
    #[serde(default, skip_serializing_if = "AbOpCounts::is_empty")]
    pub body_span: AbOpCounts,
    /// The AbOps on the longest path from a scalar's value at a call's start to its
    /// value at the call's end through the same statements
    /// (`augur_ir::chain::weighted_carried_counts`): a SAVE'd seed, a COMMON or module
    /// variable, a dummy argument the body reads and assigns, whose next call waits for
    /// this one. Empty without such a variable, and in profiles made before the field.
    #[serde(default, skip_serializing_if = "AbOpCounts::is_empty")]
    pub carried_span: AbOpCounts,
    /// The assignments `body_span` passes through (`augur_ir::chain::ChainPath`): each a
    /// store and a reload of its variable in unoptimized code, where the operations of
    /// one statement stay in registers. `None` without a span, and in profiles made
    /// before the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_span_assignments: Option<f64>,
    /// The same for `carried_span`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carried_span_assignments: Option<f64>,
    /// Its calls made by loops that chain them through their arguments
    /// (`augur_ir::call_chains`: a Runge-Kutta loop's derivative routine reads the state
    /// the stage before wrote): each waits for the one before, so the core overlaps none
    /// of them with the next. `None` when there are none, and in profiles made before the
    /// field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chained_calls: Option<f64>,
}

/// One basic block: a column of S and its μ.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BlockProfile {
    /// Block id within the unit.
    pub id: u32,
    /// `entry`, `straight`, `loop_header`, `elements`.
    pub block_kind: BlockKind,
    /// First and last line.
    pub first_line: u32,
    /// Last line.
    pub last_line: u32,
    /// Innermost loop.
    pub in_loop: Option<u32>,
    /// Static AbOp counts of one execution (S).
    pub counts: AbOpCounts,
    /// Of those, the AbOps on a recurrence (a scalar assigned from itself, e.g.
    /// `s = s + a(i)*b(i)`), whose latency bounds a loop's iteration time
    /// (`augur_ir::chain`); empty when the block has none.
    #[serde(default, skip_serializing_if = "AbOpCounts::is_empty")]
    pub chain: AbOpCounts,
    /// The assignments `chain` passes through (`augur_ir::chain::ChainPath`): each a
    /// store and a reload of its variable in unoptimized code. `None` without a chain,
    /// and in profiles made before the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_assignments: Option<f64>,
    /// Of `counts`, the stores and scalar copies into local scalar variables
    /// (`augur_ir::count::register_write`): memory stores without optimization,
    /// register writes with it. Empty when the block has none, and in profiles made
    /// before the field.
    #[serde(default, skip_serializing_if = "AbOpCounts::is_empty")]
    pub register_writes: AbOpCounts,
    /// References to scalar variables of one execution, local and global, counted beside
    /// `counts` (which fold them into the operators; `augur_ir::ScalarOperands`): with
    /// the array references `ARR1`..`ARR4`, the operands of table 3.4. `None` in profiles
    /// made before the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scalar_operands: Option<ScalarOperands>,
    /// Executions (μ); `null` for blocks without operations, whose count is not needed.
    pub executions: Option<f64>,
    /// How μ was obtained (`counter`, `same_as`, `difference`, `while_tests`, `not_needed`).
    pub how: String,
}

/// One loop.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LoopProfile {
    /// Loop id within the unit.
    pub id: u32,
    /// `counted`, `while`, `forever`, `concurrent`, `array_elements`.
    pub loop_kind: LoopKind,
    /// Line of the DO (or array) statement.
    pub line: u32,
    /// Nesting depth.
    pub depth: u32,
    /// Enclosing loop.
    pub parent: Option<u32>,
    /// Times the loop was entered.
    pub entries: Option<f64>,
    /// Iterations (elements, for whole-array statements) over all entries.
    pub iterations: Option<f64>,
    /// Mean iterations per entry.
    pub mean_trips: Option<f64>,
    /// AbOps executed inside the loop, nested loops included.
    pub totals: AbOpCounts,
    /// For an innermost loop whose body spans several blocks (IF arms, CASE arms), the
    /// expected AbOps of one iteration on its longest loop-carried recurrence across
    /// them, each statement weighted by the share of iterations that run it
    /// (`augur_ir::chain::weighted_chain_counts`): `lo`/`hi` of a bisection, `n` of a
    /// Collatz step (scalar variables only: components of derived types are left out).
    /// Empty for other loops and in profiles made before the field.
    #[serde(default, skip_serializing_if = "AbOpCounts::is_empty")]
    pub chain: AbOpCounts,
    /// The expected assignments `chain` passes through (`augur_ir::chain::ChainPath`).
    /// `None` without a chain, and in profiles made before the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_assignments: Option<f64>,
    /// For an innermost loop that iterated: the expected AbOps of one iteration's calls
    /// that wait for a recurrence (`augur_ir::chain::serial_calls`: their arguments read
    /// a scalar carried across iterations), empty when there are none; `None` for other
    /// loops and in profiles made before the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial_calls: Option<AbOpCounts>,
    /// Code in the loop's own statements an optimizing compiler is likely to change
    /// while augur counts it as written (`augur_ir::opportunities`: invariants, common
    /// subexpressions, a badly ordered nest); the predictor weighs them by the machine's
    /// detection table. Empty when there are none and in profiles made before the field.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opportunities: Vec<augur_ir::opportunities::Opportunity>,
    /// Whether the loop waits for another thread by spinning (`augur_ir::busy_wait`: it
    /// only tests shared data, a FLUSH between the tests): its counted iterations are
    /// waiting, not work. Absent (false) in profiles made before the field.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub busy_wait: bool,
}

/// AbOps executed on one source line.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LineProfile {
    /// File.
    pub file: String,
    /// Line.
    pub line: u32,
    /// AbOps executed there.
    pub abops: AbOpCounts,
}

/// A region marked in the source.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RegionProfile {
    /// Its name.
    pub name: String,
    /// File.
    pub file: String,
    /// Line of `!augur region`.
    pub first_line: u32,
    /// Line of `!augur end region`.
    pub last_line: u32,
    /// AbOps executed inside: its own lines' and, for each call made from them, the
    /// callee's share of its inclusive operations (its own and its callees', split
    /// among its call sites by their executions).
    pub abops: AbOpCounts,
    /// The procedures called from inside whose operations `abops` includes (absent in
    /// profiles made before regions included their callees).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub callees: Vec<String>,
}

/// What one recorded branch is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BranchKind {
    /// Block IF.
    If,
    /// ELSE IF.
    ElseIf,
    /// Logical IF (`IF (c) stmt`, also the test of a GOTO loop).
    LogicalIf,
    /// The test of a DO WHILE.
    DoWhile,
    /// A SELECT CASE (outcome: the arm taken).
    SelectCase,
    /// A computed GOTO (outcome: the selector's value).
    ComputedGoto,
    /// An arithmetic IF (outcome: 1, 2 or 3 for a negative, zero or positive value).
    ArithmeticIf,
    /// The first operand of an `.OR.`/`.AND.` in a logical assignment (`h = (c == 3)
    /// .or. (g(i) .and. c == 2)`) or an IF condition, when a later operand loads from
    /// memory or calls a user function: the compiler branches on it to skip the rest
    /// (gfortran -O2). Recorded beside the whole condition of an IF.
    ShortCircuit,
    /// The mask of a WHERE statement or construct, or of a masked ELSEWHERE: one
    /// outcome per element, in array element order. gfortran stores the mask in a
    /// temporary and each masked assignment's element loop branches on it.
    WhereMask,
    /// The mask of a `COUNT(mask)` whose compiled loop branches on it (gfortran -O0:
    /// `comiss; jb` an element, where -O2 adds a borrow instead): one outcome per element.
    CountMask,
    /// The C library's rounding of a real argument to the nearest whole number (`ANINT`
    /// calls `round`/`roundf`, `NINT` `lround`/`lroundf`): glibc's code branches on
    /// the argument's exponent, first on whether `|x| < 1`. Outcome: `|x| < 1`, one
    /// per element of an array argument. Values that straddle 1 mispredict there (a
    /// random-sign 3.0-wide spread: 2.9 ns more a call on a Zen 5 guest).
    Rounding,
    /// `round`'s (double `ANINT`) second branch, taken only when `|x| < 1`: whether
    /// `|x| >= 0.5` (`roundf` and `lround` select without branching). Differences of
    /// periodic coordinates in box units (`d - anint(d)`) mispredict here.
    RoundingHalf,
    /// The long division of a real `MOD` or `MODULO` (the C library's `fmod`, glibc 2.36),
    /// two branches a call: one outcome a bit of the quotient `|x/y|`, from the highest,
    /// but the last (glibc selects it without a branch), none when `|x| < |y|`; and the loop shifting the remainder back to a whole mantissa
    /// (once a bit it is shorter than the divisor, then its exit).
    /// A random quotient of 2^14 mispredicts half its bits (53 ns a call on a Zen 5 guest,
    /// 2.9 for a quotient of 1).
    Remainder,
}

impl BranchKind {
    /// Whether the outcome is one of several (SELECT CASE, computed GOTO).
    pub fn multiway(self) -> bool {
        matches!(
            self,
            BranchKind::SelectCase | BranchKind::ComputedGoto | BranchKind::ArithmeticIf
        )
    }

    /// Its name in reports (as in the profile).
    pub fn name(self) -> &'static str {
        match self {
            BranchKind::If => "if",
            BranchKind::ElseIf => "else_if",
            BranchKind::LogicalIf => "logical_if",
            BranchKind::DoWhile => "do_while",
            BranchKind::SelectCase => "select_case",
            BranchKind::ComputedGoto => "computed_goto",
            BranchKind::ArithmeticIf => "arithmetic_if",
            BranchKind::ShortCircuit => "short_circuit",
            BranchKind::WhereMask => "where_mask",
            BranchKind::CountMask => "count_mask",
            BranchKind::Rounding => "rounding",
            BranchKind::RoundingHalf => "rounding_half",
            BranchKind::Remainder => "remainder",
        }
    }
}

/// Why a program profile could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ProfileReadError {
    /// The file could not be read.
    #[error("cannot read the program profile {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid JSON or not a program profile.
    #[error("{path}:{line}:{column}: not a valid augur program profile: {message}; re-create it with `augur analyze ... -o {path}`")]
    Malformed {
        /// The file.
        path: String,
        /// Line of the problem (1-based; 0 when unknown).
        line: usize,
        /// Column of the problem.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A well-formed profile whose parts contradict each other (edited or corrupted).
    #[error("{path}: not a consistent augur program profile: {message}; re-create it with `augur analyze ... -o {path}`")]
    Inconsistent {
        /// The file.
        path: String,
        /// The first inconsistency found.
        message: String,
    },
    /// A profile of another kind or a newer/older schema.
    #[error("{path}: {message}")]
    Mismatch {
        /// The file.
        path: String,
        /// What does not match.
        message: String,
    },
}

/// A source file whose content changed since the profile was made.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceChange {
    /// Path as recorded in the profile.
    pub path: String,
    /// What changed: `"modified"` (hash differs) or `"missing"`.
    pub what: &'static str,
}

impl ProgramProfile {
    /// Why the counting run did not finish, from its note, when the profile is partial.
    pub fn partial_reason(&self) -> Option<&str> {
        if !self.partial {
            return None;
        }
        self.notes.iter().find_map(|n| n.strip_prefix(PARTIAL_NOTE))
    }

    /// Parses a profile from JSON text; `path` names the file in errors.
    pub fn from_json(text: &str, path: &str) -> Result<ProgramProfile, ProfileReadError> {
        // Check the kind and schema first, so that another document gets a clear message
        // instead of a complaint about a missing field.
        if looks_like_machine_profile(text) {
            return Err(ProfileReadError::Mismatch {
                path: path.to_string(),
                message: "a machine profile (TOML), not a program profile: give it with `-m`, and first the program's profile (`augur analyze PROGRAM.f90` writes one)".to_string(),
            });
        }
        // Only the two fields, read until both are found (augur writes them first): the
        // whole document once into a `serde_json::Value` took a fifth of a large
        // profile's prediction, and skipping the rest still a pass over all of it.
        let mut head = Head::default();
        let mut reader = serde_json::Deserializer::from_str(text);
        match serde::Deserializer::deserialize_map(&mut reader, HeadVisitor(&mut head)) {
            Ok(()) => {}
            // Both found: the visitor stopped the reading there.
            Err(e) if e.to_string().starts_with(HEAD_FOUND) => {}
            Err(e) => {
                return Err(ProfileReadError::Malformed {
                    path: path.to_string(),
                    line: e.line(),
                    column: e.column(),
                    message: e.to_string(),
                })
            }
        }
        let kind = head.kind.as_str();
        if kind != PROFILE_KIND {
            let hint = if kind == "augur-static-analysis" {
                "it is a static analysis (`augur analyze --static --json`); a program profile comes from `augur analyze` without --static".to_string()
            } else if kind.is_empty() {
                "it has no `kind`; is it an augur program profile? create one with `augur analyze`"
                    .to_string()
            } else {
                format!("its kind is `{kind}`, not `{PROFILE_KIND}`")
            };
            return Err(ProfileReadError::Mismatch {
                path: path.to_string(),
                message: format!("not a program profile: {hint}"),
            });
        }
        let schema = head.schema;
        if schema != PROFILE_SCHEMA as u64 {
            return Err(ProfileReadError::Mismatch {
                path: path.to_string(),
                message: format!(
                    "program profile schema {schema}, this augur reads schema {PROFILE_SCHEMA}; re-create it with this version's `augur analyze`"
                ),
            });
        }
        let mut profile: ProgramProfile =
            serde_json::from_str(text).map_err(|e| ProfileReadError::Malformed {
                path: path.to_string(),
                line: e.line(),
                column: e.column(),
                message: e.to_string(),
            })?;
        if let Some(report) = &mut profile.optimization {
            report.sort_lines();
            report.sort_by_line();
        }
        profile.inconsistency().map_or(Ok(profile), |message| {
            Err(ProfileReadError::Inconsistent {
                path: path.to_string(),
                message,
            })
        })
    }

    /// The first internal inconsistency of the profile, if any: block and loop ids that
    /// are not their positions, a block in a loop the unit does not have, a loop whose
    /// parent does not come before it,
    /// a count or execution that is negative or not finite. A profile `augur analyze`
    /// wrote never has one; an edited or corrupted one would otherwise mislead (or stop)
    /// the predictor.
    pub fn inconsistency(&self) -> Option<String> {
        let bad = |x: f64| !x.is_finite() || x < 0.0;
        let bad_counts = |c: &AbOpCounts| c.iter().find(|(_, n)| bad(*n)).map(|(op, _)| op);
        if let Some(op) = bad_counts(&self.totals) {
            return Some(format!(
                "the program's count of {op:?} is negative or not finite"
            ));
        }
        self.units.iter().find_map(|u| {
            let loops = u.loops.len() as u32;
            let names_loop = |l: Option<u32>| l.map_or(true, |l| l < loops);
            let blocks = u.blocks.iter().enumerate().find_map(|(i, b)| {
                let at = format!("unit `{}` block {i}", u.name);
                if b.id as usize != i {
                    Some(format!("{at} has id {}", b.id))
                } else if !names_loop(b.in_loop) {
                    Some(format!(
                        "{at} is in loop {:?}, which the unit does not have",
                        b.in_loop
                    ))
                } else if b.executions.is_some_and(bad) {
                    Some(format!("{at} ran a negative or infinite number of times"))
                } else if b
                    .scalar_operands
                    .is_some_and(|s| bad(s.local) || bad(s.global))
                {
                    Some(format!(
                        "{at} has a negative or infinite count of scalar operands"
                    ))
                } else {
                    [&b.counts, &b.chain, &b.register_writes]
                        .into_iter()
                        .find_map(bad_counts)
                        .map(|op| format!("{at}: its count of {op:?} is negative or not finite"))
                }
            });
            blocks.or_else(|| {
                u.loops.iter().enumerate().find_map(|(i, l)| {
                    let at = format!("unit `{}` loop {i}", u.name);
                    if l.id as usize != i {
                        Some(format!("{at} has id {}", l.id))
                    } else if l.parent.is_some_and(|p| p >= l.id) {
                        Some(format!(
                            "{at} names parent loop {:?}, which the unit does not have",
                            l.parent
                        ))
                    } else if [l.entries, l.iterations, l.mean_trips]
                        .into_iter()
                        .flatten()
                        .any(bad)
                    {
                        Some(format!(
                            "{at} has a negative or infinite entry or iteration count"
                        ))
                    } else {
                        None
                    }
                })
            })
        })
    }

    /// Reads a profile written by `augur analyze`.
    pub fn read(path: &std::path::Path) -> Result<ProgramProfile, ProfileReadError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ProfileReadError::Io {
            path: shown.clone(),
            source,
        })?;
        ProgramProfile::from_json(&text, &shown)
    }

    /// Compares the recorded source hashes with the files as they are now; relative paths
    /// are taken from `base`. Returns the files that changed or disappeared.
    pub fn source_changes(&self, base: &std::path::Path) -> Vec<SourceChange> {
        let mut changes = vec![];
        for s in &self.sources {
            let p = base.join(&s.path);
            match std::fs::read(&p) {
                Ok(bytes) => {
                    if sha256_hex(&bytes) != s.sha256 {
                        changes.push(SourceChange {
                            path: s.path.clone(),
                            what: "modified",
                        });
                    }
                }
                Err(_) => changes.push(SourceChange {
                    path: s.path.clone(),
                    what: "missing",
                }),
            }
        }
        changes
    }
}

/// The `kind` and `schema` of a document ([`ProgramProfile::from_json`]).
#[derive(Default)]
struct Head {
    kind: String,
    schema: u64,
}

/// Reads a document's map into its [`Head`] until it has both `kind` and `schema`,
/// skipping other fields, and stops the reading there with the error [`HEAD_FOUND`]
/// (serde_json checks a map's end when its visitor returns; the rest is parsed with the
/// profile, or not at all).
struct HeadVisitor<'h>(&'h mut Head);

/// The error [`HeadVisitor`] stops the reading with once it has what it reads.
const HEAD_FOUND: &str = "augur: kind and schema read";

impl<'de> serde::de::Visitor<'de> for HeadVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (mut kind, mut schema) = (false, false);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "kind" => {
                    self.0.kind = map.next_value()?;
                    kind = true;
                }
                "schema" => {
                    self.0.schema = map.next_value()?;
                    schema = true;
                }
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
            if kind && schema {
                return Err(serde::de::Error::custom(HEAD_FOUND));
            }
        }
        Ok(())
    }
}

/// Whether `text` is a machine profile's TOML (its `[provenance]` or `[abop.` tables) rather
/// than JSON.
fn looks_like_machine_profile(text: &str) -> bool {
    !text.trim_start().starts_with('{')
        && text
            .lines()
            .any(|l| l.starts_with("[provenance]") || l.starts_with("[abop."))
}

/// The SHA-256 of `bytes` in lower-case hex, as `augur-source` records every file it reads.
fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small profile as `augur analyze` writes it: one unit, one loop, two blocks.
    fn profile_json(edit: impl FnOnce(&mut serde_json::Value)) -> String {
        let mut v = serde_json::json!({
            "schema": PROFILE_SCHEMA, "kind": PROFILE_KIND, "augur_version": "0.1.0",
            "sources": [], "partial": false, "notes": [],
            "run": {"compiler": "gfortran", "compiler_version": "12", "fflags": ["-O2"],
                    "args": [], "stdin": null, "exit_code": 0, "wall_seconds": 0.1,
                    "counters": 2, "first_touch_pages": 10},
            "totals": {"ARDL": 100.0}, "operations": 100.0, "lines": [], "regions": [],
            "units": [{
                "name": "p", "unit_kind": "program", "file": "p.f90", "first_line": 1,
                "last_line": 5, "host": null, "calls": 1.0, "totals": {"ARDL": 100.0},
                "blocks": [
                    {"id": 0, "block_kind": "entry", "first_line": 1, "last_line": 2,
                     "in_loop": null, "counts": {"LOIN": 1.0}, "executions": 1.0, "how": "counter"},
                    {"id": 1, "block_kind": "straight", "first_line": 3, "last_line": 3,
                     "in_loop": 0, "counts": {"ARDL": 1.0}, "executions": 100.0, "how": "counter"}
                ],
                "loops": [{"id": 0, "loop_kind": "counted", "line": 2, "depth": 1,
                           "parent": null, "entries": 1.0, "iterations": 100.0,
                           "mean_trips": 100.0, "totals": {"ARDL": 100.0}}]
            }]
        });
        edit(&mut v);
        v.to_string()
    }

    fn read(edit: impl FnOnce(&mut serde_json::Value)) -> Result<ProgramProfile, String> {
        ProgramProfile::from_json(&profile_json(edit), "p.json").map_err(|e| e.to_string())
    }

    #[test]
    fn a_consistent_profile_reads() {
        let p = read(|_| {}).unwrap();
        assert_eq!(p.units[0].blocks.len(), 2);
        assert_eq!(p.inconsistency(), None);
    }

    #[test]
    fn inconsistent_profiles_are_refused_with_the_file_and_the_part() {
        type Edit = fn(&mut serde_json::Value);
        let cases: [(&str, Edit); 5] = [
            ("block 1 has id 7", |v| {
                v["units"][0]["blocks"][1]["id"] = 7.into()
            }),
            ("block 1 is in loop Some(3)", |v| {
                v["units"][0]["blocks"][1]["in_loop"] = 3.into()
            }),
            ("loop 0 names parent loop Some(0)", |v| {
                v["units"][0]["loops"][0]["parent"] = 0.into()
            }),
            ("block 0 ran a negative", |v| {
                v["units"][0]["blocks"][0]["executions"] = (-1.0).into()
            }),
            ("block 1: its count of ARDL", |v| {
                v["units"][0]["blocks"][1]["counts"]["ARDL"] = (-2.0).into()
            }),
        ];
        for (want, edit) in cases {
            let err = read(edit).unwrap_err();
            assert!(err.starts_with("p.json: not a consistent"), "{err}");
            assert!(err.contains(want), "{want}: {err}");
            assert!(err.contains("augur analyze"), "a fix hint: {err}");
        }
    }

    #[test]
    fn other_documents_and_schemas_are_named() {
        let err = read(|v| v["kind"] = "augur-static-analysis".into()).unwrap_err();
        assert!(err.contains("static analysis"), "{err}");
        let err = read(|v| v["schema"] = 99.into()).unwrap_err();
        assert!(err.contains("schema 99"), "{err}");
        let err = ProgramProfile::from_json("{\"kind\": ", "p.json").unwrap_err();
        assert!(err.to_string().starts_with("p.json:1:"), "{err}");
        // A machine profile given where the program's goes: said so, with no advice to
        // write a program profile over it.
        let toml = "[provenance]\ncompiler = \"gfortran\"\n\n[abop.ARDL]\nmean_ns = 0.1\n";
        let err = ProgramProfile::from_json(toml, "m.toml")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("a machine profile") && err.contains("-m"),
            "{err}"
        );
        assert!(!err.contains("-o m.toml"), "{err}");
    }
}
