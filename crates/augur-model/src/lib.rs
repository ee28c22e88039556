//! The augur execution predictor.
//!
//! * [`predict`](mod@predict): `T = Σ C·P` with its confidence interval, the AbOp
//!   report and the breakdowns by procedure, block, line, loop and region; it puts
//!   together
//!   * [`cost`]: the cost table (each AbOp's cost per context, its standard error),
//!   * [`block`]: one basic block's price in its compiler context,
//!   * `recurrence`: loop bodies at their throughput or their recurrence,
//!   * `price`: every block of the program priced,
//!   * [`nest_time`]: the memory term of loop nests combined with their operation time,
//!   * [`breakdown`]: the report rows.
//! * [`memory`]: the memory term per loop nest.
//! * [`machine`]: a machine profile loaded (by path or library name) with its cost table.
//! * [`speedup`]: one program on several compiler settings, each loop's speedup and the
//!   optimizations that account for it.
//!
//! Architecture invariant: the model knows nothing about compilers or running programs;
//! it reads two files (a program profile and a machine profile).

pub mod block;
pub mod breakdown;
pub mod cost;
mod forwarding;
pub mod hybrid;
pub mod incore;
pub mod interval;
mod library_moves;
pub mod machine;
pub mod memory;
pub mod nest_time;
pub mod openmp;
mod par;
pub mod predict;
mod price;
mod recurrence;
mod replayed;
pub mod risks;
pub mod schedule;
pub mod segments;
mod span;
pub mod speedup;
#[cfg(test)]
mod test_support;
mod unoptimized;

pub use interval::Interval;
pub use machine::LoadedMachine;
pub use predict::{predict, CostTable, Estimate, PredictOptions, Prediction};
