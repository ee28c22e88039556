//! The augur program model.
//!
//! This crate is the lowest layer of augur: it knows nothing about parsing or
//! compilers. It holds source positions and diagnostics ([`source`], [`diag`]),
//! the catalogue of abstract operations ([`abop`]), the program model of units,
//! symbols, statements and basic blocks ([`program`]), and the static counting
//! of abstract operations per basic block ([`count`]).

pub mod diag;
pub mod source;

pub use diag::{Diagnostic, Severity};
pub use source::{FileId, Pos, SourceFile, SourceFiles, Span};
