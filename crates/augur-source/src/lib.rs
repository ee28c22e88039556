//! Source loading for augur.
//!
//! [`load`] reads a Fortran file the way gfortran would see it and hands the
//! parser (tree-sitter-fortran, which only knows free form) one free-form text:
//!
//! 1. the C preprocessor runs first when gfortran would run it ([`wants_cpp`]:
//!    upper-case extensions) or when asked ([`LoadOptions::cpp`]);
//! 2. fixed-form text is converted to free form by [`normalize_fixed`], line
//!    for line;
//! 3. Fortran `INCLUDE 'file'` lines are replaced by the included text.
//!
//! Along the way a line map ([`LoadedSource::origins`]) records, for every line
//! the parser sees, the original file and line it came from, so that every
//! position augur reports points into the files the user wrote. Every file read
//! is registered in [`SourceFiles`].

#![warn(missing_docs)]

mod cpp;
mod fixed;
mod include;

use augur_ir::{Diagnostic, FileId, Pos, SourceFile, SourceFiles};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

pub use fixed::{normalize_fixed, Normalized};

/// Source form of a Fortran file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceForm {
    /// Fixed form (FORTRAN 77 card layout: label in 1-5, continuation in 6, text in 7-72).
    Fixed,
    /// Free form (Fortran 90 and later).
    Free,
}

/// Lower-cased extension of `path`, if any.
fn extension(path: &Path) -> Option<&str> {
    path.extension().and_then(|e| e.to_str())
}

impl SourceForm {
    /// The form gfortran assumes for a file name: `.f .for .ftn .f77 .fpp`
    /// (and their upper-case variants) are fixed form; `.f90 .f95 .f03 .f08
    /// .f18` (and upper-case) are free form; anything else is taken as free form.
    pub fn from_path(path: &Path) -> SourceForm {
        match extension(path).map(str::to_ascii_lowercase).as_deref() {
            Some("f" | "for" | "ftn" | "f77" | "fpp") => SourceForm::Fixed,
            _ => SourceForm::Free,
        }
    }
}

/// gfortran's rule: files with upper-case extensions (`.F .FOR .FTN .F77 .FPP
/// .F90 .F95 .F03 .F08 .F18`) and `.fpp` are run through the C preprocessor.
pub fn wants_cpp(path: &Path) -> bool {
    matches!(
        extension(path),
        Some("F" | "FOR" | "FTN" | "F77" | "FPP" | "fpp" | "F90" | "F95" | "F03" | "F08" | "F18")
    )
}

/// How to load a file.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Source form, overriding the extension rule of [`SourceForm::from_path`].
    pub form: Option<SourceForm>,
    /// Run the C preprocessor even when the extension does not ask for it.
    pub cpp: bool,
    /// Macro definitions for the preprocessor: `NAME` or `NAME=VALUE` (passed as `-D`).
    pub defines: Vec<String>,
    /// Directories searched for `#include` files and for Fortran `INCLUDE` files.
    pub include_dirs: Vec<PathBuf>,
    /// Compile OpenMP's conditional lines (`!$ stmt`, fixed-form `C$ stmt`) as code,
    /// as a compiler does with `-fopenmp`; otherwise they stay comments.
    pub openmp: bool,
}

/// Where one line of the parser's text came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineOrigin {
    /// The original file.
    pub file: FileId,
    /// 1-based line in that file.
    pub line: u32,
    /// Original 1-based column = parsed 1-based column + `col_offset`.
    pub col_offset: i32,
}

/// A file loaded and made ready for the parser.
#[derive(Debug, Clone)]
pub struct LoadedSource {
    /// Free-form Fortran text for the parser.
    pub text: String,
    /// Exactly one entry per line of `text` (`text.lines().count() == origins.len()`).
    pub origins: Vec<LineOrigin>,
    /// The file that was asked for.
    pub main: FileId,
    /// Form of the main file.
    pub form: SourceForm,
    /// Whether the C preprocessor ran.
    pub preprocessed: bool,
    /// Non-fatal problems (missing INCLUDE file, non-UTF-8 bytes replaced, ...).
    pub diagnostics: Vec<Diagnostic>,
}

impl LoadedSource {
    /// Original position of a 0-based (line, column-in-chars) position of
    /// `text`. Out-of-range lines clamp to the last line; the column is at least 1.
    pub fn origin(&self, line0: usize, col0: usize) -> Pos {
        let o = self.line_origin(line0);
        let col = (col0 as i64 + 1 + o.col_offset as i64).clamp(1, u32::MAX as i64);
        Pos {
            file: o.file,
            line: o.line,
            col: col as u32,
        }
    }

    /// Origin of 0-based line `line0` of `text` (clamped to the last line;
    /// line 1 of the main file when `text` is empty).
    pub fn line_origin(&self, line0: usize) -> LineOrigin {
        match self.origins.get(line0).or(self.origins.last()) {
            Some(o) => *o,
            None => LineOrigin {
                file: self.main,
                line: 1,
                col_offset: 0,
            },
        }
    }
}

/// Why a file could not be loaded at all.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The C preprocessor is not installed.
    #[error(
        "{} needs the C preprocessor, but `{program}` was not found; install it \
         (e.g. `apt-get install cpp` or gcc), or rename the file to a lower-case \
         extension if it has no preprocessor directives",
        path.display()
    )]
    CppNotFound {
        /// The file that needed preprocessing.
        path: PathBuf,
        /// The preprocessor program that was tried.
        program: String,
    },
    /// The C preprocessor ran and reported an error.
    #[error("preprocessing {} failed; fix the directive cpp reports, or the -D/-I options:\n{stderr}", path.display())]
    CppFailed {
        /// The file being preprocessed.
        path: PathBuf,
        /// What the preprocessor said (it names file:line).
        stderr: String,
    },
    /// Fortran INCLUDE lines nest too deeply.
    #[error(
        "{}:{line}: INCLUDE nesting deeper than {max} levels; look for INCLUDE files that include each other",
        file.display()
    )]
    IncludeTooDeep {
        /// The file with the INCLUDE line that went too deep.
        file: PathBuf,
        /// Its 1-based line.
        line: u32,
        /// The maximum nesting depth.
        max: usize,
    },
    /// A Fortran INCLUDE line includes a file that is already being included.
    #[error(
        "{}:{line}: recursive INCLUDE of {}; a file cannot include itself, directly or indirectly",
        file.display(),
        included.display()
    )]
    RecursiveInclude {
        /// The file with the INCLUDE line.
        file: PathBuf,
        /// Its 1-based line.
        line: u32,
        /// The file it tried to include.
        included: PathBuf,
    },
}

/// Maximum nesting depth of Fortran INCLUDE files.
pub const MAX_INCLUDE_DEPTH: usize = 32;

/// One line of text with its origin, as the stages pass them along.
pub(crate) type Line = (String, LineOrigin);

/// Loads `path` for the parser: preprocesses it if needed, converts fixed form
/// to free form and expands Fortran INCLUDE lines. Every file read is
/// registered in `files`.
///
/// The preprocessor program is `cpp`, or the one named by the `AUGUR_CPP`
/// environment variable.
pub fn load(
    path: &Path,
    opts: &LoadOptions,
    files: &mut SourceFiles,
) -> Result<LoadedSource, LoadError> {
    load_with_cpp(path, None, opts, files, &cpp_program())
}

/// [`load`] of a source whose bytes are already in memory, as if the file at
/// `path` held them: `path` still decides the form, whether the C preprocessor
/// runs and where INCLUDE files are searched, and names the source in the line
/// map and in [`SourceFiles`]. Nothing is read for the source itself; INCLUDE
/// files are read from disk, and the preprocessor, when it runs, reads the file
/// at `path`. As in [`load`], a path already registered in `files` keeps its
/// registered text.
pub fn load_bytes(
    path: &Path,
    bytes: &[u8],
    opts: &LoadOptions,
    files: &mut SourceFiles,
) -> Result<LoadedSource, LoadError> {
    load_with_cpp(path, Some(bytes), opts, files, &cpp_program())
}

/// The preprocessor program: `AUGUR_CPP`, or `cpp`.
fn cpp_program() -> String {
    std::env::var("AUGUR_CPP").unwrap_or_else(|_| "cpp".to_string())
}

/// [`load`] (`bytes` is `None`) or [`load_bytes`] with an explicit preprocessor program.
pub(crate) fn load_with_cpp(
    path: &Path,
    bytes: Option<&[u8]>,
    opts: &LoadOptions,
    files: &mut SourceFiles,
    cpp_program: &str,
) -> Result<LoadedSource, LoadError> {
    let mut diagnostics = Vec::new();
    let (main, main_text) = match bytes {
        Some(b) => register(path, b, files, &mut diagnostics),
        None => read_and_register(path, files, &mut diagnostics)?,
    };
    let form = opts.form.unwrap_or_else(|| SourceForm::from_path(path));
    let preprocessed = opts.cpp || wants_cpp(path);

    let lines: Vec<Line> = if preprocessed {
        let out = cpp::run(cpp_program, path, opts)?;
        cpp::map_output(&out, path, main, files, &mut diagnostics)
    } else {
        file_lines(&main_text, main)
    };
    let lines = match form {
        SourceForm::Fixed => normalize_lines(lines),
        SourceForm::Free => lines,
    };
    let mut lines = include::expand(lines, form, opts, files, &mut diagnostics, path)?;
    if opts.openmp {
        for (l, _) in &mut lines {
            activate_conditional_line(l);
        }
    }

    let mut text = String::new();
    let mut origins = Vec::with_capacity(lines.len());
    for (l, o) in lines {
        text.push_str(&l);
        text.push('\n');
        origins.push(o);
    }
    debug_assert_eq!(text.lines().count(), origins.len());
    Ok(LoadedSource {
        text,
        origins,
        main,
        form,
        preprocessed,
        diagnostics,
    })
}

/// Turns an OpenMP conditional-compilation line (`!$ stmt`, after fixed-form
/// normalization also `C$ stmt`) into code by blanking its sentinel, keeping columns.
pub fn activate_conditional_line(line: &mut String) {
    let start = line.len() - line.trim_start().len();
    let rest = &line[start..];
    let is_conditional = rest.starts_with("!$")
        && rest[2..]
            .chars()
            .next()
            .is_some_and(|c| c == ' ' || c == '\t' || c == '&');
    if is_conditional {
        line.replace_range(start..start + 2, "  ");
    }
}

/// The lines of a file's text, each mapped to itself.
pub(crate) fn file_lines(text: &str, file: FileId) -> Vec<Line> {
    fixed::split_lines(text)
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            (
                l.to_string(),
                LineOrigin {
                    file,
                    line: i as u32 + 1,
                    col_offset: 0,
                },
            )
        })
        .collect()
}

/// Runs the fixed-form normalizer over mapped lines, composing the line maps.
pub(crate) fn normalize_lines(lines: Vec<Line>) -> Vec<Line> {
    let mut joined = String::new();
    for (l, _) in &lines {
        // A line never holds '\n'; a stray '\r' at its end must not vanish
        // from the count either, so it is dropped here.
        joined.push_str(l.strip_suffix('\r').unwrap_or(l));
        joined.push('\n');
    }
    let n = normalize_fixed(&joined);
    let out: Vec<Line> = fixed::split_lines(&n.text)
        .into_iter()
        .zip(n.col_offsets)
        .zip(lines)
        .map(|((text, off), (_, o))| {
            (
                text.to_string(),
                LineOrigin {
                    col_offset: o.col_offset + off,
                    ..o
                },
            )
        })
        .collect();
    out
}

/// The SHA-256 of some bytes as lower-case hex, as recorded for every source file.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Reads a file (or reuses it if already registered), registers it and
/// returns its id and lossily decoded text (see [`register`]).
pub(crate) fn read_and_register(
    path: &Path,
    files: &mut SourceFiles,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<(FileId, String), LoadError> {
    if let Some(known) = registered(path, files) {
        return Ok(known);
    }
    let bytes = std::fs::read(path).map_err(|source| LoadError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(register(path, &bytes, files, diagnostics))
}

/// The id and text of `path` if it is registered already.
fn registered(path: &Path, files: &SourceFiles) -> Option<(FileId, String)> {
    let i = files.files.iter().position(|f| f.path == path)?;
    Some((FileId(i as u32), files.files[i].text.clone()))
}

/// Registers `bytes` as the file `path` (or reuses the file if already registered)
/// and returns its id and lossily decoded text. Warns once per file about
/// non-UTF-8 bytes.
pub(crate) fn register(
    path: &Path,
    bytes: &[u8],
    files: &mut SourceFiles,
    diagnostics: &mut Vec<Diagnostic>,
) -> (FileId, String) {
    if let Some(known) = registered(path, files) {
        return known;
    }
    let sha256 = sha256_hex(bytes);
    let (text, bad_line) = match std::str::from_utf8(bytes) {
        Ok(t) => (t.to_string(), None),
        Err(_) => {
            let bad = bytes
                .split(|&b| b == b'\n')
                .position(|l| std::str::from_utf8(l).is_err())
                .map(|i| i as u32 + 1);
            (String::from_utf8_lossy(bytes).into_owned(), bad)
        }
    };
    let id = files.add(SourceFile {
        path: path.to_path_buf(),
        sha256,
        lines: fixed::split_lines(&text).len() as u32,
        text: text.clone(),
    });
    if let Some(line) = bad_line {
        diagnostics.push(
            Diagnostic::warning(
                Some(Pos { file: id, line, col: 1 }),
                format!(
                    "{} is not valid UTF-8 (first at line {line}); the bad bytes were replaced with U+FFFD",
                    path.display()
                ),
            )
            .with_hint("this is harmless in comments; to silence it, convert the file, e.g. `iconv -f latin1 -t utf-8`"),
        );
    }
    (id, text)
}

#[cfg(test)]
mod tests;
