//! `augur characterize` and `augur diff`: measure a machine profile, compare two.

use anyhow::{bail, Context, Result};
use augur_machine::experiments;
use augur_machine::harness::{Progress, Settings};
use augur_machine::profile::{MEASURED, NOT_DETECTED};
use augur_machine::stats::median;
use augur_machine::MachineProfile;
use augur_program::toolchain::Toolchain;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

/// Progress lines on stderr with an estimate of the time left.
struct Lines {
    start: Instant,
}

impl Progress for Lines {
    fn update(&mut self, done: usize, total: usize) {
        let el = self.start.elapsed().as_secs_f64();
        let eta = if done > 0 {
            el / done as f64 * (total - done) as f64
        } else {
            0.0
        };
        eprintln!(
            "characterize: {done}/{total} experiments, {el:.0} s elapsed, about {eta:.0} s left"
        );
    }
    fn note(&mut self, msg: &str) {
        eprintln!("characterize: {msg}");
    }
}

/// Runs `augur characterize`.
pub fn characterize(
    fc: &str,
    fflags: &str,
    quick: bool,
    only: &[String],
    output: &Path,
) -> Result<ExitCode> {
    let start = Instant::now();
    let tc = Toolchain::detect(fc, fflags)?;
    tc.check_flags()?;
    let all = experiments::catalogue();
    let exps = if only.is_empty() {
        all
    } else {
        match experiments::select(&all, only) {
            Ok(e) => e,
            Err(bad) => bail!(
                "no experiment for {} (see `augur abops`; the profile lists what is not yet measured)",
                bad.join(", ")
            ),
        }
    };
    let (settings, mode) = if quick {
        (Settings::QUICK, "quick")
    } else {
        (Settings::DEFAULT, "default")
    };
    eprintln!(
        "characterize: {} experiments with {} {} ({mode} mode: {} observations of {} ms)",
        exps.len(),
        tc.fc,
        tc.fflags.join(" "),
        settings.reps,
        settings.window_ns / 1_000_000
    );
    let mut progress = Lines { start };
    let profile = augur_machine::characterize(&tc, &exps, settings, mode, &mut progress)
        .map_err(anyhow::Error::msg)?;
    profile
        .write(output)
        .with_context(|| format!("cannot write the machine profile {}", output.display()))?;
    println!(
        "{:<5} {:>12} {:>10} {:>7}  status",
        "AbOp", "mean ns", "±90% ns", "±%"
    );
    let (mut measured, mut not_detected, mut failed) = (0, 0, 0);
    for e in &exps {
        let entry = &profile.abop[&e.abop];
        match entry.status.as_str() {
            MEASURED => measured += 1,
            NOT_DETECTED => not_detected += 1,
            _ => failed += 1,
        }
        match (entry.mean_ns, entry.ci90_ns) {
            (Some(m), ci) => {
                let ci = ci.unwrap_or(f64::INFINITY);
                println!(
                    "{:<5} {:>12.4} {:>10.4} {:>6.1}%  {}",
                    e.abop.mnemonic(),
                    m,
                    ci,
                    100.0 * ci / m.abs(),
                    entry.status
                );
            }
            _ => println!(
                "{:<5} {:>12} {:>10} {:>7}  {}",
                e.abop.mnemonic(),
                "-",
                "-",
                "-",
                entry.status
            ),
        }
    }
    let within3 = exps
        .iter()
        .filter(|e| {
            let x = &profile.abop[&e.abop];
            x.status == MEASURED
                && matches!((x.mean_ns, x.ci90_ns), (Some(m), Some(c)) if c <= 0.03 * m)
        })
        .count();
    println!(
        "{measured} measured ({within3} with a 90% half-width within 3% of the mean), {not_detected} not detected, {failed} failed; {:.1} s; profile written to {}",
        start.elapsed().as_secs_f64(),
        output.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Runs `augur diff A B`: per-AbOp relative difference (B - A) / A and the median of their
/// absolute values over the AbOps measured in both.
pub fn diff(a: &Path, b: &Path) -> Result<ExitCode> {
    let pa = MachineProfile::read(a)?;
    let pb = MachineProfile::read(b)?;
    println!(
        "A: {} ({} {}, {})",
        a.display(),
        pa.provenance.compiler,
        pa.provenance.fflags,
        pa.provenance.date
    );
    println!(
        "B: {} ({} {}, {})",
        b.display(),
        pb.provenance.compiler,
        pb.provenance.fflags,
        pb.provenance.date
    );
    println!("{:<5} {:>12} {:>12} {:>9}", "AbOp", "A ns", "B ns", "B/A-1");
    let mut rel = Vec::new();
    for (op, ea) in &pa.abop {
        let Some(eb) = pb.abop.get(op) else { continue };
        match (pa.measured(*op), pb.measured(*op)) {
            (Some(x), Some(y)) => {
                let r = y / x - 1.0;
                rel.push(r.abs());
                println!(
                    "{:<5} {:>12.4} {:>12.4} {:>8.1}%",
                    op.mnemonic(),
                    x,
                    y,
                    100.0 * r
                );
            }
            _ if ea.status != eb.status => {
                println!(
                    "{:<5} {:>12} {:>12}  status: {} -> {}",
                    op.mnemonic(),
                    "",
                    "",
                    ea.status,
                    eb.status
                )
            }
            _ => {}
        }
    }
    if rel.is_empty() {
        println!("no AbOp is measured in both profiles");
    } else {
        println!(
            "median |B/A-1| over {} AbOps measured in both: {:.2}%",
            rel.len(),
            100.0 * median(&rel)
        );
    }
    Ok(ExitCode::SUCCESS)
}
