//! Measured times kept for later (`augur bench accuracy --save DIR`): one
//! `NAME.timing.json` per program beside its `NAME.profile.json`, read back by
//! `--replay` and by `augur compare compilers --measured DIR`.

use crate::Timing;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One program's kept runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeptTiming {
    /// The program's name (the file stem of its source).
    pub program: String,
    /// The compiler and flags it was built with (`gfortran -O2`).
    pub build: String,
    /// CPU times of the runs, seconds.
    pub runs: Vec<f64>,
    /// Their wall-clock times.
    #[serde(default)]
    pub wall: Vec<f64>,
}

/// Why kept times could not be read.
#[derive(Debug, thiserror::Error)]
pub enum KeptError {
    /// A file or directory could not be read.
    #[error("cannot read {path}: {source} (made by `augur bench accuracy --save`?)")]
    Read {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A file is not a kept timing.
    #[error("{path}: not a timing file written by --save ({why})")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
}

impl KeptTiming {
    /// The file of program `name`'s times in `dir`.
    pub fn path(dir: &Path, name: &str) -> PathBuf {
        dir.join(format!("{name}.timing.json"))
    }

    /// Reads one kept timing; a file without runs is an error.
    pub fn read(path: &Path) -> Result<KeptTiming, KeptError> {
        let text = std::fs::read_to_string(path).map_err(|source| KeptError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let t: KeptTiming = serde_json::from_str(&text).map_err(|e| KeptError::Format {
            path: path.to_path_buf(),
            why: e.to_string(),
        })?;
        if t.runs.is_empty() {
            return Err(KeptError::Format {
                path: path.to_path_buf(),
                why: "no runs".into(),
            });
        }
        Ok(t)
    }

    /// Every kept timing in `dir` (its `*.timing.json` files), by program name.
    pub fn read_dir(dir: &Path) -> Result<Vec<KeptTiming>, KeptError> {
        let entries = std::fs::read_dir(dir).map_err(|source| KeptError::Read {
            path: dir.to_path_buf(),
            source,
        })?;
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().ends_with(".timing.json"))
            .collect();
        paths.sort();
        paths.iter().map(|p| KeptTiming::read(p)).collect()
    }

    /// The median of the runs and their spread.
    pub fn timing(&self) -> Timing {
        Timing::from_runs(self.runs.clone())
    }

    /// Whether it was built with `compiler flags` (whitespace-insensitive).
    pub fn built_with(&self, setup: &str) -> bool {
        self.build.split_whitespace().eq(setup.split_whitespace())
    }
}

/// The median measured time of each program under each setup, `[program][setup]`, from
/// the kept timings of `dirs`; `None` where none was kept.
pub fn measured_matrix(
    kept: &[KeptTiming],
    programs: &[String],
    setups: &[String],
) -> Vec<Vec<Option<f64>>> {
    programs
        .iter()
        .map(|p| {
            setups
                .iter()
                .map(|s| {
                    kept.iter()
                        .find(|k| &k.program == p && k.built_with(s))
                        .map(|k| k.timing().median)
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(program: &str, build: &str, runs: &[f64]) -> KeptTiming {
        KeptTiming {
            program: program.into(),
            build: build.into(),
            runs: runs.to_vec(),
            wall: vec![],
        }
    }

    #[test]
    fn matrix_by_program_and_build() {
        let k = vec![
            kept("cg", "gfortran -O0", &[3.0, 1.0, 2.0]),
            kept("cg", "gfortran  -O2", &[0.5]),
        ];
        let m = measured_matrix(
            &k,
            &["cg".into(), "heat".into()],
            &[
                "gfortran -O0".into(),
                "gfortran -O2".into(),
                "gfortran -O3".into(),
            ],
        );
        assert_eq!(m[0], vec![Some(2.0), Some(0.5), None]);
        assert_eq!(m[1], vec![None, None, None]);
    }

    #[test]
    fn bad_files_name_themselves() {
        let dir = tempfile_dir();
        let p = dir.join("x.timing.json");
        std::fs::write(&p, "{\"program\":\"x\"}").unwrap();
        let e = KeptTiming::read_dir(&dir).unwrap_err().to_string();
        assert!(
            e.contains("x.timing.json") && e.contains("not a timing file"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn tempfile_dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!("augur-kept-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}
