//! End-to-end test of `augur bench misses`: a small program run for real under
//! valgrind's cache simulation, its predicted L1d misses compared with it.
//! Needs gfortran and valgrind (scripts/setup.sh installs both); without them the
//! test fails and says what to install.

use std::path::Path;
use std::process::{Command, Output};

/// A strided sum over an array of 32 L1 caches (1 MiB): every 64-byte line holds 8
/// elements and is read twice per sweep at stride 4, so each sweep misses once per
/// line in a 32 KiB L1 and nothing fits from one sweep to the next.
const PROGRAM: &str = "\
program strided
  implicit none
  integer, parameter :: n = 131072
  real(8) :: a(n), s
  integer :: i, r
  do i = 1, n
    a(i) = 1.0d0 / i
  end do
  s = 0.0d0
  do r = 1, 8
    do i = 1, n, 4
      s = s + a(i)
    end do
  end do
  print '(es14.6)', s
end program strided
";

/// Line of `do r = 1, 8` in [`PROGRAM`].
const SWEEP_LINE: u64 = 10;

/// Runs `augur bench misses` on the manifest `corpus.toml` of `dir`.
fn bench_misses(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_augur"))
        .current_dir(dir)
        .args(["bench", "misses", "--manifest", "corpus.toml"])
        .args(args)
        .output()
        .unwrap()
}

fn require(tool: &str, what: &str) {
    let ok = Command::new(tool)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        ok,
        "`{tool}` is needed for {what}: run scripts/setup.sh (apt-get install -y {})",
        if tool == "gfortran" { "gfortran" } else { tool }
    );
}

#[test]
fn predicted_l1_misses_of_a_strided_sum_match_the_simulation() {
    require("gfortran", "the build");
    require("valgrind", "the cache simulation");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("strided.f90"), PROGRAM).unwrap();
    std::fs::write(
        dir.path().join("corpus.toml"),
        "[[program]]\nname = \"strided\"\nfiles = [\"strided.f90\"]\n",
    )
    .unwrap();
    let out = bench_misses(dir.path(), &["--only", "strided", "--json"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let prog = &doc["programs"][0];
    assert_eq!(prog["name"], "strided", "{doc}");
    let nests = prog["nests"].as_array().unwrap();
    let sweep = nests
        .iter()
        .find(|n| n["line"].as_u64() == Some(SWEEP_LINE))
        .unwrap_or_else(|| panic!("no nest at line {SWEEP_LINE}: {doc}"));
    // The nest's lines: the DO to the outer END DO.
    assert_eq!(
        sweep["range"]["first"].as_u64(),
        Some(SWEEP_LINE),
        "{sweep}"
    );
    assert_eq!(
        sweep["range"]["last"].as_u64(),
        Some(SWEEP_LINE + 4),
        "{sweep}"
    );
    assert!(
        Path::new(sweep["range"]["file"].as_str().unwrap()).ends_with("strided.f90"),
        "{sweep}"
    );
    let predicted = sweep["predicted_l1"].as_f64().unwrap();
    let cg = &sweep["simulated"];
    let simulated = (cg["d1mr"].as_u64().unwrap() + cg["d1mw"].as_u64().unwrap()) as f64;
    // 8 sweeps x 16384 lines, about 131072 on both sides.
    assert!(
        simulated > 50_000.0,
        "the simulation saw too few misses: {sweep}"
    );
    let ratio = predicted / simulated;
    assert!(
        (0.5..=2.0).contains(&ratio),
        "predicted {predicted} L1d misses, simulated {simulated} (ratio {ratio:.2}): {sweep}"
    );
    // Almost all of the process's data misses are in the two analyzed nests.
    let total = prog["total"]["d1mr"].as_u64().unwrap() + prog["total"]["d1mw"].as_u64().unwrap();
    let inside =
        prog["in_nests"]["d1mr"].as_u64().unwrap() + prog["in_nests"]["d1mw"].as_u64().unwrap();
    assert!(
        inside as f64 > 0.8 * total as f64,
        "only {inside} of {total} D1 misses inside the nests: {doc}"
    );
    // The geometry is the OS's, as the prediction used.
    assert!(doc["geometry"]["l1"]["size_bytes"].as_u64().unwrap() > 0);
}

#[test]
fn unknown_programs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("corpus.toml"),
        "[[program]]\nname = \"a\"\nfiles = [\"a.f90\"]\n",
    )
    .unwrap();
    let out = bench_misses(dir.path(), &["--only", "nosuch"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("not in corpus.toml: nosuch"), "{stderr}");
}
