//! Characterizing and comparing programs (Saavedra-Barrera's dissertation, chapter 3),
//! from program profiles and, for the comparisons by time, machine profiles:
//!
//! * [`classes`]: each AbOp in the thesis's categories (statements, operators and data
//!   types, array operands, the 13 reduced parameters);
//! * [`characterize`](mod@characterize): one program's dynamic distributions (tables
//!   3.2-3.4), concentration and skewness (tables 3.6-3.9) and reduced parameters
//!   (table 3.10);
//! * [`concentration`]: ordered distributions, the skewness index and the geometric law
//!   fitted to them (figure 3.10);
//! * [`similarity`]: the program distance (equation 3.5), clusters (figure 3.11) and
//!   the execution-time similarity (table 3.15);
//! * [`ranking`]: Spearman's rank correlation and the geometric mean of normalized
//!   times (table 3.14);
//! * [`speedups`]: speedups over a base compiler setting per program, their geometric
//!   means and correlations between settings (tables 4.6 and 4.7);
//! * [`compare`](mod@compare): what `augur compare programs` and `augur rank` print.
//!
//! Architecture invariant: reads program and machine profiles and prices them with
//! `augur-model`; never builds or runs anything.

pub mod characterize;
pub mod classes;
pub mod compare;
pub mod concentration;
pub mod ranking;
pub mod similarity;
pub mod speedups;

pub use characterize::{characterize, Characterization};
pub use compare::{compare, load_machines, load_programs, rank, Comparison, Program, Ranking};

/// Why a comparison could not be made.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    /// A program profile could not be read (the message names the file and the cause).
    #[error("{0}")]
    Profile(augur_program_profile::ProfileReadError),
    /// A machine profile could not be found or read.
    #[error(transparent)]
    Machine(#[from] augur_machine_profile::library::LibraryError),
    /// The weights do not fit the programs.
    #[error("--weights: {0}")]
    Weights(String),
    /// A program has no positive predicted time on a machine (no operations).
    #[error("{program}: its predicted time on {machine} is not positive (does the profile execute any operation?); a workload ranking divides by it")]
    NoTime {
        /// The program profile.
        program: String,
        /// The machine.
        machine: String,
    },
}

impl From<augur_program_profile::ProfileReadError> for WorkloadError {
    fn from(e: augur_program_profile::ProfileReadError) -> WorkloadError {
        WorkloadError::Profile(e)
    }
}
