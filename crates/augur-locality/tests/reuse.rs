//! Reuse distances against the exact LRU simulator, sampling accuracy, and
//! the set-associative approximation.

use augur_locality::hash::mix64;
use augur_locality::{Access, Cache, CacheGeometry, Histogram, ReuseAnalyzer, ReuseConfig};
use proptest::prelude::*;

const LINE: u64 = 64;

fn exact(stream: &[(u64, u32)], max_lines: usize) -> augur_locality::ReuseReport {
    let mut r = ReuseAnalyzer::new(ReuseConfig {
        line_bytes: LINE,
        max_lines,
    });
    for &(line, array) in stream {
        r.access(Access::read(line * LINE + (line % 7), array));
    }
    r.report()
}

fn fa_misses(stream: &[(u64, u32)], lines: u64) -> (u64, Vec<u64>) {
    let mut c = Cache::new(CacheGeometry::new(lines * LINE, LINE, 0).unwrap());
    for &(line, array) in stream {
        c.access(Access::read(line * LINE, array));
    }
    let s = c.stats();
    (
        s.total.misses(),
        (0..3).map(|a| s.array(a).misses()).collect(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Misses from the histogram equal the fully associative LRU simulator,
    /// in total and per array, for sizes that are bin boundaries (all sizes
    /// below 64 lines and powers of two).
    #[test]
    fn histogram_misses_equal_fully_associative_lru(
        stream in prop::collection::vec((0u64..300, 0u32..3), 1..3000),
        small in 1u64..64,
        pow in 6u32..9,
    ) {
        let report = exact(&stream, 1 << 20);
        prop_assert!(!report.sampled);
        for lines in [small, 1 << pow] {
            let (total, per) = fa_misses(&stream, lines);
            prop_assert_eq!(report.total().misses_fully_associative(lines), total as f64);
            for a in 0..3u32 {
                prop_assert_eq!(
                    report.array(a).misses_fully_associative(lines),
                    per[a as usize] as f64
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// The same across timestamp compactions (long streams over few lines).
    #[test]
    fn compaction_preserves_distances(seed in any::<u64>(), distinct in 2u64..2000) {
        let mut x = seed;
        let stream: Vec<(u64, u32)> = (0..20_000)
            .map(|i| {
                x = mix64(x.wrapping_add(i));
                // Half sequential sweep, half random reuse.
                let line = if x & 1 == 0 { i % distinct } else { (x >> 8) % distinct };
                (line, (x >> 4) as u32 % 3)
            })
            .collect();
        let report = exact(&stream, 1 << 20);
        for lines in [1u64, 17, 63, 128, 1024] {
            prop_assert_eq!(
                report.total().misses_fully_associative(lines),
                fa_misses(&stream, lines).0 as f64
            );
        }
    }
}

/// A mixed stream: half accesses to a hot set, half a sequential sweep over
/// a large region, with an occasional random far access.
fn mixed_stream(n: u64, hot: u64, sweep: u64) -> Vec<(u64, u32)> {
    let mut x = 42u64;
    let mut pos = 0u64;
    (0..n)
        .map(|_| {
            x = mix64(x);
            match x % 16 {
                0..=7 => ((x >> 8) % hot, 0),
                8..=14 => {
                    pos = (pos + 1) % sweep;
                    (hot + pos, 1)
                }
                _ => (hot + sweep + (x >> 8) % (8 * sweep), 2),
            }
        })
        .collect()
}

/// Sampling: with the tracked lines limited to 1/32 of the distinct lines,
/// the estimated miss ratio of fully associative caches from 512 to 256K
/// lines is within 0.02 (absolute) of the exact one.
#[test]
fn sampling_estimate_within_tolerance() {
    let stream = mixed_stream(1_000_000, 3000, 40_000);
    let full = exact(&stream, 1 << 22);
    assert!(!full.sampled);
    let limit = 8192;
    let sampled = exact(&stream, limit);
    assert!(sampled.sampled, "must have sampled");
    assert!(sampled.sample_rate <= 1.0 / 16.0, "{}", sampled.sample_rate);
    assert!(sampled.tracked_lines <= limit);
    let n = stream.len() as f64;
    // The number of accesses is estimated too.
    let est_total = sampled.total().total() as f64;
    assert!((est_total - n).abs() / n < 0.05, "{est_total}");
    let mut worst = 0.0f64;
    for lines in [512u64, 2048, 4096, 16384, 65536, 262_144] {
        let e = full.total().misses_fully_associative(lines) / n;
        let s = sampled.total().misses_fully_associative(lines) / n;
        worst = worst.max((e - s).abs());
    }
    eprintln!(
        "sampling rate {} tracked {} worst miss-ratio error {worst:.4}",
        sampled.sample_rate, sampled.tracked_lines
    );
    assert!(worst < 0.02, "worst absolute miss-ratio error {worst}");
}

/// Smith's statistical model against the simulator on a random stream,
/// where its assumption (random placement) holds: within 5%.
#[test]
fn set_associative_model_on_random_stream() {
    let mut x = 7u64;
    let stream: Vec<(u64, u32)> = (0..200_000)
        .map(|_| {
            x = mix64(x);
            ((x >> 3) % 4096, 0)
        })
        .collect();
    let report = exact(&stream, 1 << 20);
    let h: Histogram = report.total();
    for (sets, ways) in [(64u64, 8u32), (256, 4), (1024, 1), (32, 16)] {
        let mut c =
            Cache::new(CacheGeometry::new(sets * u64::from(ways) * LINE, LINE, ways).unwrap());
        for &(line, a) in &stream {
            c.access(Access::read(line * LINE, a));
        }
        let sim = c.stats().total.misses() as f64;
        let model = h.misses_set_associative(sets, ways);
        assert!(
            (model - sim).abs() / sim < 0.05,
            "{sets}x{ways}: model {model} sim {sim}"
        );
    }
}
