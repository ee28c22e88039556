//! `augur characterize --optimizations --quick` with gfortran at -O0 and -O2 on two
//! optimizations whose verdicts cannot be noise (dead code costs a square root and a
//! division per element; a folded constant turns a division chain into a multiply chain),
//! then `augur optimizations` side by side; and the refusals (unknown optimization, a
//! profile of other flags).

use augur_machine_profile::MachineProfile;
use std::path::Path;
use std::process::{Command, Output};

/// These tests run the real compiler: without it they fail (never skip silently).
fn require_gfortran() {
    assert!(
        Command::new("gfortran").arg("--version").output().is_ok(),
        "gfortran not found: these tests need it (run scripts/setup.sh)"
    );
}

fn augur(args: &[&str], out: Option<&Path>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_augur"));
    c.args(args);
    if let Some(o) = out {
        c.arg("-o").arg(o);
    }
    c.output().unwrap()
}

fn detect(flags: &str, out: &Path) -> MachineProfile {
    let fflags = format!("--fflags={flags}");
    let res = augur(
        &[
            "characterize",
            "--optimizations",
            "--quick",
            "--only",
            "dead_code,constant_folding",
            "--fc",
            "gfortran",
            &fflags,
        ],
        Some(out),
    );
    let stdout = String::from_utf8_lossy(&res.stdout);
    assert!(
        res.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&res.stderr)
    );
    assert!(stdout.contains("dead-code elimination (local)"), "{stdout}");
    MachineProfile::read(out).unwrap()
}

#[test]
fn dead_code_and_constant_folding_at_o0_and_o2() {
    require_gfortran();
    let dir = tempfile::tempdir().unwrap();
    let (p0, p2) = (dir.path().join("o0.toml"), dir.path().join("o2.toml"));
    let o0 = detect("-O0", &p0).optimizations.unwrap();
    let o2 = detect("-O2", &p2).optimizations.unwrap();
    assert_eq!(o0.tests.len(), 12);
    for (opt, scope) in [("dead_code", "local"), ("constant_folding", "local")] {
        let r0 = &o0.summary(opt, scope).unwrap().rating;
        let r2 = &o2.summary(opt, scope).unwrap().rating;
        // A neighbour busy on a shared host can make one repetition of three look
        // applied ("marginal"); never a majority.
        assert!(r0 == "no" || r0 == "marginal", "{opt} at -O0: {o0:#?}");
        assert_eq!(r2, "yes", "{opt} at -O2: {o2:#?}");
    }
    // The AbOp tables of the new profile are untouched.
    let p = MachineProfile::read(&p2).unwrap();
    assert!(p.abop.values().all(|e| e.status == "not yet measured"));
    let res = augur(
        &[
            "optimizations",
            "-m",
            p0.to_str().unwrap(),
            "-m",
            p2.to_str().unwrap(),
        ],
        None,
    );
    let table = String::from_utf8_lossy(&res.stdout);
    assert!(res.status.success(), "{table}");
    assert!(table.starts_with("| optimization | gfortran -O0 | gfortran -O2 |"));
    assert!(
        table.contains("| dead-code elimination (local) | no | yes |")
            || table.contains("| dead-code elimination (local) | marginal | yes |"),
        "{table}"
    );
}

#[test]
fn unknown_optimizations_and_other_flags_are_refused() {
    require_gfortran();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.toml");
    let res = augur(
        &[
            "characterize",
            "--optimizations",
            "--only",
            "magic",
            "--quick",
        ],
        Some(&out),
    );
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(!res.status.success());
    assert!(err.contains("no optimization test named magic"), "{err}");
    assert!(err.contains("dead_code"), "{err}");
    assert!(!out.exists(), "nothing written");
    // A profile of -O2 does not take the optimizations of -O0.
    let mut p = MachineProfile::new(Default::default());
    p.provenance.compiler = "gfortran".into();
    p.provenance.fflags = "-O2".into();
    p.write(&out).unwrap();
    let res = augur(
        &[
            "characterize",
            "--optimizations",
            "--only",
            "inlining",
            "--quick",
            "--fflags=-O0",
        ],
        Some(&out),
    );
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(!res.status.success());
    assert!(err.contains("was measured with gfortran -O2"), "{err}");
    let res = augur(&["optimizations", "-m", out.to_str().unwrap()], None);
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(err.contains("no [optimizations] section"), "{err}");
}
