//! End-to-end tests of `augur compare programs` and `augur rank` on corpus programs
//! analyzed with the real compiler, priced on the `machines/` profiles; the clusters
//! figure opens in headless Chromium.

mod browser;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository (corpus/ and machines/).
const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn augur() -> Command {
    Command::new(env!("CARGO_BIN_EXE_augur"))
}

fn repo() -> &'static Path {
    Path::new(REPO)
}

/// Standard output and error of a finished command, as text.
fn text(o: &Output) -> (String, String) {
    let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (lossy(&o.stdout), lossy(&o.stderr))
}

const MACHINES: [&str; 3] = [
    "gfortran12-O2-epyc-2core",
    "gfortran12-O0-epyc-2core",
    "flang19-O2-epyc-2core",
];

/// Analyzes three corpus programs (integer/branchy, complex arithmetic, dense double
/// precision) into `dir`; returns the profiles.
fn analyzed(dir: &Path) -> Vec<PathBuf> {
    ["sieve77.f", "mandel.f90", "lufact77.f"]
        .iter()
        .map(|src| {
            let out_path = dir.join(format!("{}.json", src.split('.').next().unwrap()));
            let out = augur()
                .current_dir(repo().join("corpus"))
                .args(["analyze", src, "-o"])
                .arg(&out_path)
                .output()
                .unwrap();
            assert!(out.status.success(), "{src}: {}", text(&out).1);
            out_path
        })
        .collect()
}

fn machine_args(cmd: &mut Command) -> &mut Command {
    for m in MACHINES {
        cmd.arg("-m")
            .arg(repo().join("machines").join(format!("{m}.toml")));
    }
    cmd
}

#[test]
fn compare_programs_and_rank_on_the_machine_library() {
    let dir = tempfile::tempdir().unwrap();
    let profiles = analyzed(dir.path());
    let svg = dir.path().join("clusters.svg");

    let out = machine_args(augur().arg("compare").arg("programs").args(&profiles))
        .arg("--clusters")
        .arg(&svg)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    for want in [
        "Distribution of statements (table 3.2",
        "Distribution of operations (table 3.3)",
        "Distribution of operands (table 3.4",
        "Distribution of basic blocks (table 3.6)",
        "skewness (table 3.9)",
        "average of the programs (figure 3.10)",
        "Reduced parameters (table 3.10",
        "Distance between programs (table 3.11",
        "Clusters (figure 3.11",
        "Similarity by execution time (table 3.15",
        "Spearman's rank correlation with the distance",
    ] {
        assert!(stdout.contains(want), "{want} missing:\n{stdout}");
    }
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(drawn.starts_with("<svg") && drawn.contains("sieve77") && drawn.ends_with("</svg>\n"));
    browser::assert_renders(&svg, dir.path());

    let out = machine_args(augur().arg("compare").arg("programs").args(&profiles))
        .arg("--json")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out).1);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let programs = v["programs"].as_array().unwrap();
    assert_eq!(programs.len(), 3);
    for p in programs {
        let s = &p["statements"];
        let sum: f64 = ["assignments", "calls", "ifs", "branches", "do_iterations"]
            .iter()
            .map(|k| s[k].as_f64().unwrap())
            .sum();
        assert!((sum - 1.0).abs() < 1e-9, "{s}");
        let reduced: f64 = p["reduced"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[1].as_f64().unwrap())
            .sum::<f64>()
            + p["unreduced"].as_f64().unwrap();
        assert!((reduced - 1.0).abs() < 1e-9);
        let skew = p["abops"]["skewness"].as_f64().unwrap();
        assert!(skew > 0.0 && skew <= 1.0);
    }
    assert_eq!(v["pairs"].as_array().unwrap().len(), 3);
    let times = &v["times"];
    assert_eq!(times["machines"].as_array().unwrap().len(), 3);
    assert_eq!(times["pairs"].as_array().unwrap().len(), 3);
    assert!(times["machine_spearman"][0][0].as_f64().unwrap() == 1.0);

    // Table 3.14: the reference machine scores 1 on every program; machines fastest first.
    let out = machine_args(augur().arg("rank").args(&profiles))
        .args(["--weights", "1,2,1", "--json", "--reference"])
        .arg(repo().join("machines/gfortran12-O0-epyc-2core.toml"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out).1);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["reference"], 1, "the reference given is the second -m");
    let scores = r["scores"].as_array().unwrap();
    assert_eq!(scores.len(), 3);
    let means: Vec<f64> = scores
        .iter()
        .map(|s| s["geometric_mean"].as_f64().unwrap())
        .collect();
    assert!(means.windows(2).all(|w| w[0] >= w[1]), "{means:?}");
    let reference = scores.iter().find(|s| s["machine"] == 1).unwrap();
    assert!((reference["geometric_mean"].as_f64().unwrap() - 1.0).abs() < 1e-12);
    // -O2 beats -O0 on this workload.
    assert!(scores[2]["machine"] == 1, "-O0 last: {scores:?}");

    let out = machine_args(augur().arg("rank").args(&profiles))
        .output()
        .unwrap();
    let (stdout, _) = text(&out);
    assert!(stdout.contains("Normalized predicted results (table 3.14)"));
    assert!(stdout.contains("geometric mean") && stdout.contains("Machines ranked"));

    // Bad input: a clear message naming the file or the option.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"kind\": \"something\"}").unwrap();
    let out = augur()
        .args(["compare", "programs"])
        .arg(&profiles[0])
        .arg(&bad)
        .output()
        .unwrap();
    let (_, stderr) = text(&out);
    assert!(
        !out.status.success()
            && stderr.contains("bad.json")
            && stderr.contains("not a program profile"),
        "{stderr}"
    );
    let out = machine_args(augur().arg("rank").args(&profiles))
        .args(["--weights", "1,2"])
        .output()
        .unwrap();
    let (_, stderr) = text(&out);
    assert!(
        !out.status.success() && stderr.contains("--weights"),
        "{stderr}"
    );
}

/// A program whose operands are counted by hand: scalar references (both sides of an
/// assignment, outside subscripts; literals and named constants are none) and array
/// references (`ARR1`, `ARR2`), each times the executions of its block.
const OPERANDS: &str = "program operands
  implicit none
  integer, parameter :: n = 100
  integer :: i
  double precision :: a(n), b(n, n), s, t
  common /glob/ t
  t = 2.0d0
  s = 0.0d0
  do i = 1, n
    a(i) = t * i
    b(i, 1) = a(i)
  end do
  do i = 1, n
    s = s + a(i) * b(i, 1)
  end do
  print *, s
end program operands
";

/// Table 3.4 end to end: the scalar and array operands of a program analyzed with the
/// real compiler, and a profile made before scalar counts (the field removed) shown
/// as not available.
#[test]
fn table_3_4_counts_scalar_and_array_operands() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("operands.f90");
    std::fs::write(&src, OPERANDS).unwrap();
    let new = dir.path().join("operands.json");
    let out = augur()
        .arg("analyze")
        .arg(&src)
        .arg("-o")
        .arg(&new)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out).1);
    // The same profile as an older augur wrote it: no scalar operand counts.
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&new).unwrap()).unwrap();
    for u in v["units"].as_array_mut().unwrap() {
        for b in u["blocks"].as_array_mut().unwrap() {
            b.as_object_mut().unwrap().remove("scalar_operands");
        }
    }
    let old = dir.path().join("before.json");
    std::fs::write(&old, serde_json::to_string(&v).unwrap()).unwrap();

    let out = augur()
        .args(["compare", "programs", "--json"])
        .args([&new, &old])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out).1);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let operands = |i: usize| v["programs"][i]["operands"].clone();
    // Local: s = 0 (1), i in `a(i) = t * i` (100), `s = s + ...` (200), the print (1);
    // global: t = 2 (1) and t in the first loop (100). Arrays: 300 1-D, 200 2-D.
    let o = operands(0);
    assert_eq!(o["scalar_references"].as_f64(), Some(403.0), "{o}");
    assert_eq!(o["array_references"].as_f64(), Some(500.0), "{o}");
    let global = o["global_scalar_share"].as_f64().unwrap();
    assert!((global - 101.0 / 403.0).abs() < 1e-12, "{o}");
    let o = operands(1);
    assert!(o["scalar_references"].is_null(), "{o}");
    assert_eq!(o["array_references"].as_f64(), Some(500.0), "{o}");

    let out = augur()
        .args(["compare", "programs"])
        .args([&new, &old])
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    let row = |label: &str| {
        stdout
            .lines()
            .find(|l| l.trim_start().starts_with(label))
            .unwrap_or_else(|| panic!("no row {label}:\n{stdout}"))
            .split_whitespace()
            .skip(label.split_whitespace().count())
            .collect::<Vec<_>>()
            .join(" ")
    };
    // 403, 300 and 200 of 903 operands; the older profile's array rows are the split
    // of its array references (60 and 40 %), left out of the average.
    assert_eq!(row("Scalar"), "44.6 % n/a 44.6 %");
    assert_eq!(row("Array 1-D"), "33.2 % 60.0*% 33.2 %");
    assert_eq!(row("Array 2-D"), "22.1 % 40.0*% 22.1 %");
    assert!(
        stdout.contains("not available for profiles made before 2026-11-27 (before;"),
        "{stdout}"
    );
}
