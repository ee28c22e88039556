//! Symbol tables: declared and implicit types, kinds, arrays, storage classes.

use crate::syntax::{child_of_kind, field, kind_of, named_children, squeeze_lower, text};
use augur_ir::{BaseType, Dim, Storage, Symbol, Type};
use std::collections::HashMap;
use tree_sitter::Node;

/// Components of a derived type: name → (type, rank, derived type name).
pub type Components = HashMap<String, (Type, u8, Option<String>)>;

/// What is known program-wide before any unit is lowered.
#[derive(Debug, Default)]
pub struct Globals {
    /// Result types of functions defined anywhere in the program (lower-case name).
    pub functions: HashMap<String, Option<Type>>,
    /// Names of subroutines defined anywhere in the program.
    pub subroutines: std::collections::HashSet<String>,
    /// Variables of each module, already marked with module storage.
    pub modules: HashMap<String, ModuleScope>,
    /// Named integer constants of each module (kind parameters above all), known before
    /// the module is lowered.
    pub module_constants: HashMap<String, HashMap<String, i64>>,
    /// Derived types by lower-case name.
    pub types: HashMap<String, Components>,
}

/// The public entities of a module.
#[derive(Debug, Default, Clone)]
pub struct ModuleScope {
    /// Its variables and constants.
    pub symbols: HashMap<String, Symbol>,
    /// Derived type of each variable that has one.
    pub derived: HashMap<String, String>,
}

/// What expressions need to know of a symbol, cheap to copy.
#[derive(Debug, Clone, Copy)]
pub struct SymInfo {
    /// Type.
    pub ty: Type,
    /// Whether the type is implicit.
    pub implicit: bool,
    /// Declared rank.
    pub rank: u8,
    /// COMMON or module storage.
    pub global: bool,
    /// A named constant.
    pub parameter: bool,
    /// Its integer value, for integer named constants.
    pub value: Option<i64>,
    /// A procedure name.
    pub procedure: bool,
}

impl SymInfo {
    fn of(s: &Symbol) -> SymInfo {
        SymInfo {
            ty: s.ty,
            implicit: s.implicit,
            rank: s.dims.len() as u8,
            global: s.storage.is_global(),
            parameter: matches!(s.storage, Storage::Parameter),
            value: s.value,
            procedure: s.procedure,
        }
    }
}

/// The symbols visible in one unit.
#[derive(Debug, Clone)]
pub struct Scope {
    /// Symbols by lower-case name.
    pub symbols: HashMap<String, Symbol>,
    /// Derived type name of variables of derived type.
    pub derived: HashMap<String, String>,
    /// Implicit type for each initial letter (None under IMPLICIT NONE).
    pub implicit: [Option<Type>; 26],
    /// Names declared in this unit (as opposed to inherited from a host or module).
    pub own: std::collections::HashSet<String>,
}

impl Default for Scope {
    fn default() -> Self {
        let mut implicit = [Some(crate::kinds::real()); 26];
        for slot in implicit
            .iter_mut()
            .take((b'n' - b'a' + 1) as usize)
            .skip((b'i' - b'a') as usize)
        {
            *slot = Some(crate::kinds::integer());
        }
        Scope {
            symbols: HashMap::new(),
            derived: HashMap::new(),
            implicit,
            own: Default::default(),
        }
    }
}

impl Scope {
    /// The implicit type of a name (Unknown under IMPLICIT NONE).
    pub fn implicit_type(&self, name: &str) -> Option<Type> {
        let c = name.bytes().next()?.to_ascii_lowercase();
        if c.is_ascii_lowercase() {
            self.implicit[(c - b'a') as usize]
        } else {
            Some(crate::kinds::real())
        }
    }

    /// The symbol for `name`, created with the implicit type on first use.
    pub fn get_or_implicit(&mut self, name: &str) -> &mut Symbol {
        if !self.symbols.contains_key(name) {
            let ty = self.implicit_type(name);
            self.symbols.insert(
                name.to_string(),
                Symbol {
                    name: name.to_string(),
                    ty: ty.unwrap_or(Type::UNKNOWN),
                    implicit: true,
                    dims: vec![],
                    storage: Storage::Local,
                    value: None,
                    procedure: false,
                },
            );
        }
        self.symbols.get_mut(name).expect("inserted above")
    }

    /// Copyable facts about a known symbol.
    pub fn info(&self, name: &str) -> Option<SymInfo> {
        self.symbols.get(name).map(SymInfo::of)
    }

    /// Facts about a symbol, creating it with its implicit type on first use.
    pub fn info_or_implicit(&mut self, name: &str) -> SymInfo {
        SymInfo::of(self.get_or_implicit(name))
    }

    /// Declares `name` in this unit (creating it with its implicit type).
    pub fn declare(&mut self, name: &str) -> &mut Symbol {
        if self.own.insert(name.to_string()) {
            // The first declaration in this unit hides an inherited entity of the same name.
            self.symbols.remove(name);
        }
        self.get_or_implicit(name)
    }

    /// Declares `name` as a named constant of this unit with its integer value, if known.
    pub fn define_constant(&mut self, name: &str, value: Option<i64>) {
        let sym = self.declare(name);
        sym.storage = Storage::Parameter;
        sym.value = value;
    }

    /// Integer value of a named constant, if known.
    pub fn const_value(&self, name: &str) -> Option<i64> {
        self.symbols.get(name).and_then(|s| s.value)
    }

    /// Applies an IMPLICIT statement.
    pub fn apply_implicit(&mut self, node: Node<'_>, src: &str) {
        let kids = named_children(node);
        if kids.iter().any(|k| kind_of(k) == "none") {
            self.implicit = [None; 26];
            return;
        }
        let mut current: Option<Type> = None;
        for k in kids {
            match kind_of(k) {
                "intrinsic_type" => current = Some(parse_intrinsic_type(k, src, self)),
                "derived_type" => current = Some(Type::DERIVED),
                "implicit_range" => {
                    let Some(ty) = current else { continue };
                    let r = squeeze_lower(text(k, src));
                    let bytes: Vec<u8> = r.bytes().filter(|b| b.is_ascii_lowercase()).collect();
                    let (lo, hi) = match bytes.as_slice() {
                        [a] => (*a, *a),
                        [a, b, ..] => (*a, *b),
                        [] => continue,
                    };
                    for c in lo..=hi.max(lo) {
                        self.implicit[(c - b'a') as usize] = Some(ty);
                    }
                }
                _ => {}
            }
        }
        self.retype_implicit();
    }

    /// Re-types symbols whose type came from the implicit rules (dummy arguments and
    /// the function result are entered before the IMPLICIT statement is seen).
    fn retype_implicit(&mut self) {
        let names: Vec<String> = self
            .symbols
            .iter()
            .filter(|(n, s)| s.implicit && self.own.contains(*n))
            .map(|(n, _)| n.clone())
            .collect();
        for n in names {
            let ty = self.implicit_type(&n).unwrap_or(Type::UNKNOWN);
            if let Some(s) = self.symbols.get_mut(&n) {
                s.ty = ty;
            }
        }
    }
}

/// Type of an `intrinsic_type` node (`REAL*8`, `real(kind=dp)`, `DOUBLE PRECISION`, `complex(8)`, ...).
pub fn parse_intrinsic_type(node: Node<'_>, src: &str, scope: &Scope) -> Type {
    let full = squeeze_lower(text(node, src));
    let kind_node = field(node, "kind");
    let kind_text = kind_node.map(|k| squeeze_lower(text(k, src)));
    let base_text = match kind_node {
        Some(k) => squeeze_lower(&src[node.start_byte()..k.start_byte()]),
        None => full.clone(),
    };
    let kinds = crate::kinds::current();
    let (base, default_kind) = if base_text.starts_with("doubleprecision") {
        (BaseType::Real, kinds.double)
    } else if base_text.starts_with("doublecomplex") {
        (BaseType::Complex, kinds.double)
    } else if base_text.starts_with("byte") {
        (BaseType::Integer, 1)
    } else if base_text.starts_with("integer") {
        (BaseType::Integer, kinds.integer)
    } else if base_text.starts_with("real") {
        (BaseType::Real, kinds.real)
    } else if base_text.starts_with("complex") {
        (BaseType::Complex, kinds.real)
    } else if base_text.starts_with("logical") {
        (BaseType::Logical, kinds.integer)
    } else if base_text.starts_with("character") {
        (BaseType::Character, 1)
    } else {
        (BaseType::Unknown, 0)
    };
    let mut kind = default_kind;
    if let Some(kt) = kind_text {
        if base != BaseType::Character {
            if let Some(star) = kt.strip_prefix('*') {
                // REAL*8, COMPLEX*16 (bytes of the whole complex), INTEGER*8.
                if let Ok(n) = star.trim_matches(|c| c == '(' || c == ')').parse::<u8>() {
                    kind = kinds.written(base, if base == BaseType::Complex { n / 2 } else { n });
                }
            } else {
                let inner = kt.trim_start_matches('(').trim_end_matches(')');
                let inner = inner.strip_prefix("kind=").unwrap_or(inner);
                if let Some(v) = eval_kind(inner, scope) {
                    kind = kinds.written(base, v);
                }
            }
        }
    }
    Type { base, kind }
}

/// Evaluates a kind selector: a number, a named constant, or `kind(1.0d0)`,
/// `selected_real_kind(p)`, `selected_int_kind(r)`.
pub fn eval_kind(s: &str, scope: &Scope) -> Option<u8> {
    if let Ok(n) = s.parse::<i64>() {
        return u8::try_from(n).ok();
    }
    if let Some(v) = scope.const_value(s) {
        return u8::try_from(v).ok();
    }
    kind_function_value(s).and_then(|v| u8::try_from(v).ok())
}

/// Value of `kind(literal)`, `selected_real_kind(p[,r])`, `selected_int_kind(r)`,
/// `real64`-style constants from ISO_FORTRAN_ENV, given as squeezed lower-case text.
pub fn kind_function_value(s: &str) -> Option<i64> {
    let arg = |p: &str| -> Option<String> {
        s.strip_prefix(p)
            .map(|r| r.trim_start_matches('(').trim_end_matches(')').to_string())
    };
    if let Some(a) = arg("kind") {
        return Some(if a.contains('d') {
            8
        } else if let Some(pos) = a.find('_') {
            a[pos + 1..].parse().unwrap_or(4)
        } else {
            4
        });
    }
    if let Some(a) = arg("selected_real_kind") {
        let p: i64 = a.split(',').next()?.trim_start_matches("p=").parse().ok()?;
        return Some(if p <= 6 {
            4
        } else if p <= 15 {
            8
        } else {
            16
        });
    }
    if let Some(a) = arg("selected_int_kind") {
        let r: i64 = a.trim_start_matches("r=").parse().ok()?;
        return Some(if r <= 2 {
            1
        } else if r <= 4 {
            2
        } else if r <= 9 {
            4
        } else {
            8
        });
    }
    match s {
        "real32" | "int32" | "c_float" | "c_int" | "c_int32_t" | "c_float_complex" => Some(4),
        "real64" | "int64" | "c_double" | "c_long" | "c_int64_t" | "c_long_long" | "c_size_t"
        | "c_intptr_t" | "c_double_complex" => Some(8),
        "real128" => Some(16),
        "int16" | "c_short" | "c_int16_t" => Some(2),
        "int8" | "c_int8_t" | "c_signed_char" | "c_bool" | "c_char" => Some(1),
        _ => None,
    }
}

/// The other named integer constants of ISO_FORTRAN_ENV, with gfortran's values: units,
/// I/O status codes and storage sizes.
pub const ISO_ENV_CONSTANTS: &[(&str, i64)] = &[
    ("input_unit", 5),
    ("output_unit", 6),
    ("error_unit", 0),
    ("iostat_end", -1),
    ("iostat_eor", -2),
    ("iostat_inquire_internal_unit", 99),
    ("character_storage_size", 8),
    ("numeric_storage_size", 32),
    ("file_storage_size", 8),
];

/// The kind constants of ISO_FORTRAN_ENV and ISO_C_BINDING that [`kind_function_value`] knows.
pub const ISO_KIND_NAMES: &[&str] = &[
    "real32",
    "real64",
    "real128",
    "int8",
    "int16",
    "int32",
    "int64",
    "c_float",
    "c_double",
    "c_float_complex",
    "c_double_complex",
    "c_int",
    "c_short",
    "c_long",
    "c_long_long",
    "c_signed_char",
    "c_size_t",
    "c_intptr_t",
    "c_int8_t",
    "c_int16_t",
    "c_int32_t",
    "c_int64_t",
    "c_bool",
    "c_char",
];

/// Dimensions of a `size` node (`(10, n)`, `(0:n, *)`, `(:,:)`).
pub fn parse_dims(size: Node<'_>, src: &str, scope: &Scope) -> Vec<Dim> {
    let mut dims = vec![];
    for d in named_children(size) {
        match kind_of(d) {
            "extent_specifier" => {
                let t = text(d, src);
                let (lo, hi) = match t.find(':') {
                    Some(p) => {
                        let lo = t[..p].trim();
                        let hi = t[p + 1..].trim();
                        (
                            (!lo.is_empty()).then(|| lo.to_string()),
                            (!hi.is_empty() && hi != "*").then(|| hi.to_string()),
                        )
                    }
                    None => (None, None),
                };
                let extent = match (&lo, &hi) {
                    (Some(l), Some(h)) => match (const_int(l, scope), const_int(h, scope)) {
                        (Some(l), Some(h)) => Some((h - l + 1).max(0)),
                        _ => None,
                    },
                    _ => None,
                };
                dims.push(Dim {
                    lower: lo,
                    upper: hi,
                    extent,
                });
            }
            "assumed_size" => dims.push(Dim {
                lower: None,
                upper: None,
                extent: None,
            }),
            "comment" => {}
            _ => {
                let t = text(d, src).trim().to_string();
                let extent = const_int(&t, scope);
                dims.push(Dim {
                    lower: None,
                    upper: (t != "*").then_some(t),
                    extent,
                });
            }
        }
    }
    dims
}

/// Integer value of a simple constant expression text: a literal, a named constant,
/// or `a op b` of those (op in + - * /), evaluated left to right.
pub fn const_int(s: &str, scope: &Scope) -> Option<i64> {
    let s = squeeze_lower(s);
    let s = s.trim_start_matches('(').trim_end_matches(')');
    if let Ok(v) = s.parse::<i64>() {
        return Some(v);
    }
    if let Some(v) = scope.const_value(s) {
        return Some(v);
    }
    // a op b, splitting at the last + or - (outside the first char), then * or /.
    for ops in [['+', '-'], ['*', '/']] {
        // By byte offsets: a name or a literal may hold characters of several bytes.
        let chars: Vec<(usize, char)> = s.char_indices().collect();
        let mut depth = 0;
        for &(i, ch) in chars.iter().skip(1).rev() {
            match ch {
                ')' => depth += 1,
                '(' => depth -= 1,
                c if depth == 0 && ops.contains(&c) => {
                    let a = const_int(&s[..i], scope)?;
                    let b = const_int(&s[i + c.len_utf8()..], scope)?;
                    return match c {
                        '+' => a.checked_add(b),
                        '-' => a.checked_sub(b),
                        '*' => a.checked_mul(b),
                        _ if b != 0 => Some(a / b),
                        _ => None,
                    };
                }
                _ => {}
            }
        }
    }
    None
}

/// Name and dims of a declarator node (`identifier`, `sized_declarator`, `init_declarator`, ...).
pub fn declarator_name<'t>(
    node: Node<'t>,
    src: &str,
) -> Option<(String, Option<Node<'t>>, Option<Node<'t>>)> {
    match kind_of(node) {
        "identifier" | "name" => Some((text(node, src).to_ascii_lowercase(), None, None)),
        "sized_declarator" | "coarray_declarator" | "data_declarator" => {
            let id = child_of_kind(node, "identifier")?;
            Some((
                text(id, src).to_ascii_lowercase(),
                child_of_kind(node, "size"),
                None,
            ))
        }
        "init_declarator" | "pointer_init_declarator" => {
            let left = field(node, "left").or_else(|| node.named_child(0))?;
            let right = field(node, "right");
            let (name, size, _) = declarator_name(left, src)?;
            Some((name, size, right))
        }
        _ => None,
    }
}
