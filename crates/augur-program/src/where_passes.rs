//! The passes gfortran makes over a WHERE construct's elements.
//!
//! The counting run counts a WHERE construct as one loop over its mask's elements: the
//! mask's block carries the element loop's overhead, each masked assignment only its
//! own work, for the elements its mask allows (`branches::masked_executions`).
//! gfortran compiles a construct in its general form otherwise (`gfc_trans_where_2`):
//! each mask is evaluated into a temporary logical array in a loop of its own, then
//! each assignment is a loop of its own over all the mask's elements that loads the
//! temporary's element and branches on it. So every assignment of such a construct
//! costs, for every element, an element loop's overhead, a reference to the mask
//! temporary and a conditional branch, whether its mask holds or not (in
//! `corpus/arrays.f90`, a WHERE with a masked ELSEWHERE and three assignments over
//! 250,000 elements: five compiled loops at the WHERE's line). The simple form (one
//! mask, at most one assignment under it and one under a plain ELSEWHERE) is one loop
//! with the test inside (`gfc_trans_where_3`), priced as counted.

use augur_ir::{AbOp, BlockKind, Program, StmtKind, Unit};

/// Adds to the mask block of each WHERE construct in gfortran's general form the
/// element passes of its assignments (see the module's documentation). `texts`: each
/// source file's text, by file index.
pub fn add_where_passes(program: &mut Program, texts: &[Option<&str>]) {
    for u in &mut program.units {
        let Some(text) = texts.get(u.source as usize).copied().flatten() else {
            continue;
        };
        for (block, passes) in construct_passes(u, text) {
            if let Some(b) = u.blocks.get_mut(block) {
                for op in PASS_OPS {
                    b.counts.add(op, passes as f64);
                }
            }
        }
    }
}

/// The element loops (unit name, loop id) of the WHERE constructs in gfortran's general
/// form: their compiled code is a loop per mask and per assignment, all at the WHERE's
/// line, which the AbOps count (with [`add_where_passes`]) and no one compiled loop is.
pub fn general_where_loops(program: &Program, texts: &[Option<&str>]) -> Vec<(String, u32)> {
    let mut out = vec![];
    for u in &program.units {
        let Some(text) = texts.get(u.source as usize).copied().flatten() else {
            continue;
        };
        for (block, _) in construct_passes(u, text) {
            if let Some(l) = u.blocks.get(block).and_then(|b| b.in_loop) {
                out.push((u.name.clone(), l.0));
            }
        }
    }
    out
}

/// What one element of one assignment's pass costs beyond the assignment: the element
/// loop's overhead, the mask temporary's element, the branch on it.
const PASS_OPS: [AbOp; 3] = [AbOp::ALOV, AbOp::ARR1, AbOp::GOTO];

/// The element block of the first mask of each general-form WHERE construct of `u`
/// with the number of its assignments (the passes beside the masks' own).
fn construct_passes(u: &Unit, text: &str) -> Vec<(usize, u32)> {
    let lines: Vec<&str> = text.lines().collect();
    let starts_with = |line: u32, word: &str| {
        lines
            .get(line as usize)
            .is_some_and(|l| crate::instrument::squeezed_code(l).starts_with(word))
    };
    let mut out = vec![];
    for (start, end, pos) in crate::instrument::where_ranges(u, text) {
        // A WHERE statement (its assignment on its own line) and the ranges of masked
        // ELSEWHEREs (a part of the construct they are in) are not constructs of their own.
        if end == pos.end_line || !starts_with(start, "where") {
            continue;
        }
        let Some(mask) = u.stmts.iter().position(|s| s.text == pos) else {
            continue;
        };
        let shape = shape_of(u, mask, end, |from, to| {
            crate::instrument::plain_elsewhere_between(&lines, from, to)
        });
        if shape.is_simple() {
            continue;
        }
        let block = u
            .blocks
            .iter()
            .position(|b| b.kind == BlockKind::Elements && b.stmts.contains(&(mask as u32)));
        if let Some(block) = block {
            out.push((block, shape.assignments()));
        }
    }
    out
}

/// The masks and assignments of a WHERE construct.
#[derive(Debug, Default, PartialEq)]
struct Shape {
    /// WHERE and masked ELSEWHERE statements (nested WHEREs included).
    masks: u32,
    /// Assignments before a plain ELSEWHERE.
    masked: u32,
    /// Assignments after it.
    otherwise: u32,
}

impl Shape {
    /// gfortran's one-loop form: one mask, at most one assignment on each side.
    fn is_simple(&self) -> bool {
        self.masks == 1 && self.masked <= 1 && self.otherwise <= 1
    }

    /// The assignments, each a pass over the elements.
    fn assignments(&self) -> u32 {
        self.masked + self.otherwise
    }
}

/// The shape of the construct whose WHERE is statement `mask` of `u`, ending on text
/// line `end`; `plain_elsewhere(from, to)`: whether a plain ELSEWHERE lies on the text
/// lines from `from` up to `to`.
fn shape_of(u: &Unit, mask: usize, end: u32, plain_elsewhere: impl Fn(u32, u32) -> bool) -> Shape {
    let mut shape = Shape {
        masks: 1,
        ..Shape::default()
    };
    let mut after = u.stmts[mask].text.end_line;
    let mut past_plain = false;
    for st in u.stmts.iter().skip(mask + 1) {
        if st.text.line > end {
            break;
        }
        past_plain |= plain_elsewhere(after + 1, st.text.line);
        after = st.text.end_line.max(after);
        match st.kind {
            StmtKind::Where { .. } => shape.masks += 1,
            StmtKind::Assign { .. } if past_plain => shape.otherwise += 1,
            StmtKind::Assign { .. } => shape.masked += 1,
            _ => {}
        }
    }
    shape
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passes(src: &str) -> Vec<u32> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.f90");
        std::fs::write(&path, src).unwrap();
        let (program, loaded) = augur_fortran::analyze_with_sources(
            std::slice::from_ref(&path),
            &augur_fortran::FrontEndOptions::default(),
        );
        let u = program.units.iter().find(|u| u.name == "w").unwrap();
        let text = loaded[0].as_ref().unwrap().text.clone();
        construct_passes(u, &text)
            .into_iter()
            .map(|p| p.1)
            .collect()
    }

    const HEAD: &str = "program w\n  real :: u(100), v(100)\n  v = 1.0\n  u = 0.0\n";

    #[test]
    fn a_construct_with_a_masked_elsewhere_makes_a_pass_per_assignment() {
        let src = format!(
            "{HEAD}  where (v > 0.3)\n    u = u - v\n  elsewhere (v < -0.3)\n    u = u + v\n  elsewhere\n    u = 0.5 * u\n  end where\n  print *, u(1)\nend program w\n"
        );
        assert_eq!(passes(&src), vec![3]);
    }

    #[test]
    fn two_assignments_under_one_mask_make_two_passes() {
        let src = format!(
            "{HEAD}  where (v > 0.3)\n    u = u - v\n    v = 2.0 * v\n  end where\n  print *, u(1)\nend program w\n"
        );
        assert_eq!(passes(&src), vec![2]);
    }

    #[test]
    fn the_one_loop_forms_make_no_pass() {
        let construct = format!(
            "{HEAD}  where (v > 0.3)\n    u = u - v\n  elsewhere\n    u = 0.5 * u\n  end where\n  print *, u(1)\nend program w\n"
        );
        assert!(passes(&construct).is_empty());
        let statement =
            format!("{HEAD}  where (v > 0.3) u = u - v\n  print *, u(1)\nend program w\n");
        assert!(passes(&statement).is_empty());
    }
}
