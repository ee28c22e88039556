//! The memory term: the time a loop nest spends moving cache lines between the levels
//! of the memory hierarchy, and how it combines with the operation time.
//!
//! The program side is machine-independent (the program profile's reuse-distance
//! histograms per loop nest and array, `augur_program_profile::locality`); the machine side is
//! the `[memory]` section of the machine profile (cache geometry and the bandwidth of
//! each level). For every cache level `k` the histograms give the misses `M_k` of the
//! nest on that level's geometry; each miss brings one line from the level below, so the
//! transfer time is `M_k · t_{k+1}`, where `t_{k+1}` is the time the supplying level
//! (L2 for L1 misses, ..., main memory for last-level misses) takes per line: the
//! smaller of `line / B_{k+1}` at its triad bandwidth and the stride sweep's time per
//! access at a one-line stride just beyond level `k` ([`sweep_line_seconds`]).
//! Throughputs rather than latencies are used because hardware prefetching (detected on
//! this machine kind) hides the latency of the regular streams affine nests make.
//! Dirty lines (the write-back histograms, `ArrayLocality::writebacks`) cost a line time
//! when they go back to main memory, whose bandwidth fills and write-backs share (the
//! triad's counted bytes are three of its four transfers: [`TRIAD_LINES_PER_COUNTED`]);
//! into the inner levels they travel beside the fills. Stores that miss the first level
//! in a stream confined to one of its sets stall the in-order commit
//! ([`add_store_stalls`]).
//!
//! Overlap (the ECM question): an out-of-order core may overlap transfers with
//! computation, so that a nest takes `max(T_ops, T_mem)` ([`Overlap::Max`]), or not, as
//! in Saavedra's chapter 5, `T_ops + T_mem` ([`Overlap::Sum`]). The default,
//! [`Overlap::Streams`], overlaps the sequential streams (each line priced once, at the
//! level that supplied it, the levels moving a line at the same time) and adds the rest;
//! the accuracy benchmark prints all four (docs/ACCURACY.md). Stream costs already
//! include L1 hits (their kernels were L1-resident), so only transfers into L1 and below
//! are added.
//!
//! Three kinds of references feed the term, each labelled in the breakdown: `affine`
//! (DO nests with affine subscripts), `array_syntax` (whole-array statements and
//! sections, as implicit loop nests over their runtime extents) and `sampled`
//! (references that are not affine — gathers, indirect subscripts, pointer chasing —
//! whose addresses the instrumented run sampled; their histograms cover all their
//! executions and join the row of the loop nest that holds them; their random reads are
//! priced at the machine's gather curve, or where the loop that issues them holds few
//! misses in its window, at the chase's latency shared by those misses,
//! [`IssuingLoop`]). Affine references in
//! loops that make no nest (DO WHILE, non-affine bounds) still have no memory term.
//!
//! Arrays swept at a stride of two lines or more that the machine's stride sweep has a
//! like of (a power-of-two stride: a transpose's column walk) are priced from the sweep
//! at their stride and reuse distance instead of the levels' line times ([`swept`]).

use augur_locality::cache::CacheGeometry;
use augur_locality::profile::{
    misses, sampled_misses, sampled_tlb_misses, tlb_misses_between, touched_between,
    CompactHistogramExt, Granule, NestMisses,
};
use augur_machine_profile::memory::{interp, CacheLevel, MemoryProfile};
use augur_program_profile::locality::{LocalityProfile, PAGE_BYTES};
use serde::Serialize;

mod swept;
pub use swept::SWEPT;

/// How operation time and memory time combine within a loop nest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum Overlap {
    /// `max(T_ops, T_mem)`: transfers overlap computation (out-of-order core).
    Max,
    /// `T_ops + T_mem`: no overlap (Saavedra's delay term).
    Sum,
    /// `max(T_ops, T_seq) + T_other`: the transfers of sequential streams (arrays swept
    /// along the innermost loop at a stride of less than two lines, which hardware
    /// prefetchers follow) overlap computation; the others (strided, gathered, chased)
    /// add to it (a triad swept from L2, L3 and memory on a Zen 5 runs at the larger of
    /// its operations and its transfers).
    Streams,
    /// `max(T_ops, T_issue + T_seq) + T_other`: as [`Overlap::Streams`], but a
    /// sequential stream's transfers overlap only the arithmetic, not the issue of the
    /// loads and stores that wait for them (`T_issue`: in a loop priced from its compiled
    /// code, the time its load and store instructions hold the address pipes; elsewhere
    /// the array references' address work and the stores, at their costs) — the split
    /// of the ECM model. The default:
    /// a 7-point sweep on a Zen 5 takes 0.69 ns a point in cache and 1.05 from memory
    /// (the larger of operations and transfers would say 0.69), and the accuracy
    /// benchmark supports it (docs/ACCURACY.md).
    #[default]
    Ecm,
    /// No memory term.
    None,
}

/// One level's share of a nest's memory time.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct LevelTraffic {
    /// The level whose misses these are (`L1d`, `L2`, `L3`).
    pub level: String,
    /// Misses over all executions of the nest.
    pub misses: f64,
    /// Dirty lines written back to the level below over all executions.
    pub writebacks: f64,
    /// Seconds to bring those lines from the level below and to send the dirty
    /// ones down to it, each at the level's line time.
    pub seconds: f64,
}

/// The memory time of one loop nest.
#[derive(Debug, Clone, Serialize)]
pub struct NestMemory {
    /// Program unit.
    pub unit: String,
    /// Loop id of the nest's outermost loop.
    pub loop_id: u32,
    /// Its line.
    pub line: u32,
    /// What the row holds: `affine`, `array_syntax`, `sampled`, or several
    /// joined by `+`.
    pub kind: String,
    /// Σ over levels.
    pub seconds: f64,
    /// Per level.
    pub levels: Vec<LevelTraffic>,
    /// Per array (or sampled reference) and level.
    pub arrays: Vec<ArrayTraffic>,
    /// The least time its sequential streams take when main memory feeds them
    /// ([`fill_floor`]): every line they bring into the first level, at main memory's
    /// line time, in the proportion of the second level's misses that memory serves.
    #[serde(default)]
    pub fill_floor_seconds: f64,
}

/// One array's (or one sampled reference's) share of a nest's memory time.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ArrayTraffic {
    /// Array name (for a sampled reference, the reference as written).
    pub name: String,
    /// `affine`, `array_syntax` or `sampled`.
    pub kind: String,
    /// Line of the nest, or of the sampled reference's statement.
    pub line: u32,
    /// Accesses over all executions.
    pub accesses: f64,
    /// Whether its accesses form a sequential stream along the innermost loop (a stride
    /// of less than two lines), which hardware prefetchers follow.
    #[serde(default)]
    pub sequential: bool,
    /// The share of its accesses made by references that sweep sequentially (a
    /// nonzero stride of less than two lines along their innermost loop); its
    /// transfers count as a sequential stream's in this proportion.
    #[serde(default)]
    pub sequential_share: f64,
    /// Misses and seconds per level.
    pub levels: Vec<LevelTraffic>,
}

fn add_kind(kinds: &mut String, k: &str) {
    if !kinds.split('+').any(|x| x == k) {
        if !kinds.is_empty() {
            kinds.push('+');
        }
        kinds.push_str(k);
    }
}

/// Seconds per access of the machine's stride sweep at a stride of one line for the
/// smallest array of at least `size` bytes: a read stream whose every access brings a
/// line from beyond the level of that size (Saavedra's regime 2.b, loop included), the
/// time a level delivers a line when nothing else competes. The triad bandwidths of the
/// inner levels are bounded by the triad's own operations when the compiler does not
/// vectorize it (gcc 12 at -O2: 27 GB/s "in L1", less than in L2), so a level's line time
/// is the smaller of the two.
fn sweep_line_seconds(mem: &MemoryProfile, size: u64, line: u64) -> Option<f64> {
    mem.sweep
        .iter()
        .filter(|r| r.size_bytes >= size)
        .min_by_key(|r| r.size_bytes)
        .and_then(|r| {
            let i = r.stride_bytes.iter().position(|&s| s == line)?;
            r.ns.get(i).copied()
        })
        .filter(|ns| *ns > 0.0)
        .map(|ns| ns * 1e-9)
}

/// The machine's cost of address translation as a staircase: `(pages, seconds)` per step,
/// where an access whose page was last used `pages` or more pages before pays `seconds`
/// more than one at a shorter distance. Read from the memory characterization's TLB chase
/// at a stride of one base page (a random cyclic chase over `count` pages, one line each)
/// minus its random chase over as many lines packed together (the same cache misses
/// without the page changes), through its running maximum (the cost never falls with
/// more pages), overlapped as independent misses are; or, when the profile has the TLB
/// gather (the same pages read independently), that gather's rise over a gather of as
/// many packed lines: the overlap the machine's page walkers achieve, measured. Empty when the profile has no such curves; an entry of a page larger
/// than [`PAGE_BYTES`] is not modelled (the chase's stride is the base page).
pub fn translation_steps(mem: &MemoryProfile) -> Vec<(u64, f64)> {
    let page = page_bytes(mem);
    let Some(tlb) = mem.tlb_chase.iter().find(|c| c.stride_bytes == page) else {
        return vec![];
    };
    let Some(rand) = mem.chase.iter().find(|c| c.order == "random") else {
        return vec![];
    };
    let line = mem.levels.first().map_or(64, |l| l.line_bytes.max(1));
    // Misses of the first-level TLB that hit a further level cost a few cycles, which an
    // out-of-order core overlaps with independent work (the stride sweep's independent
    // loads show a fraction of the chase's rise): only the rises from the last TLB
    // level's reach on, the page walks, are charged.
    let walks_from = walks_from(mem);
    // The chase's walks wait for one another; those of independent accesses (the only
    // ones charged here: affine references and the strided share of sampled ones)
    // overlap as their misses do, by the ratio of the machine's independent (gather) to
    // dependent (random) reads over the same span (Zen 3 guest, 16 MiB: 6.9 against
    // 119 ns; a store stream one page apart over 1.5 GB took about 2 ns a walk, not 27).
    let gather = mem.chase.iter().find(|c| c.order == "gather");
    let overlapped = |count: u64| -> f64 {
        let Some(g) = gather else { return 1.0 };
        let span = count * page;
        let (independent, dependent) = (
            interp(&g.size_bytes, &g.ns, span),
            interp(&rand.size_bytes, &rand.ns, span),
        );
        if independent > 0.0 && dependent > 0.0 {
            (independent / dependent).min(1.0)
        } else {
            1.0
        }
    };
    // Measured directly when the profile has the TLB gather (the chase's pages read
    // independently): its rise over a gather of as many lines packed together.
    let independent = mem
        .tlb_gather
        .iter()
        .find(|c| c.stride_bytes == page)
        .zip(gather)
        .filter(|(t, _)| t.count == tlb.count);
    let cost: Vec<f64> = match independent {
        Some((t, g)) => t
            .count
            .iter()
            .zip(&t.ns)
            .map(|(&count, &ns)| (ns - interp(&g.size_bytes, &g.ns, count * line)).max(0.0))
            .collect(),
        None => tlb
            .count
            .iter()
            .zip(&tlb.ns)
            .map(|(&count, &ns)| {
                let rise = (ns - interp(&rand.size_bytes, &rand.ns, count * line)).max(0.0);
                rise * overlapped(count)
            })
            .collect(),
    };
    walk_steps(&tlb.count, &cost, walks_from)
}

/// The TLB entries from which misses are page walks: the last TLB level's reach (0 when
/// the profile has fewer than two levels).
fn walks_from(mem: &MemoryProfile) -> u64 {
    if mem.tlb.len() >= 2 {
        mem.tlb.last().map_or(0, |t| t.entries)
    } else {
        0
    }
}

/// The rises of a translation curve (`cost` at page counts `count`) from `walks_from`
/// pages on, each at the reuse distance of its count: a cyclic walk over `count` pages
/// reuses each page at a distance of `count − 1`.
fn walk_steps(count: &[u64], cost: &[f64], walks_from: u64) -> Vec<(u64, f64)> {
    staircase(count, cost)
        .into_iter()
        .filter(|&(count, _)| count >= walks_from)
        .map(|(count, rise)| (count.saturating_sub(1).max(1), rise))
        .collect()
}

/// The base page of `mem`'s host.
fn page_bytes(mem: &MemoryProfile) -> u64 {
    if mem.os_page_bytes > 0 {
        mem.os_page_bytes
    } else {
        PAGE_BYTES
    }
}

/// The translation staircase of accesses at the TLB gather's far stride
/// ([`augur_machine_profile::memory::far_stride`]: seven pages and a line, each walk
/// reading a page-table line of its own): the far gather's rise over a gather of as many
/// packed lines, from the last TLB level's reach on, as [`translation_steps`] reads the
/// gather one page apart. Empty when the profile lacks the far gather (measured before
/// it existed).
pub fn far_translation_steps(mem: &MemoryProfile) -> Vec<(u64, f64)> {
    let page = page_bytes(mem);
    let line = mem.levels.first().map_or(64, |l| l.line_bytes.max(1));
    let far = augur_machine_profile::memory::far_stride(page, line);
    let (Some(t), Some(g)) = (
        mem.tlb_gather.iter().find(|c| c.stride_bytes == far),
        mem.chase.iter().find(|c| c.order == "gather"),
    ) else {
        return vec![];
    };
    let walks_from = walks_from(mem);
    let cost: Vec<f64> = t
        .count
        .iter()
        .zip(&t.ns)
        .map(|(&count, &ns)| (ns - interp(&g.size_bytes, &g.ns, count * line)).max(0.0))
        .collect();
    walk_steps(&t.count, &cost, walks_from)
}

/// The weight (0-1) of the far staircase ([`far_translation_steps`]) for an array read
/// `stride` bytes an access along its innermost loop: 0 at a page or less, 1 from seven
/// pages on (the far gather's stride), between them `ln(s) / ln 7` of the way for a
/// stride of `s` pages. A page-table line holds eight pages' entries, so walks `s` pages
/// apart read a new one more often the longer `s` is; on a Zen 4 guest, reads of one
/// line per column over 4,000 columns cost 2.0-4.4, 2.4-4.6, 4.0-5.8 and 5.3-6.0 ns at 1,
/// 2, 4 and 7.8 pages a column in three runs, in that order within each
/// (`measurements/zen4-2026-12-01/s60/far-reads.txt`).
/// An array the nest writes keeps the page staircase: its stores' walks overlap behind
/// the store queue (zeroing a 10,000 x 10,000 `real` matrix by rows, 9.8 pages a column
/// over 10,000 columns: 6.4 ns a 16-byte store there, what the page staircase says, where
/// reads so far apart take 7.4-8.5).
fn far_weight(stride: u64, page: u64, written: bool) -> f64 {
    let pages = stride as f64 / page.max(1) as f64;
    if written || pages <= 1.0 {
        return 0.0;
    }
    (pages.ln() / 7f64.ln()).clamp(0.0, 1.0)
}

/// The rises of a curve over its first point, through its running maximum:
/// `(x, seconds)` wherever `ns` exceeds every earlier value (the first point is what
/// every access pays, already in the operation costs; a dip is noise and ignored). A
/// rise between two measured points is spread over [`SUB_STEPS`] steps placed evenly in
/// `ln x` between them (each at the middle of its share): a curve measured at points a
/// factor of 1.5 or 2 apart is priced between them as the straight line in `ln x`
/// through them, not at the lower point. The Xeon's TLB gather: 1.3 ns over 2,048 pages,
/// 7.3 ns over 3,072; a transpose's column of 2,600 pages took about 5 ns an access and
/// was priced 0.9.
fn staircase(x: &[u64], ns: &[f64]) -> Vec<(u64, f64)> {
    let mut steps = vec![];
    let mut level: Option<f64> = None;
    let mut previous = 0u64;
    for (&x, &ns) in x.iter().zip(ns) {
        match level {
            None => level = Some(ns),
            Some(l) if ns > l => {
                steps.extend(spread_rise(previous, x, (ns - l) * 1e-9));
                level = Some(ns);
            }
            Some(_) => {}
        }
        previous = x;
    }
    steps
}

/// How many steps a rise between two measured points is spread over ([`staircase`]).
const SUB_STEPS: u32 = 4;

/// A rise of `seconds` between points `from` and `to` as [`SUB_STEPS`] equal steps at
/// the middles of equal shares of `ln x` between them (the whole rise at `to` when
/// `from` is not below it).
fn spread_rise(from: u64, to: u64, seconds: f64) -> Vec<(u64, f64)> {
    if from == 0 || from >= to {
        return vec![(to, seconds)];
    }
    let (a, b) = ((from as f64).ln(), (to as f64).ln());
    (0..SUB_STEPS)
        .map(|j| {
            let t = (f64::from(j) + 0.5) / f64::from(SUB_STEPS);
            let at = (a + t * (b - a)).exp().round() as u64;
            (at.clamp(from + 1, to), seconds / f64::from(SUB_STEPS))
        })
        .collect()
}

/// Lines a triad moves per line of bytes STREAM counts for it: STREAM credits
/// `a(i) = b(i) + q·c(i)` with three arrays' bytes, but a write-allocate cache
/// also reads `a`'s lines before storing into them and writes them back, four
/// transfers for the three counted. Write-backs are counted here (the
/// write-back histograms), so a line's time at a level is the triad's bytes per
/// second times this, over the line.
pub(crate) const TRIAD_LINES_PER_COUNTED: f64 = 4.0 / 3.0;

/// The level name of the store-commit stalls ([`add_store_stalls`]).
pub const STORE_STALLS: &str = "stores";

/// The name of the address-translation row among a nest's levels.
const TLB_LEVEL: &str = "TLB";

/// Adds to a nest the stalls of its stores that miss the first level in a stream
/// whose stride puts all its lines in one set of that level (`one_set`, per array: a
/// multiple of the level's way size, 4 KiB on most cores, as power-of-two leading
/// dimensions make). Stores retire into the cache in program order; the line a
/// store will need is fetched ahead when its address is known, but when the stores
/// in flight outnumber the set's ways, the lines fetched ahead evict one another
/// and each store holds the commit of those behind it for a round trip to the
/// second level, `wait` seconds. Measured on a Zen 5 (4096 × 4096 `real(8)`
/// transposes): 32 × 32 tiles take 4.4 ns more per store than with a leading
/// dimension of 4104 (the loads' own conflict misses cost nothing; the second
/// level's latency is 3.6 ns), and the column-order sweep (stores at a stride of
/// 32 KiB) 5.4 ns more per store than the row-order one (loads at that stride);
/// stores at a stride of 18400 bytes, spread over every set, cost 0.4 ns more
/// than loads at it. Sequential streams are exempt. Reported as a level named
/// [`STORE_STALLS`].
fn add_store_stalls(
    n: &mut NestMemory,
    arrays: &[augur_locality::profile::ArrayMisses],
    one_set: &[bool],
    wait: f64,
) {
    let mut misses = 0.0;
    let mut seconds = 0.0;
    for (k, (a, am)) in n.arrays.iter_mut().zip(arrays).enumerate() {
        let exposed = if one_set.get(k).copied().unwrap_or(false) {
            1.0 - a.sequential_share
        } else {
            0.0
        };
        let stalled = am.store_misses * exposed;
        a.levels.push(LevelTraffic {
            level: STORE_STALLS.into(),
            misses: am.store_misses,
            writebacks: 0.0,
            seconds: stalled * wait,
        });
        misses += am.store_misses;
        seconds += stalled * wait;
    }
    n.seconds += seconds;
    n.levels.push(LevelTraffic {
        level: STORE_STALLS.into(),
        misses,
        writebacks: 0.0,
        seconds,
    });
}

/// The share of an array's accesses in a nest that sweep sequentially
/// ([`ArrayTraffic::sequential_share`]): counted by the locality analysis, or in
/// profiles made before it, all or nothing by the largest stride of its
/// references.
fn sequential_share(a: &augur_program_profile::locality::ArrayLocality, line: u64) -> f64 {
    match a.sequential_accesses {
        Some(s) if a.accesses > 0 => (s as f64 / a.accesses as f64).clamp(0.0, 1.0),
        _ if a.inner_stride_bytes > 0 && a.inner_stride_bytes <= line => 1.0,
        _ => 0.0,
    }
}

/// The memory time of every analyzed nest of a program on a machine; `program_bytes`,
/// the memory the whole program touches when known, bounds what other nests touch
/// between two executions of one (`augur_locality::profile::touched_between`).
pub fn nest_memory(
    loc: &LocalityProfile,
    mem: &MemoryProfile,
    program_bytes: Option<u64>,
    outer_vectors: &[OuterVector],
    tested: &[TestedLoad],
    issuing: &[Option<IssuingLoop>],
) -> Vec<NestMemory> {
    let counted = count_misses(loc, mem, program_bytes);
    nest_memory_counted(&counted, loc, mem, outer_vectors, tested, issuing)
}

/// The misses of every analyzed nest and sampled reference on each cache level and TLB
/// step of a machine: the part of the memory term that needs only the program's
/// histograms and the machine's geometry, and most of its time ([`count_misses`]). A
/// prediction counts them while it prices the blocks (conman's 12 ms of 46 on a 2-vCPU
/// Zen 4 guest).
pub struct CountedMisses {
    /// The cache levels that supply lines ([`supplied_levels`]).
    levels: Vec<SuppliedLevel>,
    /// Per supplied cache level: each nest's misses, and each sampled reference's.
    caches: Vec<(Vec<NestMisses>, Vec<f64>)>,
    /// The TLB entries of every step of either staircase, ascending.
    tlb_entries: Vec<u64>,
    /// Per TLB entry count: each nest's misses, and each sampled reference's (empty when
    /// the machine prices them by its gather curve).
    tlb: Vec<(Vec<NestMisses>, Vec<f64>)>,
    /// Each nest's misses of a contested last level at half the share it is priced at,
    /// and each sampled reference's ([`contested_seconds`]); `None` when the last level
    /// is not contested.
    contested: Option<(Vec<NestMisses>, Vec<f64>)>,
}

/// Counts [`CountedMisses`] for `loc` on `mem`, every cache level and TLB step on the
/// host's cores at once.
pub fn count_misses(
    loc: &LocalityProfile,
    mem: &MemoryProfile,
    program_bytes: Option<u64>,
) -> CountedMisses {
    enum Step {
        Cache(CacheGeometry),
        Tlb(u64),
        Contested(CacheGeometry),
    }
    let levels = supplied_levels(mem, loc.line_bytes.max(1));
    let contested = levels.last().and_then(|last| contested_half(mem, last));
    let mut tlb_entries: Vec<u64> = translation_steps(mem)
        .iter()
        .chain(&far_translation_steps(mem))
        .map(|s| s.0)
        .collect();
    tlb_entries.sort_unstable();
    tlb_entries.dedup();
    let between = if tlb_entries.is_empty() {
        vec![]
    } else {
        touched_between(loc, Granule::Page, program_bytes)
    };
    let sampled_by_levels = gather_steps(mem).is_empty();
    let steps: Vec<Step> = levels
        .iter()
        .map(|l| Step::Cache(l.geometry))
        .chain(tlb_entries.iter().map(|&e| Step::Tlb(e)))
        .chain(contested.map(Step::Contested))
        .collect();
    let mut counted = crate::par::map(&steps, |step| match step {
        Step::Cache(g) => (misses(loc, g, program_bytes), sampled_misses(loc, g)),
        Step::Tlb(e) if sampled_by_levels => (
            tlb_misses_between(loc, *e, &between),
            sampled_tlb_misses(loc, *e),
        ),
        Step::Tlb(e) => (tlb_misses_between(loc, *e, &between), vec![]),
        Step::Contested(g) => (misses(loc, g, program_bytes), sampled_misses(loc, g)),
    });
    let contested = contested.and_then(|_| counted.pop());
    let tlb = counted.split_off(levels.len().min(counted.len()));
    CountedMisses {
        levels,
        caches: counted,
        tlb_entries,
        tlb,
        contested,
    }
}

/// The last level `last` at half the share it is priced at, when other guests contest
/// it: priced below the size the OS reports ([`priced_size`]), or the characterization's
/// capacity inference read less of it than is priced (other guests' lines were there).
/// Such a share moves by the hour: a 2-vCPU Zen 4 guest's characterizations read 8 MiB in
/// two of five and 16 MiB in three, a minute apart, of an OS's 32 MiB (session 97); a
/// multigrid restriction over a 17.6 MB grid ran 3-4 times its prediction at the OS's
/// size there (sessions 86-95).
fn contested_half(mem: &MemoryProfile, last: &SuppliedLevel) -> Option<CacheGeometry> {
    let level = mem.levels.iter().find(|l| l.name == last.name)?;
    let g = last.geometry;
    let half = g.size_bytes / 2;
    let contested = level.os_size_bytes? > g.size_bytes || level.size_bytes < g.size_bytes;
    (contested && half >= g.line_bytes * u64::from(g.ways.max(1))).then_some(CacheGeometry {
        size_bytes: half,
        ..g
    })
}

/// The seconds a program's nests would add if a contested last level gave this guest
/// half its priced share ([`contested_half`]): the lines that miss it then and hit it
/// now, at the price of a line from main memory (sequential ones at the streams' price);
/// and the sampled references' random reads, which the machine's curves price at their
/// reuse distance ([`contested_random_seconds`]). 0 for a last level not contested.
pub fn contested_seconds(
    counted: &CountedMisses,
    loc: &LocalityProfile,
    mem: &MemoryProfile,
) -> f64 {
    let line = loc.line_bytes.max(1);
    let (Some((half, half_sampled)), Some(last), Some((now, now_sampled))) = (
        &counted.contested,
        counted.levels.last(),
        counted.caches.last(),
    ) else {
        return 0.0;
    };
    let mut seconds = 0.0;
    for ((nl, h), n) in loc.nests.iter().zip(half).zip(now) {
        for ((a, ha), na) in nl.arrays.iter().zip(&h.arrays).zip(&n.arrays) {
            let more = (ha.misses - na.misses).max(0.0);
            let share = sequential_share(a, line);
            seconds +=
                more * ((1.0 - share) * last.line_seconds + share * last.stream_line_seconds);
        }
    }
    // Sampled references: the share the cache levels price (all of it without the
    // machine's gather curve, the strided share with it), as `add_cache_level` does.
    let by_levels = gather_steps(mem).is_empty();
    for ((r, h), n) in loc.sampled_refs.iter().zip(half_sampled).zip(now_sampled) {
        let share = if by_levels {
            1.0
        } else {
            r.strided_share.clamp(0.0, 1.0)
        };
        seconds += (h - n).max(0.0) * share * last.line_seconds;
    }
    if !by_levels {
        let private = counted
            .levels
            .iter()
            .rev()
            .nth(1)
            .map(|l| l.geometry.size_bytes);
        seconds += private.map_or(0.0, |p| contested_random_seconds(loc, mem, p as f64));
    }
    seconds
}

/// What the sampled references' random reads would add with half a contested last level:
/// a read whose line was last used `d` bytes before, beyond the `private` levels'
/// capacity, priced at the machine's curve (the chase for dependent reads, the gather
/// for independent ones) at `2d`. The curves are measured on the same contested level
/// (a 2-vCPU Zen 4 guest's five characterizations read its random chase at 16 MiB as
/// 80-139 ns, and moved its memory-bound programs' predictions by up to ±10%, session 97).
fn contested_random_seconds(loc: &LocalityProfile, mem: &MemoryProfile, private: f64) -> f64 {
    let (gather, chase) = (gather_steps(mem), curve_steps(mem, "random"));
    let line = loc.line_bytes.max(1);
    let stretched = |b: f64| if b > private { 2.0 * b } else { b };
    let mut seconds = 0.0;
    for r in &loc.sampled_refs {
        let curve = if r.dependent && !chase.is_empty() {
            &chase
        } else {
            &gather
        };
        let (now, _) = histogram_cost(r, &|b| cost_on(curve, b), line);
        let (half, _) = histogram_cost(r, &|b| cost_on(curve, stretched(b)), line);
        seconds += (half - now).max(0.0) * (1.0 - r.strided_share.clamp(0.0, 1.0));
    }
    seconds
}

/// [`nest_memory`] with the misses counted ahead ([`count_misses`] of the same `loc`
/// and `mem`).
pub fn nest_memory_counted(
    counted: &CountedMisses,
    loc: &LocalityProfile,
    mem: &MemoryProfile,
    outer_vectors: &[OuterVector],
    tested: &[TestedLoad],
    issuing: &[Option<IssuingLoop>],
) -> Vec<NestMemory> {
    let line = loc.line_bytes.max(1);
    let levels = &counted.levels;
    // A store that finds its line absent from the first level holds the in-order
    // commit of the stores behind it for about one round trip to the second level.
    let commit_wait = mem.levels.get(1).map_or(0.0, |l| l.latency_ns * 1e-9);
    let rows = nest_rows(loc);
    let mut out = analyzed_nests(loc, line);
    let sampled_row = add_sampled_refs(&mut out, loc);
    // Sampled references are random accesses: with the machine's gather curve they are
    // priced by it (below), and their misses per level are only reported.
    let gather = gather_steps(mem);
    let sampled = SampledRefs {
        at: &sampled_row,
        priced_by_levels: gather.is_empty(),
        strided: loc
            .sampled_refs
            .iter()
            .map(|r| r.strided_share.clamp(0.0, 1.0))
            .collect(),
    };
    for (k, level) in levels.iter().zip(&counted.caches).enumerate() {
        add_cache_level(&mut out, loc, level, k == 0, commit_wait, &sampled);
    }
    fill_floor(&mut out, levels, mem);
    add_translation(&mut out, loc, counted, mem, &sampled);
    if let Some(first) = levels.first() {
        swept::price_swept_strides(&mut out, loc, mem, &first.geometry);
    }
    if !gather.is_empty() {
        let caches_bytes = mem.levels.iter().map(|l| l.size_bytes).max().unwrap_or(0);
        let random = RandomCurves {
            gather: &gather,
            chase: curve_steps(mem, "random"),
            in_flight: misses_in_flight(loc, &gather, issuing, (line, caches_bytes)),
            caches_bytes,
        };
        add_random_accesses(&mut out, loc, &random, &sampled_row, line);
        add_waits(&mut out, loc, &random, &sampled_row, tested, line);
    }
    for (n, nl) in out.iter_mut().zip(&loc.nests) {
        if let Some(v) = outer_vectors
            .iter()
            .find(|v| v.unit == nl.unit && v.loop_id == nl.loop_id)
        {
            let shapes: Vec<(u64, u64)> = nl
                .arrays
                .iter()
                .map(|a| (a.elem_bytes, a.inner_stride_bytes))
                .collect();
            group_lanes(n, &shapes, v.vector_bytes, line);
        }
    }
    merge_rows(out, &rows)
}

/// A nest whose compiled code runs a loop around its innermost one several iterations
/// at a time in vector lanes (outer-loop vectorization: gfortran -O2 stores
/// `a(i:i+1,j)` at once in `do i; do j; a(i,j) = 0` when `j` strides).
#[derive(Debug, Clone, PartialEq)]
pub struct OuterVector {
    /// Program unit.
    pub unit: String,
    /// Loop id of the nest's outermost loop.
    pub loop_id: u32,
    /// Bytes of the vectors.
    pub vector_bytes: u64,
}

/// The misses of the arrays an outer-vectorized nest strides over in its innermost
/// loop, as the compiled code makes them: the lanes' accesses to one line (page) come
/// together, so an access that missed every time in the source's order misses once per
/// vector, while a line (page) still misses at least once per visit as it did (the
/// source's misses divided by the lanes, never below one per line or page the accesses
/// cover). `shapes` holds each array's element bytes and stride along the innermost
/// loop.
fn group_lanes(n: &mut NestMemory, shapes: &[(u64, u64)], vector_bytes: u64, line: u64) {
    let mut delta: Vec<(String, f64, f64, f64)> = vec![];
    for (a, &(elem_bytes, inner_stride)) in n.arrays.iter_mut().zip(shapes) {
        if inner_stride <= line || elem_bytes == 0 {
            continue;
        }
        let lanes = (vector_bytes / elem_bytes) as f64;
        if lanes < 2.0 {
            continue;
        }
        for lt in &mut a.levels {
            let unit = if lt.level == TLB_LEVEL {
                PAGE_BYTES
            } else {
                line
            };
            let floor = a.accesses / (unit / elem_bytes).max(1) as f64;
            let grouped = (lt.misses / lanes).max(floor.min(lt.misses));
            let ratio = if lt.misses > 0.0 {
                grouped / lt.misses
            } else {
                1.0
            };
            let before = (lt.misses, lt.writebacks, lt.seconds);
            lt.misses *= ratio;
            lt.writebacks *= ratio;
            lt.seconds *= ratio;
            delta.push((
                lt.level.clone(),
                lt.misses - before.0,
                lt.writebacks - before.1,
                lt.seconds - before.2,
            ));
        }
    }
    for (level, misses, writebacks, seconds) in delta {
        if let Some(lt) = n.levels.iter_mut().find(|l| l.level == level) {
            lt.misses += misses;
            lt.writebacks += writebacks;
            lt.seconds += seconds;
        }
        n.seconds += seconds;
    }
}

/// The least share of a nest's first-level fills that main memory must supply for the
/// nest to stream from memory ([`fill_floor`]): one line in a thousand.
const STREAMING_FROM_MEMORY: f64 = 1e-3;

/// Sets each row's [`NestMemory::fill_floor_seconds`]. A nest that streams from main
/// memory brings every line into the first level at about main memory's line time
/// (a line at the bandwidth STREAM counts, each array once), also the lines the
/// second level holds: a 5-point stencil's two neighbouring columns come from the
/// second level, yet the stencil takes five lines' time per eight points, where its
/// three memory streams alone would take three (`/tmp` measurements on a Zen 4 guest,
/// docs/ACCURACY.md "Session 30"). Each array's lines from memory take at least one
/// stream's line time ([`single_stream_line_seconds`]): a nest with one stream is paced
/// by it. The share of the second level's misses that memory
/// serves scales it, so a nest the last cache holds keeps its overlap.
fn fill_floor(out: &mut [NestMemory], levels: &[SuppliedLevel], mem: &MemoryProfile) {
    let (Some(first), Some(second), Some(last)) = (
        levels.first(),
        levels.get(1),
        levels.iter().find(|l| l.last),
    ) else {
        return;
    };
    if mem.memory.bandwidth_gbs <= 0.0 {
        return;
    }
    let line_seconds = first.geometry.line_bytes as f64 / (mem.memory.bandwidth_gbs * 1e9);
    let single_stream = single_stream_line_seconds(mem, first.geometry.line_bytes);
    let misses_at = |a: &ArrayTraffic, name: &str| {
        a.levels
            .iter()
            .filter(|l| l.level == name)
            .map(|l| l.misses)
            .sum::<f64>()
    };
    for n in out.iter_mut() {
        let second_misses: f64 = n.arrays.iter().map(|a| misses_at(a, &second.name)).sum();
        let memory_misses: f64 = n.arrays.iter().map(|a| misses_at(a, &last.name)).sum();
        if second_misses <= 0.0 {
            continue;
        }
        let from_memory = (memory_misses / second_misses).clamp(0.0, 1.0);
        let fills: f64 = n
            .arrays
            .iter()
            .map(|a| a.sequential_share * misses_at(a, &first.name))
            .sum();
        if memory_misses < STREAMING_FROM_MEMORY * fills {
            // The caches hold the nest: its few misses to memory (cold lines, or the
            // analytic hit ratio's residue of 1e-8 lines) stream nothing.
            continue;
        }
        // The stream that brings the most lines from memory, alone at one stream's rate.
        let busiest_stream = n
            .arrays
            .iter()
            .map(|a| a.sequential_share * misses_at(a, &last.name))
            .fold(0.0, f64::max);
        let one_stream = single_stream.map_or(0.0, |t| busiest_stream * t);
        n.fill_floor_seconds = (fills * from_memory * line_seconds).max(one_stream);
    }
}

/// Seconds one sequential stream takes for a line from main memory alone: the
/// machine's single read stream (`read`, with arrays of twice the last level), when
/// the profile has it. Its prefetcher runs a bounded distance ahead of it, so a nest
/// with one stream from memory (a sum, a norm, a matrix-vector product's matrix) gets
/// less than the bandwidth several streams share (a 2-vCPU Emerald Rapids Xeon guest:
/// 6.7 ns a line alone, 3.9 with the triad's).
fn single_stream_line_seconds(mem: &MemoryProfile, line: u64) -> Option<f64> {
    mem.streams
        .iter()
        .filter(|p| p.kernel == "read" && p.gbs > 0.0)
        .max_by_key(|p| p.array_bytes)
        .map(|p| line as f64 / (p.gbs * 1e9))
}

/// A cache level as the memory term prices its misses.
struct SuppliedLevel {
    /// Its name (`L1d`, `L2`, `L3`).
    name: String,
    /// Its geometry.
    geometry: CacheGeometry,
    /// Seconds to bring one line from the level that supplies its misses, for a miss
    /// that is not part of a sequential stream (strided, gathered): one access's line
    /// at a time, as the stride sweep brings them.
    line_seconds: f64,
    /// Seconds a line of sequential streams takes: the prefetchers keep several
    /// streams' lines in flight at once, as the triad's do ([`stream_line_seconds`]).
    stream_line_seconds: f64,
    /// Whether main memory supplies it.
    last: bool,
}

/// Seconds a level supplying lines at `gbs` (the triad's counted bandwidth) takes for
/// one line of `line` bytes of sequential streams: the triad's bytes count three of its
/// four line transfers (two reads, the written array's fill, its write-back), and the
/// write-back competes for the same path at every level (on a 2-vCPU Xeon guest the
/// triad from L3 counts 28 GB/s, 2.3 ns a counted line; a nest of ten read streams from
/// L3 runs at 2.0 ns a line, a single stream of the sweep at 2.1).
fn stream_line_seconds(line: u64, gbs: f64) -> f64 {
    line as f64 / (gbs * TRIAD_LINES_PER_COUNTED * 1e9)
}

/// The machine's cache levels whose misses the term prices, each with the time the
/// level below takes to supply a line: the smaller of the line at its bandwidth and
/// the stride sweep's time ([`sweep_line_seconds`]). Levels without a supplier's
/// bandwidth, or smaller than one line per way, are left out.
fn supplied_levels(mem: &MemoryProfile, line: u64) -> Vec<SuppliedLevel> {
    let mut levels = vec![];
    for (i, l) in mem.levels.iter().enumerate() {
        let size = priced_size(mem, l, line);
        let ways = l.os_ways.or(l.ways).unwrap_or(8).max(1);
        let last = i + 1 == mem.levels.len();
        let supplier = match mem.levels.get(i + 1) {
            Some(next) => next.bandwidth_gbs,
            None => Some(mem.memory.bandwidth_gbs),
        };
        let Some(bw) = supplier.filter(|b| *b > 0.0) else {
            continue;
        };
        if size < line * ways as u64 {
            continue;
        }
        // Main memory's bandwidth is shared by fills and write-backs, which are
        // counted: the triad's bytes count three of its four line transfers.
        let lines_per_counted = if last { TRIAD_LINES_PER_COUNTED } else { 1.0 };
        let by_bandwidth = line as f64 / (bw * lines_per_counted * 1e9);
        let by_sweep = sweep_line_seconds(mem, 2 * size, line);
        let by_streams = stream_line_seconds(line, bw);
        levels.push(SuppliedLevel {
            name: l.name.clone(),
            geometry: CacheGeometry {
                size_bytes: size,
                line_bytes: line,
                ways,
            },
            line_seconds: by_sweep.map_or(by_bandwidth, |t| t.min(by_bandwidth)),
            stream_line_seconds: by_sweep.map_or(by_streams, |t| t.min(by_streams)),
            last,
        });
    }
    levels
}

/// A line from a footprint at least this share of the largest footprint's cost in the
/// stride sweep is priced as main memory prices it (a level inside the last).
const MEMORY_COST_SHARE: f64 = 0.9;

/// The last level is priced up to the footprint where the sweep's line cost is at most
/// this share of the way from the level's hits to main memory's: past it, most of the
/// lines come from memory.
const LAST_LEVEL_MEMORY_SHARE: f64 = 0.5;

/// The size the term prices level `l` at: the OS's, unless the machine's own stride sweep
/// already pays main memory's price for a line at a smaller footprint. A guest given a
/// share of a socket's last-level cache sees the whole socket's size in `/sys` (480 MiB
/// on a 2-vCPU Xeon guest whose lines cost what memory's do from 256 MiB on); then the
/// largest footprint the sweep found cheaper than memory (the capacity inference can
/// misread such a share: 2 MiB there). Memory's price is 90% of the largest footprint's
/// ([`MEMORY_COST_SHARE`]), or for a last level other guests contest, half-way from its
/// hits ([`contested_threshold`]).
fn priced_size(mem: &MemoryProfile, l: &CacheLevel, line: u64) -> u64 {
    let Some(os) = l.os_size_bytes else {
        return l.size_bytes;
    };
    let sweep: Vec<(u64, f64)> = mem
        .sweep
        .iter()
        .filter_map(|r| {
            let i = r.stride_bytes.iter().position(|&s| s == line)?;
            Some((r.size_bytes, *r.ns.get(i)?))
        })
        .filter(|(_, ns)| *ns > 0.0)
        .collect();
    let Some(&(_, largest)) = sweep.iter().max_by_key(|(size, _)| *size) else {
        return os;
    };
    let from_memory =
        contested_threshold(mem, l, &sweep, os).unwrap_or(MEMORY_COST_SHARE * largest);
    let memory_from = sweep
        .iter()
        .filter(|(_, ns)| *ns >= from_memory)
        .map(|(size, _)| *size)
        .min();
    match memory_from {
        Some(m) if m < os && l.size_bytes > 0 => {
            let cheaper = sweep.iter().map(|(size, _)| *size).filter(|&s| s < m).max();
            cheaper.unwrap_or(l.size_bytes)
        }
        _ => os,
    }
}

/// For the last level `l` (OS size `os`), when other guests contest it, the line cost
/// (ns) past which the sweep's footprints (`(bytes, ns)`) come mostly from memory: half-way
/// ([`LAST_LEVEL_MEMORY_SHARE`]) from the level's hits (its least cost above the level
/// below) to memory's (the median cost of the footprints from the OS's size on: one of them
/// can pay the page walks of many more pages). Contested means the cost rises over
/// several footprints: some footprint below the OS's size costs a quarter to three
/// quarters of the way (the Xeon guest of 2026-12-04: 2.1 ns to 64 MiB, 2.5 at 128, 3.3 at
/// 256, 3.8 at 512, memory 3.9). `None` for an inner level or a sharp rise: a cyclic
/// sweep's cliff can sit below what programs get (a Zen 3 guest of 2026-11-25: 1.35 ns at
/// 8 MiB, 4.96 at 16, while a stencil over 14-21 MB ran at the last level's speed).
fn contested_threshold(
    mem: &MemoryProfile,
    l: &CacheLevel,
    sweep: &[(u64, f64)],
    os: u64,
) -> Option<f64> {
    let i = mem.levels.iter().position(|x| x.name == l.name)?;
    if i + 1 != mem.levels.len() {
        return None;
    }
    let below = i
        .checked_sub(1)
        .and_then(|b| mem.levels.get(b))
        .map_or(0, |b| b.os_size_bytes.unwrap_or(b.size_bytes));
    let hits = sweep
        .iter()
        .filter(|(size, _)| *size > below)
        .map(|(_, ns)| *ns)
        .fold(f64::INFINITY, f64::min);
    let mut beyond: Vec<f64> = sweep
        .iter()
        .filter(|(size, _)| *size >= os)
        .map(|(_, ns)| *ns)
        .collect();
    beyond.sort_by(f64::total_cmp);
    let largest = sweep.iter().max_by_key(|(size, _)| *size)?.1;
    let memory = beyond.get(beyond.len() / 2).copied().unwrap_or(largest);
    if hits >= memory {
        return None;
    }
    let way = |ns: f64| (ns - hits) / (memory - hits);
    sweep
        .iter()
        .any(|&(size, ns)| size > below && size < os && (0.25..=0.75).contains(&way(ns)))
        .then_some(hits + LAST_LEVEL_MEMORY_SHARE * (memory - hits))
}

/// A row per analyzed nest (one per value set), its arrays without traffic yet.
fn analyzed_nests(loc: &LocalityProfile, line: u64) -> Vec<NestMemory> {
    loc.nests
        .iter()
        .map(|n| NestMemory {
            unit: n.unit.clone(),
            loop_id: n.loop_id,
            line: n.line,
            kind: n.kind.clone(),
            seconds: 0.0,
            levels: vec![],
            fill_floor_seconds: 0.0,
            arrays: n
                .arrays
                .iter()
                .map(|a| (a, sequential_share(a, line)))
                .map(|(a, share)| ArrayTraffic {
                    name: a.name.clone(),
                    kind: n.kind.clone(),
                    line: n.line,
                    accesses: a.accesses as f64 * n.executions,
                    sequential_share: share,
                    sequential: share >= 0.5,
                    levels: vec![],
                })
                .collect(),
        })
        .collect()
}

/// Adds the sampled references to the rows: each joins the row of its loop, or makes
/// one. Returns where each went: (row, array index in the row).
fn add_sampled_refs(out: &mut Vec<NestMemory>, loc: &LocalityProfile) -> Vec<(usize, usize)> {
    let mut sampled_row = Vec::with_capacity(loc.sampled_refs.len());
    for r in &loc.sampled_refs {
        let at = match out
            .iter()
            .position(|n| n.unit == r.unit && n.loop_id == r.loop_id)
        {
            Some(i) => i,
            None => {
                out.push(NestMemory {
                    unit: r.unit.clone(),
                    loop_id: r.loop_id,
                    line: r.line,
                    kind: String::new(),
                    seconds: 0.0,
                    levels: vec![],
                    arrays: vec![],
                    fill_floor_seconds: 0.0,
                });
                out.len() - 1
            }
        };
        add_kind(&mut out[at].kind, "sampled");
        out[at].arrays.push(ArrayTraffic {
            name: r.reference.clone(),
            kind: "sampled".into(),
            line: r.line,
            accesses: r.executions as f64,
            sequential: false,
            sequential_share: 0.0,
            levels: vec![],
        });
        sampled_row.push((at, out[at].arrays.len() - 1));
    }
    sampled_row
}

/// Where the sampled references are in the rows, and whether their misses per level
/// are priced (else the machine's gather curve prices them).
struct SampledRefs<'a> {
    /// (row, array index in the row) of each sampled reference.
    at: &'a [(usize, usize)],
    /// Whether their misses per level cost the level's line time (else only the
    /// misses of their strided share do, the rest being random accesses).
    priced_by_levels: bool,
    /// Each reference's strided share (`SampledRef::strided_share`).
    strided: Vec<f64>,
}

/// Adds one cache level's misses and write-backs, and their time, to every row and
/// array; at the `first_level`, the stalls of stores that miss it ([`add_store_stalls`],
/// each waiting `commit_wait`).
fn add_cache_level(
    out: &mut [NestMemory],
    loc: &LocalityProfile,
    (level, (nest_misses, sampled_level)): (&SuppliedLevel, &(Vec<NestMisses>, Vec<f64>)),
    first_level: bool,
    commit_wait: f64,
    sampled: &SampledRefs,
) {
    let (name, g, per_line, last) = (&level.name, &level.geometry, level.line_seconds, level.last);
    let secs = |m: f64| m * per_line;
    // Write-backs into an inner level travel beside its fills (the blocked and
    // strided-row sweeps of the corpus run as fast as their fills alone); those
    // into main memory share its bandwidth with them.
    let wb_secs = |w: f64| if last { w * per_line } else { 0.0 };
    let mut level_misses = vec![0.0; out.len()];
    let mut level_seconds = vec![0.0; out.len()];
    let mut level_writebacks = vec![0.0; out.len()];
    for (i, m) in nest_misses.iter().enumerate() {
        if let Some(n) = out.get_mut(i) {
            if first_level {
                let one_set = loc.nests.get(i).map_or(vec![], |nl| {
                    nl.arrays
                        .iter()
                        .map(|a| g.reachable(a.inner_stride_bytes, PAGE_BYTES).sets() == 1)
                        .collect()
                });
                add_store_stalls(n, &m.arrays, &one_set, commit_wait);
            }
            for (a, am) in n.arrays.iter_mut().zip(&m.arrays) {
                level_misses[i] += am.misses;
                level_writebacks[i] += am.writebacks;
                let fills = secs(am.misses * (1.0 - a.sequential_share))
                    + am.misses * a.sequential_share * level.stream_line_seconds;
                let seconds = fills + wb_secs(am.writebacks);
                level_seconds[i] += seconds;
                a.levels.push(LevelTraffic {
                    level: name.clone(),
                    misses: am.misses,
                    writebacks: am.writebacks,
                    seconds,
                });
            }
        }
    }
    for (k, &m) in sampled_level.iter().enumerate() {
        let Some(&(row, a)) = sampled.at.get(k) else {
            continue;
        };
        let seconds = if sampled.priced_by_levels {
            secs(m)
        } else {
            secs(m) * sampled.strided.get(k).copied().unwrap_or(0.0)
        };
        level_misses[row] += m;
        level_seconds[row] += seconds;
        out[row].arrays[a].levels.push(LevelTraffic {
            level: name.clone(),
            misses: m,
            writebacks: 0.0,
            seconds,
        });
    }
    for (((n, m), w), seconds) in out
        .iter_mut()
        .zip(level_misses)
        .zip(level_writebacks)
        .zip(level_seconds)
    {
        n.seconds += seconds;
        n.levels.push(LevelTraffic {
            level: name.clone(),
            misses: m,
            writebacks: w,
            seconds,
        });
    }
}

/// Address translation: the machine's translation cost against the pages a cyclic
/// random chase cycles over ([`translation_steps`]) is a staircase of virtual TLB
/// levels; an access whose page was last used `d` pages before pays the cost at `d`.
/// Each step is a fully associative TLB of `count` entries whose misses (from the
/// page histograms; for sampled references estimated from their line histograms and
/// the region they range over) pay the step's rise. Adds a `TLB` level to every row
/// and array when the machine has the curves.
fn add_translation(
    out: &mut [NestMemory],
    loc: &LocalityProfile,
    counted: &CountedMisses,
    mem: &MemoryProfile,
    sampled: &SampledRefs,
) {
    let steps = translation_steps(mem);
    if steps.is_empty() {
        return;
    }
    let far_steps = far_translation_steps(mem);
    let page = page_bytes(mem);
    let name = TLB_LEVEL.to_string();
    // The misses of every step of either staircase, counted from the page histograms.
    let misses_at = |e: u64| {
        let k = counted.tlb_entries.binary_search(&e).ok()?;
        counted.tlb.get(k)
    };
    let first = steps[0].0;
    let mut level_misses = vec![0.0; out.len()];
    let mut level_seconds = vec![0.0; out.len()];
    let mut array_cost: Vec<Vec<(f64, f64)>> = out
        .iter()
        .map(|n| vec![(0.0, 0.0); n.arrays.len()])
        .collect();
    // Each array at the page staircase, and at the far one in the share its stride says.
    let weight = |i: usize, j: usize| -> f64 {
        if far_steps.is_empty() {
            return 0.0;
        }
        loc.nests
            .get(i)
            .and_then(|n| n.arrays.get(j))
            .map_or(0.0, |a| far_weight(a.inner_stride_bytes, page, a.written))
    };
    for (staircase, far) in [(&steps, false), (&far_steps, true)] {
        for &(e, rise_s) in staircase.iter() {
            let Some((nest_misses, sampled_tlb)) = misses_at(e) else {
                continue;
            };
            for (i, m) in nest_misses.iter().enumerate() {
                for (j, am) in m.arrays.iter().enumerate() {
                    let w = if far {
                        weight(i, j)
                    } else {
                        1.0 - weight(i, j)
                    };
                    if let Some(c) = array_cost.get_mut(i).and_then(|a| a.get_mut(j)) {
                        if e == first && !far {
                            c.0 += am.misses;
                        }
                        c.1 += w * am.misses * rise_s;
                    }
                    level_seconds[i] += w * am.misses * rise_s;
                }
                if e == first && !far {
                    level_misses[i] += m.misses;
                }
            }
            if far {
                continue;
            }
            // Sampled references: the page staircase.
            for (r, &m) in sampled_tlb.iter().enumerate() {
                let Some(&(row, a)) = sampled.at.get(r) else {
                    continue;
                };
                let c = &mut array_cost[row][a];
                if e == first {
                    c.0 += m;
                    level_misses[row] += m;
                }
                c.1 += m * rise_s;
                level_seconds[row] += m * rise_s;
            }
        }
    }
    for (i, n) in out.iter_mut().enumerate() {
        for (a, &(m, sec)) in n.arrays.iter_mut().zip(&array_cost[i]) {
            a.levels.push(LevelTraffic {
                level: name.clone(),
                misses: m,
                writebacks: 0.0,
                seconds: sec,
            });
        }
        n.seconds += level_seconds[i];
        n.levels.push(LevelTraffic {
            level: name.clone(),
            misses: level_misses[i],
            writebacks: 0.0,
            seconds: level_seconds[i],
        });
    }
}

/// Where a sampled reference's loads issue, as the core's window sees them: the compiled
/// loop whose body holds its line (`group`, shared by the references of one loop), that
/// loop's compiled iterations, and how many of them the core keeps in flight
/// (`augur_model::incore`'s window over an iteration's instructions).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IssuingLoop {
    /// The compiled loop, an index the references of one loop share.
    pub group: usize,
    /// Its compiled iterations in the run.
    pub iterations: f64,
    /// The compiled iterations the core keeps in flight.
    pub in_flight: f64,
    /// The time those iterations' operations take (mispredicted branches apart): the
    /// part of a miss's latency the core spends executing them is not a stall.
    pub fill_seconds: f64,
}

/// The machine's curves random accesses are priced at, and for each sampled reference
/// the random misses its loop keeps in flight (`None`: as many as the gather curve's).
struct RandomCurves<'a> {
    gather: &'a [(u64, f64)],
    chase: Vec<(u64, f64)>,
    in_flight: Vec<Option<(f64, f64)>>,
    /// The largest cache level's capacity: beyond it an access goes to main memory.
    caches_bytes: u64,
}

impl RandomCurves<'_> {
    /// What an access of sampled reference `k` over `bytes` costs beyond a first-level
    /// hit: the gather curve's price, or for a miss to main memory the part of the
    /// chase's latency the operations in flight do not fill, shared by the misses its
    /// loop keeps in flight, where the core's window holds fewer than the gather did.
    /// (A hit in a cache level mostly returns before the window fills: kept at the
    /// gather's price.)
    fn access_cost(&self, k: usize, bytes: f64) -> f64 {
        let gather = cost_on(self.gather, bytes);
        match self.in_flight.get(k).copied().flatten() {
            Some((m, fill)) if !self.chase.is_empty() && bytes > self.caches_bytes as f64 => {
                gather.max((cost_on(&self.chase, bytes) - fill).max(0.0) / m.max(1.0))
            }
            _ => gather,
        }
    }
}

/// The sum of a staircase's rises up to `bytes`.
fn cost_on(curve: &[(u64, f64)], bytes: f64) -> f64 {
    curve
        .iter()
        .filter(|(b, _)| (*b as f64) <= bytes)
        .map(|(_, rise)| rise)
        .sum()
}

/// For each sampled reference, the random misses (accesses beyond the first level, at
/// the gather curve) that the loop issuing it keeps in flight: every reference of that
/// compiled loop counts, a compiled iteration's misses times the iterations in flight.
/// A loop that does much work for each miss holds few misses in its window, so they
/// overlap less than the gather curve's tight loop lets them (a memo table tested once
/// every ten instructions: a third of the gather's overlap). `None` for a reference that
/// mostly strides or whose region fits the largest cache level (`caches_bytes`).
fn misses_in_flight(
    loc: &LocalityProfile,
    gather: &[(u64, f64)],
    issuing: &[Option<IssuingLoop>],
    (line, caches_bytes): (u64, u64),
) -> Vec<Option<(f64, f64)>> {
    let mut per_group: std::collections::BTreeMap<usize, f64> = Default::default();
    for (r, at) in loc.sampled_refs.iter().zip(issuing) {
        if let Some(at) = at.filter(|a| a.iterations > 0.0) {
            let random = 1.0 - r.strided_share.clamp(0.0, 1.0);
            let (_, beyond) = histogram_cost(r, &|b| cost_on(gather, b), line);
            *per_group.entry(at.group).or_default() += beyond * random / at.iterations;
        }
    }
    (0..loc.sampled_refs.len())
        .map(|k| {
            let at = issuing.get(k).copied().flatten()?;
            // A stream whose jumps restart the prefetcher is not a run of random misses;
            // a reference whose region the last cache level holds keeps its reused lines
            // there against the streams between its uses (the levels' replacement resists
            // a one-pass scan), whatever distance the histogram gives them.
            let r = &loc.sampled_refs[k];
            if r.strided_share >= 0.5 || r.span_bytes <= caches_bytes {
                return None;
            }
            Some((at.in_flight * per_group.get(&at.group)?, at.fill_seconds))
        })
        .collect()
}

/// Random accesses (sampled references, but for their strided share) at the gather
/// curve: an access whose line was last used `d` lines before costs what an independent
/// random read over `d` lines costs beyond one in the first level (first touches: over
/// the region the reference ranges over); the curve includes the translation and the
/// overlap of misses an out-of-order core achieves, as far as the loop's window holds
/// them ([`RandomCurves::access_cost`]). A pointer chase (the address waits for the
/// previous load) pays the dependent random chase's latency instead. `sampled_row` says
/// where each reference is in the rows.
fn add_random_accesses(
    out: &mut [NestMemory],
    loc: &LocalityProfile,
    curves: &RandomCurves,
    sampled_row: &[(usize, usize)],
    line: u64,
) {
    for (k, r) in loc.sampled_refs.iter().enumerate() {
        let Some(&(row, a)) = sampled_row.get(k) else {
            continue;
        };
        let chased = r.dependent && !curves.chase.is_empty();
        let (seconds, beyond) = if chased {
            histogram_cost(r, &|b| cost_on(&curves.chase, b), line)
        } else {
            histogram_cost(r, &|b| curves.access_cost(k, b), line)
        };
        let name = if chased { "chase" } else { "random" };
        // Its strided share streams (priced by the cache levels); the rest is random.
        let random = 1.0 - r.strided_share.clamp(0.0, 1.0);
        add_traffic(&mut out[row], a, name, beyond * random, seconds * random);
    }
}

/// Adds `misses` and `seconds` at level `name` to array `a` of a row and to the row.
fn add_traffic(row: &mut NestMemory, a: usize, name: &str, misses: f64, seconds: f64) {
    let traffic = LevelTraffic {
        level: name.to_string(),
        misses,
        writebacks: 0.0,
        seconds,
    };
    if let Some(array) = row.arrays.get_mut(a) {
        array.levels.push(traffic.clone());
    }
    row.seconds += seconds;
    match row.levels.iter_mut().find(|l| l.level == name) {
        Some(l) => {
            l.misses += misses;
            l.seconds += seconds;
        }
        None => row.levels.push(traffic),
    }
}

/// What a sampled reference's accesses cost at `cost_at` (an access's price beyond a
/// first-level hit over a region of so many bytes): an access whose line was last used
/// `d` lines before pays the price over `d` lines, a first touch the price over the
/// region the reference ranges over. Returns
/// the seconds of all its accesses and how many paid a rise.
fn histogram_cost(
    r: &augur_program_profile::locality::SampledRef,
    cost_at: &dyn Fn(f64) -> f64,
    line: u64,
) -> (f64, f64) {
    let h = r.histogram.to_histogram();
    let region = (r.span_bytes as f64).max(h.cold as f64 * line as f64);
    let mut seconds = h.cold as f64 * cost_at(region);
    let mut beyond = 0.0;
    for (i, &w) in h.bins.iter().enumerate() {
        if w == 0 {
            continue;
        }
        let (lo, hi) = augur_locality::reuse::bin_range(i);
        let c = cost_at((lo + hi) as f64 / 2.0 * line as f64);
        seconds += w as f64 * c;
        if c > 0.0 {
            beyond += w as f64;
        }
    }
    if cost_at(region) > 0.0 {
        beyond += h.cold as f64;
    }
    (seconds, beyond)
}

/// A conditional branch's mispredictions on a source line: the loads of that line's
/// sampled references are what it tests (`IF (A(MID) .LT. X)`).
#[derive(Debug, Clone, PartialEq)]
pub struct TestedLoad {
    /// File of the branch, as the locality profile names its units' files.
    pub file: String,
    /// Its line.
    pub line: u32,
    /// Its mispredictions.
    pub mispredictions: f64,
}

/// Mispredicted branches that test a random load wait for it: the work issued past the
/// branch is thrown away, so the load's latency is not overlapped as the gather curve
/// assumes but paid whole, as the dependent chase pays it (a binary search's
/// `IF (A(MID) .LT. X)`, a heap's sift, a memo table's `IF (MEMO(X) .GE. 0)`). For each
/// line whose branches mispredict `m` times, the sampled reference of that line with the
/// dearest chase (the loads of one line issue together) has `m` of its random accesses
/// priced at the chase curve instead of the gather curve; the difference is added as the
/// level `waited`. References already chased, lines without mispredictions and machines
/// without the chase curve add nothing.
fn add_waits(
    out: &mut [NestMemory],
    loc: &LocalityProfile,
    curves: &RandomCurves,
    sampled_row: &[(usize, usize)],
    tested: &[TestedLoad],
    line: u64,
) {
    // The mispredictions of each line, its branches together.
    let mut lines: std::collections::BTreeMap<(&str, u32), f64> = Default::default();
    for t in tested.iter().filter(|t| t.mispredictions > 0.0) {
        *lines.entry((t.file.as_str(), t.line)).or_default() += t.mispredictions;
    }
    if curves.chase.is_empty() || lines.is_empty() {
        return;
    }
    // The extra seconds an access pays waited for instead of overlapped.
    let extra = |k: usize, r: &augur_program_profile::locality::SampledRef| -> f64 {
        if r.dependent || r.executions == 0 {
            return 0.0;
        }
        let (waited, _) = histogram_cost(r, &|b| cost_on(&curves.chase, b), line);
        let (overlapped, _) = histogram_cost(r, &|b| curves.access_cost(k, b), line);
        ((waited - overlapped) / r.executions as f64).max(0.0)
    };
    for ((file, at), mispredictions) in lines {
        let dearest = loc
            .sampled_refs
            .iter()
            .enumerate()
            .filter(|(_, r)| r.file == file && r.line == at)
            .map(|(k, r)| (k, r, extra(k, r)))
            .max_by(|a, b| a.2.total_cmp(&b.2));
        let Some((k, r, extra)) = dearest else {
            continue;
        };
        let Some(&(row, a)) = sampled_row.get(k) else {
            continue;
        };
        let random = 1.0 - r.strided_share.clamp(0.0, 1.0);
        let waits = mispredictions.min(r.executions as f64 * random);
        let seconds = waits * extra;
        if seconds <= 0.0 {
            continue;
        }
        add_traffic(&mut out[row], a, "waited", waits, seconds);
    }
}

/// For each nest of `loc`, the index of the first nest with the same unit and root loop:
/// a nest that ran with several value sets is analyzed once per set
/// (`augur_program_profile::locality::NestValues`), and its rows are one loop's.
fn nest_rows(loc: &LocalityProfile) -> Vec<usize> {
    loc.nests
        .iter()
        .map(|n| {
            loc.nests
                .iter()
                .position(|m| m.unit == n.unit && m.loop_id == n.loop_id)
                .unwrap_or(0)
        })
        .collect()
}

/// Adds the rows of the same loop nest (`rows[i]` names the first of row `i`'s loop) into
/// one: seconds and misses per level, and per array (by name and kind) and level. The
/// sampled rows appended after the nests are kept as they are.
fn merge_rows(out: Vec<NestMemory>, rows: &[usize]) -> Vec<NestMemory> {
    let mut merged: Vec<NestMemory> = Vec::with_capacity(out.len());
    let mut at: Vec<usize> = Vec::with_capacity(out.len());
    for (i, n) in out.into_iter().enumerate() {
        let first = rows.get(i).copied().unwrap_or(i);
        if first < i {
            let into = &mut merged[at[first]];
            into.seconds += n.seconds;
            into.fill_floor_seconds += n.fill_floor_seconds;
            add_levels(&mut into.levels, &n.levels);
            for a in n.arrays {
                match into
                    .arrays
                    .iter_mut()
                    .find(|b| b.name == a.name && b.kind == a.kind)
                {
                    Some(b) => {
                        let all = b.accesses + a.accesses;
                        if all > 0.0 {
                            b.sequential_share = (b.sequential_share * b.accesses
                                + a.sequential_share * a.accesses)
                                / all;
                        }
                        b.sequential |= a.sequential;
                        b.accesses = all;
                        add_levels(&mut b.levels, &a.levels);
                    }
                    None => into.arrays.push(a),
                }
            }
            at.push(at[first]);
        } else {
            at.push(merged.len());
            merged.push(n);
        }
    }
    merged
}

/// Adds `more` into `levels`, level by level (by name).
fn add_levels(levels: &mut Vec<LevelTraffic>, more: &[LevelTraffic]) {
    for l in more {
        match levels.iter_mut().find(|x| x.level == l.level) {
            Some(x) => {
                x.misses += l.misses;
                x.writebacks += l.writebacks;
                x.seconds += l.seconds;
            }
            None => levels.push(l.clone()),
        }
    }
}

/// The machine's gather curve (independent reads of lines in a random order over a
/// region, `[[memory.chase]] order = "gather"`) as a staircase: `(bytes, seconds)` per
/// rise, where a random access over a region of `bytes` or more costs `seconds` more
/// than over the previous point, from the smallest region on (an access there is a
/// first-level hit, already in the operation costs). Through its running maximum. Empty
/// when the profile has no gather curve (profiles made before it).
pub fn gather_steps(mem: &MemoryProfile) -> Vec<(u64, f64)> {
    curve_steps(mem, "gather")
}

/// A curve of the memory characterization's chases (`random`, `sequential`, `gather`)
/// as a staircase of rises over its first point (see [`gather_steps`]).
fn curve_steps(mem: &MemoryProfile, order: &str) -> Vec<(u64, f64)> {
    mem.chase
        .iter()
        .find(|c| c.order == order)
        .map_or_else(Vec::new, |c| staircase(&c.size_bytes, &c.ns))
}

/// The part of a nest's memory time spent on sequential streams
/// ([`NestMemory::sequential`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SequentialTime {
    /// Over all levels.
    pub total: f64,
    /// Each line at the time of the level that supplied it (a first-level miss the second
    /// level serves at the second level's line time, one that goes on to main memory at
    /// memory's), the levels of a prefetched stream moving one line at the same time; at
    /// least the busiest level's time.
    pub by_supplier: f64,
    /// The other transfers (not sequential streams) into the first cache level that the
    /// second level serves: short enough for an out-of-order core to issue ahead of a
    /// recurrence that keeps it waiting (see [`combine`]).
    pub first_level_others: f64,
    /// The least time of the streams when main memory feeds them
    /// ([`NestMemory::fill_floor_seconds`]).
    pub fill_floor: f64,
}

/// Combines a nest's operation time and its memory time `mem`, of which `sequential`
/// is the sequential streams' part ([`Overlap::Streams`]: the levels of a prefetched
/// stream move a line at the same time, so it takes each line at its supplier's time
/// ([`SequentialTime::by_supplier`]), at least the fills main memory paces
/// ([`SequentialTime::fill_floor`]), and that overlaps the operations). `idle` is the
/// time the core waits on a floating-point recurrence beyond what its operations need
/// to issue (the operation time less the same operations at their throughput): the
/// other transfers fill it first, since their loads do not wait for the recurrence (a
/// loop `s = s + a(i,k) * b(k,j)` over `k` on a Zen 5: 0.54 ns an element, the add's
/// latency, with `a`'s strided misses to the second level hidden).
pub fn combine(ops: f64, mem: f64, sequential: SequentialTime, idle: f64, overlap: Overlap) -> f64 {
    combine_issue(ops, 0.0, mem, sequential, idle, overlap)
}

/// [`combine`] with `issue`, the part of `ops` that issues the loads and stores
/// ([`Overlap::Ecm`]; the other forms do not use it).
pub fn combine_issue(
    ops: f64,
    issue: f64,
    mem: f64,
    sequential: SequentialTime,
    idle: f64,
    overlap: Overlap,
) -> f64 {
    match overlap {
        Overlap::Max => ops.max(mem),
        Overlap::Sum => ops + mem,
        Overlap::Streams | Overlap::Ecm => {
            let total = sequential.total.clamp(0.0, mem.max(0.0));
            let supplied = sequential
                .by_supplier
                .clamp(0.0, total)
                .max(sequential.fill_floor);
            let others = mem - total;
            let hidden = idle
                .min(sequential.first_level_others)
                .clamp(0.0, others.max(0.0));
            let issue = if overlap == Overlap::Ecm && supplied > 0.0 {
                issue.clamp(0.0, ops.max(0.0))
            } else {
                0.0
            };
            ops.max(issue + supplied) + (others - hidden)
        }
        Overlap::None => ops,
    }
}

impl SequentialTime {
    /// Every part times `f` (the transfers stretched, or a share of them).
    pub fn scaled(&self, f: f64) -> SequentialTime {
        SequentialTime {
            total: self.total * f,
            by_supplier: self.by_supplier * f,
            first_level_others: self.first_level_others * f,
            fill_floor: self.fill_floor * f,
        }
    }
}

impl NestMemory {
    /// The time of the nest's sequential streams (each array's transfers in the
    /// proportion of its accesses that sweep sequentially,
    /// [`ArrayTraffic::sequential_share`]; store-commit stalls excluded): over all
    /// levels, and with each line priced once, by the level that supplied it
    /// ([`supplied_seconds`]: the levels' transfers of a prefetched stream overlap one
    /// another); and the first level's other misses that the second serves.
    pub fn sequential(&self) -> SequentialTime {
        let mut per: Vec<(&str, f64)> = vec![];
        let mut first_level_others = 0.0;
        let mut by_supplier = 0.0;
        for a in &self.arrays {
            // Of the first level's misses, those the second level serves: a miss that
            // goes on to a further level waits for it (and is priced there too).
            let mut cache_levels = a.levels.iter().filter(|l| l.level != STORE_STALLS);
            if let (Some(l1), Some(l2)) = (cache_levels.next(), cache_levels.next()) {
                if l1.misses > 0.0 {
                    let served = (1.0 - l2.misses / l1.misses).clamp(0.0, 1.0);
                    first_level_others += (1.0 - a.sequential_share) * l1.seconds * served;
                }
            }
            by_supplier += a.sequential_share * supplied_seconds(a);
            for l in a.levels.iter().filter(|l| l.level != STORE_STALLS) {
                let s = a.sequential_share * l.seconds;
                match per.iter_mut().find(|p| p.0 == l.level) {
                    Some(p) => p.1 += s,
                    None => per.push((&l.level, s)),
                }
            }
        }
        SequentialTime {
            total: per.iter().map(|p| p.1).sum(),
            by_supplier: per.iter().map(|p| p.1).fold(by_supplier, f64::max),
            first_level_others,
            fill_floor: self.fill_floor_seconds,
        }
    }
}

/// An array's transfers with each line priced once, at the line time of the level that
/// supplied it: of a level's misses, the share the next cache level also misses goes on
/// (and is priced there), the rest is served by the next level at this level's line time
/// (each level's line time, the stride sweep's just beyond it, is a whole stream's from
/// its supplier). A stream every level misses costs its last level's time, as the
/// busiest level's rule said; an array whose first-level misses the second level mostly
/// serves (a 3-D stencil's neighbouring planes) and whose other lines come from memory
/// pays both: on the kept runs of eleven hosts, the corpus's `stencil3d` and `heat3d`
/// and the development set's `mpf_cavity_lbm` were 6-25% too fast by the busiest level
/// alone (docs/ACCURACY.md, session 85).
fn supplied_seconds(a: &ArrayTraffic) -> f64 {
    let caches: Vec<&LevelTraffic> = a
        .levels
        .iter()
        .filter(|l| l.level != STORE_STALLS && l.level != TLB_LEVEL)
        .collect();
    caches
        .iter()
        .enumerate()
        .map(|(k, l)| {
            let served_here = match caches.get(k + 1) {
                Some(next) if l.misses > 0.0 => (1.0 - next.misses / l.misses).clamp(0.0, 1.0),
                _ => 1.0,
            };
            l.seconds * served_here
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    use augur_machine_profile::memory::{ChaseCurve, TlbCurve, TlbLevel};

    fn curve(order: &str, size_bytes: Vec<u64>, ns: Vec<f64>) -> ChaseCurve {
        ChaseCurve {
            order: order.into(),
            size_bytes,
            ns,
        }
    }

    /// A reference read at random over 16 MiB (every access a line 2^18 lines away), on a
    /// machine whose independent reads there cost 4 ns more than an L1 hit and whose
    /// dependent ones 60 ns more.
    fn random_reference_and_machine() -> (LocalityProfile, MemoryProfile) {
        let mut h = augur_locality::Histogram::default();
        h.add(Some(1 << 18), 1_000_000);
        let r = augur_program_profile::locality::SampledRef {
            unit: "search".into(),
            file: "search.f90".into(),
            line: 20,
            array: "a".into(),
            reference: "a(mid)".into(),
            reason: "subscript not affine".into(),
            loop_id: 0,
            executions: 1_000_000,
            samples: 1000,
            sample_rate: 1e-3,
            elem_bytes: 4,
            histogram: h.to_compact(),
            dependent: false,
            span_bytes: 16 << 20,
            strided_share: 0.0,
        };
        let loc = LocalityProfile {
            line_bytes: 64,
            sampled_refs: vec![r],
            ..Default::default()
        };
        let mem = MemoryProfile {
            chase: vec![
                curve("gather", vec![4096, 1 << 24], vec![1.0, 5.0]),
                curve("random", vec![4096, 1 << 24], vec![1.0, 61.0]),
            ],
            ..Default::default()
        };
        (loc, mem)
    }

    #[test]
    fn a_contested_last_level_prices_random_reads_at_twice_their_distance() {
        // Reads about 8 MiB apart, beyond 1 MiB of private levels: their gather price is
        // the rise to 1 MiB; with half the last level they pay the rise at 13-14 MiB too,
        // 3 ns more each. Dependent reads take the chase's rises,
        // and nothing moves when the private levels hold the distance.
        let (mut loc, mut mem) = random_reference_and_machine();
        let mut h = augur_locality::Histogram::default();
        h.add(Some(1 << 17), 1_000_000);
        loc.sampled_refs[0].histogram = h.to_compact();
        mem.chase = vec![
            curve(
                "gather",
                vec![4096, 1 << 20, 13 << 20, 14 << 20],
                vec![1.0, 2.0, 2.0, 5.0],
            ),
            curve(
                "random",
                vec![4096, 1 << 20, 13 << 20, 14 << 20],
                vec![1.0, 11.0, 11.0, 61.0],
            ),
        ];
        let extra = |loc: &LocalityProfile, private: u64| {
            contested_random_seconds(loc, &mem, private as f64)
        };
        let independent = extra(&loc, 1 << 20);
        assert!((independent - 3e-3).abs() < 1e-9, "{independent}");
        assert_eq!(extra(&loc, 64 << 20), 0.0);
        loc.sampled_refs[0].dependent = true;
        assert!((extra(&loc, 1 << 20) - 50e-3).abs() < 1e-9);
        // The strided share is priced by the cache levels, not by the curves.
        loc.sampled_refs[0].strided_share = 0.5;
        assert!((extra(&loc, 1 << 20) - 25e-3).abs() < 1e-9);
    }

    #[test]
    fn a_mispredicted_branch_waits_for_the_random_load_it_tests() {
        let (loc, mem) = random_reference_and_machine();
        let level = |rows: &[NestMemory], name: &str| -> f64 {
            rows.iter()
                .flat_map(|r| &r.levels)
                .filter(|l| l.level == name)
                .map(|l| l.seconds)
                .sum()
        };
        let overlapped = nest_memory(&loc, &mem, None, &[], &[], &[]);
        assert!((level(&overlapped, "random") - 4e-3).abs() < 1e-9);
        assert_eq!(level(&overlapped, "waited"), 0.0);
        // Half of the branch's tests mispredict: those loads are paid whole (60 ns, of
        // which the gather's 4 are already counted).
        let tested = |file: &str, line: u32| TestedLoad {
            file: file.into(),
            line,
            mispredictions: 500_000.0,
        };
        let waited = nest_memory(&loc, &mem, None, &[], &[tested("search.f90", 20)], &[]);
        assert!((level(&waited, "waited") - 500_000.0 * 56e-9).abs() < 1e-9);
        assert!((waited[0].seconds - (4e-3 + 28e-3)).abs() < 1e-9);
        // A branch on another line tests other loads.
        let elsewhere = nest_memory(&loc, &mem, None, &[], &[tested("search.f90", 21)], &[]);
        assert_eq!(level(&elsewhere, "waited"), 0.0);
    }

    #[test]
    fn random_misses_a_loop_holds_few_of_in_its_window_overlap_less_than_the_gather() {
        let (mut loc, mut mem) = random_reference_and_machine();
        let random = |loc: &LocalityProfile, mem: &MemoryProfile, at: IssuingLoop| -> f64 {
            nest_memory(loc, mem, None, &[], &[], &[Some(at)])[0]
                .levels
                .iter()
                .filter(|l| l.level == "random")
                .map(|l| l.seconds)
                .sum()
        };
        // A miss every ten compiled iterations, thirty iterations in flight: three
        // misses share the chase's 60 ns, 20 ns each where the gather gave 4.
        let at = |in_flight: f64, fill_seconds: f64| IssuingLoop {
            group: 0,
            iterations: 1e7,
            in_flight,
            fill_seconds,
        };
        assert!((random(&loc, &mem, at(30.0, 0.0)) - 20e-3).abs() < 1e-9);
        // The operations in flight fill 30 ns of the latency: 10 ns each.
        assert!((random(&loc, &mem, at(30.0, 30e-9)) - 10e-3).abs() < 1e-9);
        // A window holding more misses than the gather overlaps keeps the gather's price.
        assert!((random(&loc, &mem, at(3000.0, 0.0)) - 4e-3).abs() < 1e-9);
        // Misses beyond an 8 MiB last level go to memory: the window's price.
        let level = |size_bytes| augur_machine_profile::memory::CacheLevel {
            size_bytes,
            ..Default::default()
        };
        mem.levels = vec![level(8 << 20)];
        assert!((random(&loc, &mem, at(30.0, 0.0)) - 20e-3).abs() < 1e-9);
        // A last level holding the reference's 16 MiB region keeps its reused lines.
        mem.levels = vec![level(32 << 20)];
        assert!((random(&loc, &mem, at(30.0, 0.0)) - 4e-3).abs() < 1e-9);
        // A stream whose jumps restart the prefetcher is left to the gather's price.
        mem.levels.clear();
        loc.sampled_refs[0].strided_share = 0.6;
        assert!((random(&loc, &mem, at(30.0, 0.0)) - 0.4 * 4e-3).abs() < 1e-9);
    }

    #[test]
    fn gather_staircase_rises_over_the_first_point_and_never_falls() {
        let mem = MemoryProfile {
            chase: vec![curve(
                "gather",
                vec![4096, 65536, 1 << 20, 1 << 24],
                vec![0.25, 0.45, 0.40, 2.25],
            )],
            ..Default::default()
        };
        let s = gather_steps(&mem);
        // Each rise spread over four steps in ln(size) between its two points.
        assert_eq!(s.len(), 8, "{s:?}");
        let rise = |from: u64, to: u64| -> f64 {
            s.iter()
                .filter(|(x, _)| *x > from && *x <= to)
                .map(|(_, t)| t)
                .sum()
        };
        assert!((rise(4096, 65536) - 0.2e-9).abs() < 1e-15, "{s:?}");
        assert_eq!(s[0].0, 5793, "{s:?}");
        // The dip at 1 MiB is ignored; the rise at 16 MiB is over the running maximum,
        // spread from the point before it.
        assert!((rise(1 << 20, 1 << 24) - 1.8e-9).abs() < 1e-15, "{s:?}");
        assert!(gather_steps(&MemoryProfile::default()).is_empty());
    }

    /// Random chase (cache part) flat at 1 ns; TLB chase 1 ns up to 64 pages, 2 ns
    /// (first-level misses) up to 2048, then 9 ns; TLBs of 64 and 2048 entries.
    fn translation_machine() -> MemoryProfile {
        MemoryProfile {
            os_page_bytes: 4096,
            chase: vec![curve("random", vec![1024, 1 << 30], vec![1.0, 1.0])],
            tlb_chase: vec![TlbCurve {
                stride_bytes: 4096,
                count: vec![16, 64, 128, 2048, 4096],
                ns: vec![1.0, 1.0, 2.0, 2.0, 9.0],
            }],
            tlb: vec![
                TlbLevel {
                    name: "L1 DTLB".into(),
                    entries: 64,
                    page_bytes: 4096,
                    ..Default::default()
                },
                TlbLevel {
                    name: "L2 DTLB".into(),
                    entries: 2048,
                    page_bytes: 4096,
                    ..Default::default()
                },
            ],
            ..Default::default()
        }
    }

    #[test]
    fn translation_charges_page_walks_beyond_the_last_tlb() {
        // Random chase (cache part) flat at 1 ns; TLB chase 1 ns up to 64 pages, 2 ns
        // (first-level misses) up to 2048, then 9 ns: only the 7 ns rise is charged, from
        // a reuse distance of 4095 pages (a cyclic chase over 4096 pages).
        let mem = translation_machine();
        let s = translation_steps(&mem);
        assert_eq!(s.len(), 4, "{s:?}");
        assert_eq!(s[0].0, 2232, "{s:?}");
        assert!(
            s.iter().all(|(pages, _)| (2048..4096).contains(pages)),
            "{s:?}"
        );
        assert!((total(&s) - 7e-9).abs() < 1e-15, "{s:?}");
    }

    /// The seconds of every step of a staircase.
    fn total(s: &[(u64, f64)]) -> f64 {
        s.iter().map(|(_, t)| t).sum()
    }

    #[test]
    fn a_rise_between_two_points_is_spread_in_log_size() {
        // Twice the size, four steps at 2^(1/8), 2^(3/8), 2^(5/8), 2^(7/8) of the first.
        let s = spread_rise(1024, 2048, 4e-9);
        let at: Vec<u64> = s.iter().map(|x| x.0).collect();
        assert_eq!(at, vec![1117, 1328, 1579, 1878]);
        assert!((total(&s) - 4e-9).abs() < 1e-18);
        // No point below: the whole rise at the point.
        assert_eq!(spread_rise(0, 2048, 4e-9), vec![(2048, 4e-9)]);
    }

    #[test]
    fn independent_accesses_overlap_their_page_walks_as_their_misses() {
        // As above, with independent reads four times faster than dependent ones over
        // the chase's span: the walk's 7 ns rise costs a quarter.
        let mut mem = translation_machine();
        mem.chase
            .push(curve("gather", vec![1024, 1 << 30], vec![0.25, 0.25]));
        let s = translation_steps(&mem);
        assert_eq!(s.len(), 4, "{s:?}");
        assert!((total(&s) - 1.75e-9).abs() < 1e-15, "{s:?}");
    }

    #[test]
    fn a_measured_tlb_gather_prices_the_walks_of_independent_accesses() {
        // With the TLB gather measured (3 ns beyond the packed gather's 0.25 ns from
        // 4096 pages on), the walk costs its rise, not the chase's rise overlapped as
        // cache misses are (the machine's walkers overlap fewer translations than its
        // line-fill buffers overlap misses).
        let mut mem = translation_machine();
        mem.chase
            .push(curve("gather", vec![1024, 1 << 30], vec![0.25, 0.25]));
        mem.tlb_gather = vec![TlbCurve {
            stride_bytes: 4096,
            count: vec![16, 64, 128, 2048, 4096],
            ns: vec![0.25, 0.25, 0.5, 0.5, 3.25],
        }];
        let s = translation_steps(&mem);
        assert_eq!(s.len(), 4, "{s:?}");
        assert_eq!(s[3].0, 3755, "{s:?}");
        assert!((total(&s) - 2.75e-9).abs() < 1e-15, "{s:?}");
    }

    #[test]
    fn reads_far_apart_pay_the_far_gathers_walks() {
        // The far gather (seven pages and a line apart) rises to 5.25 ns at 4096 pages
        // where the one a page apart rises to 3.25: reads seven pages apart or more pay
        // its rises, reads between one and seven pages apart a share in ln(pages), stores
        // and reads a page apart or less none.
        let mut mem = translation_machine();
        mem.chase
            .push(curve("gather", vec![1024, 1 << 30], vec![0.25, 0.25]));
        let far = augur_machine_profile::memory::far_stride(4096, 64);
        mem.tlb_gather = vec![
            TlbCurve {
                stride_bytes: 4096,
                count: vec![16, 64, 128, 2048, 4096],
                ns: vec![0.25, 0.25, 0.5, 0.5, 3.25],
            },
            TlbCurve {
                stride_bytes: far,
                count: vec![256, 2048, 4096],
                ns: vec![0.5, 0.5, 5.25],
            },
        ];
        let s = far_translation_steps(&mem);
        assert!((total(&s) - 4.75e-9).abs() < 1e-15, "{s:?}");
        assert!(s.iter().all(|st| st.0 >= 2047), "{s:?}");
        mem.tlb_gather.pop();
        assert!(far_translation_steps(&mem).is_empty());
        assert_eq!(far_weight(4096, 4096, false), 0.0);
        assert_eq!(far_weight(32000, 4096, true), 0.0);
        assert_eq!(far_weight(32000, 4096, false), 1.0);
        let two = far_weight(8192, 4096, false);
        assert!((two - 2f64.ln() / 7f64.ln()).abs() < 1e-12, "{two}");
    }

    #[test]
    fn rows_of_one_loop_are_added_into_one() {
        let row = |loop_id: u32, misses: f64, array: &str| NestMemory {
            unit: "walk".into(),
            loop_id,
            line: 17,
            kind: "affine".into(),
            seconds: misses * 1e-9,
            levels: vec![LevelTraffic {
                level: "L1d".into(),
                misses,
                writebacks: 0.0,
                seconds: misses * 1e-9,
            }],
            arrays: vec![ArrayTraffic {
                name: array.into(),
                kind: "affine".into(),
                line: 17,
                accesses: 2.0 * misses,
                sequential: false,
                sequential_share: 0.0,
                levels: vec![LevelTraffic {
                    level: "L1d".into(),
                    misses,
                    writebacks: 0.0,
                    seconds: misses * 1e-9,
                }],
            }],
            fill_floor_seconds: 0.0,
        };
        // Rows 0 and 2 are one loop (two value sets), row 1 another.
        let out = merge_rows(
            vec![row(0, 10.0, "x"), row(1, 5.0, "y"), row(0, 30.0, "x")],
            &[0, 1, 0],
        );
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].levels[0].misses, 40.0);
        assert!((out[0].seconds - 40e-9).abs() < 1e-18);
        assert_eq!(out[0].arrays.len(), 1);
        assert_eq!(out[0].arrays[0].accesses, 80.0);
        assert_eq!(out[1].levels[0].misses, 5.0);
    }

    #[test]
    fn overlap_forms() {
        let seq = |total: f64, by_supplier: f64| SequentialTime {
            total,
            by_supplier,
            first_level_others: 0.3,
            fill_floor: 0.0,
        };
        let none = seq(0.0, 0.0);
        assert_eq!(combine(2.0, 3.0, none, 0.0, Overlap::Max), 3.0);
        assert_eq!(combine(2.0, 1.0, none, 0.0, Overlap::Max), 2.0);
        assert_eq!(combine(2.0, 3.0, none, 0.0, Overlap::Sum), 5.0);
        assert_eq!(combine(2.0, 3.0, none, 0.0, Overlap::None), 2.0);
        // 1.5 s of sequential streams hide under 2 s of operations; 1.5 s of others add.
        assert_eq!(combine(2.0, 3.0, seq(1.5, 1.5), 0.0, Overlap::Streams), 3.5);
        // Streams longer than the operations bound the nest.
        assert_eq!(combine(2.0, 3.0, seq(2.5, 2.5), 0.0, Overlap::Streams), 3.0);
        assert_eq!(combine(2.0, 3.0, none, 0.0, Overlap::Streams), 5.0);
        // A stream's levels move lines at the same time: 2.5 s over three levels whose
        // busiest takes 1.2 s hide under the operations.
        assert_eq!(combine(2.0, 3.0, seq(2.5, 1.2), 0.0, Overlap::Streams), 2.5);
        assert_eq!(combine(0.5, 3.0, seq(2.5, 1.2), 0.0, Overlap::Streams), 1.7);
        // A recurrence that leaves the core idle 0.2 s hides that much of the others'
        // first-level misses; a longer one all 0.3 s of them, never the rest.
        assert!((combine(2.0, 3.0, seq(2.5, 1.2), 0.2, Overlap::Streams) - 2.3).abs() < 1e-12);
        assert!((combine(2.0, 3.0, seq(2.5, 1.2), 9.0, Overlap::Streams) - 2.2).abs() < 1e-12);
        assert_eq!(combine(2.0, 3.0, seq(2.5, 1.2), 9.0, Overlap::Sum), 5.0);
        // ECM: the streams' busiest level (1.2 s) waits on the loads and stores (1.0 s
        // of the 2 s of operations), not on the arithmetic; 0.5 s of others add.
        let ecm = |ops, issue, s| combine_issue(ops, issue, 3.0, s, 0.0, Overlap::Ecm);
        assert!((ecm(2.0, 1.0, seq(2.5, 1.2)) - 2.7).abs() < 1e-12);
        // Operations longer than issue and transfers together bound the nest.
        assert!((ecm(2.0, 0.5, seq(2.5, 1.2)) - 2.5).abs() < 1e-12);
        // Without sequential streams, the issue time is the operations' own.
        assert_eq!(ecm(2.0, 1.0, none), 5.0);
    }

    fn traffic(level: &str, misses: f64, seconds: f64) -> LevelTraffic {
        LevelTraffic {
            level: level.into(),
            misses,
            writebacks: 0.0,
            seconds,
        }
    }

    #[test]
    fn sequential_time_weighs_arrays_by_share_and_takes_the_by_supplier() {
        let array = |name: &str, share: f64, l1: f64, l2: f64, stalls: f64| ArrayTraffic {
            name: name.into(),
            kind: "affine".into(),
            line: 3,
            accesses: 100.0,
            sequential: share >= 0.5,
            sequential_share: share,
            levels: vec![
                traffic(STORE_STALLS, 1.0, stalls),
                traffic("L1d", 1.0, l1),
                traffic("L2", 1.0, l2),
            ],
        };
        let n = nest_of(vec![
            array("a", 1.0, 1.0, 3.0, 9.0),
            array("b", 0.25, 4.0, 4.0, 9.0),
        ]);
        let s = n.sequential();
        // a: 1 + 3; b: a quarter of 4 + 4; stalls never count.
        assert!((s.total - 6.0).abs() < 1e-12, "{s:?}");
        // L1d 1 + 1, L2 3 + 1.
        assert!((s.by_supplier - 4.0).abs() < 1e-12, "{s:?}");
    }

    /// An affine array's traffic at line 3: `accesses`, the share of them that sweep
    /// sequentially, and its levels.
    fn affine_array(
        name: &str,
        accesses: f64,
        share: f64,
        levels: Vec<LevelTraffic>,
    ) -> ArrayTraffic {
        ArrayTraffic {
            name: name.into(),
            kind: "affine".into(),
            line: 3,
            accesses,
            sequential: share >= 0.5,
            sequential_share: share,
            levels,
        }
    }

    #[test]
    fn a_line_is_priced_once_at_the_level_that_supplied_it() {
        // 100 first-level misses, 20 of which go on to memory: 80 lines from the second
        // level at its 1 ns and 20 from memory at 10 ns, 280 ns; the busiest level alone
        // (memory's 200, the first level's 100) said 200.
        let a = affine_array(
            "u",
            800.0,
            1.0,
            vec![
                traffic("L1d", 100.0, 100e-9),
                traffic("L2", 20.0, 200e-9),
                traffic(TLB_LEVEL, 5.0, 50e-9),
            ],
        );
        let s = nest_of(vec![a]).sequential();
        assert!((s.by_supplier - 280e-9).abs() < 1e-15, "{s:?}");
        assert!((s.total - 350e-9).abs() < 1e-15, "{s:?}");
    }

    /// A memory profile whose stride sweep at one 64-byte line costs `ns` at each size
    /// of `points` (MiB, ns), with one last level of `measured` and `os` MiB.
    fn swept(points: &[(u64, f64)], measured: u64, os: u64) -> (MemoryProfile, CacheLevel) {
        let mem = MemoryProfile {
            sweep: points
                .iter()
                .map(|&(mib, ns)| augur_machine_profile::memory::SweepCurve {
                    size_bytes: mib << 20,
                    stride_bytes: vec![8, 64],
                    ns: vec![0.3, ns],
                })
                .collect(),
            ..MemoryProfile::default()
        };
        let level = CacheLevel {
            name: "L3".into(),
            size_bytes: measured << 20,
            os_size_bytes: Some(os << 20),
            ..CacheLevel::default()
        };
        let mem = MemoryProfile {
            levels: vec![level.clone()],
            ..mem
        };
        (mem, level)
    }

    #[test]
    fn sequential_streams_take_the_triads_line_time_where_it_beats_one_strided_line() {
        // A 2-vCPU Xeon guest: the sweep brings a line from L3 in 2.1 ns, one stream at
        // a time; the triad from L3 counts 28 GB/s, three of its four line transfers:
        // 1.71 ns a line when several streams are in flight.
        let level = |name: &str, mib: u64, gbs: f64| CacheLevel {
            name: name.into(),
            size_bytes: mib << 20,
            os_size_bytes: Some(mib << 20),
            os_ways: Some(16),
            bandwidth_gbs: Some(gbs),
            ..CacheLevel::default()
        };
        let (mut mem, _) = swept(&[(4, 2.1), (1024, 4.1)], 2, 2);
        mem.levels = vec![level("L2", 2, 60.0), level("L3", 128, 28.0)];
        mem.memory.bandwidth_gbs = 15.0;
        let levels = supplied_levels(&mem, 64);
        let l2 = &levels[0];
        assert!(
            (l2.line_seconds - 2.1e-9).abs() < 1e-12,
            "{}",
            l2.line_seconds
        );
        let streams = 64.0 / (28.0 * 4.0 / 3.0) * 1e-9;
        assert!((l2.stream_line_seconds - streams).abs() < 1e-12);
        // Where one strided line is the faster (a Zen 5 guest's sweep: 0.56 ns from
        // L3), both take it.
        let (mut zen5, _) = swept(&[(4, 0.56), (1024, 1.5)], 2, 2);
        zen5.levels = mem.levels.clone();
        zen5.memory.bandwidth_gbs = 15.0;
        let l2 = &supplied_levels(&zen5, 64)[0];
        assert_eq!(l2.line_seconds, l2.stream_line_seconds);
    }

    /// A 2-vCPU Xeon guest's one-line sweep (MiB, ns): /sys says 480 MiB, lines cost
    /// 2.1 ns to 64 MiB, 3.3 at 128 (two thirds of the way to memory's 3.9) and memory's
    /// price from 256 MiB on.
    const XEON_SWEEP: [(u64, f64); 6] = [
        (4, 2.1),
        (64, 2.3),
        (128, 3.3),
        (256, 4.3),
        (1024, 4.1),
        (2048, 3.9),
    ];

    #[test]
    fn a_last_level_the_sweep_finds_smaller_than_the_os_says_is_priced_at_its_share() {
        // The Xeon guest: 64 MiB is the size priced.
        let xeon = XEON_SWEEP;
        let (mem, l3) = swept(&xeon, 128, 480);
        assert_eq!(priced_size(&mem, &l3, 64), 64 << 20);
        // The same host another day: 2.5 ns at 128 MiB, 3.3 at 256 (three fifths of the
        // way), 3.8 at 512: 128 MiB.
        let later = [
            (4, 2.12),
            (64, 2.14),
            (128, 2.45),
            (256, 3.29),
            (512, 3.80),
            (2048, 3.92),
        ];
        let (mem, l3) = swept(&later, 128, 480);
        assert_eq!(priced_size(&mem, &l3, 64), 128 << 20);
        // A Zen 4 guest: /sys says 32 MiB, the sweep reaches memory's price only beyond
        // it, the measured 8 MiB is a misreading: the OS's size stands.
        let zen4 = [(8, 0.65), (16, 0.94), (32, 1.71), (48, 2.13), (128, 2.6)];
        let (mem, l3) = swept(&zen4, 8, 32);
        assert_eq!(priced_size(&mem, &l3, 64), 32 << 20);
        // A Zen 3 guest: from 1.35 ns at 8 MiB to 4.96 at 16, a cliff, no contested
        // share; memory's price (its largest footprint's) is not reached below the OS's
        // 32 MiB, which stands.
        let zen3 = [
            (1, 1.03),
            (4, 1.03),
            (8, 1.35),
            (16, 4.96),
            (32, 5.78),
            (64, 5.25),
            (128, 7.63),
        ];
        let (mem, l3) = swept(&zen3, 4, 32);
        assert_eq!(priced_size(&mem, &l3, 64), 32 << 20);
        // A measured size on either side of where memory's price starts: the sweep's.
        let (mem, l3) = swept(&xeon, 400, 480);
        assert_eq!(priced_size(&mem, &l3, 64), 64 << 20);
        let (mem, l3) = swept(&xeon, 2, 480);
        assert_eq!(priced_size(&mem, &l3, 64), 64 << 20);
    }

    #[test]
    fn a_contested_last_level_at_half_its_share_sends_the_lines_between_to_memory() {
        // The Xeon guest's sweep: its last level priced at 64 MiB of the 480 /sys says.
        // A nest rereading each of a million lines 48 MiB later hits it; with half the
        // share (32 MiB) most of those lines come from memory. Reread 8 MiB later, they hit
        // either way; on a last level priced at the OS's size, which the characterization
        // read whole, nothing is contested.
        let xeon = XEON_SWEEP;
        let machine = |measured: u64, os: u64| {
            let (mut mem, _) = swept(&xeon, measured, os);
            mem.memory.bandwidth_gbs = 20.0;
            mem
        };
        let reread = |mib: u64| {
            let mut h = augur_locality::Histogram::default();
            h.add(Some(mib << 14), 1_000_000);
            LocalityProfile {
                line_bytes: 64,
                nests: vec![crate::test_support::one_array_nest(
                    crate::test_support::OneArray {
                        executions: 1.0,
                        accesses: 1_000_000,
                        footprint: (1000, 16),
                        inner_stride_bytes: 8,
                        written: false,
                    },
                    h.to_compact(),
                    Default::default(),
                )],
                ..Default::default()
            }
        };
        let extra = |loc: &LocalityProfile, mem: &MemoryProfile| {
            contested_seconds(&count_misses(loc, mem, None), loc, mem)
        };
        let contested = machine(128, 480);
        let line = supplied_levels(&contested, 64)
            .pop()
            .map_or(0.0, |l| l.line_seconds);
        let far = extra(&reread(48), &contested);
        assert!(far > 0.5e6 * line && far <= 1e6 * line, "{far} {line}");
        assert!(extra(&reread(8), &contested) < 0.01 * far);
        assert_eq!(extra(&reread(48), &machine(64, 64)), 0.0);
        // Priced at the OS's 64 MiB, but the capacity inference read 32: contested too.
        assert!(extra(&reread(48), &machine(32, 64)) > 0.5e6 * line);
    }

    #[test]
    fn outer_vector_lanes_share_the_misses_of_a_strided_array() {
        // `do i; do j; wave(i,j) = 0`, 8-byte elements 80,000 bytes apart along j, 1,000
        // accesses: every access misses the first level and the TLB in the source's
        // order, the second level once a line. Stored two at a time (16-byte vectors),
        // half the first level's and the TLB's misses remain; the second level's stay
        // at one a line. The sequential array is left as it was.
        let strided = affine_array(
            "wave",
            1000.0,
            0.0,
            vec![
                traffic("L1d", 1000.0, 1e-6),
                traffic("L2", 125.0, 1e-7),
                traffic("TLB", 1000.0, 8e-6),
            ],
        );
        let sequential = ArrayTraffic {
            name: "tlay".into(),
            sequential: true,
            sequential_share: 1.0,
            levels: vec![traffic("L1d", 125.0, 1e-7)],
            ..strided.clone()
        };
        let mut n = nest_of(vec![strided, sequential]);
        n.levels = vec![
            traffic("L1d", 1125.0, 1.1e-6),
            traffic("L2", 125.0, 1e-7),
            traffic("TLB", 1000.0, 8e-6),
        ];
        n.seconds = 9.2e-6;
        group_lanes(&mut n, &[(8, 80_000), (8, 8)], 16, 64);
        let misses = |a: &ArrayTraffic| a.levels.iter().map(|l| l.misses).collect::<Vec<_>>();
        assert_eq!(misses(&n.arrays[0]), [500.0, 125.0, 500.0]);
        assert_eq!(misses(&n.arrays[1]), [125.0]);
        assert_eq!(
            n.levels.iter().map(|l| l.misses).collect::<Vec<_>>(),
            [625.0, 125.0, 500.0]
        );
        assert!((n.seconds - 4.7e-6).abs() < 1e-12, "{}", n.seconds);
    }

    /// An affine nest's row holding `arrays`, no time yet.
    fn nest_of(arrays: Vec<ArrayTraffic>) -> NestMemory {
        NestMemory {
            unit: "u".into(),
            loop_id: 0,
            line: 3,
            kind: "affine".into(),
            seconds: 0.0,
            levels: vec![],
            arrays,
            fill_floor_seconds: 0.0,
        }
    }

    /// A row whose arrays miss the three levels as given: (name, L1d, L2, L3 misses).
    fn streaming_row(arrays: &[(&str, f64, f64, f64)]) -> NestMemory {
        nest_of(
            arrays
                .iter()
                .map(|&(name, l1, l2, l3)| ArrayTraffic {
                    name: name.into(),
                    kind: "affine".into(),
                    line: 3,
                    accesses: 8.0 * l1,
                    sequential: true,
                    sequential_share: 1.0,
                    levels: vec![
                        traffic("L1d", l1, 0.0),
                        traffic("L2", l2, 0.0),
                        traffic("L3", l3, 0.0),
                    ],
                })
                .collect(),
        )
    }

    /// Three levels `L1d`, `L2`, `L3` (the last) of `size_bytes` and `ways` each, a line a
    /// nanosecond, and main memory at 25.6 GB/s.
    fn three_levels(size_bytes: u64, ways: u32) -> ([SuppliedLevel; 3], MemoryProfile) {
        let level = |name: &str, last: bool| SuppliedLevel {
            name: name.into(),
            geometry: CacheGeometry {
                size_bytes,
                line_bytes: 64,
                ways,
            },
            line_seconds: 1e-9,
            stream_line_seconds: 1e-9,
            last,
        };
        let mut mem = MemoryProfile::default();
        mem.memory.bandwidth_gbs = 25.6;
        (
            [level("L1d", false), level("L2", false), level("L3", true)],
            mem,
        )
    }

    #[test]
    fn a_stencil_from_memory_takes_every_first_level_fill_at_memory_line_time() {
        let (levels, mem) = three_levels(1 << 20, 8);
        // A 5-point stencil: three columns of u fill the first level, one comes from
        // memory; f and v stream from memory too. Then the same with the last cache
        // holding half the lines the second level misses.
        let mut rows = vec![
            streaming_row(&[
                ("u", 3.0, 1.0, 1.0),
                ("f", 1.0, 1.0, 1.0),
                ("v", 1.0, 1.0, 1.0),
            ]),
            streaming_row(&[
                ("u", 3.0, 1.0, 0.5),
                ("f", 1.0, 1.0, 0.5),
                ("v", 1.0, 1.0, 0.5),
            ]),
        ];
        fill_floor(&mut rows, &levels, &mem);
        // Five fills of 64 bytes at 25.6 GB/s: 2.5 ns each.
        assert!(
            (rows[0].fill_floor_seconds - 12.5e-9).abs() < 1e-15,
            "{}",
            rows[0].fill_floor_seconds
        );
        assert!((rows[1].fill_floor_seconds - 6.25e-9).abs() < 1e-15);
        // The floor raises the streams' time in the combination, and only when larger.
        let seq = |fill_floor: f64| SequentialTime {
            total: 4e-9,
            by_supplier: 4e-9,
            first_level_others: 0.0,
            fill_floor,
        };
        assert_eq!(combine(3e-9, 4e-9, seq(0.0), 0.0, Overlap::Streams), 4e-9);
        assert_eq!(
            combine(3e-9, 4e-9, seq(12.5e-9), 0.0, Overlap::Streams),
            12.5e-9
        );
    }

    #[test]
    fn a_nest_the_caches_hold_gets_no_floor_from_residual_misses() {
        let (levels, mem) = three_levels(2 << 20, 16);
        // Three arrays of 32 KiB swept 150,000 times (a 1-D wave equation): the second
        // level holds them; its hit-ratio model leaves 1e-8 misses, most going on to
        // memory. Then a nest where memory supplies one fill in a hundred.
        let mut rows = vec![
            streaming_row(&[
                ("u", 1.5e8, 2e-8, 1.7e-8),
                ("unew", 1.5e8, 2e-8, 1.6e-8),
                ("uold", 1.5e8, 2e-8, 1.6e-8),
            ]),
            streaming_row(&[("u", 1e6, 1e4, 1e4)]),
        ];
        fill_floor(&mut rows, &levels, &mem);
        assert_eq!(rows[0].fill_floor_seconds, 0.0);
        assert!((rows[1].fill_floor_seconds - 2.5e-3).abs() < 1e-12);
    }

    #[test]
    fn one_stream_from_memory_takes_the_single_streams_line_time() {
        let (levels, mut mem) = three_levels(1 << 20, 8);
        // The machine's single read stream: 12.8 GB/s, 5 ns a line (the streams
        // together: 2.5 ns).
        mem.streams
            .push(augur_machine_profile::memory::StreamPoint {
                kernel: "read".into(),
                array_bytes: 1 << 30,
                gbs: 12.8,
            });
        // A sum over one array from memory; a copy (two streams); a stencil whose one
        // array's three columns fill the first level while one comes from memory.
        let mut rows = vec![
            streaming_row(&[("a", 4.0, 4.0, 4.0)]),
            streaming_row(&[("a", 2.0, 2.0, 2.0), ("b", 2.0, 2.0, 2.0)]),
            streaming_row(&[("u", 3.0, 1.0, 1.0), ("v", 1.0, 1.0, 1.0)]),
        ];
        fill_floor(&mut rows, &levels, &mem);
        let floors: Vec<f64> = rows.iter().map(|r| r.fill_floor_seconds * 1e9).collect();
        // One stream: four lines at 5 ns. Two of two lines: the larger of four lines at
        // 2.5 ns and two at 5. The stencil: its four fills at 2.5 ns, more than u's one
        // line from memory at 5.
        assert!((floors[0] - 20.0).abs() < 1e-9, "{floors:?}");
        assert!((floors[1] - 10.0).abs() < 1e-9, "{floors:?}");
        assert!((floors[2] - 10.0).abs() < 1e-9, "{floors:?}");
        // A profile without the single stream keeps the streams' time.
        mem.streams.clear();
        fill_floor(&mut rows, &levels, &mem);
        assert!((rows[0].fill_floor_seconds - 10e-9).abs() < 1e-15);
    }
}
