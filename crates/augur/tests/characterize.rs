//! `augur characterize --quick` on a handful of experiments with gfortran, then `augur diff`.
//! Structural checks only: no timing thresholds.

use std::process::Command;

fn have_gfortran() -> bool {
    Command::new("gfortran").arg("--version").output().is_ok()
}

#[test]
fn quick_characterization_writes_a_valid_profile() {
    if !have_gfortran() {
        eprintln!("gfortran not found; skipping");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.toml");
    let res = Command::new(env!("CARGO_BIN_EXE_augur"))
        .args([
            "characterize",
            "--quick",
            "--only",
            "ARDL,MISL,SIND,PROC",
            "-o",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&res.stdout);
    assert!(
        res.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&res.stderr)
    );
    let p = augur_machine::MachineProfile::read(&out).unwrap();
    assert_eq!(p.schema, 1);
    assert_eq!(p.provenance.mode, "quick");
    assert_eq!(p.provenance.compiler, "gfortran");
    assert_eq!(p.abop.len(), augur_ir::abop::COUNT);
    for m in ["ARDL", "MISL", "SIND", "PROC"] {
        let op = augur_ir::AbOp::from_mnemonic(m).unwrap();
        let e = &p.abop[&op];
        assert!(e.status_is_valid(), "{m}: {}", e.status);
        assert!(stdout.contains(m));
        if e.status == "measured" {
            let mean = e.mean_ns.unwrap();
            assert!(mean.is_finite() && mean >= 0.0, "{m}: {mean}");
            assert!(e.ci90_ns.unwrap().is_finite());
            // 5 per pass; re-observation pools more, the outlier rule may drop some.
            assert!(e.observations >= 2, "{m}: {}", e.observations);
        }
    }
    assert_eq!(p.abop[&augur_ir::AbOp::TCHR].status, "not yet measured");
    let diff = Command::new(env!("CARGO_BIN_EXE_augur"))
        .arg("diff")
        .arg(&out)
        .arg(&out)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&diff.stdout);
    assert!(diff.status.success());
    assert!(
        text.contains("median |B/A-1|") || text.contains("no AbOp is measured"),
        "{text}"
    );
}

#[test]
fn bad_profile_and_bad_compiler_give_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "schema = 7\nkind = \"augur-machine-profile\"\n").unwrap();
    let res = Command::new(env!("CARGO_BIN_EXE_augur"))
        .arg("diff")
        .arg(&bad)
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!res.status.success());
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(
        err.contains("bad.toml") && err.contains("schema 7"),
        "{err}"
    );
    let out = dir.path().join("m.toml");
    let res = Command::new(env!("CARGO_BIN_EXE_augur"))
        .args(["characterize", "--fc", "no-such-fortran-compiler", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(!res.status.success());
    assert!(String::from_utf8_lossy(&res.stderr).contains("no-such-fortran-compiler"));
    assert!(!out.exists());
}
