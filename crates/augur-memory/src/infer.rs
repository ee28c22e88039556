//! Reading the hierarchy off the curves.
//!
//! Every curve holds, per point, the fastest undisturbed observation (see
//! [`crate::run::ns_per`]); a latency curve is further replaced by its lower monotone
//! [`envelope`] (latency cannot fall as the working set grows, and disturbances only add
//! time).
//!
//! * **TLB first** (Calibrator's separation): the TLB chase at the page stride (one line
//!   per page, cyclic random order) minus the random chase over as many lines packed
//!   together leaves the translation cost against the pages; each step (absolute, at
//!   least [`tlb_jump`]) is a TLB level: entries = the last count before the rise (a
//!   cyclic chase misses as soon as the pages exceed the entries), penalty = the first
//!   rise (what follows within the transition is the page walks' own cache misses).
//! * **Page size** ([`slot_page`]): slot chases on base pages, `n` elements each in its
//!   own slot at a random offset; below the page, slots share pages and the translation
//!   cost grows with the slot, from the page on it cannot. The page is the largest slot
//!   at which a curve's last rise ends. Without slot chases, the older reading from TLB
//!   chases at strides around the page.
//! * **Levels and latencies** (random chase, like lmbench's `lat_mem_rd`): first relieved
//!   of its translation cost (a random chase over `p` pages misses a TLB of `E` entries
//!   with probability `1 − E/p`), then cut into [`bands`], a band starting where the
//!   latency reaches [`BAND`] times the previous band's. A level is a plateau: a band
//!   without a point whose latency grows less than [`flat`] per octave holds only
//!   points of a transition (a working set the next level holds in part) and joins the
//!   band before it ([`levels`]), unless the plateaus are fewer than the OS's caches (a
//!   cache crowded out). A band's latency is the median of its points on the plateau
//!   ([`plateau_latency`]), so that what a level gains inside (translation costs, the
//!   inner level's random-replacement tail) neither starts a level nor moves its
//!   latency; the last band is main memory. A provisional capacity (for the matching)
//!   is the largest working set of its band whose latency stays below [`HELD`] of the
//!   way to the next band's first point. A miss penalty is the next level's latency
//!   minus the level's own.
//! * **Capacities** ([`fit_capacity`]): each matched level's transition is read as hit
//!   ratios, `(next − lat) / (next − hit)` with the next level's latency where its band is
//!   flattest ([`transition`]), and fitted with a model of a cyclic chase in a
//!   set-associative cache ([`hit_ratio`]: the OS's ways, physical page colours at random,
//!   LRU or random replacement, the better fit wins). The capacity is the best-fitting of
//!   the sizes a cache is built in, ways × line × a power of two ([`buildable`]); the best
//!   size on a fine grid is reported beside it. Random replacement (Zen 5's L2) keeps a
//!   share of a working set beyond the capacity, which made the midpoint rule read 1.5
//!   to 2 times the capacity. The OS's size is kept when it fits the transition within
//!   [`OS_SIZE_TOLERANCE`] of the best: on a shared host the curve overrides the OS only
//!   where it clearly contradicts it.
//! * **Matching with the OS** ([`assign`]): the OS's caches take the boundaries in order,
//!   within a factor of 16, as many as possible and then the nearest; a cache without one
//!   keeps the OS size (`from OS`, with a note), boundaries without a cache are reported
//!   in the notes.
//! * **Line size**: for the core-private levels (the OS's `shared_cpu_list`, else all but
//!   the last), the coherence line by false sharing ([`crate::coherence`]), which no
//!   prefetcher can fake. Otherwise (and as a note where it differs) [`slot_line`]: a
//!   capacity test, blind to prefetching of random order but not to an adjacent-line
//!   prefetcher's pairs: slot chases on huge pages whose elements' lines fill two thirds
//!   of the level when its line is at most the candidate and four thirds when larger.
//!   Without slot chases, Saavedra's sweep (regime 2.a → 2.b): for the arrays between
//!   this level and the next, the excess time per access over the loop overhead grows
//!   with the stride while several accesses share a line and stops growing at the line
//!   size ([`plateau_start`]). Either way the sweep's excess at one line is the strided
//!   miss cost (Saavedra's M).
//! * **Associativity** (regime 2.b → 2.c, first level only): at the smallest array above
//!   the L1, strides up to half the array, the excess falls back to the overhead once the
//!   N/s touched lines fit one set: ways = N / (first stride of the drop). No drop up to
//!   N/2 means direct mapped. Deeper levels are physically indexed (set bits above the
//!   page offset are random) and sit behind the L1, which holds such small line sets
//!   itself: their ways come from the OS.
//! * **Prefetching**: at the largest working set, a dependent chase through the lines in
//!   address order much cheaper (below half) than the random one can only come from
//!   hardware prefetching; independent strided reads add memory-level parallelism.

use crate::run::{median, round4};
pub use augur_machine_profile::memory::interp;
use augur_machine_profile::memory::{
    CacheLevel, ChaseCurve, MainMemory, MemoryProfile, Prefetch, SlotCurve, SweepCurve, TlbLevel,
    FROM_OS, MEASURED,
};
use augur_toolchain::os::OsInfo;

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

/// The share of the gap between a level's latency and the next one's below which a
/// working set still counts as held by the level (fewer than this share of its loads
/// miss). An evenly spread working set (a virtually indexed first level) misses entirely
/// past the capacity; with random set placement (physical indexing, random page colours)
/// and LRU, a cyclic working set of exactly the capacity already misses in about 55 % of
/// its loads (the lines of the sets holding more lines than ways, P(Poisson(a) ≥ a) for
/// `a` ways), 78 % at 1.25 times it and 91 % at 1.5 times; another core or process using
/// the cache adds misses at the capacity.
pub const HELD: f64 = 0.8;

/// A running median of three (the ends keep their value), then the closest
/// non-decreasing sequence (pool-adjacent-violators): latency cannot fall as the working
/// set grows, and one disturbed point is not a level.
pub fn monotone(y: &[f64]) -> Vec<f64> {
    let n = y.len();
    let m: Vec<f64> = (0..n)
        .map(|k| {
            if k == 0 || k + 1 == n {
                y[k]
            } else {
                median(&y[k - 1..=k + 1])
            }
        })
        .collect();
    // Pool adjacent violators: blocks of (sum, count).
    let mut blocks: Vec<(f64, usize)> = Vec::new();
    for v in m {
        blocks.push((v, 1));
        while blocks.len() > 1 {
            let (s1, c1) = blocks[blocks.len() - 1];
            let (s0, c0) = blocks[blocks.len() - 2];
            if s0 / c0 as f64 > s1 / c1 as f64 {
                blocks.pop();
                let last = blocks.len() - 1;
                blocks[last] = (s0 + s1, c0 + c1);
            } else {
                break;
            }
        }
    }
    blocks
        .into_iter()
        .flat_map(|(s, c)| std::iter::repeat(s / c as f64).take(c))
        .collect()
}

/// The translation cost against the number of pages touched: the TLB chase at the page
/// stride minus `cache(count)`, the cost of a chase over as many lines packed together.
/// Both through their lower envelopes (disturbances only add time), never negative.
/// Empty without a curve at that stride.
fn translation(m: &MemoryProfile, page: u64, cache: &dyn Fn(u64) -> f64) -> (Vec<u64>, Vec<f64>) {
    let Some(c) = m.tlb_chase.iter().find(|c| c.stride_bytes == page) else {
        return (vec![], vec![]);
    };
    let n = c.count.len().min(c.ns.len());
    let t = envelope(&c.ns[..n]);
    let d: Vec<f64> = (0..n).map(|k| t[k] - cache(c.count[k])).collect();
    let d = envelope(&d).into_iter().map(|v| v.max(0.0)).collect();
    (c.count[..n].to_vec(), d)
}

/// The translation cost at `pages` pages: 0 below the first count, interpolated between
/// counts, the last value beyond.
fn translation_at(t: &(Vec<u64>, Vec<f64>), pages: u64) -> f64 {
    match t.0.first() {
        None => 0.0,
        Some(&first) if pages < first => 0.0,
        Some(_) => interp(&t.0, &t.1, pages),
    }
}

/// Fills `levels`, `memory`, `tlb`, `prefetch` and `notes` of `m` from its curves and the
/// OS's values.
pub fn infer(m: &mut MemoryProfile, os: &OsInfo) {
    let mut notes = Vec::new();
    let line_os = os.line();
    let page = if os.page > 0 { os.page } else { 4096 };
    m.os_tlb_entries = os.tlb_entries;
    let (x, raw) = random_chase(m);
    let jump = tlb_jump(envelope(&raw).first().copied().unwrap_or(1.0));
    let (clean, trans, tlb_levels) = separate_translation(m, &x, &raw, page, line_os, jump);
    // Bands: a level's loads take at least twice the previous level's.
    let bands = levels(&x, &clean, &bands(&clean), os.caches.len());
    let r = Reading {
        x,
        clean,
        bands,
        trans,
        page,
        line_os,
    };
    let (found, past) = r.boundaries();
    let mem_latency = r.memory_latency();
    let (mut levels, beyond, picks) = match_caches(os, &r, &found, &past, &mut notes);
    // The coherence line of the core-private levels (false sharing, blind to
    // prefetching).
    let coherence = m
        .chase
        .iter()
        .find(|c| c.order == crate::coherence::ORDER)
        .and_then(crate::coherence::line);
    let private: Vec<bool> = (0..levels.len())
        .map(|k| match os.caches.get(k).and_then(|c| c.shared_cpus) {
            Some(n) => n == 1,
            // Unknown: every level but the last (shared on current multicore parts).
            None => k + 1 < levels.len(),
        })
        .collect();
    let lines = Lines { coherence, private };
    fit_capacities(&r, &mut levels, &picks, &found, &lines, &mut notes);
    // Miss penalties.
    for k in 0..levels.len() {
        let next = levels
            .get(k + 1)
            .map(|l| l.latency_ns)
            .unwrap_or(mem_latency);
        levels[k].miss_penalty_ns = round4(next - levels[k].latency_ns);
    }
    read_line_sizes(m, &r, &mut levels, &beyond, &lines, &mut notes);
    l1_associativity(m, &mut levels, &mut notes);
    bandwidths(m, os, &mut levels, mem_latency);
    m.tlb = tlb_reading(m, &r, &tlb_levels, jump, &mut notes);
    last_tlb_from_gather(m, page, jump, &mut notes);
    m.prefetch = prefetch(m, levels.first().map(|l| l.line_bytes).unwrap_or(line_os));
    m.levels = levels;
    m.notes = notes;
}

/// The translation cost against the pages touched: `(pages, ns)`.
type Translation = (Vec<u64>, Vec<f64>);

/// What the stages of [`infer`] read: the random chase relieved of its translation cost
/// and cut into bands, the translation cost, and the OS's page and line.
struct Reading {
    /// The random chase's working sets, bytes.
    x: Vec<u64>,
    /// Its latencies without the translation cost (lower monotone envelope).
    clean: Vec<f64>,
    /// Its bands ([`levels`]); the last one is main memory.
    bands: Vec<(usize, usize)>,
    /// The translation cost against the pages touched ([`translation`]).
    trans: Translation,
    /// The page (the OS's, 4 KiB when unknown).
    page: u64,
    /// The OS's line.
    line_os: u64,
}

/// The line facts the readings of the levels share.
struct Lines {
    /// The coherence line (false sharing), if measured.
    coherence: Option<u64>,
    /// Per level, whether it is private to a core.
    private: Vec<bool>,
}

/// The random chase: its working sets and latencies ([`monotone`]).
fn random_chase(m: &MemoryProfile) -> (Vec<u64>, Vec<f64>) {
    let empty = ChaseCurve::default();
    let rand = m
        .chase
        .iter()
        .find(|c| c.order == "random")
        .unwrap_or(&empty);
    let n_rand = rand.size_bytes.len().min(rand.ns.len());
    (
        rand.size_bytes[..n_rand].to_vec(),
        monotone(&rand.ns[..n_rand]),
    )
}

/// Calibrator's separation. The TLB levels first: the TLB chase (one line per page, a
/// cyclic random order) minus the chase over as many lines packed together; then the
/// chase without its translation cost; once more with the cleaner cache part. Returns the
/// clean chase (envelope), the translation cost and the TLB levels `(entries, penalty)`.
fn separate_translation(
    m: &MemoryProfile,
    rand_x: &[u64],
    rand_raw: &[f64],
    page: u64,
    line_os: u64,
    jump: f64,
) -> (Vec<f64>, Translation, Vec<(u64, f64)>) {
    let mut clean = envelope(rand_raw);
    let mut trans = (vec![], vec![]);
    let mut tlb_levels: Vec<(u64, f64)> = Vec::new();
    for _ in 0..2 {
        let cache = |count: u64| interp(rand_x, &clean, count * line_os);
        trans = translation(m, page, &cache);
        tlb_levels = tlb_steps(&trans, jump);
        // A random chase over W bytes touches its W/page pages in random order: a TLB of
        // E entries (LRU) holds the page of the next load with probability E/pages.
        let corrected: Vec<f64> = rand_x
            .iter()
            .zip(rand_raw)
            .map(|(&w, &t)| {
                let pages = (w / page).max(1) as f64;
                t - tlb_levels
                    .iter()
                    .map(|&(e, pen)| pen * (1.0 - e as f64 / pages).max(0.0))
                    .sum::<f64>()
            })
            .collect();
        clean = envelope(&corrected);
    }
    (clean, trans, tlb_levels)
}

impl Reading {
    /// Per boundary between bands, `(size, latency)`: the band's latency on its plateau
    /// and the largest working set whose latency stays below [`HELD`] of the way to the
    /// next band's first point; and that next latency (just past the boundary).
    fn boundaries(&self) -> (Vec<(u64, f64)>, Vec<f64>) {
        let (x, clean, bands) = (&self.x, &self.clean, &self.bands);
        let mut found: Vec<(u64, f64)> = Vec::new();
        let mut past: Vec<f64> = Vec::new();
        for k in 0..bands.len().saturating_sub(1) {
            let h = plateau_latency(x, clean, bands[k]);
            let (from, to) = bands[k];
            let next = clean[bands[k + 1].0];
            let held = h + HELD * (next - h);
            let at = (from..=to).rfind(|&i| clean[i] <= held).unwrap_or(to);
            found.push((x[at], h));
            past.push(next);
        }
        (found, past)
    }

    /// Main memory's latency: the median of the last band.
    fn memory_latency(&self) -> f64 {
        match self.bands.last() {
            Some(&(from, to)) if !self.bands.is_empty() => median(&self.clean[from..=to]),
            _ => f64::NAN,
        }
    }
}

/// The cache levels (the OS's, or one per boundary without them) matched with the
/// boundaries ([`assign`]): a matched level takes the boundary's size and latency, one
/// without keeps the OS size (with a note); boundaries without a level get a note.
/// Returns the levels, per level the latency just past its boundary (NaN without) and
/// the boundary each one took.
fn match_caches(
    os: &OsInfo,
    r: &Reading,
    found: &[(u64, f64)],
    past: &[f64],
    notes: &mut Vec<String>,
) -> (Vec<CacheLevel>, Vec<f64>, Vec<Option<usize>>) {
    let mut levels: Vec<CacheLevel> = Vec::new();
    let mut beyond: Vec<f64> = Vec::new();
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
    let os_sizes: Vec<Option<u64>> = wanted.iter().map(|w| w.2).collect();
    let found_sizes: Vec<u64> = found.iter().map(|f| f.0).collect();
    let picks = assign(&os_sizes, &found_sizes);
    let mut borrowed: Vec<usize> = Vec::new();
    for (i, (name, level, os_size, os_line, os_ways)) in wanted.iter().enumerate() {
        let pick = picks[i].unwrap_or(usize::MAX);
        let (size, size_source, latency) = if pick < found.len() {
            beyond.push(past[pick]);
            (found[pick].0, MEASURED, found[pick].1)
        } else {
            // Its size is the OS's, no step's: the slot chases cannot bracket it.
            beyond.push(f64::NAN);
            let sz = os_size.unwrap_or(0);
            let below = levels.last().map_or(0, |l| l.size_bytes);
            match share_step(found, &picks, &borrowed, (below, sz)) {
                Some(k) => {
                    borrowed.push(k);
                    notes.push(format!(
                        "{name}: no latency step near the OS size {}; size from OS, latency {:.1} ns from the step at {} (the share of it this core's loads find)",
                        human(sz),
                        found[k].1,
                        human(found[k].0)
                    ));
                    (sz, FROM_OS, found[k].1)
                }
                None => {
                    notes.push(format!(
                        "{name}: no latency step near the OS size {}; size from OS",
                        human(sz)
                    ));
                    (sz, FROM_OS, interp(&r.x, &r.clean, sz / 2))
                }
            }
        };
        levels.push(CacheLevel {
            name: name.clone(),
            level: *level,
            size_bytes: size,
            size_source: size_source.into(),
            line_bytes: os_line.unwrap_or(r.line_os),
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
        if !picks.contains(&Some(k)) && !borrowed.contains(&k) {
            notes.push(format!(
                "a latency step at {} matches no cache the OS reports",
                human(f.0)
            ));
        }
    }
    (levels, beyond, picks)
}

/// The latency step a level the OS reports far larger than any step can take its
/// latency from: the first step that no level took, above the level before (`below`)
/// and below the OS's size. A guest given a share of a socket's last level sees the whole
/// socket's size in `/sys` (480 MiB on a 2-vCPU Xeon) while its loads find their lines
/// there up to a few MiB (a step at 8 MiB, 33 ns on the plateau before it); read at half
/// the OS's size, the latency would be main memory's (200 ns, a miss penalty below zero).
fn share_step(
    found: &[(u64, f64)],
    picks: &[Option<usize>],
    borrowed: &[usize],
    (below, os_size): (u64, u64),
) -> Option<usize> {
    (0..found.len()).find(|&k| {
        !picks.contains(&Some(k))
            && !borrowed.contains(&k)
            && found[k].0 > below
            && found[k].0 < os_size
    })
}

/// Capacities: the hit-ratio model fitted to each measured level's transition, rounded
/// to ways x line x a power of two (the continuous fit in a note).
fn fit_capacities(
    r: &Reading,
    levels: &mut [CacheLevel],
    picks: &[Option<usize>],
    found: &[(u64, f64)],
    lines: &Lines,
    notes: &mut Vec<String>,
) {
    for (i, l) in levels.iter_mut().enumerate() {
        let Some(k) = picks[i].filter(|_| l.size_source == MEASURED) else {
            continue;
        };
        let Some(points) = transition(&r.x, &r.clean, &r.bands, k, found[k].1) else {
            continue;
        };
        let ways = l.ways.unwrap_or(8) as u64;
        let line = lines
            .coherence
            .filter(|_| lines.private[i])
            .or(l.os_line_bytes)
            .unwrap_or(r.line_os);
        let lo = points.iter().map(|p| p.0).fold(f64::INFINITY, f64::min) / 2.0;
        let hi = 2.0 * points.iter().map(|p| p.0).fold(0.0, f64::max);
        let (w, pg) = (ways as f64, r.page as f64);
        // The size: the best-fitting size a cache can be built in; the continuous fit
        // for the report.
        let built = fit_capacity(&points, w, pg, &buildable(lo, hi, ways * line));
        let free = fit_capacity(&points, w, pg, &capacity_grid(lo, hi));
        if let (Some(b), Some(f)) = (built, free) {
            let size = b.bytes as u64;
            let name = |p: Policy| match p {
                Policy::Lru => "LRU",
                Policy::Random => "random-replacement",
            };
            notes.push(format!(
                "{}: capacity {} ({} model, rms {:.3} in hit ratio over {} points; the best free size {:.0} KiB, {} model, rms {:.3})",
                l.name,
                human(size),
                name(b.policy),
                b.mse.sqrt(),
                points.len(),
                f.bytes / 1024.0,
                name(f.policy),
                f.mse.sqrt()
            ));
            l.size_bytes = size;
            let os = l.os_size_bytes.filter(|&os| os != size);
            if let Some((os, rms)) = os_size_fits(os, &points, w, pg, b.mse.sqrt()) {
                notes.push(format!(
                    "{}: the OS's {} fits the curve about as well (rms {:.3}); the OS size is used",
                    l.name,
                    human(os),
                    rms
                ));
                l.size_bytes = os;
            }
        }
    }
}

/// How much worse (root mean squared error in hit ratio) the OS's size may fit a level's
/// transition than the best buildable size and still be the size used. A curve on a
/// shared, noisy host is ambiguous over a factor of two (a neighbour's working set, a
/// random-replacement tail), so the measurement overrides the OS only when it clearly
/// contradicts it.
pub const OS_SIZE_TOLERANCE: f64 = 0.05;

/// The OS's size of a level and its fit's rms, when it differs from the best fit and
/// fits the transition `points` within [`OS_SIZE_TOLERANCE`] of `best_rms`.
fn os_size_fits(
    os: Option<u64>,
    points: &[(f64, f64)],
    ways: f64,
    page: f64,
    best_rms: f64,
) -> Option<(u64, f64)> {
    let os = os.filter(|&s| s > 0)?;
    let fit = fit_capacity(points, ways, page, &[os as f64])?;
    let rms = fit.mse.sqrt();
    (rms <= best_rms + OS_SIZE_TOLERANCE).then_some((os, rms))
}

/// Line sizes: the slot chases' capacity test, else the sweep's plateau; the coherence
/// line wins for the core-private levels (with a note where the others read more). The
/// sweep's excess at the line is the strided miss cost.
fn read_line_sizes(
    m: &MemoryProfile,
    r: &Reading,
    levels: &mut [CacheLevel],
    beyond: &[f64],
    lines: &Lines,
    notes: &mut Vec<String>,
) {
    let sizes: Vec<u64> = levels.iter().map(|l| l.size_bytes).collect();
    for k in 0..levels.len() {
        let lo = sizes[k];
        let hi = sizes.get(k + 1).map(|&s| s / 2).unwrap_or(u64::MAX);
        let lo = if k + 1 == sizes.len() { 2 * lo - 1 } else { lo };
        let (s, e) = median_excess(&m.sweep, lo, hi, 1024);
        let next = beyond[k];
        let slot = slot_line(
            &m.slot_chase,
            levels[k].size_bytes,
            levels[k].latency_ns,
            next,
            r.page,
            &|p| translation_at(&r.trans, p),
        );
        let read = match slot {
            Some(b) => Some(b),
            None if levels[k].size_source == MEASURED
                && e.iter().copied().fold(0.0, f64::max) > 0.02
                && m.slot_chase.is_empty() =>
            {
                plateau_start(&s, &e)
            }
            None => None,
        };
        // A level supplies whole lines of the level inside it: a reading below the inner
        // level's measured line is a disturbed one.
        let inner =
            (k > 0 && levels[k - 1].line_source == MEASURED).then(|| levels[k - 1].line_bytes);
        let read = read.filter(|&b| inner.map_or(true, |i| b >= i));
        let read = match (lines.coherence.filter(|_| lines.private[k]), read) {
            (Some(c), Some(b)) if b != c => {
                notes.push(format!(
                    "{}: the stride sweep or capacity test reads {} (lines fetched together, e.g. an adjacent-line prefetcher's pairs); the coherence line is {}",
                    levels[k].name,
                    human(b),
                    human(c)
                ));
                Some(c)
            }
            (Some(c), _) => Some(c),
            (None, reading) => reading,
        };
        match read {
            Some(b) => {
                levels[k].line_bytes = b;
                levels[k].line_source = MEASURED.into();
                let at = s.iter().position(|&v| v == b).map(|i| e[i]);
                levels[k].strided_miss_ns = at.map(round4);
            }
            None if k + 1 == levels.len() && k > 0 => notes.push(format!(
                "{}: line size from OS (the slot chases read the levels before the last, whose chases run from memory)",
                levels[k].name
            )),
            None => notes.push(format!(
                "{}: no line-size reading (the slot chases do not bracket it, or its size is not measured); line size from OS",
                levels[k].name
            )),
        }
    }
}

/// Associativity of the first level from the sweep ([`l1_ways`]) where the OS does not
/// report it or agrees; the OS's where they differ (a note gives the sweep's reading: a
/// 12-way L1 read 8 on a Zen 5 guest, 64 on a Xeon guest, in every profile); the other
/// levels' are the OS's (with a note).
fn l1_associativity(m: &MemoryProfile, levels: &mut [CacheLevel], notes: &mut Vec<String>) {
    if let Some(l1) = levels.first_mut() {
        match (l1_ways(&m.sweep, l1.size_bytes, l1.line_bytes), l1.os_ways) {
            (Some(w), Some(os)) if w != os => notes.push(format!(
                "{}: the stride sweep reads {w} ways, the OS says {os}: the OS's are kept (the \
                 sweep's widest strides read a few lines whose misses an out-of-order core \
                 overlaps, and a drop back reads a power of two)",
                l1.name
            )),
            (Some(w), _) => {
                l1.ways = Some(w);
                l1.ways_source = MEASURED.into();
            }
            (None, _) => notes.push(format!(
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
}

/// Bandwidths: each level's triad with its arrays ([`crate::run::level_stream_bytes`]); main
/// memory's with the largest arrays (and its latency).
fn bandwidths(m: &mut MemoryProfile, os: &OsInfo, levels: &mut [CacheLevel], mem_latency: f64) {
    let triad = |bytes: u64| {
        m.streams
            .iter()
            .find(|p| p.kernel == "triad" && p.array_bytes == bytes)
            .map(|p| p.gbs)
    };
    for (k, l) in levels.iter_mut().enumerate().take(os.caches.len()) {
        l.bandwidth_gbs = triad(crate::run::level_stream_bytes(os, k));
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
        page_fault_ns: m.memory.page_fault_ns,
    };
}

/// The TLB levels with the page size: from the slot chases, else from the sweep, else
/// the OS's (with notes).
fn tlb_reading(
    m: &MemoryProfile,
    r: &Reading,
    tlb_levels: &[(u64, f64)],
    jump: f64,
    notes: &mut Vec<String>,
) -> Vec<TlbLevel> {
    let page = r.page;
    let (page_bytes, page_source) = match slot_page(&m.slot_chase, jump) {
        Some(p) => (p, MEASURED),
        None => match sweep_page(m, &r.x, &r.clean, r.line_os, jump) {
            Some(p) => (p, MEASURED),
            None => {
                notes.push(
                    "TLB: the translation cost does not show where it stops growing; page size from OS"
                        .into(),
                );
                (page, FROM_OS)
            }
        },
    };
    if page_bytes != page {
        notes.push(format!(
            "TLB: the translation cost stops growing at {}, the OS page is {}",
            human(page_bytes),
            human(page)
        ));
    }
    let tlb: Vec<TlbLevel> = tlb_levels
        .iter()
        .enumerate()
        .map(|(k, &(entries, pen))| TlbLevel {
            name: format!("L{} DTLB", k + 1),
            entries,
            page_bytes,
            page_source: page_source.into(),
            reach_bytes: entries * page_bytes,
            miss_penalty_ns: round4(pen),
        })
        .collect();
    if tlb.is_empty() && !r.trans.0.is_empty() {
        notes.push("TLB: no step in the translation cost up to the largest count".into());
    }
    tlb
}

/// The last TLB level's entries from the TLB gather (one line in each of `count` pages
/// read independently, in a random order) where it shows a step: the step's lower end,
/// the most pages it reads before page walks begin (the model charges walks from this
/// level's reach on). The chase reads the levels and their penalties, but its last step
/// lies where the first level's misses and the cache's share of a chase already rise: it
/// moved between 1,024 and 1,536 entries on one Xeon guest from one characterization to
/// the next and between 1,536 and 3,072 on a Zen 5, where the gather's step began at
/// 1,536 pages in 17 of 17 complete characterizations of that Xeon (Zen 4: 2,048 in 4 of
/// 4; Zen 5: 4,096 in 8 of 8). Every host's kept runs priced with the kept profiles so
/// mended: the same figures but two (`measurements/xeon-2026-12-04b/s78/README.md`).
/// Kept as it is with fewer than two levels or no step in the gather.
fn last_tlb_from_gather(m: &mut MemoryProfile, page: u64, jump: f64, notes: &mut Vec<String>) {
    if m.tlb.len() < 2 {
        return;
    }
    let Some(g) = m.tlb_gather.iter().find(|c| c.stride_bytes == page) else {
        return;
    };
    let n = g.count.len().min(g.ns.len());
    let x: Vec<f64> = g.count[..n].iter().map(|&c| c as f64).collect();
    let Some(step) = steps(&x, &envelope(&g.ns[..n]), &abs_gain, jump, 2.0 * jump)
        .into_iter()
        .next()
    else {
        return;
    };
    let entries = g.count[step.first];
    // Steps of the chase between the first level and the walks are one level's: the
    // first level's misses and the cache's share of the chase rising at different counts.
    let merged: Vec<TlbLevel> = m.tlb.drain(1..m.tlb.len() - 1).collect();
    let Some(last) = m.tlb.last_mut() else {
        return;
    };
    let read: Vec<String> = merged
        .iter()
        .chain(std::iter::once(&*last))
        .map(|l| l.entries.to_string())
        .collect();
    if merged.is_empty() && last.entries == entries {
        return;
    }
    last.miss_penalty_ns =
        round4(last.miss_penalty_ns + merged.iter().map(|l| l.miss_penalty_ns).sum::<f64>());
    last.name = "L2 DTLB".into();
    last.entries = entries;
    last.reach_bytes = entries * last.page_bytes;
    notes.push(format!(
        "L2 DTLB: {entries} entries, where the independent reads' page walks begin (the chase's steps at {} entries)",
        read.join(", ")
    ));
}

/// Matches levels (the OS's sizes, in order) with boundaries (measured sizes, in order):
/// order-preserving, each boundary within a factor of 16 of its level's size, as many
/// matches as possible and then the smallest sum of log2 distances. A level without an
/// OS size takes the boundary of its rank.
pub fn assign(levels: &[Option<u64>], found: &[u64]) -> Vec<Option<usize>> {
    // best(i, j): (matches, -distance, picks) for levels i.. over boundaries j..
    fn best(
        levels: &[Option<u64>],
        found: &[u64],
        i: usize,
        j: usize,
    ) -> (usize, f64, Vec<Option<usize>>) {
        if i == levels.len() {
            return (0, 0.0, vec![]);
        }
        let (m, d, mut p) = best(levels, found, i + 1, j);
        p.insert(0, None);
        let mut out = (m, d, p);
        for k in j..found.len() {
            let dist = match levels[i] {
                Some(sz) => ((found[k] as f64) / (sz as f64)).log2().abs(),
                None if k == i => 0.0,
                None => continue,
            };
            if dist > 4.0 {
                continue;
            }
            let (m, d, mut p) = best(levels, found, i + 1, k + 1);
            let cand = (m + 1, d - dist);
            if cand.0 > out.0 || (cand.0 == out.0 && cand.1 > out.1 + 1e-12) {
                p.insert(0, Some(k));
                out = (cand.0, cand.1, p);
            }
        }
        out
    }
    best(levels, found, 0, 0).2
}

/// The lower monotone envelope: each point replaced by the smallest value at or after it.
/// Disturbances only add time and latency cannot fall as the working set grows, so this is
/// the non-decreasing curve closest to the undisturbed one.
pub fn envelope(y: &[f64]) -> Vec<f64> {
    let mut out = y.to_vec();
    for k in (0..out.len().saturating_sub(1)).rev() {
        if out[k + 1] < out[k] || out[k].is_nan() {
            out[k] = out[k + 1];
        }
    }
    out
}

/// The bands of a non-decreasing latency curve, as `(first, last)` index ranges: a band
/// starts at the first point that takes at least [`BAND`] times the latency of the
/// previous band's (median of its first three points).
pub fn bands(y: &[f64]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut from = 0;
    for k in 1..y.len() {
        let base = median(&y[from..=k.min(from + 2).min(k - 1).max(from)]);
        if y[k] >= BAND * base {
            out.push((from, k - 1));
            from = k;
        }
    }
    if !y.is_empty() {
        out.push((from, y.len() - 1));
    }
    out
}

/// The growth of latency per octave of working set below which a point is on a plateau
/// (a level): the square root of [`BAND`], so that a level's latency takes more than two
/// octaves to grow by the factor between levels. What a level's latency gains with the
/// working set (translation costs: page walks that hit in the caches; a few misses of a
/// cache with random replacement or placement) stays below it; a capacity transition,
/// where most of the factor is crossed within an octave or two, does not.
pub fn flat() -> f64 {
    BAND.sqrt()
}

/// The growth per octave from point `i` of `y` over working sets `x` to its flatter
/// neighbour (infinite for a single point).
pub fn flatness(x: &[u64], y: &[f64], i: usize) -> f64 {
    let g = |a: usize, b: usize| {
        (y[b] / y[a].max(1e-12)).powf(1.0 / (x[b] as f64 / x[a] as f64).log2().max(1e-12))
    };
    let left = if i > 0 { g(i - 1, i) } else { f64::INFINITY };
    let right = if i + 1 < y.len().min(x.len()) {
        g(i, i + 1)
    } else {
        f64::INFINITY
    };
    left.min(right)
}

/// The flattest point of a band (the least [`flatness`], the first of equals): where the
/// level's latency is read when it is not (yet) crossing a transition.
pub fn plateau(x: &[u64], y: &[f64], band: (usize, usize)) -> usize {
    let (from, to) = band;
    (from..=to)
        .min_by(|&a, &b| flatness(x, y, a).total_cmp(&flatness(x, y, b)))
        .unwrap_or(from)
}

/// A band's latency: the median of its points on a plateau ([`flat`]), else its flattest
/// point's latency.
pub fn plateau_latency(x: &[u64], y: &[f64], band: (usize, usize)) -> f64 {
    let (from, to) = band;
    let on: Vec<f64> = (from..=to)
        .filter(|&i| flatness(x, y, i) <= flat())
        .map(|i| y[i])
        .collect();
    if on.is_empty() {
        y[plateau(x, y, band)]
    } else {
        median(&on)
    }
}

/// The levels among the [`bands`] of a latency curve with `caches` caches known (the
/// OS's; 0 when unknown). A band other than the last (memory) without a point on a
/// plateau ([`flat`]) holds only points of a transition: working sets sampled while a
/// level fills up (the next level holds them in part), or the start of a plateau the
/// threshold of [`bands`] cut off. It joins the band before it, whose transition it
/// belongs to, as long as the bands with a plateau account for all the caches; when
/// they do not, a level without a plateau is a cache crowded out (e.g. a shared last
/// level another tenant fills), and the bands stay as they are. The first band is
/// always a level.
pub fn levels(
    x: &[u64],
    y: &[f64],
    bands: &[(usize, usize)],
    caches: usize,
) -> Vec<(usize, usize)> {
    let on_plateau =
        |&(from, to): &(usize, usize)| (from..=to).any(|i| flatness(x, y, i) <= flat());
    let last = bands.len().saturating_sub(1);
    let plateaus = bands[..last].iter().filter(|b| on_plateau(b)).count();
    if caches > 0 && plateaus < caches {
        return bands.to_vec();
    }
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (k, b) in bands.iter().enumerate() {
        match out.last_mut() {
            Some(prev) if k < last && !on_plateau(b) => prev.1 = b.1,
            _ => out.push(*b),
        }
    }
    out
}

/// The factor of latency between neighbouring levels (measured on an AMD EPYC: 3 from L1
/// to L2, 2.5 to 3 from L2 to L3, 10 to memory; larger on most other machines).
pub const BAND: f64 = 2.5;

/// The TLB levels read off the translation cost against pages: `(entries, penalty)` per
/// step. A TLB misses as soon as the pages exceed its entries (the chase is cyclic), so
/// the entries are the last count before the rise and the penalty the first rise over
/// the plateau (what follows within the transition is the page walks' own cache misses).
fn tlb_steps(t: &(Vec<u64>, Vec<f64>), jump: f64) -> Vec<(u64, f64)> {
    let (count, d) = t;
    let x: Vec<f64> = count.iter().map(|&v| v as f64).collect();
    let ts = steps(&x, d, &abs_gain, jump, 2.0 * jump);
    let mut from = 0;
    let mut out = Vec::new();
    for (k, s) in ts.iter().enumerate() {
        let below = median(&d[from..=s.first]);
        let to = ts.get(k + 1).map(|n| n.first).unwrap_or(d.len() - 1);
        let settled = median(&d[s.upper..=to.max(s.upper)]);
        let above = d[s.first + 1].min(settled);
        out.push((count[s.first], above - below));
        from = s.upper;
    }
    out
}

/// The line size of a level from the slot chases (a capacity test, blind to prefetching:
/// the order is random). A chase over `n` elements, one per slot of `s` bytes at a
/// random offset, keeps `n · min(s, line)` bytes of lines in the cache. With
/// `n = 2·size / (3·l)` and slots of `4l` and `8l` (the fastest of them counts), the
/// lines fill two thirds of the level when its line is at most `l` (the loads hit) and
/// four thirds or more when it is larger (they miss). The line is the smallest `l` whose test passes, and every larger one's,
/// after a smaller one fails; `None` when the curves do not bracket it. A point's time
/// is first relieved of its translation cost `tlb(pages)`; it passes when it stays below
/// [`HELD`] of the gap from `latency` (the level's) to `next` (the next level's).
pub fn slot_line(
    slots: &[SlotCurve],
    size: u64,
    latency: f64,
    next: f64,
    page: u64,
    tlb: &dyn Fn(u64) -> f64,
) -> Option<u64> {
    if next.partial_cmp(&latency) != Some(std::cmp::Ordering::Greater) || size == 0 {
        return None;
    }
    let held = latency + HELD * (next - latency);
    // Some(pass) for a candidate line, None when not measured.
    let test = |l: u64| -> Option<bool> {
        let want = 2.0 * size as f64 / (3.0 * l as f64);
        let c = slots
            .iter()
            .filter(|c| c.pages == "huge" && c.count > 0)
            .map(|c| (c, (c.count as f64 / want).ln().abs()))
            .filter(|(_, d)| *d <= 1.25f64.ln())
            .min_by(|a, b| a.1.total_cmp(&b.1))?
            .0;
        // From the line on, every slot holds the same footprint: the fastest of 4 and 8
        // candidate lines (disturbances only add time). Both are at least twice the line
        // when the line is up to twice the candidate, so the elements do not share lines.
        let best = c
            .slot_bytes
            .iter()
            .zip(&c.ns)
            .filter(|(&s, _)| s == 4 * l || s == 8 * l)
            .map(|(&s, &t)| {
                let pages = if s < page {
                    c.count * s / page
                } else {
                    c.count
                };
                t - tlb(pages)
            })
            .fold(f64::NAN, f64::min);
        (!best.is_nan()).then_some(best <= held)
    };
    let cands: Vec<(u64, bool)> = (3..=9)
        .map(|k| 1u64 << k)
        .filter_map(|l| test(l).map(|p| (l, p)))
        .collect();
    (1..cands.len())
        .find_map(|k| (!cands[k - 1].1 && cands[k..].iter().all(|c| c.1)).then_some(cands[k].0))
}

/// The page size from the slot chases on base pages: while slots are smaller than a
/// page, elements share pages and the translation cost grows with the slot; from the
/// page size on it cannot grow any more (one page per element). Each curve's last rise
/// (at least `jump` and a quarter of the curve's whole rise) ends at or before the page
/// (earlier when the TLB is already missing throughout); the page is the median end over
/// the curves that rise and then stay flat for two more slots (the upper one of two).
pub fn slot_page(slots: &[SlotCurve], jump: f64) -> Option<u64> {
    let mut reads: Vec<u64> = Vec::new();
    for c in slots.iter().filter(|c| c.pages == "base") {
        let n = c.slot_bytes.len().min(c.ns.len());
        if n < 4 {
            continue;
        }
        let y = monotone(&c.ns[..n]);
        let total = y[n - 1] - y[0];
        if total < 2.0 * jump {
            continue;
        }
        let sig = jump.max(0.25 * total);
        let Some(end) = (1..n).rfind(|&k| y[k] - y[k - 1] >= sig) else {
            continue;
        };
        if end + 2 >= n {
            continue;
        }
        reads.push(c.slot_bytes[end]);
    }
    // The median reading: a curve that saturates early reads less, a disturbed one more.
    reads.sort_unstable();
    reads.get(reads.len() / 2).copied()
}

/// The older page-size reading from the TLB chases at strides around the page (used when
/// there are no slot chases): the smallest stride from which the count before the largest
/// step of the translation cost stops falling.
fn sweep_page(
    m: &MemoryProfile,
    rand_x: &[u64],
    clean: &[f64],
    line: u64,
    jump: f64,
) -> Option<u64> {
    let cache_part = |count: u64| interp(rand_x, clean, count * line);
    let last_step: Vec<(u64, u64)> = m
        .tlb_chase
        .iter()
        .filter_map(|c| {
            let x: Vec<f64> = c.count.iter().map(|&v| v as f64).collect();
            let d: Vec<f64> = c
                .count
                .iter()
                .zip(&c.ns)
                .map(|(&n, &t)| t - cache_part(n))
                .collect();
            let ts = steps(&x, &d, &abs_gain, jump, 2.0 * jump);
            let big = ts
                .iter()
                .max_by(|a, b| (d[a.upper] - d[a.first]).total_cmp(&(d[b.upper] - d[b.first])))?;
            Some((c.stride_bytes, c.count[big.at]))
        })
        .collect();
    let k = (0..last_step.len()).find(|&k| {
        last_step[k + 1..]
            .iter()
            .all(|&(_, c)| c as f64 >= last_step[k].1 as f64 / 1.5)
    })?;
    (last_step.len() >= 3 && k + 1 < last_step.len()).then_some(last_step[k].0)
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

/// The replacement policies of the capacity model ([`hit_ratio`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Least recently used: a cyclic chase over more lines than a set's ways misses on
    /// every load of that set.
    Lru,
    /// A random victim: a line survives the other lines' misses of its set with
    /// probability `1 − 1/ways` each, so part of an oversized set still hits.
    Random,
}

/// The hit ratio of one set of `ways` ways that a cyclic chase runs through `k` lines of.
/// LRU: 1 up to the ways, then 0. Random replacement: a line survives the `(k − 1)(1 − h)`
/// misses between two of its loads with probability `h = (1 − 1/ways)^((k − 1)(1 − h))`,
/// the smaller root of which is found by bisection (the other, 1, is not stable).
pub fn set_hit(k: f64, ways: f64, policy: Policy) -> f64 {
    if k <= ways {
        return 1.0;
    }
    match policy {
        Policy::Lru => 0.0,
        Policy::Random => {
            let a = (k - 1.0) * -(1.0 - 1.0 / ways.max(1.0 + 1e-9)).ln();
            if a <= 1.0 {
                return 1.0;
            }
            let (mut lo, mut hi) = (0.0f64, 1.0f64);
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if mid < (-a * (1.0 - mid)).exp() {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            lo
        }
    }
}

/// The hit ratio of a cyclic chase over `f` bytes of lines (one load per line) in a cache
/// of `c` bytes with `ways` ways. When a way spans at most a page (`c / ways <= page`),
/// the page offset picks the set and every set holds the same share, `ways · f / c` lines.
/// Beyond, the bits above the page offset come from the physical page, at random: a set
/// receives one line from each page of its colour, Poisson(`ways · f / c`) lines, and a
/// line's chance to hit is the average of [`set_hit`] weighted by the lines per set.
pub fn hit_ratio(f: f64, c: f64, ways: f64, page: f64, policy: Policy) -> f64 {
    hit_ratio_by(f, c, ways, page, policy, &|k| {
        set_hit(k as f64, ways, policy)
    })
}

/// [`hit_ratio`] with the hit ratio of a set of `k` lines from `set` (a table).
fn hit_ratio_by(
    f: f64,
    c: f64,
    ways: f64,
    page: f64,
    policy: Policy,
    set: &dyn Fn(usize) -> f64,
) -> f64 {
    let lam = ways * f / c;
    if c / ways <= page || lam <= 0.0 {
        return set_hit(lam, ways, policy);
    }
    let kmax = (lam + 10.0 * lam.sqrt() + 20.0).ceil() as usize;
    let mut logp = -lam; // ln P(k = 0)
    let mut sum = 0.0;
    for k in 1..=kmax {
        logp += lam.ln() - (k as f64).ln();
        sum += logp.exp() * k as f64 * set(k);
    }
    (sum / lam).min(1.0)
}

/// A capacity fitted to a latency transition: the size, the policy whose model fits
/// best, and its mean squared error of the hit ratios.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fit {
    /// The fitted capacity, bytes (not rounded).
    pub bytes: f64,
    /// The policy of the better model.
    pub policy: Policy,
    /// Mean squared error of the hit ratios.
    pub mse: f64,
}

/// Steps per octave of the capacity grid of [`fit_capacity`].
pub const FIT_STEPS: u32 = 64;

/// The mean squared error within which capacities count as fitting equally well (a
/// sharp step between two sampled sizes fits every capacity between them).
pub const FIT_TIE: f64 = 0.002;

/// Fits a cache's capacity to a latency transition: `points` are `(working set, hit
/// ratio)`, the hit ratio read off the latency as `(next − lat) / (next − hit)`. For each
/// [`Policy`], the capacity among `candidates` with the least mean squared error of
/// [`hit_ratio`]; candidates within [`FIT_TIE`] of the least fit equally well, and the
/// estimate is the geometric middle of their range. The policy with the smaller error
/// wins. `None` without points or candidates.
pub fn fit_capacity(
    points: &[(f64, f64)],
    ways: f64,
    page: f64,
    candidates: &[f64],
) -> Option<Fit> {
    let hi = points.iter().map(|p| p.0).fold(0.0, f64::max);
    let lo = candidates.iter().copied().fold(f64::INFINITY, f64::min);
    if points.is_empty() || lo.is_nan() || lo <= 0.0 || lo.is_infinite() {
        return None;
    }
    // The largest set: Poisson(ways · hi / lo), far into its tail.
    let lam = ways * hi / lo;
    let kmax = (lam + 10.0 * lam.sqrt() + 21.0).ceil() as usize;
    let mut best: Option<Fit> = None;
    for policy in [Policy::Lru, Policy::Random] {
        let table: Vec<f64> = (0..=kmax)
            .map(|k| set_hit(k as f64, ways, policy))
            .collect();
        let set = |k: usize| table.get(k).copied().unwrap_or(0.0);
        let errs: Vec<(f64, f64)> = candidates
            .iter()
            .map(|&c| {
                let e = points
                    .iter()
                    .map(|&(f, h)| (hit_ratio_by(f, c, ways, page, policy, &set) - h).powi(2))
                    .sum::<f64>()
                    / points.len() as f64;
                (c, e)
            })
            .collect();
        let min = errs.iter().map(|e| e.1).fold(f64::INFINITY, f64::min);
        let tied: Vec<f64> = errs
            .iter()
            .filter(|e| e.1 <= min + FIT_TIE)
            .map(|e| e.0)
            .collect();
        let (a, b) = (tied[0], tied[tied.len() - 1]);
        let fit = Fit {
            bytes: (a * b).sqrt(),
            policy,
            mse: min,
        };
        if best.map_or(true, |b| fit.mse < b.mse) {
            best = Some(fit);
        }
    }
    best
}

/// A grid of [`FIT_STEPS`] capacities per octave from `lo` to `hi`.
pub fn capacity_grid(lo: f64, hi: f64) -> Vec<f64> {
    let n = ((hi / lo).log2() * FIT_STEPS as f64).ceil().max(0.0) as i32;
    (0..=n)
        .map(|i| lo * 2f64.powf(i as f64 / FIT_STEPS as f64))
        .collect()
}

/// The sizes caches are built in between `lo` and `hi`: `unit · 2^k` (a power of two of
/// sets, `unit` = ways × line).
pub fn buildable(lo: f64, hi: f64, unit: u64) -> Vec<f64> {
    let mut out = Vec::new();
    let mut c = unit.max(1) as f64;
    while c <= hi {
        if c >= lo {
            out.push(c);
        }
        c *= 2.0;
    }
    out
}

/// The hit-ratio points of the transition after band `k` of a non-decreasing latency
/// curve `y` over working sets `x`: the level's latency is `hit`; the next level's is
/// read at the next band's [`plateau`] (the point with the least growth per octave to a
/// neighbour: there the transition is over and the next level not yet full), and the
/// points run from the band's start to there. `None` for the last band.
pub fn transition(
    x: &[u64],
    y: &[f64],
    bands: &[(usize, usize)],
    k: usize,
    hit: f64,
) -> Option<Vec<(f64, f64)>> {
    let (from, _) = *bands.get(k)?;
    let &(nf, nt) = bands.get(k + 1)?;
    let end = plateau(x, y, (nf, nt));
    let next = y[end];
    if next <= hit {
        return None;
    }
    Some(
        (from..=end)
            .map(|i| (x[i] as f64, ((next - y[i]) / (next - hit)).clamp(0.0, 1.0)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use augur_machine_profile::memory::TlbCurve;

    #[test]
    fn the_last_tlb_level_takes_the_gathers_step() {
        let level = |name: &str, entries: u64| TlbLevel {
            name: name.into(),
            entries,
            page_bytes: 4096,
            page_source: "measured".into(),
            reach_bytes: entries * 4096,
            miss_penalty_ns: 1.0,
        };
        // The Xeon guest of 2026-12-04: the chase read 1,024 entries; the gather's reads
        // find their translation up to 1,536 pages, begin to walk at 2,048 and miss from
        // 3,072 on.
        let mut m = MemoryProfile {
            tlb: vec![level("L1 DTLB", 96), level("L2 DTLB", 1024)],
            tlb_gather: vec![TlbCurve {
                stride_bytes: 4096,
                count: vec![256, 512, 768, 1024, 1536, 2048, 3072, 4096, 8192],
                ns: vec![0.38, 0.35, 0.47, 0.50, 0.50, 1.08, 5.86, 6.23, 7.34],
            }],
            ..Default::default()
        };
        let mut notes = vec![];
        last_tlb_from_gather(&mut m, 4096, 0.3, &mut notes);
        assert_eq!(m.tlb[1].entries, 1536);
        assert_eq!(m.tlb[1].reach_bytes, 1536 * 4096);
        assert_eq!(m.tlb[0].entries, 96);
        assert!(notes[0].contains("1536 entries"), "{notes:?}");
        // A chase that read three levels: the ones between the first and the walks merge.
        let mut three = MemoryProfile {
            tlb: vec![
                level("L1 DTLB", 96),
                level("L2 DTLB", 1024),
                level("L3 DTLB", 1536),
            ],
            tlb_gather: m.tlb_gather.clone(),
            ..Default::default()
        };
        last_tlb_from_gather(&mut three, 4096, 0.3, &mut notes);
        assert_eq!(three.tlb.len(), 2);
        assert_eq!(
            (three.tlb[1].name.as_str(), three.tlb[1].entries),
            ("L2 DTLB", 1536)
        );
        assert_eq!(three.tlb[1].miss_penalty_ns, 2.0);
        // One level only, or a gather without a step: the chase's reading stands.
        let mut one = MemoryProfile {
            tlb: vec![level("L1 DTLB", 64)],
            tlb_gather: m.tlb_gather.clone(),
            ..Default::default()
        };
        last_tlb_from_gather(&mut one, 4096, 0.3, &mut notes);
        assert_eq!(one.tlb[0].entries, 64);
        m.tlb_gather[0].ns = vec![0.4; 9];
        m.tlb[1].entries = 1024;
        last_tlb_from_gather(&mut m, 4096, 0.3, &mut notes);
        assert_eq!(m.tlb[1].entries, 1024);
    }

    #[test]
    fn the_os_size_stands_unless_the_curve_clearly_contradicts_it() {
        // A transition read off a 512 KiB, 8-way LRU cache, and the same with a
        // neighbour's noise of 0.1 in hit ratio on alternate points.
        let (k, page) = (1024.0, 4096.0);
        let sizes: Vec<f64> = (0..12)
            .map(|i| 256.0 * k * 2f64.powf(i as f64 / 4.0))
            .collect();
        let clean: Vec<(f64, f64)> = sizes
            .iter()
            .map(|&f| (f, hit_ratio(f, 512.0 * k, 8.0, page, Policy::Lru)))
            .collect();
        assert_eq!(
            os_size_fits(Some(524288), &clean, 8.0, page, 0.0).map(|f| f.0),
            Some(524288)
        );
        // Four times the capacity: the curve says no.
        assert_eq!(os_size_fits(Some(2097152), &clean, 8.0, page, 0.0), None);
        let noisy: Vec<(f64, f64)> = clean
            .iter()
            .enumerate()
            .map(|(i, &(f, h))| (f, (h - 0.1 * (i % 2) as f64).max(0.0)))
            .collect();
        let best = fit_capacity(&noisy, 8.0, page, &buildable(128.0 * k, 4096.0 * k, 512))
            .map(|b| b.mse.sqrt())
            .unwrap();
        assert!(os_size_fits(Some(524288), &noisy, 8.0, page, best).is_some());
        assert_eq!(os_size_fits(None, &clean, 8.0, page, 0.0), None);
    }

    #[test]
    fn a_set_hits_by_its_policy() {
        assert_eq!(set_hit(8.0, 8.0, Policy::Lru), 1.0);
        assert_eq!(set_hit(9.0, 8.0, Policy::Lru), 0.0);
        let h = set_hit(9.0, 8.0, Policy::Random);
        assert!(h > 0.5 && h < 1.0, "{h}");
        // Twice the ways: h = exp(-2 (1 - h)) for many ways, 0.2032.
        let h = set_hit(2000.0, 1000.0, Policy::Random);
        assert!((h - 0.2032).abs() < 0.002, "{h}");
        assert!((h - (-2.0 * (1.0 - h)).exp()).abs() < 1e-3);
        // Decreasing in the lines.
        let hs: Vec<f64> = (16..64)
            .map(|k| set_hit(k as f64, 16.0, Policy::Random))
            .collect();
        assert!(hs.windows(2).all(|w| w[1] <= w[0]));
    }

    #[test]
    fn random_placement_misses_before_the_capacity() {
        // LRU, 8 ways, 1 MiB: P(Poisson(8) <= 7) = 0.453 of the loads hit at the capacity.
        let h = hit_ratio(1048576.0, 1048576.0, 8.0, 4096.0, Policy::Lru);
        assert!((h - 0.453).abs() < 0.002, "{h}");
        // A way of at most a page: the page offset places the lines, a sharp step.
        assert_eq!(hit_ratio(49152.0, 49152.0, 12.0, 4096.0, Policy::Lru), 1.0);
        assert_eq!(hit_ratio(57344.0, 49152.0, 12.0, 4096.0, Policy::Lru), 0.0);
    }

    /// A transition sampled at quarter octaves, with a fixed pattern of noise.
    fn points(c: f64, ways: f64, policy: Policy, noise: f64) -> Vec<(f64, f64)> {
        (-8..=10)
            .map(|k| {
                let f = c * 2f64.powf(k as f64 / 4.0);
                let e = noise * [1.0, -1.0, 0.5, -0.5][(k + 8) as usize % 4];
                (
                    f,
                    (hit_ratio(f, c, ways, 4096.0, policy) + e).clamp(0.0, 1.0),
                )
            })
            .collect()
    }

    #[test]
    fn the_fit_recovers_capacity_and_policy() {
        for (c, ways, policy) in [
            (1048576.0, 16.0, Policy::Random),
            (1048576.0, 8.0, Policy::Lru),
            (524288.0, 8.0, Policy::Random),
            (33554432.0, 16.0, Policy::Lru),
        ] {
            for noise in [0.0, 0.05] {
                let p = points(c, ways, policy, noise);
                let built = buildable(c / 8.0, 8.0 * c, ways as u64 * 64);
                let fit = fit_capacity(&p, ways, 4096.0, &built).unwrap();
                assert_eq!(fit.bytes, c, "{policy:?} {noise}");
                assert_eq!(fit.policy, policy, "{c} {noise}");
                let free = fit_capacity(&p, ways, 4096.0, &capacity_grid(c / 8.0, 8.0 * c));
                let r = free.unwrap().bytes / c;
                assert!((0.9..1.1).contains(&r), "{policy:?} {noise} {r}");
            }
        }
        assert_eq!(
            buildable(40000.0, 200000.0, 768),
            vec![49152.0, 98304.0, 196608.0]
        );
    }

    #[test]
    fn a_band_without_a_plateau_is_a_transition() {
        // Zen 5 under load (fixture epyc-zen5-fs-3, MiB): the L3 plateau from 1.7 to 4
        // (rising 9.6 to 11.4 ns), 8 MiB half missing (27 ns, at 2.5 times the plateau's
        // first points: a band of its own), memory from 16 MiB.
        let x: Vec<u64> = [
            0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 8.0, 16.0, 32.0, 64.0,
        ]
        .iter()
        .map(|m| (m * 1048576.0) as u64)
        .collect();
        let y = vec![
            3.6, 3.6, 3.6, 5.7, 6.9, 7.9, 9.6, 9.8, 10.4, 10.7, 11.0, 11.4, 27.3, 118.6, 135.9,
            146.5,
        ];
        let b = bands(&y);
        assert_eq!(b, vec![(0, 5), (6, 11), (12, 12), (13, 15)]);
        // Two caches (the L2 and the L3) have their plateaus: 8 MiB joins the L3's band.
        let l = levels(&x, &y, &b, 2);
        assert_eq!(l, vec![(0, 5), (6, 12), (13, 15)]);
        let lat = plateau_latency(&x, &y, l[1]);
        assert!((9.5..11.5).contains(&lat), "{lat}");
        // More caches than plateaus: the band stays (a level crowded out).
        assert_eq!(levels(&x, &y, &b, 3), b);
    }

    #[test]
    fn the_next_level_is_read_where_its_band_is_flattest() {
        let x: Vec<u64> = vec![1, 2, 4, 8, 16, 32, 64, 128];
        let y = vec![1.0, 1.0, 3.0, 3.5, 4.0, 4.1, 11.0, 25.0];
        let b = bands(&y);
        assert_eq!(b, vec![(0, 1), (2, 5), (6, 7)]);
        let p = transition(&x, &y, &b, 0, 1.0).unwrap();
        // The band (2..=5) is flattest from 16 to 32: the next level's latency is 4.0.
        assert_eq!(p.last(), Some(&(16.0, 0.0)));
        assert_eq!(p[0], (1.0, 1.0));
        assert_eq!(p[2], (4.0, 1.0 / 3.0));
        assert!(transition(&x, &y, &b, 2, 11.0).is_none());
    }
}
