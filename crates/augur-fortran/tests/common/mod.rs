//! Helpers shared by the integration tests: write small programs to a temporary
//! directory, analyze them, and find blocks and statements by source line.

#![allow(dead_code)]

use augur_fortran::{analyze, FrontEndOptions};
use augur_ir::count::count_stmt;
use augur_ir::{AbOpCounts, Block, BlockKind, Program, Severity, StmtKind, Unit};
use std::path::PathBuf;
use tempfile::TempDir;

/// An analyzed program and the directory holding its sources.
pub struct Analyzed {
    /// Keeps the sources alive while the test runs.
    pub dir: TempDir,
    /// The analysis result.
    pub prog: Program,
}

/// Writes `files` (name, text) to a fresh directory and analyzes those whose names do
/// not end in `.inc` or `.h`, in the given order, with `opts`.
pub fn analyze_files_with(files: &[(&str, &str)], opts: &FrontEndOptions) -> Analyzed {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut paths = vec![];
    for (name, text) in files {
        let p = dir.path().join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&p, text).expect("write source");
        if !name.ends_with(".inc") && !name.ends_with(".h") {
            paths.push(p);
        }
    }
    let prog = analyze(&paths, opts);
    Analyzed { dir, prog }
}

/// [`analyze_files_with`] with default options.
pub fn analyze_files(files: &[(&str, &str)]) -> Analyzed {
    analyze_files_with(files, &FrontEndOptions::default())
}

/// Analyzes one source text saved as `name`.
pub fn analyze_src(name: &str, src: &str) -> Analyzed {
    analyze_files(&[(name, src)])
}

/// Analyzes free-form source saved as `t.f90`, asserting it was fully understood.
pub fn analyze_ok(src: &str) -> Analyzed {
    let a = analyze_src("t.f90", src);
    a.assert_clean();
    a
}

/// 1-based number of the only line of `src` containing `marker` as a whole word.
pub fn line_of(src: &str, marker: &str) -> u32 {
    let hits: Vec<usize> = src
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            l.match_indices(marker).any(|(i, _)| {
                !l[i + marker.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            })
        })
        .map(|(i, _)| i)
        .collect();
    assert_eq!(
        hits.len(),
        1,
        "marker `{marker}` must occur on exactly one line"
    );
    hits[0] as u32 + 1
}

/// The first unit of `a` (analyzed from `src`) and its loop whose DO is on the line
/// marked `marker`.
#[allow(dead_code)]
pub fn loop_at<'a>(
    a: &'a Analyzed,
    src: &str,
    marker: &str,
) -> (&'a Unit, &'a augur_ir::program::Loop) {
    let line = line_of(src, marker);
    let u = &a.prog.units[0];
    let l = u
        .loops
        .iter()
        .find(|l| l.span.start.line == line)
        .unwrap_or_else(|| panic!("no loop at line {line}"));
    (u, l)
}

/// Counts as `SRSL 1, ARSL 2` in code order (empty string for none).
pub fn fmt_counts(c: &AbOpCounts) -> String {
    c.iter()
        .map(|(op, n)| {
            if n.fract() == 0.0 {
                format!("{op} {}", n as i64)
            } else {
                format!("{op} {n}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

impl Analyzed {
    /// The unit named `name`.
    pub fn unit(&self, name: &str) -> &Unit {
        self.prog
            .units
            .iter()
            .find(|u| u.name == name)
            .unwrap_or_else(|| panic!("no unit `{name}`:\n{}", self.dump()))
    }

    /// The index of the unit named `name` in the program.
    pub fn unit_index(&self, name: &str) -> usize {
        self.prog
            .units
            .iter()
            .position(|u| u.name == name)
            .unwrap_or_else(|| panic!("no unit `{name}`"))
    }

    /// Error diagnostics, rendered.
    pub fn errors(&self) -> Vec<String> {
        self.prog
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| d.render(&self.prog.files))
            .collect()
    }

    /// All diagnostics, rendered.
    pub fn all_diags(&self) -> Vec<String> {
        self.prog
            .diagnostics
            .iter()
            .map(|d| d.render(&self.prog.files))
            .collect()
    }

    /// Asserts 100% coverage and no warnings or errors.
    pub fn assert_clean(&self) {
        let d = self.all_diags();
        assert!(d.is_empty(), "unexpected diagnostics:\n{}", d.join(""));
        assert_eq!(
            self.prog.coverage.statements, self.prog.coverage.lowered,
            "not all statements lowered"
        );
    }

    /// A readable dump of every unit's blocks (for failure messages).
    pub fn dump(&self) -> String {
        let mut s = String::new();
        for (i, u) in self.prog.units.iter().enumerate() {
            s += &format!("unit {i} {} {:?} host={:?}\n", u.name, u.kind, u.host);
            for b in &u.blocks {
                let lines: Vec<u32> = b
                    .stmts
                    .iter()
                    .map(|&i| u.stmts[i as usize].span.start.line)
                    .collect();
                s += &format!(
                    "  B{} {:?} {}-{} stmts@{:?} loop={:?} succs={:?}: {}\n",
                    b.id.0,
                    b.kind,
                    b.span.start.line,
                    b.span.end_line,
                    lines,
                    b.in_loop.map(|l| l.0),
                    b.succs.iter().map(|s| s.0).collect::<Vec<_>>(),
                    fmt_counts(&b.counts)
                );
            }
        }
        s
    }
}

/// Blocks of `kind` holding a statement that starts on `line`.
pub fn blocks_with<'u>(u: &'u Unit, line: u32, kinds: &[BlockKind]) -> Vec<&'u Block> {
    u.blocks
        .iter()
        .filter(|b| kinds.contains(&b.kind))
        .filter(|b| {
            b.stmts
                .iter()
                .any(|&i| u.stmts[i as usize].span.start.line == line)
        })
        .collect()
}

fn one<'u>(u: &'u Unit, line: u32, kinds: &[BlockKind]) -> &'u Block {
    let v = blocks_with(u, line, kinds);
    assert_eq!(
        v.len(),
        1,
        "expected one {kinds:?} block with a statement on line {line} of `{}`, found {}",
        u.name,
        v.len()
    );
    v[0]
}

/// The straight (or entry) block holding the statement on `line`.
pub fn block_at(u: &Unit, line: u32) -> &Block {
    one(u, line, &[BlockKind::Straight, BlockKind::Entry])
}

/// The per-iteration block of the loop whose DO statement is on `line`.
pub fn header_at(u: &Unit, line: u32) -> &Block {
    one(u, line, &[BlockKind::LoopHeader])
}

/// The per-element block of the array statement on `line`.
pub fn elements_at(u: &Unit, line: u32) -> &Block {
    one(u, line, &[BlockKind::Elements])
}

/// Counts of the straight block holding `line`, formatted.
pub fn block_ops(u: &Unit, line: u32) -> String {
    fmt_counts(&block_at(u, line).counts)
}

/// The once-per-execution counts of the executable statement(s) starting on `line`
/// (by the counting rules applied to the lowered statement).
pub fn stmt_ops(u: &Unit, line: u32) -> String {
    let mut c = AbOpCounts::new();
    let mut found = false;
    for s in &u.stmts {
        if s.span.start.line == line && s.kind != StmtKind::NonExecutable {
            found = true;
            c.add_scaled(&count_stmt(&s.kind).once, 1.0);
        }
    }
    assert!(
        found,
        "no executable statement on line {line} of `{}`",
        u.name
    );
    fmt_counts(&c)
}

/// Path of a corpus file.
pub fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

/// A program `t` after `prelude` with `decls` and each statement alone in a block
/// (inside `if (kcase == i)`), and the line of each statement.
pub fn block_program(prelude: &str, decls: &str, stmts: &[&str]) -> (String, Vec<u32>) {
    let mut src = String::new();
    src += prelude;
    src += "\nprogram t\n";
    src += decls;
    src += "\n  integer :: kcase\n  kcase = 0\n";
    let mut lines = vec![];
    for (i, stmt) in stmts.iter().enumerate() {
        src += &format!("  if (kcase == {i}) then\n");
        lines.push(src.lines().count() as u32 + 1);
        src += &format!("    {stmt}\n  end if\n");
    }
    src += "end program t\n";
    (src, lines)
}

/// Checks statements one by one: each `(statement, expected counts)` is placed alone in
/// the THEN arm of its own block IF inside `program t` (after `prelude`, e.g. a module,
/// and `decls`), and the arm's block must have exactly the expected AbOp counts.
pub fn check_blocks(prelude: &str, decls: &str, cases: &[(&str, &str)]) {
    let stmts: Vec<&str> = cases.iter().map(|c| c.0).collect();
    let (src, lines) = block_program(prelude, decls, &stmts);
    let a = analyze_src("t.f90", &src);
    a.assert_clean();
    let u = a.unit("t");
    let mut failures = vec![];
    for ((stmt, want), line) in cases.iter().zip(lines) {
        let got = block_ops(u, line);
        if got != *want {
            failures.push(format!("  `{stmt}`: expected [{want}], got [{got}]"));
        }
    }
    assert!(
        failures.is_empty(),
        "wrong counts:\n{}\n--- source ---\n{src}",
        failures.join("\n")
    );
}
