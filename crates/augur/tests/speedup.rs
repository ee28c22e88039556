//! What optimization does to a program, end to end: a program with a hoistable invariant
//! analyzed with gfortran -O2, predicted on machines whose detection tables differ in
//! code motion (`augur predict -m A -m B --by loop` must name it for that loop, and only
//! when the ratings differ), and `augur compare compilers` over two programs with
//! kept measured times beside the predicted speedups.

mod common;

use common::{augur, repo, stdout, PROGRAM as INVARIANT};
use std::path::{Path, PathBuf};
use std::process::Command;

const PLAIN: &str = "\
program plain
  implicit none
  integer, parameter :: n = 2000
  real(8) :: a(n), c
  integer :: i, k
  call random_number(a)
  c = 0.0d0
  do k = 1, 50
    do i = 1, n
      c = c + a(i) * a(i)
    end do
  end do
  print *, c
end program plain
";

/// The -O2 library profile with code motion (local) rated `code_motion`, in `dir`.
fn machine(dir: &Path, code_motion: &str) -> PathBuf {
    let text = std::fs::read_to_string(repo().join("machines/gfortran12-O2-epyc-2core.toml"))
        .expect("the -O2 machine profile");
    let from = "optimization = \"code_motion\"\nscope = \"local\"\nrating = \"yes\"";
    assert!(
        text.contains(from),
        "the -O2 library profile rates local code motion yes"
    );
    let to =
        format!("optimization = \"code_motion\"\nscope = \"local\"\nrating = \"{code_motion}\"");
    let path = dir.join(format!("cm-{code_motion}.toml"));
    std::fs::write(&path, text.replacen(from, &to, 1)).unwrap();
    path
}

/// The -O0 library profile without its detection table.
fn machine_without_table(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(repo().join("machines/gfortran12-O0-epyc-2core.toml"))
        .expect("the -O0 machine profile");
    let cut = text.find("\n[optimizations]\n").unwrap_or(text.len());
    let path = dir.join("o0-plain.toml");
    std::fs::write(&path, &text[..cut]).unwrap();
    path
}

fn analyzed(dir: &Path, name: &str, source: &str) -> PathBuf {
    assert!(
        Command::new("gfortran").arg("--version").output().is_ok(),
        "gfortran not found: this test needs it (run scripts/setup.sh)"
    );
    std::fs::write(dir.join(format!("{name}.f90")), source).unwrap();
    let out = format!("{name}.json");
    stdout(
        &augur()
            .current_dir(dir)
            .args(["analyze", &format!("{name}.f90"), "-o", &out])
            .output()
            .unwrap(),
    );
    dir.join(out)
}

fn run(args: &[&Path], extra: &[&str]) -> String {
    let mut c = augur();
    for a in args {
        c.arg(a);
    }
    stdout(&c.args(extra).output().unwrap())
}

/// The text of one loop's section of the explanation.
fn loop_section<'a>(text: &'a str, name: &str) -> &'a str {
    let at = text
        .rfind(&format!("\n{name}  "))
        .unwrap_or_else(|| panic!("no section for {name}: {text}"));
    let rest = &text[at + 1..];
    let end = rest[1..].find("\n\n").map_or(rest.len(), |e| e + 1);
    &rest[..end]
}

#[test]
fn the_explanation_names_code_motion_where_the_tables_differ() {
    let dir = tempfile::tempdir().unwrap();
    let prof = analyzed(dir.path(), "risky", INVARIANT);
    let (no, yes) = (machine(dir.path(), "no"), machine(dir.path(), "yes"));
    let m = |p: &Path| p.to_string_lossy().to_string();
    let text = run(
        &[Path::new("predict"), &prof],
        &["-m", &m(&no), "-m", &m(&yes), "--by", "loop"],
    );
    let section = loop_section(&text, "risky loop 2 (line 10)");
    let named = section
        .lines()
        .find(|l| l.contains("code motion of invariants (local) [no / yes]"))
        .unwrap_or_else(|| panic!("code motion not named: {section}"));
    assert!(
        named.contains("loop-invariant `(s / t)` (line 11)"),
        "{named}"
    );
    assert!(named.contains("of the loop's operations"), "{named}");
    // Code motion is not modeled: it is under "not in the prediction".
    let not_modeled = section.find("not in the prediction").expect(section);
    assert!(section.find(named).unwrap() > not_modeled, "{section}");
    assert!(text.contains("detection tables that differ"), "{text}");
    // One build on two machines: each row says which machine, not the build twice.
    assert!(
        text.contains("built with gfortran -O2 on each machine"),
        "{text}"
    );
    assert!(
        section
            .lines()
            .any(|l| l.trim_start().starts_with("cm-no "))
            && section
                .lines()
                .any(|l| l.trim_start().starts_with("cm-yes ")),
        "{section}"
    );

    // Both tables rate it yes: it explains no difference and is not named.
    let text = run(
        &[Path::new("predict"), &prof],
        &["-m", &m(&yes), "-m", &m(&yes), "--by", "loop"],
    );
    assert!(
        !text.contains("code motion of invariants (local) ["),
        "{text}"
    );
}

#[test]
fn json_carries_the_reasons_and_a_machine_without_a_table_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let prof = analyzed(dir.path(), "risky", INVARIANT);
    let (plain, yes) = (
        machine_without_table(dir.path()),
        machine(dir.path(), "yes"),
    );
    let m = |p: &Path| p.to_string_lossy().to_string();
    let json = run(
        &[Path::new("predict"), &prof],
        &["-m", &m(&plain), "-m", &m(&yes), "--by", "loop", "--json"],
    );
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let e = &doc["speedup"];
    assert_eq!(e["settings"][0]["detection_table"], false);
    assert_eq!(e["settings"][1]["detection_table"], true);
    // The -O2 report is the second setting's.
    assert_eq!(e["settings"][1]["report"], true);
    let notes = e["notes"].to_string();
    assert!(
        notes.contains("no optimization detection table in o0-plain"),
        "{notes}"
    );
    let l = e["loops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["first_line"] == 10)
        .expect("the loop at line 10");
    let speedup = l["speedups"][1].as_f64().unwrap();
    let (t0, t1) = (
        l["seconds"][0].as_f64().unwrap(),
        l["seconds"][1].as_f64().unwrap(),
    );
    assert!((speedup - t0 / t1).abs() < 1e-9 * speedup, "{l}");
    let cm = l["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["optimization"] == "code_motion" && r["scope"] == "local")
        .unwrap_or_else(|| panic!("no code motion reason: {l}"));
    assert_eq!(cm["ratings"], serde_json::json!([null, "yes"]));
    assert_eq!(cm["modeled"], false);
    assert_eq!(cm["evidence"], "opportunity");
    // The cost-table side: AbOps with a time per setting.
    assert_eq!(l["abops"][0]["seconds"].as_array().unwrap().len(), 2);
}

#[test]
fn compare_compilers_tables_with_measured_speedups() {
    let dir = tempfile::tempdir().unwrap();
    let a = analyzed(dir.path(), "risky", INVARIANT);
    let b = analyzed(dir.path(), "plain", PLAIN);
    // Kept runs as `augur bench accuracy --save` writes them (not timed here).
    let kept = dir.path().join("kept");
    std::fs::create_dir_all(&kept).unwrap();
    for (name, build, runs) in [
        ("risky", "gfortran -O0", "[2.0, 2.2, 1.8]"),
        ("risky", "gfortran -O2", "[0.5]"),
        ("plain", "gfortran -O0", "[3.0]"),
    ] {
        let flags = build.split(' ').nth(1).unwrap();
        std::fs::write(
            kept.join(format!("{name}{flags}.timing.json")),
            format!("{{\"program\": \"{name}\", \"build\": \"{build}\", \"runs\": {runs}}}"),
        )
        .unwrap();
    }
    let machines = [
        "gfortran12-O0-epyc-2core",
        "gfortran12-O1-epyc-zen4-2core",
        "gfortran12-O2-epyc-2core",
    ]
    .map(|n| {
        repo()
            .join(format!("machines/{n}.toml"))
            .to_string_lossy()
            .to_string()
    });
    let mut args: Vec<String> = vec!["compare".into(), "compilers".into()];
    args.extend([a.clone(), b.clone()].map(|p| p.to_string_lossy().to_string()));
    for m in &machines {
        args.extend(["-m".to_string(), m.clone()]);
    }
    args.extend(["--measured".to_string(), kept.to_string_lossy().to_string()]);
    let text = stdout(&augur().args(&args).output().unwrap());
    assert!(
        text.contains("predicted speedups over gfortran -O0"),
        "{text}"
    );
    assert!(text.contains("geometric mean"), "{text}");
    assert!(text.contains("gfortran -O1 and gfortran -O2"), "{text}");
    assert!(text.contains("measured speedups"), "{text}");

    args.push("--json".into());
    let doc: serde_json::Value =
        serde_json::from_str(&stdout(&augur().args(&args).output().unwrap())).unwrap();
    // The arithmetic of table 4.6 on the predicted times.
    let t = |p: usize, s: usize| doc["predicted_seconds"][p][s].as_f64().unwrap();
    for s in 0..3 {
        let g = doc["predicted"]["geometric_means"][s].as_f64().unwrap();
        let want = ((t(0, 0) / t(0, s)) * (t(1, 0) / t(1, s))).sqrt();
        assert!((g - want).abs() < 1e-9 * want, "setting {s}: {g} vs {want}");
    }
    // Measured: risky 2.0 s (median) at -O0, 0.5 s at -O2: 4; nothing kept at -O1.
    let ms = &doc["measured"]["speedups"];
    assert_eq!(ms[0][2].as_f64(), Some(4.0));
    assert!(ms[0][1].is_null() && ms[1][2].is_null(), "{ms}");
    assert!(doc["measured"]["geometric_means"][2].is_null());
}

#[test]
fn one_setting_is_refused_with_what_to_do() {
    let out = augur()
        .args([
            "compare",
            "compilers",
            "x.json",
            "-m",
            "gfortran12-O2-epyc-2core",
        ])
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("at least two compiler settings"), "{err}");
}
