//! The Fortran front end of augur.
//!
//! [`analyze`] loads each source file (through `augur-source`: fixed-form
//! normalization, cpp, INCLUDE), parses it with tree-sitter-fortran, reports
//! syntax errors with their original file and line, and lowers every program
//! unit to the [`augur_ir`] program model: symbols, statements, basic blocks,
//! loops and each block's static AbOp counts. [`analyze_bytes`] and
//! [`analyze_inputs`] take sources already in memory down the same path.
//!
//! Modules are lowered first (in dependency order), so units that USE them see
//! their variables as global; a pre-pass collects the result type of every
//! function so that references before the definition are typed correctly.

mod chunk;
mod expr;
mod kinds;
mod lower;
mod scope;
mod syntax;

pub use augur_source::{LoadOptions, SourceForm};
pub use kinds::DefaultKinds;

use augur_ir::{Coverage, Diagnostic, Program, Type};
use augur_source::LoadedSource;
use lower::Lowerer;
use scope::{parse_intrinsic_type, Globals, Scope};
use std::path::{Path, PathBuf};
use syntax::{child_of_kind, field, kind_of, named_children, text as text_of};
use tree_sitter::{Node, Parser, Tree};

/// Options of the front end.
#[derive(Debug, Clone, Default)]
pub struct FrontEndOptions {
    /// How sources are loaded (form, cpp, defines, include directories).
    pub load: LoadOptions,
    /// At most this many syntax errors are reported per file (0 = 20).
    pub max_syntax_errors: usize,
    /// The default kinds of the build (`-fdefault-real-8`, ...): what `REAL` means.
    pub default_kinds: DefaultKinds,
}

/// One loaded file and how it is split for parsing.
struct FileSource {
    /// Index of the file among the inputs given to [`analyze_inputs`].
    input: u32,
    loaded: LoadedSource,
    chunks: Vec<chunk::Chunk>,
}

impl FileSource {
    fn text(&self, r: std::ops::Range<usize>) -> &str {
        &self.loaded.text[r]
    }
}

/// A part of a file parsed as one tree: a range of its chunks.
#[derive(Debug, Clone)]
struct Piece {
    file: usize,
    bytes: std::ops::Range<usize>,
    first_line: usize,
}

/// One source given to the front end: a file to read, or bytes already in memory.
#[derive(Debug, Clone, Copy)]
pub enum SourceInput<'a> {
    /// A file, read from disk.
    File(&'a Path),
    /// Source bytes held in memory, analyzed as if the file at `path` held them
    /// (see [`augur_source::load_bytes`]: `path` decides the form, preprocessing
    /// and the INCLUDE directory, and names the source in positions).
    Bytes {
        /// The name of the source.
        path: &'a Path,
        /// Its contents.
        bytes: &'a [u8],
    },
}

/// Analyzes the given source files as one program.
///
/// Files are parsed a chunk of whole units at a time (see [`chunk`]) and each
/// chunk is lowered right after it is parsed, so memory holds one chunk's tree
/// at a time. Units that USE a module not seen yet are lowered at the end,
/// after every module is known.
///
/// Never fails: files that cannot be read, and statements that cannot be parsed
/// or lowered, become diagnostics in [`Program::diagnostics`], and the rest is
/// still analyzed.
pub fn analyze(paths: &[PathBuf], opts: &FrontEndOptions) -> Program {
    analyze_with_sources(paths, opts).0
}

/// [`analyze`] of one source held in memory, named `path` (see
/// [`SourceInput::Bytes`]): the same normalizer, parser and lowering a file goes
/// through, without touching the disk unless the source asks for INCLUDE files or
/// the preprocessor.
pub fn analyze_bytes(path: &Path, bytes: &[u8], opts: &FrontEndOptions) -> Program {
    analyze_inputs(&[SourceInput::Bytes { path, bytes }], opts).0
}

/// [`analyze`], also returning the loaded (normalized, preprocessed, include-expanded)
/// text of each input, indexed like `paths` (`None` for a file that could not be
/// loaded). [`augur_ir::Stmt::text`] positions refer to these texts.
pub fn analyze_with_sources(
    paths: &[PathBuf],
    opts: &FrontEndOptions,
) -> (Program, Vec<Option<LoadedSource>>) {
    let inputs: Vec<SourceInput<'_>> = paths.iter().map(|p| SourceInput::File(p)).collect();
    analyze_inputs(&inputs, opts)
}

/// [`analyze_with_sources`] of sources given as files or as bytes in memory: the one
/// path every analysis takes.
pub fn analyze_inputs(
    inputs: &[SourceInput<'_>],
    opts: &FrontEndOptions,
) -> (Program, Vec<Option<LoadedSource>>) {
    let _kinds = kinds::Scoped::set(opts.default_kinds);
    let mut program = Program::default();
    let mut parser = Parser::new();
    if let Err(e) = parser.set_language(&tree_sitter_fortran::LANGUAGE.into()) {
        program.diagnostics.push(Diagnostic::error(
            None,
            format!("cannot load the Fortran grammar: {e}"),
        ));
        return (program, inputs.iter().map(|_| None).collect());
    }
    let mut an = Analysis {
        max_errors: if opts.max_syntax_errors == 0 {
            20
        } else {
            opts.max_syntax_errors
        },
        globals: Globals::default(),
        coverage: Coverage::default(),
        deferred: vec![],
    };
    let files = load_inputs(inputs, opts, &mut program);
    for fi in 0..files.len() {
        an.first_pass(&mut parser, &mut program, &files, fi);
    }
    an.lower_deferred(&mut parser, &mut program, &files);
    an.coverage.source_lines = program.files.files.iter().map(|f| f.lines as u64).sum();
    program.coverage = an.coverage;
    let mut sources: Vec<Option<LoadedSource>> = inputs.iter().map(|_| None).collect();
    for f in files {
        let i = f.input as usize;
        sources[i] = Some(f.loaded);
    }
    (program, sources)
}

/// Loads every input and splits it into chunks; inputs that cannot be loaded become
/// diagnostics.
fn load_inputs(
    inputs: &[SourceInput<'_>],
    opts: &FrontEndOptions,
    program: &mut Program,
) -> Vec<FileSource> {
    let mut files: Vec<FileSource> = vec![];
    for (input, source) in inputs.iter().enumerate() {
        let loaded = match *source {
            SourceInput::File(path) => augur_source::load(path, &opts.load, &mut program.files),
            SourceInput::Bytes { path, bytes } => {
                augur_source::load_bytes(path, bytes, &opts.load, &mut program.files)
            }
        };
        match loaded {
            Ok(loaded) => {
                program
                    .diagnostics
                    .extend(loaded.diagnostics.iter().cloned());
                let chunks = chunk::split(&loaded.text);
                files.push(FileSource {
                    input: input as u32,
                    loaded,
                    chunks,
                });
            }
            Err(e) => program.diagnostics.push(
                Diagnostic::error(None, e.to_string())
                    .with_hint("check the path and options; the other files are still analyzed"),
            ),
        }
    }
    files
}

/// Parses the piece of `f` (file `fi`) that starts at chunk `*c` and moves `*c` past
/// it: the chunk alone, or together with the next one when only that parses cleanly (a
/// chunk that ends inside a unit, a wrong split). `None` when the parser gives up.
fn parse_piece(
    parser: &mut Parser,
    f: &FileSource,
    fi: usize,
    c: &mut usize,
) -> Option<(Piece, Tree)> {
    let mut piece = Piece {
        file: fi,
        bytes: f.chunks[*c].bytes.clone(),
        first_line: f.chunks[*c].first_line,
    };
    *c += 1;
    let mut tree = parser.parse(f.text(piece.bytes.clone()), None)?;
    if tree.root_node().has_error() && *c < f.chunks.len() {
        let merged = piece.bytes.start..f.chunks[*c].bytes.end;
        if let Some(t) = parser.parse(f.text(merged.clone()), None) {
            if !t.root_node().has_error() {
                tree = t;
                piece.bytes = merged;
                *c += 1;
            }
        }
    }
    Some((piece, tree))
}

/// State of one analysis across pieces.
struct Analysis {
    max_errors: usize,
    globals: Globals,
    coverage: Coverage,
    deferred: Vec<Piece>,
}

impl Analysis {
    /// Parses file `fi` a piece at a time, reports its syntax errors, records its
    /// globals and lowers each piece (or defers it, see [`Analysis::lower_piece`]).
    fn first_pass(
        &mut self,
        parser: &mut Parser,
        program: &mut Program,
        files: &[FileSource],
        fi: usize,
    ) {
        let f = &files[fi];
        let mut c = 0;
        while c < f.chunks.len() {
            let Some((piece, tree)) = parse_piece(parser, f, fi, &mut c) else {
                continue;
            };
            let text = f.text(piece.bytes.clone());
            syntax_errors(
                &tree,
                text,
                &f.loaded,
                piece.first_line,
                self.max_errors,
                &mut program.diagnostics,
            );
            collect_globals(tree.root_node(), text, &mut self.globals);
            // The last piece of all with nothing deferred before it: deferring it could
            // only lower it later, against the same modules, after parsing it twice more.
            let last = fi + 1 == files.len() && c == f.chunks.len() && self.deferred.is_empty();
            self.lower_piece(program, files, piece, &tree, last);
        }
    }

    /// Lowers the units that used modules defined later, repeating while modules
    /// appear; when none appears, lowers the rest with warnings.
    fn lower_deferred(&mut self, parser: &mut Parser, program: &mut Program, files: &[FileSource]) {
        loop {
            let pending = std::mem::take(&mut self.deferred);
            if pending.is_empty() {
                break;
            }
            let before = pending.len();
            let mut still = vec![];
            for piece in pending {
                let f = &files[piece.file];
                let Some(tree) = parser.parse(f.text(piece.bytes.clone()), None) else {
                    continue;
                };
                self.lower_piece(program, files, piece, &tree, false);
                still.append(&mut self.deferred);
            }
            if still.len() == before {
                // No progress: the missing modules are not among the sources.
                for piece in still {
                    let f = &files[piece.file];
                    if let Some(tree) = parser.parse(f.text(piece.bytes.clone()), None) {
                        self.lower_piece(program, files, piece, &tree, true);
                    }
                }
                break;
            }
            self.deferred = still;
        }
    }

    /// Lowers the units of one parsed piece: its modules first (in dependency order),
    /// then the other units. A piece whose units use a module not yet lowered is
    /// deferred, unless `force`.
    fn lower_piece(
        &mut self,
        program: &mut Program,
        files: &[FileSource],
        piece: Piece,
        tree: &Tree,
        force: bool,
    ) {
        let f = &files[piece.file];
        let text = f.text(piece.bytes.clone());
        let root = tree.root_node();
        let units = named_children(root);
        let local_modules: Vec<String> = units
            .iter()
            .filter(|n| kind_of(n) == "module")
            .map(|n| module_name(*n, text))
            .collect();
        if !force {
            let missing = units.iter().any(|n| {
                uses_of(*n, text).iter().any(|u| {
                    !self.globals.modules.contains_key(u)
                        && !local_modules.contains(u)
                        && !is_external_module(u)
                })
            });
            if missing {
                self.deferred.push(piece);
                return;
            }
        }
        // Modules of this piece, in dependency order.
        let mods: Vec<(usize, usize, String, Vec<String>)> = units
            .iter()
            .enumerate()
            .filter(|(_, n)| kind_of(n) == "module")
            .map(|(i, n)| (i, 0, module_name(*n, text), uses_of(*n, text)))
            .collect();
        for m in module_order(&mods) {
            let (ui, _, name, _) = &mods[m];
            let mut lw = Lowerer::new(&f.loaded, text, piece.first_line, &self.globals);
            lw.source_index = f.input;
            lw.lower_unit(units[*ui], None, program.units.len());
            let module_units = std::mem::take(&mut lw.units);
            let mut ms = module_scope_from(&module_units, name);
            ms.derived = std::mem::take(&mut lw.module_derived);
            self.coverage.merge(&lw.coverage);
            program.diagnostics.append(&mut lw.diags);
            program.units.extend(module_units);
            self.globals.modules.insert(name.clone(), ms);
        }
        let mut lw = Lowerer::new(&f.loaded, text, piece.first_line, &self.globals);
        lw.source_index = f.input;
        for n in units {
            match kind_of(n) {
                "module" | "comment" | "interface" => {}
                _ if n.is_error() => {
                    // Reported by `syntax_errors`; its lines count as statements not lowered.
                    lw.coverage.statements += code_lines(n, text);
                }
                "program" | "subroutine" | "function" | "block_data" | "submodule" => {
                    lw.lower_unit(n, None, program.units.len());
                }
                other => {
                    let pos = Some(lw.pos(n));
                    lw.diags.push(Diagnostic::warning(
                        pos,
                        format!("top-level `{other}` outside any program unit was skipped"),
                    ));
                }
            }
        }
        self.coverage.merge(&lw.coverage);
        program.diagnostics.append(&mut lw.diags);
        program.units.append(&mut lw.units);
    }
}

/// Modules that come with the compiler or a library rather than the user's sources.
fn is_external_module(name: &str) -> bool {
    matches!(
        name,
        "iso_fortran_env"
            | "iso_c_binding"
            | "omp_lib"
            | "omp_lib_kinds"
            | "mpi"
            | "mpi_f08"
            | "ieee_arithmetic"
            | "ieee_exceptions"
            | "ieee_features"
            | "openacc"
    )
}

fn module_name(n: Node<'_>, text: &str) -> String {
    child_of_kind(n, "module_statement")
        .and_then(|s| child_of_kind(s, "name"))
        .map(|s| text_of(s, text).trim().to_ascii_lowercase())
        .unwrap_or_default()
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

/// Names of the modules a unit (or its internal procedures) uses.
fn uses_of(node: Node<'_>, src: &str) -> Vec<String> {
    let mut out = vec![];
    for c in named_children(node) {
        match kind_of(c) {
            "use_statement" => {
                if let Some(m) = child_of_kind(c, "module_name") {
                    out.push(text_of(m, src).trim().to_ascii_lowercase());
                }
            }
            "internal_procedures" => {
                for p in named_children(c) {
                    out.extend(uses_of(p, src));
                }
            }
            _ => {}
        }
    }
    out
}

/// Orders modules so that each comes after the modules it uses (cycles keep source order).
fn module_order(mods: &[(usize, usize, String, Vec<String>)]) -> Vec<usize> {
    let mut done = vec![false; mods.len()];
    let mut order = vec![];
    fn visit(
        i: usize,
        mods: &[(usize, usize, String, Vec<String>)],
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
///
/// Kind selectors are resolved with the named constants visible where they are written
/// (`real(dp) function f`, `integer(i8) :: t` for a result variable, `real(dp) :: x` in a
/// derived type): those of the unit itself, of its hosts and of the modules it uses.
fn collect_globals(root: Node<'_>, src: &str, g: &mut Globals) {
    collect_in(root, src, g, &Scope::default());
}

/// [`collect_globals`] below `n`, whose enclosing unit sees the constants of `outer`.
fn collect_in(n: Node<'_>, src: &str, g: &mut Globals, outer: &Scope) {
    let own;
    let scope = if matches!(
        kind_of(n),
        "program" | "module" | "submodule" | "function" | "subroutine" | "block_data"
    ) {
        own = unit_constants(n, src, g, outer);
        if kind_of(n) == "module" {
            let consts = own
                .symbols
                .iter()
                .filter_map(|(k, s)| s.value.map(|v| (k.clone(), v)))
                .collect();
            g.module_constants.insert(module_name(n, src), consts);
        }
        &own
    } else {
        outer
    };
    match kind_of(n) {
        "function" => {
            let stmt = child_of_kind(n, "function_statement");
            let name = stmt
                .and_then(|s| field(s, "name"))
                .map(|s| text_of(s, src).trim().to_ascii_lowercase());
            let result = stmt
                .and_then(|s| child_of_kind(s, "function_result"))
                .and_then(|r| child_of_kind(r, "identifier"))
                .map(|r| text_of(r, src).trim().to_ascii_lowercase());
            let mut ty: Option<Type> = stmt
                .and_then(|s| field(s, "type"))
                .filter(|t| kind_of(t) == "intrinsic_type")
                .map(|t| parse_intrinsic_type(t, src, scope));
            if let Some(name) = name {
                let rname = result.unwrap_or_else(|| name.clone());
                if ty.is_none() {
                    ty = declared_type_in(n, &rname, src, scope);
                }
                g.functions.insert(name, ty);
            }
        }
        "subroutine" => {
            if let Some(name) =
                child_of_kind(n, "subroutine_statement").and_then(|s| field(s, "name"))
            {
                g.subroutines
                    .insert(text_of(name, src).trim().to_ascii_lowercase());
            }
        }
        "derived_type_definition" => {
            let tname = child_of_kind(n, "derived_type_statement")
                .and_then(|s| child_of_kind(s, "type_name"))
                .map(|t| text_of(t, src).trim().to_ascii_lowercase());
            if let Some(tname) = tname {
                let comps = g.types.entry(tname).or_default();
                for d in named_children(n)
                    .into_iter()
                    .filter(|c| kind_of(c) == "variable_declaration")
                {
                    let ty_node = field(d, "type");
                    let (ty, dt) = match ty_node {
                        Some(t) if kind_of(t) == "intrinsic_type" => {
                            (parse_intrinsic_type(t, src, scope), None)
                        }
                        Some(t) => (
                            Type::DERIVED,
                            child_of_kind(t, "type_name")
                                .map(|x| text_of(x, src).trim().to_ascii_lowercase()),
                        ),
                        None => (Type::UNKNOWN, None),
                    };
                    let dim_attr = {
                        let mut c = d.walk();
                        let attrs: Vec<Node<'_>> =
                            d.children_by_field_name("attribute", &mut c).collect();
                        attrs.into_iter().any(|a| {
                            syntax::squeeze_lower(text_of(a, src)).starts_with("dimension")
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
            return;
        }
        _ => {}
    }
    let mut cursor = n.walk();
    let kids: Vec<Node<'_>> = n.named_children(&mut cursor).collect();
    for c in kids {
        collect_in(c, src, g, scope);
    }
}

/// The named integer constants a unit sees: its host's (`outer`), those of the modules
/// it uses (collected earlier, or already lowered), and its own PARAMETERs, in order.
fn unit_constants(unit: Node<'_>, src: &str, g: &Globals, outer: &Scope) -> Scope {
    let mut s = outer.clone();
    s.own.clear();
    for d in named_children(unit) {
        match kind_of(d) {
            "use_statement" => {
                let Some(m) = child_of_kind(d, "module_name") else {
                    continue;
                };
                let m = text_of(m, src).trim().to_ascii_lowercase();
                if let Some(consts) = g.module_constants.get(&m) {
                    for (k, v) in consts {
                        s.define_constant(k, Some(*v));
                    }
                } else if let Some(ms) = g.modules.get(&m) {
                    for (k, sym) in &ms.symbols {
                        if sym.value.is_some() {
                            s.define_constant(k, sym.value);
                        }
                    }
                } else if m == "iso_fortran_env" || m == "iso_c_binding" {
                    for &k in scope::ISO_KIND_NAMES {
                        s.define_constant(k, scope::kind_function_value(k));
                    }
                }
            }
            "variable_declaration" => {
                let mut c = d.walk();
                let is_param = d
                    .children_by_field_name("attribute", &mut c)
                    .any(|a| syntax::squeeze_lower(text_of(a, src)) == "parameter");
                if !is_param {
                    continue;
                }
                let mut c = d.walk();
                let decls: Vec<Node<'_>> = d.children_by_field_name("declarator", &mut c).collect();
                for decl in decls {
                    if let Some((name, _, Some(v))) = scope::declarator_name(decl, src) {
                        let value = constant_value(v, src, &s);
                        s.define_constant(&name, value);
                    }
                }
            }
            "parameter_statement" => {
                for pa in named_children(d) {
                    if kind_of(pa) != "parameter_assignment" {
                        continue;
                    }
                    let kids = named_children(pa);
                    if let (Some(n), Some(v)) = (kids.first(), kids.get(1)) {
                        let name = text_of(*n, src).trim().to_ascii_lowercase();
                        let value = constant_value(*v, src, &s);
                        s.define_constant(&name, value);
                    }
                }
            }
            _ => {}
        }
    }
    s
}

/// Integer value of a constant expression node (literal, named constant, simple
/// arithmetic, or a kind inquiry such as `kind(1.0d0)` or `selected_int_kind(18)`).
fn constant_value(v: Node<'_>, src: &str, s: &Scope) -> Option<i64> {
    let t = syntax::squeeze_lower(text_of(v, src));
    scope::const_int(&t, s).or_else(|| scope::kind_function_value(&t))
}

/// The type a function body declares for its result variable.
fn declared_type_in(func: Node<'_>, result: &str, src: &str, scope: &Scope) -> Option<Type> {
    for d in named_children(func) {
        if kind_of(d) != "variable_declaration" {
            continue;
        }
        let mut c = d.walk();
        let names: Vec<String> = d
            .children_by_field_name("declarator", &mut c)
            .filter_map(|x| scope::declarator_name(x, src).map(|t| t.0))
            .collect();
        if names.iter().any(|n| n == result) {
            return field(d, "type")
                .filter(|t| kind_of(t) == "intrinsic_type")
                .map(|t| parse_intrinsic_type(t, src, scope));
        }
    }
    None
}

/// Reports ERROR and MISSING nodes with their original position and source line.
fn syntax_errors(
    tree: &Tree,
    src: &str,
    loaded: &LoadedSource,
    line_offset: usize,
    max: usize,
    out: &mut Vec<Diagnostic>,
) {
    let root = tree.root_node();
    if !root.has_error() {
        return;
    }
    let mut found = 0usize;
    let mut total = 0usize;
    let mut stack = vec![root];
    let mut first_pos = None;
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            total += 1;
            // The offending part of an ERROR node: its first child that is not a
            // well-formed statement (tree-sitter wraps whole units in ERROR nodes).
            let culprit = if n.is_error() {
                first_stray_child(n).unwrap_or(n)
            } else {
                n
            };
            let sp = culprit.start_position();
            let pos = loaded.origin(sp.row + line_offset, sp.column);
            first_pos.get_or_insert(pos);
            if found < max {
                found += 1;
                let what = if n.is_missing() {
                    format!("syntax error: expected `{}` here", kind_of(n))
                } else {
                    let line = src.lines().nth(sp.row).unwrap_or("").trim();
                    let shown: String = line.chars().take(60).collect();
                    let unit = skipped_unit(n, src);
                    let first = loaded.origin(n.start_position().row + line_offset, 0).line;
                    let last = loaded.origin(n.end_position().row + line_offset, 0).line;
                    match unit {
                        Some(u) => format!(
                            "syntax error: cannot parse `{shown}`; unit `{u}` (lines {first}-{last}) is skipped"
                        ),
                        None if last > first => format!(
                            "syntax error: cannot parse `{shown}`; lines {first}-{last} are skipped"
                        ),
                        None => format!("syntax error: cannot parse `{shown}`; the statement is skipped"),
                    }
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

/// The first child of an ERROR node that is not a complete statement or construct.
fn first_stray_child(n: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = n.walk();
    let kids: Vec<Node<'_>> = n.children(&mut cursor).collect();
    kids.into_iter().find(|c| {
        let k = kind_of(*c);
        !(k.ends_with("_statement")
            || k.ends_with("_declaration")
            || matches!(
                k,
                "comment"
                    | "do_loop"
                    | "subroutine_call"
                    | "statement_label"
                    | "variable_modification"
            ))
            || c.is_error()
            || c.has_error()
    })
}

/// The name of a program unit whose header an ERROR node swallowed, if any.
fn skipped_unit(n: Node<'_>, src: &str) -> Option<String> {
    let header = named_children(n).into_iter().find(|c| {
        matches!(
            kind_of(*c),
            "subroutine_statement"
                | "function_statement"
                | "program_statement"
                | "module_statement"
        )
    })?;
    let name = field(header, "name").or_else(|| child_of_kind(header, "name"))?;
    Some(text_of(name, src).trim().to_ascii_lowercase())
}

/// Number of non-blank, non-comment lines a node covers: the statements a skipped
/// region held, for the coverage figure.
pub(crate) fn code_lines(n: Node<'_>, src: &str) -> u64 {
    text_of(n, src)
        .lines()
        .filter(|l| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('!')
        })
        .count()
        .max(1) as u64
}
