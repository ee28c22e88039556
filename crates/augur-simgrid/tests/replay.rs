//! A platform made from this machine's measured MPI network, replayed by the real
//! SimGrid: a ping-pong takes what the measured one took.

use augur_machine_profile::MachineProfile;
use augur_simgrid::{replay, Cluster, Link, Topology, WhatIf};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The Zen 3 guest's `[mpi]` section kept in the repository.
fn measured() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../measurements/mpi-zen3-2026-11-26/zen3-mpi.toml")
}

/// Two ranks of one node exchanging `bytes` each way `rounds` times (SMPI prints the
/// simulated time in microseconds: enough rounds make it a few milliseconds).
fn pingpong(dir: &Path, bytes: u64, rounds: usize) -> Vec<PathBuf> {
    let ranks = [
        format!(
            "0 init\n{}0 finalize\n",
            format!("0 send 1 0 {bytes}\n0 recv 1 0 {bytes}\n").repeat(rounds)
        ),
        format!(
            "1 init\n{}1 finalize\n",
            format!("1 recv 0 0 {bytes}\n1 send 0 0 {bytes}\n").repeat(rounds)
        ),
    ];
    ranks
        .iter()
        .enumerate()
        .map(|(r, text)| {
            let p = dir.join(format!("rank{r}.txt"));
            std::fs::write(&p, text).unwrap();
            p
        })
        .collect()
}

/// The measured one-way time at `bytes`, or the straight line between the measured sizes
/// around it.
fn measured_at(pp: &[augur_machine_profile::mpi::Timing], bytes: u64) -> f64 {
    let i = pp.iter().position(|t| t.bytes >= bytes).unwrap();
    if pp[i].bytes == bytes {
        return pp[i].seconds;
    }
    let (a, b) = (&pp[i - 1], &pp[i]);
    let f = (bytes - a.bytes) as f64 / (b.bytes - a.bytes) as f64;
    a.seconds + f * (b.seconds - a.seconds)
}

#[test]
fn a_replayed_pingpong_takes_the_measured_time() {
    let profile = MachineProfile::read(&measured()).unwrap();
    let mpi = profile.mpi.expect("an [mpi] section");
    let cluster = Cluster {
        name: "this machine".into(),
        nodes: 1,
        cores_per_node: 2,
        core_speed_gflops: 1.0,
        intra: None,
        inter: Link {
            latency_us: 1.0,
            bandwidth_gbs: 10.0,
        },
        topology: Topology::Flat,
        machine: None,
    };
    let platform = cluster.platform(Some(&mpi), &WhatIf::default()).unwrap();
    let mut worst: f64 = 0.0;
    // Measured sizes, and 50,000 bytes (between 49,152 and 65,536: their straight line).
    for bytes in [0u64, 1024, 50_000, 1 << 20, 4 << 20] {
        let dir = tempfile::tempdir().unwrap();
        let measured = measured_at(&mpi.pingpongs, bytes);
        let rounds = (2e-3 / measured).ceil() as usize;
        let traces = pingpong(dir.path(), bytes, rounds);
        let simulated = replay(
            &platform,
            dir.path(),
            &traces,
            None,
            Duration::from_secs(60),
        )
        .unwrap()
            / (2 * rounds) as f64;
        let error = simulated / measured - 1.0;
        eprintln!(
            "{bytes:>8} bytes: simulated {simulated:.3e} s, measured {measured:.3e} s, {:+.1}%",
            100.0 * error
        );
        worst = worst.max(error.abs());
    }
    // SMPI's piecewise factors through the measured curve: within 2% at every size tried.
    assert!(worst < 0.02, "worst error {:.1}%", 100.0 * worst);
}

#[test]
fn a_bad_trace_is_a_clear_replay_error() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = Cluster {
        name: "c".into(),
        nodes: 1,
        cores_per_node: 2,
        core_speed_gflops: 1.0,
        intra: Some(Link {
            latency_us: 0.5,
            bandwidth_gbs: 5.0,
        }),
        inter: Link {
            latency_us: 1.0,
            bandwidth_gbs: 10.0,
        },
        topology: Topology::Flat,
        machine: None,
    };
    let platform = cluster.platform(None, &WhatIf::default()).unwrap();
    let bad = dir.path().join("rank0.txt");
    std::fs::write(&bad, "0 init\n0 send 1\n0 finalize\n").unwrap();
    let good = dir.path().join("rank1.txt");
    std::fs::write(&good, "1 init\n1 finalize\n").unwrap();
    let e = replay(
        &platform,
        dir.path(),
        &[bad, good],
        None,
        Duration::from_secs(60),
    )
    .unwrap_err();
    assert!(e.to_string().contains("replay failed"), "{e}");
}
