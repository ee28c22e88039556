//! `augur completions SHELL` and `augur man [-o DIR]`: shell completion scripts and man
//! pages, both generated from the clap definition of the commands ([`crate::cli::Cli`]),
//! so they never drift from `--help`.

use anyhow::{anyhow, Result};
use clap::CommandFactory;
use clap_complete::Shell;
use std::path::Path;
use std::process::ExitCode;

/// Prints the completion script of `shell` for every command and option to standard output.
pub fn completions(shell: Shell) -> Result<ExitCode> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut crate::cli::Cli::command(), "augur", &mut script);
    // print! rather than a write: a closed pipe ends quietly (main's panic hook).
    print!("{}", String::from_utf8_lossy(&script));
    Ok(ExitCode::SUCCESS)
}

/// With `dir`, writes one man page per command and subcommand (`augur.1`,
/// `augur-predict.1`, `augur-compare-machines.1`, ...) into it, creating it if missing;
/// without, prints the top-level page to standard output.
pub fn man(dir: Option<&Path>) -> Result<ExitCode> {
    let cmd = crate::cli::Cli::command();
    let Some(dir) = dir else {
        let mut page = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut page)?;
        print!("{}", String::from_utf8_lossy(&page));
        return Ok(ExitCode::SUCCESS);
    };
    std::fs::create_dir_all(dir)
        .and_then(|()| clap_mangen::generate_to(cmd, dir))
        .map_err(|e| {
            anyhow!(
                "cannot write the man pages into {}: {e}; give -o a directory you can write to",
                dir.display()
            )
        })?;
    eprintln!("wrote the man pages into {}", dir.display());
    Ok(ExitCode::SUCCESS)
}
