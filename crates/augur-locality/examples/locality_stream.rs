//! Throughput and peak memory of the locality models on long streams.
//!
//! `cargo run --release -p augur-locality --example locality_stream [N]`
//!
//! 1. The DOT matrix multiply of order N (default 400: 128 M accesses) from
//!    its affine nest into the reuse-distance analyzer.
//! 2. The same stream into a three-level hierarchy with a TLB.
//! 3. A stream of 150 M accesses over 2^25 distinct lines (2 GiB of address
//!    space), which makes the analyzer sample.
//!
//! Each phase prints accesses per second and the process's peak resident
//! set (VmHWM), which must stay under 1 GiB.

use augur_locality::hash::mix64;
use augur_locality::{oracle, Access, CacheGeometry, Hierarchy, ReuseAnalyzer, ReuseConfig};
use std::time::Instant;

fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn print_reuse(label: &str, count: u64, secs: f64, rep: &augur_locality::ReuseReport) {
    println!(
        "reuse   {label}: {count} accesses in {secs:.2} s = {:.1} M/s; sampled {} at rate {}; tracked lines {}; analyzer {:.1} MiB; peak RSS {:.1} MiB",
        count as f64 / secs / 1e6,
        rep.sampled,
        rep.sample_rate,
        rep.tracked_lines,
        rep.peak_bytes as f64 / 1048576.0,
        peak_rss_mib()
    );
}

fn main() {
    let n: i64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(400);
    let nest = oracle::dot(n, 8);

    let t = Instant::now();
    let mut r = ReuseAnalyzer::new(ReuseConfig::default());
    let count = nest.for_each_access(|a| r.access(a)).unwrap();
    let secs = t.elapsed().as_secs_f64();
    let rep = r.report();
    print_reuse(&format!("DOT N={n}"), count, secs, &rep);
    let h = rep.total();
    for (name, lines) in [("32 KiB", 512u64), ("1 MiB", 16384), ("32 MiB", 524_288)] {
        println!(
            "        fully associative {name}: miss ratio {:.4}",
            h.misses_fully_associative(lines) / count as f64
        );
    }

    let t = Instant::now();
    let mut hier = Hierarchy::new(
        vec![
            CacheGeometry::new(32 << 10, 64, 8).unwrap(),
            CacheGeometry::new(1 << 20, 64, 16).unwrap(),
            CacheGeometry::new(32 << 20, 64, 16).unwrap(),
        ],
        Some(CacheGeometry::tlb(64, 4096, 4).unwrap()),
    );
    nest.for_each_access(|a| {
        hier.access(a);
    })
    .unwrap();
    let secs = t.elapsed().as_secs_f64();
    println!(
        "cache   DOT N={n}: {count} accesses in {secs:.2} s = {:.1} M/s; L1/L2/L3/TLB misses {} / {} / {} / {}; peak RSS {:.1} MiB",
        count as f64 / secs / 1e6,
        hier.levels()[0].stats().total.misses(),
        hier.levels()[1].stats().total.misses(),
        hier.levels()[2].stats().total.misses(),
        hier.tlb().unwrap().stats().total.misses(),
        peak_rss_mib()
    );

    let total = 150_000_000u64;
    let distinct = 1u64 << 25;
    let t = Instant::now();
    let mut r = ReuseAnalyzer::new(ReuseConfig::default());
    let mut x = 1u64;
    let mut pos = 0u64;
    for i in 0..total {
        x = mix64(x ^ i);
        let line = if x & 3 == 0 {
            (x >> 16) % distinct
        } else {
            pos = (pos + 1) % distinct;
            pos
        };
        r.access(Access::read(line * 64, (x & 1) as u32));
    }
    let secs = t.elapsed().as_secs_f64();
    let rep = r.report();
    print_reuse(
        &format!("wide stream over {distinct} lines"),
        total,
        secs,
        &rep,
    );
    println!(
        "        estimated accesses {} (true {total})",
        rep.total().total()
    );
}
