//! What the tests of `augur predict ... --report` read in the page: the section a
//! prediction beside the sequential one adds (threads, ranks, processors, sizes).

use std::path::Path;

/// Text as the page escapes it.
fn escaped(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The section `id` of the page written to `page`, asserted to come after the sequential
/// prediction and to hold every line `printed` (the table the command printed) and
/// `figures` inline SVG figures (their files' XML prologue dropped); returned for more
/// checks.
pub fn assert_section(page: &Path, id: &str, printed: &str, figures: usize) -> String {
    let html = std::fs::read_to_string(page)
        .unwrap_or_else(|e| panic!("no report at {}: {e}", page.display()));
    let (before, after) = html
        .split_once(&format!("<section id=\"{id}\">"))
        .unwrap_or_else(|| panic!("no section `{id}` in the page:\n{html}"));
    assert!(
        before.contains("<section id=\"summary\">"),
        "the section `{id}` before the sequential prediction"
    );
    let section = after.split("</section>").next().unwrap_or_default();
    assert!(!printed.trim().is_empty(), "nothing printed");
    for line in printed.lines().filter(|l| !l.trim().is_empty()) {
        assert!(
            section.contains(&escaped(line)),
            "`{line}` printed, not in the section:\n{section}"
        );
    }
    assert_eq!(section.matches("<svg").count(), figures, "{section}");
    assert!(
        !html.contains("<?xml"),
        "a figure's prologue inside the page"
    );
    section.to_string()
}
