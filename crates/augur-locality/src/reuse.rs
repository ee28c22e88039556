//! Reuse (LRU stack) distances and what they say about any cache.
//!
//! # The distance
//!
//! The reuse distance of an access is the number of *distinct* other lines
//! touched since the previous access to the same line (infinite, "cold", for
//! the first access). A fully associative LRU cache of `C` lines hits exactly
//! the accesses with distance `< C` (Mattson et al. 1970, the stack
//! property), so one histogram of distances gives the misses of every such
//! cache at once, and it depends only on the program and the line size: the
//! machine-independent locality characterization of PPT and of Marin &
//! Mellor-Crummey.
//!
//! # The algorithm
//!
//! Each access gets a timestamp. A hash map keeps the last timestamp of every
//! line, and a Fenwick (binary indexed) tree over timestamps holds a 1 at the
//! last access of every line. The distance of an access whose line was last
//! touched at `t` is the number of ones after `t`, one prefix query, and the
//! update moves the line's one from `t` to now: `O(log n)` per access. When
//! the timestamps reach the end of the tree, the live timestamps are renumbered
//! in order (`compaction`) into a tree of twice the number of live lines, so
//! memory is bounded by the number of distinct lines, never by the stream
//! length, and the amortized cost stays `O(log n)`.
//!
//! # Sampling
//!
//! When more than [`ReuseConfig::max_lines`] distinct lines are tracked, the
//! analyzer switches to spatial sampling as in SHARDS (Waldspurger et al.,
//! FAST 2015, the fixed-size variant): a line is tracked only when the top
//! `k` bits of a hash of its number are zero, a sampling rate `R = 2^-k`.
//! Each sampled access then stands for `1/R` accesses and each distance
//! measured among sampled lines for `1/R` times as many lines, so a
//! sampled access adds weight `2^k` to the bin of distance `d·2^k`. When the
//! limit is reached again, `k` grows by one and the lines whose hash no
//! longer qualifies are dropped from the tree and the map (expected half of
//! them). Counts recorded before a rate change keep their weight. The
//! estimate is unbiased for the number of accesses and close for the
//! distance distribution; SHARDS reports absolute miss-ratio errors of about
//! 0.001-0.01 at rates of 0.001-0.01 on real traces. [`ReuseReport::sampled`]
//! says whether sampling happened and [`ReuseReport::sample_rate`] gives the
//! final rate. Memory is about 60 bytes per tracked line, so the default
//! limit of 2^21 lines (128 MiB of data at 64-byte lines) keeps the analyzer
//! near 130 MB whatever the stream.
//!
//! # Histograms
//!
//! Distances below 64 are kept exactly; above, each power of two `[2^k,
//! 2^(k+1))` is split into 8 equal bins. So the misses of a fully associative
//! cache whose number of lines is below 64 or of the form `m·2^(k-3)` with
//! `8 ≤ m < 16` (every power of two, 768, 1280, 20480, 24576, ...) are
//! exact; other sizes interpolate linearly inside one bin.
//!
//! # Set-associative caches
//!
//! [`Histogram::misses_set_associative`] uses the statistical model of
//! Smith (1978), also the basis of Hill & Smith's associativity study and of
//! StatCache-style models: the `d` distinct lines between two uses of a line
//! are assumed to fall into the `S` sets independently and uniformly, so the
//! access misses in an `A`-way LRU set when at least `A` of them fell into its
//! set: `P(miss | d) = P(Binomial(d, 1/S) ≥ A)`. This is good for irregular
//! streams and poor for regular ones with power-of-two strides, whose lines
//! pile up in few sets (Saavedra's matrix-multiply study is the extreme
//! case). The exact answer for a given geometry is the simulator,
//! [`crate::cache::Cache`], fed with the same stream.

use crate::hash::{map_with_capacity, mix64, MixMap};
use crate::nest::{Nest, NestError};
use crate::Access;
use serde::{Deserialize, Serialize};

/// Distances below this are binned exactly.
pub const EXACT_DISTANCES: u64 = 64;
const SUB_BITS: u32 = 3;
const SUBS: u64 = 1 << SUB_BITS;
const FIRST_OCTAVE: u32 = EXACT_DISTANCES.trailing_zeros();
/// Seed of the spatial-sampling hash: a line is sampled at rate `2^-k` when the top
/// `k` bits of `mix64(line ^ SAMPLE_SEED)` are zero.
pub const SAMPLE_SEED: u64 = 0x5851_f42d_4c95_7f2d;
const EMPTY: u64 = u64::MAX;
const MIN_CAPACITY: usize = 4096;

/// Bin index of a distance.
pub fn bin_of(d: u64) -> usize {
    if d < EXACT_DISTANCES {
        d as usize
    } else {
        let k = 63 - d.leading_zeros();
        let sub = (d >> (k - SUB_BITS)) & (SUBS - 1);
        (EXACT_DISTANCES + u64::from(k - FIRST_OCTAVE) * SUBS + sub) as usize
    }
}

/// The distances `[lo, hi)` of bin `i`.
pub fn bin_range(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < EXACT_DISTANCES {
        (i, i + 1)
    } else {
        let j = i - EXACT_DISTANCES;
        let k = FIRST_OCTAVE as u64 + j / SUBS;
        let sub = j % SUBS;
        let width = 1u64 << (k - u64::from(SUB_BITS));
        let lo = (SUBS + sub) * width;
        (lo, lo + width)
    }
}

/// A reuse-distance histogram: access weights per distance bin plus the cold
/// (first-touch) accesses. With sampling, weights are estimates.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Histogram {
    /// Weight per bin, see [`bin_of`] and [`bin_range`].
    pub bins: Vec<u64>,
    /// Accesses with infinite distance (first touch of a line).
    pub cold: u64,
}

impl Histogram {
    /// Adds `weight` accesses at distance `d` (`None` = cold).
    pub fn add(&mut self, d: Option<u64>, weight: u64) {
        match d {
            None => self.cold += weight,
            Some(d) => {
                let b = bin_of(d);
                if b >= self.bins.len() {
                    self.bins.resize(b + 1, 0);
                }
                self.bins[b] += weight;
            }
        }
    }

    /// Adds another histogram.
    pub fn merge(&mut self, o: &Histogram) {
        if o.bins.len() > self.bins.len() {
            self.bins.resize(o.bins.len(), 0);
        }
        for (a, b) in self.bins.iter_mut().zip(&o.bins) {
            *a += b;
        }
        self.cold += o.cold;
    }

    /// All accesses (cold included).
    pub fn total(&self) -> u64 {
        self.cold + self.bins.iter().sum::<u64>()
    }

    /// Misses of a fully associative LRU cache of `lines` lines: the cold
    /// accesses plus those with distance `≥ lines`. Exact when `lines` is a
    /// bin boundary (see the module docs), else interpolated in one bin.
    pub fn misses_fully_associative(&self, lines: u64) -> f64 {
        let mut m = self.cold as f64;
        for (i, &w) in self.bins.iter().enumerate() {
            if w == 0 {
                continue;
            }
            let (lo, hi) = bin_range(i);
            if lo >= lines {
                m += w as f64;
            } else if hi > lines {
                m += w as f64 * (hi - lines) as f64 / (hi - lo) as f64;
            }
        }
        m
    }

    /// Estimated misses of an LRU cache of `sets` sets of `ways` ways, by
    /// Smith's statistical model (see the module docs). A bin of several
    /// distances is represented by its middle. With one set this is
    /// [`Histogram::misses_fully_associative`] at bin resolution.
    pub fn misses_set_associative(&self, sets: u64, ways: u32) -> f64 {
        let mut m = self.cold as f64;
        for (i, &w) in self.bins.iter().enumerate() {
            if w == 0 {
                continue;
            }
            let (lo, hi) = bin_range(i);
            let d = if hi - lo == 1 {
                lo as f64
            } else {
                (lo + hi - 1) as f64 / 2.0
            };
            m += w as f64 * miss_probability(d, sets, ways);
        }
        m
    }
}

/// `P(Binomial(d, 1/sets) ≥ ways)`: the probability that an access with
/// reuse distance `d` misses in an LRU set of `ways` ways under random
/// placement.
pub fn miss_probability(d: f64, sets: u64, ways: u32) -> f64 {
    let a = f64::from(ways);
    if d < a {
        return 0.0;
    }
    if sets <= 1 {
        return 1.0;
    }
    let p = 1.0 / sets as f64;
    let (lp, lq) = (p.ln(), (-p).ln_1p());
    // P(X < a) = Σ_{j<a} C(d,j) p^j q^(d-j), in logs.
    let mut ln_c = 0.0f64;
    let mut below = 0.0f64;
    for j in 0..ways {
        let jf = f64::from(j);
        if j > 0 {
            ln_c += (d - jf + 1.0).ln() - jf.ln();
        }
        below += (ln_c + jf * lp + (d - jf) * lq).exp();
    }
    (1.0 - below).clamp(0.0, 1.0)
}

/// Settings of a [`ReuseAnalyzer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReuseConfig {
    /// Line size in bytes (a power of two); distances count lines.
    pub line_bytes: u64,
    /// Distinct lines tracked before spatial sampling starts (and the limit
    /// it keeps afterwards).
    pub max_lines: usize,
}

impl Default for ReuseConfig {
    fn default() -> Self {
        ReuseConfig {
            line_bytes: 64,
            max_lines: 1 << 21,
        }
    }
}

/// The histogram of one array in one loop nest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NestArrayHistogram {
    /// Loop-nest id, as set by [`ReuseAnalyzer::set_nest`].
    pub nest: u32,
    /// Array id of the accesses.
    pub array: u32,
    /// Their reuse distances.
    pub histogram: Histogram,
    /// The part of `histogram` whose accesses *entered* the nest: the first
    /// access to a line since the last [`ReuseAnalyzer::set_nest`] (cold, or
    /// at the distance from where the line was last used before). Its total
    /// is the number of distinct lines of the array the nest touched (its
    /// footprint); `histogram` minus `entering` is the reuse inside the nest.
    #[serde(default)]
    pub entering: Histogram,
    /// Write-backs of the lines this array's stores dirtied: one entry per
    /// *dirty residency*, at the largest reuse distance of the accesses to the
    /// line from the store that dirtied it to the next store (or to the end of
    /// the stream, where the distance is how far down the stack the line then
    /// sits). A cache of `C` lines evicted the dirty line, writing it back to
    /// the level below, exactly when that distance is `≥ C`, so the misses of
    /// this histogram on a cache are its write-backs.
    #[serde(default)]
    pub writebacks: Histogram,
    /// The reuse distances of the stores alone (a part of `histogram`): their
    /// misses on a cache are the stores that find their line absent.
    #[serde(default)]
    pub stores: Histogram,
}

/// The result of an analysis: histograms per nest and array, and how the
/// stream was sampled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReuseReport {
    /// Line size in bytes.
    pub line_bytes: u64,
    /// Accesses seen.
    pub accesses: u64,
    /// Accesses whose distance was measured (all of them without sampling).
    pub measured_accesses: u64,
    /// True when spatial sampling was used.
    pub sampled: bool,
    /// Final sampling rate (1 without sampling).
    pub sample_rate: f64,
    /// Distinct lines tracked at the end.
    pub tracked_lines: usize,
    /// Largest approximate memory of the analyzer, in bytes.
    pub peak_bytes: usize,
    /// One histogram per (nest, array) that had accesses.
    pub histograms: Vec<NestArrayHistogram>,
}

impl ReuseReport {
    /// The histogram of all accesses.
    pub fn total(&self) -> Histogram {
        self.merged(|_| true)
    }

    /// The histogram of one array over all nests.
    pub fn array(&self, array: u32) -> Histogram {
        self.merged(|h| h.array == array)
    }

    /// The histogram of one nest over all arrays.
    pub fn nest(&self, nest: u32) -> Histogram {
        self.merged(|h| h.nest == nest)
    }

    fn merged(&self, keep: impl Fn(&NestArrayHistogram) -> bool) -> Histogram {
        let mut out = Histogram::default();
        for h in self.histograms.iter().filter(|h| keep(h)) {
            out.merge(&h.histogram);
        }
        out
    }
}

/// A line stored into and not yet written back: who dirtied it, and the
/// largest reuse distance seen on it since (scaled like every distance).
#[derive(Clone, Copy, Debug)]
struct Dirty {
    nest: u32,
    array: u32,
    gap: u64,
    weight: u64,
}

/// Streaming reuse-distance analyzer (see the module docs).
#[derive(Clone, Debug)]
pub struct ReuseAnalyzer {
    config: ReuseConfig,
    line_shift: u32,
    /// Line → timestamp of its last access.
    last: MixMap<u64, u32>,
    /// Timestamp → line whose last access it is, or EMPTY.
    owner: Vec<u64>,
    /// Fenwick tree over timestamps (1-based), a 1 at each live timestamp.
    tree: Vec<u32>,
    now: u32,
    rate_shift: u32,
    nest: u32,
    /// Timestamp at the last `set_nest`: older last uses enter the nest.
    nest_start: u32,
    /// Per nest and array: all accesses, those entering the nest, the
    /// write-backs of the dirty residencies its stores began, and the stores.
    hists: Vec<Vec<[Histogram; 4]>>,
    /// Lines stored into since their last recorded write-back.
    dirty: MixMap<u64, Dirty>,
    /// False when write-backs are not followed ([`ReuseAnalyzer::without_write_backs`]).
    writebacks_followed: bool,
    accesses: u64,
    measured: u64,
    peak_bytes: usize,
}

impl ReuseAnalyzer {
    /// A new analyzer.
    ///
    /// # Panics
    /// When the line size is not a power of two or `max_lines` is zero.
    pub fn new(config: ReuseConfig) -> ReuseAnalyzer {
        assert!(config.line_bytes.is_power_of_two(), "line size");
        assert!(config.max_lines > 0, "max_lines");
        ReuseAnalyzer {
            config,
            line_shift: config.line_bytes.trailing_zeros(),
            last: map_with_capacity(0),
            owner: Vec::new(),
            tree: vec![0],
            now: 0,
            rate_shift: 0,
            nest: 0,
            nest_start: 0,
            hists: Vec::new(),
            dirty: map_with_capacity(0),
            writebacks_followed: true,
            accesses: 0,
            measured: 0,
            peak_bytes: 0,
        }
    }

    /// The same analyzer without the write-backs ([`NestArrayHistogram::writebacks`]
    /// stays empty): a stream whose reuse distances alone are wanted, analyzed faster.
    pub fn without_write_backs(mut self) -> ReuseAnalyzer {
        self.writebacks_followed = false;
        self
    }

    /// Attributes the following accesses to loop nest `nest` (0 initially).
    /// Reuse across nests is still measured: the distance of an access in
    /// nest 2 to a line last touched in nest 1 counts the lines between.
    /// Also starts a new execution of the nest: the first access to each
    /// line from here on counts as *entering* it
    /// ([`NestArrayHistogram::entering`]).
    pub fn set_nest(&mut self, nest: u32) {
        self.nest = nest;
        self.nest_start = self.now;
    }

    /// Attributes the following accesses to nest `nest` without starting a
    /// new execution (unlike [`ReuseAnalyzer::set_nest`]).
    pub fn attribute_to(&mut self, nest: u32) {
        self.nest = nest;
    }

    /// Lines first touched by nest `nest` in its current execution (the total
    /// of its *entering* histograms over all arrays, weighted like them).
    pub fn entering_lines(&self, nest: u32) -> u64 {
        self.hists
            .get(nest as usize)
            .map_or(0, |per| per.iter().map(|h| h[1].total()).sum())
    }

    /// Ends the dirty residencies that `nests` began and that are still open,
    /// as if `extra` more distinct lines were touched before the next access
    /// to each: the write-back of a line is recorded at the larger of its gap
    /// and its distance from its last use to now plus `extra`. For a nest
    /// analyzed by a prefix: the part left out of the stream would have pushed
    /// its still-dirty lines that much further down the stack.
    pub fn close_dirty(&mut self, nests: &[u32], extra: u64) {
        let live = self.last.len() as u64;
        let mut closed = Vec::new();
        for (line, d) in &self.dirty {
            if !nests.contains(&d.nest) {
                continue;
            }
            let Some(&t) = self.last.get(line) else {
                continue;
            };
            let since = (live - self.prefix(t)) << self.rate_shift;
            let mut d = *d;
            d.gap = d.gap.max(since.saturating_add(extra));
            closed.push((*line, d));
        }
        for (line, d) in closed {
            self.dirty.remove(&line);
            self.record_writeback(&d);
        }
    }

    /// Samples at a rate of at most `2^-shift` from now on (SHARDS with a
    /// fixed rate, for streams known to be long): lines whose hash no longer
    /// qualifies are dropped. The rate only ever decreases.
    pub fn sample_at_most(&mut self, shift: u32) {
        if shift > self.rate_shift {
            self.rate_shift = shift.min(63);
            self.prune();
        }
    }

    /// Streams every access of `nest` into the analyzer (after
    /// [`ReuseAnalyzer::set_nest`]); returns the number of accesses.
    pub fn run_nest(&mut self, nest: &Nest) -> Result<u64, NestError> {
        nest.for_each_access(|a| self.access(a))
    }

    /// Records one access.
    #[inline]
    pub fn access(&mut self, a: Access) {
        self.accesses += 1;
        let line = a.addr >> self.line_shift;
        if self.rate_shift > 0 && mix64(line ^ SAMPLE_SEED) >> (64 - self.rate_shift) != 0 {
            return;
        }
        self.measured += 1;
        if self.now as usize == self.owner.len() {
            self.compact();
        }
        let now = self.now;
        let live = self.last.len() as u64;
        let (d, entering) = match self.last.insert(line, now) {
            Some(t) => {
                let after = live - self.prefix(t);
                self.fenwick_sub(t);
                self.owner[t as usize] = EMPTY;
                (Some(after << self.rate_shift), t < self.nest_start)
            }
            None => (None, true),
        };
        self.fenwick_add(now);
        self.owner[now as usize] = line;
        self.now += 1;
        self.record(a.array, d, entering, a.write);
        if self.writebacks_followed {
            self.track_dirty(line, a, d);
        }
        if self.last.len() > self.config.max_lines {
            self.downsample();
        }
    }

    fn record(&mut self, array: u32, d: Option<u64>, entering: bool, write: bool) {
        let w = 1u64 << self.rate_shift;
        let per = self.slot(self.nest, array);
        per[0].add(d, w);
        if entering {
            per[1].add(d, w);
        }
        if write {
            per[3].add(d, w);
        }
    }

    /// Follows the dirty residency of `line` (see
    /// [`NestArrayHistogram::writebacks`]): every access widens the gap its
    /// residency must survive; a store closes the residency its previous
    /// store began (recording the write-back at that gap) and begins another.
    #[inline]
    fn track_dirty(&mut self, line: u64, a: Access, d: Option<u64>) {
        if !a.write {
            if let (Some(dirty), Some(d)) = (self.dirty.get_mut(&line), d) {
                dirty.gap = dirty.gap.max(d);
            }
            return;
        }
        let begun = Dirty {
            nest: self.nest,
            array: a.array,
            gap: 0,
            weight: 1u64 << self.rate_shift,
        };
        if let Some(mut was) = self.dirty.insert(line, begun) {
            was.gap = was.gap.max(d.unwrap_or(u64::MAX));
            self.record_writeback(&was);
        }
    }

    fn record_writeback(&mut self, d: &Dirty) {
        let per = self.slot(d.nest, d.array);
        per[2].add(Some(d.gap).filter(|&g| g != u64::MAX), d.weight);
    }

    fn slot(&mut self, nest: u32, array: u32) -> &mut [Histogram; 4] {
        let n = nest as usize;
        if n >= self.hists.len() {
            self.hists.resize_with(n + 1, Vec::new);
        }
        let per = &mut self.hists[n];
        let a = array as usize;
        if a >= per.len() {
            per.resize_with(a + 1, Default::default);
        }
        &mut per[a]
    }

    /// Number of ones at timestamps `0..=t`.
    #[inline]
    fn prefix(&self, t: u32) -> u64 {
        let mut i = t as usize + 1;
        let mut s = 0u64;
        while i > 0 {
            s += u64::from(self.tree[i]);
            i &= i - 1;
        }
        s
    }

    #[inline]
    fn fenwick_add(&mut self, t: u32) {
        let n = self.tree.len();
        let mut i = t as usize + 1;
        while i < n {
            self.tree[i] += 1;
            i += i & i.wrapping_neg();
        }
    }

    #[inline]
    fn fenwick_sub(&mut self, t: u32) {
        let n = self.tree.len();
        let mut i = t as usize + 1;
        while i < n {
            self.tree[i] -= 1;
            i += i & i.wrapping_neg();
        }
    }

    /// Renumbers the live timestamps `0..live` in order into a tree of
    /// capacity `max(MIN_CAPACITY, 2·live)`.
    fn compact(&mut self) {
        let live = self.last.len();
        let cap = (2 * live).max(MIN_CAPACITY);
        let mut owner = Vec::with_capacity(cap);
        let mut nest_start = None;
        for (t, &line) in self.owner.iter().enumerate() {
            if t as u32 == self.nest_start {
                nest_start = Some(owner.len() as u32);
            }
            if line == EMPTY {
                continue;
            }
            *self.last.get_mut(&line).expect("live line") = owner.len() as u32;
            owner.push(line);
        }
        self.nest_start = nest_start.unwrap_or(live as u32);
        debug_assert_eq!(owner.len(), live);
        owner.resize(cap, EMPTY);
        self.owner = Vec::new();
        self.tree = Vec::new();
        // Linear-time Fenwick construction over the ones at 0..live.
        let mut tree = vec![0u32; cap + 1];
        for slot in &mut tree[1..=live] {
            *slot = 1;
        }
        for i in 1..=cap {
            let j = i + (i & i.wrapping_neg());
            if j <= cap {
                tree[j] += tree[i];
            }
        }
        self.owner = owner;
        self.tree = tree;
        self.now = live as u32;
        self.note_memory();
    }

    /// Halves the sampling rate until at most `max_lines` lines are tracked.
    fn downsample(&mut self) {
        while self.last.len() > self.config.max_lines && self.rate_shift < 63 {
            self.rate_shift += 1;
            self.prune();
        }
        self.note_memory();
    }

    /// Drops the lines whose hash does not qualify at the current rate.
    fn prune(&mut self) {
        let shift = 64 - self.rate_shift;
        let owner = &mut self.owner;
        let tree = &mut self.tree;
        let n = tree.len();
        self.last.retain(|&line, &mut t| {
            let keep = mix64(line ^ SAMPLE_SEED) >> shift == 0;
            if !keep {
                owner[t as usize] = EMPTY;
                let mut i = t as usize + 1;
                while i < n {
                    tree[i] -= 1;
                    i += i & i.wrapping_neg();
                }
            }
            keep
        });
        let last = &self.last;
        self.dirty.retain(|line, _| last.contains_key(line));
    }

    /// Approximate bytes held by the analyzer's tables.
    pub fn approx_bytes(&self) -> usize {
        // hashbrown: key + value + one control byte per bucket.
        self.last.capacity() * (8 + 4 + 1) * 8 / 7
            + self.dirty.capacity() * (8 + std::mem::size_of::<Dirty>() + 1) * 8 / 7
            + self.owner.capacity() * 8
            + self.tree.capacity() * 4
    }

    fn note_memory(&mut self) {
        self.peak_bytes = self.peak_bytes.max(self.approx_bytes());
    }

    /// Accesses seen so far.
    pub fn accesses(&self) -> u64 {
        self.accesses
    }

    /// Current sampling rate (1 until sampling starts).
    pub fn sample_rate(&self) -> f64 {
        1.0 / (1u64 << self.rate_shift) as f64
    }

    /// The histograms so far. Lines still dirty close their residency here,
    /// at the larger of their gap so far and the distance from their last use
    /// to now (a cache smaller than that has written them back by now).
    pub fn report(&self) -> ReuseReport {
        let mut hists = self.hists.clone();
        let live = self.last.len() as u64;
        for (line, d) in &self.dirty {
            let Some(&t) = self.last.get(line) else {
                continue;
            };
            let since = (live - self.prefix(t)) << self.rate_shift;
            let n = d.nest as usize;
            let a = d.array as usize;
            if let Some(h) = hists.get_mut(n).and_then(|p| p.get_mut(a)) {
                h[2].add(Some(d.gap.max(since)), d.weight);
            }
        }
        let mut histograms = Vec::new();
        for (n, per) in hists.into_iter().enumerate() {
            for (a, [h, e, w, st]) in per.into_iter().enumerate() {
                if h.total() > 0 {
                    histograms.push(NestArrayHistogram {
                        nest: n as u32,
                        array: a as u32,
                        histogram: h,
                        entering: e,
                        writebacks: w,
                        stores: st,
                    });
                }
            }
        }
        ReuseReport {
            line_bytes: self.config.line_bytes,
            accesses: self.accesses,
            measured_accesses: self.measured,
            sampled: self.rate_shift > 0,
            sample_rate: self.sample_rate(),
            tracked_lines: self.last.len(),
            peak_bytes: self.peak_bytes.max(self.approx_bytes()),
            histograms,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_cover_the_line() {
        let mut prev_hi = 0;
        for i in 0..400 {
            let (lo, hi) = bin_range(i);
            assert_eq!(lo, prev_hi, "bin {i}");
            assert!(hi > lo);
            assert_eq!(bin_of(lo), i);
            assert_eq!(bin_of(hi - 1), i);
            prev_hi = hi;
        }
        // Common cache sizes in lines are bin boundaries.
        for lines in [512u64, 768, 1024, 20480, 24576, 32768, 491_520] {
            assert_eq!(bin_range(bin_of(lines)).0, lines);
        }
    }

    #[test]
    fn small_stream_distances() {
        let mut r = ReuseAnalyzer::new(ReuseConfig {
            line_bytes: 1,
            max_lines: 100,
        });
        // a b c a b b: cold cold cold 2 2 0
        for x in [0u64, 1, 2, 0, 1, 1] {
            r.access(Access::read(x, 0));
        }
        let h = r.report().total();
        assert_eq!(h.cold, 3);
        assert_eq!(h.bins[2], 2);
        assert_eq!(h.bins[0], 1);
        assert_eq!(h.misses_fully_associative(2), 5.0);
        assert_eq!(h.misses_fully_associative(3), 3.0);
    }

    #[test]
    fn compaction_keeps_distances() {
        // A cyclic sweep over 3000 lines crosses several compactions; every
        // access after the first sweep has distance 2999.
        let mut r = ReuseAnalyzer::new(ReuseConfig {
            line_bytes: 8,
            max_lines: 10_000,
        });
        for _ in 0..5 {
            for i in 0..3000u64 {
                r.access(Access::read(i * 8, 0));
            }
        }
        let h = r.report().total();
        assert_eq!(h.cold, 3000);
        assert_eq!(h.bins[bin_of(2999)], 12000);
        // 2999 lies in the bin [2816, 3072): exact at its boundaries.
        assert_eq!(h.misses_fully_associative(3072), 3000.0);
        assert_eq!(h.misses_fully_associative(2816), 15000.0);
        assert!(r.approx_bytes() < 200_000);
    }

    #[test]
    fn miss_probability_limits() {
        assert_eq!(miss_probability(3.0, 1, 4), 0.0);
        assert_eq!(miss_probability(4.0, 1, 4), 1.0);
        // Direct-mapped: P(at least one of d lines in my set) = 1-(1-1/S)^d.
        let p = miss_probability(10.0, 8, 1);
        assert!((p - (1.0 - (7.0f64 / 8.0).powi(10))).abs() < 1e-12);
        assert!(miss_probability(1e7, 1024, 8) > 0.999);
    }

    #[test]
    fn dirty_lines_closed_early_sit_under_the_lines_left_out() {
        let mut r = ReuseAnalyzer::new(ReuseConfig {
            line_bytes: 1,
            max_lines: 100_000,
        });
        // A prefix of a stream: nest 0 stores lines 0..10 once, then nest 1
        // reads line 50 (it began no residency of its own).
        r.set_nest(0);
        for x in 0..10u64 {
            r.access(Access::write(x, 0));
        }
        r.set_nest(1);
        r.access(Access::read(50, 0));
        assert_eq!(r.entering_lines(0), 10);
        // The part left out would have touched 1000 more lines.
        r.close_dirty(&[0], 1000);
        let rep = r.report();
        let w = &rep
            .histograms
            .iter()
            .find(|h| h.nest == 0)
            .unwrap()
            .writebacks;
        // Line x was last used 10 - x lines ago: closed at 1010 - x, once.
        assert_eq!(w.total(), 10);
        let in_range: u64 = (bin_of(1001)..=bin_of(1010)).map(|b| w.bins[b]).sum();
        assert_eq!(in_range, 10);
        assert_eq!(w.misses_fully_associative(800), 10.0);
        assert_eq!(w.misses_fully_associative(2000), 0.0);
    }

    #[test]
    fn writebacks_follow_dirty_residencies() {
        let mut r = ReuseAnalyzer::new(ReuseConfig {
            line_bytes: 1,
            max_lines: 100_000,
        });
        // Nest 0 stores into lines 0..10 twice over (array 0), reading line
        // 100 + x between (array 1, clean): each first store's residency
        // closes at the second store, 19 distinct lines later.
        r.set_nest(0);
        for _ in 0..2 {
            for x in 0..10u64 {
                r.access(Access::read(100 + x, 1));
                r.access(Access::write(x, 0));
            }
        }
        // Nest 1 updates lines 0..10 in place (read then store: one
        // residency each, closing at the next pass's read 9 lines later),
        // five times.
        r.set_nest(1);
        for _ in 0..5 {
            for x in 0..10u64 {
                r.access(Access::read(x, 0));
                r.access(Access::write(x, 0));
            }
        }
        let rep = r.report();
        let wb = |nest: u32, array: u32| {
            rep.histograms
                .iter()
                .find(|h| h.nest == nest && h.array == array)
                .map(|h| h.writebacks.clone())
                .unwrap_or_default()
        };
        assert_eq!(wb(0, 1).total(), 0, "clean lines are never written back");
        // Nest 0's first residencies close at its second stores (19 lines
        // between); its second ones at nest 1's reads, 18 - x lines after the
        // store into line x; nest 1's first four passes at the next pass's
        // read, 9 lines after each, its last at the end, where 9 - x lines
        // were used after line x.
        let w0 = wb(0, 0);
        assert_eq!(w0.total(), 20);
        assert_eq!(w0.bins[bin_of(19)], 10);
        for x in 0..10u64 {
            assert_eq!(w0.bins[bin_of(18 - x)], 1, "line {x}");
        }
        let w1 = wb(1, 0);
        assert_eq!(w1.total(), 50);
        assert_eq!(w1.bins[bin_of(9)], 41);
        // A cache of 12 lines writes back nest 0's first residencies and the
        // second ones of lines 0..=6; one of 9 lines all but the last pass's
        // (bar line 0's); one of 20 none.
        let all =
            |lines: u64| w0.misses_fully_associative(lines) + w1.misses_fully_associative(lines);
        assert_eq!(all(12), 17.0);
        assert_eq!(all(9), 61.0);
        assert_eq!(all(20), 0.0);
    }

    #[test]
    fn entering_counts_the_footprint_of_each_execution() {
        // Nest 0 touches lines 0..100 twice; nest 1 touches lines 50..150
        // twice, across compactions (MIN_CAPACITY is larger, so force many).
        let mut r = ReuseAnalyzer::new(ReuseConfig {
            line_bytes: 1,
            max_lines: 100_000,
        });
        r.set_nest(0);
        for _ in 0..2 {
            for x in 0..100u64 {
                r.access(Access::read(x, 0));
            }
        }
        for _ in 0..30 {
            r.set_nest(1);
            for _ in 0..2 {
                for x in 50..150u64 {
                    r.access(Access::read(x, 0));
                }
            }
        }
        let rep = r.report();
        let h0 = &rep.histograms[0];
        assert_eq!(h0.entering.total(), 100);
        assert_eq!(h0.entering.cold, 100);
        let h1 = &rep.histograms[1];
        // Each of the 30 executions enters 100 lines; only the first sees
        // 50 of them cold.
        assert_eq!(h1.entering.total(), 3000);
        assert_eq!(h1.entering.cold, 50);
        assert_eq!(h1.histogram.total(), 6000);
        // Entering at distance 99 (the other 99 lines of the previous
        // execution), or 49 for lines 50..100 coming from nest 0.
        assert_eq!(h1.entering.bins[bin_of(99)], 2900);
        assert_eq!(h1.entering.bins[bin_of(49)], 50);
    }

    #[test]
    fn fixed_rate_sampling_estimates_counts() {
        let mut r = ReuseAnalyzer::new(ReuseConfig::default());
        r.sample_at_most(4);
        for _ in 0..4 {
            for x in 0..100_000u64 {
                r.access(Access::read(x * 64, 0));
            }
        }
        let rep = r.report();
        assert!(rep.sampled);
        let h = rep.total();
        assert!((h.cold as f64 - 100_000.0).abs() < 5_000.0, "{}", h.cold);
        assert!((h.total() as f64 - 400_000.0).abs() < 20_000.0);
        assert!(rep.tracked_lines < 10_000);
    }
}
