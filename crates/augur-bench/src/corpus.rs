//! The corpus manifest (`corpus/corpus.toml`), read for the benchmarks; the programs of
//! a suite of real programs (`bench/real`, see [`crate::suite`]) take the same form.

use anyhow::{Context, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One program of the corpus or of a suite.
#[derive(Debug, Clone, Deserialize)]
pub struct CorpusProgram {
    /// Its name.
    pub name: String,
    /// Files in compile order, relative to [`CorpusProgram::root`].
    pub files: Vec<String>,
    /// Standard input file, relative to the root.
    #[serde(default)]
    pub stdin: String,
    /// Program arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Compiler flags the program needs besides the machine profile's (line length,
    /// standard conformance...), for both the counting and the timed build.
    #[serde(default)]
    pub fflags: Vec<String>,
    /// Source form of every Fortran file: `fixed` or `free`; otherwise (`mixed`, empty)
    /// each file's extension decides.
    #[serde(default)]
    pub form: String,
    /// Preprocess the sources.
    #[serde(default)]
    pub cpp: bool,
    /// Preprocessor definitions (`NAME` or `NAME=VALUE`).
    #[serde(default)]
    pub defines: Vec<String>,
    /// Include directories, relative to the root.
    #[serde(default)]
    pub include: Vec<String>,
    /// Files written into the run directory before the runs: name and text.
    #[serde(default)]
    pub inputs: BTreeMap<String, String>,
    /// Text the program prints when it ran correctly (empty: not checked).
    #[serde(default)]
    pub expect: String,
    /// The file, relative to the run directory, where the program writes `expect`
    /// (empty: its standard output).
    #[serde(default)]
    pub expect_in: String,
    /// A communication-only micro-program (ping-pong, collective loops): `augur bench mpi`
    /// reports these apart.
    #[serde(default)]
    pub communication_only: bool,
    /// A hybrid MPI + OpenMP program: the OpenMP threads per rank it is also counted and
    /// timed at (`augur bench mpi`; empty: a program that is not hybrid).
    #[serde(default)]
    pub threads: Vec<u32>,
    /// How to run it at other sizes (`augur bench scaling`).
    #[serde(default)]
    pub scale: Option<ScaleEntry>,
    /// Where its files are (the manifest's directory for the corpus).
    #[serde(skip)]
    pub root: PathBuf,
    /// Where it runs: the current directory when `None` (the corpus), else there.
    #[serde(skip)]
    pub run_dir: Option<PathBuf>,
}

/// A program's `[scale]` table: the sizes analyzed, the size predicted and timed, and
/// where the size goes (`{n}` in these, which replace the program's own when given).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScaleEntry {
    /// The scale variable's name.
    #[serde(default = "default_symbol")]
    pub symbol: String,
    /// Values analyzed (counting runs), at least three.
    pub values: Vec<i64>,
    /// The value predicted from them and timed.
    pub target: i64,
    /// Program arguments with `{n}`.
    #[serde(default)]
    pub args: Option<Vec<String>>,
    /// Preprocessor definitions with `{n}`.
    #[serde(default)]
    pub defines: Option<Vec<String>>,
    /// Input files with `{n}` in their text (written before each run).
    #[serde(default)]
    pub inputs: BTreeMap<String, String>,
    /// Model blocks that run at some sizes only by fits.
    #[serde(default)]
    pub allow_path_changes: bool,
}

fn default_symbol() -> String {
    "n".to_string()
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

    /// Its Fortran sources and the options to analyze it with `tc` plus its own flags (no
    /// partial profile, no kept build, 300 s limit, run in its run directory).
    pub fn analyze_options(
        &self,
        root: &Path,
        tc: &augur_toolchain::Toolchain,
    ) -> Result<(Vec<PathBuf>, augur_program::AnalyzeOptions)> {
        let (fortran, c_sources) = self.sources(root);
        let mut toolchain = tc.clone();
        toolchain.fflags.extend(self.fflags.iter().cloned());
        let cwd = match &self.run_dir {
            Some(dir) => dir.clone(),
            None => std::env::current_dir()?,
        };
        let opts = augur_program::AnalyzeOptions {
            front: self.front_end(root),
            toolchain,
            c_sources,
            objects: vec![],
            link_args: vec![],
            args: self.args.clone(),
            stdin: self.stdin_path(root),
            timeout: std::time::Duration::from_secs(300),
            cwd,
            keep_partial: false,
            keep_build: None,
            branch_run: true,
            optimization_report: true,
            threads: vec![],
            mpi_ranks: vec![],
        };
        Ok((fortran, opts))
    }

    /// How the front end loads its sources (preprocessing, definitions, include paths).
    pub fn front_end(&self, root: &Path) -> augur_fortran::FrontEndOptions {
        augur_fortran::FrontEndOptions {
            load: augur_fortran::LoadOptions {
                form: match self.form.as_str() {
                    "fixed" => Some(augur_fortran::SourceForm::Fixed),
                    "free" => Some(augur_fortran::SourceForm::Free),
                    _ => None,
                },
                cpp: self.cpp,
                defines: self.defines.clone(),
                include_dirs: self.include.iter().map(|d| root.join(d)).collect(),
                openmp: false,
            },
            max_syntax_errors: 0,
            default_kinds: Default::default(),
        }
    }

    /// The flags the normal (timed) build needs to see what the analysis saw.
    pub fn preprocessing_flags(&self, root: &Path) -> Vec<String> {
        let mut f: Vec<String> = self.cpp.then(|| "-cpp".to_string()).into_iter().collect();
        f.extend(self.defines.iter().map(|d| format!("-D{d}")));
        f.extend(
            self.include
                .iter()
                .map(|d| format!("-I{}", root.join(d).display())),
        );
        f
    }

    /// Writes its input files into its run directory (only those whose text differs).
    pub fn write_inputs(&self) -> Result<()> {
        let Some(dir) = &self.run_dir else {
            return Ok(());
        };
        for (name, text) in &self.inputs {
            let path = dir.join(name);
            if std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
                continue;
            }
            let tmp = dir.join(format!(".{name}.augur-tmp"));
            std::fs::write(&tmp, text)
                .and_then(|_| std::fs::rename(&tmp, &path))
                .with_context(|| format!("{}: cannot write the input file", path.display()))?;
        }
        Ok(())
    }

    /// The program with its `[scale]` templates in place of its arguments, definitions
    /// and inputs (`{n}` left in them); itself without a `[scale]` table.
    pub fn with_scale_templates(&self) -> CorpusProgram {
        let mut p = self.clone();
        if let Some(s) = &self.scale {
            if let Some(a) = &s.args {
                p.args = a.clone();
            }
            if let Some(d) = &s.defines {
                p.defines = d.clone();
            }
            p.inputs.extend(s.inputs.clone());
        }
        p
    }

    /// Writes its input files with `{symbol}` = `value` in their text.
    pub fn write_inputs_at(&self, symbol: &str, value: i64) -> Result<()> {
        let mut p = self.clone();
        for text in p.inputs.values_mut() {
            *text = augur_program_profile::scaling::ScaledInputs::substitute(text, symbol, value);
        }
        p.write_inputs()
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
        .map(|p| CorpusProgram {
            root: root.clone(),
            ..p
        })
        .collect();
    Ok((root, programs))
}
