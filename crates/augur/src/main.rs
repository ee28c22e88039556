//! `augur`: predict how long a Fortran program runs on a machine, and explain why.

mod bench;
mod bench_accuracy;
mod bench_counts;
mod bench_overhead;
mod characterize;
mod cli;
mod corpus;
mod dynamic;
mod plot;
mod predict;
mod static_report;
mod stream;
mod validate;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cli::run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
