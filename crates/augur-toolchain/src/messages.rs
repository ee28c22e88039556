//! Compiler diagnostics (gfortran's and flang/clang's) parsed into [`CompilerMessage`]s.

use std::path::PathBuf;

/// One diagnostic of the compiler, parsed from its stderr.
#[derive(Debug, Clone, PartialEq)]
pub struct CompilerMessage {
    /// The source file as the compiler names it.
    pub file: PathBuf,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, if given.
    pub col: Option<u32>,
    /// As the compiler spells it: `Error`, `Warning`, `Fatal Error` (gfortran), `error`,
    /// `warning`, `note` (flang, clang, gcc).
    pub severity: String,
    /// The message text.
    pub message: String,
}

/// Severities recognised in diagnostics, longest first (matched case-insensitively).
const SEVERITIES: &[&str] = &[
    "internal compiler error",
    "internal error",
    "fatal error",
    "portability",
    "warning",
    "error",
    "remark",
    "note",
];

/// Parses gfortran's multi-line format (a `file:line:col:` line, then the quoted source and
/// caret lines, then `Error: message`) and flang/clang/gcc's single-line format
/// (`file:line:col: error: message`). Lines that are neither (source quotes, driver
/// messages without a location, `compilation terminated.`) are skipped.
pub fn parse_compiler_messages(stderr: &str) -> Vec<CompilerMessage> {
    let mut out = Vec::new();
    let mut pending: Option<(PathBuf, u32, Option<u32>)> = None;
    for raw in stderr.lines() {
        let cleaned = strip_ansi(raw);
        let line = cleaned.trim_end();
        if line.is_empty() || line.starts_with(char::is_whitespace) {
            continue;
        }
        if line.starts_with("In file included from") {
            continue;
        }
        if let Some(msg) = parse_single_line(line) {
            out.push(msg);
            pending = None;
            continue;
        }
        if let Some(body) = line.strip_suffix(':') {
            if let Some(loc) = parse_location(body) {
                // With several loci, the first is the one the message is about.
                if pending.is_none() {
                    pending = Some(loc);
                }
                continue;
            }
        }
        if let Some((severity, message)) = split_severity(line) {
            if let Some((file, line_no, col)) = pending.take() {
                out.push(CompilerMessage {
                    file,
                    line: line_no,
                    col,
                    severity: severity.to_string(),
                    message: message.to_string(),
                });
            }
        }
    }
    out
}

/// Removes ANSI colour escapes (`ESC [ ... letter`).
pub(crate) fn strip_ansi(s: &str) -> String {
    if !s.contains('\u{1b}') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// `file:line`, `file:line:col` or `file:line:col-col` -> the parts.
pub(crate) fn parse_location(s: &str) -> Option<(PathBuf, u32, Option<u32>)> {
    let (rest, last) = s.rsplit_once(':')?;
    let number = |t: &str| -> Option<u32> {
        if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
            t.parse().ok()
        } else {
            None
        }
    };
    // The last part may be a column range like `5-12`.
    let last_num = number(last).or_else(|| {
        let (a, b) = last.split_once('-')?;
        number(b)?;
        number(a)
    })?;
    if let Some((file, line)) = rest.rsplit_once(':') {
        if let Some(line) = number(line) {
            if !file.is_empty() {
                return Some((PathBuf::from(file), line, Some(last_num)));
            }
        }
    }
    if rest.is_empty() || number(last).is_none() {
        return None;
    }
    Some((PathBuf::from(rest), last_num, None))
}

/// `Severity: message` -> the parts, if it starts with a known severity.
fn split_severity(s: &str) -> Option<(&str, &str)> {
    let lower = s.to_ascii_lowercase();
    for sev in SEVERITIES {
        if lower.starts_with(sev) && s[sev.len()..].starts_with(':') {
            let message = s[sev.len() + 1..].trim();
            return Some((&s[..sev.len()], message));
        }
    }
    None
}

/// `file:line:col: severity: message` -> a message.
fn parse_single_line(line: &str) -> Option<CompilerMessage> {
    for (idx, _) in line.match_indices(": ") {
        let after = &line[idx + 2..];
        let Some((severity, message)) = split_severity(after) else {
            continue;
        };
        if let Some((file, line_no, col)) = parse_location(&line[..idx]) {
            return Some(CompilerMessage {
                file,
                line: line_no,
                col,
                severity: severity.to_string(),
                message: message.to_string(),
            });
        }
    }
    None
}
