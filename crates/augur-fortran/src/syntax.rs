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
    let found = node.named_children(&mut cursor).find(|c| c.kind() == kind);
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
