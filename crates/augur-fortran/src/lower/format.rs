//! The formats of READ, WRITE and PRINT statements, read before the run: the edit
//! descriptors that transfer no item (quoted and `nH` strings, `nX`, `T`, `TL`, `TR`,
//! `/`), which the run-time library processes one by one as it does items (gfortran 12
//! on a Zen 5: 30-40 ns each, against 240 ns for the statement).

use crate::syntax::{kind_of, label_value, text};
use std::collections::HashMap;
use tree_sitter::Node;

/// The FORMAT statements of a unit (internal procedures left out) by label: the text
/// from the first opening parenthesis on.
pub(super) fn format_statements(unit: Node<'_>, src: &str) -> HashMap<u32, String> {
    let mut out = HashMap::new();
    let mut stack = vec![unit];
    while let Some(n) = stack.pop() {
        if kind_of(n) == "internal_procedures" {
            continue;
        }
        let mut cursor = n.walk();
        let kids: Vec<Node<'_>> = n.named_children(&mut cursor).collect();
        for pair in kids.windows(2) {
            if kind_of(pair[0]) == "statement_label" && kind_of(pair[1]) == "format_statement" {
                let body = text(pair[1], src);
                if let (Some(l), Some(open)) = (label_value(pair[0], src), body.find('(')) {
                    out.insert(l, body[open..].to_string());
                }
            }
        }
        stack.extend(kids);
    }
    out
}

/// The format of an I/O statement as text, when it is known before the run: a
/// character constant (`'(f8.3)'`, `fmt="(i5)"`) or the label of one of `formats`.
/// `spec` is the statement's format specifier as written; a character variable gives
/// `None`.
pub(super) fn known_format(spec: &str, formats: &HashMap<u32, String>) -> Option<String> {
    let spec = spec.trim();
    if let Ok(label) = spec.parse::<u32>() {
        return formats.get(&label).cloned();
    }
    let quote = spec.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let inner = spec.strip_prefix(quote)?.strip_suffix(quote)?;
    let doubled = format!("{quote}{quote}");
    Some(inner.replace(&doubled, &quote.to_string()))
}

/// The edit descriptors of `format` that transfer no item, in one pass through it: group
/// repeat counts multiply their groups'; a scale factor (`1P`), sign and blank controls
/// and `:` are not counted (the library only sets a mode for them).
pub(super) fn format_controls(format: &str) -> u32 {
    let chars: Vec<char> = format.chars().collect();
    let mut i = chars.iter().position(|c| *c == '(').map_or(0, |p| p + 1);
    group(&chars, &mut i, 0)
}

/// Groups nested deeper than this are read as one (no format needs them; a fuzzed
/// source must not exhaust the stack).
const MAX_DEPTH: u32 = 32;

/// The controls of a parenthesized group from `i` (after its opening parenthesis) to its
/// closing one (or the end), `i` left after it.
fn group(c: &[char], i: &mut usize, depth: u32) -> u32 {
    let mut total = 0u32;
    while let Some(&ch) = c.get(*i) {
        match ch {
            ')' => {
                *i += 1;
                return total;
            }
            '\'' | '"' => {
                skip_string(c, i);
                total = total.saturating_add(1);
            }
            '/' => {
                *i += 1;
                total = total.saturating_add(1);
            }
            '(' if depth < MAX_DEPTH => {
                *i += 1;
                total = total.saturating_add(group(c, i, depth + 1));
            }
            '0'..='9' => total = total.saturating_add(after_number(c, i, depth)),
            ch if ch.is_ascii_alphabetic() => {
                let start = *i;
                while c.get(*i).is_some_and(|c| c.is_ascii_alphabetic()) {
                    *i += 1;
                }
                let word: String = c[start..*i].iter().collect::<String>().to_lowercase();
                if matches!(word.as_str(), "x" | "t" | "tl" | "tr") {
                    total = total.saturating_add(1);
                }
                // Its width, digits and exponent digits (`e12.4e3`: the `e3` is read
                // as a word of its own, not counted).
                while c.get(*i).is_some_and(|c| c.is_ascii_digit() || *c == '.') {
                    *i += 1;
                }
            }
            _ => *i += 1,
        }
    }
    total
}

/// What follows a number in a format: a group it repeats, a Hollerith string it sizes,
/// a skip (`3X`), records (`2/`), a scale factor or a data descriptor's repeat count.
fn after_number(c: &[char], i: &mut usize, depth: u32) -> u32 {
    let start = *i;
    while c.get(*i).is_some_and(|c| c.is_ascii_digit()) {
        *i += 1;
    }
    let n: u32 = c[start..*i].iter().collect::<String>().parse().unwrap_or(1);
    match c.get(*i).map(|c| c.to_ascii_lowercase()) {
        Some('(') if depth < MAX_DEPTH => {
            *i += 1;
            n.saturating_mul(group(c, i, depth + 1))
        }
        Some('h') => {
            *i = (*i + 1).saturating_add(n as usize).min(c.len());
            1
        }
        Some('x') => {
            *i += 1;
            1
        }
        Some('/') => {
            *i += 1;
            n
        }
        Some('p') => {
            *i += 1;
            0
        }
        _ => 0,
    }
}

/// Moves `i` past the quoted string that starts there (a doubled quote stays inside).
fn skip_string(c: &[char], i: &mut usize) {
    let q = c[*i];
    *i += 1;
    while let Some(&ch) = c.get(*i) {
        *i += 1;
        if ch == q {
            if c.get(*i) == Some(&q) {
                *i += 1;
            } else {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_skips_tabs_and_records_are_counted_once_a_pass() {
        for (f, n) in [
            ("(i5)", 0),
            ("('K', I5.5, ';NAME=', A, ';V=', F10.3)", 3),
            ("(1h,i10,f10.2,f12.4,3x,3f10.2,3x,3f10.2)", 3),
            ("(1x,i7,1x,2(1pe13.7,1x),5(1pe12.5,1x))", 9),
            ("(8(1pe12.4))", 0),
            ("(2x,8f8.4)", 1),
            ("('it''s', t10, i3, tl2, tr1, /, 2/)", 7),
            ("(1P, E12.4E3, ES14.6, SS, BN, :, 'x')", 1),
            ("(x, 'a\"b')", 2),
            ("('unterminated", 1),
            ("(3(2('a', 1x)))", 12),
            (
                &format!("{}'a'{}", "(".repeat(100_000), ")".repeat(100_000)),
                1,
            ),
        ] {
            assert_eq!(format_controls(f), n, "{f}");
        }
    }

    #[test]
    fn a_format_is_known_from_a_constant_or_a_label() {
        let formats = HashMap::from([(100, "('a', i5)".to_string())]);
        assert_eq!(
            known_format(" 100 ", &formats).as_deref(),
            Some("('a', i5)")
        );
        assert_eq!(known_format("200", &formats), None);
        assert_eq!(
            known_format("'(''ab'', i5)'", &formats).as_deref(),
            Some("('ab', i5)")
        );
        assert_eq!(known_format("\"(i5)\"", &formats).as_deref(), Some("(i5)"));
        assert_eq!(known_format("fmtvar", &formats), None);
    }
}
