//! The memory section of the machine profile (`[memory]`): the cache and TLB geometry,
//! latencies, miss penalties and bandwidths inferred from the memory experiments of
//! `augur characterize --memory` (crate `augur-memory`, which also holds the logic), the
//! values the OS reports beside them, and the raw curves they were read from.
//!
//! Plain serializable data, no logic. Sizes are in bytes, times in nanoseconds,
//! bandwidths in GB/s (10⁹ bytes per second). Every inferred parameter has a source:
//! [`MEASURED`] (read off the curves) or [`FROM_OS`] (the curves could not show it, so the
//! OS value is used).

use serde::{Deserialize, Serialize};

/// Source of a parameter read off the curves.
pub const MEASURED: &str = "measured";
/// Source of a parameter the curves cannot show, taken from the OS.
pub const FROM_OS: &str = "from OS";

/// The memory hierarchy of a machine (with a compiler and flags).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct MemoryProfile {
    /// The compiler the experiments were built with.
    pub compiler: String,
    /// Its flags.
    pub fflags: String,
    /// `quick` or `default`.
    pub mode: String,
    /// When the measurement ended (UTC, RFC 3339).
    pub date: String,
    /// Wall time of the memory characterization, in s.
    pub elapsed_s: f64,
    /// Target duration of one observation, in ms.
    pub window_ms: f64,
    /// Observations per point (the median is kept).
    pub observations: u32,
    /// The OS page size, in bytes.
    pub os_page_bytes: u64,
    /// The TLB size the OS reports (`TLB size` of /proc/cpuinfo, in 4 KiB pages), where it
    /// does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_tlb_entries: Option<u64>,
    /// The data caches, innermost first.
    pub levels: Vec<CacheLevel>,
    /// Main memory behind the last level.
    pub memory: MainMemory,
    /// The data TLB levels, innermost first.
    #[serde(default)]
    pub tlb: Vec<TlbLevel>,
    /// What the comparison of sequential and random access says about prefetching.
    pub prefetch: Prefetch,
    /// Remarks of the inference (what could not be read, and why).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Saavedra's sweep: one curve per array size.
    #[serde(default)]
    pub sweep: Vec<SweepCurve>,
    /// The flags the experiments of the hardware's rates (the stride sweep and the TLB
    /// gathers) were built with, where they are not `fflags`: an unoptimized profile's are
    /// built with optimization, so that they measure the caches and the page walks rather
    /// than their own loops (absent: built with `fflags`, as every profile made before
    /// 2026-12-05 was).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hardware_fflags: Option<String>,
    /// Pointer-chase latencies.
    #[serde(default)]
    pub chase: Vec<ChaseCurve>,
    /// The TLB chase: one line per page-sized stride.
    #[serde(default)]
    pub tlb_chase: Vec<TlbCurve>,
    /// The TLB gather: the TLB chase's elements at a stride of one page read
    /// independently in a random order (translations the core can overlap), and the same
    /// at [`far_stride`] (walks that each read a page-table line of their own). Absent in
    /// profiles measured before it existed; the far curve in those measured before
    /// 2026-12-01.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tlb_gather: Vec<TlbCurve>,
    /// The slot chases (line and page sizes without prefetching): one curve per element
    /// count and kind of pages. Absent in profiles measured before they existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slot_chase: Vec<SlotCurve>,
    /// Streaming kernels.
    #[serde(default)]
    pub streams: Vec<StreamPoint>,
}

/// One data (or unified) cache level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct CacheLevel {
    /// `L1d`, `L2`, `L3`.
    pub name: String,
    /// Level number (1 = closest to the core).
    pub level: u32,
    /// Capacity, bytes.
    pub size_bytes: u64,
    /// `measured` or `from OS`.
    pub size_source: String,
    /// Line size, bytes.
    pub line_bytes: u64,
    /// `measured` or `from OS`.
    pub line_source: String,
    /// Associativity (ways); absent when neither the curves nor the OS give it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ways: Option<u32>,
    /// `measured` or `from OS`.
    pub ways_source: String,
    /// Load-to-use latency of a hit in this level (dependent random chase), ns.
    pub latency_ns: f64,
    /// What a miss in this level costs a dependent load: the next level's latency minus
    /// this one's, ns.
    pub miss_penalty_ns: f64,
    /// What a miss costs a strided read loop (Saavedra's regime 2.b minus regime 1, for
    /// arrays just above this level, stride of one line), ns per access.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strided_miss_ns: Option<f64>,
    /// Triad bandwidth with the arrays resident in this level, GB/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_gbs: Option<f64>,
    /// Capacity as the OS reports it, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_size_bytes: Option<u64>,
    /// Line size as the OS reports it (`coherency_line_size`), bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_line_bytes: Option<u64>,
    /// Associativity as the OS reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_ways: Option<u32>,
}

/// Main memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct MainMemory {
    /// Latency of a dependent random load far beyond the last cache, ns (includes TLB
    /// misses at that working set).
    pub latency_ns: f64,
    /// Triad bandwidth with arrays larger than the last cache, GB/s.
    pub bandwidth_gbs: f64,
    /// Cost of the first touch of a page of freshly allocated memory (the operating
    /// system's minor page fault: it zeroes and maps the page), ns per base page; absent
    /// in profiles made before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_fault_ns: Option<f64>,
}

/// One data TLB level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct TlbLevel {
    /// `L1 DTLB`, `L2 DTLB`.
    pub name: String,
    /// Entries (reach / page size).
    pub entries: u64,
    /// Page size (granularity of an entry), bytes.
    pub page_bytes: u64,
    /// `measured` or `from OS`.
    pub page_source: String,
    /// Memory covered: entries × page size, bytes.
    pub reach_bytes: u64,
    /// Extra latency of a load that misses this level (and hits the next), ns.
    pub miss_penalty_ns: f64,
}

/// Hardware prefetching, as seen from access-pattern timings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Prefetch {
    /// Whether sequential or strided access is much cheaper than a random chase at the
    /// same working set.
    pub detected: bool,
    /// The working set of the comparison, bytes.
    pub size_bytes: u64,
    /// Dependent random chase, ns per load.
    pub random_ns: f64,
    /// Dependent sequential chase (next line), ns per load: cheaper only with prefetching.
    pub sequential_ns: f64,
    /// Independent strided reads at one line per access, ns per access (prefetching plus
    /// memory-level parallelism).
    pub strided_ns: f64,
    /// In words.
    pub summary: String,
}

/// Saavedra's curve for one array size: time per access of a strided read loop against
/// the stride.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct SweepCurve {
    /// Array size, bytes.
    pub size_bytes: u64,
    /// Strides, bytes.
    pub stride_bytes: Vec<u64>,
    /// Fastest undisturbed time per access, ns (loop overhead included; see
    /// [`CacheLevel::strided_miss_ns`] for differences).
    pub ns: Vec<f64>,
}

/// Pointer-chase latency against the working set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ChaseCurve {
    /// `random` (a random cyclic permutation, one line per element) or `sequential` (each
    /// element points to the next line).
    pub order: String,
    /// Working sets, bytes.
    pub size_bytes: Vec<u64>,
    /// Fastest undisturbed time per dependent load, ns.
    pub ns: Vec<f64>,
}

/// The TLB chase at one stride: a random cyclic chase over `count` elements `stride` bytes
/// apart (one line each, staggered across cache sets).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct TlbCurve {
    /// Distance between elements, bytes.
    pub stride_bytes: u64,
    /// Element counts.
    pub count: Vec<u64>,
    /// Fastest undisturbed time per dependent load, ns.
    pub ns: Vec<f64>,
}

/// The slot chase at one element count: a random cyclic chase over `count` elements, each
/// at a pseudo-random 8-byte-aligned offset inside its own slot, against the slot size.
/// Elements share a line (a page) while the slot is smaller than it, so the time grows
/// with the slot up to the line (page) size and then stays flat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct SlotCurve {
    /// `huge` (transparent huge pages where granted: fewer TLB misses) or `base` (the
    /// OS's base pages: the TLB's page size).
    pub pages: String,
    /// Elements.
    pub count: u64,
    /// Slot sizes, bytes.
    pub slot_bytes: Vec<u64>,
    /// Fastest undisturbed time per dependent load, ns.
    pub ns: Vec<f64>,
}

/// One streaming kernel at one array size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct StreamPoint {
    /// `copy`, `scale`, `add` or `triad`.
    pub kernel: String,
    /// Bytes per array (`real(8)`, three arrays).
    pub array_bytes: u64,
    /// Bandwidth counting the bytes the kernel reads and writes (STREAM's convention: no
    /// write-allocate traffic), GB/s.
    pub gbs: f64,
}

/// The far stride of the TLB gather ([`MemoryProfile::tlb_gather`]): seven pages and a
/// line. A line of the page table holds eight pages' entries, so the walks of a gather
/// one page apart share their page-table lines and those of one seven pages apart read
/// a line of their own seven times in eight (a row sweep of a 4000 x 4000 `real(8)`
/// matrix, 7.8 pages a column: 6.0 ns an access over 4,000 columns on a Zen 4 guest
/// where the gather one page apart rose to 2.9); an odd number of pages reaches every
/// set of the TLB and the extra line every set of the caches, as a stride that is not a
/// power of two does.
pub fn far_stride(page: u64, line: u64) -> u64 {
    7 * page + line
}

/// Linear interpolation of `y` at `x0` in log-x space over ascending `x` (clamped to the
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
