//! The OpenMP side of an analysis: counting runs at several thread counts with the
//! per-thread counters of [`crate::instrument`] (see its `threads` module), and the
//! profile's [`OpenMpProfile`]: the constructs of each unit and each block's
//! executions per thread.

use crate::analyze::{AnalyzeError, AnalyzeOptions};
use crate::instrument::{self, Plan, MAX_THREADS};
use augur_ir::Program;
use augur_program_profile::openmp::{OpenMpProfile, ThreadCounts, ThreadRun, UnitConstructs};
use augur_toolchain::{self as toolchain, RunSpec};
use std::collections::BTreeMap;
use std::path::Path;

/// The compiler flag that compiles OpenMP directives.
pub const OPENMP_FLAG: &str = "-fopenmp";

/// Whether compiler flags compile OpenMP directives (`-fopenmp`, `-fopenmp=libomp`,
/// `-qopenmp`, `-mp`).
pub fn flags_enable_openmp(flags: &[String]) -> bool {
    flags.iter().any(|f| flag_enables_openmp(f))
}

/// Whether one compiler flag compiles OpenMP directives (gfortran's and flang's
/// `-fopenmp`, `-fopenmp=libomp`, Intel's `-qopenmp`, NVIDIA's `-mp`).
pub fn flag_enables_openmp(flag: &str) -> bool {
    flag == "-fopenmp" || flag.starts_with("-fopenmp=") || flag == "-qopenmp" || flag == "-mp"
}

/// The options of an OpenMP analysis: the build compiles the directives (`-fopenmp`
/// added when the flags lack it) and the front end reads the conditional lines `!$`.
pub fn openmp_options(opts: &AnalyzeOptions) -> Result<AnalyzeOptions, AnalyzeError> {
    if let Some(&p) = opts
        .threads
        .iter()
        .find(|&&p| p == 0 || p as usize > MAX_THREADS)
    {
        return Err(AnalyzeError::Run(format!(
            "cannot count with {p} threads: give thread counts from 1 to {MAX_THREADS}"
        )));
    }
    let mut o = opts.clone();
    if !flags_enable_openmp(&o.toolchain.fflags) {
        o.toolchain.fflags.push(OPENMP_FLAG.to_string());
    }
    o.front.load.openmp = true;
    Ok(o)
}

/// The constructs of every unit that has any.
pub fn constructs(program: &Program) -> Vec<UnitConstructs> {
    program
        .units
        .iter()
        .enumerate()
        .filter_map(|(ui, u)| {
            let s = augur_ir::omp::structure(u);
            (!s.is_empty()).then_some(UnitConstructs {
                unit: ui as u32,
                constructs: s.constructs,
            })
        })
        .collect()
}

/// Problems reading the directives (unpaired END, unknown directive), as notes.
pub fn directive_notes(program: &Program) -> Vec<String> {
    let mut notes = vec![];
    for u in &program.units {
        for (line, msg) in augur_ir::omp::structure(u).problems {
            notes.push(format!("{} line {line}: {msg}", u.name));
        }
    }
    notes
}

/// What the per-thread runs need.
pub struct ThreadRuns<'a> {
    /// The program.
    pub program: &'a Program,
    /// Its instrumentation (threaded).
    pub plan: &'a Plan,
    /// The executions of each block in the profile (the one-thread run).
    pub mu: &'a [Vec<Option<f64>>],
    /// The instrumented executable.
    pub exe: &'a Path,
    /// Where the runs write their counts.
    pub work: &'a Path,
}

impl ThreadRuns<'_> {
    /// Runs the instrumented program at each thread count of `opts.threads` and
    /// returns the OpenMP profile.
    pub fn profile(&self, opts: &AnalyzeOptions) -> Result<OpenMpProfile, AnalyzeError> {
        let mut threads = opts.threads.clone();
        threads.sort_unstable();
        threads.dedup();
        let mut runs = vec![];
        for p in threads {
            runs.push(self.run(p, opts)?);
        }
        Ok(OpenMpProfile {
            units: constructs(self.program),
            runs,
        })
    }

    /// One counting run with `p` threads (probes off: they keep one buffer).
    fn run(&self, p: u32, opts: &AnalyzeOptions) -> Result<ThreadRun, AnalyzeError> {
        let file = self.work.join(format!("augur-counts-{p}threads.txt"));
        let _ = std::fs::remove_file(&file);
        let mut env = vec![
            ("AUGUR_COUNTS_FILE".into(), file.display().to_string()),
            ("AUGUR_NO_PROBES".into(), "1".into()),
            ("OMP_NUM_THREADS".into(), p.to_string()),
        ];
        // Threads beyond the cores must sleep at barriers, not spin; up to the cores they
        // wait as the runtime chooses (sleeping at every barrier made a program that opens
        // a parallel region per call of a short routine, conman's coldot, run for minutes).
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        if p as usize > cores {
            env.push(("OMP_WAIT_POLICY".into(), "PASSIVE".into()));
        }
        let spec = RunSpec {
            args: opts.args.clone(),
            stdin: opts.stdin.clone(),
            timeout: opts.timeout,
            env,
            cwd: opts.cwd.clone(),
            capture: true,
            fixed_addresses: false,
        };
        let run = toolchain::run(self.exe, &spec)?;
        let rows = read_thread_counts(&file, self.plan.counters);
        let Some(rows) = rows.filter(|_| run.success()) else {
            let how = if run.success() {
                "ended without writing its counts".to_string()
            } else {
                run.describe()
            };
            return Err(AnalyzeError::Failed {
                how: format!("with OMP_NUM_THREADS={p} {how}"),
                run: Box::new(run),
            });
        };
        let workshared: &[(u32, u32)] = if opts.toolchain.is_gfortran() {
            &self.plan.workshared
        } else {
            &[]
        };
        Ok(ThreadRun {
            threads: p,
            wall_seconds: run.wall.as_secs_f64(),
            blocks: self.per_thread_blocks(p, &rows, workshared),
            task_faults: read_task_faults(&file),
        })
    }

    /// The blocks whose executions are not all the profile's count on thread 0. The
    /// elements of the `workshared` blocks (statements the compiler shares out inside a
    /// WORKSHARE, whose counter one thread runs) go to the threads in equal parts, as
    /// its static schedule gives them.
    fn per_thread_blocks(
        &self,
        p: u32,
        rows: &BTreeMap<usize, Vec<i64>>,
        workshared: &[(u32, u32)],
    ) -> Vec<ThreadCounts> {
        let zeros = vec![0i64; self.plan.counters];
        let per_thread: Vec<Vec<Vec<Option<f64>>>> = (0..p as usize)
            .map(|t| {
                let row = rows.get(&t).unwrap_or(&zeros);
                instrument::block_counts(self.program, self.plan, row)
            })
            .collect();
        let mut out = vec![];
        for (ui, blocks) in self.mu.iter().enumerate() {
            for (bi, total) in blocks.iter().enumerate() {
                let mut counts: Vec<f64> = per_thread
                    .iter()
                    .map(|t| t[ui][bi].unwrap_or(0.0).max(0.0))
                    .collect();
                if workshared.contains(&(ui as u32, bi as u32)) {
                    let all: f64 = counts.iter().sum();
                    counts.fill(all / p as f64);
                }
                let all_on_zero = counts[1..].iter().all(|&c| c == 0.0)
                    && (counts[0] - total.unwrap_or(0.0)).abs() < 0.5;
                if !all_on_zero {
                    out.push(ThreadCounts {
                        unit: ui as u32,
                        block: bi as u32,
                        counts,
                    });
                }
            }
        }
        out
    }
}

/// The minor page faults of each thread (`augur-task-faults f1 f2 ...`), largest first.
fn read_task_faults(path: &Path) -> Vec<u64> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut v: Vec<u64> = text
        .lines()
        .find_map(|l| l.strip_prefix("augur-task-faults"))
        .map(|l| {
            l.split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    v.sort_unstable_by(|a, b| b.cmp(a));
    v
}

/// The per-thread counters the runtime wrote (`augur-threads N` then `t c1 .. cN`
/// lines): thread → its counters; a file without the section gives thread 0 the totals.
fn read_thread_counts(path: &Path, expected: usize) -> Option<BTreeMap<usize, Vec<i64>>> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    let mut rows = BTreeMap::new();
    if lines.by_ref().any(|l| l.starts_with("augur-threads ")) {
        for l in lines.by_ref() {
            if l == "end" {
                return Some(rows);
            }
            let mut it = l.split_whitespace();
            let t: usize = it.next()?.parse().ok()?;
            let v: Vec<i64> = it.map(|x| x.parse().ok()).collect::<Option<_>>()?;
            if v.len() < expected {
                return None;
            }
            rows.insert(t, v[..expected].to_vec());
        }
        return None;
    }
    // One thread only: the totals are thread 0's.
    let mut lines = text.lines();
    let n: usize = lines
        .next()?
        .strip_prefix("augur-counts ")?
        .trim()
        .parse()
        .ok()?;
    let v: Vec<i64> = lines
        .take(n)
        .map(|x| x.trim().parse().ok())
        .collect::<Option<_>>()?;
    rows.insert(0, v.into_iter().take(expected).collect());
    Some(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_that_compile_openmp() {
        let f =
            |s: &[&str]| flags_enable_openmp(&s.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        assert!(f(&["-O2", "-fopenmp"]));
        assert!(f(&["-fopenmp=libomp"]));
        assert!(!f(&["-O2", "-fopenmp-simd"]));
    }

    #[test]
    fn reads_thread_rows() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.txt");
        std::fs::write(
            &p,
            "augur-counts 2\n5\n7\nend\naugur-threads 2\n0 3 4\n1 2 3\nend\naugur-shapes 0\nend\n",
        )
        .unwrap();
        let rows = read_thread_counts(&p, 2).unwrap();
        assert_eq!(rows[&0], vec![3, 4]);
        assert_eq!(rows[&1], vec![2, 3]);
        std::fs::write(&p, "augur-counts 2\n5\n7\nend\n").unwrap();
        assert_eq!(read_thread_counts(&p, 2).unwrap()[&0], vec![5, 7]);
        std::fs::write(&p, "augur-counts 2\n5\n7\nend\naugur-threads 2\n0 3\n").unwrap();
        assert!(read_thread_counts(&p, 2).is_none());
    }
}
