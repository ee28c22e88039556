//! Running the C preprocessor the way gfortran does, and mapping its output
//! back to the original files through its linemarkers.

use crate::{read_and_register, Line, LineOrigin, LoadError, LoadOptions};
use augur_ir::{Diagnostic, FileId, SourceFiles};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Macros gfortran's preprocessor predefines (the target-independent ones).
const GFORTRAN_DEFINES: &[&str] = &["__GFORTRAN__=1", "_LANGUAGE_FORTRAN=1"];

/// Runs `program` (a GNU cpp) on `path` in traditional mode, as gfortran does,
/// with linemarkers kept. Returns its output, lossily decoded.
pub(crate) fn run(program: &str, path: &Path, opts: &LoadOptions) -> Result<String, LoadError> {
    let mut cmd = Command::new(program);
    // Traditional mode leaves Fortran's `//`, `'` and `"` alone; -undef drops
    // C's system macros (`linux`, `unix`), which gfortran does not define;
    // -ffreestanding skips the implicit <stdc-predef.h>.
    cmd.args(["-traditional-cpp", "-undef", "-ffreestanding"]);
    for d in GFORTRAN_DEFINES {
        cmd.arg(format!("-D{d}"));
    }
    for d in &opts.defines {
        cmd.arg(format!("-D{d}"));
    }
    for dir in &opts.include_dirs {
        cmd.arg("-I").arg(dir);
    }
    cmd.args(["-x", "c"]).arg(path);
    let output = match cmd.output() {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(LoadError::CppNotFound {
                path: path.to_path_buf(),
                program: program.to_string(),
            })
        }
        Err(e) => {
            return Err(LoadError::CppFailed {
                path: path.to_path_buf(),
                stderr: format!("could not run `{program}`: {e}"),
            })
        }
    };
    if !output.status.success() {
        let mut stderr = String::from_utf8_lossy(&output.stderr)
            .trim_end()
            .to_string();
        if stderr.is_empty() {
            stderr = format!("`{program}` exited with {}", output.status);
        }
        return Err(LoadError::CppFailed {
            path: path.to_path_buf(),
            stderr,
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Parses a linemarker `# 12 "file" flags...`: the line number and file name.
fn parse_linemarker(line: &str) -> Option<(u32, String)> {
    let rest = line.strip_prefix('#')?;
    let rest = rest.trim_start_matches([' ', '\t']);
    let rest = rest.strip_prefix("line").unwrap_or(rest);
    let rest = rest.trim_start_matches([' ', '\t']);
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let num: u32 = rest[..digits].parse().ok()?;
    let rest = rest[digits..].trim_start_matches([' ', '\t']);
    let rest = rest.strip_prefix('"')?;
    let mut name = Vec::new();
    let mut it = rest.bytes().peekable();
    loop {
        match it.next()? {
            b'"' => break,
            b'\\' => {
                let c = it.next()?;
                if (b'0'..=b'7').contains(&c) {
                    let mut v = u32::from(c - b'0');
                    for _ in 0..2 {
                        match it.peek() {
                            Some(&d) if (b'0'..=b'7').contains(&d) => {
                                v = v * 8 + u32::from(d - b'0');
                                it.next();
                            }
                            _ => break,
                        }
                    }
                    name.push(v as u8);
                } else {
                    name.push(c);
                }
            }
            b => name.push(b),
        }
    }
    Some((num, String::from_utf8_lossy(&name).into_owned()))
}

/// Splits the preprocessor's output into lines mapped to their original
/// files and lines, registering every file the linemarkers name.
pub(crate) fn map_output(
    out: &str,
    main_path: &Path,
    main: FileId,
    files: &mut SourceFiles,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Line> {
    let main_name = main_path.to_string_lossy().into_owned();
    let mut ids: HashMap<String, FileId> = HashMap::new();
    ids.insert(main_name, main);
    let mut cur_file = main;
    let mut cur_line: u32 = 1;
    let mut lines = Vec::new();
    for l in crate::fixed::split_lines(out) {
        if let Some((num, name)) = parse_linemarker(l) {
            cur_file = match ids.get(&name) {
                Some(&id) => id,
                None => {
                    let id = if name.starts_with('<') {
                        // <built-in>, <command-line>: attribute to the main file.
                        main
                    } else {
                        read_and_register(&PathBuf::from(&name), files, diagnostics)
                            .map(|(id, _)| id)
                            .unwrap_or(main)
                    };
                    ids.insert(name, id);
                    id
                }
            };
            cur_line = num.max(1);
            continue;
        }
        lines.push((
            l.to_string(),
            LineOrigin {
                file: cur_file,
                line: cur_line,
                col_offset: 0,
            },
        ));
        cur_line = cur_line.saturating_add(1);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linemarkers() {
        assert_eq!(
            parse_linemarker("# 12 \"a.F\" 1 3"),
            Some((12, "a.F".to_string()))
        );
        assert_eq!(
            parse_linemarker("# 1 \"dir\\\\x \\\"q\\\".h\""),
            Some((1, "dir\\x \"q\".h".to_string()))
        );
        assert_eq!(
            parse_linemarker("#line 7 \"b.h\""),
            Some((7, "b.h".to_string()))
        );
        assert_eq!(parse_linemarker("#pragma omp parallel"), None);
        assert_eq!(parse_linemarker("      x = 1"), None);
        assert_eq!(parse_linemarker("# 3 \"unterminated"), None);
    }
}
