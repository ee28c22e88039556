//! Reading the hierarchy off the curves.
//!
//! * **Levels and latencies** (random chase, like lmbench's `lat_mem_rd`): the latency
//!   against the working set is a staircase. A *rise* is a pair of neighbouring sizes
//!   whose latency grows by more than [`RISE`]; neighbouring rises form one *transition*,
//!   kept when it grows by [`STEP`] in all and the points after it stay up (one outlier
//!   is not a level). A transition is often spread over several sizes (a random chase
//!   misses partly around a cache's size: other data and pseudo-LRU evict some lines of a
//!   working set that just fits; TLB misses add a ramp inside a large level), so the
//!   level's size is the largest working set whose latency is still below the midpoint of
//!   the two plateaus: more than half of its loads hit. The level's latency is
//!   the median of the first (at most three) points of its plateau; the last plateau is
//!   main memory. Its miss penalty is the next level's latency minus its own.
//! * **Matching with the OS**: each cache the OS reports takes the nearest boundary
//!   within a factor of four; a cache without one keeps the OS size (`from OS`, with a
//!   note), boundaries without a cache are reported in the notes.
//! * **Line size** (Saavedra's sweep, regime 2.a → 2.b): for the arrays that fit the
//!   next level but not this one, the excess time per access over the loop overhead
//!   (the smallest array's time at the same number of accesses per sweep, so that the
//!   per-sweep overhead cancels) grows with the stride while several accesses share a
//!   line and stops growing at the line size: the line is the smallest stride whose
//!   excess reaches half the largest (up to 1 KiB) and grows by at most [`GROW`] to the
//!   next stride ([`plateau_start`]). The excess at that stride is the strided miss cost
//!   (Saavedra's M).
//! * **Associativity** (regime 2.b → 2.c, first level only): at the smallest array above
//!   the L1, strides up to half the array, the excess falls back to the overhead once the
//!   N/s touched lines fit one set: ways = N / (first stride of the drop). No drop up to
//!   N/2 means direct mapped. Deeper levels are physically indexed (set bits above the
//!   page offset are random) and sit behind the L1, which holds such small line sets
//!   itself: their ways come from the OS.
//! * **TLB** (Calibrator's separation): the TLB chase at page stride minus the random
//!   chase over the same number of lines packed together leaves the translation cost
//!   against the number of pages; its steps (absolute, at least [`tlb_jump`]) give each
//!   TLB level's entries (the count before the step), reach (entries × page) and miss
//!   penalty (the rise between plateaus). Below the page size, elements share pages, so
//!   the last (largest) step comes at proportionally larger counts; the page size is the
//!   smallest stride from which the step's count stops falling (Saavedra: the stride at
//!   which every access needs a new entry).
//! * **Prefetching**: at the largest working set, a dependent chase through the lines in
//!   address order much cheaper (below half) than the random one can only come from
//!   hardware prefetching; independent strided reads add memory-level parallelism.

use crate::os::OsInfo;
use crate::run::{median, round4};
use augur_machine::memory_profile::{
    CacheLevel, ChaseCurve, MainMemory, MemoryProfile, Prefetch, SweepCurve, TlbCurve, TlbLevel,
    FROM_OS, MEASURED,
};

/// A rise: neighbouring latencies grow by more than this factor.
pub const RISE: f64 = 1.15;
/// A transition grows by at least this factor in all.
pub const STEP: f64 = 1.5;
/// The growth to the next stride below which a curve has reached its plateau.
pub const GROW: f64 = 1.25;

/// A step of a curve: `at` is the last point below the midpoint, `upper` the first point
/// of the plateau above it, `first` the first point of the transition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// First point of the transition (end of the lower plateau).
    pub first: usize,
    /// The boundary: the last point of the transition below the plateaus' midpoint.
    pub at: usize,
    /// First point of the upper plateau.
    pub upper: usize,
}

/// The steps of `y` over ascending `x`. `gain(a, b)` measures a rise from `a` to `b`;
/// neighbouring points rise when the gain exceeds `rise`, a transition needs `total` in
/// all, and the median of the (up to two) points after it must keep half of that.
pub fn steps(
    x: &[f64],
    y: &[f64],
    gain: &dyn Fn(f64, f64) -> f64,
    rise: f64,
    total: f64,
) -> Vec<Step> {
    let n = x.len().min(y.len());
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < n {
        if gain(y[i], y[i + 1]) <= rise {
            i += 1;
            continue;
        }
        let first = i;
        let mut j = i;
        while j + 1 < n && gain(y[j], y[j + 1]) > rise {
            j += 1;
        }
        // Rises first..j-1 (pairs (k, k+1)); the upper plateau starts at j.
        let after: Vec<f64> = (j..n.min(j + 2)).map(|k| y[k]).collect();
        if gain(y[first], y[j]) >= total && gain(y[first], median(&after)) >= total / 2.0 {
            // The boundary: the last point closer to the lower plateau than to the upper
            // (more than half of its loads hit).
            let mid = 0.5 * (y[first] + y[j]);
            let at = (first..j).rfind(|&k| y[k] <= mid).unwrap_or(first);
            out.push(Step {
                first,
                at,
                upper: j,
            });
        }
        i = j;
    }
    out
}

/// The ratio gain `ln(b / a)`.
pub fn ratio_gain(a: f64, b: f64) -> f64 {
    (b / a.max(1e-12)).ln()
}

/// The absolute gain `b - a`.
pub fn abs_gain(a: f64, b: f64) -> f64 {
    b - a
}

/// Where a curve that grows with the stride reaches its plateau: the smallest stride whose
/// value is at least half the largest and grows by at most [`GROW`] to the next one (the
/// stride of the largest value if none). `None` for an empty or flat-zero curve.
pub fn plateau_start(s: &[u64], e: &[f64]) -> Option<u64> {
    let max = e.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if max.is_nan() || max <= 0.0 {
        return None;
    }
    for k in 0..s.len() {
        if e[k] >= 0.5 * max && (k + 1 == s.len() || e[k + 1] <= GROW * e[k]) {
            return Some(s[k]);
        }
    }
    e.iter().position(|&v| v == max).map(|k| s[k])
}

/// Linear interpolation of `y` at `x0` in log-log space over ascending `x` (clamped to the
/// ends).
pub fn interp(x: &[u64], y: &[f64], x0: u64) -> f64 {
    if x.is_empty() {
        return f64::NAN;
    }
    if x0 <= x[0] {
        return y[0];
    }
    for k in 1..x.len() {
        if x0 <= x[k] {
            let (a, b) = ((x[k - 1] as f64).ln(), (x[k] as f64).ln());
            let t = ((x0 as f64).ln() - a) / (b - a);
            return y[k - 1] + t * (y[k] - y[k - 1]);
        }
    }
    y[y.len() - 1]
}

/// The loop overhead of a sweep with `per` accesses per sweep: the smallest array's time
/// at the stride giving as many accesses (or its smallest stride, with the most).
fn overhead(base: &SweepCurve, per: u64) -> f64 {
    let want = base.size_bytes / per.max(1);
    let mut best = (u64::MAX, f64::NAN);
    for (&s, &t) in base.stride_bytes.iter().zip(&base.ns) {
        let d = s.abs_diff(want.max(base.stride_bytes[0]));
        if d < best.0 {
            best = (d, t);
        }
    }
    best.1
}

/// The excess time per access of a sweep curve over the loop overhead, by stride.
pub fn excess(base: &SweepCurve, c: &SweepCurve) -> Vec<(u64, f64)> {
    c.stride_bytes
        .iter()
        .zip(&c.ns)
        .map(|(&s, &t)| (s, t - overhead(base, c.size_bytes / s)))
        .collect()
}

/// The median excess by stride over the curves of sizes in `(lo, hi]`.
fn median_excess(sweep: &[SweepCurve], lo: u64, hi: u64, max_stride: u64) -> (Vec<u64>, Vec<f64>) {
    let Some(base) = sweep.first() else {
        return (vec![], vec![]);
    };
    let mut by: std::collections::BTreeMap<u64, Vec<f64>> = Default::default();
    for c in sweep
        .iter()
        .filter(|c| c.size_bytes > lo && c.size_bytes <= hi)
    {
        for (s, e) in excess(base, c) {
            if s <= max_stride {
                by.entry(s).or_default().push(e);
            }
        }
    }
    let s: Vec<u64> = by.keys().copied().collect();
    let e: Vec<f64> = by.values().map(|v| median(v)).collect();
    (s, e)
}

/// A level to report: name, number, and the OS's size, line and ways.
type Wanted = (String, u32, Option<u64>, Option<u64>, Option<u32>);

/// Fills `levels`, `memory`, `tlb`, `prefetch` and `notes` of `m` from its curves and the
/// OS's values.
pub fn infer(m: &mut MemoryProfile, os: &OsInfo) {
    let mut notes = Vec::new();
    let line_os = os.line();
    let page = if os.page > 0 { os.page } else { 4096 };
    let empty = ChaseCurve::default();
    let rand = m
        .chase
        .iter()
        .find(|c| c.order == "random")
        .unwrap_or(&empty);
    let xs: Vec<f64> = rand.size_bytes.iter().map(|&v| v as f64).collect();
    let st = steps(&xs, &rand.ns, &ratio_gain, RISE.ln(), STEP.ln());
    // Plateau latency: median of its first (up to three) points.
    let plateau = |from: usize, to: usize| -> f64 {
        let to = to.min(rand.ns.len().saturating_sub(1));
        if from > to {
            return f64::NAN;
        }
        median(&rand.ns[from..=to.min(from + 2)])
    };
    // (size, latency of the plateau below) per step; the plateau after the last is memory.
    let mut found: Vec<(u64, f64)> = Vec::new();
    let mut from = 0;
    for s in &st {
        found.push((rand.size_bytes[s.at], plateau(from, s.first)));
        from = s.upper;
    }
    let mem_latency = if rand.ns.is_empty() {
        f64::NAN
    } else if st.is_empty() {
        rand.ns[rand.ns.len() - 1]
    } else {
        median(&rand.ns[from..])
    };
    // Match with the OS's caches.
    let mut used = vec![false; found.len()];
    let mut levels: Vec<CacheLevel> = Vec::new();
    let wanted: Vec<Wanted> = if os.caches.is_empty() {
        (0..found.len())
            .map(|k| (format!("L{}", k + 1), k as u32 + 1, None, None, None))
            .collect()
    } else {
        os.caches
            .iter()
            .map(|c| (c.name.clone(), c.level, Some(c.size), Some(c.line), c.ways))
            .collect()
    };
    for (name, level, os_size, os_line, os_ways) in &wanted {
        let pick = match os_size {
            None => (level - 1) as usize,
            Some(sz) => {
                let mut best: Option<(usize, f64)> = None;
                for (k, f) in found.iter().enumerate() {
                    let d = ((f.0 as f64) / (*sz as f64)).log2().abs();
                    let better = match best {
                        None => true,
                        Some(b) => d < b.1,
                    };
                    if !used[k] && d <= 2.0 && better {
                        best = Some((k, d));
                    }
                }
                best.map(|b| b.0).unwrap_or(usize::MAX)
            }
        };
        let (size, size_source, latency) = if pick < found.len() {
            used[pick] = true;
            (found[pick].0, MEASURED, found[pick].1)
        } else {
            let sz = os_size.unwrap_or(0);
            notes.push(format!(
                "{name}: no latency step near the OS size {}; size from OS",
                human(sz)
            ));
            (sz, FROM_OS, interp(&rand.size_bytes, &rand.ns, sz / 2))
        };
        levels.push(CacheLevel {
            name: name.clone(),
            level: *level,
            size_bytes: size,
            size_source: size_source.into(),
            line_bytes: os_line.unwrap_or(line_os),
            line_source: FROM_OS.into(),
            ways: *os_ways,
            ways_source: FROM_OS.into(),
            latency_ns: round4(latency),
            os_size_bytes: *os_size,
            os_line_bytes: *os_line,
            os_ways: *os_ways,
            ..Default::default()
        });
    }
    for (k, f) in found.iter().enumerate() {
        if !used[k] {
            notes.push(format!(
                "a latency step at {} matches no cache the OS reports",
                human(f.0)
            ));
        }
    }
    // Miss penalties.
    for k in 0..levels.len() {
        let next = levels
            .get(k + 1)
            .map(|l| l.latency_ns)
            .unwrap_or(mem_latency);
        levels[k].miss_penalty_ns = round4(next - levels[k].latency_ns);
    }
    // Line sizes and strided miss costs from the sweep.
    let sizes: Vec<u64> = levels.iter().map(|l| l.size_bytes).collect();
    for k in 0..levels.len() {
        let lo = sizes[k];
        let hi = sizes.get(k + 1).map(|&s| s / 2).unwrap_or(u64::MAX);
        let lo = if k + 1 == sizes.len() { 2 * lo - 1 } else { lo };
        let (s, e) = median_excess(&m.sweep, lo, hi, 1024);
        match plateau_start(&s, &e) {
            Some(b) if e.iter().copied().fold(0.0, f64::max) > 0.02 => {
                levels[k].line_bytes = b;
                levels[k].line_source = MEASURED.into();
                let at = s.iter().position(|&v| v == b).map(|i| e[i]);
                levels[k].strided_miss_ns = at.map(round4);
            }
            _ => notes.push(format!(
                "{}: the sweep shows no line-size step (no arrays between it and the next level, or misses hidden); line size from OS",
                levels[k].name
            )),
        }
    }
    // Associativity of the first level.
    if let Some(l1) = levels.first_mut() {
        match l1_ways(&m.sweep, l1.size_bytes, l1.line_bytes) {
            Some(w) => {
                l1.ways = Some(w);
                l1.ways_source = MEASURED.into();
            }
            None => notes.push(format!(
                "{}: no drop back to the overhead at large strides; ways from OS",
                l1.name
            )),
        }
    }
    if levels.len() > 1 {
        notes.push(
            "ways of the levels beyond the first are from the OS: they are physically indexed and the first level holds the small line sets that would show them".into(),
        );
    }
    // Bandwidths.
    let triad = |bytes: u64| {
        m.streams
            .iter()
            .find(|p| p.kernel == "triad" && p.array_bytes == bytes)
            .map(|p| p.gbs)
    };
    for (l, c) in levels.iter_mut().zip(&os.caches) {
        l.bandwidth_gbs = triad((c.size / 4).max(1024));
    }
    let big = m
        .streams
        .iter()
        .filter(|p| p.kernel == "triad")
        .map(|p| p.array_bytes)
        .max()
        .unwrap_or(0);
    m.memory = MainMemory {
        latency_ns: round4(mem_latency),
        bandwidth_gbs: triad(big).unwrap_or(0.0),
    };
    // TLB.
    let cache_part = |count: u64| interp(&rand.size_bytes, &rand.ns, count * line_os);
    let mut tlb = Vec::new();
    let jump = tlb_jump(levels.first().map(|l| l.latency_ns).unwrap_or(1.0));
    // Translation cost: the TLB chase minus the chase over as many lines packed together.
    let translation = |c: &TlbCurve| -> (Vec<f64>, Vec<f64>) {
        let x = c.count.iter().map(|&v| v as f64).collect();
        let d = c
            .count
            .iter()
            .zip(&c.ns)
            .map(|(&n, &t)| t - cache_part(n))
            .collect();
        (x, d)
    };
    // The count before the largest step of each stride's curve.
    let last_step: Vec<(u64, u64)> = m
        .tlb_chase
        .iter()
        .filter_map(|c| {
            let (x, d) = translation(c);
            let ts = steps(&x, &d, &abs_gain, jump, 2.0 * jump);
            let big = ts
                .iter()
                .max_by(|a, b| (d[a.upper] - d[a.first]).total_cmp(&(d[b.upper] - d[b.first])))?;
            Some((c.stride_bytes, c.count[big.at]))
        })
        .collect();
    let page_read = (0..last_step.len()).find(|&k| {
        last_step[k + 1..]
            .iter()
            .all(|&(_, c)| c as f64 >= last_step[k].1 as f64 / 1.5)
    });
    let (page_bytes, page_source) = match page_read {
        Some(k) if last_step.len() >= 3 && k + 1 < last_step.len() => (last_step[k].0, MEASURED),
        _ => {
            notes.push(
                "TLB: the step does not show at enough strides to read the page size; page size from OS"
                    .into(),
            );
            (page, FROM_OS)
        }
    };
    if page_bytes != page {
        notes.push(format!(
            "TLB: the translation cost stops growing at a stride of {}, the OS page is {}",
            human(page_bytes),
            human(page)
        ));
    }
    if let Some(c) = m.tlb_chase.iter().find(|c| c.stride_bytes == page) {
        let (x, d) = translation(c);
        let ts = steps(&x, &d, &abs_gain, jump, 2.0 * jump);
        let mut from = 0;
        for (k, s) in ts.iter().enumerate() {
            let below = median(&d[from..=s.first]);
            let to = ts.get(k + 1).map(|n| n.first).unwrap_or(d.len() - 1);
            let above = median(&d[s.upper..=to.max(s.upper)]);
            let entries = c.count[s.at];
            tlb.push(TlbLevel {
                name: format!("L{} DTLB", k + 1),
                entries,
                page_bytes,
                page_source: page_source.into(),
                reach_bytes: entries * page_bytes,
                miss_penalty_ns: round4(above - below),
            });
            from = s.upper;
        }
        if ts.is_empty() {
            notes.push("TLB: no step in the translation cost up to the largest count".into());
        }
    }
    m.tlb = tlb;
    m.prefetch = prefetch(m, levels.first().map(|l| l.line_bytes).unwrap_or(line_os));
    m.levels = levels;
    m.notes = notes;
}

/// The smallest jump of the translation cost that counts as a TLB step: 0.3 ns or a
/// quarter of the L1 latency.
pub fn tlb_jump(l1_latency: f64) -> f64 {
    (0.25 * l1_latency).max(0.3)
}

/// Saavedra's associativity at the smallest array above the L1 whose curve reaches half
/// its size.
fn l1_ways(sweep: &[SweepCurve], size: u64, line: u64) -> Option<u32> {
    let base = sweep.first()?;
    let c = sweep.iter().find(|c| {
        c.size_bytes > size
            && c.size_bytes.is_power_of_two()
            && c.stride_bytes.last() == Some(&(c.size_bytes / 2))
    })?;
    let ex: Vec<(u64, f64)> = excess(base, c)
        .into_iter()
        .filter(|e| e.0 >= line)
        .collect();
    let max = ex.iter().map(|e| e.1).fold(0.0, f64::max);
    if max <= 0.05 {
        return None;
    }
    for k in 1..ex.len() {
        if ex[k..].iter().all(|e| e.1 < 0.3 * max) && ex[..k].iter().any(|e| e.1 >= 0.6 * max) {
            return Some((c.size_bytes / ex[k].0) as u32);
        }
    }
    // No drop at all up to N/2: direct mapped.
    if ex.last().is_some_and(|e| e.1 >= 0.6 * max) {
        return Some(1);
    }
    None
}

/// Sequential against random access at the largest working set.
fn prefetch(m: &MemoryProfile, line: u64) -> Prefetch {
    let at = |order: &str, n: u64| {
        m.chase
            .iter()
            .find(|c| c.order == order)
            .and_then(|c| c.size_bytes.iter().position(|&s| s == n).map(|k| c.ns[k]))
    };
    let Some(n) = m
        .chase
        .iter()
        .find(|c| c.order == "sequential")
        .and_then(|c| c.size_bytes.last().copied())
    else {
        return Prefetch {
            summary: "not measured".into(),
            ..Default::default()
        };
    };
    let (Some(r), Some(s)) = (at("random", n), at("sequential", n)) else {
        return Prefetch {
            summary: "not measured".into(),
            ..Default::default()
        };
    };
    let strided = m
        .sweep
        .iter()
        .find(|c| c.size_bytes == n)
        .and_then(|c| {
            c.stride_bytes
                .iter()
                .position(|&v| v == line)
                .map(|k| c.ns[k])
        })
        .unwrap_or(f64::NAN);
    let detected = s < 0.5 * r;
    let summary = format!(
        "at {}: dependent loads in address order {s:.2} ns, in random order {r:.2} ns, independent reads one line apart {strided:.2} ns: {}",
        human(n),
        if detected {
            format!(
                "hardware prefetching detected (it hides {:.0}% of the latency of a sequential dependent load)",
                100.0 * (1.0 - s / r)
            )
        } else if strided < 0.5 * r {
            "no prefetching of dependent loads; strided reads overlap their misses (memory-level parallelism)".to_string()
        } else {
            "no prefetching detected".to_string()
        }
    );
    Prefetch {
        detected,
        size_bytes: n,
        random_ns: r,
        sequential_ns: s,
        strided_ns: strided,
        summary,
    }
}

/// `32 KiB`, `1 MiB`, `512 B`.
pub fn human(b: u64) -> String {
    if b >= 1 << 30 && b % (1 << 30) == 0 {
        format!("{} GiB", b >> 30)
    } else if b >= 1 << 20 && b % (1 << 19) == 0 {
        let v = b as f64 / (1u64 << 20) as f64;
        if v.fract() == 0.0 {
            format!("{v:.0} MiB")
        } else {
            format!("{v:.1} MiB")
        }
    } else if b >= 1 << 10 && b % (1 << 9) == 0 {
        let v = b as f64 / 1024.0;
        if v.fract() == 0.0 {
            format!("{v:.0} KiB")
        } else {
            format!("{v:.1} KiB")
        }
    } else {
        format!("{b} B")
    }
}
