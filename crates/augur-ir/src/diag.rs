//! Diagnostics: what went wrong, where in the user's file, and what to do.

use crate::source::{Pos, SourceFiles};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// How serious a diagnostic is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Information the user may want (e.g. an assumption augur made).
    Note,
    /// Something was approximated or skipped; the rest of the analysis holds.
    Warning,
    /// Something could not be analyzed at all (a file, a unit or a statement).
    Error,
}

/// A message about the user's source, anchored at an original file and line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// How serious it is.
    pub severity: Severity,
    /// Where it is (absent for problems that concern no particular line).
    pub pos: Option<Pos>,
    /// What went wrong, in one sentence.
    pub message: String,
    /// What the user can do about it.
    pub hint: Option<String>,
}

impl Diagnostic {
    /// An error at `pos`.
    pub fn error(pos: Option<Pos>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            pos,
            message: message.into(),
            hint: None,
        }
    }

    /// A warning at `pos`.
    pub fn warning(pos: Option<Pos>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            pos,
            message: message.into(),
            hint: None,
        }
    }

    /// A note at `pos`.
    pub fn note(pos: Option<Pos>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Note,
            pos,
            message: message.into(),
            hint: None,
        }
    }

    /// Adds a hint telling the user what to do.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    /// Renders the diagnostic as `file:line:col: severity: message`, followed by the
    /// quoted source line with a caret under the column, and the hint.
    pub fn render(&self, files: &SourceFiles) -> String {
        let sev = match self.severity {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        let mut out = String::new();
        match self.pos {
            Some(pos) => {
                let _ = writeln!(out, "{}: {sev}: {}", files.describe(pos), self.message);
                if let Some(f) = files.files.get(pos.file.0 as usize) {
                    let text = f.line_text(pos.line);
                    if !text.is_empty() {
                        let _ = writeln!(out, "{:>6} | {}", pos.line, text);
                        let pad: String = text
                            .chars()
                            .take(pos.col.saturating_sub(1) as usize)
                            .map(|c| if c == '\t' { '\t' } else { ' ' })
                            .collect();
                        let _ = writeln!(out, "       | {pad}^");
                    }
                }
            }
            None => {
                let _ = writeln!(out, "{sev}: {}", self.message);
            }
        }
        if let Some(h) = &self.hint {
            let _ = writeln!(out, "  = help: {h}");
        }
        out
    }
}
