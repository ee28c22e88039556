//! Risk flags end to end: a program with a hoistable invariant and a nest walking rows,
//! analyzed with gfortran -O2 and predicted on the -O2 machine with its detection table
//! (`[optimizations]` of the Zen 4 measurements, in the library profile); `augur predict
//! --by loop` names both loops with their reason.

mod common;

use common::{augur, repo, stdout, PROGRAM};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The -O2 library profile without its `[optimizations]` section (the Zen 4 detection
/// table, copied into it from the measurements), and that section.
fn split_library_o2() -> (String, String) {
    let text = std::fs::read_to_string(repo().join("machines/gfortran12-O2-epyc-2core.toml"))
        .expect("the -O2 machine profile");
    let at = text
        .find("\n[optimizations]\n")
        .expect("an [optimizations] section in the -O2 library profile");
    (text[..at].to_string(), text[at..].to_string())
}

/// The -O2 machine with the -O2 detection table; `interchange` rated as given (gfortran
/// 12 -O2 does not interchange: `no`; -O3 -march=native does: `yes`).
fn machine(dir: &Path, interchange: &str) -> PathBuf {
    let (base, section) = split_library_o2();
    let section = section.replacen(
        "optimization = \"interchange\"\nscope = \"-\"\nrating = \"no\"",
        &format!("optimization = \"interchange\"\nscope = \"-\"\nrating = \"{interchange}\""),
        1,
    );
    let path = dir.join(format!("machine-{interchange}.toml"));
    std::fs::write(&path, format!("{base}\n{section}")).unwrap();
    path
}

/// The -O2 machine without a detection table.
fn machine_without_table(dir: &Path) -> PathBuf {
    let path = dir.join("machine-plain.toml");
    std::fs::write(&path, split_library_o2().0).unwrap();
    path
}

fn analyzed(dir: &Path) -> PathBuf {
    assert!(
        Command::new("gfortran").arg("--version").output().is_ok(),
        "gfortran not found: this test needs it (run scripts/setup.sh)"
    );
    std::fs::write(dir.join("risky.f90"), PROGRAM).unwrap();
    stdout(
        &augur()
            .current_dir(dir)
            .args(["analyze", "risky.f90", "-o", "risky.json"])
            .output()
            .unwrap(),
    );
    dir.join("risky.json")
}

fn predict(prof: &Path, machine: &Path, extra: &[&str]) -> String {
    stdout(
        &augur()
            .arg("predict")
            .arg(prof)
            .arg("-m")
            .arg(machine)
            .args(extra)
            .output()
            .unwrap(),
    )
}

/// The risk-flag lines of a text report.
fn flags(text: &str) -> Vec<String> {
    text.split("risk flags")
        .nth(1)
        .unwrap_or("")
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn predict_by_loop_names_the_invariant_loop_and_the_nest() {
    let dir = tempfile::tempdir().unwrap();
    let prof = analyzed(dir.path());
    let text = predict(&prof, &machine(dir.path(), "yes"), &["--by", "loop"]);
    let f = flags(&text);
    assert_eq!(f.len(), 2, "{text}");
    assert!(f[0].contains("risky loop 2 (line 10)"), "{f:?}");
    assert!(
        f[0].contains("code_motion: loop-invariant `(s / t)` (line 11)"),
        "{f:?}"
    );
    assert!(f[0].contains("`yes`") && f[0].contains("of the loop's operations"));
    assert!(f[1].contains("risky loop 4 (line 15)"), "{f:?}");
    assert!(
        f[1].contains("interchange: walks a(i, j), b(i, j)"),
        "{f:?}"
    );
    assert!(f[1].contains("loop at line 14"), "{f:?}");
}

#[test]
fn the_table_drops_what_the_compiler_does_not_do_and_json_carries_the_flags() {
    let dir = tempfile::tempdir().unwrap();
    let prof = analyzed(dir.path());
    let text = predict(&prof, &machine(dir.path(), "no"), &["--by", "loop"]);
    let f = flags(&text);
    assert_eq!(f.len(), 1, "gfortran -O2 does not interchange: {text}");
    assert!(f[0].contains("code_motion"), "{f:?}");
    let json = predict(&prof, &machine(dir.path(), "no"), &["--json"]);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let risks = &doc["programs"][0]["predictions"][0]["risks"];
    assert_eq!(risks["flags"][0]["optimization"], "code_motion");
    assert_eq!(risks["flags"][0]["rating"], "yes");
    let share = risks["flags"][0]["share"].as_f64().unwrap();
    assert!(share > 0.05 && share < 0.6, "{share}");
    assert!(risks["note"].is_null());
}

#[test]
fn without_a_table_the_flags_are_conditional() {
    let dir = tempfile::tempdir().unwrap();
    let prof = analyzed(dir.path());
    let plain = machine_without_table(dir.path());
    let text = predict(&prof, &plain, &["--by", "loop"]);
    let f = flags(&text);
    assert!(
        f.iter()
            .any(|l| l.contains("if the compiler applies code motion")),
        "{text}"
    );
    assert!(
        f.iter()
            .any(|l| l.contains("if the compiler applies loop interchange")),
        "{text}"
    );
    assert!(
        text.contains("run `augur characterize --optimizations`"),
        "{text}"
    );
}
