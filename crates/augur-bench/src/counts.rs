//! `augur bench counts`: augur's block counts against gcov's line counts.
//!
//! For every corpus program, `augur analyze` at `-O0` with gfortran gives μ for every
//! block; the original sources built with `--coverage -O0` and run once give gcov's line
//! counts. Where a line means the same thing to both (see
//! [`augur_program::gcov::compare`]) the two must be equal.

use crate::corpus;
use crate::Verdict;
use anyhow::{Context, Result};
use augur_program::gcov::{self, Exclusion, Mismatch};
use augur_program::AnalyzeOptions;
use augur_toolchain::{RunSpec, Toolchain};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// Mismatches printed per program.
const SHOWN: usize = 5;

/// Runs the comparison over the corpus and prints the table; [`Verdict::Failed`] when
/// some line count differs.
pub fn run(manifest: &Path, only: &[String]) -> Result<Verdict> {
    let (root, programs) = corpus::load(manifest, only)?;
    if programs.is_empty() {
        anyhow::bail!("no corpus program matches {}", only.join(", "));
    }
    let tc = Toolchain::detect("gfortran", "-O0")?;
    tc.check_flags()?;
    let cwd = std::env::current_dir()?;
    println!(
        "augur block counts against gcov line counts ({}, -O0)",
        tc.version
    );
    println!(
        "{:<14} | {:>14} | {:>10} | {:>16}",
        "program", "lines compared", "mismatches", "output identical"
    );
    let (mut total_compared, mut total_mismatches, mut same_output) = (0usize, 0usize, 0usize);
    let mut shown: Vec<(String, Vec<Mismatch>)> = vec![];
    let mut excluded: BTreeMap<Exclusion, usize> = BTreeMap::new();
    for p in &programs {
        let (fortran, c_sources) = p.sources(&root);
        let opts = AnalyzeOptions {
            front: p.front_end(&root),
            toolchain: tc.clone(),
            c_sources: c_sources.clone(),
            objects: vec![],
            link_args: vec![],
            args: p.args.clone(),
            stdin: p.stdin_path(&root),
            timeout: Duration::from_secs(600),
            cwd: cwd.clone(),
            keep_partial: false,
            keep_build: None,
            branch_run: false,
            optimization_report: true,
            threads: vec![],
            mpi_ranks: vec![],
        };
        let analysis = augur_program::analyze(&fortran, &opts)
            .map_err(|e| anyhow::anyhow!("{}: augur analyze failed: {e}", p.name))?;
        let mut gtc = tc.clone();
        gtc.fflags.extend(gcov::front_end_flags(&opts.front));
        let spec = RunSpec {
            args: p.args.clone(),
            stdin: p.stdin_path(&root),
            timeout: Duration::from_secs(600),
            env: vec![],
            cwd: cwd.clone(),
            capture: true,
            fixed_addresses: false,
        };
        let counts = gcov::gcov_line_counts(&gtc, &fortran, &c_sources, &spec)
            .with_context(|| format!("{}: gcov counts", p.name))?;
        let check = gcov::compare(&analysis.program, &analysis.profile, &counts);
        let identical = analysis.run.stdout == counts.stdout;
        for (r, n) in &check.excluded {
            *excluded.entry(*r).or_insert(0) += n;
        }
        total_compared += check.compared;
        total_mismatches += check.mismatches.len();
        same_output += usize::from(identical);
        println!(
            "{:<14} | {:>14} | {:>10} | {:>16}",
            p.name,
            check.compared,
            check.mismatches.len(),
            if identical { "yes" } else { "NO" }
        );
        if !check.mismatches.is_empty() {
            shown.push((p.name.clone(), check.mismatches));
        }
    }
    println!(
        "total: {} programs, {} lines compared, {} mismatches, output identical in {}/{}",
        programs.len(),
        total_compared,
        total_mismatches,
        same_output,
        programs.len()
    );
    let left_out: Vec<String> = excluded
        .iter()
        .map(|(r, n)| format!("{n} {}", r.describe()))
        .collect();
    if !left_out.is_empty() {
        println!("not compared: {}", left_out.join("; "));
    }
    for (name, ms) in &shown {
        println!("{name}: {} mismatch(es)", ms.len());
        for m in ms.iter().take(SHOWN) {
            println!(
                "  {}:{}: augur {} gcov {} ({})",
                m.file, m.line, m.augur, m.gcov, m.what
            );
        }
    }
    Ok(if total_mismatches > 0 {
        Verdict::Failed
    } else {
        Verdict::Passed
    })
}
