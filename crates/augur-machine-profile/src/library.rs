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
    #[error("no machine profile `{name}`: it is neither a file nor a profile in the library ({searched}); available: {available}. Measure one with `augur characterize -o FILE.toml`")]
    NotFound {
        /// What was asked for.
        name: String,
        /// The directories searched.
        searched: String,
        /// The names found there.
        available: String,
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
    dirs.into_iter()
        .filter(|d| d.is_dir())
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
    if let Some((_, path)) = all.iter().find(|(n, _)| n == stem) {
        return Ok(path.clone());
    }
    let searched = library_dirs()
        .iter()
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let available = if all.is_empty() {
        "none".to_string()
    } else {
        all.iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(LibraryError::NotFound {
        name: spec.to_string(),
        searched: if searched.is_empty() {
            "no library directory found".to_string()
        } else {
            searched
        },
        available,
    })
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
