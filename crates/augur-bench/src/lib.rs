//! Benchmarks of augur itself, behind `augur bench ...`, and the validation of one
//! program they share with `augur validate`.
//!
//! * [`accuracy`]: `validate` over the corpus on one machine profile, and the error summary.
//! * [`overhead`]: run time of the instrumented program over the plain one.
//! * [`counts`]: augur's block counts against gcov's line counts.
//! * [`misses`]: predicted cache misses against valgrind's cache simulation.
//! * [`front_end`]: throughput and peak memory of the front end.
//! * [`corpus`]: the corpus manifest the benchmarks read.
//! * [`suite`]: a suite of real programs (one manifest each, sources kept outside).
//! * [`validation`]: analyze, predict and time one program (`augur validate`, [`accuracy`]).
//! * [`threads`], [`ranks`]: one OpenMP or MPI program at several thread or rank counts.
//! * [`parallel`]: the OpenMP and MPI corpora (`augur bench openmp`, `augur bench mpi`).
//! * [`simgrid`]: MPI predictions beside SimGrid's online simulation, and the replay's cost.
//! * [`repeatability`]: N characterizations of one host: entries, structure, predictions.
//!
//! The benchmarks print their tables to standard output. This is application-level
//! code: errors are `anyhow` errors with context, returned to the binary, which prints
//! them and chooses the exit status (see [`Verdict`]).

pub mod accuracy;
pub mod corpus;
pub mod counts;
pub mod distribution;
pub mod front_end;
pub mod incore;
pub mod loop_errors;
pub mod misses;
pub mod overhead;
pub mod parallel;
pub mod ranks;
pub mod repeatability;
pub mod scaling;
pub mod simgrid;
pub mod suite;
pub mod threads;
pub mod validation;

/// How a benchmark that checks something came out, for the command's exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every program ran and passed its check.
    Passed,
    /// Some program failed or did not pass (the command exits with status 1).
    Failed,
}

/// An error with its causes, each said once: a message that already quotes its cause
/// (`cannot read X: No such file or directory`) is not followed by it again (`{e:#}`
/// would repeat it).
pub fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let said = cause.to_string();
        if text.contains(&said) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&said);
    }
    text
}
