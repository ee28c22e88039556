//! Lowering of program units: declarations into symbol tables, executable
//! statements into basic blocks with static AbOp counts.

mod array;
mod blocks;
mod control;
mod declaration;
mod format;
mod loops;
mod statement;
mod unit;

use crate::scope::{Globals, Scope};
use crate::syntax::{kind_of, text};
use augur_ir::{
    BlockId, Coverage, Diagnostic, Expr, LoopId, Pos, Span, Storage, TextPos, Unit, UnitKind,
};
use augur_source::LoadedSource;
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

/// A loop being lowered: where CYCLE and EXIT go.
struct LoopCtx {
    id: LoopId,
    header: BlockId,
    after: BlockId,
    name: Option<String>,
}

/// Lowers the units of one parsed file.
pub struct Lowerer<'a> {
    /// The parsed text (a chunk of the loaded source).
    pub src: &'a str,
    /// 0-based line of the loaded source where `src` starts.
    line_offset: usize,
    /// Index of the source file among the front end's inputs.
    pub source_index: u32,
    loaded: &'a LoadedSource,
    /// Program-wide knowledge (functions, modules, derived types).
    pub globals: &'a Globals,
    /// Symbols of the unit being lowered.
    pub scope: Scope,
    /// Names declared INTRINSIC in the unit.
    pub intrinsic_declared: HashSet<String>,
    /// User procedures referenced as functions.
    pub called: Vec<String>,
    /// The unit's statement functions by lower-case name: their dummy arguments' names
    /// and their defining expression, expanded in place at every reference (compilers
    /// always inline them).
    pub statement_functions: HashMap<String, (Vec<String>, Expr)>,
    unit: Unit,
    cur: Option<BlockId>,
    loops: Vec<LoopCtx>,
    labels: HashMap<u32, BlockId>,
    targets: HashSet<u32>,
    /// The unit's FORMAT statements by label ([`format::format_statements`]).
    formats: HashMap<u32, String>,
    pending_gotos: Vec<(BlockId, u32)>,
    /// `DO WHILE` loops of the unit whose condition keeps a variable non-negative
    /// (`augur_ir::ranges::while_guard`).
    /// Keyed by the DO statement's span (loop ids change when GOTO loops are added).
    while_guards: Vec<(Span, String)>,
    /// Variables of the unit with values it does not assign (DATA, EQUIVALENCE, an
    /// initialization other than a non-negative literal): no range is assumed for them.
    valued_elsewhere: std::collections::BTreeSet<String>,
    /// The host's names, for an internal procedure (its own declarations hide them).
    inherited: std::collections::BTreeSet<String>,
    pending_label: Option<u32>,
    in_spec: bool,
    warned: HashSet<String>,
    /// Start of the statement being lowered (where its diagnostics point).
    stmt_pos: Option<Pos>,
    /// Problems found.
    pub diags: Vec<Diagnostic>,
    /// Statements seen and lowered.
    pub coverage: Coverage,
    /// Finished units (the unit itself and its internal procedures).
    pub units: Vec<Unit>,
    /// Derived type of each variable of the last module lowered.
    pub module_derived: HashMap<String, String>,
}

impl<'a> Lowerer<'a> {
    /// A lowerer for `src`, a part of `loaded.text` starting at 0-based line `line_offset`.
    pub fn new(
        loaded: &'a LoadedSource,
        src: &'a str,
        line_offset: usize,
        globals: &'a Globals,
    ) -> Lowerer<'a> {
        Lowerer {
            src,
            line_offset,
            source_index: 0,
            loaded,
            globals,
            scope: Scope::default(),
            intrinsic_declared: HashSet::new(),
            called: vec![],
            statement_functions: HashMap::new(),
            unit: empty_unit(),
            cur: None,
            loops: vec![],
            labels: HashMap::new(),
            targets: HashSet::new(),
            formats: HashMap::new(),
            pending_gotos: vec![],
            while_guards: vec![],
            valued_elsewhere: Default::default(),
            inherited: Default::default(),
            pending_label: None,
            in_spec: true,
            warned: HashSet::new(),
            stmt_pos: None,
            diags: vec![],
            coverage: Coverage::default(),
            units: vec![],
            module_derived: HashMap::new(),
        }
    }

    /// Original position of a node's start.
    pub fn pos(&self, node: Node<'_>) -> Pos {
        let p = node.start_position();
        let start = node.start_byte();
        let col_chars = self
            .src
            .get(start.saturating_sub(p.column)..start)
            .map(|s| s.chars().count())
            .unwrap_or(p.column);
        self.loaded.origin(p.row + self.line_offset, col_chars)
    }

    /// Original span of a node.
    pub fn span(&self, node: Node<'_>) -> Span {
        let start = self.pos(node);
        let end = node.end_position();
        let row = if end.column == 0 && end.row > node.start_position().row {
            end.row - 1
        } else {
            end.row
        };
        let end_origin = self.loaded.origin(row + self.line_offset, 0);
        let end_line = if end_origin.file == start.file {
            end_origin.line.max(start.line)
        } else {
            start.line
        };
        Span { start, end_line }
    }

    /// Reports a name used but never declared under IMPLICIT NONE (once per unit), unless
    /// the unit uses a module whose source augur does not have (`mpi`, `omp_lib`, a
    /// library's): the name is most likely that module's (`MPI_COMM_WORLD`), and the
    /// module itself is reported once where it is not a standard one.
    pub fn undeclared(&mut self, name: &str) {
        let external_module = self.unit.uses.iter().any(|m| {
            !self.globals.modules.contains_key(m) && m != "iso_fortran_env" && m != "iso_c_binding"
        });
        if external_module {
            return;
        }
        if self.warned.insert(format!("undeclared:{name}")) {
            let pos = Some(self.stmt_pos.unwrap_or(self.unit.span.start));
            self.diags.push(
                Diagnostic::warning(
                    pos,
                    format!(
                        "`{name}` has no type in unit `{}` (IMPLICIT NONE and no declaration); its operations are not counted",
                        self.unit.name
                    ),
                )
                .with_hint(format!(
                    "declare it, or if it is a preprocessor macro define it with -D {}=VALUE",
                    name.to_ascii_uppercase()
                )),
            );
        }
    }

    /// In a preprocessed file, an upper-case name in a loop bound that was never
    /// declared is most likely a preprocessor macro nobody defined.
    fn check_macro_names(&mut self, node: Node<'_>) {
        if !self.loaded.preprocessed {
            return;
        }
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if kind_of(n) == "identifier" {
                let t = text(n, self.src).trim();
                let name = t.to_ascii_lowercase();
                let suspicious = t.len() > 1
                    && t.bytes()
                        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
                    && self.scope.symbols.get(&name).is_some_and(|s| {
                        s.implicit
                            && matches!(s.storage, Storage::Local)
                            && !s.procedure
                            && s.ty.base != augur_ir::BaseType::Unknown
                    });
                if suspicious && self.warned.insert(format!("macro:{name}")) {
                    let pos = Some(self.pos(n));
                    self.diags.push(
                        Diagnostic::warning(
                            pos,
                            format!("`{t}` in this loop bound is not declared anywhere; it looks like an undefined preprocessor macro"),
                        )
                        .with_hint(format!("define it with -D {t}=VALUE (the loop is analyzed with `{t}` as an unset variable)")),
                    );
                }
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
    }

    /// Reports an expression form the lowering does not know.
    pub fn unsupported_expr(&mut self, node: Node<'_>) {
        if node.is_error() || kind_of(node) == "ERROR" {
            return; // reported by the syntax-error pass
        }
        if self.warned.insert(format!("expr:{}", kind_of(node))) {
            let pos = Some(self.pos(node));
            self.diags.push(Diagnostic::warning(
                pos,
                format!(
                    "expression of kind `{}` is not understood; it is counted as free",
                    kind_of(node)
                ),
            ));
        }
    }

    /// Position of a statement in the parsed text: from `node`'s start to the end of
    /// `upto` (a construct's header part) or of `node` itself.
    pub fn text_pos(&self, node: Node<'_>, upto: Option<Node<'_>>) -> TextPos {
        let start = node.start_position();
        let last = upto.unwrap_or(node);
        let mut end = last.end_position();
        if end.column == 0 && end.row > start.row {
            // The node ends with its newline: its last line is the one before.
            end.row -= 1;
            let line_start = last.end_byte().saturating_sub(1);
            let prev = self.src[..line_start]
                .rfind('\n')
                .map(|p| p + 1)
                .unwrap_or(0);
            end.column = line_start - prev;
        }
        TextPos {
            line: (start.row + self.line_offset) as u32,
            col: start.column as u32,
            end_line: (end.row + self.line_offset) as u32,
            end_col: end.column as u32,
        }
    }

    /// The span of a construct's opening statement: from the construct's start to the
    /// last line of `upto` (its condition or header), not to its END statement.
    fn header_span(&self, node: Node<'_>, upto: Option<Node<'_>>) -> Span {
        let mut span = self.span(node);
        span.end_line = match upto.map(|u| self.span(u)) {
            Some(u) if u.start.file == span.start.file => u.end_line.max(span.start.line),
            _ => span.start.line,
        };
        span
    }
}

/// A unit with nothing in it: the state between two units.
fn empty_unit() -> Unit {
    Unit {
        name: String::new(),
        kind: UnitKind::Program,
        span: Span::at(Pos {
            file: augur_ir::FileId(0),
            line: 1,
            col: 1,
        }),
        host: None,
        source: 0,
        header_text: TextPos::default(),
        start_text: TextPos::default(),
        uses: vec![],
        dummies: vec![],
        symbols: vec![],
        stmts: vec![],
        blocks: vec![],
        loops: vec![],
    }
}

/// Whether a node kind is a statement or construct to lower (not an expression or a clause part).
fn is_statement_like(kind: &str) -> bool {
    kind.ends_with("_statement")
        || matches!(
            kind,
            "do_loop"
                | "subroutine_call"
                | "comment"
                | "statement_label"
                | "derived_type_definition"
                | "interface"
                | "block_construct"
                | "ERROR"
                | "enum"
                | "enumeration_type"
                | "preproc_def"
                | "preproc_call"
                | "preproc_if"
                | "preproc_ifdef"
                | "preproc_include"
                | "preproc_function_def"
        )
}
