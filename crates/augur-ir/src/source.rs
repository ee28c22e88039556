//! Source files and positions in the user's original files.
//!
//! Every position augur reports (diagnostics, block spans, profile entries)
//! refers to a line of a file as the user wrote it, never to the normalized or
//! preprocessed text the parser saw.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Index of a file in a [`SourceFiles`] registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FileId(pub u32);

/// A position in an original source file: 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Pos {
    /// The file the position is in.
    pub file: FileId,
    /// 1-based line number in that file.
    pub line: u32,
    /// 1-based column (in characters) in that line.
    pub col: u32,
}

/// A statement's extent in an original source file: first and last line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Span {
    /// Where the statement starts.
    pub start: Pos,
    /// Last line of the statement (continuation lines included), same file as `start`.
    pub end_line: u32,
}

impl Span {
    /// A span covering a single position.
    pub fn at(pos: Pos) -> Span {
        Span {
            start: pos,
            end_line: pos.line,
        }
    }
}

/// One file that took part in an analysis (a main source or an included file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFile {
    /// Path as the user gave it (or as an INCLUDE/`#include` resolved it).
    pub path: PathBuf,
    /// Hex SHA-256 of the file's bytes, so that a profile can be matched to its sources.
    pub sha256: String,
    /// Number of lines in the file.
    pub lines: u32,
    /// The original text, kept so that diagnostics can quote the offending line.
    #[serde(skip)]
    pub text: String,
}

impl SourceFile {
    /// The text of 1-based line `line`, without its newline (empty when out of range).
    pub fn line_text(&self, line: u32) -> &str {
        if line == 0 {
            return "";
        }
        self.text.lines().nth(line as usize - 1).unwrap_or("")
    }
}

/// The registry of all files read during one analysis.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SourceFiles {
    /// Files by [`FileId`] index.
    pub files: Vec<SourceFile>,
}

impl SourceFiles {
    /// Registers a file and returns its id; a path registered before returns the earlier id.
    pub fn add(&mut self, file: SourceFile) -> FileId {
        if let Some(i) = self.files.iter().position(|f| f.path == file.path) {
            return FileId(i as u32);
        }
        self.files.push(file);
        FileId(self.files.len() as u32 - 1)
    }

    /// The file with this id.
    ///
    /// # Panics
    /// Never for ids returned by [`SourceFiles::add`] on this registry.
    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// Human-readable `path:line:col` for a position.
    pub fn describe(&self, pos: Pos) -> String {
        match self.files.get(pos.file.0 as usize) {
            Some(f) => format!("{}:{}:{}", f.path.display(), pos.line, pos.col),
            None => format!("<unknown file>:{}:{}", pos.line, pos.col),
        }
    }
}
