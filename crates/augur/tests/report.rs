//! `augur report` writes one self-contained HTML page that opens in a browser: headless
//! Chromium renders it (a screenshot that is not blank), runs its script without an
//! uncaught error, and its self-test sorts every table by every column in both
//! directions. Needs gfortran (the program is analyzed) and Chromium: scripts/setup.sh
//! installs both.

mod browser;

use std::path::Path;
use std::process::Command;

/// Runs augur with these arguments; asserts it succeeds when `ok`.
fn augur(args: &[&std::ffi::OsStr], ok: bool) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_augur"))
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.success(), ok, "{err}");
    out
}

const PROGRAM: &str = "program heat
  implicit none
  integer, parameter :: n = 300
  double precision :: u(n, n), v(n, n)
  integer :: i, j, it
  u = 0.0d0
  u(1, :) = 1.0d0
  do it = 1, 40
    do j = 2, n - 1
      do i = 2, n - 1
        v(i, j) = 0.25d0 * (u(i-1, j) + u(i+1, j) + u(i, j-1) + u(i, j+1))
      end do
    end do
    u(2:n-1, 2:n-1) = v(2:n-1, 2:n-1)
  end do
  print *, sum(u)
end program heat
";

/// Analyzes the program in `dir`; the profile's path.
fn analyzed(dir: &Path) -> std::path::PathBuf {
    let src = dir.join("heat.f90");
    std::fs::write(&src, PROGRAM).unwrap();
    let profile = dir.join("heat.json");
    augur(
        &[
            "analyze".as_ref(),
            src.as_os_str(),
            "-o".as_ref(),
            profile.as_os_str(),
        ],
        true,
    );
    profile
}

#[test]
fn the_report_opens_sorts_and_shows_two_machines_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let profile = analyzed(dir.path());
    let page = dir.path().join("report.html");
    let (a, b) = (
        "gfortran12-O2-epyc-zen4-2core",
        "gfortran12-O2-epyc-zen5-2core",
    );
    augur(
        &[
            "report".as_ref(),
            profile.as_os_str(),
            "-m".as_ref(),
            a.as_ref(),
            "-m".as_ref(),
            b.as_ref(),
            "-o".as_ref(),
            page.as_os_str(),
        ],
        true,
    );
    let html = std::fs::read_to_string(&page).unwrap();
    // Self-contained: nothing fetched from anywhere.
    for fetch in [
        "<script src",
        "<link",
        "src=\"http",
        "href=\"http",
        "@import",
    ] {
        assert!(!html.contains(fetch), "the page fetches ({fetch})");
    }
    // Both machines in the loops table, the hot statement in the source view.
    let loops = &html[html.find("id=\"loops\"").expect("a loops section")..];
    let loops = &loops[..loops.find("</table>").unwrap()];
    assert!(
        loops.contains(&format!("time on {a}")) && loops.contains(&format!("time on {b}")),
        "{loops}"
    );
    assert!(loops.contains("heat.f90:10"), "{loops}");
    let source = &html[html.find("id=\"source\"").expect("a source section")..];
    assert!(
        source.contains("0.25d0 * (u(i-1, j)"),
        "the hot line's code"
    );
    let (dom, log) = browser::render_html(&page, dir.path(), (1200, 1600), "#selftest");
    assert!(!log.contains("Uncaught"), "a script error: {log}");
    let verdict = dom
        .split("data-selftest=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap_or_else(|| panic!("the self-test did not run: {log}"));
    let sorted: u32 = verdict
        .strip_prefix("passed ")
        .unwrap_or_else(|| panic!("the self-test says {verdict}"))
        .parse()
        .unwrap();
    assert!(sorted >= 20, "{verdict}");
}

#[test]
fn predict_writes_the_report_beside_its_text_and_refuses_a_workload() {
    let dir = tempfile::tempdir().unwrap();
    let profile = analyzed(dir.path());
    let page = dir.path().join("p.html");
    let m = "gfortran12-O2-epyc-zen4-2core";
    let out = augur(
        &[
            "predict".as_ref(),
            profile.as_os_str(),
            "-m".as_ref(),
            m.as_ref(),
            "--report".as_ref(),
            page.as_os_str(),
        ],
        true,
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("predicted time"));
    assert!(std::fs::read_to_string(&page)
        .unwrap()
        .contains("Predicted time"));
    let out = augur(
        &[
            "predict".as_ref(),
            profile.as_os_str(),
            profile.as_os_str(),
            "-m".as_ref(),
            m.as_ref(),
            "--report".as_ref(),
            page.as_os_str(),
        ],
        false,
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("exactly one"));
}

#[test]
fn validate_writes_the_report_with_the_measured_time() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("heat.f90");
    std::fs::write(&src, PROGRAM).unwrap();
    let page = dir.path().join("v.html");
    augur(
        &[
            "validate".as_ref(),
            src.as_os_str(),
            "-m".as_ref(),
            "gfortran12-O2-epyc-zen4-2core".as_ref(),
            "--runs".as_ref(),
            "1".as_ref(),
            "--report".as_ref(),
            page.as_os_str(),
        ],
        true,
    );
    let html = std::fs::read_to_string(&page).unwrap();
    let measured = html
        .split("<p class=\"measured\">")
        .nth(1)
        .expect("the measured time beside the prediction");
    assert!(
        measured.contains("median of 1 run(s)") && measured.contains("the 90% interval"),
        "{measured}"
    );
}
