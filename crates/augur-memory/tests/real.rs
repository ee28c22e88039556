//! A quick real sweep on this machine: arrays up to twice the L2, strides up to 512 B.
//! The L1's size and line size must equal what the OS reports.

use augur_memory::os;
use augur_memory::run::{measure, plan, Settings};
use augur_program::toolchain::Toolchain;

#[test]
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
    assert_eq!(got.line_bytes, l1.line, "{}", augur_memory::report(&m));
    assert_eq!(got.line_source, "measured");
}
