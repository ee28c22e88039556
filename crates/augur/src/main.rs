//! `augur`: predict how long a Fortran program runs on a machine, and explain why.

mod characterize;
mod cli;
mod compare;
mod completions;
mod distribution;
mod dynamic;
mod figure_style;
mod gantt;
mod optimizations;
mod plot;
mod predict;
mod rank_sweep;
mod report;
mod scale;
mod schemas;
mod simgrid;
mod speedup;
mod static_report;
mod stream;
mod threads;
mod validate;
mod workload;

use augur_toolchain::interrupt;

/// mimalloc in place of glibc's allocator: `predict` builds and drops many small
/// vectors (schedule replays, profile maps), a sixth of its time in `malloc`/`free`.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use clap::Parser;
use std::process::ExitCode;

/// Output piped into a program that stops reading (`augur predict ... | head`) makes
/// `print!` fail; end quietly with the shell's broken-pipe status instead of a panic
/// message. Every other panic keeps the default report.
fn quiet_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.contains("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(141);
        }
        default(info);
    }));
}

/// Every command runs under the interrupt handler ([`augur_toolchain::interrupt`]):
/// Ctrl-C, SIGTERM or SIGHUP kill the children, the work unwinds (temporary directories
/// go, no output is written) and augur says `interrupted` and exits with 130.
fn main() -> ExitCode {
    quiet_broken_pipe();
    if let Err(e) = interrupt::install() {
        eprintln!("augur: warning: {e}");
    }
    let cli = cli::Cli::parse();
    let result = cli::run(cli);
    if interrupt::cancelled() {
        interrupt::announce();
        return ExitCode::from(interrupt::EXIT_STATUS);
    }
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", augur_bench::error_text(&e));
            ExitCode::from(2)
        }
    }
}
