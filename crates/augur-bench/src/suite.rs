//! A suite of real programs kept outside the repository: one manifest per program in a
//! directory (`bench/real/NAME.toml`: where the program comes from, which files, how to
//! build and run it, what it prints), the sources under `SOURCES/NAME/` at their
//! repository paths. Nothing is fetched: programs whose sources are absent are listed as
//! missing, with where to get them.

use crate::corpus::CorpusProgram;
use anyhow::{bail, Context, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Which part of a suite a program belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    /// Used while the model is developed.
    #[default]
    Dev,
    /// Set aside: looked at only for the final, honest figure.
    Aside,
}

/// Which parts a benchmark takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartChoice {
    /// The development part only.
    Dev,
    /// The part set aside only.
    Aside,
    /// Both.
    All,
}

impl PartChoice {
    fn takes(self, part: Part) -> bool {
        matches!(
            (self, part),
            (PartChoice::All, _) | (PartChoice::Dev, Part::Dev) | (PartChoice::Aside, Part::Aside)
        )
    }
}

/// One program's manifest (`bench/real/README.md` describes the fields).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RealManifest {
    name: String,
    /// Where to fetch it (`github:owner/repo`).
    source: String,
    /// The commit its files come from.
    commit: String,
    files: Vec<String>,
    #[serde(default)]
    fflags: Vec<String>,
    #[serde(default)]
    form: String,
    #[serde(default)]
    cpp: bool,
    #[serde(default)]
    defines: Vec<String>,
    #[serde(default)]
    include: Vec<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    stdin: String,
    #[serde(default)]
    inputs: std::collections::BTreeMap<String, String>,
    /// Data files it reads at run time and headers its sources include, relative to its
    /// root: the files beside `files` that must be fetched.
    #[serde(default)]
    data: Vec<String>,
    #[serde(default)]
    expect: String,
    #[serde(default)]
    expect_in: String,
    #[serde(default)]
    part: Part,
    #[serde(default)]
    scale: Option<crate::corpus::ScaleEntry>,
    // For the reader of the manifest; augur does not use them.
    #[serde(default, rename = "license")]
    _license: String,
    #[serde(default, rename = "kind")]
    _kind: String,
    #[serde(default, rename = "seconds")]
    _seconds: f64,
    #[serde(default, rename = "augur_note")]
    _augur_note: String,
}

impl RealManifest {
    /// The program, found under `root`.
    fn program(self, root: PathBuf) -> CorpusProgram {
        CorpusProgram {
            name: self.name,
            files: self.files,
            stdin: self.stdin,
            args: self.args,
            fflags: self.fflags,
            form: self.form,
            cpp: self.cpp,
            defines: self.defines,
            include: self.include,
            inputs: self.inputs,
            expect: self.expect,
            expect_in: self.expect_in,
            scale: self.scale,
            communication_only: false,
            threads: vec![],
            run_dir: Some(root.clone()),
            root,
        }
    }

    /// The files that must be present under `root` (the inputs it writes itself aside).
    fn needed(&self, root: &Path) -> Vec<PathBuf> {
        // A standard input written by `[inputs]` is not fetched.
        let fetched = !self.stdin.is_empty() && !self.inputs.contains_key(&self.stdin);
        let stdin = fetched.then_some(&self.stdin);
        self.files
            .iter()
            .chain(&self.data)
            .chain(stdin)
            .map(|f| root.join(f))
            .collect()
    }
}

/// A program whose sources are not present.
#[derive(Debug)]
pub struct Missing {
    /// Its name.
    pub name: String,
    /// Where to fetch it and which commit.
    pub source: String,
    /// The commit.
    pub commit: String,
    /// The first file that is absent.
    pub absent: PathBuf,
}

/// The programs of a suite whose sources are present, and those missing.
#[derive(Debug, Default)]
pub struct Suite {
    /// Present programs, by name, each with its root and run directory set.
    pub programs: Vec<CorpusProgram>,
    /// Programs whose sources are absent.
    pub missing: Vec<Missing>,
}

/// Reads every `*.toml` manifest of `dir`, keeps those of the chosen `part` (and among
/// `only` when it is not empty), and looks for their sources under `sources/NAME/`.
pub fn load(dir: &Path, sources: &Path, part: PartChoice, only: &[String]) -> Result<Suite> {
    let mut manifests = manifest_paths(dir)?;
    manifests.sort();
    let mut suite = Suite::default();
    for path in manifests {
        let m = read_manifest(&path)?;
        if !part.takes(m.part) || !(only.is_empty() || only.contains(&m.name)) {
            continue;
        }
        let root = sources.join(&m.name);
        match m.needed(&root).into_iter().find(|f| !f.is_file()) {
            Some(absent) => suite.missing.push(Missing {
                name: m.name,
                source: m.source,
                commit: m.commit,
                absent,
            }),
            None => suite.programs.push(m.program(root)),
        }
    }
    Ok(suite)
}

fn manifest_paths(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).with_context(|| {
        format!(
            "{}: cannot read the suite directory (give the directory of the program manifests, e.g. bench/real)",
            dir.display()
        )
    })?;
    let mut out = vec![];
    for e in entries {
        let path = e
            .with_context(|| format!("{}: cannot list", dir.display()))?
            .path();
        if path.extension().and_then(|e| e.to_str()) == Some("toml") {
            out.push(path);
        }
    }
    if out.is_empty() {
        bail!("{}: no program manifest (*.toml) in it", dir.display());
    }
    Ok(out)
}

fn read_manifest(path: &Path) -> Result<RealManifest> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read the program manifest", path.display()))?;
    let m: RealManifest = toml::from_str(&text).with_context(|| {
        format!(
            "{}: not a valid program manifest (see bench/real/README.md for its fields)",
            path.display()
        )
    })?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    if m.name != stem {
        bail!(
            "{}: the manifest names the program '{}'; name the file {}.toml or fix the name",
            path.display(),
            m.name,
            m.name
        );
    }
    if m.files.is_empty() {
        bail!(
            "{}: `files` is empty; list the program's sources in compile order",
            path.display()
        );
    }
    if !matches!(m.form.as_str(), "" | "fixed" | "free" | "mixed") {
        bail!(
            "{}: `form` is {:?}; write \"fixed\", \"free\" or \"mixed\" (each file by its extension)",
            path.display(),
            m.form
        );
    }
    if m.commit.len() != 40 || !m.commit.chars().all(|c| c.is_ascii_hexdigit()) {
        bail!(
            "{}: `commit` must be the 40-hex commit the files come from",
            path.display()
        );
    }
    Ok(m)
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: sources missing ({} not found); fetch {} and extract commit {} under that directory",
            self.name,
            self.absent.display(),
            self.source,
            self.commit
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

    fn manifest(name: &str, part: &str, extra: &str) -> String {
        format!(
            "name = \"{name}\"\nsource = \"github:someone/{name}\"\ncommit = \"{COMMIT}\"\nfiles = [\"src/{name}.f\"]\npart = \"{part}\"\nexpect = \"done\"\n{extra}"
        )
    }

    #[test]
    fn present_programs_are_taken_and_missing_ones_say_where_to_get_them() {
        let dir = tempfile::tempdir().unwrap();
        let (manifests, sources) = (dir.path().join("m"), dir.path().join("s"));
        std::fs::create_dir_all(sources.join("here/src")).unwrap();
        std::fs::create_dir_all(&manifests).unwrap();
        std::fs::write(sources.join("here/src/here.f"), "      end\n").unwrap();
        let inputs = "[inputs]\n\"in.dat\" = \"3\\n\"\n";
        std::fs::write(manifests.join("here.toml"), manifest("here", "dev", inputs)).unwrap();
        std::fs::write(manifests.join("gone.toml"), manifest("gone", "dev", "")).unwrap();
        std::fs::write(manifests.join("later.toml"), manifest("later", "aside", "")).unwrap();
        let s = load(&manifests, &sources, PartChoice::Dev, &[]).unwrap();
        assert_eq!(s.programs.len(), 1);
        let p = &s.programs[0];
        assert_eq!(p.run_dir.as_deref(), Some(sources.join("here").as_path()));
        p.write_inputs().unwrap();
        assert_eq!(
            std::fs::read_to_string(sources.join("here/in.dat")).unwrap(),
            "3\n"
        );
        assert_eq!(s.missing.len(), 1);
        let said = s.missing[0].to_string();
        assert!(
            said.contains("github:someone/gone") && said.contains(COMMIT),
            "{said}"
        );
        let aside = load(&manifests, &sources, PartChoice::Aside, &[]).unwrap();
        assert_eq!(aside.missing[0].name, "later");
        assert_eq!(
            load(&manifests, &sources, PartChoice::All, &[])
                .unwrap()
                .missing
                .len(),
            2
        );
    }

    #[test]
    fn a_wrong_manifest_is_refused_naming_the_file_and_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            ("a.toml", manifest("b", "dev", ""), "name the file b.toml"),
            (
                "c.toml",
                manifest("c", "dev", "colour = 1\n"),
                "not a valid program manifest",
            ),
            (
                "d.toml",
                manifest("d", "dev", "").replace(COMMIT, "HEAD"),
                "40-hex",
            ),
            (
                "e.toml",
                manifest("e", "sometimes", ""),
                "not a valid program manifest",
            ),
        ];
        for (file, text, says) in cases {
            let m = dir.path().join(file);
            std::fs::write(&m, text).unwrap();
            let e = format!("{:#}", read_manifest(&m).unwrap_err());
            assert!(e.contains(file) && e.contains(says), "{file}: {e}");
        }
    }
}
