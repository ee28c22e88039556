//! `augur bench overhead`: run time of the instrumented program over the plain
//! one, same compiler and flags, for each corpus program, and the median.

use crate::corpus;
use anyhow::{Context, Result};
use augur_toolchain::{self as toolchain, BuildInput, RunSpec, Toolchain};
use std::path::Path;
use std::time::Duration;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// Runs the benchmark and prints its table.
pub fn run(manifest: &Path, fc: &str, fflags: &str, runs: usize, only: &[String]) -> Result<()> {
    let (root, programs) = corpus::load(manifest, only)?;
    let tc = Toolchain::detect(fc, fflags)?;
    tc.check_flags()?;
    println!(
        "augur instrumentation overhead ({} {}; median of {} runs each; ratio = instrumented / plain)",
        tc.fc,
        tc.fflags.join(" "),
        runs
    );
    println!(
        "{:<14} {:>10} {:>14} {:>8} {:>9}",
        "program", "plain s", "instrumented s", "ratio", "counters"
    );
    let mut ratios = vec![];
    let cwd = std::env::current_dir()?;
    for p in &programs {
        let (fortran, c_sources) = p.sources(&root);
        let work = augur_toolchain::interrupt::temp_dir("augur-overhead-")?;
        // Plain build with the same flags.
        let input = BuildInput {
            fortran: fortran.clone(),
            extra_fflags: p.preprocessing_flags(&root),
            c_sources: c_sources.clone(),
            objects: vec![],
            link_args: vec![],
        };
        let exe = toolchain::build(&tc, &input, work.path(), "plain")
            .with_context(|| format!("{}: plain build failed", p.name))?;
        let spec = RunSpec {
            args: p.args.clone(),
            stdin: p.stdin_path(&root),
            timeout: Duration::from_secs(300),
            env: vec![],
            cwd: cwd.clone(),
            capture: true,
            fixed_addresses: false,
        };
        let keep = work.path().join("instrumented");
        let (_, mut opts) = p.analyze_options(&root, &tc)?;
        opts.keep_build = Some(keep.clone());
        let analysis = augur_program::analyze(&fortran, &opts)
            .map_err(|e| anyhow::anyhow!("{}: {e}", p.name))?;
        let inst_exe = keep.join("augur_instrumented");
        let mut plain_t = vec![];
        let mut inst_t = vec![];
        // Interleave the runs so that machine noise hits both alike.
        for _ in 0..runs {
            let a = toolchain::run(&exe, &spec)?;
            let mut s2 = spec.clone();
            s2.env.push((
                "AUGUR_COUNTS_FILE".into(),
                keep.join("bench-counts.txt").display().to_string(),
            ));
            let b = toolchain::run(&inst_exe, &s2)?;
            if !a.success() || !b.success() {
                anyhow::bail!(
                    "{}: a timed run failed ({} / {})",
                    p.name,
                    a.describe(),
                    b.describe()
                );
            }
            if a.stdout != b.stdout {
                anyhow::bail!(
                    "{}: the instrumented program printed something else than the plain one",
                    p.name
                );
            }
            plain_t.push(a.wall.as_secs_f64());
            inst_t.push(b.wall.as_secs_f64());
        }
        let (pm, im) = (median(&mut plain_t), median(&mut inst_t));
        let ratio = im / pm;
        ratios.push(ratio);
        println!(
            "{:<14} {:>10.3} {:>14.3} {:>8.3} {:>9}",
            p.name, pm, im, ratio, analysis.profile.run.counters
        );
    }
    let mut r = ratios.clone();
    let med = median(&mut r);
    let max = ratios.iter().cloned().fold(f64::NAN, f64::max);
    println!(
        "median ratio {:.3} over {} programs (max {:.3}); target: at most 1.05",
        med,
        ratios.len(),
        max
    );
    Ok(())
}

/// One kept program's analysis cost against its plain run.
struct Cost {
    name: String,
    /// The plain build's median wall-clock time, s.
    plain: f64,
    /// The counting run's wall-clock time, s.
    counting: f64,
    /// The locality analysis after the run, s.
    locality: f64,
    /// Executions of the address probes (references the locality analysis samples).
    probe_executions: u64,
}

/// Prints where the analysis of the programs kept in `dir` (`augur bench accuracy --save`:
/// `NAME.profile.json` with `NAME.timing.json`) spent its time against each program's
/// plain run: the counting run, the locality analysis, and the address probes' executions
/// with the counting run's excess per execution, which says what the probes cost.
pub fn kept(dir: &Path) -> Result<()> {
    let mut rows = vec![];
    for t in augur_validate::kept::KeptTiming::read_dir(dir)? {
        let path = dir.join(format!("{}.profile.json", t.program));
        let p = augur_program_profile::ProgramProfile::read(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let loc = p.locality.as_ref();
        let mut wall = if t.wall.is_empty() {
            t.runs.clone()
        } else {
            t.wall.clone()
        };
        rows.push(Cost {
            name: t.program.clone(),
            plain: median(&mut wall),
            counting: p.run.wall_seconds,
            locality: loc.map_or(0.0, |l| l.seconds),
            probe_executions: loc
                .and_then(|l| l.address_sampling.as_ref())
                .map_or(0, |a| a.executions),
        });
    }
    if rows.is_empty() {
        anyhow::bail!(
            "no kept runs in {} (NAME.timing.json beside NAME.profile.json: `augur bench accuracy --save DIR` keeps them)",
            dir.display()
        );
    }
    print_costs(dir, &rows);
    Ok(())
}

fn print_costs(dir: &Path, rows: &[Cost]) {
    println!(
        "augur analysis cost of the programs kept in {} (ratios to the plain run's median wall clock)",
        dir.display()
    );
    println!(
        "{:<24} {:>8} {:>9} {:>6} {:>9} {:>6} {:>12} {:>12}",
        "program", "plain s", "counting", "x", "locality", "x", "probe execs", "ns/probe"
    );
    for r in rows {
        let per_probe = if r.probe_executions >= 1_000_000 {
            format!(
                "{:.2}",
                (r.counting - r.plain) * 1e9 / r.probe_executions as f64
            )
        } else {
            "-".to_string()
        };
        println!(
            "{:<24} {:>8.3} {:>9.3} {:>6.2} {:>9.3} {:>6.2} {:>12.3e} {:>12}",
            r.name,
            r.plain,
            r.counting,
            r.counting / r.plain,
            r.locality,
            r.locality / r.plain,
            r.probe_executions as f64,
            per_probe
        );
    }
    let mut counting: Vec<f64> = rows.iter().map(|r| r.counting / r.plain).collect();
    let mut locality: Vec<f64> = rows.iter().map(|r| r.locality / r.plain).collect();
    let within = counting.iter().filter(|&&x| x <= 1.2).count();
    let small = locality.iter().filter(|&&x| x <= 0.5).count();
    println!(
        "\ncounting run: median {:.2}x the plain run, {within} of {} within 1.2x; locality analysis: median {:.2}x, {small} of {} within 0.5x",
        median(&mut counting),
        rows.len(),
        median(&mut locality),
        rows.len()
    );
}
