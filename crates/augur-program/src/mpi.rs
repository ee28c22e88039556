//! MPI programs (`augur analyze --mpi-ranks P,...`): the counting build is made with the
//! MPI wrapper compiler and a tracer (`mpitrace.c`, Open MPI's Fortran profiling
//! interface) and run under `mpirun -np P`; each rank writes, at every MPI call, the
//! block counters' change since its previous call (a compute segment) and the call.
//!
//! Interception is by the profiling interface rather than source rewriting: it sees the
//! calls made from libraries and through `use mpi` interfaces alike, and records what the
//! library is told at run time (the datatype's size, the world rank of a peer in a split
//! communicator) that the source does not say. Repeated patterns of steps (a time loop's
//! halo exchange) are stored once with their repeat count ([`compress`]). The source
//! rewriting only numbers the call sites (`instrument::sites`): each event names the CALL
//! that made it. A receive posted with MPI_ANY_SOURCE or MPI_ANY_TAG gets the source and
//! tag it matched, so that the replay has concrete peers ([`parse`]).

use crate::analyze::{AnalyzeError, AnalyzeOptions};
use crate::instrument::{self, Plan};
use augur_ir::Program;
use augur_program_profile::mpi::{Event, MpiProfile, MpiRun, RankTrace, Record, Site, Step};
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

/// The options of an MPI analysis's front end: the MPI library's include directories
/// (`mpicc --showme:incdirs` and `mpif90 --showme:incdirs`, Open MPI's wrappers) added
/// after the user's, so that `INCLUDE 'mpif.h'` is found as the wrapper compiler finds it.
/// A wrapper that does not answer adds nothing (the INCLUDE's error then says what to
/// pass with -I).
pub fn mpi_front_end(opts: &AnalyzeOptions) -> AnalyzeOptions {
    let mut o = opts.clone();
    for wrapper in ["mpicc", "mpif90"] {
        for dir in wrapper_include_dirs(wrapper) {
            if !o.front.load.include_dirs.contains(&dir) {
                o.front.load.include_dirs.push(dir);
            }
        }
    }
    o
}

/// The include directories an Open MPI wrapper compiler passes (none if it is missing
/// or does not answer).
fn wrapper_include_dirs(wrapper: &str) -> Vec<PathBuf> {
    let Some(exe) = find_on_path(wrapper) else {
        return vec![];
    };
    let mut spec = RunSpec::new(".", std::time::Duration::from_secs(30));
    spec.args = vec!["--showme:incdirs".into()];
    match toolchain::run(&exe, &spec) {
        Ok(run) if run.success() => String::from_utf8_lossy(&run.stdout)
            .split_whitespace()
            .map(PathBuf::from)
            .filter(|d| d.is_dir())
            .collect(),
        _ => vec![],
    }
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
                    "rank {rank} of {p} wrote no MPI trace ({}: {e}): does the program call MPI_Init and MPI_Finalize through Open MPI's Fortran bindings (`mpif.h`, `use mpi` or `use mpi_f08`)?",
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
        let calls = steps
            .iter()
            .filter(|s| s.1.event.is_call())
            .map(|s| s.0)
            .sum();
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
        let mut event = raw.event.clone();
        event.site = self.site(raw.site);
        Step { segment, event }
    }

    /// The file and line of call site `n` (from 1).
    fn site(&self, n: u32) -> Option<Site> {
        let (file, line) = instrument::site_of(self.plan, n)?;
        let file = self.program.files.files.get(file.0 as usize)?;
        Some(Site {
            file: file.path.display().to_string(),
            line,
        })
    }
}

/// A step as the tracer wrote it: counter changes and the call.
#[derive(Debug, Clone, PartialEq)]
pub struct RawStep {
    /// `(counter index, change)`.
    pub counters: Vec<(usize, i64)>,
    /// The call (without its site).
    pub event: Event,
    /// The call site's number ([`Plan::mpi_sites`], from 1; 0: unknown).
    pub site: u32,
    /// Wildcard receives this wait or test completed: `(request, source, tag)` matched.
    pub matched: Vec<(i64, i32, i32)>,
}

/// Reads a rank's trace: its steps with the tracer's repeat counts, each receive posted
/// with MPI_ANY_SOURCE or MPI_ANY_TAG given the source and tag it matched.
pub fn parse(text: &str) -> Result<Vec<(u64, RawStep)>, String> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, l)) if l.starts_with("augur-mpi-trace 2 ") => {}
        _ => return Err("not an augur MPI trace (no `augur-mpi-trace 2` header)".into()),
    }
    let mut out = vec![];
    loop {
        let Some((no, line)) = lines.next() else {
            return Err("the trace ends before `end`: the rank did not reach MPI_Finalize".into());
        };
        if line == "end" {
            resolve_wildcards(&mut out);
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
        let counters = parse_segment(seg).ok_or_else(bad)?;
        let step = parse_event(ev, counters)
            .ok_or_else(|| format!("line {}: malformed `{ev}`", eno + 1))?;
        out.push((repeat, step));
    }
}

/// `S i:d ...`: counter changes.
fn parse_segment(seg: &str) -> Option<Vec<(usize, i64)>> {
    seg.strip_prefix('S')?
        .split_whitespace()
        .map(|w| {
            let (i, d) = w.split_once(':')?;
            Some((i.parse().ok()?, d.parse().ok()?))
        })
        .collect()
}

/// `E OP PEER TAG BYTES BYTES2 COMM REQUEST SITE [WORDS]`.
fn parse_event(line: &str, counters: Vec<(usize, i64)>) -> Option<RawStep> {
    let w: Vec<&str> = line.strip_prefix("E ")?.split_whitespace().collect();
    let (&[op, peer, tag, bytes, bytes2, comm, request, site], words) = w.split_first_chunk()?;
    let mut step = RawStep {
        counters,
        event: Event {
            peer: peer.parse().ok()?,
            tag: tag.parse().ok()?,
            bytes: bytes.parse().ok()?,
            bytes2: bytes2.parse().ok()?,
            comm: comm.parse().ok()?,
            request: request.parse().ok()?,
            ..Event::new(op)
        },
        site: site.parse().ok()?,
        matched: vec![],
    };
    for word in words {
        add_word(&mut step, word)?;
    }
    Some(step)
}

/// One `KEY=VALUE` word after an event's columns.
fn add_word(step: &mut RawStep, word: &str) -> Option<()> {
    let (key, value) = word.split_once('=')?;
    let list = |v: &str| -> Option<Vec<i64>> { v.split(',').map(|x| x.parse().ok()).collect() };
    let e = &mut step.event;
    match key {
        "m" => {
            e.members = value
                .split(',')
                .map(|x| x.parse().ok())
                .collect::<Option<_>>()?
        }
        "c" => e.counts = list(value)?,
        "d" => e.completed = list(value)?,
        "t" => e.recv_tag = Some(value.parse().ok()?),
        "w" => {
            let v = list(&value.replace(':', ","))?;
            let &[req, src, tag] = &v[..] else {
                return None;
            };
            step.matched
                .push((req, i32::try_from(src).ok()?, i32::try_from(tag).ok()?));
        }
        _ => return None,
    }
    Some(())
}

/// Gives each receive posted with MPI_ANY_SOURCE or MPI_ANY_TAG (`irecv` with peer or
/// tag -1) the source and tag the wait or test that completed it recorded, so that the
/// replay has concrete peers; the records of the matches are then dropped.
fn resolve_wildcards(steps: &mut [(u64, RawStep)]) {
    let mut posted: std::collections::HashMap<i64, usize> = Default::default();
    for i in 0..steps.len() {
        let e = &steps[i].1.event;
        if e.op == "irecv" && (e.peer == -1 || e.tag == -1) {
            posted.insert(e.request, i);
        }
        for (req, src, tag) in std::mem::take(&mut steps[i].1.matched) {
            if let Some(k) = posted.remove(&req) {
                let e = &mut steps[k].1.event;
                if e.peer == -1 {
                    e.peer = src;
                }
                if e.tag == -1 {
                    e.tag = tag;
                }
            }
        }
    }
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
        let text = "augur-mpi-trace 2 0 2\nR 1\nS\nE init -1 -1 0 0 0 -1 0\nR 3\nS 0:50 2:1\n\
                    E send 1 7 800 -1 0 -1 4\nend\n";
        let steps = parse(text).unwrap();
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[1].0, 3);
        assert_eq!(steps[1].1.counters, vec![(0, 50), (2, 1)]);
        assert_eq!(steps[1].1.event.op, "send");
        assert_eq!(steps[1].1.event.bytes, 800);
        assert_eq!(steps[1].1.site, 4);
        let cut = parse("augur-mpi-trace 2 0 2\nR 1\nS\nE init -1 -1 0 0 0 -1 0\n").unwrap_err();
        assert!(cut.contains("MPI_Finalize"), "{cut}");
        let bad = parse("augur-mpi-trace 2 0 2\nR x\n").unwrap_err();
        assert!(bad.contains("line 2"), "{bad}");
        // A word the reader does not know, and an event short of its columns.
        for ev in [
            "E wait -1 -1 0 -1 0 5 0 q=1",
            "E wait -1 -1 0 -1 0 5",
            "E gatherv 0 -1 8 24 0 -1 0 c=8,x",
        ] {
            let text = format!("augur-mpi-trace 2 0 2\nR 1\nS\n{ev}\nend\n");
            let e = parse(&text).unwrap_err();
            assert!(e.contains("line 4") && e.contains(ev), "{e}");
        }
    }

    #[test]
    fn words_give_counts_members_completions_and_tags() {
        let text = "augur-mpi-trace 2 0 3\nR 1\nS\nE comm_split -1 -1 0 -1 0 3 2 m=0,2\n\
                    R 1\nS\nE gatherv 0 -1 8 24 3 -1 3 c=8,16\n\
                    R 1\nS\nE waitall -1 -1 2 -1 0 -1 4 d=5,6\n\
                    R 1\nS\nE sendrecv 1 3 8 8 0 2 5 t=9\nend\n";
        let s = parse(text).unwrap();
        assert_eq!(s[0].1.event.members, vec![0, 2]);
        assert_eq!(s[0].1.event.request, 3);
        assert_eq!(s[1].1.event.counts, vec![8, 16]);
        assert_eq!(s[2].1.event.completed, vec![5, 6]);
        assert_eq!(s[3].1.event.recv_tag, Some(9));
        assert_eq!(s[3].1.event.request, 2);
    }

    #[test]
    fn wildcard_receives_get_the_source_and_tag_they_matched() {
        // Request 7 posted with MPI_ANY_SOURCE and MPI_ANY_TAG, request 8 with a source
        // and MPI_ANY_TAG; a waitany completes 8 (from 2, tag 5), a wait completes 7.
        let text = "augur-mpi-trace 2 0 3\n\
                    R 1\nS\nE irecv -1 -1 80 -1 0 7 1\n\
                    R 1\nS\nE irecv 2 -1 80 -1 0 8 2\n\
                    R 1\nS\nE waitany -1 -1 2 -1 0 -1 3 d=8 w=8:2:5\n\
                    R 1\nS\nE wait -1 -1 0 -1 0 7 4 w=7:1:4\nend\n";
        let s = parse(text).unwrap();
        let e = |i: usize| (s[i].1.event.peer, s[i].1.event.tag);
        assert_eq!((e(0), e(1)), ((1, 4), (2, 5)));
        assert!(s.iter().all(|x| x.1.matched.is_empty()));
        assert_eq!(s[2].1.event.completed, vec![8]);
        // A wildcard receive never completed keeps -1 (the replay then matches any).
        let text = "augur-mpi-trace 2 0 2\nR 1\nS\nE irecv -1 -1 80 -1 0 7 1\nend\n";
        assert_eq!(parse(text).unwrap()[0].1.event.peer, -1);
    }
}
