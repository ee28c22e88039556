//! Splitting a source into chunks of whole program units.
//!
//! A tree-sitter tree takes about 1.3 KB per source line; a 100,000-line file
//! would hold 130 MB of tree at once. The front end instead parses one chunk of
//! top-level units at a time (see `analyze`). The split is a light scan of unit
//! headers and END statements; when a chunk does not parse cleanly the caller
//! falls back to parsing the whole file, so a wrong split never changes results.

/// A chunk: 0-based first line and byte range in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// 0-based line where the chunk starts.
    pub first_line: usize,
    /// Byte range of the chunk in the text.
    pub bytes: std::ops::Range<usize>,
}

/// Lines per chunk above which a unit boundary closes the chunk.
const CHUNK_LINES: usize = 2000;

/// Splits free-form text into chunks of whole top-level units, about
/// [`CHUNK_LINES`] lines each (a single unit may be longer).
pub fn split(text: &str) -> Vec<Chunk> {
    let mut chunks = vec![];
    let mut depth: usize = 0;
    let mut in_interface = false;
    let mut start_line = 0;
    let mut start_byte = 0;
    let mut offset = 0;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let line_end = offset + raw.len();
        offset = line_end;
        if !may_matter(raw) {
            continue;
        }
        let stmt = statement_text(raw);
        if stmt.is_empty() {
            continue;
        }
        if is_interface_start(&stmt) {
            in_interface = true;
            continue;
        }
        if in_interface {
            if is_end_of(&stmt, "interface") {
                in_interface = false;
            }
            continue;
        }
        if is_unit_header(&stmt) {
            depth += 1;
        } else if is_unit_end(&stmt) {
            depth = depth.saturating_sub(1);
            if depth == 0 && i + 1 - start_line >= CHUNK_LINES {
                chunks.push(Chunk {
                    first_line: start_line,
                    bytes: start_byte..line_end,
                });
                start_line = i + 1;
                start_byte = line_end;
            }
        }
    }
    if start_byte < text.len() || chunks.is_empty() {
        chunks.push(Chunk {
            first_line: start_line,
            bytes: start_byte..text.len(),
        });
    }
    chunks
}

/// Cheap pre-check: whether the line's first word can begin a unit header, a unit
/// END or an interface block (assignments, DO, IF and CALL lines cannot).
fn may_matter(line: &str) -> bool {
    let t = line
        .trim_start()
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start();
    let mut buf = [0u8; 16];
    let mut n = 0;
    for b in t.bytes() {
        if !(b.is_ascii_alphabetic() || b == b'_') || n == buf.len() {
            break;
        }
        buf[n] = b.to_ascii_lowercase();
        n += 1;
    }
    let word = &buf[..n];
    word.starts_with(b"end")
        || matches!(
            word,
            b"program"
                | b"module"
                | b"submodule"
                | b"block"
                | b"blockdata"
                | b"subroutine"
                | b"function"
                | b"recursive"
                | b"pure"
                | b"elemental"
                | b"impure"
                | b"non_recursive"
                | b"integer"
                | b"real"
                | b"double"
                | b"doubleprecision"
                | b"complex"
                | b"doublecomplex"
                | b"logical"
                | b"character"
                | b"type"
                | b"class"
                | b"interface"
                | b"abstract"
        )
}

/// Lower-case statement text of a line without label, inline comment or surrounding blanks.
fn statement_text(line: &str) -> String {
    let mut s = String::with_capacity(line.len());
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '!' => break,
            None => {}
        }
        s.push(c.to_ascii_lowercase());
    }
    let t = s.trim();
    // Drop a leading statement label.
    let t = t
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start();
    t.to_string()
}

fn words(s: &str) -> Vec<&str> {
    s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect()
}

fn is_interface_start(s: &str) -> bool {
    let w = words(s);
    matches!(
        w.as_slice(),
        ["interface", ..] | ["abstract", "interface", ..]
    )
}

fn is_end_of(s: &str, what: &str) -> bool {
    let squeezed: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    squeezed.starts_with(&format!("end{what}"))
}

/// `end`, `end subroutine x`, `endfunction`, `end block data`, ... (not `end do`, `end block`).
fn is_unit_end(s: &str) -> bool {
    let squeezed: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    if squeezed == "end" {
        return true;
    }
    [
        "program",
        "subroutine",
        "function",
        "module",
        "submodule",
        "blockdata",
    ]
    .iter()
    .any(|k| squeezed.starts_with(&format!("end{k}")))
        && !squeezed.starts_with("endmoduleprocedure")
        && (!squeezed.starts_with("endblock") || squeezed.starts_with("endblockdata"))
}

/// A unit or procedure header: `program p`, `module m`, `block data`,
/// `[prefixes] subroutine s`, `[type] [prefixes] function f(...)`.
fn is_unit_header(s: &str) -> bool {
    let w = words(s);
    match w.as_slice() {
        ["program", _, ..] | ["submodule", ..] => return true,
        ["module", second, ..] => return *second != "procedure",
        ["block", "data", ..] | ["blockdata", ..] => return true,
        _ => {}
    }
    // Skip prefixes and type specifications (with their kind parentheses), then look for
    // `subroutine` or `function` followed by a name.
    let bytes = s.as_bytes();
    let mut i = 0;
    loop {
        while i < bytes.len() && bytes[i] == b' ' {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            i += 1;
        }
        let word = &s[start..i];
        match word {
            "subroutine" | "function" => {
                let rest = s[i..].trim_start();
                return rest.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
            }
            "recursive" | "pure" | "elemental" | "impure" | "non_recursive" | "module"
            | "integer" | "real" | "double" | "precision" | "doubleprecision" | "complex"
            | "doublecomplex" | "logical" | "character" | "type" | "class" => {
                // Kind or length selector: (...) or *n.
                while i < bytes.len() && bytes[i] == b' ' {
                    i += 1;
                }
                if i < bytes.len() && bytes[i] == b'(' {
                    let mut d = 0;
                    while i < bytes.len() {
                        match bytes[i] {
                            b'(' => d += 1,
                            b')' => {
                                d -= 1;
                                if d == 0 {
                                    i += 1;
                                    break;
                                }
                            }
                            _ => {}
                        }
                        i += 1;
                    }
                } else if i < bytes.len() && bytes[i] == b'*' {
                    i += 1;
                    while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b' ') {
                        i += 1;
                    }
                }
            }
            _ => return false,
        }
        if i >= bytes.len() {
            return false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_and_ends() {
        assert!(is_unit_header("subroutine foo(a, b)"));
        assert!(is_unit_header("recursive subroutine foo"));
        assert!(is_unit_header("real(8) function f(x)"));
        assert!(is_unit_header("double precision function f(x)"));
        assert!(is_unit_header("real*8 function f(x)"));
        assert!(is_unit_header(
            "pure elemental integer(kind=8) function g(i) result(r)"
        ));
        assert!(is_unit_header("program main"));
        assert!(is_unit_header("module m"));
        assert!(is_unit_header("block data bd"));
        assert!(!is_unit_header("module procedure foo"));
        assert!(!is_unit_header("real(8) :: function_value"));
        assert!(!is_unit_header("call subroutine_x(1)"));
        assert!(!is_unit_header("x = function(1)"));
        assert!(is_unit_end("end"));
        assert!(is_unit_end("end subroutine foo"));
        assert!(is_unit_end("endfunction"));
        assert!(is_unit_end("end block data"));
        assert!(!is_unit_end("end do"));
        assert!(!is_unit_end("end if"));
        assert!(!is_unit_end("end block"));
        assert!(!is_unit_end("end interface"));
        assert!(!is_unit_end("endif"));
        assert_eq!(statement_text("  10 END  ! done\n"), "end");
        assert_eq!(statement_text("  x = '!' ! c\n"), "x = '!'");
    }

    #[test]
    fn chunks_hold_whole_units() {
        let mut text = String::new();
        for i in 0..3000 {
            text.push_str(&format!(
                "subroutine s{i}(x)\n  real x\n  interface\n    subroutine t(y)\n    end subroutine\n  end interface\n  x = 1\ncontains\n  subroutine inner\n  end subroutine inner\nend subroutine s{i}\n"
            ));
        }
        let chunks = split(&text);
        assert!(chunks.len() > 1);
        let mut next = 0;
        for c in &chunks {
            assert_eq!(c.bytes.start, next);
            next = c.bytes.end;
            let body = &text[c.bytes.clone()];
            assert!(body.starts_with("subroutine s"), "{}", &body[..40]);
            assert!(body.trim_end().ends_with(&format!(
                "end subroutine s{}",
                body.matches("\nend subroutine s").count()
                    + text[..c.bytes.start].matches("\nend subroutine s").count()
                    - 1
            )));
        }
        assert_eq!(next, text.len());
        assert_eq!(
            chunks[1].first_line,
            text[..chunks[1].bytes.start].lines().count()
        );
    }

    #[test]
    fn small_text_is_one_chunk() {
        let chunks = split("program p\nend\n");
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].bytes, 0..14);
    }
}
