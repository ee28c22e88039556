//! Sources analyzed from memory ([`analyze_bytes`]) give exactly what the same bytes give
//! from a file ([`analyze`]): the fuzz targets rely on it.

use augur_fortran::{analyze, analyze_bytes, FrontEndOptions};
use std::path::{Path, PathBuf};

/// Asserts that `bytes` analyzed from memory under `path` equal `path` analyzed from disk
/// (the file at `path` holds `bytes`).
fn assert_same(path: &Path, bytes: &[u8]) {
    let opts = FrontEndOptions::default();
    let from_disk = analyze(&[path.to_path_buf()], &opts);
    let from_memory = analyze_bytes(path, bytes, &opts);
    assert_eq!(
        format!("{from_disk:?}"),
        format!("{from_memory:?}"),
        "{}",
        path.display()
    );
}

#[test]
fn corpus_programs_analyze_the_same_from_memory() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("the corpus directory")
        .map(|e| e.expect("an entry").path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("f" | "f90")))
        .collect();
    paths.sort();
    // incl77.f INCLUDEs incl77.inc from its own directory.
    assert!(paths.iter().any(|p| p.ends_with("incl77.f")));
    for p in &paths {
        assert_same(p, &std::fs::read(p).expect("a corpus file"));
    }
}

#[test]
fn bad_sources_analyze_the_same_from_memory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sources: [(&str, &[u8]); 5] = [
        // The unit waits for a module no source defines, then is lowered with warnings.
        (
            "unknown_module.f90",
            b"program p\n  use nowhere\n  x = 1.0\nend program p\n",
        ),
        (
            "latin1.f90",
            b"program p\n  x = 1.0 ! caf\xe9\nend program p\n",
        ),
        ("garbage.f", b"      x = (( 3\n     &  +\n  10  ::::\n"),
        ("self.f90", b"include 'self.f90'\nend\n"),
        ("empty.f90", b""),
    ];
    for (name, bytes) in sources {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write source");
        assert_same(&path, bytes);
    }
}

#[test]
fn a_source_in_memory_needs_no_file() {
    let path = Path::new("/nonexistent/augur/t.f90");
    let src = b"program p\n  real :: x\n  x = 2.0 * x\nend program p\n";
    let prog = analyze_bytes(path, src, &FrontEndOptions::default());
    assert!(prog.diagnostics.is_empty(), "{:?}", prog.diagnostics);
    assert_eq!(prog.files.files[0].path, path);
    assert_eq!(prog.units.len(), 1);
}
