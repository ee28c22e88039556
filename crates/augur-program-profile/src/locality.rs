//! The locality section of a program profile: reuse-distance histograms per loop nest
//! and array (at 64-byte lines and 4 KiB pages), the sampled references, the runtime
//! shapes and value sets the counting run recorded. Machine-independent: the misses of
//! a given cache follow from these histograms (`augur_locality::profile`).

use serde::{Deserialize, Serialize};

/// Line size of the histograms, bytes.
pub const LINE_BYTES: u64 = 64;
/// Page size of the page histograms (the TLB side of the memory term), bytes: the base
/// page of x86-64 and most Linux systems.
pub const PAGE_BYTES: u64 = 4096;

/// The locality of a program: per affine loop nest and array, reuse-distance
/// histograms at 64-byte lines of one execution of the nest.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct LocalityProfile {
    /// Line size of the histograms in bytes (64).
    pub line_bytes: u64,
    /// True when some nest was sampled (SHARDS), so its weights are estimates.
    pub sampled: bool,
    /// Seconds the analysis took (extraction and streaming).
    pub seconds: f64,
    /// Largest memory of a reuse analyzer, bytes (the tables it tracked).
    pub peak_bytes: u64,
    /// Accesses streamed (one execution per nest).
    pub accesses: u64,
    /// The nests that ran, in unit and source order.
    pub nests: Vec<NestLocality>,
    /// References left out of the nests (not affine).
    pub non_affine: Vec<NonAffineRef>,
    /// Loops that ran but are in no nest (not counted DO loops, bounds that
    /// are not affine, ...), with the reason.
    pub skipped_loops: Vec<SkippedLoop>,
    /// Values given to symbolic names from measured trip counts.
    pub assumed_values: Vec<AssumedValue>,
    /// Shapes of allocatable, pointer and assumed-shape arrays as the
    /// instrumented run recorded them (last seen), used for their addresses.
    #[serde(default)]
    pub runtime_shapes: Vec<RuntimeShape>,
    /// References that are not affine (gathers, indirect subscripts,
    /// pointer chasing) whose addresses the instrumented run sampled, with
    /// their reuse histograms scaled to their executions.
    #[serde(default)]
    pub sampled_refs: Vec<SampledRef>,
    /// How the addresses of `sampled_refs` were sampled; absent when nothing
    /// was probed.
    #[serde(default)]
    pub address_sampling: Option<AddressSampling>,
    /// The values of the integer scalars each recorded nest ran with (its loop bounds,
    /// subscripts and array extents depend on them), from the instrumented run; a nest
    /// with several is analyzed once per value set (or, with many, once per group of
    /// sets of like size), weighted by how often it ran with it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nest_values: Vec<NestValues>,
}

/// The value sets one nest ran with.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct NestValues {
    /// Program unit.
    pub unit: String,
    /// Loop id of the nest's outermost DO loop.
    pub loop_id: u32,
    /// The scalars (lower case).
    pub vars: Vec<String>,
    /// Distinct value sets (in the order of `vars`) and the entries of the nest with
    /// each, most frequent first (equally frequent ones in a pseudo-random order).
    pub sets: Vec<ValueSet>,
    /// Entries with value sets the run could not keep (too many distinct ones).
    pub other: u64,
}

/// One set of values and how often the nest ran with it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ValueSet {
    /// Entries of the nest with these values.
    pub count: u64,
    /// The values, in the order of [`NestValues::vars`].
    pub values: Vec<i64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RuntimeShape {
    /// Program unit.
    pub unit: String,
    /// Array name (lower case).
    pub array: String,
    /// `[lower bound, extent]` per dimension.
    pub bounds: Vec<[i64; 2]>,
}

/// A reference whose addresses were sampled in the instrumented run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SampledRef {
    /// Program unit.
    pub unit: String,
    /// File of the unit.
    pub file: String,
    /// Line of the statement.
    pub line: u32,
    /// Array name.
    pub array: String,
    /// The reference as written (`x(idx(i))`).
    pub reference: String,
    /// Why it is not affine.
    pub reason: String,
    /// The loop (id in the unit) whose memory row it joins: the affine nest
    /// holding it, else its outermost enclosing loop that holds no nest.
    pub loop_id: u32,
    /// Times the reference executed (exact).
    pub executions: u64,
    /// Its accesses kept by the sampler.
    pub samples: u64,
    /// Spatial sampling rate of the sampler (a line is kept with this
    /// probability); the histogram is scaled to `executions`.
    pub sample_rate: f64,
    /// Element size in bytes (0 when unknown).
    pub elem_bytes: u64,
    /// Reuse distances (lines) over all executions, measured among the
    /// probed references only, estimated from the samples and scaled to
    /// `executions`.
    pub histogram: CompactHistogram,
    /// Whether the reference's address depends on a value loaded in the previous
    /// iteration (`j = next(j)` before `next(j)`, a pointer chase): its misses are
    /// paid one after the other, at latency, instead of overlapping.
    #[serde(default)]
    pub dependent: bool,
    /// Bytes between the lowest and the highest sampled address: the region
    /// the reference ranges over, from which its TLB misses are estimated
    /// (0 in profiles made before it).
    #[serde(default)]
    pub span_bytes: u64,
    /// The share of its executions that moved to a cache line none of its streams holds
    /// and were strided: by the same step in bytes as the execution before (at most a
    /// page), or by continuing one of the line streams it walks (eight followed, as a
    /// hardware prefetcher's stream table follows them: a banded matrix's `x(col(k))`
    /// interleaves three). Its strided share is priced at the levels' line rate instead
    /// of as random accesses (0 in profiles made before it was recorded; the byte step
    /// alone before session 70).
    #[serde(default)]
    pub strided_share: f64,
}

/// The address sampling of the instrumented run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AddressSampling {
    /// Probed references.
    pub probes: usize,
    /// Executions of all probed references.
    pub executions: u64,
    /// Samples kept (at most `augur_program::instrument::PROBE_MAX_SAMPLES`).
    pub samples: u64,
    /// Final spatial sampling rate (`2^-shift`).
    pub sample_rate: f64,
    /// Memory of the run's sample buffer, bytes.
    pub buffer_bytes: u64,
    /// Seconds to read the samples and build the histograms.
    pub seconds: f64,
    /// Largest memory of the reuse analyzer on the samples, bytes.
    pub peak_bytes: u64,
    /// Why sampling is incomplete, when it is (buffer allocation failed, ...).
    pub note: Option<String>,
}

/// One affine loop nest.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct NestLocality {
    /// Program unit.
    pub unit: String,
    /// Loop id (in the unit) of the outermost loop.
    pub loop_id: u32,
    /// File of the unit.
    pub file: String,
    /// Line of the outermost DO.
    pub line: u32,
    /// Times the nest ran: entries of its outermost loop.
    pub executions: f64,
    /// True when some loop ran its mean trip count instead of its bounds.
    pub approximate: bool,
    /// Accesses of one execution.
    pub accesses: u64,
    /// Distinct lines one execution touches (estimate when sampled).
    pub footprint_lines: u64,
    /// Distinct pages one execution touches (0 in profiles made before page
    /// histograms).
    #[serde(default)]
    pub footprint_pages: u64,
    /// Accesses actually streamed: fewer than `accesses` when only a prefix
    /// of the outermost loop's iterations was analyzed (the first iteration,
    /// then enough to reach the budget, scaled to all of them).
    pub streamed_accesses: u64,
    /// Sampling rate of the analyzer at the end of the nest (1 = exact).
    pub sample_rate: f64,
    /// `affine` (DO loops with affine subscripts) or `array_syntax` (the
    /// nest holds whole-array statements or sections as implicit loops).
    #[serde(default = "affine_kind")]
    pub kind: String,
    /// Per array referenced.
    pub arrays: Vec<ArrayLocality>,
    /// For a nest whose loops run loops one after another (a time step's sweeps: the
    /// first loop from the outermost holding two or more loops directly), each of those
    /// loops' accesses per array, in program order. Empty for other nests and in
    /// profiles made before it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phases: Vec<PhaseAccesses>,
}

/// The accesses of one phase of a nest (a loop the nest runs after another) per
/// execution of the nest, per array in the order of [`NestLocality::arrays`].
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct PhaseAccesses {
    /// Line of the phase's DO.
    pub line: u32,
    /// All accesses of each array in the phase.
    pub accesses: Vec<u64>,
    /// Those of references that move two lines or more per iteration of their innermost
    /// loop (a strided sweep, no sequential stream).
    pub strided: Vec<u64>,
    /// The lines its references walk through: an access that moves `s` bytes along its
    /// innermost loop walks `min(s, line) / line` of a line (a unit-stride `real(8)`
    /// sweep an eighth, a strided one a whole line, an invariant one none), the misses
    /// the phase can make of each array.
    pub lines: Vec<u64>,
}

/// The `kind` of a nest extracted from DO loops (the default of profiles made before `array_syntax` nests).
pub fn affine_kind() -> String {
    "affine".to_string()
}

/// One array in one nest.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ArrayLocality {
    /// Array name (lower case).
    pub name: String,
    /// Bytes per element.
    pub elem_bytes: u64,
    /// Accesses per execution of the nest (exact).
    pub accesses: u64,
    /// Distinct lines of the array one execution touches.
    pub footprint_lines: u64,
    /// Reuse distances (in lines) of all accesses of one execution.
    pub histogram: CompactHistogram,
    /// The part of `histogram` that enters the execution: the first access
    /// to each line in it (cold, or at the distance from its use before).
    pub entering: CompactHistogram,
    /// The same accesses' reuse distances in [`PAGE_BYTES`] pages (the TLB
    /// misses of any TLB follow from it). Empty in profiles made before it.
    #[serde(default)]
    pub pages: CompactHistogram,
    /// The part of `pages` that enters the execution.
    #[serde(default)]
    pub entering_pages: CompactHistogram,
    /// Distinct pages of the array one execution touches.
    #[serde(default)]
    pub footprint_pages: u64,
    /// Largest byte stride of its references along their innermost loop
    /// (`augur_locality::Nest::inner_strides`): with a cache's geometry it
    /// says how many of the cache's sets a sweep can reach (0: unknown or
    /// invariant, every set).
    #[serde(default)]
    pub inner_stride_bytes: u64,
    /// True when the nest stores into the array.
    #[serde(default)]
    pub written: bool,
    /// Of `accesses`, those of references that move by a nonzero number of bytes
    /// less than two lines per iteration of their innermost loop: sequential streams,
    /// which hardware prefetchers follow (up to one line in profiles made before
    /// 2026-11-30). Absent in profiles made before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequential_accesses: Option<u64>,
    /// Write-backs of the lines its stores dirtied, as distances
    /// (`augur_locality::reuse::NestArrayHistogram::writebacks`): their misses
    /// on a cache are the dirty lines it sends down to the next level. Empty
    /// in profiles made before it.
    #[serde(default, skip_serializing_if = "CompactHistogram::is_empty")]
    pub writebacks: CompactHistogram,
    /// The reuse distances of its stores alone (part of `histogram`): their
    /// misses on a cache are stores that find their line absent. Empty in
    /// profiles made before it.
    #[serde(default, skip_serializing_if = "CompactHistogram::is_empty")]
    pub stores: CompactHistogram,
    /// The reuse distances of all its accesses counting only the lines of the same
    /// page-offset class between two uses (`augur_locality::classes`): what a set of a
    /// cache indexed by the bits inside a page sees. Recorded for the arrays of units
    /// that walk an array at a stride of a multiple of four lines (one that reaches a
    /// quarter of the classes or fewer); empty otherwise and in profiles made before
    /// 2026-12-05.
    #[serde(default, skip_serializing_if = "CompactHistogram::is_empty")]
    pub class_histogram: CompactHistogram,
}

/// A reuse-distance histogram, sparse: `bins` holds `[bin, weight]` pairs
/// with non-zero weight. Bins `0..64` are the distances 0..63; above, each
/// power of two `[2^k, 2^(k+1))` is split into 8 equal bins
/// (`augur_locality::reuse::bin_range`). `cold` counts first touches.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct CompactHistogram {
    /// First touches (infinite distance).
    pub cold: u64,
    /// `[bin index, weight]`, increasing bin index.
    pub bins: Vec<[u64; 2]>,
}

impl CompactHistogram {
    /// True when it holds no access.
    pub fn is_empty(&self) -> bool {
        self.cold == 0 && self.bins.is_empty()
    }

    /// All accesses (cold included).
    pub fn total(&self) -> u64 {
        self.cold + self.bins.iter().map(|b| b[1]).sum::<u64>()
    }
}

/// A reference left out of a nest.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct NonAffineRef {
    /// Program unit.
    pub unit: String,
    /// File.
    pub file: String,
    /// Line of the statement.
    pub line: u32,
    /// Array name.
    pub array: String,
    /// Why it is not affine (`subscript: indirect through \`idx\``, ...).
    pub reason: String,
}

/// A loop that ran but is not part of an analyzed nest.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SkippedLoop {
    /// Program unit.
    pub unit: String,
    /// File.
    pub file: String,
    /// Line of its DO.
    pub line: u32,
    /// Why.
    pub reason: String,
}

/// A value given to a symbolic name from a measured trip count.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AssumedValue {
    /// Program unit.
    pub unit: String,
    /// The name (lower case).
    pub name: String,
    /// Its value.
    pub value: i64,
    /// Line of the loop whose trip count gave it.
    pub line: u32,
}
