//! The misses of a program profile's locality on a cache of a given geometry: the
//! geometry-dependent half of the memory term. The histograms come from the program
//! profile (machine-independent); the geometry from a machine profile.

use crate::cache::CacheGeometry;
use crate::reuse::{bin_range, miss_probability, Histogram};
use augur_program_profile::locality::{CompactHistogram, LocalityProfile, PAGE_BYTES};
use serde::{Deserialize, Serialize};

/// The dense histogram of a profile's sparse one, and back.
pub trait CompactHistogramExt {
    /// The dense form.
    fn to_histogram(&self) -> Histogram;
    /// Accesses with a reuse distance below `lines` (bins entirely below).
    fn below(&self, lines: u64) -> u64;
}

impl CompactHistogramExt for CompactHistogram {
    fn to_histogram(&self) -> Histogram {
        // Sized once: a nest's memory term converts thousands of these.
        let len = self
            .bins
            .iter()
            .map(|&[i, _]| i as usize + 1)
            .max()
            .unwrap_or(0);
        let mut h = Histogram {
            bins: vec![0; len],
            cold: self.cold,
        };
        for &[i, w] in &self.bins {
            h.bins[i as usize] += w;
        }
        h
    }

    fn below(&self, lines: u64) -> u64 {
        self.bins
            .iter()
            .filter(|b| bin_range(b[0] as usize).1 <= lines)
            .map(|b| b[1])
            .sum()
    }
}

impl Histogram {
    /// The sparse form a program profile stores.
    pub fn to_compact(&self) -> CompactHistogram {
        CompactHistogram {
            cold: self.cold,
            bins: self
                .bins
                .iter()
                .enumerate()
                .filter(|(_, &w)| w > 0)
                .map(|(i, &w)| [i as u64, w])
                .collect(),
        }
    }
}

/// Predicted misses of one array in one nest, over all its executions.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ArrayMisses {
    /// Array name.
    pub name: String,
    /// Accesses over all executions.
    pub accesses: f64,
    /// Misses of the first execution.
    pub first: f64,
    /// Misses of each later execution.
    pub repeat: f64,
    /// Misses over all executions: `first + (executions − 1)·repeat`.
    pub misses: f64,
    /// Dirty lines written back to the level below over all executions: those
    /// of the first execution from the write-back histogram, each later one's
    /// in the proportion its misses bear to the first's (0 for page granules).
    #[serde(default)]
    pub writebacks: f64,
    /// Stores that missed over all executions, in the same proportion (0 for page
    /// granules).
    #[serde(default)]
    pub store_misses: f64,
}

/// Predicted misses of one nest.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct NestMisses {
    /// Program unit.
    pub unit: String,
    /// Loop id of the outermost loop.
    pub loop_id: u32,
    /// Line of the outermost DO.
    pub line: u32,
    /// Times the nest ran.
    pub executions: f64,
    /// Misses over all executions, all arrays.
    pub misses: f64,
    /// Per array.
    pub arrays: Vec<ArrayMisses>,
}

/// Misses of a histogram on a cache: exact fully associative LRU from the
/// histogram (at bin boundaries), Smith's model for set-associative caches.
pub fn histogram_misses(h: &Histogram, g: &CacheGeometry) -> f64 {
    if g.fully_associative() {
        h.misses_fully_associative(g.lines())
    } else {
        h.misses_set_associative(g.sets(), g.ways)
    }
}

/// The probability that a reuse at distance `d` lines misses in `g`.
fn miss_at(d: u64, g: &CacheGeometry) -> f64 {
    if g.fully_associative() {
        if d >= g.lines() {
            1.0
        } else {
            0.0
        }
    } else {
        miss_probability(d as f64, g.sets(), g.ways)
    }
}

/// Predicted misses per nest and array of `loc` on a cache of geometry `g`
/// (its line size should be the histograms' 64 bytes; other line sizes are
/// not rescaled). An array swept at a stride of a multiple of lines competes
/// only for the sets such a stride reaches (`CacheGeometry::reachable`, with
/// [`PAGE_BYTES`] pages on random frames).
///
/// The first execution of a nest misses as its histogram says. Each later
/// one misses as the reuse inside one execution says (`histogram −
/// entering`), and its entering lines were last used one execution before,
/// at a distance of the nest's footprint and the lines the other nests touch
/// in between ([`touched_between`]): they miss when the two do not fit
/// (`P(miss | footprint + between − 1)`), at most `program_bytes` (the memory
/// the whole program touches) all told. Code outside the analyzed nests is
/// not seen, so the repeat misses are a lower bound.
pub fn misses(
    loc: &LocalityProfile,
    g: &CacheGeometry,
    program_bytes: Option<u64>,
) -> Vec<NestMisses> {
    let between = touched_between(loc, Granule::Line, program_bytes);
    misses_of(loc, g, Granule::Line, &between)
}

/// Predicted misses per nest and array of a fully associative TLB of
/// `entries` entries of [`PAGE_BYTES`] pages, from the page histograms, with
/// the same first and repeated executions as [`misses`]. Nests of profiles
/// made before page histograms have none.
pub fn tlb_misses(
    loc: &LocalityProfile,
    entries: u64,
    program_bytes: Option<u64>,
) -> Vec<NestMisses> {
    let between = touched_between(loc, Granule::Page, program_bytes);
    tlb_misses_between(loc, entries, &between)
}

/// [`tlb_misses`] with the pages touched between two executions of each nest given
/// (`touched_between(loc, Granule::Page, program_bytes)`): the same for every TLB size,
/// so a staircase of sizes computes them once (quadratic in the nests: 174 nests made
/// it a third of a prediction's time).
pub fn tlb_misses_between(loc: &LocalityProfile, entries: u64, between: &[u64]) -> Vec<NestMisses> {
    let g = CacheGeometry {
        size_bytes: entries.max(1) * PAGE_BYTES,
        line_bytes: PAGE_BYTES,
        ways: entries.max(1).min(u64::from(u32::MAX)) as u32,
    };
    misses_of(loc, &g, Granule::Page, between)
}

/// Which histograms of an array a miss count reads.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Granule {
    /// Cache lines.
    Line,
    /// [`PAGE_BYTES`] pages.
    Page,
}

/// The lines (or pages) the other analyzed nests touch, on average, between two
/// executions of each nest: a nest `Y` that runs `E_Y` times beside a nest `X` that
/// runs `E_X` times runs between a share `min(1, E_Y / E_X)` of `X`'s executions
/// (a time step's sweeps run once each per step), and touches there its footprint
/// less the arrays `X` itself touches (the same name in the same unit). Nests run once
/// have no repeat and nothing between. Names in different units may be one array
/// (dummy arguments, COMMON, modules), so the sum can count an array twice: with the
/// memory the whole program touches (`program_bytes`), a nest's footprint and what is
/// touched between its executions are at most that.
pub fn touched_between(
    loc: &LocalityProfile,
    granule: Granule,
    program_bytes: Option<u64>,
) -> Vec<u64> {
    let size = |fp_lines: u64, fp_pages: u64| match granule {
        Granule::Line => fp_lines,
        Granule::Page => fp_pages,
    };
    let granule_bytes = match granule {
        Granule::Line => loc.line_bytes.max(1),
        Granule::Page => PAGE_BYTES,
    };
    let program = program_bytes.map_or(f64::INFINITY, |b| (b / granule_bytes) as f64);
    loc.nests
        .iter()
        .enumerate()
        .map(|(i, x)| {
            if x.executions <= 1.0 {
                return 0;
            }
            let between: f64 = loc
                .nests
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, y)| {
                    let shared: u64 = y
                        .arrays
                        .iter()
                        .filter(|a| y.unit == x.unit && x.arrays.iter().any(|b| b.name == a.name))
                        .map(|a| size(a.footprint_lines, a.footprint_pages))
                        .sum();
                    let own = size(y.footprint_lines, y.footprint_pages).saturating_sub(shared);
                    own as f64 * (y.executions / x.executions).min(1.0)
                })
                .sum();
            let room = (program - size(x.footprint_lines, x.footprint_pages) as f64).max(0.0);
            between.min(room).round() as u64
        })
        .collect()
}

/// The misses of every nest on `g`, with `between` from [`touched_between`].
fn misses_of(
    loc: &LocalityProfile,
    g: &CacheGeometry,
    granule: Granule,
    between: &[u64],
) -> Vec<NestMisses> {
    loc.nests
        .iter()
        .zip(between.iter().copied())
        .map(|(n, between)| {
            let footprint = match granule {
                Granule::Line => n.footprint_lines,
                Granule::Page => n.footprint_pages,
            } + between;
            let arrays: Vec<ArrayMisses> = n
                .arrays
                .iter()
                .map(|a| {
                    let (h, e, fp, g) = match granule {
                        Granule::Line => (
                            &a.histogram,
                            &a.entering,
                            a.footprint_lines,
                            g.reachable(a.inner_stride_bytes, PAGE_BYTES),
                        ),
                        Granule::Page => (&a.pages, &a.entering_pages, a.footprint_pages, *g),
                    };
                    let g = &g;
                    let again = miss_at(footprint.saturating_sub(1), g);
                    let (h, e) = (h.to_histogram(), e.to_histogram());
                    let first = histogram_misses(&h, g);
                    let inside = first - histogram_misses(&e, g);
                    let repeat = inside.max(0.0) + fp as f64 * again;
                    let later = (n.executions - 1.0).max(0.0);
                    // Over all executions, from the first's histogram, later ones in
                    // the proportion their misses bear to the first's: a share of the
                    // misses, never more than all of them (a first execution that all
                    // but fits the level misses almost nothing, and the two estimates
                    // of almost nothing need not agree).
                    let all_executions = |part: &CompactHistogram| match granule {
                        Granule::Line if !part.is_empty() => {
                            let w = histogram_misses(&part.to_histogram(), g);
                            let share = if first > 0.0 {
                                (w / first).min(1.0)
                            } else {
                                0.0
                            };
                            let w_repeat = share * repeat;
                            w + later * w_repeat
                        }
                        _ => 0.0,
                    };
                    let writebacks = all_executions(&a.writebacks);
                    let store_misses = all_executions(&a.stores);
                    ArrayMisses {
                        name: a.name.clone(),
                        accesses: a.accesses as f64 * n.executions,
                        first,
                        repeat,
                        misses: first + later * repeat,
                        writebacks,
                        store_misses,
                    }
                })
                .collect();
            NestMisses {
                unit: n.unit.clone(),
                loop_id: n.loop_id,
                line: n.line,
                executions: n.executions,
                misses: arrays.iter().map(|a| a.misses).sum(),
                arrays,
            }
        })
        .collect()
}

/// Misses of every sampled reference on a cache of geometry `g`, in the
/// order of [`LocalityProfile::sampled_refs`].
pub fn sampled_misses(loc: &LocalityProfile, g: &CacheGeometry) -> Vec<f64> {
    loc.sampled_refs
        .iter()
        .map(|r| histogram_misses(&r.histogram.to_histogram(), g))
        .collect()
}

/// Estimated misses of every sampled reference on a fully associative TLB of
/// `entries` entries of [`PAGE_BYTES`] pages, in the order of
/// [`LocalityProfile::sampled_refs`]. The samples keep lines, not pages, so a
/// reuse at a distance of `d` lines is taken to span `P·(1 − e^(−d/P))`
/// pages, the expected number of distinct pages `d` lines scattered over the
/// `P` pages of the reference's region fall in (`P` from the sampled address
/// range, at most its distinct lines); first touches of lines miss when the
/// region does not fit, else once per page.
pub fn sampled_tlb_misses(loc: &LocalityProfile, entries: u64) -> Vec<f64> {
    loc.sampled_refs
        .iter()
        .map(|r| {
            let h = r.histogram.to_histogram();
            let lines = h.cold.max(1) as f64;
            let span_pages = (r.span_bytes / PAGE_BYTES).max(1) as f64;
            let pages = span_pages.min(lines);
            let e = entries as f64;
            let mut m = if pages >= e {
                h.cold as f64
            } else {
                pages.min(h.cold as f64)
            };
            for (i, &w) in h.bins.iter().enumerate() {
                if w == 0 {
                    continue;
                }
                let (lo, hi) = bin_range(i);
                let d = (lo + hi) as f64 / 2.0;
                if pages * (1.0 - (-d / pages).exp()) >= e {
                    m += w as f64;
                }
            }
            m
        })
        .collect()
}
