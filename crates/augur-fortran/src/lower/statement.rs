//! Dispatch of statement-level nodes, and the lowering of simple statements
//! (assignments, calls, I/O, allocation, non-executable statements, comments).

use super::{format, is_statement_like, Lowerer};
use crate::syntax::{
    child_of_kind, field, kind_of, label_value, named_children, squeeze_lower, text,
};
use augur_ir::{Diagnostic, Expr, Pos, Span, StmtKind};
use tree_sitter::Node;

impl Lowerer<'_> {
    /// Lowers one statement-level node.
    pub fn statement(&mut self, node: Node<'_>) {
        let kind = kind_of(node);
        if kind != "comment" {
            self.stmt_pos = Some(self.pos(node));
        }
        match kind {
            "comment" => return self.comment(node),
            "statement_label" => {
                if let Some(l) = label_value(node, self.src) {
                    let pos = self.pos(node);
                    self.define_label(l, pos);
                }
                return;
            }
            "end_program_statement"
            | "end_subroutine_statement"
            | "end_function_statement"
            | "end_module_statement"
            | "end_block_data_statement"
            | "end_submodule_statement"
            | "contains_statement"
            | "program_statement"
            | "subroutine_statement"
            | "function_statement"
            | "module_statement"
            | "block_data_statement" => return,
            _ => {}
        }
        if kind == "ERROR" || node.is_error() {
            // Reported by the syntax-error pass; its lines count as statements not lowered.
            self.coverage.statements += crate::code_lines(node, self.src);
            return;
        }
        self.coverage.statements += 1;
        let understood = self.statement_inner(node);
        if understood && !node.has_error() {
            self.coverage.lowered += 1;
        } else if !understood {
            let pos = Some(self.pos(node));
            self.diags.push(
                Diagnostic::warning(
                    pos,
                    format!("statement of kind `{kind}` is not understood and was skipped"),
                )
                .with_hint("please report it; the rest of the unit is still analyzed"),
            );
        }
    }

    /// A statement label: the next statement carries it, and a branch target starts a block.
    pub(super) fn define_label(&mut self, label: u32, pos: Pos) {
        self.pending_label = Some(label);
        if self.targets.contains(&label) {
            let b = self.begin_block(Span::at(pos));
            self.labels.insert(label, b);
        }
    }

    /// Returns false for statements the lowering does not know.
    fn statement_inner(&mut self, node: Node<'_>) -> bool {
        let src = self.src;
        match kind_of(node) {
            // ---- specification part ----
            "implicit_statement" => self.scope.apply_implicit(node, src),
            "variable_declaration" => self.declaration(node),
            "variable_modification" => self.modification(node),
            "common_statement" => self.common(node),
            "parameter_statement" => self.parameter_statement(node),
            "use_statement" => self.use_module(node),
            "derived_type_definition" => {}
            "interface"
            | "import_statement"
            | "data_statement"
            | "equivalence_statement"
            | "namelist_statement"
            | "save_statement"
            | "private_statement"
            | "public_statement"
            | "format_statement"
            | "entry_statement"
            | "generic_statement"
            | "procedure_statement"
            | "bind_statement"
            | "cray_pointer_declaration"
            | "enum"
            | "enumeration_type"
            | "sequence_statement"
            | "include_statement" => self.non_executable(node),
            "preproc_def"
            | "preproc_call"
            | "preproc_if"
            | "preproc_ifdef"
            | "preproc_include"
            | "preproc_function_def" => self.unpreprocessed_directive(node),
            // ---- executable part ----
            "assignment_statement" | "pointer_association_statement" => self.assignment(node),
            "subroutine_call" => self.subroutine_call(node),
            "if_statement" => self.if_statement(node),
            "arithmetic_if_statement" => self.arithmetic_if(node),
            "keyword_statement" => return self.keyword_statement(node),
            "assign_statement" => self.assign_label(node),
            "stop_statement" => self.stop(node),
            "do_loop" => self.do_loop(node, None),
            "select_case_statement" => self.select_case(node),
            "where_statement" => self.where_statement(node),
            "forall_statement" => self.forall(node),
            "block_construct" | "associate_statement" => {
                self.leave_spec();
                self.nested_statements(node);
            }
            "read_statement"
            | "write_statement"
            | "print_statement"
            | "open_statement"
            | "close_statement"
            | "inquire_statement"
            | "file_position_statement" => self.io_statement(node),
            "allocate_statement" | "deallocate_statement" | "nullify_statement" => {
                self.allocation(node)
            }
            _ => return false,
        }
        true
    }

    /// Lowers the statements directly inside `node` (a construct or a clause).
    pub(super) fn nested_statements(&mut self, node: Node<'_>) {
        for c in named_children(node) {
            if is_statement_like(kind_of(c)) {
                self.statement(c);
            }
        }
    }

    /// A statement with no run-time cost (and no effect on the symbols) of its own.
    fn non_executable(&mut self, node: Node<'_>) {
        if matches!(kind_of(node), "data_statement" | "equivalence_statement") {
            self.names_valued_elsewhere(node);
        }
        if kind_of(node) == "include_statement" {
            let pos = Some(self.pos(node));
            self.diags.push(
                Diagnostic::warning(
                    pos,
                    "INCLUDE line was not resolved; its contents are not analyzed",
                )
                .with_hint("add the include directory with -I DIR"),
            );
        }
        if kind_of(node) == "entry_statement" {
            // A second entry point: control may arrive here from outside.
            let span = self.span(node);
            self.cur = None;
            self.begin_block(span);
        }
        self.push_stmt(node, StmtKind::NonExecutable);
    }

    /// A preprocessor directive left in a file that was not preprocessed.
    fn unpreprocessed_directive(&mut self, node: Node<'_>) {
        if self.warned.insert("preproc".into()) {
            let pos = Some(self.pos(node));
            self.diags.push(
                Diagnostic::warning(pos, "preprocessor directive in a file that was not preprocessed")
                    .with_hint("run with --cpp (and -D/-I options), or use an upper-case extension such as .F90"),
            );
        }
        // Lower what the directive encloses so that both branches are seen.
        self.nested_statements(node);
    }

    /// CALL: the subroutine's name and its actual arguments.
    fn subroutine_call(&mut self, node: Node<'_>) {
        self.leave_spec();
        let name = field(node, "subroutine")
            .map(|s| text(s, self.src).trim().to_ascii_lowercase())
            .unwrap_or_default();
        let args: Vec<Expr> = child_of_kind(node, "argument_list")
            .map(|a| {
                named_children(a)
                    .into_iter()
                    .filter(|c| kind_of(c) != "comment")
                    .map(|c| self.expr(c))
                    .collect()
            })
            .unwrap_or_default();
        self.simple(node, StmtKind::Call { name, args });
    }

    /// `ASSIGN 10 TO K`: a label stored for an assigned GOTO.
    fn assign_label(&mut self, node: Node<'_>) {
        self.leave_spec();
        let label = named_children(node)
            .first()
            .and_then(|l| text(*l, self.src).trim().parse().ok())
            .unwrap_or(0);
        self.simple(node, StmtKind::AssignLabel { label });
    }

    /// STOP: the unit's control flow ends here.
    fn stop(&mut self, node: Node<'_>) {
        self.leave_spec();
        self.simple(node, StmtKind::Stop);
        self.cur = None;
    }

    /// READ, WRITE, PRINT and the file statements: the keyword, the transferred
    /// items, and whether records are unformatted.
    fn io_statement(&mut self, node: Node<'_>) {
        self.leave_spec();
        let src = self.src;
        let keyword = squeeze_lower(
            text(node, src)
                .split(|c: char| !c.is_ascii_alphabetic())
                .next()
                .unwrap_or(""),
        );
        let mut items = vec![];
        for list in ["input_item_list", "output_item_list"] {
            if let Some(l) = child_of_kind(node, list) {
                for it in named_children(l) {
                    if kind_of(it) != "comment" {
                        items.push(self.expr(it));
                    }
                }
            }
        }
        let (kind, spec) = record_kind(&keyword, text(node, src));
        let format_controls = spec
            .and_then(|f| format::known_format(&f, &self.formats))
            .map_or(0, |f| format::format_controls(&f));
        self.simple(
            node,
            StmtKind::Io {
                keyword,
                items,
                unformatted: kind == RecordKind::Binary,
                list_directed: kind == RecordKind::ListDirected,
                format_controls,
            },
        );
    }

    /// ALLOCATE and DEALLOCATE with the number of objects; NULLIFY costs nothing.
    fn allocation(&mut self, node: Node<'_>) {
        self.leave_spec();
        let objects = named_children(node)
            .iter()
            .filter(|c| {
                kind_of(c) != "keyword_argument"
                    && kind_of(c) != "comment"
                    && kind_of(c) != "intrinsic_type"
            })
            .count() as u32;
        let deallocate = kind_of(node) != "allocate_statement";
        if kind_of(node) == "nullify_statement" {
            self.simple(node, StmtKind::Continue);
        } else {
            self.simple(
                node,
                StmtKind::Allocate {
                    objects,
                    deallocate,
                },
            );
        }
    }

    /// Marks the end of the specification part (an executable statement was seen).
    pub(super) fn leave_spec(&mut self) {
        self.in_spec = false;
    }

    /// A comment: a compiler directive (`!$OMP`, `!$ACC`, `!HPF$`, `!DIR$`, `!$`) or an
    /// `!augur region` marker becomes a statement; other comments are skipped.
    fn comment(&mut self, node: Node<'_>) {
        let t = text(node, self.src).trim();
        let lower = t.to_ascii_lowercase();
        let sentinel = ["!$omp", "!hpf$", "!$acc", "!dir$", "!$"]
            .into_iter()
            .find(|s| lower.starts_with(s) && (*s != "!$" || lower[2..].starts_with(' ')));
        if let Some(s) = sentinel {
            // An OpenMP directive starts a new block, so that no block runs partly
            // inside a construct and partly outside (its counts per thread).
            if s == "!$omp"
                && self
                    .cur
                    .is_some_and(|b| !self.unit.blocks[b.0 as usize].stmts.is_empty())
            {
                let span = self.span(node);
                self.begin_block(span);
            }
            let kind = StmtKind::Directive {
                sentinel: s[1..].to_ascii_uppercase(),
                text: t[s.len()..].trim().to_string(),
            };
            self.push_stmt(node, kind);
            return;
        }
        let words: Vec<&str> = lower.trim_start_matches('!').split_whitespace().collect();
        if words.first() == Some(&"augur") {
            let name = match words.get(1..) {
                Some(["region", name, ..]) => Some(Some(name.to_string())),
                Some(["end", "region", ..]) => Some(None),
                _ => None,
            };
            match name {
                Some(name) => {
                    // A region boundary starts a new block so regions hold whole blocks.
                    let span = self.span(node);
                    if self.cur.is_some() {
                        self.begin_block(span);
                    }
                    let original = t
                        .trim_start_matches('!')
                        .split_whitespace()
                        .nth(2)
                        .map(str::to_string);
                    let name = name.map(|_| original.unwrap_or_default());
                    self.push_stmt(node, StmtKind::RegionMarker { name });
                }
                None => {
                    let pos = Some(self.pos(node));
                    self.diags.push(
                        Diagnostic::warning(pos, "unknown augur directive")
                            .with_hint("use `!augur region NAME` and `!augur end region`"),
                    );
                }
            }
        }
    }

    /// An assignment or pointer assignment, or (in the specification part) the
    /// definition of a statement function.
    fn assignment(&mut self, node: Node<'_>) {
        let src = self.src;
        let (Some(l), Some(r)) = (
            field(node, "left").or_else(|| node.named_child(0)),
            field(node, "right").or_else(|| node.named_child(1)),
        ) else {
            return;
        };
        // Statement function definition: f(x, y) = expr in the specification part.
        if self.in_spec && kind_of(l) == "call_expression" {
            let fname = field(l, "function")
                .or_else(|| l.named_child(0))
                .filter(|f| kind_of(f) == "identifier")
                .map(|f| text(f, src).trim().to_ascii_lowercase());
            if let Some(f) = fname {
                let is_array = self
                    .scope
                    .symbols
                    .get(&f)
                    .is_some_and(|s| !s.dims.is_empty());
                if !is_array {
                    let dummies: Vec<String> = named_children(l)
                        .into_iter()
                        .filter(|c| kind_of(c) == "argument_list")
                        .flat_map(named_children)
                        .filter(|c| kind_of(c) != "comment")
                        .map(|a| text(a, src).trim().to_ascii_lowercase())
                        .collect();
                    let body = self.expr(r);
                    self.scope.get_or_implicit(&f).procedure = true;
                    self.statement_functions.insert(f, (dummies, body));
                    self.push_stmt(node, StmtKind::NonExecutable);
                    return;
                }
            }
        }
        self.leave_spec();
        let lhs = self.expr(l);
        let rhs = self.expr(r);
        self.simple(node, StmtKind::Assign { lhs, rhs });
    }
}

/// How a READ, WRITE or PRINT statement writes its items: binary records (a READ or
/// WRITE whose control list names no format: no second positional item, no `FMT=` or
/// `NML=`), list-directed (`*` as the format: `PRINT *`, `READ *`, `WRITE (u, *)`,
/// `FMT=*`), or with a format, given with its specifier as written (a label, a
/// character constant or variable). Other statements are formatted, with none.
fn record_kind(keyword: &str, stmt: &str) -> (RecordKind, Option<String>) {
    if !matches!(keyword, "read" | "write" | "print") {
        return (RecordKind::Formatted, None);
    }
    let rest = stmt.trim_start()[keyword.len().min(stmt.trim_start().len())..].trim_start();
    let Some(inner) = rest.strip_prefix('(').filter(|_| keyword != "print") else {
        // `PRINT fmt, ...` and `READ fmt, ...`.
        let spec = control_list(&format!("{rest})")).swap_remove(0);
        return if spec.trim() == "*" {
            (RecordKind::ListDirected, None)
        } else {
            (RecordKind::Formatted, Some(spec))
        };
    };
    let parts = control_list(inner);
    let keyword_of = |p: &str| {
        let p: String = p.chars().filter(|c| !c.is_whitespace()).collect();
        p.split_once('=')
            .filter(|(k, _)| k.chars().all(|c| c.is_ascii_alphabetic()))
            .map(|(k, v)| (k.to_ascii_lowercase(), v.to_string()))
    };
    let positional: Vec<&String> = parts.iter().filter(|p| keyword_of(p).is_none()).collect();
    let named: Vec<(String, String)> = parts.iter().filter_map(|p| keyword_of(p)).collect();
    let named_format = named.iter().find(|(k, _)| k == "fmt" || k == "nml");
    match (positional.get(1), named_format) {
        (Some(f), _) if f.trim() == "*" => (RecordKind::ListDirected, None),
        (_, Some((k, v))) if k == "fmt" && v == "*" => (RecordKind::ListDirected, None),
        (None, None) => (RecordKind::Binary, None),
        (Some(f), _) => (RecordKind::Formatted, Some(f.to_string())),
        (None, Some((k, v))) => (RecordKind::Formatted, (k == "fmt").then(|| v.clone())),
    }
}

/// How an input/output statement writes its items ([`record_kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RecordKind {
    Binary,
    ListDirected,
    Formatted,
}

/// An I/O control list (the text after its opening parenthesis) up to its closing
/// parenthesis, split at top-level commas.
fn control_list(inner: &str) -> Vec<String> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut parts = vec![String::new()];
    for ch in inner.chars() {
        match quote {
            Some(q) => {
                if ch == q {
                    quote = None;
                }
                parts.last_mut().expect("one part").push(ch);
                continue;
            }
            None if ch == '\'' || ch == '"' => quote = Some(ch),
            None => {}
        }
        match ch {
            '(' => depth += 1,
            ')' if depth == 0 => break,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(String::new());
                continue;
            }
            _ => {}
        }
        parts.last_mut().expect("one part").push(ch);
    }
    parts
}
