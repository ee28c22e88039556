//! Program characterization: instrumented builds and runs with the real compiler,
//! exact block counts, and the program profile.
//!
//! [`instrument`] decides where counters go and rewrites the sources; [`profile`]
//! turns counts into the program profile (S, μ, C and their breakdowns, format in
//! `augur-program-profile`); [`locality`] adds the reuse-distance histograms of the
//! affine loop nests; [`branches`] records conditions in a second run; [`analyze`] ties
//! them together. Builds, runs and the compiler's optimization report go through
//! `augur-toolchain`.
//!
//! Architecture invariant: the program wing never imports the machine wing; a program
//! profile never holds a machine's number.

pub mod analyze;
pub mod branches;
pub mod compiled;
pub mod distribute;
pub mod gcov;
pub mod instrument;
pub mod locality;
pub mod mpi;
pub mod openmp;
pub mod profile;
pub mod scaling;
pub mod where_passes;

pub use analyze::{analyze, build_instrumented, AnalyzeError, AnalyzeOptions};
pub use augur_program_profile::ProgramProfile;
