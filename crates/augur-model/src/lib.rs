//! The augur execution predictor.
//!
//! * [`predict`]: `T = Σ C·P` with its confidence interval, the AbOp report and the
//!   breakdowns by procedure, block, line, loop and region.
//! * [`library`]: machine profiles named from the `machines/` library.
//! * [`validate`]: real runs of the normally built program, errors and their summary.

pub mod library;
pub mod memory;
pub mod predict;
pub mod validate;

pub use predict::{predict, CostTable, Estimate, Prediction};
