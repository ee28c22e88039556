//! The SVG figures of `augur compare machines` open in a browser: headless Chromium
//! screenshots each at the figure's own size, and the screenshot must have that size and
//! hold a drawing (a PNG several times larger than the screenshot of an empty page of the
//! same size, which compresses to almost nothing). Needs Chromium: scripts/setup.sh
//! installs it.

mod browser;

use std::path::PathBuf;
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

fn os<'a>(args: &[&'a str]) -> Vec<&'a std::ffi::OsStr> {
    args.iter().map(|s| std::ffi::OsStr::new(*s)).collect()
}

#[test]
fn compare_machines_figures_render_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let (kiviat, graph, per_machine) = (
        dir.path().join("kiviat.svg"),
        dir.path().join("clusters.svg"),
        dir.path().join("each"),
    );
    let machines = [
        "compare",
        "machines",
        "cray-y-mp-832",
        "vax-11-780",
        "sun-3-50",
        "gfortran12-O2-epyc-2core",
        "flang19-O2-epyc-2core",
        "--reference",
        "vax-11-780",
    ];
    for target in [&kiviat, &per_machine] {
        let mut args = os(&machines);
        args.extend([
            "--clusters".as_ref(),
            graph.as_os_str(),
            "--kiviat".as_ref(),
            target.as_os_str(),
        ]);
        augur(&args, true);
    }
    let mut pages: Vec<PathBuf> = vec![kiviat, graph, per_machine.join("cray-y-mp-832.svg")];
    pages.push(per_machine.join("grid.svg"));
    for page in pages {
        browser::assert_renders(&page, dir.path());
    }
}

#[test]
fn historical_machines_are_listed_apart_and_compared_as_json() {
    let out = augur(&os(&["machines"]), true);
    let text = String::from_utf8_lossy(&out.stdout);
    let (measured, historical) = text.split_once("historical").expect("a historical section");
    assert!(measured.contains("gfortran12-O2-epyc-2core"), "{text}");
    // The first-level cache tells the Zen 4 and Zen 5 profiles apart.
    assert!(measured.contains("L1d 48K L2 1024K"), "{text}");
    assert!(
        historical.contains("cray-y-mp-832") && !historical.contains("epyc"),
        "{text}"
    );
    let json = [
        "compare",
        "machines",
        "cray-y-mp-832",
        "cray-x-mp-432",
        "--json",
    ];
    let out = augur(&os(&json), true);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = doc["comparison"]["distances"][0][1]["value"]
        .as_f64()
        .unwrap();
    assert!((d - 0.454).abs() < 0.002, "Table 2.6 gives 0.454, got {d}");
    let bad = [
        "compare",
        "machines",
        "cray-y-mp-832",
        "cray-2",
        "--reference",
        "vax-8600",
    ];
    let out = augur(&os(&bad), false);
    assert!(String::from_utf8_lossy(&out.stderr).contains("not one of the machines compared"));
}

#[test]
fn a_prediction_on_a_historical_machine_asks_for_no_measurement() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("tiny.f90");
    std::fs::write(
        &src,
        "program tiny\n  integer :: i\n  real(8) :: s\n  s = 0\n  do i = 1, 1000\n    s = s + sqrt(real(i, 8))\n  end do\n  print *, s\nend program tiny\n",
    )
    .unwrap();
    let profile = dir.path().join("tiny.json");
    let mut args = os(&["analyze"]);
    args.extend([src.as_os_str(), "-o".as_ref(), profile.as_os_str()]);
    augur(&args, true);
    let mut args = os(&["predict"]);
    args.extend([profile.as_os_str(), "-m".as_ref(), "cray-y-mp-832".as_ref()]);
    let out = augur(&args, true);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(stdout.contains("predicted time"), "{stdout}");
    assert!(
        !stderr.contains("augur characterize") && !stdout.contains("augur characterize"),
        "advice to measure a 1990 machine: {stderr}{stdout}"
    );
    assert!(stderr.contains("a historical machine"), "{stderr}");
}
