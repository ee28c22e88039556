//! Every program of the corpus (corpus/corpus.toml) analyzes with 100% coverage and
//! no error diagnostics. The files of a program are analyzed together, in manifest
//! order; C files are skipped.

mod common;
use augur_fortran::{analyze, FrontEndOptions};
use augur_ir::Severity;
use common::corpus_dir;

/// (name, files, preprocessed) of every `[[program]]` table, by simple line-based
/// parsing.
fn manifest() -> Vec<(String, Vec<String>, bool)> {
    let text = std::fs::read_to_string(corpus_dir().join("corpus.toml")).expect("corpus.toml");
    let mut out: Vec<(String, Vec<String>, bool)> = vec![];
    for line in text.lines().map(str::trim) {
        if line == "[[program]]" {
            out.push((String::new(), vec![], false));
        } else if line == "cpp = true" {
            if let Some(p) = out.last_mut() {
                p.2 = true;
            }
        } else if let Some(v) = line.strip_prefix("name =") {
            if let Some(p) = out.last_mut() {
                p.0 = v.trim().trim_matches('"').to_string();
            }
        } else if let Some(v) = line.strip_prefix("files =") {
            if let Some(p) = out.last_mut() {
                p.1 = v
                    .trim()
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .split(',')
                    .map(|f| f.trim().trim_matches('"').to_string())
                    .filter(|f| !f.is_empty())
                    .collect();
            }
        }
    }
    out
}

/// The front end's options for a program of the manifest.
fn options(cpp: bool) -> FrontEndOptions {
    let mut o = FrontEndOptions::default();
    o.load.cpp = cpp;
    o
}

#[test]
fn corpus_programs_analyze_cleanly() {
    let programs = manifest();
    assert!(programs.len() >= 37, "only {} programs", programs.len());
    let mut failures = vec![];
    for (name, files, cpp) in &programs {
        let paths: Vec<_> = files
            .iter()
            .filter(|f| !f.ends_with(".c"))
            .map(|f| corpus_dir().join(f))
            .collect();
        assert!(!paths.is_empty(), "{name}: no Fortran files");
        let prog = analyze(&paths, &options(*cpp));
        let errors: Vec<String> = prog
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| d.render(&prog.files))
            .collect();
        let c = &prog.coverage;
        if !errors.is_empty() || c.lowered != c.statements || prog.units.is_empty() {
            failures.push(format!(
                "{name}: coverage {}/{} ({:.1}%), {} unit(s)\n{}",
                c.lowered,
                c.statements,
                c.percent(),
                prog.units.len(),
                errors.join("")
            ));
        }
        // Every block of every unit lies in a file of the program.
        for u in &prog.units {
            for b in &u.blocks {
                assert!((b.span.start.file.0 as usize) < prog.files.files.len());
                assert!(b.span.start.line <= b.span.end_line, "{name}: {}", u.name);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn corpus_has_no_warnings_either() {
    // Warnings mean approximate counts; the corpus is written to avoid them.
    let mut found = vec![];
    for (name, files, cpp) in manifest() {
        let paths: Vec<_> = files
            .iter()
            .filter(|f| !f.ends_with(".c"))
            .map(|f| corpus_dir().join(f))
            .collect();
        let prog = analyze(&paths, &options(cpp));
        for d in prog
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Warning)
        {
            found.push(format!("{name}: {}", d.render(&prog.files)));
        }
    }
    assert!(found.is_empty(), "{}", found.join(""));
}
