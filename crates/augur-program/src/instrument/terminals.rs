//! DO loops that end on a labelled logical IF (`DO 10 I = 1, N` ... `10 IF (c) K = K + 1`,
//! classic FORTRAN 77): when the plan turns that IF into an IF-THEN construct to count its
//! guarded statement, the loop may no longer end there (a DO may not end on an IF-THEN
//! statement), so it becomes a block DO: its DO statement loses the label and an END DO
//! follows the construct's END IF, one for each loop ending on the label. The label stays
//! on the IF-THEN, so a GOTO to it still runs the IF.

use super::facts::do_statement;
use super::rewriting::Edit;
use augur_ir::{Program, Unit};
use std::collections::BTreeMap;

/// Adds the edits that make the DO loops ending on a guarded logical IF block DOs, for
/// every unit of `program` (`texts` by source); loops already made so are left alone.
pub(crate) fn block_dos(
    program: &Program,
    texts: &[Option<&str>],
    edits: &mut BTreeMap<u32, Vec<Edit>>,
) {
    for u in &program.units {
        let Some(text) = texts.get(u.source as usize).copied().flatten() else {
            continue;
        };
        let list = edits.entry(u.source).or_default();
        let new = unit_edits(u, text, list);
        list.extend(new);
    }
}

/// The edits of one unit, given the edits planned for its source so far.
fn unit_edits(u: &Unit, text: &str, planned: &[Edit]) -> Vec<Edit> {
    let guards: Vec<augur_ir::TextPos> = planned
        .iter()
        .filter_map(|e| match e {
            Edit::LogicalIf { guard, .. } => Some(*guard),
            _ => None,
        })
        .collect();
    let mut out = vec![];
    for (li, l) in u.loops.iter().enumerate() {
        let (Some(label), Some(ds)) = (l.label, do_statement(u, li)) else {
            continue;
        };
        let end = l.end_text;
        let guarded = guards.iter().any(|g| {
            end.line <= g.line && g.line <= end.end_line && (g.line, g.col) > (end.line, end.col)
        });
        if !guarded {
            continue;
        }
        let label = label.to_string();
        let Some(line) = text.lines().nth(ds.text.line as usize) else {
            continue;
        };
        // `DO 10, I = 1, N`: the comma would stay behind; such loops are left as they are.
        let after_do = line
            .get(ds.text.col as usize..)
            .unwrap_or("")
            .to_ascii_lowercase();
        let rest = after_do
            .trim_start()
            .strip_prefix("do")
            .unwrap_or("")
            .trim_start();
        if !rest.starts_with(&label) || rest[label.len()..].trim_start().starts_with(',') {
            continue;
        }
        let done = planned.iter().chain(&out).any(|e| {
            matches!(e, Edit::Replace { line, from, .. } if *line == ds.text.line && *from == label)
        });
        if done {
            continue;
        }
        out.push(Edit::Replace {
            line: ds.text.line,
            col: ds.text.col,
            from: label,
            to: String::new(),
        });
        out.push(Edit::After {
            line: end.end_line,
            text: "END DO".to_string(),
            order: 0,
        });
    }
    out
}
