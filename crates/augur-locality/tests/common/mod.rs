//! Shared by the integration tests: extraction from a small Fortran program.

use augur_locality::extract::{extract_unit, ExtractOptions, Extraction};

/// Analyzes `src` (free form, one program unit named `t`) with augur's front end and
/// extracts its nests; fails the test on a front-end error.
pub fn extract(src: &str, opts: &ExtractOptions) -> Extraction {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.f90");
    std::fs::write(&path, src).unwrap();
    let program = augur_fortran::analyze(&[path], &Default::default());
    assert!(
        program
            .diagnostics
            .iter()
            .all(|d| d.severity != augur_ir::Severity::Error),
        "{:?}",
        program.diagnostics
    );
    let unit = program
        .units
        .iter()
        .find(|u| u.name == "t")
        .expect("program t");
    extract_unit(unit, opts)
}
