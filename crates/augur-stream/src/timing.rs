//! Building and timing the kernels: one program of every kernel that compiles (kernels the
//! compiler rejects are dropped and the program rebuilt, through the toolchain's shared
//! experiment harness), run in passes over chunks of kernels, and its output read into
//! nanoseconds per element iteration.

use crate::{gen, StreamError, StreamSettings};
use augur_toolchain::experiment::{
    self, leading_lines, output_lines, BuildFailure, ExperimentBuild, ProgramSources,
};
use augur_toolchain::{self as toolchain, RunResult, Toolchain};
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The executable, the indices of the kernels in it (kernel `active[j]` has program id
/// `j + 1`), those kernels renumbered so, and each one's lines in the kernel file.
pub(crate) type BuiltKernels = (PathBuf, Vec<usize>, Vec<gen::Kernel>, Vec<Range<u32>>);

/// Builds the program for the kernels, dropping kernels that do not compile (recorded in
/// `failed`); at most six builds.
pub(crate) fn build_all(
    tc: &Toolchain,
    kernels: &[gen::Kernel],
    dir: &Path,
    failed: &mut BTreeMap<usize, String>,
    progress: &mut dyn FnMut(&str),
) -> Result<BuiltKernels, StreamError> {
    // gfortran writes its vectorization report during the build itself (appended file by
    // file, the kernels' file among them), which spares a second compile of the kernels.
    let extra_fflags = if tc.is_gfortran() {
        vec![
            "-ffree-line-length-none".to_string(),
            format!("-fopt-info-vec-optimized={}", vector_report(dir).display()),
        ]
    } else {
        vec![]
    };
    // A kept build directory may hold an earlier run's report.
    let _ = std::fs::remove_file(vector_report(dir));
    let build = ExperimentBuild {
        extra_fflags,
        ..ExperimentBuild::new(tc, dir, "augstream")
    };
    let mut generate = |active: &[usize]| {
        // Renumber the active kernels 1..: the program ids.
        let act: Vec<gen::Kernel> = active
            .iter()
            .enumerate()
            .map(|(j, &i)| {
                let mut k = kernels[i].clone();
                renumber(&mut k, j + 1);
                k
            })
            .collect();
        (program_sources(gen::program(&act)), act)
    };
    let mut dropped = |i: usize, message: &str| {
        progress(&format!(
            "stream: {} does not compile: {message}",
            kernels[i].name()
        ));
        failed.insert(i, format!("does not compile: {message}"));
    };
    match build.build_dropping(kernels.len(), 6, &mut generate, &mut dropped) {
        Ok(b) => Ok((b.exe, b.active, b.generated, b.sources.lines)),
        Err(BuildFailure::Unblamed { stderr }) => Err(StreamError::Build(first_lines(&stderr))),
        Err(BuildFailure::NoneCompiles) => {
            Err(StreamError::Build("no kernel compiles".to_string()))
        }
        Err(BuildFailure::Attempts(_)) => Err(StreamError::Build(
            "kernels kept failing to compile after six attempts".to_string(),
        )),
        Err(BuildFailure::Build(toolchain::BuildError::Io { what, source }))
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            Err(StreamError::NoCompiler(format!("{what}: {source}")))
        }
        Err(BuildFailure::Build(e)) => Err(StreamError::Build(e.to_string())),
        Err(e @ BuildFailure::Write { .. }) => Err(StreamError::Io(e.to_string())),
        Err(e @ BuildFailure::Cancelled) => Err(StreamError::Run(e.to_string())),
    }
}

/// Where gfortran writes the build's vectorization report (an absolute path, since the
/// compiler runs in the build directory).
pub(crate) fn vector_report(dir: &Path) -> std::path::PathBuf {
    std::path::absolute(dir.join("vectorized.txt")).unwrap_or_else(|_| dir.join("vectorized.txt"))
}

/// The files of the timing program, in compile order; the kernels' file holds the
/// experiments.
fn program_sources(src: gen::Sources) -> ProgramSources {
    ProgramSources {
        files: vec![
            ("augsup.f90", src.support),
            ("augkern.f90", src.kernels),
            ("augmain.f90", src.main),
        ],
        experiments_file: 1,
        lines: src.lines,
    }
}

/// Gives a kernel program id `id` (its subroutine name and comment follow).
fn renumber(k: &mut gen::Kernel, id: usize) {
    let old = k.id;
    if old == id {
        return;
    }
    k.source = k
        .source
        .replace(&format!("aug_k{old}("), &format!("aug_k{id}("))
        .replace(
            &format!("end subroutine aug_k{old}\n"),
            &format!("end subroutine aug_k{id}\n"),
        )
        .replacen(&format!("! kernel {old}:"), &format!("! kernel {id}:"), 1);
    k.id = id;
}

/// The compiler's first message in what it printed, or its first five lines.
fn first_lines(s: &str) -> String {
    let msgs = toolchain::parse_compiler_messages(s);
    if let Some(m) = msgs.first() {
        return format!(
            "{}:{}: {}: {}",
            m.file.display(),
            m.line,
            m.severity,
            m.message
        );
    }
    leading_lines(s, 5)
}

/// What the timing program printed.
#[derive(Debug, Default)]
struct Output {
    rate: Option<u64>,
    bad: Vec<usize>,
    gone: Vec<usize>,
    /// (id, reps, counts)
    obs: Vec<(usize, u64, i64)>,
}

fn parse_output(text: &str) -> Output {
    let mut out = Output::default();
    for line in output_lines(text) {
        match line.words.as_slice() {
            ["AUGRATE", r] => out.rate = r.parse().ok(),
            ["AUGBAD", id] => out.bad.extend(id.parse::<usize>().ok()),
            ["AUGGONE", id] => out.gone.extend(id.parse::<usize>().ok()),
            ["AUGK", id, _k, reps, t] => {
                if let (Ok(id), Ok(reps), Ok(t)) = (id.parse(), reps.parse(), t.parse()) {
                    out.obs.push((id, reps, t));
                }
            }
            _ => {}
        }
    }
    out
}

/// Times the kernels `active` (kernel `active[j]` is the program's kernel `j + 1`) not in
/// `failed`: up to `observations` passes over them, one observation each, a chunk of
/// kernels per run, so a kernel's observations are spread over the whole measurement and
/// a busy spell of other processes touches few of them; from `min_observations` on, a
/// pass leaves out the kernels whose estimate is [`crate::settled`]. Returns each timed kernel's
/// observations (ns per element iteration); kernels that gave none, or whose results or
/// loop were wrong, go to `failed` with the reason.
pub(crate) fn time_kernels(
    exe: &Path,
    dir: &Path,
    settings: &StreamSettings,
    active: &[usize],
    failed: &mut BTreeMap<usize, String>,
    start: Instant,
    progress: &mut dyn FnMut(&str),
) -> Result<BTreeMap<usize, Vec<f64>>, StreamError> {
    let to_time: Vec<usize> = active
        .iter()
        .copied()
        .filter(|i| !failed.contains_key(i))
        .collect();
    let mut obs: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
    let mut why_none: BTreeMap<usize, String> = BTreeMap::new();
    // Program ids are 1-based positions among the active kernels.
    let pos = |i: usize| active.iter().position(|&a| a == i).unwrap_or(0) + 1;
    let min = settings
        .min_observations
        .clamp(1, settings.observations.max(1)) as usize;
    for pass in 1..=settings.observations.max(1) {
        let ids_all: Vec<usize> = to_time
            .iter()
            .copied()
            .filter(|i| !failed.contains_key(i))
            .filter(|i| {
                obs.get(i)
                    .map_or(true, |v| !crate::settled(v, min, settings.settle))
            })
            .collect();
        if ids_all.is_empty() {
            break;
        }
        progress(&format!(
            "stream: observation {pass} of at most {} of {} kernels ({:.0} s elapsed)",
            settings.observations.max(1),
            ids_all.len(),
            start.elapsed().as_secs_f64()
        ));
        for ids in ids_all.chunks(CHUNK) {
            let program_ids: Vec<usize> = ids.iter().map(|&i| pos(i)).collect();
            let (ran, out, rate) = run_chunk(exe, dir, settings, &program_ids)?;
            for &i in ids {
                let p = pos(i);
                if out.bad.contains(&p) {
                    failed.insert(i, "non-finite or denormal results".to_string());
                } else if out.gone.contains(&p) {
                    failed.insert(i, "the compiler removed the loop".to_string());
                } else {
                    let v = out.ns_per_element(p, rate);
                    if v.is_empty() {
                        why_none.insert(
                            i,
                            if ran.success() {
                                "no observations".to_string()
                            } else {
                                format!("the run ended early: {}", ran.describe())
                            },
                        );
                    } else {
                        obs.entry(i).or_default().extend(v);
                    }
                }
            }
        }
    }
    for i in to_time {
        if !obs.contains_key(&i) && !failed.contains_key(&i) {
            let why = why_none
                .remove(&i)
                .unwrap_or_else(|| "no observations".into());
            failed.insert(i, why);
        }
        if failed.contains_key(&i) {
            obs.remove(&i);
        }
    }
    Ok(obs)
}

/// Kernels per run of the timing program.
const CHUNK: usize = 30;

/// One run of the timing program over the kernels `program_ids`, one observation each:
/// the run, what it printed and its clock rate (an error when it printed none).
fn run_chunk(
    exe: &Path,
    dir: &Path,
    settings: &StreamSettings,
    program_ids: &[usize],
) -> Result<(RunResult, Output, u64), StreamError> {
    let per_kernel = settings.window_ms * 4.0 / 1000.0;
    let timeout = Duration::from_secs_f64(60.0 + 20.0 * per_kernel * program_ids.len() as f64);
    let mut args = vec![format!("{}", settings.window_ms * 1e6), "1".to_string()];
    args.extend(program_ids.iter().map(|p| p.to_string()));
    let ran =
        experiment::run(exe, dir, args, timeout).map_err(|e| StreamError::Run(e.to_string()))?;
    let text = String::from_utf8_lossy(&ran.stdout);
    let out = parse_output(&text);
    let Some(rate) = out.rate.filter(|&r| r > 0) else {
        return Err(StreamError::Run(format!(
            "the timing program printed no clock rate ({})",
            ran.describe()
        )));
    };
    Ok((ran, out, rate))
}

impl Output {
    /// The observations of program kernel `id` in ns per element iteration, the
    /// non-finite and non-positive ones left out.
    fn ns_per_element(&self, id: usize, rate: u64) -> Vec<f64> {
        self.obs
            .iter()
            .filter(|o| o.0 == id)
            .map(|o| o.2 as f64 * 1e9 / rate as f64 / (o.1 as f64 * gen::N as f64))
            .filter(|t| t.is_finite() && *t > 0.0)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_output() {
        let o = parse_output("AUGRATE 1000000000\nAUGK 3 1 100 51200\nAUGBAD 4\nAUGGONE 5\njunk\n");
        assert_eq!(o.rate, Some(1_000_000_000));
        assert_eq!(o.obs, vec![(3, 100, 51200)]);
        assert_eq!(o.bad, vec![4]);
        assert_eq!(o.gone, vec![5]);
    }

    /// A kernel gfortran rejects is dropped with its error, the others built.
    #[test]
    fn kernels_that_do_not_compile_are_dropped() {
        let Ok(tc) = Toolchain::detect("gfortran", "-O0") else {
            eprintln!("gfortran not found; skipped");
            return;
        };
        let mut kernels = gen::generate_kernels(4, 1);
        kernels[2].source = kernels[2].source.replacen(
            "  implicit none\n",
            "  implicit none\n  this is not fortran\n",
            1,
        );
        let dir = tempfile::tempdir().unwrap();
        let mut failed = BTreeMap::new();
        let mut notes: Vec<String> = vec![];
        let (exe, active, act, lines) =
            build_all(&tc, &kernels, dir.path(), &mut failed, &mut |s| {
                notes.push(s.to_string())
            })
            .unwrap();
        assert!(exe.exists());
        assert_eq!(active, vec![0, 1, 3]);
        assert_eq!((act.len(), lines.len()), (3, 3));
        assert_eq!(act[2].id, 3, "renumbered");
        assert!(failed[&2].starts_with("does not compile"), "{failed:?}");
        assert!(
            notes.iter().any(|n| n.contains("aug_k3 does not compile")),
            "{notes:?}"
        );
    }

    #[test]
    fn renumbers_kernels() {
        let mut k = gen::generate_kernels(3, 1)[2].clone();
        renumber(&mut k, 1);
        assert!(k.source.contains("subroutine aug_k1(reps"));
        assert!(k.source.contains("end subroutine aug_k1\n"));
        assert!(!k.source.contains("aug_k3"));
    }
}
