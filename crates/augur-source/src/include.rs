//! Fortran `INCLUDE 'file'` lines.

use crate::{
    file_lines, normalize_lines, read_and_register, Line, LoadError, LoadOptions, SourceForm,
    MAX_INCLUDE_DEPTH,
};
use augur_ir::{Diagnostic, Pos, SourceFiles};
use std::path::{Path, PathBuf};

/// Recognizes a whole-line `INCLUDE 'name'` statement (free form, after
/// normalization): optional label, the keyword in any case, a quoted name,
/// and optionally a trailing comment. Returns the name and the 0-based
/// character column of the keyword.
pub(crate) fn parse_include(line: &str) -> Option<(String, usize)> {
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < chars.len() && chars[*i].is_whitespace() {
            *i += 1;
        }
    };
    skip_ws(&mut i);
    if chars.get(i).is_some_and(|c| c.is_ascii_digit()) {
        while chars.get(i).is_some_and(|c| c.is_ascii_digit()) {
            i += 1;
        }
        if !chars.get(i).is_some_and(|c| c.is_whitespace()) {
            return None;
        }
        skip_ws(&mut i);
    }
    let kw_col = i;
    let kw: String = chars.get(i..i + 7)?.iter().collect();
    if !kw.eq_ignore_ascii_case("include") {
        return None;
    }
    i += 7;
    skip_ws(&mut i);
    let q = *chars.get(i)?;
    if q != '\'' && q != '"' {
        return None;
    }
    i += 1;
    let mut name = String::new();
    loop {
        let c = *chars.get(i)?;
        i += 1;
        if c == q {
            if chars.get(i) == Some(&q) {
                name.push(q);
                i += 1;
            } else {
                break;
            }
        } else {
            name.push(c);
        }
    }
    skip_ws(&mut i);
    match chars.get(i) {
        None | Some('!') if !name.is_empty() => Some((name, kw_col)),
        _ => None,
    }
}

/// The code part of a free-form line (before an inline `!` comment), for
/// telling whether a statement continues onto the next line.
fn code_part(line: &str) -> &str {
    let mut quote: Option<char> = None;
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '!' => return &line[..i],
            None => {}
        }
    }
    line
}

/// Turns a line into a comment, keeping its columns when it starts with a blank.
fn commented(line: &str, o: crate::LineOrigin) -> Line {
    if let Some(rest) = line.strip_prefix(' ') {
        (format!("!{rest}"), o)
    } else {
        (
            format!("!{line}"),
            crate::LineOrigin {
                col_offset: o.col_offset - 1,
                ..o
            },
        )
    }
}

struct Ctx<'a> {
    form: SourceForm,
    opts: &'a LoadOptions,
    files: &'a mut SourceFiles,
    diagnostics: &'a mut Vec<Diagnostic>,
    /// Canonical paths of the files being included, outermost first.
    stack: Vec<PathBuf>,
}

/// Expands the INCLUDE lines of `lines` (the main file's normalized lines).
pub(crate) fn expand(
    lines: Vec<Line>,
    form: SourceForm,
    opts: &LoadOptions,
    files: &mut SourceFiles,
    diagnostics: &mut Vec<Diagnostic>,
    main_path: &Path,
) -> Result<Vec<Line>, LoadError> {
    let mut ctx = Ctx {
        form,
        opts,
        files,
        diagnostics,
        stack: vec![canonical(main_path)],
    };
    let mut out = Vec::with_capacity(lines.len());
    expand_into(lines, &mut ctx, &mut out)?;
    Ok(out)
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

fn expand_into(lines: Vec<Line>, ctx: &mut Ctx, out: &mut Vec<Line>) -> Result<(), LoadError> {
    let mut continued = false;
    for (text, o) in lines {
        let code = code_part(&text).trim_end();
        let was_continued = continued;
        if !code.trim_start().is_empty() {
            continued = code.ends_with('&');
        }
        let Some((name, kw_col)) = (if was_continued {
            None
        } else {
            parse_include(&text)
        }) else {
            out.push((text, o));
            continue;
        };
        let including = ctx.files.get(o.file).path.clone();
        let pos = Pos {
            file: o.file,
            line: o.line,
            col: (kw_col as i64 + 1 + o.col_offset as i64).max(1) as u32,
        };
        let mut dirs: Vec<PathBuf> = Vec::new();
        dirs.push(match including.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        });
        dirs.extend(ctx.opts.include_dirs.iter().cloned());
        let found = if Path::new(&name).is_absolute() {
            Some(PathBuf::from(&name)).filter(|p| p.is_file())
        } else {
            dirs.iter().map(|d| d.join(&name)).find(|p| p.is_file())
        };
        out.push(commented(&text, o));
        let Some(found) = found else {
            let searched = if Path::new(&name).is_absolute() {
                String::from("(absolute path)")
            } else {
                dirs.iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            ctx.diagnostics.push(
                Diagnostic::error(
                    Some(pos),
                    format!("INCLUDE file '{name}' not found (searched: {searched})"),
                )
                .with_hint(if name.eq_ignore_ascii_case("mpif.h") {
                    String::from(
                        "'mpif.h' is MPI's: analyze the program with --mpi-ranks P (augur then builds \
                         it with mpif90, which finds it), or add its directory with -I DIR",
                    )
                } else {
                    format!(
                        "add the directory that holds '{name}' with -I DIR; the included code is not analyzed"
                    )
                }),
            );
            continue;
        };
        let canon = canonical(&found);
        if ctx.stack.contains(&canon) {
            return Err(LoadError::RecursiveInclude {
                file: including,
                line: o.line,
                included: found,
            });
        }
        if ctx.stack.len() > MAX_INCLUDE_DEPTH {
            return Err(LoadError::IncludeTooDeep {
                file: including,
                line: o.line,
                max: MAX_INCLUDE_DEPTH,
            });
        }
        let (id, inc_text) = read_and_register(&found, ctx.files, ctx.diagnostics)?;
        let inc_lines = file_lines(&inc_text, id);
        let inc_lines = match ctx.form {
            SourceForm::Fixed => normalize_lines(inc_lines),
            SourceForm::Free => inc_lines,
        };
        ctx.stack.push(canon);
        expand_into(inc_lines, ctx, out)?;
        ctx.stack.pop();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_lines_recognized() {
        assert_eq!(
            parse_include("      INCLUDE 'a.h'"),
            Some(("a.h".into(), 6))
        );
        assert_eq!(
            parse_include("include \"b.inc\""),
            Some(("b.inc".into(), 0))
        );
        assert_eq!(
            parse_include("  10  Include'c''d.h'   ! why"),
            Some(("c'd.h".into(), 6))
        );
        assert_eq!(parse_include("      INCLUDE 'a.h' x"), None);
        assert_eq!(parse_include("      INCLUDE = 3"), None);
        assert_eq!(parse_include("      includes 'a'"), None);
        assert_eq!(parse_include("      INCLUDE 'a.h"), None);
        assert_eq!(parse_include("      INCLUDE ''"), None);
        assert_eq!(parse_include("! INCLUDE 'a.h'"), None);
        assert_eq!(parse_include("10INCLUDE 'a.h'"), None);
    }

    #[test]
    fn code_part_skips_strings() {
        assert_eq!(code_part("x = '!' ! c"), "x = '!' ");
        assert_eq!(code_part("x = 1 &"), "x = 1 &");
    }
}
