//! `augur bench counts`: augur's block counts against gcov's line counts (being written).

use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;

/// Runs the comparison over the corpus and prints the table.
pub fn run(manifest: &Path, only: &[String]) -> Result<ExitCode> {
    let _ = (manifest, only);
    anyhow::bail!("not implemented yet")
}
