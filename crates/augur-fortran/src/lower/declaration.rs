//! Lowering of the specification part into the unit's symbols: type
//! declarations, attribute statements, PARAMETER, COMMON and USE.

use super::Lowerer;
use crate::scope::{declarator_name, parse_dims, parse_intrinsic_type};
use crate::syntax::{child_of_kind, field, kind_of, named_children, squeeze_lower, text};
use augur_ir::{Diagnostic, Storage, Symbol, Type};
use tree_sitter::Node;

impl Lowerer<'_> {
    /// A type declaration: each entity's type, dimensions and attributes, and the
    /// value of a PARAMETER.
    pub(super) fn declaration(&mut self, node: Node<'_>) {
        let src = self.src;
        let type_node = field(node, "type");
        let (ty, derived) = match type_node {
            Some(t) if kind_of(t) == "intrinsic_type" => {
                (parse_intrinsic_type(t, src, &self.scope), None)
            }
            Some(t) if kind_of(t) == "derived_type" || kind_of(t) == "declared_type" => {
                let name =
                    child_of_kind(t, "type_name").map(|n| text(n, src).trim().to_ascii_lowercase());
                (Type::DERIVED, name)
            }
            _ => (Type::UNKNOWN, None),
        };
        let mut is_param = false;
        let mut common_dims = None;
        let mut external = false;
        let mut cursor = node.walk();
        for a in node.children_by_field_name("attribute", &mut cursor) {
            let at = squeeze_lower(text(a, src));
            if at == "parameter" {
                is_param = true;
            } else if at.starts_with("dimension") {
                common_dims =
                    child_of_kind(a, "argument_list").or_else(|| child_of_kind(a, "size"));
            } else if at == "external" {
                external = true;
            } else if at == "intrinsic" {
                external = false;
            }
        }
        for (name, size, init) in declared_entities(node, src) {
            let dims = size
                .or(common_dims)
                .map(|s| parse_dims(s, src, &self.scope))
                .filter(|d| !d.is_empty());
            {
                let sym = self.scope.declare(&name);
                if ty.base != augur_ir::BaseType::Unknown {
                    sym.ty = ty;
                    sym.implicit = false;
                }
                if let Some(dims) = dims {
                    sym.dims = dims;
                }
                if external {
                    sym.procedure = true;
                }
            }
            if let Some(dn) = &derived {
                self.scope.derived.insert(name.clone(), dn.clone());
            }
            if is_param {
                if let Some(v) = init {
                    self.define_parameter(&name, v);
                }
            } else if let Some(v) = init {
                let literal = text(v, src)
                    .trim()
                    .split('_')
                    .next()
                    .unwrap_or("")
                    .to_string();
                if literal.parse::<u64>().is_err() {
                    self.valued_elsewhere.insert(name.clone());
                }
            }
        }
    }

    /// Records the variables a DATA or EQUIVALENCE statement names: their values come
    /// from elsewhere than the unit's assignments.
    pub(super) fn names_valued_elsewhere(&mut self, node: Node<'_>) {
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if kind_of(n) == "identifier" {
                self.valued_elsewhere
                    .insert(text(n, self.src).trim().to_ascii_lowercase());
            }
            stack.extend(named_children(n));
        }
    }

    /// PARAMETER statement: each named constant with its value.
    pub(super) fn parameter_statement(&mut self, node: Node<'_>) {
        for pa in named_children(node) {
            if kind_of(pa) == "parameter_assignment" {
                let kids = named_children(pa);
                if let (Some(n), Some(v)) = (kids.first(), kids.get(1)) {
                    let name = text(*n, self.src).trim().to_ascii_lowercase();
                    self.define_parameter(&name, *v);
                }
            }
        }
    }

    /// Makes `name` a named constant, with the integer value of `value` when it has one.
    pub(super) fn define_parameter(&mut self, name: &str, value: Node<'_>) {
        let e = self.expr(value);
        let v = e
            .int_value()
            .or_else(|| crate::scope::kind_function_value(&squeeze_lower(text(value, self.src))));
        // A named constant keeps its declared (or implicit) type whatever its value's type.
        let sym = self.scope.declare(name);
        sym.storage = Storage::Parameter;
        sym.value = v;
    }

    /// An attribute statement (DIMENSION, EXTERNAL, INTRINSIC, ...) applied to each
    /// entity it names.
    pub(super) fn modification(&mut self, node: Node<'_>) {
        let src = self.src;
        let qual = child_of_kind(node, "type_qualifier")
            .or_else(|| child_of_kind(node, "variable_attributes"))
            .map(|q| squeeze_lower(text(q, src)))
            .unwrap_or_default();
        for (name, size, _) in declared_entities(node, src) {
            let dims = size.map(|s| parse_dims(s, src, &self.scope));
            let intrinsic = qual.starts_with("intrinsic");
            let sym = self.scope.declare(&name);
            if let Some(dims) = dims.filter(|d| !d.is_empty()) {
                sym.dims = dims;
            }
            if qual.starts_with("external") {
                sym.procedure = true;
            }
            if intrinsic {
                sym.procedure = true;
                self.intrinsic_declared.insert(name);
            }
        }
    }

    /// COMMON: each member's storage in its block, and its dimensions.
    pub(super) fn common(&mut self, node: Node<'_>) {
        let src = self.src;
        for (blk, name, size) in common_members(node, src) {
            let dims = size.map(|s| parse_dims(s, src, &self.scope));
            let sym = self.scope.declare(&name);
            sym.storage = Storage::Common(blk);
            if let Some(d) = dims.filter(|d| !d.is_empty()) {
                sym.dims = d;
            }
        }
    }

    /// USE: the module's symbols and derived types become visible (for the intrinsic
    /// modules, their kind constants); a module not among the sources is reported.
    pub(super) fn use_module(&mut self, node: Node<'_>) {
        let src = self.src;
        let Some(m) = child_of_kind(node, "module_name") else {
            return;
        };
        let name = text(m, src).trim().to_ascii_lowercase();
        if !self.unit.uses.contains(&name) {
            self.unit.uses.push(name.clone());
        }
        // `USE m, ONLY: a, b => c`: only those names, `b` standing for the module's `c`.
        let only: Option<Vec<(String, String)>> =
            child_of_kind(node, "included_items").map(|items| {
                named_children(items)
                    .into_iter()
                    .map(|c| squeeze_lower(text(c, src)))
                    .map(|i| match i.split_once("=>") {
                        Some((local, remote)) => (local.to_string(), remote.to_string()),
                        None => (i.clone(), i),
                    })
                    .collect()
            });
        match self.globals.modules.get(&name) {
            Some(ms) => {
                for (n, s) in &ms.symbols {
                    let locals: Vec<String> = match &only {
                        None => vec![n.clone()],
                        Some(o) => o
                            .iter()
                            .filter(|(_, remote)| remote == n)
                            .map(|(local, _)| local.clone())
                            .collect(),
                    };
                    for local in locals {
                        if !self.scope.own.contains(&local) {
                            let mut s = s.clone();
                            s.name = local.clone();
                            self.scope.symbols.insert(local, s);
                        }
                    }
                }
                for (n, t) in &ms.derived {
                    self.scope.derived.insert(n.clone(), t.clone());
                }
            }
            None if name == "iso_fortran_env" || name == "iso_c_binding" => {
                // Their kind constants and ISO_FORTRAN_ENV's units and I/O status values
                // are named integer constants.
                let only: Option<Vec<String>> =
                    child_of_kind(node, "included_items").map(|items| {
                        named_children(items)
                            .into_iter()
                            .map(|c| squeeze_lower(text(c, src)))
                            .collect()
                    });
                let kinds = crate::scope::ISO_KIND_NAMES
                    .iter()
                    .map(|&k| (k, crate::scope::kind_function_value(k)));
                let env = if name == "iso_fortran_env" {
                    crate::scope::ISO_ENV_CONSTANTS
                } else {
                    &[]
                };
                let others = env.iter().map(|&(k, v)| (k, Some(v)));
                for (k, value) in kinds.chain(others) {
                    let wanted = only.as_ref().map_or(true, |o| {
                        o.iter().any(|i| i == k || i.ends_with(&format!("=>{k}")))
                    });
                    if !wanted || self.scope.own.contains(k) {
                        continue;
                    }
                    let local = only
                        .as_ref()
                        .and_then(|o| o.iter().find_map(|i| i.strip_suffix(&format!("=>{k}"))))
                        .unwrap_or(k)
                        .to_string();
                    self.scope.symbols.insert(
                        local.clone(),
                        Symbol {
                            name: local,
                            ty: Type::INTEGER,
                            implicit: false,
                            dims: vec![],
                            storage: Storage::Parameter,
                            value,
                            procedure: false,
                        },
                    );
                }
            }
            None => {
                if !matches!(
                    name.as_str(),
                    "iso_fortran_env"
                        | "iso_c_binding"
                        | "omp_lib"
                        | "mpi"
                        | "mpi_f08"
                        | "ieee_arithmetic"
                ) && self.warned.insert(format!("module:{name}"))
                {
                    let pos = Some(self.pos(node));
                    self.diags.push(
                        Diagnostic::warning(pos, format!("module `{name}` is not among the analyzed sources; its variables get implicit types"))
                            .with_hint("pass the file that defines the module too"),
                    );
                }
            }
        }
    }
}

/// The entities a declaration or attribute statement names: the name, dimensions
/// node and initial value of each of its declarators.
fn declared_entities<'t>(
    node: Node<'t>,
    src: &str,
) -> Vec<(String, Option<Node<'t>>, Option<Node<'t>>)> {
    let mut cursor = node.walk();
    node.children_by_field_name("declarator", &mut cursor)
        .filter_map(|d| declarator_name(d, src))
        .collect()
}

/// Members of a COMMON statement: (block name, variable, dimensions node).
fn common_members<'t>(node: Node<'t>, src: &str) -> Vec<(String, String, Option<Node<'t>>)> {
    let mut block = String::new();
    let mut out = vec![];
    let mut items = vec![];
    for c in named_children(node) {
        if kind_of(c) == "variable_group" {
            items.extend(named_children(c));
        } else {
            items.push(c);
        }
    }
    for n in items {
        match kind_of(n) {
            "name" => {
                block = text(n, src)
                    .trim()
                    .trim_matches('/')
                    .trim()
                    .to_ascii_lowercase()
            }
            "identifier" | "sized_declarator" => {
                if let Some((name, size, _)) = declarator_name(n, src) {
                    out.push((block.clone(), name, size));
                }
            }
            _ => {}
        }
    }
    out
}
