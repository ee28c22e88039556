//! The augur execution predictor.
//!
//! * [`predict`]: `T = Σ C·P` with its confidence interval, the AbOp report and the
//!   breakdowns by procedure, block, line, loop and region.
//! * [`memory`]: the memory term per loop nest.
//! * [`machine`]: a machine profile loaded (by path or library name) with its cost table.
//!
//! Architecture invariant: the model knows nothing about compilers or running programs;
//! it reads two files (a program profile and a machine profile).

pub mod machine;
pub mod memory;
pub mod predict;

pub use machine::LoadedMachine;
pub use predict::{predict, CostTable, Estimate, Prediction};
