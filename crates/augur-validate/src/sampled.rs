//! Where a run's time went, measured: the normally built program (compiled again with
//! line tables, `-g`, which does not change the code gfortran generates) run once under
//! Linux `perf record`, sampling the CPU clock (a software event: it works in a virtual
//! machine without hardware counters), each sample's source line read from the line
//! tables by `perf report --sort srcline`. The shares of the samples on each line are
//! what a prediction's loops, lines and procedures are compared with.

use augur_toolchain::{self as toolchain, RunSpec};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Samples per second of CPU time taken by `perf record`.
pub const FREQUENCY: u32 = 4000;

/// The shares of a run's samples by source line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineSamples {
    /// Samples taken.
    pub samples: u64,
    /// Per (file name without its directory, line): the share of the samples (0-1).
    pub share: BTreeMap<(String, u32), f64>,
    /// The functions outside the program that took samples (`libm.so.6 round`, the
    /// kernel's), with their shares, largest first.
    pub libraries: Vec<(String, f64)>,
}

impl LineSamples {
    /// The share of the samples on lines `first..=last` of `file` (matched by its name
    /// without the directory: line tables keep the path the compiler was given).
    pub fn share_of(&self, file: &str, first: u32, last: u32) -> f64 {
        let name = file_name(file);
        self.share
            .range((name.clone(), first)..=(name, last))
            .map(|(_, s)| s)
            .sum()
    }
}

/// The form a program's samples are kept in (`augur bench accuracy --by-loop --save`),
/// `NAME.lines.json` beside its kept times.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct KeptLines {
    samples: u64,
    /// `[file, line, share]`.
    lines: Vec<(String, u32, f64)>,
    /// `[object and function, share]`.
    #[serde(default)]
    libraries: Vec<(String, f64)>,
}

impl LineSamples {
    /// The file of program `name`'s samples in `dir`.
    pub fn kept_path(dir: &Path, name: &str) -> PathBuf {
        dir.join(format!("{name}.lines.json"))
    }

    /// The samples as JSON, to keep.
    pub fn to_json(&self) -> String {
        let kept = KeptLines {
            samples: self.samples,
            lines: self
                .share
                .iter()
                .map(|((f, l), s)| (f.clone(), *l, *s))
                .collect(),
            libraries: self.libraries.clone(),
        };
        serde_json::to_string_pretty(&kept).unwrap_or_default()
    }

    /// Samples kept by [`LineSamples::to_json`]; a file that is not says why.
    pub fn read(path: &Path) -> Result<LineSamples, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let kept: KeptLines = serde_json::from_str(&text).map_err(|e| {
            format!(
                "{}: not line samples kept by `augur bench accuracy --by-loop` ({e})",
                path.display()
            )
        })?;
        Ok(LineSamples {
            samples: kept.samples,
            share: kept
                .lines
                .into_iter()
                .map(|(f, l, s)| ((f, l), s))
                .collect(),
            libraries: kept.libraries,
        })
    }
}

/// Why sampling failed.
#[derive(Debug, thiserror::Error)]
pub enum SampleError {
    /// `perf` is not installed or cannot sample.
    #[error("{0}")]
    Perf(String),
    /// The program could not be run under it.
    #[error("cannot run the program under perf: {0}")]
    Run(#[from] toolchain::RunError),
    /// The sampled run failed.
    #[error("the run under perf {0}")]
    Failed(String),
    /// Its report could not be read.
    #[error("cannot read perf's report: {0}")]
    Io(#[from] std::io::Error),
}

/// `perf` on the PATH, when it runs (`perf --version`); else what to install.
pub fn find_perf() -> Result<PathBuf, SampleError> {
    let found = toolchain::find_on_path("perf").filter(|perf| {
        Command::new(perf)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if let Some(perf) = found {
        Ok(perf)
    } else {
        Err(SampleError::Perf(
            "perf is not installed (or does not run for this kernel): install it (Debian: \
             apt-get install linux-perf) for each loop's measured time"
                .to_string(),
        ))
    }
}

/// Runs `exe` once under `perf record` as `spec` says, the samples written in `work`,
/// and reads the shares of its samples by source line.
pub fn sample_lines(
    perf: &Path,
    exe: &Path,
    spec: &RunSpec,
    work: &Path,
) -> Result<LineSamples, SampleError> {
    let data = work.join("augur-perf.data");
    let exe = std::path::absolute(exe)?;
    let mut args: Vec<String> = ["record", "-q", "-e", "cpu-clock", "-F"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.push(FREQUENCY.to_string());
    args.push("-o".to_string());
    args.push(data.display().to_string());
    args.push("--".to_string());
    args.push(exe.display().to_string());
    args.extend(spec.args.iter().cloned());
    let under_perf = RunSpec {
        args,
        ..spec.clone()
    };
    let run = toolchain::run(perf, &under_perf)?;
    if !run.success() {
        let err = String::from_utf8_lossy(&run.stderr);
        return Err(SampleError::Failed(format!(
            "{}{}",
            run.describe(),
            err.lines()
                .next()
                .map(|l| format!(": {l}"))
                .unwrap_or_default()
        )));
    }
    let report = Command::new(perf)
        .args(["report", "--stdio", "-n", "--sort", "srcline", "-i"])
        .arg(&data)
        .output()?;
    if !report.status.success() {
        return Err(SampleError::Perf(format!(
            "perf report failed: {}",
            String::from_utf8_lossy(&report.stderr).trim()
        )));
    }
    let mut lines = parse_report(&String::from_utf8_lossy(&report.stdout));
    let by_function = Command::new(perf)
        .args(["report", "--stdio", "-n", "--sort", "dso,sym", "-i"])
        .arg(&data)
        .output()?;
    let exe_name = exe.file_name().map(|f| f.to_string_lossy().to_string());
    lines.libraries = parse_functions(
        &String::from_utf8_lossy(&by_function.stdout),
        exe_name.as_deref().unwrap_or_default(),
    );
    Ok(lines)
}

/// The first `n` of `functions` with their shares: "libm.so.6 round 24.6%, ...".
pub fn describe_functions(functions: &[(String, f64)], n: usize) -> String {
    functions
        .iter()
        .take(n)
        .map(|(f, share)| format!("{f} {:.1}%", 100.0 * share))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The functions outside `exe` of `perf report --stdio -n --sort dso,sym` (rows of a
/// percentage, a count, the object and `[.]` or `[k]` and the symbol), with their shares,
/// largest first; those under 0.5% left out.
pub fn parse_functions(text: &str, exe: &str) -> Vec<(String, f64)> {
    let mut out = vec![];
    for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let [pct, _count, dso, _kind, symbol, ..] = words[..] else {
            continue;
        };
        let Some(Ok(pct)) = pct.strip_suffix('%').map(str::parse::<f64>) else {
            continue;
        };
        if dso != exe && pct >= 0.5 {
            out.push((format!("{dso} {symbol}"), pct / 100.0));
        }
    }
    out.sort_by(|a, b| b.1.total_cmp(&a.1));
    out
}

/// Reads `perf report --stdio -n --sort srcline`: rows of a percentage, a sample count
/// and `file:line` (samples in code without line tables, `??:0` or `symbol+0x12`,
/// count toward the total only).
pub fn parse_report(text: &str) -> LineSamples {
    let mut rows = vec![];
    let mut samples = 0u64;
    for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
        let mut words = line.split_whitespace();
        let (Some(pct), Some(count), Some(place)) = (words.next(), words.next(), words.next())
        else {
            continue;
        };
        let (Some(_), Ok(count)) = (pct.strip_suffix('%'), count.parse::<u64>()) else {
            continue;
        };
        samples += count;
        if let Some((file, line)) = place.rsplit_once(':') {
            if let (Ok(line), false) = (line.parse::<u32>(), file.starts_with("??")) {
                rows.push(((file_name(file), line), count));
            }
        }
    }
    let mut share = BTreeMap::new();
    for (key, count) in rows {
        *share.entry(key).or_insert(0.0) += count as f64 / samples.max(1) as f64;
    }
    LineSamples {
        samples,
        share,
        libraries: vec![],
    }
}

/// A path's file name without its directory (how samples and parts are matched).
pub fn file_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map_or(path.to_string(), |f| f.to_string_lossy().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = "\
# Samples: 5K of event 'cpu-clock'
#
# Overhead       Samples  Source:Line
# ........  ............  ..................
#
    60.00%          3000  kernel.f90:66
    30.00%          1500  /tmp/x/kernel.f90:69
     5.00%           250  main.f90:12
     4.00%           200  ??:0
     1.00%            50  _raw_spin_unlock_irqrestore+25
";

    #[test]
    fn a_report_gives_each_lines_share_of_all_samples() {
        let s = parse_report(REPORT);
        assert_eq!(s.samples, 5000);
        assert!((s.share[&("kernel.f90".to_string(), 66)] - 0.6).abs() < 1e-12);
        assert!((s.share_of("src/kernel.f90", 60, 70) - 0.9).abs() < 1e-12);
        assert!((s.share_of("main.f90", 1, 11)).abs() < 1e-12);
        assert!((s.share.values().sum::<f64>() - 0.95).abs() < 1e-12);
    }

    #[test]
    fn kept_samples_read_back_the_same() {
        let s = parse_report(REPORT);
        let dir = std::env::temp_dir().join(format!("augur-lines-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = LineSamples::kept_path(&dir, "p");
        std::fs::write(&path, s.to_json()).unwrap();
        assert_eq!(LineSamples::read(&path).unwrap(), s);
        std::fs::write(&path, "{}").unwrap();
        assert!(LineSamples::read(&path)
            .unwrap_err()
            .contains("p.lines.json"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn functions_outside_the_program_are_named_largest_first() {
        let text = "\
# Overhead  Samples  Shared Object  Symbol
    70.00%     3500  prog           [.] __m_MOD_kernel
    20.00%     1000  libm.so.6      [.] round
     0.40%       20  libc.so.6      [.] memcpy
     9.60%      480  [kernel.kallsyms]  [k] clear_page_erms
";
        let f = parse_functions(text, "prog");
        assert_eq!(
            f,
            vec![
                ("libm.so.6 round".to_string(), 0.2),
                ("[kernel.kallsyms] clear_page_erms".to_string(), 0.096)
            ]
        );
    }

    #[test]
    fn a_report_without_rows_has_no_samples() {
        assert_eq!(parse_report("# nothing\n").samples, 0);
        assert_eq!(parse_report("").share.len(), 0);
    }
}
