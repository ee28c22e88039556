//! MPI programs (`augur analyze --mpi-ranks P,...`): the counting build is made with the
//! MPI wrapper compiler and a tracer (`mpitrace.c`, Open MPI's Fortran profiling
//! interface) and run under `mpirun -np P`; each rank writes, at every MPI call, the
//! block counters' change since its previous call (a compute segment) and the call.
//!
//! Interception is by the profiling interface rather than source rewriting: it sees the
//! calls made from libraries and through `use mpi` interfaces alike, and records what the
//! library is told at run time (the datatype's size, the world rank of a peer in a split
//! communicator) that the source does not say. Repeated patterns of steps (a time loop's
//! halo exchange) are stored once with their repeat count ([`compress`]).

use crate::analyze::{AnalyzeError, AnalyzeOptions};
use crate::instrument::{self, Plan};
use augur_ir::Program;
use augur_program_profile::mpi::{Event, MpiProfile, MpiRun, RankTrace, Record, Step};
use augur_toolchain::{self as toolchain, find_on_path, RunSpec, Toolchain};
use std::path::{Path, PathBuf};

const TRACER_C: &str = include_str!("mpitrace.c");

/// The longest pattern of steps [`compress`] looks for.
const LONGEST_PATTERN: usize = 16;

/// The options of an MPI analysis: the MPI wrapper compilers (`mpif90`, `mpicc`) and
/// the tracer, written into `work`, among the C sources.
pub fn mpi_options(opts: &AnalyzeOptions, work: &Path) -> Result<AnalyzeOptions, AnalyzeError> {
    let missing = |tool: &str| {
        AnalyzeError::Io(format!(
            "{tool} was not found on PATH: an MPI analysis builds with the MPI wrapper compilers; install Open MPI (Debian: apt-get install openmpi-bin libopenmpi-dev)"
        ))
    };
    let mpif90 = find_on_path("mpif90").ok_or_else(|| missing("mpif90"))?;
    let mpicc = find_on_path("mpicc").ok_or_else(|| missing("mpicc"))?;
    find_on_path("mpirun").ok_or_else(|| missing("mpirun"))?;
    let mut o = opts.clone();
    o.toolchain = Toolchain::detect(
        &mpif90.display().to_string(),
        &opts.toolchain.fflags.join(" "),
    )
    .map_err(|e| AnalyzeError::Io(e.to_string()))?;
    o.toolchain.cc = mpicc.display().to_string();
    let tracer = work.join("augur_mpitrace.c");
    std::fs::write(&tracer, TRACER_C)
        .map_err(|e| AnalyzeError::Io(format!("cannot write {}: {e}", tracer.display())))?;
    o.c_sources.push(tracer);
    Ok(o)
}

/// `spec` run as `mpirun -np ranks EXE ARGS...` (as root with `--allow-run-as-root`;
/// `--oversubscribe`: counts do not depend on timing, so ranks may exceed the cores).
pub fn under_mpirun(
    exe: &Path,
    ranks: u32,
    mut spec: RunSpec,
) -> Result<(PathBuf, RunSpec), AnalyzeError> {
    let mpirun = find_on_path("mpirun")
        .ok_or_else(|| AnalyzeError::Io("mpirun was not found on PATH: install Open MPI (Debian: apt-get install openmpi-bin libopenmpi-dev)".into()))?;
    spec.args = augur_toolchain::mpirun_args(ranks, exe, true, &spec.args);
    Ok((mpirun, spec))
}

/// The counting runs of an MPI program, one per rank count.
pub struct RankRuns<'a> {
    /// The program.
    pub program: &'a Program,
    /// Its instrumentation.
    pub plan: &'a Plan,
    /// The instrumented executable (with the tracer).
    pub exe: &'a Path,
    /// Where the runs write their traces.
    pub work: &'a Path,
}

impl RankRuns<'_> {
    /// Runs the program at each rank count of `ranks` and reads every rank's trace.
    pub fn profile(
        &self,
        ranks: &[u32],
        opts: &AnalyzeOptions,
    ) -> Result<MpiProfile, AnalyzeError> {
        let mut counts = ranks.to_vec();
        counts.sort_unstable();
        counts.dedup();
        let runs = counts
            .into_iter()
            .map(|p| self.run(p, opts))
            .collect::<Result<_, _>>()?;
        Ok(MpiProfile { runs })
    }

    fn run(&self, p: u32, opts: &AnalyzeOptions) -> Result<MpiRun, AnalyzeError> {
        let prefix = self.work.join(format!("augur-mpi-{p}ranks"));
        let spec = RunSpec {
            args: opts.args.clone(),
            stdin: opts.stdin.clone(),
            timeout: opts.timeout,
            env: vec![
                ("AUGUR_MPI_TRACE".into(), prefix.display().to_string()),
                ("AUGUR_NO_PROBES".into(), "1".into()),
                (
                    "AUGUR_COUNTS_FILE".into(),
                    self.work
                        .join(format!("augur-counts-{p}ranks.txt"))
                        .display()
                        .to_string(),
                ),
            ],
            cwd: opts.cwd.clone(),
            capture: true,
            fixed_addresses: false,
        };
        let (mpirun, spec) = under_mpirun(self.exe, p, spec)?;
        let run = toolchain::run(&mpirun, &spec)?;
        if !run.success() {
            return Err(AnalyzeError::Failed {
                how: format!("under `mpirun -np {p}` {}", run.describe()),
                run: Box::new(run),
            });
        }
        let mut traces = vec![];
        for rank in 0..p {
            let path = PathBuf::from(format!("{}.{rank}", prefix.display()));
            let text = std::fs::read_to_string(&path).map_err(|e| {
                AnalyzeError::Io(format!(
                    "rank {rank} of {p} wrote no MPI trace ({}: {e}): does the program call MPI_Init and MPI_Finalize through the Fortran bindings (`mpif.h` or `use mpi`; `use mpi_f08` is not traced yet)?",
                    path.display()
                ))
            })?;
            let steps =
                parse(&text).map_err(|e| AnalyzeError::Io(format!("{}: {e}", path.display())))?;
            traces.push(self.rank_trace(rank, &steps));
        }
        Ok(MpiRun {
            ranks: p,
            wall_seconds: run.wall.as_secs_f64(),
            traces,
        })
    }

    /// A rank's trace with its counter changes turned into block executions.
    fn rank_trace(&self, rank: u32, steps: &[(u64, RawStep)]) -> RankTrace {
        let calls = steps.iter().map(|s| s.0).sum();
        let records = compress(steps)
            .into_iter()
            .map(|(repeat, pattern)| Record {
                repeat,
                steps: pattern.iter().map(|s| self.step(s)).collect(),
            })
            .collect();
        RankTrace {
            rank,
            calls,
            records,
        }
    }

    fn step(&self, raw: &RawStep) -> Step {
        let mut counters = vec![0i64; self.plan.counters];
        for &(i, d) in &raw.counters {
            if let Some(c) = counters.get_mut(i) {
                *c = d;
            }
        }
        let blocks = instrument::block_counts(self.program, self.plan, &counters);
        let mut segment = vec![];
        for (ui, unit) in blocks.iter().enumerate() {
            for (bi, n) in unit.iter().enumerate() {
                if let Some(n) = n.filter(|&n| n != 0.0) {
                    segment.push((ui as u32, bi as u32, n));
                }
            }
        }
        Step {
            segment,
            event: raw.event.clone(),
        }
    }
}

/// A step as the tracer wrote it: counter changes and the call.
#[derive(Debug, Clone, PartialEq)]
pub struct RawStep {
    /// `(counter index, change)`.
    pub counters: Vec<(usize, i64)>,
    /// The call.
    pub event: Event,
}

/// Reads a rank's trace: its steps with the tracer's repeat counts.
pub fn parse(text: &str) -> Result<Vec<(u64, RawStep)>, String> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, l)) if l.starts_with("augur-mpi-trace 1 ") => {}
        _ => return Err("not an augur MPI trace (no `augur-mpi-trace 1` header)".into()),
    }
    let mut out = vec![];
    loop {
        let Some((no, line)) = lines.next() else {
            return Err("the trace ends before `end`: the rank did not reach MPI_Finalize".into());
        };
        if line == "end" {
            return Ok(out);
        }
        let bad = || format!("line {}: malformed `{line}`", no + 1);
        let repeat: u64 = line
            .strip_prefix("R ")
            .and_then(|r| r.trim().parse().ok())
            .ok_or_else(bad)?;
        let (Some((_, seg)), Some((eno, ev))) = (lines.next(), lines.next()) else {
            return Err(format!(
                "line {}: a record without its segment and event",
                no + 1
            ));
        };
        let counters = seg
            .strip_prefix('S')
            .ok_or_else(bad)?
            .split_whitespace()
            .map(|w| {
                let (i, d) = w.split_once(':')?;
                Some((i.parse().ok()?, d.parse().ok()?))
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(bad)?;
        let event = parse_event(ev).ok_or_else(|| format!("line {}: malformed `{ev}`", eno + 1))?;
        out.push((repeat, RawStep { counters, event }));
    }
}

fn parse_event(line: &str) -> Option<Event> {
    let w: Vec<&str> = line.strip_prefix("E ")?.split_whitespace().collect();
    let [op, peer, tag, bytes, bytes2, comm, request] = w[..] else {
        return None;
    };
    Some(Event {
        op: op.to_string(),
        peer: peer.parse().ok()?,
        tag: tag.parse().ok()?,
        bytes: bytes.parse().ok()?,
        bytes2: bytes2.parse().ok()?,
        comm: comm.parse().ok()?,
        request: request.parse().ok()?,
    })
}

/// Runs of a repeated pattern stored once: at each position, the pattern of at most
/// [`LONGEST_PATTERN`] steps whose repetitions right after it cover the most steps
/// (at least two repetitions); a step alone keeps the tracer's own repeat count.
pub fn compress<T: PartialEq + Clone>(steps: &[(u64, T)]) -> Vec<(u64, Vec<T>)> {
    let mut out = vec![];
    let mut i = 0;
    while i < steps.len() {
        let mut best = (1usize, 1usize); // (period, repetitions)
        for p in 1..=LONGEST_PATTERN.min((steps.len() - i) / 2) {
            let mut k = 1;
            while i + (k + 1) * p <= steps.len()
                && steps[i + k * p..i + (k + 1) * p] == steps[i..i + p]
            {
                k += 1;
            }
            if k >= 2 && k * p > best.0 * best.1 {
                best = (p, k);
            }
        }
        let (p, k) = best;
        if k >= 2 {
            let pattern = steps[i..i + p].iter().flat_map(expand).collect();
            out.push((k as u64, pattern));
        } else {
            out.push((steps[i].0, vec![steps[i].1.clone()]));
        }
        i += p * k;
    }
    out
}

/// A step with the tracer's repeat count as that many steps (inside a longer pattern).
fn expand<T: Clone>(s: &(u64, T)) -> Vec<T> {
    vec![s.1.clone(); s.0 as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loop_of_three_calls_is_one_record() {
        let s = |c: char| (1u64, c);
        let steps: Vec<(u64, char)> = "iabcabcabcabcf".chars().map(s).collect();
        let r = compress(&steps);
        assert_eq!(
            r,
            vec![(1, vec!['i']), (4, vec!['a', 'b', 'c']), (1, vec!['f'])]
        );
        // The tracer's own repeat count is kept for a step alone.
        assert_eq!(compress(&[(5, 'x')]), vec![(5, vec!['x'])]);
    }

    #[test]
    fn traces_are_read_and_broken_ones_named() {
        let text = "augur-mpi-trace 1 0 2\nR 1\nS\nE init -1 -1 0 0 0 -1\nR 3\nS 0:50 2:1\n\
                    E send 1 7 800 -1 0 -1\nend\n";
        let steps = parse(text).unwrap();
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[1].0, 3);
        assert_eq!(steps[1].1.counters, vec![(0, 50), (2, 1)]);
        assert_eq!(steps[1].1.event.op, "send");
        assert_eq!(steps[1].1.event.bytes, 800);
        let cut = parse("augur-mpi-trace 1 0 2\nR 1\nS\nE init -1 -1 0 0 0 -1\n").unwrap_err();
        assert!(cut.contains("MPI_Finalize"), "{cut}");
        let bad = parse("augur-mpi-trace 1 0 2\nR x\n").unwrap_err();
        assert!(bad.contains("line 2"), "{bad}");
    }
}
