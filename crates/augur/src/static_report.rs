//! Rendering of static analysis results: text tables and the JSON document.

use augur_ir::abop::CATALOGUE;
use augur_ir::{AbOpCounts, BlockKind, Diagnostic, LoopKind, Program, SourceFiles, Span, UnitKind};
use serde::Serialize;
use std::fmt::Write as _;

/// Version of the static-analysis JSON document.
pub const STATIC_SCHEMA: u32 = 1;

/// The JSON document written by `augur analyze --static --json`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct StaticReport<'a> {
    schema: u32,
    kind: &'static str,
    files: Vec<FileEntry<'a>>,
    coverage: CoverageEntry,
    units: Vec<UnitEntry<'a>>,
    diagnostics: Vec<DiagEntry<'a>>,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
struct FileEntry<'a> {
    path: String,
    sha256: &'a str,
    lines: u32,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
struct CoverageEntry {
    statements: u64,
    lowered: u64,
    percent: f64,
    source_lines: u64,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
struct UnitEntry<'a> {
    name: &'a str,
    kind: UnitKind,
    file: String,
    first_line: u32,
    last_line: u32,
    host: Option<&'a str>,
    blocks: Vec<BlockEntry<'a>>,
    loops: Vec<LoopEntry<'a>>,
    static_total: AbOpCounts,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
struct BlockEntry<'a> {
    id: u32,
    kind: BlockKind,
    file: String,
    first_line: u32,
    last_line: u32,
    in_loop: Option<u32>,
    succs: Vec<u32>,
    counts: &'a AbOpCounts,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
struct LoopEntry<'a> {
    id: u32,
    kind: &'a LoopKind,
    first_line: u32,
    parent: Option<u32>,
    depth: u32,
    var: Option<&'a str>,
    start: Option<&'a str>,
    end: Option<&'a str>,
    step: Option<&'a str>,
    constant_trips: Option<i64>,
    elements: Option<&'a str>,
    unit_step: bool,
    header_block: u32,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
struct DiagEntry<'a> {
    severity: augur_ir::Severity,
    file: Option<String>,
    line: Option<u32>,
    column: Option<u32>,
    message: &'a str,
    hint: Option<&'a str>,
}

fn file_name(files: &SourceFiles, span: &Span) -> String {
    files
        .files
        .get(span.start.file.0 as usize)
        .map(|f| f.path.display().to_string())
        .unwrap_or_default()
}

impl<'a> StaticReport<'a> {
    /// Builds the document from an analyzed program.
    pub fn new(p: &'a Program) -> StaticReport<'a> {
        let files = p
            .files
            .files
            .iter()
            .map(|f| FileEntry {
                path: f.path.display().to_string(),
                sha256: &f.sha256,
                lines: f.lines,
            })
            .collect();
        let units = p
            .units
            .iter()
            .map(|u| UnitEntry {
                name: &u.name,
                kind: u.kind,
                file: file_name(&p.files, &u.span),
                first_line: u.span.start.line,
                last_line: u.span.end_line,
                host: u.host.and_then(|h| p.units.get(h)).map(|h| h.name.as_str()),
                blocks: u
                    .blocks
                    .iter()
                    .map(|b| BlockEntry {
                        id: b.id.0,
                        kind: b.kind,
                        file: file_name(&p.files, &b.span),
                        first_line: b.span.start.line,
                        last_line: b.span.end_line,
                        in_loop: b.in_loop.map(|l| l.0),
                        succs: b.succs.iter().map(|s| s.0).collect(),
                        counts: &b.counts,
                    })
                    .collect(),
                loops: u
                    .loops
                    .iter()
                    .map(|l| LoopEntry {
                        id: l.id.0,
                        kind: &l.kind,
                        first_line: l.span.start.line,
                        parent: l.parent.map(|x| x.0),
                        depth: l.depth,
                        var: l.var.as_deref(),
                        start: l.bounds.as_ref().map(|b| b.start.as_str()),
                        end: l.bounds.as_ref().map(|b| b.end.as_str()),
                        step: l.bounds.as_ref().and_then(|b| b.step.as_deref()),
                        constant_trips: l.bounds.as_ref().and_then(|b| b.constant_trips),
                        elements: l.elements.as_deref(),
                        unit_step: l.unit_step,
                        header_block: l.header_block.0,
                    })
                    .collect(),
                static_total: u.static_total(),
            })
            .collect();
        let diagnostics = p
            .diagnostics
            .iter()
            .map(|d: &Diagnostic| DiagEntry {
                severity: d.severity,
                file: d.pos.map(|pos| {
                    p.files
                        .files
                        .get(pos.file.0 as usize)
                        .map(|f| f.path.display().to_string())
                        .unwrap_or_default()
                }),
                line: d.pos.map(|pos| pos.line),
                column: d.pos.map(|pos| pos.col),
                message: &d.message,
                hint: d.hint.as_deref(),
            })
            .collect();
        StaticReport {
            schema: STATIC_SCHEMA,
            kind: "augur-static-analysis",
            files,
            coverage: CoverageEntry {
                statements: p.coverage.statements,
                lowered: p.coverage.lowered,
                percent: p.coverage.percent(),
                source_lines: p.coverage.source_lines,
            },
            units,
            diagnostics,
        }
    }
}

/// Renders counts as `ARDL 2, ARR1 3`.
pub fn counts_inline(c: &AbOpCounts) -> String {
    let mut s = String::new();
    for (i, (op, n)) in c.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        if n.fract() == 0.0 {
            let _ = write!(s, "{op} {n:.0}");
        } else {
            let _ = write!(s, "{op} {n:.2}");
        }
    }
    s
}

fn kind_name(k: UnitKind) -> &'static str {
    match k {
        UnitKind::Program => "program",
        UnitKind::Subroutine => "subroutine",
        UnitKind::Function => "function",
        UnitKind::Module => "module",
        UnitKind::BlockData => "block data",
    }
}

/// The human-readable static report.
pub fn render_text(p: &Program, all_blocks: bool) -> String {
    let mut out = String::new();
    let blocks: usize = p.units.iter().map(|u| u.blocks.len()).sum();
    let loops: usize = p.units.iter().map(|u| u.loops.len()).sum();
    let _ = writeln!(
        out,
        "augur static analysis: {} file(s), {} lines, {} unit(s), {} basic blocks, {} loops",
        p.files.files.len(),
        p.coverage.source_lines,
        p.units.len(),
        blocks,
        loops
    );
    for u in &p.units {
        let host = u
            .host
            .and_then(|h| p.units.get(h))
            .map(|h| format!(", inside {}", h.name))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "\n{} {} ({}:{}-{}{})",
            kind_name(u.kind),
            u.name,
            file_name(&p.files, &u.span),
            u.span.start.line,
            u.span.end_line,
            host
        );
        let _ = writeln!(
            out,
            "  {:<6} {:<12} {:<9} {:<6} abstract operations (each time the block runs)",
            "block", "lines", "kind", "loop"
        );
        let mut shown = 0;
        for b in &u.blocks {
            if b.counts.is_empty() && !all_blocks {
                continue;
            }
            shown += 1;
            let lines = if b.span.end_line > b.span.start.line {
                format!("{}-{}", b.span.start.line, b.span.end_line)
            } else {
                format!("{}", b.span.start.line)
            };
            let lines = if b.span.start.file != u.span.start.file {
                let f = file_name(&p.files, &b.span);
                let short = std::path::Path::new(&f)
                    .file_name()
                    .map(|s| s.to_string_lossy().to_string())
                    .unwrap_or(f);
                format!("{short}:{lines}")
            } else {
                lines
            };
            let kind = match b.kind {
                BlockKind::Entry => "entry",
                BlockKind::Straight => "straight",
                BlockKind::LoopHeader => "per-iter",
                BlockKind::Elements => "per-elem",
            };
            let lp = b
                .in_loop
                .map(|l| format!("L{}", l.0))
                .unwrap_or_else(|| "-".into());
            let _ = writeln!(
                out,
                "  B{:<5} {:<12} {:<9} {:<6} {}",
                b.id.0,
                lines,
                kind,
                lp,
                counts_inline(&b.counts)
            );
        }
        if shown == 0 {
            let _ = writeln!(out, "  (no executable operations)");
        }
        for l in &u.loops {
            let what = match (&l.kind, &l.bounds, &l.elements) {
                (_, Some(b), _) => format!(
                    "DO {} = {}, {}{}{}",
                    l.var.as_deref().unwrap_or("?"),
                    b.start,
                    b.end,
                    b.step
                        .as_deref()
                        .map(|s| format!(", {s}"))
                        .unwrap_or_default(),
                    b.constant_trips
                        .map(|t| format!("  ({t} iterations)"))
                        .unwrap_or_default()
                ),
                (LoopKind::ArrayElements, _, Some(e)) => {
                    format!("array statement over {e} elements")
                }
                (LoopKind::While, _, _) => "DO WHILE".into(),
                (LoopKind::Forever, _, _) => "DO (no control)".into(),
                (LoopKind::Concurrent, _, _) => "DO CONCURRENT / FORALL".into(),
                (LoopKind::Goto, _, _) => "backward GOTO".into(),
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "  loop L{} line {} depth {}: {}",
                l.id.0, l.span.start.line, l.depth, what
            );
        }
    }
    let errors = p
        .diagnostics
        .iter()
        .filter(|d| d.severity == augur_ir::Severity::Error)
        .count();
    let warnings = p
        .diagnostics
        .iter()
        .filter(|d| d.severity == augur_ir::Severity::Warning)
        .count();
    let _ = writeln!(
        out,
        "\ncoverage: {} of {} statements lowered ({:.1}%); {} error(s), {} warning(s){}",
        p.coverage.lowered,
        p.coverage.statements,
        p.coverage.percent(),
        errors,
        warnings,
        if errors + warnings > 0 {
            " (details on standard error)"
        } else {
            ""
        }
    );
    out
}

/// The AbOp catalogue as a text or Markdown table.
pub fn catalogue(markdown: bool) -> String {
    let mut out = String::new();
    if markdown {
        out.push_str("| code | mnemonic | group | meaning |\n|---:|---|---|---|\n");
        for i in CATALOGUE {
            let _ = writeln!(
                out,
                "| {} | `{}` | {} | {} |",
                i.code, i.mnemonic, i.group, i.meaning
            );
        }
    } else {
        for i in CATALOGUE {
            let _ = writeln!(
                out,
                "{:>4}  {:<5} {:<26} {}",
                i.code, i.mnemonic, i.group, i.meaning
            );
        }
    }
    out
}
