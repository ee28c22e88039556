//! The experiment harness the characterizers share: write a generated Fortran program into a
//! directory, build it with the machine's toolchain, blame compile errors on the
//! experiments whose lines hold them (and rebuild without those), run the program under a
//! timeout with cancellation, and split its output into lines of words.
//!
//! What differs between the families stays with them: their generators (the sources and
//! each experiment's lines, [`ProgramSources`]), the arguments of a run and the meaning of
//! their output lines. The common output convention is one record per line, a keyword
//! (`AUGRATE`, `AUGOBS`, ...) followed by numbers separated by blanks ([`output_lines`]).

use crate::{BuildError, BuildInput, RunError, RunResult, RunSpec, Toolchain};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The generated sources of one experiment program.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProgramSources {
    /// `(file name, text)` in compile order (modules first).
    pub files: Vec<(&'static str, String)>,
    /// The index in `files` of the file that holds the experiments.
    pub experiments_file: usize,
    /// For each experiment of the program, in program order, its lines (1-based, end
    /// exclusive) in the experiments file: compile errors there are blamed on it.
    pub lines: Vec<Range<u32>>,
}

/// Where and how an experiment program is built.
#[derive(Debug, Clone)]
pub struct ExperimentBuild<'a> {
    /// The machine's compiler and flags.
    pub toolchain: &'a Toolchain,
    /// The directory the sources, objects and executable go to.
    pub dir: &'a Path,
    /// The executable's file name.
    pub exe_name: &'a str,
    /// Flags added after the user's for the Fortran sources (see [`BuildInput`]).
    pub extra_fflags: Vec<String>,
}

/// A program built by [`ExperimentBuild::build_dropping`].
#[derive(Debug, Clone)]
pub struct Built<T> {
    /// The executable.
    pub exe: PathBuf,
    /// The experiments in it (indices into the full list), in program order: experiment
    /// `active[j]` is the program's experiment `j + 1`.
    pub active: Vec<usize>,
    /// The sources it was built from.
    pub sources: ProgramSources,
    /// What the generator returned beside the sources for this set of experiments.
    pub generated: T,
}

/// Why an experiment program was not built.
#[derive(Debug, thiserror::Error)]
pub enum BuildFailure {
    /// A generated source could not be written.
    #[error("cannot write {}: {source}", .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The compiler reported errors in the experiments file outside every experiment's
    /// lines (or with no line at all).
    #[error("the generated program does not compile: {}", leading_lines(.stderr, 5))]
    Unblamed {
        /// What the compiler printed.
        stderr: String,
    },
    /// Every experiment was dropped for compile errors.
    #[error("no experiment compiles")]
    NoneCompiles,
    /// Still failing after the allowed number of builds.
    #[error("experiments kept failing to compile after {0} attempts")]
    Attempts(usize),
    /// The build failed in another way (another file, the link, the compiler missing).
    #[error(transparent)]
    Build(BuildError),
    /// The work was cancelled ([`crate::interrupt::cancel`]).
    #[error("{}", crate::interrupt::CANCELLED)]
    Cancelled,
}

/// The first `n` lines of `text`, joined with `; `.
pub fn leading_lines(text: &str, n: usize) -> String {
    text.lines().take(n).collect::<Vec<_>>().join("; ")
}

impl<'a> ExperimentBuild<'a> {
    /// Builds with `toolchain` in `dir` into `exe_name`, without extra flags.
    pub fn new(toolchain: &'a Toolchain, dir: &'a Path, exe_name: &'a str) -> Self {
        ExperimentBuild {
            toolchain,
            dir,
            exe_name,
            extra_fflags: Vec::new(),
        }
    }

    /// Writes `files` into the directory and builds them in order into the executable;
    /// returns its path. A cancellation seen after the build gives
    /// [`BuildFailure::Cancelled`].
    pub fn write_and_build(
        &self,
        files: &[(&'static str, String)],
    ) -> Result<PathBuf, BuildFailure> {
        let mut paths = Vec::with_capacity(files.len());
        for (name, text) in files {
            let path = self.dir.join(name);
            std::fs::write(&path, text).map_err(|source| BuildFailure::Write {
                path: path.clone(),
                source,
            })?;
            paths.push(path);
        }
        let input = BuildInput {
            fortran: paths,
            extra_fflags: self.extra_fflags.clone(),
            ..Default::default()
        };
        let built =
            crate::builds::build_in_workdir(self.toolchain, &input, self.dir, self.exe_name);
        if crate::interrupt::cancelled() {
            return Err(BuildFailure::Cancelled);
        }
        built.map_err(BuildFailure::Build)
    }

    /// Builds a program of `count` experiments, leaving out those that do not compile.
    ///
    /// `generate(active)` gives the program of the experiments `active` (indices into
    /// `0..count`, in program order) and anything else the caller wants of that set. When
    /// the compiler reports errors in the experiments file, each error's line blames the
    /// experiment whose lines hold it: `dropped(i, message)` is told once per experiment
    /// (with its first error), the blamed ones are left out and the program is generated
    /// and built again, at most `max_attempts` times in all.
    pub fn build_dropping<T>(
        &self,
        count: usize,
        max_attempts: usize,
        generate: &mut dyn FnMut(&[usize]) -> (ProgramSources, T),
        dropped: &mut dyn FnMut(usize, &str),
    ) -> Result<Built<T>, BuildFailure> {
        let mut active: Vec<usize> = (0..count).collect();
        for _attempt in 0..max_attempts {
            let (sources, generated) = generate(&active);
            let experiments_file = self.dir.join(sources.files[sources.experiments_file].0);
            let (messages, stderr) = match self.write_and_build(&sources.files) {
                Ok(exe) => {
                    return Ok(Built {
                        exe,
                        active,
                        sources,
                        generated,
                    })
                }
                Err(BuildFailure::Build(BuildError::Compile {
                    file,
                    messages,
                    stderr,
                })) if file == experiments_file => (messages, stderr),
                Err(e) => return Err(e),
            };
            let blamed = blame(&messages, &sources.lines);
            if blamed.is_empty() {
                return Err(BuildFailure::Unblamed { stderr });
            }
            for &(j, message) in &blamed {
                dropped(active[j], message);
            }
            active = active
                .iter()
                .enumerate()
                .filter(|(j, _)| !blamed.iter().any(|b| b.0 == *j))
                .map(|(_, &i)| i)
                .collect();
            if active.is_empty() {
                return Err(BuildFailure::NoneCompiles);
            }
        }
        Err(BuildFailure::Attempts(max_attempts))
    }
}

/// The experiments (positions in `lines`) the compiler's errors fall in, each once with
/// the message of its first error, in the order of the messages.
pub fn blame<'m>(
    messages: &'m [crate::CompilerMessage],
    lines: &[Range<u32>],
) -> Vec<(usize, &'m str)> {
    let mut blamed: Vec<(usize, &str)> = Vec::new();
    for m in messages
        .iter()
        .filter(|m| m.severity.to_ascii_lowercase().contains("error"))
    {
        if let Some(j) = lines.iter().position(|r| r.contains(&m.line)) {
            if !blamed.iter().any(|b| b.0 == j) {
                blamed.push((j, &m.message));
            }
        }
    }
    blamed
}

/// Why a run of an experiment program gave no result.
#[derive(Debug, thiserror::Error)]
pub enum RunFailure {
    /// The work was cancelled ([`crate::interrupt::cancel`]) before or during the run.
    #[error("{}", crate::interrupt::CANCELLED)]
    Cancelled,
    /// The program could not be started or waited for.
    #[error(transparent)]
    Run(RunError),
}

/// Runs the experiment program `exe` in `dir` with `args`, stdin from `/dev/null` and its
/// output captured, through [`crate::run`]: the whole process group is killed at `timeout`
/// (a program that fails or times out is a result, see [`RunResult`]). A cancellation
/// ([`crate::interrupt::cancel`]) before or during the run kills the program and gives
/// [`RunFailure::Cancelled`], whatever the program did.
pub fn run(
    exe: &Path,
    dir: &Path,
    args: Vec<String>,
    timeout: Duration,
) -> Result<RunResult, RunFailure> {
    if crate::interrupt::cancelled() {
        return Err(RunFailure::Cancelled);
    }
    let mut spec = RunSpec::new(dir, timeout);
    spec.args = args;
    // `run` registers the program's process group, which the interrupt handler kills.
    let ran = crate::run(exe, &spec).map_err(|e| match e {
        crate::RunError::Interrupted => RunFailure::Cancelled,
        e => RunFailure::Run(e),
    })?;
    if crate::interrupt::cancelled() {
        return Err(RunFailure::Cancelled);
    }
    Ok(ran)
}

/// One line of an experiment program's output split into words: the keyword and its
/// fields.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputLine<'a> {
    /// 1-based line number.
    pub number: usize,
    /// The line as printed.
    pub text: &'a str,
    /// Its blank-separated words; the first is the keyword.
    pub words: Vec<&'a str>,
}

impl<'a> OutputLine<'a> {
    /// The first word, if any.
    pub fn keyword(&self) -> Option<&'a str> {
        self.words.first().copied()
    }

    /// The error of a malformed line: ``line 3: malformed `AUGOBS 1 x` ``.
    pub fn malformed(&self) -> String {
        format!("line {}: malformed `{}`", self.number, self.text.trim())
    }

    /// Word `i` parsed as a `T`, or the [`OutputLine::malformed`] error when it is missing
    /// or does not parse.
    pub fn field<T: std::str::FromStr>(&self, i: usize) -> Result<T, String> {
        self.words
            .get(i)
            .and_then(|w| w.parse().ok())
            .ok_or_else(|| self.malformed())
    }
}

/// The lines of an experiment program's output, split into words.
pub fn output_lines(text: &str) -> impl Iterator<Item = OutputLine<'_>> {
    text.lines().enumerate().map(|(no, line)| OutputLine {
        number: no + 1,
        text: line,
        words: line.split_whitespace().collect(),
    })
}

/// The observations within 5 scaled median absolute deviations of the median: a
/// process descheduled by another on a shared machine makes one observation many times
/// longer, which says nothing of the thing measured (EPCC reports such outliers apart
/// Mean and sample standard deviation of a set of observations (Saavedra-Barrera eq.
/// 2.4), shared by the AbOp and the optimization experiments.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// The mean.
    pub mean: f64,
    /// The sample standard deviation (divisor `n - 1`); 0 for fewer than two values.
    pub sd: f64,
    /// The number of observations.
    pub n: usize,
}

impl Sample {
    /// The mean and standard deviation of `xs`. An empty slice gives NaN mean.
    pub fn of(xs: &[f64]) -> Sample {
        let n = xs.len();
        if n == 0 {
            return Sample {
                mean: f64::NAN,
                sd: f64::NAN,
                n,
            };
        }
        let mean = xs.iter().sum::<f64>() / n as f64;
        let sd = if n < 2 {
            0.0
        } else {
            (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        };
        Sample { mean, sd, n }
    }

    /// The variance of one observation.
    pub fn var(&self) -> f64 {
        self.sd * self.sd
    }
}

/// too).
pub fn without_outliers(v: &[f64]) -> Vec<f64> {
    let m = median(v);
    let deviations: Vec<f64> = v.iter().map(|x| (x - m).abs()).collect();
    let mad = 1.4826 * median(&deviations);
    if mad <= 0.0 {
        return v.to_vec();
    }
    v.iter()
        .copied()
        .filter(|x| (x - m).abs() <= 5.0 * mad)
        .collect()
}

/// The median of `xs`, NaN values left out (the mean of the middle two for an even
/// count; NaN for none).
pub fn median(xs: &[f64]) -> f64 {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// The mean of some observations (0 for none).
pub fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// Mean and the half-width of its 90% confidence interval (Student's t).
pub fn mean_and_half_width(v: &[f64]) -> (f64, f64) {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    let n = v.len();
    let m = mean(v);
    if n < 2 {
        return (m, f64::INFINITY);
    }
    let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1) as f64;
    let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
        .map(|d| d.inverse_cdf(0.95))
        .unwrap_or(1.645);
    (m, t * (var / n as f64).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CompilerMessage;

    fn message(line: u32, severity: &str, text: &str) -> CompilerMessage {
        CompilerMessage {
            file: PathBuf::from("p.f90"),
            line,
            col: None,
            severity: severity.to_string(),
            message: text.to_string(),
        }
    }

    #[test]
    fn errors_are_blamed_on_the_experiment_holding_their_line() {
        let lines = [2..5, 5..9, 9..12];
        let messages = [
            message(6, "Error", "first"),
            message(3, "Warning", "not an error"),
            message(7, "Error", "second in the same"),
            message(10, "Fatal Error", "third"),
            message(40, "Error", "outside"),
        ];
        assert_eq!(blame(&messages, &lines), vec![(1, "first"), (2, "third")]);
        assert!(blame(&messages[1..2], &lines).is_empty());
    }

    #[test]
    fn output_lines_give_fields_and_malformed_errors() {
        let lines: Vec<OutputLine> = output_lines("AUGRATE 1000\n\n  AUGOBS 1 x \n").collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].keyword(), Some("AUGRATE"));
        assert_eq!(lines[0].field::<u64>(1), Ok(1000));
        assert_eq!(lines[1].keyword(), None);
        assert_eq!(lines[2].field::<u64>(1), Ok(1));
        assert_eq!(
            lines[2].field::<u64>(2),
            Err("line 3: malformed `AUGOBS 1 x`".to_string())
        );
        assert!(lines[2].field::<u64>(3).is_err());
    }

    /// Two experiments, the second one broken, built with gfortran: the second is dropped
    /// with its error, the program rebuilt without it and run.
    #[test]
    fn broken_experiments_are_dropped_and_the_rest_built_and_run() {
        let Ok(tc) = Toolchain::detect("gfortran", "-O0") else {
            eprintln!("gfortran not found; skipped");
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let experiment = |k: usize, broken: bool| {
            let bad = if broken {
                "  this is not fortran\n"
            } else {
                ""
            };
            format!("subroutine e{k}()\n{bad}  print '(a,i0)', 'AUGE ', {k}\nend subroutine e{k}\n")
        };
        let mut generate = |active: &[usize]| {
            let mut text = String::new();
            let mut lines = Vec::new();
            for &i in active {
                let start = text.lines().count() as u32 + 1;
                text.push_str(&experiment(i, i == 1));
                lines.push(start..text.lines().count() as u32 + 1);
            }
            let calls: String = active.iter().map(|i| format!("  call e{i}()\n")).collect();
            let main = format!("program m\n{calls}end program m\n");
            let sources = ProgramSources {
                files: vec![("exps.f90", text), ("main.f90", main)],
                experiments_file: 0,
                lines,
            };
            (sources, active.len())
        };
        let mut dropped = Vec::new();
        let build = ExperimentBuild::new(&tc, dir.path(), "exps");
        let built = build
            .build_dropping(2, 3, &mut generate, &mut |i, m| {
                dropped.push((i, m.to_string()))
            })
            .unwrap();
        assert_eq!(built.active, vec![0]);
        assert_eq!(built.generated, 1);
        assert_eq!(dropped.len(), 1, "{dropped:?}");
        assert_eq!(dropped[0].0, 1);
        let ran = run(&built.exe, dir.path(), vec![], Duration::from_secs(30)).unwrap();
        assert!(ran.success());
        let out = String::from_utf8_lossy(&ran.stdout);
        let lines: Vec<OutputLine> = output_lines(&out).collect();
        assert_eq!(lines[0].keyword(), Some("AUGE"));
        assert_eq!(lines[0].field::<usize>(1), Ok(0));
    }

    #[test]
    fn leading_lines_join() {
        assert_eq!(leading_lines("a\nb\nc\n", 2), "a; b");
        assert_eq!(leading_lines("", 5), "");
    }
}
