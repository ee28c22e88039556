//! The machine profile: versioned TOML, readable and diffable like Kerncraft's machine files.
//!
//! ```toml
//! schema = 1
//! kind = "augur-machine-profile"
//!
//! [provenance]
//! cpu_model = "AMD EPYC 7763 64-Core Processor"
//! cores = 2
//! compiler = "gfortran"
//! fflags = "-O2"
//! ...
//! [provenance.caches]
//! L1d = "32K"
//!
//! [abop.ARDL]
//! status = "measured"
//! mean_ns = 0.98
//! sd_ns = 0.01
//! ci90_ns = 0.004
//! observations = 10
//! context = "dependent chain of alternating add and subtract; ..."
//! ```
//!
//! Every AbOp of the catalogue has an entry, in code order. `status` is `measured`,
//! `not detected` (the 90% interval includes 0 or the mean is below the timer's share: the
//! numbers are kept but should be read as "too small to see"), `not yet measured` (no
//! experiment yet; no numbers), `not measurable: <reason>` (no valid Fortran produces the
//! AbOp), `noisy: <reason>` (the observations did not hold their window) or
//! `failed: <reason>` (the experiment did not build, crashed, or its loop was removed by
//! the compiler), or `not published: <source>` (a historical profile transcribed from a
//! publication, `machines/historical/`, whose tables give no value for the AbOp: the
//! predictor prices it at nothing and warns, as for a failed entry). `sd_ns` is the standard deviation of
//! one observation of the parameter, `ci90_ns` the half-width of its 90% confidence
//! interval (Student t), both in nanoseconds per operation.

pub mod flags;
pub mod incore;
pub mod library;
pub mod memory;
pub mod mpi;
pub mod openmp;
pub mod optimizations;
pub mod process;

use augur_ir::AbOp;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// The schema version written and accepted.
pub const SCHEMA: u32 = 1;
/// The `kind` field.
pub const KIND: &str = "augur-machine-profile";

/// Status values.
pub const MEASURED: &str = "measured";
/// The least |r| of a correlation between two fitted stream costs a profile keeps.
pub const MIN_CORRELATION: f64 = 0.05;

/// The parameter is below the noise floor.
pub const NOT_DETECTED: &str = "not detected";
/// No experiment measures the parameter yet.
pub const NOT_YET_MEASURED: &str = "not yet measured";
/// Prefix of the status of a parameter whose observations did not hold the window.
pub const NOISY_PREFIX: &str = "noisy: ";
/// Prefix of the status of a parameter no experiment can measure, with the reason.
pub const NOT_MEASURABLE_PREFIX: &str = "not measurable: ";
/// Prefix of the status of a parameter whose experiment failed, with the reason.
pub const FAILED_PREFIX: &str = "failed: ";
/// Prefix of the status of a parameter a historical profile's source does not give, with
/// the source (the profile was transcribed from a publication, not measured).
pub const NOT_PUBLISHED_PREFIX: &str = "not published: ";

/// A machine profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineProfile {
    /// Schema version ([`SCHEMA`]).
    pub schema: u32,
    /// Always [`KIND`].
    pub kind: String,
    /// The issue floor of loops the compiler did not vectorize: the least time an
    /// iteration takes per abstract operation, in ns (the 5th percentile over the stream
    /// kernels of time per element over AbOps per element). However cheap its
    /// operations, a loop body issues no faster. Absent when not measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_floor_ns: Option<f64>,
    /// The same for the loops the compiler vectorized (per element).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_vector_floor_ns: Option<f64>,
    /// Where and how it was measured.
    pub provenance: Provenance,
    /// One entry per AbOp, in code order.
    pub abop: BTreeMap<AbOp, AbOpEntry>,
    /// Costs in the *stream* context: the AbOps of loops whose iterations are independent
    /// (array expressions over the loop index), as the compiler and flags build them
    /// (vectorized where the compiler vectorizes), from an indirect measurement over
    /// generated loop kernels (`augur-stream`). Empty when not measured.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stream: BTreeMap<AbOp, AbOpEntry>,
    /// Costs in the stream context for loops the compiler *vectorized* (per element, as
    /// its vectorization report says), fitted over the generated kernels the compiler
    /// reported vectorized; `stream` then holds the costs of the kernels it did not.
    /// Empty when not measured (older profiles, or a compiler without a report).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stream_vector: BTreeMap<AbOp, AbOpEntry>,
    /// The correlations of the `stream` costs fitted together (`[a, b, r]`, each pair
    /// once, those with |r| of at least [`MIN_CORRELATION`]): costs the kernels tell
    /// apart poorly are correlated, most often negatively, and the time of a loop that
    /// holds several is known better than their standard errors alone say. Empty in
    /// profiles made before the field (the costs are then taken as independent).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stream_correlation: Vec<(AbOp, AbOp, f64)>,
    /// The same for `stream_vector`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stream_vector_correlation: Vec<(AbOp, AbOp, f64)>,
    /// How long each operation of the floating-point divide and square-root unit, and
    /// each integer divide and remainder by a run-time value (`DISL`, `MODI`: the integer
    /// divider), holds its unit in loops the compiler did not vectorize (its reciprocal
    /// throughput, ns): neither unit is pipelined, so a loop iteration takes at least the
    /// sum over its divides and square roots on the busier unit (`1/sqrt(x)` an
    /// iteration: a divide plus a square root).
    /// Measured directly by a kernel of each operation alone over independent elements,
    /// left scalar (`augur-stream`). Empty when not measured (older profiles).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub divider: BTreeMap<AbOp, AbOpEntry>,
    /// The memory hierarchy (`augur characterize --memory`); absent when not measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<crate::memory::MemoryProfile>,
    /// OpenMP overheads and bandwidth per thread count (`augur characterize --openmp`);
    /// absent when not measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openmp: Option<crate::openmp::OpenMpProfile>,
    /// The network between MPI ranks (`augur characterize --mpi`); absent when not
    /// measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mpi: Option<crate::mpi::MpiProfile>,
    /// Which standard optimizations the compiler applies (`augur characterize
    /// --optimizations`); absent when not measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optimizations: Option<crate::optimizations::OptimizationsProfile>,
    /// The in-core parameters that price a compiled loop (`augur characterize`,
    /// `augur-incore`); absent in profiles made before them, which then price every loop
    /// by its AbOps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incore: Option<crate::incore::InCoreProfile>,
    /// What a run pays to start and end outside the program's code (`augur characterize`,
    /// `--process` alone); absent in profiles made before it, whose predictions then leave
    /// it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<crate::process::ProcessProfile>,
}

/// Where and how a profile was measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Provenance {
    /// CPU model (`model name` of /proc/cpuinfo).
    pub cpu_model: String,
    /// Logical CPUs available.
    pub cores: usize,
    /// Operating system and kernel.
    pub os: String,
    /// The compiler command.
    pub compiler: String,
    /// The first line of its `--version`.
    pub compiler_version: String,
    /// The flags, as given.
    pub fflags: String,
    /// When the measurement ended (UTC, RFC 3339).
    pub date: String,
    /// augur's version.
    pub augur_version: String,
    /// `quick`, `default` or `precise`.
    pub mode: String,
    /// Target duration of one observation, in ms.
    pub window_ms: f64,
    /// Observations per experiment.
    pub observations: u32,
    /// The clock's counts per second (`system_clock` at `integer(8)`).
    pub timer_rate_hz: u64,
    /// The timer's resolution as the experiment program measured it: the smallest nonzero
    /// difference of consecutive `system_clock` reads over 200 tries, in ns. The window is
    /// at least 1000 of these.
    #[serde(default)]
    pub timer_resolution_ns: f64,
    /// Wall time of the characterization, in s.
    pub elapsed_s: f64,
    /// Cache sizes as the OS reports them, e.g. `L1d = "32K"`.
    #[serde(default)]
    pub caches: BTreeMap<String, String>,
    /// Where the numbers come from when they were not measured by augur: the publication,
    /// its tables and the file they were transcribed from (historical profiles, whose
    /// costs have no interval). Empty for a measured profile.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub source: String,
    /// The x86 `cpu family` of the host (/proc/cpuinfo): 25 for Zen 3 and Zen 4, 26 for
    /// Zen 5. Absent in profiles made before the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_family: Option<u32>,
    /// The x86 `model` of the host within its family (Zen 4 EPYC: 17, Zen 3: 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_model_number: Option<u32>,
}

impl Provenance {
    /// Whether this profile was measured on a CPU like the host whose provenance is
    /// `host`: the same family and model (both recorded), the same CPU name and the same
    /// cache sizes.
    pub fn same_cpu(&self, host: &Provenance) -> bool {
        let known = |p: &Provenance| p.cpu_family.zip(p.cpu_model_number);
        known(self).is_some()
            && known(self) == known(host)
            && self.cpu_model == host.cpu_model
            && ["L1d", "L2", "L3"]
                .iter()
                .all(|k| self.caches.get(*k) == host.caches.get(*k))
    }
}

/// One AbOp's cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AbOpEntry {
    /// `measured`, `not detected`, `not yet measured`, `not measurable: <reason>`,
    /// `noisy: <reason>`, `failed: <reason>` or `not published: <source>`.
    pub status: String,
    /// Mean cost per operation, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_ns: Option<f64>,
    /// Standard deviation of one observation, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sd_ns: Option<f64>,
    /// Half-width of the 90% confidence interval of the mean, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci90_ns: Option<f64>,
    /// Observations.
    #[serde(default)]
    pub observations: u32,
    /// The context in which the operation was measured.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub context: String,
}

impl AbOpEntry {
    /// An entry with a status and nothing else.
    pub fn status(status: impl Into<String>) -> AbOpEntry {
        AbOpEntry {
            status: status.into(),
            mean_ns: None,
            sd_ns: None,
            ci90_ns: None,
            observations: 0,
            context: String::new(),
        }
    }

    /// Whether the status is one of the valid values.
    pub fn status_is_valid(&self) -> bool {
        matches!(
            self.status.as_str(),
            MEASURED | NOT_DETECTED | NOT_YET_MEASURED
        ) || [
            FAILED_PREFIX,
            NOISY_PREFIX,
            NOT_MEASURABLE_PREFIX,
            NOT_PUBLISHED_PREFIX,
        ]
        .iter()
        .any(|p| self.status.starts_with(p))
    }
}

/// Errors reading or writing a profile; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a valid profile.
    #[error("{path} is not a valid augur machine profile: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
}

impl MachineProfile {
    /// A profile with every AbOp `not yet measured`.
    pub fn new(provenance: Provenance) -> MachineProfile {
        MachineProfile {
            schema: SCHEMA,
            kind: KIND.to_string(),
            stream_floor_ns: None,
            stream_vector_floor_ns: None,
            provenance,
            abop: augur_ir::abop::ALL
                .iter()
                .map(|&op| (op, AbOpEntry::status(NOT_YET_MEASURED)))
                .collect(),
            stream: BTreeMap::new(),
            stream_vector: BTreeMap::new(),
            stream_correlation: vec![],
            stream_vector_correlation: vec![],
            divider: BTreeMap::new(),
            memory: None,
            openmp: None,
            mpi: None,
            optimizations: None,
            incore: None,
            process: None,
        }
    }

    /// The profile as TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a machine profile always serializes")
    }

    /// Parses and checks a profile; `path` names it in errors.
    pub fn from_toml(text: &str, path: &str) -> Result<MachineProfile, ProfileError> {
        let invalid = |message: String| ProfileError::Invalid {
            path: path.to_string(),
            message,
        };
        // Check the header first so that a wrong schema is reported as such.
        let value: toml::Value = toml::from_str(text).map_err(|e| invalid(e.to_string()))?;
        match value.get("kind").and_then(|k| k.as_str()) {
            Some(KIND) => {}
            Some(k) => return Err(invalid(format!("kind is `{k}`, expected `{KIND}`"))),
            None => return Err(invalid(format!("no `kind = \"{KIND}\"`"))),
        }
        match value.get("schema").and_then(|k| k.as_integer()) {
            Some(s) if s == SCHEMA as i64 => {}
            Some(s) => {
                return Err(invalid(format!(
                    "schema {s} is not supported (this augur reads schema {SCHEMA})"
                )))
            }
            None => return Err(invalid("no `schema` number".to_string())),
        }
        // From the value already parsed (the text a second time took half of the reading of
        // a 150 KB profile); an error is read again from the text, whose message names the
        // line and column.
        let p: MachineProfile = match value.try_into() {
            Ok(p) => p,
            Err(_) => toml::from_str(text).map_err(|e| invalid(e.to_string()))?,
        };
        match p.inconsistency() {
            Some(message) => Err(invalid(format!(
                "{message}; re-measure it with `augur characterize` (or `--only` that AbOp)"
            ))),
            None => Ok(p),
        }
    }

    /// The first entry that cannot be priced with, if any: an invalid status, a measured
    /// cost that is negative, a deviation or interval that is negative, or a number that
    /// is not finite. (A `not detected` mean may be slightly negative: it is noise around
    /// zero and kept as measured.)
    pub fn inconsistency(&self) -> Option<String> {
        let bad = |x: Option<f64>| x.is_some_and(|x| !x.is_finite() || x < 0.0);
        let sections = [
            ("abop", &self.abop),
            ("stream", &self.stream),
            ("stream_vector", &self.stream_vector),
            ("divider", &self.divider),
        ];
        let entry_problem = |(section, entries): (&str, &BTreeMap<AbOp, AbOpEntry>)| {
            entries.iter().find_map(|(op, e)| {
                if !e.status_is_valid() {
                    Some(format!(
                        "[{section}.{op}] has an invalid status `{}`",
                        e.status
                    ))
                } else if e.status == MEASURED && e.mean_ns.is_none() {
                    Some(format!("[{section}.{op}] is measured but has no mean_ns"))
                } else if e.mean_ns.is_some_and(|m| !m.is_finite())
                    || (e.status == MEASURED && bad(e.mean_ns))
                    || bad(e.sd_ns)
                    || bad(e.ci90_ns)
                {
                    Some(format!(
                        "[{section}.{op}] has a negative or infinite mean_ns, sd_ns or ci90_ns"
                    ))
                } else {
                    None
                }
            })
        };
        sections
            .into_iter()
            .find_map(entry_problem)
            .or_else(|| {
                (bad(self.stream_floor_ns) || bad(self.stream_vector_floor_ns))
                    .then(|| "a stream floor is negative or not finite".to_string())
            })
            .or_else(|| self.optimizations.as_ref()?.inconsistency())
            .or_else(|| self.process.as_ref()?.inconsistency())
    }

    /// Reads a profile file.
    pub fn read(path: &Path) -> Result<MachineProfile, ProfileError> {
        let text = std::fs::read_to_string(path).map_err(|source| ProfileError::Io {
            path: path.display().to_string(),
            source,
        })?;
        MachineProfile::from_toml(&text, &path.display().to_string())
    }

    /// Writes the profile atomically: a temporary file in the same directory, renamed.
    pub fn write(&self, path: &Path) -> Result<(), ProfileError> {
        let io = |source| ProfileError::Io {
            path: path.display().to_string(),
            source,
        };
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        // Readable as the user's umask says (a bare temporary file would stay 0600).
        let mut tmp = tempfile::Builder::new()
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
            .tempfile_in(dir)
            .map_err(io)?;
        tmp.write_all(self.to_toml().as_bytes()).map_err(io)?;
        tmp.flush().map_err(io)?;
        tmp.persist(path).map_err(|e| io(e.error))?;
        Ok(())
    }

    /// The measured mean of an AbOp (status `measured`).
    pub fn measured(&self, op: AbOp) -> Option<f64> {
        self.abop
            .get(&op)
            .filter(|e| e.status == MEASURED)
            .and_then(|e| e.mean_ns)
    }
}

/// The current time, UTC, as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    format_utc(secs)
}

/// Formats seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (civil-from-days).
pub fn format_utc(secs: u64) -> String {
    let days = (secs / 86400) as i64;
    let rem = secs % 86400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_matches_a_host_of_the_same_family_model_and_caches() {
        let host = Provenance {
            cpu_model: "AMD EPYC".into(),
            cpu_family: Some(25),
            cpu_model_number: Some(17),
            caches: [("L2", "1024K"), ("L3", "32768K")]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Provenance::default()
        };
        assert!(host.same_cpu(&host));
        // A Zen 5 has the same name and caches: the family tells them apart.
        let zen5 = Provenance {
            cpu_family: Some(26),
            cpu_model_number: Some(2),
            ..host.clone()
        };
        assert!(!zen5.same_cpu(&host));
        // A profile made before the fields matches nothing.
        let old = Provenance {
            cpu_family: None,
            cpu_model_number: None,
            ..host.clone()
        };
        assert!(!old.same_cpu(&host));
        let mut other_l3 = host.clone();
        other_l3.caches.insert("L3".into(), "16384K".into());
        assert!(!other_l3.same_cpu(&host));
    }

    fn sample() -> MachineProfile {
        let mut p = MachineProfile::new(Provenance {
            cpu_model: "Test CPU".into(),
            cores: 2,
            compiler: "gfortran".into(),
            fflags: "-O2".into(),
            mode: "quick".into(),
            caches: [("L1d".to_string(), "32K".to_string())]
                .into_iter()
                .collect(),
            ..Default::default()
        });
        p.abop.insert(
            AbOp::ARDL,
            AbOpEntry {
                status: MEASURED.into(),
                mean_ns: Some(0.75),
                sd_ns: Some(0.0125),
                ci90_ns: Some(0.005),
                observations: 10,
                context: "dependent chain".into(),
            },
        );
        p.abop
            .insert(AbOp::PROC, AbOpEntry::status("failed: crashed"));
        p
    }

    #[test]
    fn round_trip() {
        let p = sample();
        let text = p.to_toml();
        assert!(text.starts_with("schema = 1\nkind = \"augur-machine-profile\""));
        assert!(text.contains("[abop.ARDL]\nstatus = \"measured\"\nmean_ns = 0.75"));
        // Code order: SRSL (1) before ARDL (23) before PROC (67).
        let (a, b, c) = (
            text.find("[abop.SRSL]").unwrap(),
            text.find("[abop.ARDL]").unwrap(),
            text.find("[abop.PROC]").unwrap(),
        );
        assert!(a < b && b < c);
        let back = MachineProfile::from_toml(&text, "p.toml").unwrap();
        assert_eq!(back, p);
        assert_eq!(back.measured(AbOp::ARDL), Some(0.75));
        assert_eq!(back.measured(AbOp::PROC), None);
        assert_eq!(back.abop.len(), augur_ir::abop::COUNT);
    }

    #[test]
    fn optimizations_section_round_trips() {
        use crate::optimizations::{OptimizationsProfile, Summary, TestResult};
        let mut p = sample();
        p.optimizations = Some(OptimizationsProfile {
            alpha: 0.05,
            observations: 10,
            window_ms: 5.0,
            elapsed_s: 42.5,
            summaries: vec![Summary {
                optimization: "constant_folding".into(),
                scope: "local".into(),
                rating: "partial".into(),
                conclusive: 3,
                detected: 2,
                report: String::new(),
                contradiction: String::new(),
                repeats: vec!["partial".into(), "yes".into()],
            }],
            tests: vec![TestResult {
                key: "constant_folding/local/int".into(),
                rule: "effectiveness".into(),
                naive_ns: 1.5,
                opt_ns: Some(1.25),
                cripple_ns: Some(4.0),
                effectiveness: Some(0.9),
                ratio: None,
                ratio_low: None,
                ratio_high: None,
                ratio_threshold: None,
                p_value: Some(1e-6),
                verdict: "yes".into(),
                note: String::new(),
            }],
        });
        let text = p.to_toml();
        assert!(text.contains("[optimizations]"), "{text}");
        assert!(text.contains("[[optimizations.summary]]"));
        assert!(text.contains("[[optimizations.test]]"));
        let back = MachineProfile::from_toml(&text, "o.toml").unwrap();
        assert_eq!(back, p);
        let e = MachineProfile::from_toml(&text.replace("\"partial\"\n", "\"great\"\n"), "o.toml")
            .unwrap_err();
        assert!(e.to_string().contains("invalid rating `great`"), "{e}");
    }

    #[test]
    fn atomic_write_and_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.toml");
        let p = sample();
        p.write(&path).unwrap();
        assert_eq!(MachineProfile::read(&path).unwrap(), p);
        // Only the profile is left in the directory.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        // Its mode is what the umask makes of a new file's (as `File::create`'s).
        use std::os::unix::fs::PermissionsExt;
        let plain = dir.path().join("plain");
        std::fs::File::create(&plain).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), mode(&plain));
        std::fs::remove_file(&plain).unwrap();
        let missing = MachineProfile::read(&dir.path().join("none.toml")).unwrap_err();
        assert!(missing.to_string().contains("none.toml"));
    }

    #[test]
    fn costs_that_cannot_be_priced_with_are_refused() {
        let text = sample().to_toml();
        let e = MachineProfile::from_toml(&text.replace("0.75", "-0.75"), "n.toml").unwrap_err();
        assert!(e.to_string().contains("[abop.ARDL] has a negative"), "{e}");
        assert!(
            e.to_string().contains("augur characterize"),
            "a fix hint: {e}"
        );
        let e =
            MachineProfile::from_toml(&text.replace("mean_ns = 0.75\n", ""), "m.toml").unwrap_err();
        assert!(e.to_string().contains("measured but has no mean_ns"), "{e}");
    }

    #[test]
    fn every_library_profile_reads() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../machines");
        let mut read = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                MachineProfile::read(&path).unwrap_or_else(|e| panic!("{e}"));
                read += 1;
            }
        }
        assert!(read >= 5, "only {read} profiles in {}", dir.display());
    }

    #[test]
    fn malformed_and_wrong_schema_name_the_file() {
        let e = MachineProfile::from_toml("schema = [", "bad.toml").unwrap_err();
        assert!(e
            .to_string()
            .starts_with("bad.toml is not a valid augur machine profile"));
        let text = sample().to_toml();
        let e = MachineProfile::from_toml(&text.replacen("schema = 1", "schema = 2", 1), "s.toml")
            .unwrap_err();
        assert!(e.to_string().contains("s.toml") && e.to_string().contains("schema 2"));
        let e = MachineProfile::from_toml(
            &text.replacen("augur-machine-profile", "something-else", 1),
            "k.toml",
        )
        .unwrap_err();
        assert!(e.to_string().contains("kind is `something-else`"));
        let e = MachineProfile::from_toml(&text.replace("\"measured\"", "\"great\""), "st.toml")
            .unwrap_err();
        assert!(e.to_string().contains("invalid status `great`"));
        let e = MachineProfile::from_toml(&text.replace("[abop.ARDL]", "[abop.ZZZZ]"), "z.toml")
            .unwrap_err();
        assert!(e.to_string().contains("ZZZZ"), "{e}");
    }

    #[test]
    fn utc_formatting() {
        assert_eq!(format_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(format_utc(1_700_000_000), "2023-11-14T22:13:20Z");
    }
}
