//! The augur program model.
//!
//! This crate is the lowest layer of augur: it knows nothing about parsing or
//! compilers. It holds source positions and diagnostics ([`source`], [`diag`]),
//! the catalogue of abstract operations ([`abop`]) and sparse count vectors
//! ([`counts`]), the program model of units, symbols, statements, basic blocks
//! and loops ([`program`]), and the counting rules that turn a statement into
//! AbOps ([`count`]), with the value ranges compilers use to simplify them
//! ([`ranges`]).

pub mod abop;
pub mod busy_wait;
pub mod call_chains;
pub mod chain;
pub mod count;
pub mod counts;
pub mod diag;
pub mod goto_loops;
pub mod incore;
pub mod intervals;
pub mod omp;
pub mod omp_sharing;
pub mod opportunities;
pub mod program;
pub mod ranges;
pub mod source;

pub use abop::AbOp;
pub use counts::{AbOpCounts, ScalarOperands};
pub use diag::{Diagnostic, Severity};
pub use program::*;
pub use source::{FileId, Pos, SourceFile, SourceFiles, Span};
