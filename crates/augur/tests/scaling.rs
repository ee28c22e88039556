//! End-to-end tests of predictions at sizes never run, with the real compiler:
//! `augur analyze --scale`, `augur predict --at` (one size, a sweep and its figure),
//! `augur validate --scale --at`, `augur predict --at NAME=FROM..TO --report` (the page
//! with the sweep's section), and the errors a user can make with them.

mod page;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn augur() -> Command {
    Command::new(env!("CARGO_BIN_EXE_augur"))
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

const PROGRAM: &str = "\
program sweep
  implicit none
  integer, parameter :: n = N
  real(8) :: a(n, n), s
  integer :: i, j, k
  a = 1.0d0
  s = 0.0d0
  do k = 1, 4
    do j = 1, n
      do i = j, n
        s = s + a(i, j) * k
      end do
    end do
  end do
  print *, s
end program sweep
";

fn write_program(dir: &Path) -> PathBuf {
    let src = dir.join("sweep.F90");
    std::fs::write(&src, PROGRAM).unwrap();
    src
}

fn ok(o: &Output) -> (String, String) {
    let (out, err) = text(o);
    assert!(o.status.success(), "{out}\n{err}");
    (out, err)
}

#[test]
fn scalable_profile_predicts_other_sizes_and_draws_them() {
    let dir = tempfile::tempdir().unwrap();
    let src = write_program(dir.path());
    let prof = dir.path().join("sweep.json");
    let o = augur()
        .current_dir(dir.path())
        .args([
            "analyze",
            "--scale",
            "n=16,24,32",
            "-D",
            "N={n}",
            "--no-branch-run",
            "-o",
        ])
        .arg(&prof)
        .arg(&src)
        .output()
        .unwrap();
    let (out, _) = ok(&o);
    assert!(
        out.contains("scaling with n (counting runs at 16, 24, 32)"),
        "{out}"
    );
    assert!(out.contains("exact: 2*n^2 + 2*n per entry"), "{out}");

    let machine = "gfortran12-O2-epyc-2core";
    let o = augur()
        .args(["predict", "--at", "n=400", "-m", machine])
        .arg(&prof)
        .output()
        .unwrap();
    let (out, err) = ok(&o);
    assert!(err.contains("at n=400: exact"), "{err}");
    assert!(out.contains("predicted time"), "{out}");
    // 4 * sum_{j<=n} (n - j + 1) iterations at n = 400, each with its loads and adds.
    let json = augur()
        .args(["predict", "--json", "--at", "n=400", "-m", machine])
        .arg(&prof)
        .output()
        .unwrap();
    let (json, _) = ok(&json);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let ops = doc["programs"][0]["predictions"][0]["operations"]
        .as_f64()
        .unwrap();
    assert!(ops > 4.0 * 80_200.0 * 3.0, "{ops}");

    let svg = dir.path().join("sweep.svg");
    let o = augur()
        .args([
            "predict",
            "--at",
            "n=32..1024",
            "-m",
            machine,
            "--measured",
            "400=0.002",
            "--plot",
        ])
        .arg(&svg)
        .arg(&prof)
        .output()
        .unwrap();
    let (out, _) = ok(&o);
    assert!(
        out.contains("1024") && out.contains("figure written"),
        "{out}"
    );
    // The models behind the counts are said once, below the table; its rows stay short.
    assert_eq!(out.matches("symbolic sum").count(), 1, "{out}");
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    assert!(rows.len() >= 10, "{out}");
    assert!(
        rows.iter()
            .all(|r| r.chars().count() < 70 && !r.contains("operations")),
        "{out}"
    );
    let figure = std::fs::read_to_string(&svg).unwrap();
    assert!(figure.starts_with("<svg") && figure.contains("analyzed (counting runs)"));
    assert!(
        figure.contains("\nmeasured\n"),
        "the measured point is marked"
    );

    // What a user can get wrong, each with a clear message.
    let o = augur()
        .args(["predict", "--at", "m=400", "-m", machine])
        .arg(&prof)
        .output()
        .unwrap();
    let (_, err) = text(&o);
    assert!(
        !o.status.success() && err.contains("scales with `n`"),
        "{err}"
    );
    let o = augur()
        .args(["predict", "-m", machine, "--plot", "x.svg"])
        .arg(&prof)
        .output()
        .unwrap();
    let (_, err) = text(&o);
    assert!(
        !o.status.success() && err.contains("--at NAME=FROM..TO"),
        "{err}"
    );
    let o = augur()
        .current_dir(dir.path())
        .args(["analyze", "--scale", "n=16,24", "-D", "N={n}"])
        .arg(&src)
        .output()
        .unwrap();
    let (_, err) = text(&o);
    assert!(
        !o.status.success() && err.contains("at least three"),
        "{err}"
    );
    std::fs::write(&src, PROGRAM.replace("a = 1.0d0", "a = 2.0d0")).unwrap();
    let o = augur()
        .args(["predict", "--at", "n=400", "-m", machine])
        .arg(&prof)
        .output()
        .unwrap();
    let (_, err) = text(&o);
    assert!(
        !o.status.success() && err.contains("changed since the analysis"),
        "{err}"
    );
}

#[test]
fn validate_counts_small_and_times_the_large_size() {
    let dir = tempfile::tempdir().unwrap();
    let src = write_program(dir.path());
    let o = augur()
        .current_dir(dir.path())
        .args([
            "validate",
            "-m",
            "gfortran12-O2-epyc-2core",
            "--runs",
            "1",
            "--scale",
            "n=16,24,32",
            "--at",
            "n=600",
            "-D",
            "N={n}",
            "--json",
        ])
        .arg(&src)
        .output()
        .unwrap();
    let (out, _) = ok(&o);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(doc["measured"]["median"].as_f64().unwrap() > 0.0);
    assert!(doc["error"].as_f64().unwrap().is_finite());
    assert!(doc["prediction"]["operations"].as_f64().unwrap() > 4.0 * 180_300.0);
}

#[test]
fn a_size_sweep_report_holds_the_sweep_table_and_its_figure() {
    // jacobi77 of the corpus counted at three small grids, swept far beyond them: the
    // page is the sequential prediction at the size the profile describes (the largest
    // counting run) with the sweep's section, its table as printed and the figure
    // --plot draws inline.
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/jacobi77.f");
    let prof = dir.path().join("jacobi77.json");
    ok(&augur()
        .current_dir(dir.path())
        .args([
            "analyze",
            "--cpp",
            "--scale",
            "n=16,24,32",
            "-D",
            "NSIZE={n}",
        ])
        .args(["--no-branch-run", "-o"])
        .arg(&prof)
        .arg(&src)
        .output()
        .unwrap());
    let (page, svg) = (dir.path().join("sweep.html"), dir.path().join("sweep.svg"));
    let (out, err) = ok(&augur()
        .args([
            "predict",
            "--at",
            "n=32..512",
            "-m",
            "gfortran12-O2-epyc-2core",
        ])
        .arg("--plot")
        .arg(&svg)
        .arg("--report")
        .arg(&page)
        .arg(&prof)
        .output()
        .unwrap());
    assert!(err.contains("report written to"), "{err}");
    let (table, plotted): (Vec<&str>, Vec<&str>) = out
        .lines()
        .partition(|l| !l.starts_with("figure written to"));
    assert_eq!(plotted.len(), 1, "{out}");
    let rows = table
        .iter()
        .filter(|l| l.trim_start().starts_with(char::is_numeric));
    assert!(rows.count() >= 10, "{out}");
    let section = page::assert_section(&page, "sweep", &table.join("\n"), 1);
    assert!(
        section.contains("Size sweep: n from 32 to 512"),
        "{section}"
    );
    assert!(
        section.contains("are at n = 32 (the largest counting run"),
        "{section}"
    );
    // The figure is the one --plot wrote.
    let figure = std::fs::read_to_string(&svg).unwrap();
    assert!(section.contains(figure.trim_end()), "{section}");
    assert!(section.contains("analyzed (counting runs)"), "{section}");
}
