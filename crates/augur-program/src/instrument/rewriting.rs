//! Rewriting: the source edits the planners produce ([`Edit`]) and how they are
//! applied to a source text, with the map from the instrumented lines back to the
//! input lines.

use super::facts::has_word;
use super::Plan;
use augur_ir::{TextPos, Unit};
use std::collections::HashMap;

#[derive(Debug, Clone)]
pub(crate) enum Edit {
    /// Insert statement text before the statement at (line, col); `label` moves from
    /// the statement to the inserted text.
    Before {
        line: u32,
        col: u32,
        take_label: bool,
        text: String,
        order: u32,
    },
    /// Insert a line after line `line`.
    After { line: u32, text: String, order: u32 },
    /// Turn `IF (c) stmt` into an IF-THEN construct with `text` before `stmt`.
    LogicalIf { guard: TextPos, text: String },
    /// Replace `from` with `to` on line `line`, from column `col` on (first occurrence,
    /// case-insensitive, word).
    Replace {
        line: u32,
        col: u32,
        from: String,
        to: String,
    },
    /// Insert `text` (no line break) at column `col` of line `line`, inside a statement;
    /// the columns of the other edits of the line refer to the text before insertion.
    Insert { line: u32, col: u32, text: String },
}

/// Applies the plan's edits to the text of source `source`, returning the
/// instrumented text and, for each of its lines, the 0-based line of the input
/// text it came from (inserted lines map to the line they were inserted at).
pub fn rewrite(plan: &Plan, source: u32, text: &str) -> (String, Vec<u32>) {
    let empty = vec![];
    let edits = plan.edits.get(&source).unwrap_or(&empty);
    let mut rewriter = Rewriter {
        edits: EditsByLine::of(edits),
        out: Output {
            text: String::with_capacity(text.len() + edits.len() * 40),
            map: Vec::new(),
        },
        pending_endif: vec![],
    };
    for (i, raw) in text.lines().enumerate() {
        rewriter.line(i as u32, raw);
    }
    (rewriter.out.text, rewriter.out.map)
}

/// The edits of one source, grouped by the input line they apply to.
#[derive(Default)]
struct EditsByLine<'a> {
    /// Statements inserted before a statement: (column, order, take the label, text).
    before: HashMap<u32, Vec<(u32, u32, bool, &'a str)>>,
    /// Lines inserted after the line: (order, text).
    after: HashMap<u32, Vec<(u32, &'a str)>>,
    /// Logical IFs whose guarded statement starts on the line: (its position, text).
    guards: HashMap<u32, Vec<(TextPos, &'a str)>>,
    /// Words replaced: (from column, word, replacement).
    replaces: HashMap<u32, Vec<(usize, &'a str, &'a str)>>,
    /// Texts inserted inside statements: (column, text).
    inserts: HashMap<u32, Vec<(u32, &'a str)>>,
}

impl<'a> EditsByLine<'a> {
    fn of(edits: &'a [Edit]) -> EditsByLine<'a> {
        let mut by_line = EditsByLine::default();
        for e in edits {
            match e {
                Edit::Before {
                    line,
                    col,
                    take_label,
                    text,
                    order,
                } => {
                    by_line
                        .before
                        .entry(*line)
                        .or_default()
                        .push((*col, *order, *take_label, text))
                }
                Edit::After { line, text, order } => {
                    by_line.after.entry(*line).or_default().push((*order, text))
                }
                Edit::LogicalIf { guard, text } => by_line
                    .guards
                    .entry(guard.line)
                    .or_default()
                    .push((*guard, text)),
                Edit::Replace {
                    line,
                    col,
                    from,
                    to,
                } => by_line
                    .replaces
                    .entry(*line)
                    .or_default()
                    .push((*col as usize, from, to)),
                Edit::Insert { line, col, text } => {
                    by_line.inserts.entry(*line).or_default().push((*col, text))
                }
            }
        }
        by_line
    }
}

/// The instrumented text being written, with the input line of each of its lines.
struct Output {
    text: String,
    map: Vec<u32>,
}

impl Output {
    /// Writes `line` as a line that came from input line `from`; an inserted text of
    /// several lines (a probe call continued with `&`, shape records) maps each of them.
    fn push_line(&mut self, line: &str, from: u32) {
        for part in line.split('\n') {
            self.text.push_str(part);
            self.text.push('\n');
            self.map.push(from);
        }
    }
}

/// Applies grouped edits line by line.
struct Rewriter<'a> {
    edits: EditsByLine<'a>,
    out: Output,
    /// (line, column) after which an END IF goes, for the logical IFs turned into
    /// constructs.
    pending_endif: Vec<(u32, u32)>,
}

/// Column `c` of the input line in the line after insertions (`shifts`: column and
/// length of each insertion).
fn shifted(shifts: &[(u32, u32)], c: u32) -> u32 {
    c + shifts.iter().filter(|s| s.0 <= c).map(|s| s.1).sum::<u32>()
}

impl Rewriter<'_> {
    /// Rewrites input line `i` (text `raw`) with its edits.
    fn line(&mut self, i: u32, raw: &str) {
        let mut line = raw.to_string();
        let shifts = self.insert_within(i, &mut line);
        if let Some(rs) = self.edits.replaces.get(&i) {
            for (col, from, to) in rs {
                line = match (line.get(..*col), line.get(*col..)) {
                    (Some(head), Some(tail)) => format!("{head}{}", replace_word(tail, from, to)),
                    _ => replace_word(&line, from, to),
                };
            }
        }
        // Logical IFs whose guarded statement starts on this line.
        let mut cut_points: Vec<(u32, String)> = vec![];
        if let Some(gs) = self.edits.guards.get(&i) {
            // Several counters of one guarded statement (its block and its array
            // elements) share one IF-THEN.
            let mut merged: Vec<(TextPos, Vec<&str>)> = vec![];
            for (g, t) in gs {
                match merged.iter_mut().find(|(m, _)| m == g) {
                    Some((_, texts)) => texts.push(t),
                    None => merged.push((*g, vec![t])),
                }
            }
            for (g, texts) in merged {
                let body = texts.join("\n");
                cut_points.push((shifted(&shifts, g.col), format!("THEN\n{body}\n")));
                self.pending_endif.push((g.end_line, g.end_col));
            }
        }
        // Counters before statements on this line.
        let label_taken = self.insert_before(i, &line, &shifts, &mut cut_points);
        if label_taken {
            // Blank out the label (keep columns).
            let lead = line.len() - line.trim_start().len();
            let digits = line[lead..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .count();
            line.replace_range(lead..lead + digits, &" ".repeat(digits));
        }
        // END IFs for guarded statements ending on this line.
        let ends: Vec<u32> = self
            .pending_endif
            .iter()
            .filter(|(l, _)| *l == i)
            .map(|(_, c)| *c)
            .collect();
        self.pending_endif.retain(|(l, _)| *l != i);
        for c in ends {
            cut_points.push((shifted(&shifts, c), "\nEND IF\n".into()));
        }
        self.emit_cut(i, &line, cut_points);
        if let Some(a) = self.edits.after.get(&i) {
            let mut a = a.clone();
            a.sort_by_key(|x| x.0);
            for (_, t) in a {
                self.out.push_line(t, i);
            }
        }
    }

    /// Insertions inside statements of line `i`, right to left; returns the column
    /// and length of each, by which the columns of this line's other edits move. Texts
    /// inserted at the same column keep their order (the first planned ends up
    /// leftmost).
    fn insert_within(&self, i: u32, line: &mut String) -> Vec<(u32, u32)> {
        let mut shifts: Vec<(u32, u32)> = vec![];
        if let Some(ins) = self.edits.inserts.get(&i) {
            let mut ins: Vec<(usize, (u32, &str))> = ins.iter().copied().enumerate().collect();
            ins.sort_by_key(|(k, x)| (std::cmp::Reverse(x.0), std::cmp::Reverse(*k)));
            for (_, (col, t)) in ins {
                if line.is_char_boundary(col as usize) && col as usize <= line.len() {
                    line.insert_str(col as usize, t);
                    shifts.push((col, t.len() as u32));
                }
            }
        }
        shifts
    }

    /// The statements inserted before statements of line `i`: whole lines before it
    /// when the statement starts the line (moving its label if asked), else cut points
    /// inside it. Returns whether the line's label moved.
    fn insert_before(
        &mut self,
        i: u32,
        line: &str,
        shifts: &[(u32, u32)],
        cut_points: &mut Vec<(u32, String)>,
    ) -> bool {
        let mut label_taken = false;
        let Some(bs) = self.edits.before.get(&i) else {
            return false;
        };
        let mut bs = bs.clone();
        bs.sort_by_key(|b| (b.0, b.1));
        for (col, _, take_label, t) in bs {
            let col = shifted(shifts, col);
            let prefix = line.get(..col as usize).unwrap_or("");
            if let Some(label) = label_and_construct_name(prefix) {
                // Insert whole lines before this one, moving the label if asked (a
                // construct name `outer: DO` stays with its statement).
                if take_label && !label.is_empty() && !label_taken {
                    self.out.push_line(&format!("{label} {t}"), i);
                    label_taken = true;
                } else {
                    self.out.push_line(t, i);
                }
            } else {
                cut_points.push((col, format!("\n{t}\n")));
            }
        }
        label_taken
    }

    /// Writes line `i` (text `line`) cut at `cut_points`, with the text of each cut
    /// inserted, cleaning a `;` left at the start of a line by a split.
    fn emit_cut(&mut self, i: u32, line: &str, mut cut_points: Vec<(u32, String)>) {
        let mut segments: Vec<String> = vec![];
        cut_points.sort_by_key(|c| c.0);
        let mut last = 0usize;
        for (col, ins) in cut_points {
            let col = (col as usize).min(line.len());
            if col < last {
                continue;
            }
            segments.push(line[last..col].to_string());
            segments.push(ins);
            last = col;
        }
        segments.push(line[last..].to_string());
        let joined: String = segments.concat();
        for part in joined.split('\n') {
            let p = part.trim_start();
            let p = if let Some(rest) = p.strip_prefix(';') {
                rest.to_string()
            } else {
                part.to_string()
            };
            self.out.push_line(&p, i);
        }
    }
}

/// The label of a line's text before a statement when that text holds only a label
/// and a construct name (`10`, `outer:`, `10 outer :`, nothing); `None` when the
/// statement follows other code on the line.
fn label_and_construct_name(prefix: &str) -> Option<&str> {
    let t = prefix.trim();
    let t = match t.strip_suffix(':') {
        Some(named) => {
            let named = named.trim_end();
            let name_start = named
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(0, |k| k + 1);
            let name = &named[name_start..];
            if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
                return None;
            }
            named[..name_start].trim()
        }
        None => t,
    };
    t.chars().all(|c| c.is_ascii_digit()).then_some(t)
}

pub(crate) fn replace_word(line: &str, from: &str, to: &str) -> String {
    let lower = line.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut start = 0;
    while let Some(pos) = lower[start..].find(from) {
        let a = start + pos;
        let b = a + from.len();
        let before_ok = a == 0 || !(bytes[a - 1].is_ascii_alphanumeric() || bytes[a - 1] == b'_');
        let after_ok = b >= bytes.len() || !(bytes[b].is_ascii_alphanumeric() || bytes[b] == b'_');
        if before_ok && after_ok {
            return format!("{}{}{}", &line[..a], to, &line[b..]);
        }
        start = b;
    }
    line.to_string()
}

/// The edits that make a unit use `module`: a USE right after its header (or before its
/// first statement of any kind when it has none), and PURE and ELEMENTAL procedures made impure (they may not update
/// the instrumentation's state).
pub(crate) fn use_module_edits(u: &Unit, text: &str, module: &str) -> Vec<Edit> {
    let mut edits = vec![];
    if u.header_text != TextPos::default() {
        edits.push(Edit::After {
            line: u.header_text.end_line,
            text: format!("use {module}"),
            order: 0,
        });
        let header_line = text.lines().nth(u.header_text.line as usize).unwrap_or("");
        let lower = header_line.to_ascii_lowercase();
        if has_word(&lower, "elemental") && !has_word(&lower, "impure") {
            edits.push(Edit::Replace {
                col: 0,
                line: u.header_text.line,
                from: "elemental".into(),
                to: "impure elemental".into(),
            });
        }
        if has_word(&lower, "pure") {
            edits.push(Edit::Replace {
                col: 0,
                line: u.header_text.line,
                from: "pure".into(),
                to: "".into(),
            });
        }
    } else {
        // A main program without PROGRAM statement: the USE goes before its first
        // statement of any kind (a USE may follow no IMPLICIT, declaration, DATA, ...).
        edits.push(Edit::Before {
            line: u.start_text.line,
            col: 0,
            take_label: false,
            text: format!("use {module}"),
            order: 0,
        });
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserted_texts_of_several_lines_map_every_line() {
        let text = "      N = 100\n      DO 10 I = 1, N\n   10 CONTINUE\n      K = 'ABC'\n";
        let mut plan = Plan::default();
        plan.edits.insert(
            0,
            vec![
                Edit::Before {
                    line: 1,
                    col: 6,
                    take_label: true,
                    text: "call augur_env(int(0, 4), int(1, 4), [ &\nint(n, 8) ])".into(),
                    order: 1,
                },
                Edit::After {
                    line: 2,
                    text: "s(1) = lbound(x, 1)\ns(2) = size(x, 1)".into(),
                    order: 0,
                },
            ],
        );
        let (out, map) = rewrite(&plan, 0, text);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), map.len(), "{out}");
        // Every line of the copy maps to the input line it came from or was inserted at.
        let k = lines.iter().position(|l| l.contains("'ABC'")).unwrap();
        assert_eq!(map[k], 3, "{out}\n{map:?}");
        let d = lines.iter().position(|l| l.contains("DO 10")).unwrap();
        assert_eq!(map[d], 1);
        assert_eq!(map[d - 1], 1);
        assert_eq!(map[d + 3], 2, "{out}\n{map:?}");
    }
}
