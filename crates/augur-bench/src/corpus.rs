//! The corpus manifest (`corpus/corpus.toml`), read for the benchmarks.

use anyhow::{Context, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One program of the corpus.
#[derive(Debug, Clone, Deserialize)]
pub struct CorpusProgram {
    /// Its name.
    pub name: String,
    /// Files in compile order, relative to the manifest's directory.
    pub files: Vec<String>,
    /// Standard input file, relative to the manifest's directory.
    #[serde(default)]
    pub stdin: String,
    /// Program arguments.
    #[serde(default)]
    pub args: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct Manifest {
    program: Vec<CorpusProgram>,
}

impl CorpusProgram {
    /// Paths of its files.
    pub fn paths(&self, root: &Path) -> Vec<PathBuf> {
        self.files.iter().map(|f| root.join(f)).collect()
    }

    /// Its Fortran sources (compile order) and its C sources (linked, not analyzed).
    pub fn sources(&self, root: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
        self.paths(root)
            .into_iter()
            .partition(|f| f.extension().and_then(|e| e.to_str()) != Some("c"))
    }

    /// Its Fortran sources and the options to analyze it with `tc` (no partial profile,
    /// no kept build, 300 s limit, run in the current directory).
    pub fn analyze_options(
        &self,
        root: &Path,
        tc: &augur_toolchain::Toolchain,
    ) -> Result<(Vec<PathBuf>, augur_program::AnalyzeOptions)> {
        let (fortran, c_sources) = self.sources(root);
        let opts = augur_program::AnalyzeOptions {
            front: Default::default(),
            toolchain: tc.clone(),
            c_sources,
            objects: vec![],
            link_args: vec![],
            args: self.args.clone(),
            stdin: self.stdin_path(root),
            timeout: std::time::Duration::from_secs(300),
            cwd: std::env::current_dir()?,
            keep_partial: false,
            keep_build: None,
            branch_run: true,
        };
        Ok((fortran, opts))
    }

    /// Path of its stdin file, if any.
    pub fn stdin_path(&self, root: &Path) -> Option<PathBuf> {
        (!self.stdin.is_empty()).then(|| root.join(&self.stdin))
    }
}

/// Reads the manifest; returns its directory and the programs (filtered by `only`).
pub fn load(manifest: &Path, only: &[String]) -> Result<(PathBuf, Vec<CorpusProgram>)> {
    let text = std::fs::read_to_string(manifest)
        .with_context(|| format!("cannot read the corpus manifest {}", manifest.display()))?;
    let m: Manifest = toml::from_str(&text)
        .with_context(|| format!("{}: not a valid corpus manifest", manifest.display()))?;
    let root = manifest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let programs = m
        .program
        .into_iter()
        .filter(|p| only.is_empty() || only.contains(&p.name))
        .collect();
    Ok((root, programs))
}
