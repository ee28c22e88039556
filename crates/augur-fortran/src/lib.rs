//! The Fortran front end of augur.
//!
//! [`analyze`] loads each source file (through `augur-source`: fixed-form
//! normalization, cpp, INCLUDE), parses it with tree-sitter-fortran, reports
//! syntax errors with their original file and line, and lowers every program
//! unit to the [`augur_ir`] program model: symbols, statements, basic blocks,
//! loops and each block's static AbOp counts.
//!
//! Modules are lowered first (in dependency order), so units that USE them see
//! their variables as global; a pre-pass collects the result type of every
//! function so that references before the definition are typed correctly.

mod expr;
mod lower;
mod scope;
mod syntax;

pub use augur_source::{LoadOptions, SourceForm};

use augur_ir::{Coverage, Diagnostic, Program, Type};
use augur_source::LoadedSource;
use lower::Lowerer;
use scope::{parse_intrinsic_type, Globals, Scope};
use std::path::{Path, PathBuf};
use syntax::{child_of_kind, named_children, text};
use tree_sitter::{Node, Parser, Tree};

/// Options of the front end.
#[derive(Debug, Clone, Default)]
pub struct FrontEndOptions {
    /// How sources are loaded (form, cpp, defines, include directories).
    pub load: LoadOptions,
    /// At most this many syntax errors are reported per file (0 = 20).
    pub max_syntax_errors: usize,
}

struct Parsed {
    loaded: LoadedSource,
    tree: Tree,
}

/// Analyzes the given source files as one program.
///
/// Never fails: files that cannot be read, and statements that cannot be parsed
/// or lowered, become diagnostics in [`Program::diagnostics`], and the rest is
/// still analyzed.
pub fn analyze(paths: &[PathBuf], opts: &FrontEndOptions) -> Program {
    let mut program = Program::default();
    let mut parser = Parser::new();
    if let Err(e) = parser.set_language(&tree_sitter_fortran::LANGUAGE.into()) {
        program.diagnostics.push(Diagnostic::error(
            None,
            format!("cannot load the Fortran grammar: {e}"),
        ));
        return program;
    }
    let mut parsed = vec![];
    for path in paths {
        match augur_source::load(path, &opts.load, &mut program.files) {
            Ok(loaded) => {
                program
                    .diagnostics
                    .extend(loaded.diagnostics.iter().cloned());
                match parser.parse(&loaded.text, None) {
                    Some(tree) => parsed.push(Parsed { loaded, tree }),
                    None => program.diagnostics.push(Diagnostic::error(
                        None,
                        format!("{}: the parser gave up on this file", path.display()),
                    )),
                }
            }
            Err(e) => program.diagnostics.push(
                Diagnostic::error(None, e.to_string())
                    .with_hint("check the path and options; the other files are still analyzed"),
            ),
        }
    }
    let max_errors = if opts.max_syntax_errors == 0 {
        20
    } else {
        opts.max_syntax_errors
    };
    for p in &parsed {
        syntax_errors(p, max_errors, &mut program.diagnostics);
    }

    // Pre-pass: function result types, subroutine names, derived types.
    let mut globals = Globals::default();
    for p in &parsed {
        collect_globals(p.tree.root_node(), &p.loaded.text, &mut globals);
    }
    // Modules first, in dependency order.
    let mut modules: Vec<(usize, Node<'_>, String, Vec<String>)> = vec![];
    for (i, p) in parsed.iter().enumerate() {
        for n in named_children(p.tree.root_node()) {
            if n.kind() == "module" {
                let name = child_of_kind(n, "module_statement")
                    .and_then(|s| child_of_kind(s, "name"))
                    .map(|s| text(s, &p.loaded.text).trim().to_ascii_lowercase())
                    .unwrap_or_default();
                let uses = uses_of(n, &p.loaded.text);
                modules.push((i, n, name, uses));
            }
        }
    }
    let order = module_order(&modules);
    let mut coverage = Coverage::default();
    for &m in &order {
        let (file_idx, node, name, _) = &modules[m];
        let p = &parsed[*file_idx];
        let mut lw = Lowerer::new(&p.loaded, &globals);
        let base = program.units.len();
        lw.lower_unit(*node, None, base);
        let module_units = std::mem::take(&mut lw.units);
        let ms = module_scope_from(&module_units, name);
        coverage.merge(&lw.coverage);
        program.diagnostics.append(&mut lw.diags);
        program.units.extend(module_units);
        globals.modules.insert(name.clone(), ms);
    }
    for p in &parsed {
        let mut lw = Lowerer::new(&p.loaded, &globals);
        for n in named_children(p.tree.root_node()) {
            match n.kind() {
                "module" => {}
                "program" | "subroutine" | "function" | "block_data" | "submodule" => {
                    let base = program.units.len() + lw.units.len();
                    let _ = base;
                    lw.lower_unit(n, None, program.units.len());
                }
                "comment" | "ERROR" => {}
                "interface" => {}
                other => {
                    let pos = Some(lw.pos(n));
                    lw.diags.push(Diagnostic::warning(
                        pos,
                        format!("top-level `{other}` outside any program unit was skipped"),
                    ));
                }
            }
        }
        coverage.merge(&lw.coverage);
        program.diagnostics.append(&mut lw.diags);
        program.units.append(&mut lw.units);
    }
    coverage.source_lines = program.files.files.iter().map(|f| f.lines as u64).sum();
    program.coverage = coverage;
    program
}

/// Analyzes a single file.
pub fn analyze_file(path: &Path, opts: &FrontEndOptions) -> Program {
    analyze(&[path.to_path_buf()], opts)
}

fn module_scope_from(units: &[augur_ir::Unit], name: &str) -> scope::ModuleScope {
    let mut ms = scope::ModuleScope::default();
    if let Some(u) = units.iter().find(|u| u.name == name && u.host.is_none()) {
        for s in &u.symbols {
            let mut s = s.clone();
            if matches!(s.storage, augur_ir::Storage::Local) {
                s.storage = augur_ir::Storage::Module(name.to_string());
            }
            ms.symbols.insert(s.name.clone(), s);
        }
    }
    ms
}

/// Names of the modules a module uses.
fn uses_of(node: Node<'_>, src: &str) -> Vec<String> {
    named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "use_statement")
        .filter_map(|u| child_of_kind(u, "module_name"))
        .map(|m| text(m, src).trim().to_ascii_lowercase())
        .collect()
}

/// Orders modules so that each comes after the modules it uses (cycles keep source order).
fn module_order(mods: &[(usize, Node<'_>, String, Vec<String>)]) -> Vec<usize> {
    let mut done = vec![false; mods.len()];
    let mut order = vec![];
    fn visit(
        i: usize,
        mods: &[(usize, Node<'_>, String, Vec<String>)],
        done: &mut Vec<bool>,
        order: &mut Vec<usize>,
        depth: usize,
    ) {
        if done[i] || depth > mods.len() {
            return;
        }
        done[i] = true;
        for u in &mods[i].3 {
            if let Some(j) = mods.iter().position(|m| &m.2 == u) {
                visit(j, mods, done, order, depth + 1);
            }
        }
        order.push(i);
    }
    for i in 0..mods.len() {
        visit(i, mods, &mut done, &mut order, 0);
    }
    order
}

/// Records every function's result type, every subroutine's name and every derived type.
fn collect_globals(root: Node<'_>, src: &str, g: &mut Globals) {
    let mut stack = vec![root];
    let scope = Scope::default();
    while let Some(n) = stack.pop() {
        match n.kind() {
            "function" => {
                let stmt = child_of_kind(n, "function_statement");
                let name = stmt
                    .and_then(|s| s.child_by_field_name("name"))
                    .map(|s| text(s, src).trim().to_ascii_lowercase());
                let result = stmt
                    .and_then(|s| child_of_kind(s, "function_result"))
                    .and_then(|r| child_of_kind(r, "identifier"))
                    .map(|r| text(r, src).trim().to_ascii_lowercase());
                let mut ty: Option<Type> = stmt
                    .and_then(|s| s.child_by_field_name("type"))
                    .filter(|t| t.kind() == "intrinsic_type")
                    .map(|t| parse_intrinsic_type(t, src, &scope));
                if let Some(name) = name {
                    let rname = result.unwrap_or_else(|| name.clone());
                    if ty.is_none() {
                        ty = declared_type_in(n, &rname, src, &scope);
                    }
                    g.functions.insert(name, ty);
                }
            }
            "subroutine" => {
                if let Some(name) = child_of_kind(n, "subroutine_statement")
                    .and_then(|s| s.child_by_field_name("name"))
                {
                    g.subroutines
                        .insert(text(name, src).trim().to_ascii_lowercase());
                }
            }
            "derived_type_definition" => {
                let tname = child_of_kind(n, "derived_type_statement")
                    .and_then(|s| child_of_kind(s, "type_name"))
                    .map(|t| text(t, src).trim().to_ascii_lowercase());
                if let Some(tname) = tname {
                    let comps = g.types.entry(tname).or_default();
                    for d in named_children(n)
                        .into_iter()
                        .filter(|c| c.kind() == "variable_declaration")
                    {
                        let ty_node = d.child_by_field_name("type");
                        let (ty, dt) = match ty_node {
                            Some(t) if t.kind() == "intrinsic_type" => {
                                (parse_intrinsic_type(t, src, &scope), None)
                            }
                            Some(t) => (
                                Type::DERIVED,
                                child_of_kind(t, "type_name")
                                    .map(|x| text(x, src).trim().to_ascii_lowercase()),
                            ),
                            None => (Type::UNKNOWN, None),
                        };
                        let dim_attr = {
                            let mut c = d.walk();
                            let attrs: Vec<Node<'_>> =
                                d.children_by_field_name("attribute", &mut c).collect();
                            attrs.into_iter().any(|a| {
                                syntax::squeeze_lower(text(a, src)).starts_with("dimension")
                            })
                        };
                        let mut c = d.walk();
                        for decl in d.children_by_field_name("declarator", &mut c) {
                            if let Some((name, size, _)) = scope::declarator_name(decl, src) {
                                let rank = size
                                    .map(|s| named_children(s).len() as u8)
                                    .unwrap_or(u8::from(dim_attr));
                                comps.insert(name, (ty, rank, dt.clone()));
                            }
                        }
                    }
                }
                continue;
            }
            _ => {}
        }
        let mut cursor = n.walk();
        for c in n.named_children(&mut cursor) {
            stack.push(c);
        }
    }
}

/// The type a function body declares for its result variable.
fn declared_type_in(func: Node<'_>, result: &str, src: &str, scope: &Scope) -> Option<Type> {
    for d in named_children(func) {
        if d.kind() != "variable_declaration" {
            continue;
        }
        let mut c = d.walk();
        let names: Vec<String> = d
            .children_by_field_name("declarator", &mut c)
            .filter_map(|x| scope::declarator_name(x, src).map(|t| t.0))
            .collect();
        if names.iter().any(|n| n == result) {
            return d
                .child_by_field_name("type")
                .filter(|t| t.kind() == "intrinsic_type")
                .map(|t| parse_intrinsic_type(t, src, scope));
        }
    }
    None
}

/// Reports ERROR and MISSING nodes with their original position and source line.
fn syntax_errors(p: &Parsed, max: usize, out: &mut Vec<Diagnostic>) {
    let root = p.tree.root_node();
    if !root.has_error() {
        return;
    }
    let src = &p.loaded.text;
    let mut found = 0usize;
    let mut total = 0usize;
    let mut stack = vec![root];
    let mut first_pos = None;
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            total += 1;
            let sp = n.start_position();
            let pos = p.loaded.origin(sp.row, sp.column);
            first_pos.get_or_insert(pos);
            if found < max {
                found += 1;
                let what = if n.is_missing() {
                    format!("syntax error: expected `{}` here", n.kind())
                } else {
                    let t = text(n, src);
                    let first = t.lines().next().unwrap_or("").trim();
                    let shown: String = first.chars().take(40).collect();
                    format!(
                        "syntax error: cannot parse `{shown}`; the statement(s) here are skipped"
                    )
                };
                out.push(Diagnostic::error(Some(pos), what).with_hint(
                    "check the statement; if the file is fixed form with a free-form extension (or the reverse) use --form",
                ));
            }
            if n.is_error() {
                continue;
            }
        }
        if n.has_error() {
            let mut cursor = n.walk();
            let kids: Vec<Node<'_>> = n.children(&mut cursor).collect();
            for c in kids.into_iter().rev() {
                stack.push(c);
            }
        }
    }
    if total > found {
        out.push(Diagnostic::error(
            first_pos,
            format!(
                "{} more syntax errors in this file were not shown",
                total - found
            ),
        ));
    }
}
