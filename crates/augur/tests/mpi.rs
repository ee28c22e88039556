//! `augur characterize --mpi` with the real OpenMPI (mpif90, mpirun): the `[mpi]` section
//! of a machine profile, and the error when no MPI library is installed.

use std::process::Command;

fn augur() -> Command {
    Command::new(env!("CARGO_BIN_EXE_augur"))
}

/// These tests run the real MPI library: without it they fail (never skip silently).
fn require_mpi() {
    for tool in ["mpif90", "mpirun"] {
        assert!(
            augur_mpi::find_on_path(tool).is_some(),
            "{tool} not found: these tests need OpenMPI (scripts/setup.sh installs it)"
        );
    }
}

#[test]
fn characterize_mpi_writes_the_network_section() {
    require_mpi();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.toml");
    let res = augur()
        .args(["characterize", "--mpi", "--quick", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&res.stdout);
    assert!(
        res.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&res.stderr)
    );
    assert!(
        stdout.contains("LogGP") && stdout.contains("allreduce"),
        "{stdout}"
    );
    let p = augur_machine_profile::MachineProfile::read(&out).unwrap();
    let m = p.mpi.expect("an [mpi] section");
    assert!(m.library.contains("Open MPI"), "{}", m.library);
    assert_eq!(m.ranks.first(), Some(&2));
    assert!(m.latency_seconds > 0.0 && m.latency_seconds < 1e-3);
    // Every size from 0 to 4 MiB, and 4 MiB takes longer than an empty message.
    let pp = &m.pingpongs;
    assert_eq!(pp.first().map(|t| t.bytes), Some(0));
    assert_eq!(pp.last().map(|t| t.bytes), Some(4 << 20));
    assert!(pp.last().unwrap().seconds > 10.0 * pp[0].seconds, "{pp:?}");
    assert!(!m.protocols.is_empty());
    assert!(m.loggp.gap_seconds > 0.0 && m.loggp.gap_per_byte_seconds > 0.0);
    for op in [
        "barrier",
        "bcast",
        "reduce",
        "allreduce",
        "gather",
        "scatter",
        "allgather",
        "alltoall",
    ] {
        assert!(
            m.collectives
                .iter()
                .any(|c| c.operation == op && c.ranks == 2 && c.seconds > 0.0),
            "no {op} at 2 ranks"
        );
    }
}

#[test]
fn characterize_mpi_without_an_mpi_library_says_what_to_install() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.toml");
    // gfortran stays reachable (the section's compiler is checked first); MPI does not.
    let gfortran = augur_mpi::find_on_path("gfortran").expect("gfortran");
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(&gfortran, bin.join("gfortran")).unwrap();
    let res = augur()
        .env("PATH", &bin)
        .args(["characterize", "--mpi", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(!res.status.success());
    assert!(
        err.contains("mpif90 was not found") && err.contains("openmpi-bin"),
        "{err}"
    );
    assert!(
        !out.exists(),
        "a failed characterization wrote {}",
        out.display()
    );
}

#[test]
fn a_cluster_file_becomes_a_simgrid_platform() {
    let dir = tempfile::tempdir().unwrap();
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let out = dir.path().join("platform.xml");
    let res = augur()
        .arg("platform")
        .arg(examples.join("cluster.toml"))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&res.stdout);
    assert!(
        res.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&res.stderr)
    );
    assert!(
        stdout.contains("8 ranks") && stdout.contains("smpi/bw-factor"),
        "{stdout}"
    );
    let xml = std::fs::read_to_string(&out).unwrap();
    assert!(xml.contains("<cluster id=\"four-zen3-guests\"") && xml.contains("radical=\"0-3\""));
    let hosts = std::fs::read_to_string(out.with_extension("hosts")).unwrap();
    assert_eq!(hosts.lines().count(), 4);
    // A torus that does not wire the nodes: the file, what is wrong, what to do.
    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "name = \"t\"\nnodes = 6\ncores_per_node = 1\n[intra]\nlatency_us = 0.2\nbandwidth_gbs = 5\n\
         [inter]\nlatency_us = 1\nbandwidth_gbs = 10\n[topology]\nkind = \"torus\"\ndimensions = [2, 2]\n",
    )
    .unwrap();
    let res = augur()
        .arg("platform")
        .arg(&bad)
        .arg("-o")
        .arg(dir.path().join("b.xml"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(!res.status.success());
    assert!(
        err.contains("bad.toml")
            && err.contains("connects 4 nodes")
            && err.contains("make them agree"),
        "{err}"
    );
    assert!(!dir.path().join("b.xml").exists());
}
