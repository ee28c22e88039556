//! Set conflicts of large power-of-two strides: the reachable part of a cache
//! (`CacheGeometry::reachable`) against a set-associative LRU simulation of
//! the same sweep, with virtual pages placed on random physical frames as an
//! operating system does.

use augur_locality::{
    Access, Affine, ArrayDecl, Cache, CacheGeometry, Loop, Nest, Ref, ReuseAnalyzer, ReuseConfig,
};

const PAGE: u64 = 4096;

/// A physical address for `addr`: its page moved to a pseudo-random frame
/// (a fixed permutation-like hash of the page number), the offset kept.
fn physical(addr: u64) -> u64 {
    let page = addr / PAGE;
    let mut x = page.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5851_F42D_4C95_7F2D;
    x ^= x >> 29;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 32;
    // Frames in a 64 GiB physical space; collisions are rare enough.
    (x % (1 << 24)) * PAGE + addr % PAGE
}

/// `DO J = 1, COLS; DO I = 1, ROWS; read X(J, I)`: a transposed sweep of an
/// array of `ld` doubles per column (the stride of the inner loop is
/// `8·ld` bytes).
fn transposed(ld: i64, rows: i64, cols: i64) -> Nest {
    Nest {
        arrays: vec![ArrayDecl::new("X", 1 << 30, 8, &[ld, rows])],
        body: vec![Loop::node(
            "J",
            Affine::constant(1),
            Affine::constant(cols),
            vec![Loop::node(
                "I",
                Affine::constant(1),
                Affine::constant(rows),
                vec![Ref::read(0, vec![Affine::var(0), Affine::var(1)])],
            )],
        )],
    }
}

/// (simulated misses, model misses on the reachable part, model misses on the whole cache)
fn compare(nest: &Nest, g: CacheGeometry) -> (f64, f64, f64) {
    let mut cache = Cache::new(g);
    let mut reuse = ReuseAnalyzer::new(ReuseConfig {
        line_bytes: g.line_bytes,
        max_lines: 1 << 22,
    });
    nest.for_each_access(|a| {
        cache.access(Access {
            addr: physical(a.addr),
            ..a
        });
        reuse.access(a);
    })
    .unwrap();
    let h = reuse.report().total();
    let stride = nest.inner_strides().unwrap()[0].stride_bytes;
    let r = g.reachable(stride, PAGE);
    (
        cache.stats().total.misses() as f64,
        h.misses_set_associative(r.sets(), r.ways),
        h.misses_set_associative(g.sets(), g.ways),
    )
}

#[test]
fn reachable_sets_of_power_of_two_strides() {
    let l1 = CacheGeometry::new(48 * 1024, 64, 12).unwrap();
    let l2 = CacheGeometry::new(1 << 20, 64, 16).unwrap();
    // 4 KiB stride: one L1 set, 16 of 1024 L2 sets.
    assert_eq!(l1.reachable(4096, PAGE).lines(), 12);
    assert_eq!(l2.reachable(4096, PAGE).lines(), 256);
    // 32 KiB: the same; 2 KiB: two L1 sets; 8000 bytes (125 lines): all.
    assert_eq!(l2.reachable(32768, PAGE).lines(), 256);
    assert_eq!(l1.reachable(2048, PAGE).lines(), 24);
    assert_eq!(l1.reachable(8000, PAGE), l1);
    assert_eq!(l1.reachable(8, PAGE), l1);
    assert_eq!(l1.reachable(100, PAGE), l1);
}

#[test]
fn transposed_sweep_misses_match_a_simulation_with_random_frames() {
    let l1 = CacheGeometry::new(48 * 1024, 64, 12).unwrap();
    let l2 = CacheGeometry::new(1 << 20, 64, 16).unwrap();
    // Power-of-two leading dimensions: the column of 1024 lines fits the L2
    // by capacity, not by its reachable sets; every access misses.
    for ld in [512, 4096] {
        let nest = transposed(ld, 1024, 8);
        for g in [l1, l2] {
            let (sim, reach, whole) = compare(&nest, g);
            let accesses = 8.0 * 1024.0;
            assert!(sim > 0.95 * accesses, "ld {ld} {g:?}: simulated {sim}");
            assert!(
                (reach - sim).abs() < 0.05 * sim,
                "ld {ld} {g:?}: {reach} vs {sim}"
            );
            if g == l2 {
                // The whole-cache model would have the column stay in L2.
                assert!(whole < 0.2 * accesses, "ld {ld}: {whole}");
            }
        }
    }
    // An odd leading dimension spreads the column over every set: the L2
    // keeps it (one miss per line), and the model agrees with or without
    // the reachable part.
    let nest = transposed(1000, 1024, 8);
    let (sim, reach, whole) = compare(&nest, l2);
    assert!(sim < 1.3 * 1024.0, "simulated {sim}");
    assert!((reach - sim).abs() < 0.3 * sim, "{reach} vs {sim}");
    assert_eq!(reach, whole);
}
