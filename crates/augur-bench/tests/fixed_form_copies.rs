//! The fixed-form guarantee: wherever the original program compiles, augur's
//! instrumented copy compiles too. Checked over every corpus program with a
//! fixed-form file, and over those of the development set (`bench/real`) whose sources
//! are present (`$AUGUR_REAL_SOURCES`, else `~/.cache/augur/real`); the absent ones are
//! named on the test's output, never skipped silently.
//!
//! Builds at -O0 (the guarantee is about what compiles, and -O0 compiles fastest).
//! Needs gfortran and gcc; without them it fails saying so.

use augur_bench::corpus::{self, CorpusProgram};
use augur_bench::suite::{self, PartChoice};
use augur_fortran::SourceForm;
use augur_toolchain::{BuildInput, Toolchain};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether any Fortran file of `p` is read in fixed form.
fn has_fixed_form(p: &CorpusProgram) -> bool {
    match p.form.as_str() {
        "fixed" => true,
        "free" => false,
        _ => p
            .sources(&p.root)
            .0
            .iter()
            .any(|f| SourceForm::from_path(f) == SourceForm::Fixed),
    }
}

/// Why the instrumented copy of `p` failed to build where the original built, or
/// `None` (also when the original does not build with these flags: nothing to check).
fn copy_failure(p: &CorpusProgram, tc: &Toolchain) -> Option<String> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (fortran, c_sources) = p.sources(&p.root);
    let mut with_flags = tc.clone();
    with_flags.fflags.extend(p.fflags.iter().cloned());
    let input = BuildInput {
        fortran: fortran.clone(),
        extra_fflags: p.preprocessing_flags(&p.root),
        c_sources,
        objects: vec![],
        link_args: vec![],
    };
    if augur_toolchain::build(&with_flags, &input, &dir.path().join("plain"), "plain").is_err() {
        eprintln!(
            "{}: the original does not build at -O0 here; not checked",
            p.name
        );
        return None;
    }
    let (fortran, opts) = p.analyze_options(&p.root, tc).ok()?;
    augur_program::build_instrumented(&fortran, &opts, &dir.path().join("counted"))
        .err()
        .map(|e| format!("{}: {e}", p.name))
}

#[test]
fn instrumented_copies_of_fixed_form_programs_compile() {
    let tc = Toolchain::detect("gfortran", "-O0")
        .unwrap_or_else(|e| panic!("this test needs gfortran and gcc: {e}"));
    let (_, corpus_programs) =
        corpus::load(&workspace().join("corpus/corpus.toml"), &[]).expect("the corpus manifest");
    let sources = std::env::var_os("AUGUR_REAL_SOURCES")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/augur/real")))
        .unwrap_or_default();
    let real = suite::load(
        &workspace().join("bench/real"),
        &sources,
        PartChoice::All,
        &[],
    )
    .expect("the development set's manifests");
    for m in &real.missing {
        eprintln!(
            "{}: sources absent from {} (fetch {} at {}); not checked",
            m.name,
            sources.display(),
            m.source,
            m.commit
        );
    }
    let fixed: Vec<&CorpusProgram> = corpus_programs
        .iter()
        .chain(&real.programs)
        .filter(|p| has_fixed_form(p))
        .collect();
    assert!(fixed.len() >= 10, "the corpus holds fixed-form programs");
    let failures: Vec<String> = fixed.iter().filter_map(|p| copy_failure(p, &tc)).collect();
    eprintln!(
        "{} programs with fixed-form files checked ({} of the development set absent)",
        fixed.len(),
        real.missing.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
