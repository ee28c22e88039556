//! The library of machine profiles (`machines/` in the repository): a user names a
//! machine (`gfortran12-O2-epyc-2core`) instead of giving a path.
//!
//! Directories searched, in order: each entry of `$AUGUR_MACHINES` (separated by `:`),
//! `./machines`, and the `machines/` directory of the augur checkout the running binary
//! was built in (`target/<profile>/augur` → `../../machines`),
//! `<prefix>/share/augur/machines` for an installed binary (`<prefix>/bin/augur`), and
//! last the `machines/` of the source tree augur was compiled from.
//!
//! Each directory's `historical/` subdirectory holds profiles transcribed from
//! publications (Saavedra-Barrera's 1992 tables: `augur machines --import-thesis`); they
//! are looked up by name like the others and listed apart ([`is_historical`]).

use crate::{MachineProfile, ProfileError};
use std::path::{Path, PathBuf};

/// Why a machine could not be found or read.
#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    /// No file and no library entry of that name.
    #[error("no machine profile `{name}`: it is neither a file nor a profile in the library ({searched}).{suggestion} `augur machines` lists the library; measure this host with `augur characterize -o FILE.toml`")]
    NotFound {
        /// What was asked for.
        name: String,
        /// The directories searched.
        searched: String,
        /// ` Did you mean `a` or `b`?` naming the closest library names, or empty.
        suggestion: String,
    },
    /// The profile exists but cannot be read.
    #[error(transparent)]
    Profile(#[from] ProfileError),
}

/// The directories searched for named machine profiles, existing ones only.
pub fn library_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![];
    if let Ok(v) = std::env::var("AUGUR_MACHINES") {
        dirs.extend(v.split(':').filter(|s| !s.is_empty()).map(PathBuf::from));
    }
    dirs.push(PathBuf::from("machines"));
    if let Ok(exe) = std::env::current_exe() {
        if let Some(bin) = exe.parent() {
            dirs.push(bin.join("../../machines"));
            dirs.push(bin.join("../share/augur/machines"));
        }
    }
    // The checkout this crate was built from (cargo builds outside the tree too).
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../machines"));
    let mut seen = vec![];
    // The directories beside the executable read `target/release/../../machines` unless
    // resolved: shown to the user in every header, they are.
    let resolved = |d: PathBuf| {
        if d.components().any(|c| c == std::path::Component::ParentDir) {
            d.canonicalize().unwrap_or(d)
        } else {
            d
        }
    };
    dirs.into_iter()
        .filter(|d| d.is_dir())
        .map(resolved)
        .filter(|d| {
            let c = d.canonicalize().unwrap_or_else(|_| d.clone());
            if seen.contains(&c) {
                false
            } else {
                seen.push(c);
                true
            }
        })
        .collect()
}

/// The subdirectory of a library directory that holds historical profiles.
pub const HISTORICAL_DIR: &str = "historical";

/// Whether a library profile is historical (transcribed from a publication, in a
/// `historical/` directory) rather than measured.
pub fn is_historical(path: &Path) -> bool {
    path.parent()
        .and_then(|d| d.file_name())
        .is_some_and(|n| n == HISTORICAL_DIR)
}

/// The `.toml` files of one directory: name (file stem) and path, sorted.
fn profiles_in(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return vec![];
    };
    let mut here: Vec<(String, PathBuf)> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .filter_map(|p| Some((p.file_stem()?.to_str()?.to_string(), p.clone())))
        .collect();
    here.sort();
    here
}

/// Every profile in the library (measured ones and the `historical/` ones): name (file
/// stem) and path, sorted by name; a name found in two directories is listed once, from
/// the first.
pub fn list() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = vec![];
    for d in library_dirs() {
        let mut here = profiles_in(&d);
        here.extend(profiles_in(&d.join(HISTORICAL_DIR)));
        for (n, p) in here {
            if !out.iter().any(|(m, _)| *m == n) {
                out.push((n, p));
            }
        }
    }
    out.sort();
    out
}

/// Resolves a machine given as a path or a library name to a file.
pub fn resolve(spec: &str) -> Result<PathBuf, LibraryError> {
    let p = Path::new(spec);
    if p.is_file() {
        return Ok(p.to_path_buf());
    }
    let stem = spec.strip_suffix(".toml").unwrap_or(spec);
    let all = list();
    let found = all.iter().find(|(n, _)| n == stem).or_else(|| {
        let mut same = all.iter().filter(|(n, _)| n.eq_ignore_ascii_case(stem));
        same.next().filter(|_| same.next().is_none())
    });
    if let Some((_, path)) = found {
        return Ok(path.clone());
    }
    let searched = library_dirs()
        .iter()
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    Err(LibraryError::NotFound {
        name: spec.to_string(),
        searched: if searched.is_empty() {
            "no library directory found".to_string()
        } else {
            searched
        },
        suggestion: suggestion(stem, all.iter().map(|(n, _)| n.as_str())),
    })
}

/// ` Did you mean `a`?` (or `a`, `b` or `c`) with the library names closest to `asked`,
/// case ignored: those holding every `-`-separated part of it (`gfortran-O2-zen4`), else
/// those within a normalized edit distance of 0.6; empty when none is close.
fn suggestion<'a>(asked: &str, names: impl Iterator<Item = &'a str>) -> String {
    let asked = asked.to_ascii_lowercase();
    let parts: Vec<&str> = asked.split('-').filter(|p| !p.is_empty()).collect();
    let mut scored: Vec<(f64, &str)> = names
        .map(|n| {
            let lower = n.to_ascii_lowercase();
            let holds_all = !parts.is_empty() && parts.iter().all(|p| lower.contains(p));
            let score = if holds_all {
                1.0
            } else {
                strsim::normalized_levenshtein(&asked, &lower)
            };
            (score, n)
        })
        .filter(|(score, _)| *score >= 0.6)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    let names: Vec<String> = scored
        .iter()
        .take(3)
        .map(|(_, n)| format!("`{n}`"))
        .collect();
    match names.len() {
        0 => String::new(),
        1 => format!(" Did you mean {}?", names[0]),
        k => format!(
            " Did you mean {} or {}?",
            names[..k - 1].join(", "),
            names[k - 1]
        ),
    }
}

/// Resolves and reads a machine profile; returns it with the name to show (the file stem).
pub fn load(spec: &str) -> Result<(String, PathBuf, MachineProfile), LibraryError> {
    let path = resolve(spec)?;
    let profile = MachineProfile::read(&path)?;
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(spec)
        .to_string();
    Ok((name, path, profile))
}

#[cfg(test)]
mod suggestion_tests {
    use super::suggestion;

    #[test]
    fn a_misspelled_machine_gets_the_closest_names() {
        let names = [
            "gfortran12-O0-epyc-zen4-2core",
            "gfortran12-O2-epyc-zen4-2core",
            "gfortran12-O2-epyc-zen5-2core",
            "vax-11-780",
        ];
        let s = suggestion("gfortran-O2-zen4", names.iter().copied());
        assert_eq!(s, " Did you mean `gfortran12-O2-epyc-zen4-2core`?");
        let s = suggestion("vax-11-870", names.iter().copied());
        assert!(s.contains("`vax-11-780`"), "{s}");
        assert_eq!(suggestion("nosuch", names.iter().copied()), "");
    }
}
