//! A platform made from this machine's measured MPI network, replayed by the real
//! SimGrid: a ping-pong takes what the measured one took; every traced MPI call,
//! translated, replays.

use augur_machine_profile::MachineProfile;
use augur_program_profile::mpi::{Event, MpiRun, RankTrace, Record, Step};
use augur_simgrid::{replay, time_independent, Cluster, Link, Topology, WhatIf};
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

/// One event of rank `r` of a 5-rank run, made by `f`.
fn ev(op: &str, f: impl FnOnce(&mut Event)) -> Event {
    let mut e = Event::new(op);
    f(&mut e);
    e
}

/// Rank `r` of five: a split into even and odd ranks and collectives on both halves,
/// every v-collective on the world, an all-to-all of 1 MiB (SimGrid 3.32's own fails at
/// five ranks) and a ring of non-blocking messages completed by MPI_Waitany and
/// MPI_Waitsome.
fn five_ranks(r: u32) -> Vec<Event> {
    let half: Vec<u32> = (0..5).filter(|x| x % 2 == r % 2).collect();
    let first = half[0] as i32;
    let n = half.len();
    let index = half.iter().position(|&x| x == r).unwrap() as i64;
    let on_half = |op: &str, f: &dyn Fn(&mut Event)| {
        ev(op, |e| {
            e.comm = 3;
            f(e)
        })
    };
    let counts = |k: usize| (1..=k as i64).map(|i| i * 1000).collect::<Vec<_>>();
    vec![
        Event::new("init"),
        ev("comm_split", |e| {
            e.request = 3;
            e.members = half.clone();
        }),
        on_half("bcast", &|e| {
            e.peer = first;
            e.bytes = 1 << 20;
        }),
        on_half("allreduce", &|e| e.bytes = 800),
        on_half("gatherv", &|e| {
            e.peer = first;
            e.bytes = 1000 * (index + 1);
            if r as i32 == first {
                e.counts = counts(n);
            }
        }),
        on_half("alltoallv", &|e| e.counts = vec![700; 2 * n]),
        on_half("barrier", &|_| {}),
        ev("gatherv", |e| {
            e.peer = 0;
            e.bytes = 1000 * (r as i64 + 1);
            if r == 0 {
                e.counts = counts(5);
            }
        }),
        ev("scatterv", |e| {
            e.peer = 4;
            e.bytes2 = 1000 * (r as i64 + 1);
            if r == 4 {
                e.counts = counts(5);
            }
        }),
        ev("allgatherv", |e| {
            e.bytes = 1000 * (r as i64 + 1);
            e.counts = counts(5);
        }),
        ev("alltoallv", |e| {
            e.counts = [vec![500; 5], vec![500; 5]].concat()
        }),
        ev("reduce_scatter", |e| e.counts = counts(5)),
        ev("alltoall", |e| {
            e.bytes = 1 << 20;
            e.bytes2 = 1 << 20;
        }),
        ev("irecv", |e| {
            e.peer = ((r + 4) % 5) as i32;
            e.tag = 1;
            e.bytes = 64;
            e.request = 10;
        }),
        ev("isend", |e| {
            e.peer = ((r + 1) % 5) as i32;
            e.tag = 1;
            e.bytes = 64;
            e.request = 11;
        }),
        ev("waitany", |e| e.completed = vec![11]),
        ev("waitsome", |e| e.completed = vec![10]),
        Event::new("finalize"),
    ]
}

#[test]
fn every_traced_call_replays_at_five_ranks() {
    let traces = (0..5)
        .map(|r| {
            let steps = five_ranks(r)
                .into_iter()
                .map(|event| Step {
                    segment: vec![],
                    event,
                })
                .collect();
            RankTrace {
                rank: r,
                calls: 0,
                records: vec![Record { repeat: 1, steps }],
            }
        })
        .collect();
    let run = MpiRun {
        ranks: 5,
        wall_seconds: 0.0,
        traces,
    };
    let net = augur_simgrid::timeline::IdleNetwork {
        latency: 1e-6,
        bandwidth: 1e9,
        measured: None,
        ranks: 5,
    };
    let ti = time_independent(&run, &|_| 0.0, 1e9, &net, None);
    let texts = &ti.texts;
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = texts
        .iter()
        .enumerate()
        .map(|(r, t)| {
            let p = dir.path().join(format!("rank{r}.txt"));
            std::fs::write(&p, t).unwrap();
            p
        })
        .collect();
    let link = Link {
        latency_us: 1.0,
        bandwidth_gbs: 1.0,
    };
    let cluster = Cluster {
        name: "five".into(),
        nodes: 5,
        cores_per_node: 1,
        core_speed_gflops: 1.0,
        intra: Some(link),
        inter: link,
        topology: Topology::Flat,
        machine: None,
    };
    let platform = cluster.platform(None, &WhatIf::default()).unwrap();
    let log = dir.path().join("actions.log");
    let t = replay(
        &platform,
        dir.path(),
        &files,
        Some(&log),
        Duration::from_secs(120),
    )
    .unwrap_or_else(|e| panic!("{e}\n{}", texts[0]));
    // At least the 1 MiB broadcast and the four 1 MiB messages each rank sends in the
    // all-to-all, at 1 GB/s.
    assert!(t > 5.0 * (1 << 20) as f64 / 1e9, "simulated {t} s");
    // Every action the replayer logged is the one augur wrote there, none missing: the
    // timeline reads back, every rank ends at most at the simulated time.
    let tl = augur_simgrid::timeline::read(&log, &ti.lines, ti.sites.clone(), t)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        tl.ranks.iter().all(|r| r.end > 0.0 && r.end <= t + 1e-9),
        "{tl:?}"
    );
    assert!(
        tl.sites.iter().any(|s| s.label.starts_with("MPI_Bcast")),
        "{tl:?}"
    );
}
