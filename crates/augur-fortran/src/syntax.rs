//! Small helpers over tree-sitter nodes.

use tree_sitter::Node;

/// Text of a node in the source it was parsed from.
pub fn text<'a>(node: Node<'_>, src: &'a str) -> &'a str {
    src.get(node.byte_range()).unwrap_or("")
}

/// Named children of a node, as a vector (tree-sitter's cursor API is awkward to hold).
pub fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// All children of a node, named or not.
pub fn children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

/// The first named child of a given kind.
pub fn child_of_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    let found = node
        .named_children(&mut cursor)
        .find(|c| kind_of(c) == kind);
    found
}

/// Lower-case text with blanks removed (Fortran keywords are case- and, in fixed form, blank-insensitive).
pub fn squeeze_lower(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Parses a Fortran statement label.
pub fn label_value(node: Node<'_>, src: &str) -> Option<u32> {
    text(node, src).trim().parse().ok()
}

/// Field names the lowering asks for, resolved to tree-sitter field ids once.
const FIELD_NAMES: [&str; 13] = [
    "left",
    "right",
    "operator",
    "argument",
    "type",
    "name",
    "kind",
    "value",
    "function",
    "subroutine",
    "parameters",
    "do_label",
    "declarator",
];

fn field_ids() -> &'static [Option<std::num::NonZeroU16>; 13] {
    static IDS: std::sync::OnceLock<[Option<std::num::NonZeroU16>; 13]> =
        std::sync::OnceLock::new();
    IDS.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_fortran::LANGUAGE.into();
        FIELD_NAMES.map(|n| lang.field_id_for_name(n))
    })
}

/// `node.child_by_field_name(name)` without the per-call name lookup.
pub fn field<'t>(node: Node<'t>, name: &str) -> Option<Node<'t>> {
    match FIELD_NAMES.iter().position(|f| *f == name) {
        Some(i) => field_ids()[i].and_then(|id| node.child_by_field_id(id.get())),
        None => node.child_by_field_name(name),
    }
}

/// `node.kind()` without its per-call C-string conversion: kind names are
/// looked up once per grammar symbol.
pub fn kind_of<'t>(node: impl AsNode<'t>) -> &'static str {
    let node = node.as_node();
    static KINDS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let kinds = KINDS.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_fortran::LANGUAGE.into();
        (0..lang.node_kind_count() as u16)
            .map(|id| lang.node_kind_for_id(id).unwrap_or("").to_string())
            .collect()
    });
    let id = node.kind_id() as usize;
    match kinds.get(id) {
        Some(k) if !k.is_empty() => k.as_str(),
        _ if node.is_error() => "ERROR",
        _ => "",
    }
}

/// A node, or a reference to one (so `kind_of` works inside iterator closures).
pub trait AsNode<'t> {
    /// The node itself.
    fn as_node(&self) -> Node<'t>;
}

impl<'t> AsNode<'t> for Node<'t> {
    fn as_node(&self) -> Node<'t> {
        *self
    }
}

impl<'t> AsNode<'t> for &Node<'t> {
    fn as_node(&self) -> Node<'t> {
        **self
    }
}

impl<'t> AsNode<'t> for &&Node<'t> {
    fn as_node(&self) -> Node<'t> {
        ***self
    }
}
