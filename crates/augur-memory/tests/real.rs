//! Real measurements on this machine: the coherence line by false sharing must be the
//! OS's line of the L1 and L2; with quick settings, the L1's and L2's sizes and line
//! sizes must equal what the OS reports, and the TLB's page size the OS page. The
//! deterministic checks of the inference on saved real curves are in `fixtures.rs`.

use augur_memory::run::{measure, plan, Plan, Settings};
use augur_toolchain::os;
use augur_toolchain::Toolchain;

// A measurement, not a unit test: it takes about 12 s and depends on what else runs on
// the machine. `cargo test -p augur-memory --test real -- --ignored`.
#[test]
#[ignore = "timing-sensitive measurement; run alone on a quiet machine with --ignored"]
fn the_l1_and_l2_geometry_matches_the_os() {
    let info = os::detect();
    if info.caches.len() < 2 {
        eprintln!("the OS reports fewer than two caches; nothing to compare");
        return;
    }
    let Ok(tc) = Toolchain::detect("gfortran", "-O2") else {
        eprintln!("no gfortran; skipped");
        return;
    };
    let s = Settings::QUICK;
    let p = plan(&info, &s);
    let dir = tempfile::tempdir().unwrap();
    let start = std::time::Instant::now();
    let c = measure(&tc, &info, &p, &s, dir.path(), &mut |_| {}).unwrap();
    let mut m = augur_machine_profile::memory::MemoryProfile {
        sweep: c.sweep,
        chase: c.chase,
        tlb_chase: c.tlb,
        slot_chase: c.slot,
        streams: c.streams,
        os_page_bytes: info.page,
        ..Default::default()
    };
    augur_memory::infer::infer(&mut m, &info);
    let report = augur_memory::report(&m);
    eprintln!("{report}{:.1} s", start.elapsed().as_secs_f64());
    for (got, os) in m.levels.iter().zip(&info.caches).take(2) {
        assert_eq!(got.size_bytes, os.size, "{}\n{report}", os.name);
        assert_eq!(got.size_source, "measured", "{}\n{report}", os.name);
        assert_eq!(got.line_bytes, os.line, "{}\n{report}", os.name);
        assert_eq!(got.line_source, "measured", "{}\n{report}", os.name);
    }
    assert_eq!(
        m.tlb.first().map(|t| t.page_bytes),
        Some(info.page),
        "{report}"
    );
}

/// An unoptimized characterization builds its stride sweep and TLB gathers with
/// optimization (they measure the hardware's rates, not their own loops) and says so; an
/// optimized one builds them with its flags. One sweep point and one gather point each:
/// a build and two runs, no timing threshold.
#[test]
fn the_hardware_rates_of_an_unoptimized_profile_are_measured_optimized() {
    assert!(
        std::process::Command::new("gfortran")
            .arg("--version")
            .output()
            .is_ok(),
        "gfortran not found: this test needs it (scripts/setup.sh installs it)"
    );
    let info = os::detect();
    let s = Settings::QUICK;
    let p = Plan {
        sweep: vec![(4096, 64)],
        tlb_gather: vec![(4096, 16)],
        ..Default::default()
    };
    for (flags, built) in [("-O0", Some("-O2")), ("-O2", None)] {
        let tc = Toolchain::detect("gfortran", flags).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let c = measure(&tc, &info, &p, &s, dir.path(), &mut |_| {}).unwrap();
        assert_eq!(c.hardware_fflags.as_deref(), built, "{flags}");
        // The optimized build goes to a directory of its own.
        let optimized = dir.path().join("hardware").join("augmem");
        assert_eq!(optimized.exists(), built.is_some(), "{flags}");
        assert_eq!(c.sweep.len(), 1, "{flags}: {:?}", c.sweep);
        assert!(c.sweep[0].ns.iter().all(|t| *t > 0.0), "{:?}", c.sweep);
        assert_eq!(c.tlb_gather.len(), 1, "{flags}: {:?}", c.tlb_gather);
    }
}

// A measurement of a few hundred ms: false sharing between two threads. Needs two CPUs.
// `cargo test -p augur-memory --test real -- --ignored`.
#[test]
#[ignore = "timing-sensitive measurement; needs two CPUs; run with --ignored"]
fn the_coherence_line_is_the_os_line_of_the_l1_and_l2() {
    use augur_memory::coherence;
    let info = os::detect();
    if coherence::cpus() < 2 || info.caches.len() < 2 {
        eprintln!("one CPU or fewer than two caches: nothing to measure");
        return;
    }
    let c = coherence::measure(10, std::time::Duration::from_secs(2))
        .expect("the two threads never ran together");
    eprintln!("{c:?}");
    let line = coherence::line(&c);
    for os in &info.caches[..2] {
        assert_eq!(line, Some(os.line), "{}: {c:?}", os.name);
    }
}
