//! A quick real sweep on this machine: arrays up to twice the L2, strides up to 512 B.
//! The L1's size must equal what the OS reports. The line size read from the sweep is
//! not yet reliable on this CPU: its adjacent-line prefetcher fetches lines in pairs, so
//! some runs read 128 B for the OS's 64 B (issue 6 records this); the test asserts only
//! that the reading is a plausible line (a power of two from the OS value to twice it).

use augur_memory::os;
use augur_memory::run::{measure, plan, Settings};
use augur_program::toolchain::Toolchain;

// A measurement, not a unit test: on a shared 2-core machine (and beside the other
// tests cargo runs in parallel) the sweep is disturbed often enough that it fails in one
// run of two (measured 2026-11-22: L1 read 16 KiB, lines 512 B). Run it alone on a quiet
// machine: `cargo test -p augur-memory --test real -- --ignored`.
#[test]
#[ignore = "timing-sensitive measurement; run alone on a quiet machine with --ignored"]
fn l1_size_and_line_match_the_os() {
    let info = os::detect();
    let Some(l1) = info.caches.first().cloned() else {
        eprintln!("the OS reports no caches; nothing to compare");
        return;
    };
    let Ok(tc) = Toolchain::detect("gfortran", "-O2") else {
        eprintln!("no gfortran; skipped");
        return;
    };
    let l2 = info.caches.get(1).map(|c| c.size).unwrap_or(8 * l1.size);
    let s = Settings {
        window_ns: 3_000_000,
        reps: 5,
        quick: true,
        max_bytes: 2 * l2,
        max_stride: 512,
    };
    let p = plan(&info, &s);
    let dir = tempfile::tempdir().unwrap();
    let start = std::time::Instant::now();
    let c = measure(&tc, &info, &p, &s, dir.path(), &mut |_| {}).unwrap();
    let mut m = augur_machine::memory_profile::MemoryProfile {
        sweep: c.sweep,
        chase: c.chase,
        tlb_chase: c.tlb,
        streams: c.streams,
        os_page_bytes: info.page,
        ..Default::default()
    };
    augur_memory::infer::infer(&mut m, &info);
    eprintln!("{}", augur_memory::report(&m));
    eprintln!("{:.1} s", start.elapsed().as_secs_f64());
    eprintln!("{:?}", m.chase);
    let got = &m.levels[0];
    assert_eq!(got.size_bytes, l1.size, "{}", augur_memory::report(&m));
    assert_eq!(got.size_source, "measured");
    assert_eq!(got.line_source, "measured");
    assert!(
        got.line_bytes.is_power_of_two()
            && got.line_bytes >= l1.line
            && got.line_bytes <= 2 * l1.line,
        "line {} B against the OS's {} B\n{}",
        got.line_bytes,
        l1.line,
        augur_memory::report(&m)
    );
}
