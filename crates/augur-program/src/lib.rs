//! Program characterization: instrumented builds and runs with the real compiler,
//! exact block counts, and the program profile.
//!
//! [`instrument`] decides where counters go and rewrites the sources;
//! [`toolchain`] builds and runs programs with the user's compiler; [`profile`]
//! turns counts into the program profile (S, μ, C and their breakdowns);
//! [`locality`] adds the reuse-distance histograms of the affine loop nests;
//! [`optreport`] asks the compiler which loops it vectorized and which calls it inlined;
//! [`analyze`] ties them together.

pub mod analyze;
pub mod branches;
pub mod gcov;
pub mod instrument;
pub mod locality;
pub mod optreport;
pub mod profile;
pub mod toolchain;

pub use analyze::{analyze, AnalyzeError, AnalyzeOptions};
pub use profile::ProgramProfile;
