//! Strided sweeps priced from the machine's own stride sweep.
//!
//! An array swept along its innermost loop at a stride of two lines or more is not a
//! stream the prefetchers follow, and at a power-of-two stride (the leading dimension
//! of a power-of-two matrix, a transpose's column walk) its lines fall in few sets of
//! the first level (one at a multiple of the way size, 4 KiB on most cores) and, the
//! next levels being physically indexed by the page's frame, in a small share of
//! theirs. Its misses do not overlap as a level's bandwidth assumes: on a Zen 5 guest,
//! independent reads of one line per column of a 4096 x 4096 `real(8)` matrix take
//! 6.3 ns each over 4,096 columns, 2.2 ns with the leading dimension padded by one
//! line, where the cache levels' line times and the page walks priced 1.3; the
//! transpose's strided reads took 5.1 ns an element and its strided stores 11.6 (phase
//! timings, docs/ACCURACY.md "Session 57"). Saavedra's stride sweep measures this very
//! pattern (a cyclic read of `size / stride` lines at a power-of-two stride, on base
//! pages, page walks included), so such a reference is priced at the sweep's cost at a
//! stride that reaches as many of the first level's sets and at the number of lines
//! between two uses of its line (its reuse distance), over the sweep's cost of as many
//! accesses from the first level (the sweep's loop, already in the operation costs).
//! A stride the sweep has no like of (one not a multiple of a line, or reaching more
//! sets than any of the sweep's strides near it) keeps the levels' prices.

use super::{add_levels, ArrayTraffic, LevelTraffic, NestMemory, STORE_STALLS};
use augur_locality::cache::CacheGeometry;
use augur_locality::classes::{classes_per_page, classes_reached};
use augur_locality::profile::CompactHistogramExt;
use augur_machine_profile::memory::{interp, MemoryProfile};
use augur_program_profile::locality::{ArrayLocality, LocalityProfile, PAGE_BYTES};

/// The level name of strided references priced by the stride sweep ([`price_swept_strides`]).
pub const SWEPT: &str = "swept";

/// The sweep's excess cost of a reference at stride `stride` as a curve over the lines
/// it cycles over: `(lines, seconds)` points, increasing in lines. From every sweep row,
/// the largest of its strides that is at most `stride`, at least half of it (or of a
/// page, for strides beyond one) and reaching as many sets of `first`; the cost over the
/// least the sweep measured for as many accesses per sweep (that point's lines in the
/// first level: loop and sweep overheads cancel). Empty when the sweep has no such
/// stride.
pub(crate) fn sweep_curve(
    mem: &MemoryProfile,
    first: &CacheGeometry,
    stride: u64,
) -> Vec<(u64, f64)> {
    let sets = |s: u64| first.reachable(s, PAGE_BYTES).sets();
    let like = |s: u64| sets(s) == sets(stride) && 2 * s >= stride.min(PAGE_BYTES);
    let base = |accesses: u64| -> Option<f64> {
        mem.sweep
            .iter()
            .flat_map(|r| {
                r.stride_bytes
                    .iter()
                    .zip(&r.ns)
                    .map(move |(&s, &ns)| (r.size_bytes, s, ns))
            })
            .filter(|&(size, s, ns)| s > 0 && size / s == accesses && ns > 0.0)
            .map(|(_, _, ns)| ns)
            .min_by(f64::total_cmp)
    };
    let floor = mem
        .sweep
        .iter()
        .flat_map(|r| r.ns.iter().copied())
        .filter(|ns| *ns > 0.0)
        .min_by(f64::total_cmp);
    let mut points: Vec<(u64, f64)> = mem
        .sweep
        .iter()
        .filter_map(|r| {
            let (s, ns) = r
                .stride_bytes
                .iter()
                .zip(&r.ns)
                .filter(|&(&s, &ns)| s <= stride && like(s) && ns > 0.0)
                .max_by_key(|&(&s, _)| s)?;
            let lines = r.size_bytes / s;
            let least = base(lines).or(floor)?;
            Some((lines, ((ns - least) * 1e-9).max(0.0)))
        })
        .filter(|&(lines, _)| lines >= 2)
        .collect();
    points.sort_by_key(|p| p.0);
    points.dedup_by_key(|p| p.0);
    points
}

/// The mean log2 of `(d + 1) * per` over a histogram's reuses (cold accesses left out;
/// 0 without reuses): the sweep's lines its accesses stand at.
fn log_mean_lines(h: &augur_locality::Histogram, per: u64) -> f64 {
    let (mut sum, mut weight) = (0.0, 0.0);
    for (i, &w) in h.bins.iter().enumerate().filter(|(_, &w)| w > 0) {
        let (lo, hi) = augur_locality::reuse::bin_range(i);
        let lines = ((lo + hi) / 2 + 1).saturating_mul(per) as f64;
        sum += w as f64 * lines.log2();
        weight += w as f64;
    }
    if weight > 0.0 {
        sum / weight
    } else {
        0.0
    }
}

/// What an array's strided references' accesses cost at `curve` over `executions` of its
/// nest (its histogram is one execution's): the `tail` share of its accesses, taken as
/// the farthest (first touches, then the longest distances: a sequential reference beside
/// them reuses its line at once). An access whose line was last used `d` lines
/// before costs the curve at `d + 1` lines (a cyclic sweep over `n` lines reuses each
/// at a distance of `n - 1`); a first touch costs the curve's largest point in the
/// first execution (its line comes from memory) and the curve at the nest's footprint
/// (`footprint_lines`) in the later ones, whose lines the execution before left at
/// that distance. Where the profile has the array's distances within its lines'
/// page-offset classes (`class_histogram`), its stride cycles through only some of
/// them (`classes`) and those distances times those classes run shorter than the
/// distances over all lines, they stand for `d`: the sweep's `n` lines spread evenly
/// over its classes, while the lines of other classes used in between (another row's
/// walk, a sequential stream) take no room in its sets. Returns the seconds and the
/// accesses that cost anything.
fn histogram_seconds(
    a: &ArrayLocality,
    curve: &[(u64, f64)],
    (executions, tail): (f64, f64),
    (footprint_lines, classes): (u64, Option<u64>),
) -> (f64, f64) {
    let (x, y): (Vec<u64>, Vec<f64>) = curve.iter().copied().unzip();
    let at = |lines: u64| interp(&x, &y, lines).max(0.0);
    let all = a.histogram.to_histogram();
    let (h, per) = match classes {
        Some(c) if !a.class_histogram.is_empty() => {
            let by_class = a.class_histogram.to_histogram();
            let c = c.max(1);
            // No line of another class between two uses (a walk alone in its classes):
            // the distances over all lines, which sample 64 times more lines, stand.
            if log_mean_lines(&by_class, c) < log_mean_lines(&all, 1) {
                (by_class, c)
            } else {
                (all, 1)
            }
        }
        _ => (all, 1),
    };
    let (first, later) = (
        y.last().copied().unwrap_or(0.0),
        at(footprint_lines.saturating_add(1)),
    );
    let later_runs = (executions - 1.0).max(0.0);
    // The strided references' accesses: the farthest of the array's (first touches, then
    // the longest distances), a sequential reference reusing its line at once.
    let mut left = tail * (h.cold as f64 + h.bins.iter().sum::<u64>() as f64);
    let mut take = |w: u64| {
        let t = (w as f64).min(left);
        left -= t;
        t
    };
    let cold = take(h.cold);
    let mut seconds = cold * (first + later_runs * later);
    let mut paid =
        cold * (f64::from(u8::from(first > 0.0)) + later_runs * f64::from(u8::from(later > 0.0)));
    for (i, &w) in h.bins.iter().enumerate().rev() {
        if w == 0 {
            continue;
        }
        let w = take(w);
        let (lo, hi) = augur_locality::reuse::bin_range(i);
        let cost = at(((lo + hi) / 2 + 1).saturating_mul(per));
        seconds += w * cost * executions;
        if cost > 0.0 {
            paid += w * executions;
        }
    }
    (seconds, paid)
}

/// Prices every analyzed nest's arrays swept along their innermost loop at a stride of
/// two lines or more (of the first level `first`) at the machine's stride sweep
/// ([`sweep_curve`]), where it has a like stride: the transfers and page walks its
/// strided accesses make (its farthest: [`take_strided_share`]), priced by the levels
/// until here, are taken out and the sweep's cost is added as the level [`SWEPT`]. A written array keeps its store stalls: a store that
/// misses holds the commit of those behind it beyond what a read waits (the
/// transpose's strided stores took 6.5 ns more than its strided reads). `out`'s first
/// rows are `loc.nests`'.
pub(crate) fn price_swept_strides(
    out: &mut [NestMemory],
    loc: &LocalityProfile,
    mem: &MemoryProfile,
    first: &CacheGeometry,
) {
    for (n, nl) in out.iter_mut().zip(&loc.nests) {
        let executions = nl.executions;
        let mut removed: Vec<LevelTraffic> = vec![];
        let mut added = (0.0, 0.0);
        for (a, al) in n.arrays.iter_mut().zip(&nl.arrays) {
            let stride = al.inner_stride_bytes;
            if stride < 2 * first.line_bytes {
                continue;
            }
            let strided = 1.0 - a.sequential_share;
            let curve = sweep_curve(mem, first, stride);
            if strided <= 0.0 || curve.is_empty() {
                continue;
            }
            // A stride that cycles through every class keeps the distances over all lines
            // (the classes of the profile's lines, which its class distances count).
            let line = if loc.line_bytes > 0 {
                loc.line_bytes
            } else {
                first.line_bytes
            };
            let classes = Some(classes_reached(stride, line, PAGE_BYTES))
                .filter(|&c| c < classes_per_page(line, PAGE_BYTES));
            let (seconds, paid) = histogram_seconds(
                al,
                &curve,
                (executions, strided),
                (nl.footprint_lines, classes),
            );
            removed.extend(take_strided_share(a, strided * a.accesses));
            a.levels.push(LevelTraffic {
                level: SWEPT.into(),
                misses: paid,
                writebacks: 0.0,
                seconds,
            });
            added.0 += paid;
            added.1 += seconds;
        }
        if removed.is_empty() {
            continue;
        }
        let taken: f64 = removed.iter().map(|l| l.seconds).sum();
        let negated: Vec<LevelTraffic> = removed
            .into_iter()
            .map(|l| LevelTraffic {
                level: l.level,
                misses: 0.0,
                writebacks: 0.0,
                seconds: -l.seconds,
            })
            .collect();
        add_levels(&mut n.levels, &negated);
        add_levels(
            &mut n.levels,
            &[LevelTraffic {
                level: SWEPT.into(),
                misses: added.0,
                writebacks: 0.0,
                seconds: added.1,
            }],
        );
        n.seconds += added.1 - taken;
    }
}

/// Takes the seconds of an array's levels (the store stalls excepted) that its `strided`
/// accesses (over all executions) make out, returning what was taken per level. They are
/// its farthest accesses, so a level's misses are theirs first: of `m` misses at a
/// level, `min(strided, m)`.
fn take_strided_share(a: &mut ArrayTraffic, strided: f64) -> Vec<LevelTraffic> {
    let share = strided / a.accesses.max(1.0);
    a.levels
        .iter_mut()
        .filter(|l| l.level != STORE_STALLS)
        .map(|l| {
            let of_misses = if l.misses > 0.0 {
                (strided / l.misses).min(1.0)
            } else {
                share
            };
            let taken = l.seconds * of_misses.max(share);
            l.seconds -= taken;
            LevelTraffic {
                level: l.level.clone(),
                misses: 0.0,
                writebacks: 0.0,
                seconds: taken,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use augur_machine_profile::memory::SweepCurve;
    use augur_program_profile::locality::{CompactHistogram, NestLocality};

    /// A first level of 48 KiB, 12 ways, 64-byte lines (64 sets: a 4 KiB stride
    /// reaches one of them).
    fn first() -> CacheGeometry {
        CacheGeometry {
            size_bytes: 48 << 10,
            line_bytes: 64,
            ways: 12,
        }
    }

    /// A stride sweep from 4 KiB to 128 MiB at the strides 64 B and 4, 8, 16 KiB, with
    /// 0.25 ns an access in the first level and `one_set(lines)` ns at the one-set
    /// strides over `lines` lines.
    fn machine(one_set: impl Fn(u64) -> f64) -> MemoryProfile {
        let sweep = (12..=27)
            .map(|k| {
                let size: u64 = 1 << k;
                let strides: Vec<u64> = [64u64, 4096, 8192, 16384]
                    .into_iter()
                    .filter(|&s| 2 * s <= size)
                    .collect();
                let ns = strides
                    .iter()
                    .map(|&s| if s == 64 { 0.25 } else { one_set(size / s) })
                    .collect();
                SweepCurve {
                    size_bytes: size,
                    stride_bytes: strides,
                    ns,
                }
            })
            .collect();
        MemoryProfile {
            sweep,
            ..MemoryProfile::default()
        }
    }

    #[test]
    fn the_curve_takes_the_one_set_strides_over_as_many_accesses_from_the_first_level() {
        // One-set reads cost 0.25 ns up to 12 lines, 1.75 ns to 256, 6.75 beyond.
        let mem = machine(|lines| match lines {
            0..=12 => 0.25,
            13..=256 => 1.75,
            _ => 6.75,
        });
        let curve = sweep_curve(&mem, &first(), 32768);
        let at = |lines: u64| curve.iter().find(|p| p.0 == lines).map(|p| p.1);
        assert_eq!(at(4), Some(0.0));
        assert!((at(64).unwrap() - 1.5e-9).abs() < 1e-15);
        assert!((at(8192).unwrap() - 6.5e-9).abs() < 1e-15);
        // A stride that reaches every set of the first level (a line's worth off a
        // page multiple) has no like stride in the sweep.
        assert!(sweep_curve(&mem, &first(), 32768 + 64).is_empty());
    }

    fn strided_nest(written: bool, histogram: CompactHistogram) -> NestLocality {
        let shape = crate::test_support::OneArray {
            executions: 2.0,
            accesses: 8192,
            footprint: (4096, 4096),
            inner_stride_bytes: 32768,
            written,
        };
        NestLocality {
            unit: "transp".into(),
            file: "t.f90".into(),
            ..crate::test_support::one_array_nest(shape, histogram.clone(), histogram)
        }
    }

    #[test]
    fn a_read_at_a_page_multiple_stride_is_priced_at_the_sweep_not_the_levels() {
        // `b(j,i) = a(i,j)`, j inner over 4,096 columns of 32 KiB: half the accesses
        // find their line 4,095 lines back, half are first touches; two executions.
        let mem = machine(|lines| if lines <= 12 { 0.25 } else { 6.75 });
        let mut h = augur_locality::Histogram::default();
        h.add(Some(4095), 4096);
        h.add(None, 4096);
        for written in [false, true] {
            let loc = LocalityProfile {
                line_bytes: 64,
                nests: vec![strided_nest(written, h.to_compact())],
                ..Default::default()
            };
            let levels = |l1: f64| {
                vec![LevelTraffic {
                    level: "L1d".into(),
                    misses: 16384.0,
                    writebacks: 0.0,
                    seconds: l1,
                }]
            };
            let mut out = vec![NestMemory {
                unit: "transp".into(),
                loop_id: 0,
                line: 3,
                kind: "affine".into(),
                seconds: 1e-6,
                levels: levels(1e-6),
                arrays: vec![ArrayTraffic {
                    name: "a".into(),
                    kind: "affine".into(),
                    line: 3,
                    accesses: 16384.0,
                    sequential: false,
                    sequential_share: 0.0,
                    levels: levels(1e-6),
                }],
                fill_floor_seconds: 0.0,
            }];
            price_swept_strides(&mut out, &loc, &mem, &first());
            let n = &out[0];
            let swept = 16384.0 * 6.5e-9;
            assert!((n.seconds - swept).abs() < 1e-12, "{}", n.seconds);
            let l1 = n.levels.iter().find(|l| l.level == "L1d").unwrap();
            assert!(l1.seconds.abs() < 1e-15);
            assert_eq!(n.arrays[0].levels.last().unwrap().level, SWEPT);
        }
    }

    #[test]
    fn a_walk_is_priced_at_the_distance_its_class_sees() {
        // Two rows of a matrix of 32 KiB columns walked in turn (syrk's `a(i,l)` and
        // `a(j,l)`): 1,000 lines between two uses of a line, 200 of them its own
        // class's. A one-set sweep over 200 lines costs 1.5 ns over the first level,
        // over 1,000 lines 6.5: the row takes the first where its class is known.
        let mem = machine(|lines| match lines {
            0..=12 => 0.25,
            13..=256 => 1.75,
            _ => 6.75,
        });
        let (mut all, mut class) = (
            augur_locality::Histogram::default(),
            augur_locality::Histogram::default(),
        );
        all.add(Some(999), 1000);
        class.add(Some(199), 1000);
        let mut nest = strided_nest(false, all.to_compact());
        let curve = sweep_curve(&mem, &first(), 32768);
        let (without, _) = histogram_seconds(&nest.arrays[0], &curve, (1.0, 1.0), (4096, Some(1)));
        nest.arrays[0].class_histogram = class.to_compact();
        let (with, _) = histogram_seconds(&nest.arrays[0], &curve, (1.0, 1.0), (4096, Some(1)));
        let (every_class, _) = histogram_seconds(&nest.arrays[0], &curve, (1.0, 1.0), (4096, None));
        assert!((without - 1000.0 * 6.5e-9).abs() < 1e-12, "{without}");
        assert!((with - 1000.0 * 1.5e-9).abs() < 1e-12, "{with}");
        assert!((every_class - without).abs() < 1e-15);
        // As far within its class as over all lines (a walk alone in its class): the
        // distances over all lines stand.
        let mut alone = augur_locality::Histogram::default();
        alone.add(Some(999), 1000);
        nest.arrays[0].class_histogram = alone.to_compact();
        let (walk_alone, _) =
            histogram_seconds(&nest.arrays[0], &curve, (1.0, 1.0), (4096, Some(1)));
        assert!((walk_alone - without).abs() < 1e-15, "{walk_alone}");
    }

    #[test]
    fn first_touches_of_later_executions_come_from_the_footprint_before() {
        // A strided read of 8 lines (the whole footprint), every access a first touch of
        // its execution, run 1,000 times: only the first execution's lines come from
        // memory; the others find them 8 lines back, in the first level.
        let mem = machine(|lines| if lines <= 12 { 0.25 } else { 6.75 });
        let mut h = augur_locality::Histogram::default();
        h.add(None, 8);
        let mut nest = strided_nest(false, h.to_compact());
        nest.executions = 1000.0;
        nest.footprint_lines = 8;
        let curve = sweep_curve(&mem, &first(), 32768);
        let (seconds, paid) = histogram_seconds(&nest.arrays[0], &curve, (1000.0, 1.0), (8, None));
        assert!((seconds - 8.0 * 6.5e-9).abs() < 1e-15, "{seconds}");
        assert_eq!(paid, 8.0);
    }

    #[test]
    fn an_array_also_read_in_order_pays_its_strided_walk_undiluted() {
        // A recurrence down `a`'s columns (3 x 4,096 accesses, each reusing its line at
        // once) beside a transpose's walk across them (4,096 accesses 4,095 lines back):
        // a quarter of the accesses stride, and they are the far ones. The walk costs the
        // sweep's 6.5 ns an access whole, not a quarter of a histogram that mixes both;
        // the first level's 4,096 misses are all the walk's, and go with it.
        let mem = machine(|lines| if lines <= 12 { 0.25 } else { 6.75 });
        let mut h = augur_locality::Histogram::default();
        h.add(Some(0), 3 * 4096);
        h.add(Some(4095), 4096);
        let mut nest = strided_nest(false, h.to_compact());
        nest.executions = 1.0;
        nest.arrays[0].accesses = 4 * 4096;
        nest.arrays[0].sequential_accesses = Some(3 * 4096);
        let loc = LocalityProfile {
            line_bytes: 64,
            nests: vec![nest],
            ..Default::default()
        };
        let l1 = LevelTraffic {
            level: "L1d".into(),
            misses: 4096.0,
            writebacks: 0.0,
            seconds: 4e-6,
        };
        let mut out = vec![NestMemory {
            unit: "transp".into(),
            loop_id: 0,
            line: 3,
            kind: "affine".into(),
            seconds: 4e-6,
            levels: vec![l1.clone()],
            arrays: vec![ArrayTraffic {
                name: "a".into(),
                kind: "affine".into(),
                line: 3,
                accesses: 4.0 * 4096.0,
                sequential: false,
                sequential_share: 0.75,
                levels: vec![l1],
            }],
            fill_floor_seconds: 0.0,
        }];
        price_swept_strides(&mut out, &loc, &mem, &first());
        let swept = 4096.0 * 6.5e-9;
        assert!((out[0].seconds - swept).abs() < 1e-12, "{}", out[0].seconds);
    }
}
