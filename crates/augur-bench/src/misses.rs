//! `augur bench misses`: the predicted cache misses of the locality model against a
//! cache simulation of the real binary.
//!
//! For each chosen corpus program the plain build (the benchmark's compiler and flags,
//! plus `-g` for line information, which does not change the generated code) runs
//! under valgrind's cache simulator with the L1d and last-level geometry of the machine
//! (the OS's, or a machine profile's `[memory]` section); augur analyzes the program
//! (program profile with its reuse histograms) and the predictor's memory term
//! (`augur_model::memory::nest_memory`) turns the histograms into misses on the same
//! two geometries, so the comparison tests the locality model, not the geometry.
//!
//! The simulator is cachegrind's (write-allocate LRU caches, no prefetching), run
//! through callgrind, which adds call sites: gfortran at -O2 turns copy and zero loops
//! into `memcpy`/`memset` calls, whose misses cachegrind would put on libc's lines.
//! Each analyzed loop nest is compared over its own line range (the DO statement to
//! its END DO) with the library calls made from those lines: augur's locality covers
//! only array references of affine nests, while the simulation counts every access of
//! the process, so the report also gives the share of the process's misses inside the
//! analyzed nests. Where `perf stat` can read the hardware cache counters they are
//! shown beside the simulation; on a virtual machine without a virtual PMU it cannot,
//! and the benchmark says so once.

use crate::corpus;
use crate::Verdict;
use anyhow::{anyhow, bail, Context, Result};
use augur_ir::{Program, StmtKind};
use augur_machine_profile::memory::{CacheLevel, MainMemory, MemoryProfile};
use augur_program_profile::locality::{LocalityProfile, LINE_BYTES};
use augur_toolchain::{self as toolchain, BuildInput, RunSpec, Toolchain};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The corpus programs of the default set: memory-bound, with affine loop nests that
/// augur analyzes, each under a minute under valgrind's cache simulation on the
/// reference machine (5 minutes in all on a quiet machine; the corpus has no smaller
/// problem sizes to choose). Left out: mm6 (the six loop orders of a matrix multiply,
/// 75-110 s) and lufact77 (55-85 s, most of its references are not affine), both worth
/// running with `--only`; wave77 (three minutes); and the programs whose arrays are
/// allocatable or assumed-shape, which have no affine nests to compare (heat3d,
/// transpose, dense, life, cg).
pub const DEFAULT_PROGRAMS: &[&str] = &[
    "stride77",
    "trcopy77",
    "stencil3d",
    "matmul77",
    "jacobi77",
    "stream77",
    "commonloc77",
    "tridiag77",
];

/// Nests (or programs) with fewer misses than this on both sides are shown but left
/// out of the summary: their few misses are cold misses and neighbours' leftovers.
pub const MIN_COMPARED: f64 = 10_000.0;

/// Options of the benchmark.
pub struct MissesArgs<'a> {
    /// The corpus manifest.
    pub manifest: &'a Path,
    /// Fortran compiler.
    pub fc: &'a str,
    /// Compiler flags.
    pub fflags: &'a str,
    /// Machine profile whose `[memory]` section gives the geometry (default: the OS's).
    pub machine: Option<&'a str>,
    /// Only these programs (default: [`DEFAULT_PROGRAMS`]).
    pub only: &'a [String],
    /// All programs of the manifest.
    pub all: bool,
    /// Also print the tables as Markdown.
    pub markdown: bool,
    /// Print the results as JSON instead of tables.
    pub json: bool,
    /// Time limit of one run under valgrind.
    pub timeout: Duration,
}

/// One cache as valgrind simulates it and the predictor prices it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Cache {
    /// Capacity, bytes.
    pub size_bytes: u64,
    /// Associativity.
    pub ways: u32,
    /// Line size, bytes.
    pub line_bytes: u64,
}

impl Cache {
    /// The `--D1=`/`--LL=` value of valgrind's cache simulation.
    fn valgrind_arg(&self) -> String {
        format!("{},{},{}", self.size_bytes, self.ways, self.line_bytes)
    }

    /// Valgrind's simulator needs a power-of-two number of sets and line size.
    fn check(&self, what: &str) -> Result<()> {
        let per_set = self.line_bytes * self.ways as u64;
        if self.ways == 0 || self.line_bytes == 0 || self.size_bytes % per_set != 0 {
            bail!(
                "{what}: {} bytes, {} ways, {}-byte lines is not a cache geometry",
                self.size_bytes,
                self.ways,
                self.line_bytes
            );
        }
        let sets = self.size_bytes / per_set;
        if !sets.is_power_of_two() || !self.line_bytes.is_power_of_two() {
            bail!(
                "{what}: {} sets of {}-byte lines: valgrind simulates only power-of-two sets and lines",
                sets,
                self.line_bytes
            );
        }
        Ok(())
    }

    /// The largest cache of the same ways and line with a power-of-two number of sets
    /// not above this one's, when this one's is not (a guest's last level as `/sys`
    /// reports the whole socket's: 480 MiB, 16 ways, 491,520 sets); `None` when it is,
    /// or when it is no cache geometry.
    fn power_of_two_sets(&self) -> Option<Cache> {
        let per_set = self.line_bytes * self.ways as u64;
        if per_set == 0 || self.size_bytes % per_set != 0 {
            return None;
        }
        let sets = self.size_bytes / per_set;
        (sets > 0 && !sets.is_power_of_two()).then(|| Cache {
            size_bytes: (1u64 << sets.ilog2()) * per_set,
            ..*self
        })
    }

    fn describe(&self) -> String {
        let size = if self.size_bytes % (1 << 20) == 0 {
            format!("{} MiB", self.size_bytes >> 20)
        } else {
            format!("{} KiB", self.size_bytes >> 10)
        };
        format!("{size} {}-way {} B lines", self.ways, self.line_bytes)
    }
}

/// The two caches compared: the L1 data cache and the last level.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Geometry {
    /// L1 data cache.
    pub l1: Cache,
    /// Last-level cache.
    pub ll: Cache,
    /// Where the values come from.
    pub source: String,
}

/// The geometry from a machine profile's `[memory]` section (OS values first, as the
/// predictor takes them) or, without one, from the OS.
fn geometry(machine: Option<&str>) -> Result<Geometry> {
    let (caches, source) = match machine {
        Some(spec) => {
            let m = augur_model::LoadedMachine::load(spec)?;
            let Some(mem) = &m.profile.memory else {
                bail!(
                    "the machine profile {} has no [memory] section (augur characterize --memory)",
                    m.name
                );
            };
            let caches: Vec<Cache> = mem
                .levels
                .iter()
                .map(|l| Cache {
                    size_bytes: l.os_size_bytes.unwrap_or(l.size_bytes),
                    ways: l.os_ways.or(l.ways).unwrap_or(8),
                    line_bytes: l.os_line_bytes.unwrap_or(l.line_bytes),
                })
                .collect();
            (caches, format!("machine profile {}", m.name))
        }
        None => {
            let os = augur_toolchain::os::detect();
            let caches = os
                .caches
                .iter()
                .map(|c| Cache {
                    size_bytes: c.size,
                    ways: c.ways.unwrap_or(8),
                    line_bytes: c.line,
                })
                .collect();
            (
                caches,
                "the OS (/sys/devices/system/cpu/cpu0/cache)".to_string(),
            )
        }
    };
    let (Some(&l1), Some(&reported)) = (caches.first(), caches.last()) else {
        bail!("{source} reports no data cache");
    };
    // Both the simulation and the prediction take the last level valgrind can simulate.
    let (ll, source) = match reported.power_of_two_sets() {
        Some(ll) => (
            ll,
            format!(
                "{source}, the last level taken as {} (valgrind simulates only power-of-two \
                 sets; {} reported)",
                ll.describe(),
                reported.describe()
            ),
        ),
        None => (reported, source),
    };
    if caches.len() < 2 {
        bail!("{source} reports a single cache level; valgrind simulates an L1d and a last level");
    }
    l1.check("L1d")?;
    ll.check("last-level cache")?;
    Ok(Geometry { l1, ll, source })
}

/// The simulation's data counts: reads and writes and their misses in D1 and LL.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DataCounts {
    /// Data reads.
    pub dr: u64,
    /// D1 read misses.
    pub d1mr: u64,
    /// LL data read misses.
    pub dlmr: u64,
    /// Data writes.
    pub dw: u64,
    /// D1 write misses.
    pub d1mw: u64,
    /// LL data write misses.
    pub dlmw: u64,
}

impl DataCounts {
    /// D1 misses (reads and writes).
    pub fn d1(&self) -> u64 {
        self.d1mr + self.d1mw
    }

    /// LL data misses (reads and writes).
    pub fn ll(&self) -> u64 {
        self.dlmr + self.dlmw
    }

    fn add(&mut self, o: &DataCounts) {
        self.dr += o.dr;
        self.d1mr += o.d1mr;
        self.dlmr += o.dlmr;
        self.dw += o.dw;
        self.d1mw += o.d1mw;
        self.dlmw += o.dlmw;
    }
}

/// The inclusive counts of the calls made from one source line to one function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// The callee's file (as named in the debug information; `???` without it).
    pub file: String,
    /// The callee.
    pub function: String,
    /// Everything the calls did, callees of the callee included.
    pub counts: DataCounts,
}

/// A parsed callgrind out file: totals, the counts of the instructions of each source
/// file and line (self), and the inclusive counts of the calls made from each line.
#[derive(Debug, Clone, Default)]
pub struct SimOut {
    /// The `desc:` lines (the simulated caches, ...).
    pub desc: Vec<String>,
    /// The whole process (the `summary:` or `totals:` line).
    pub total: DataCounts,
    /// Self counts per file (as named in the debug information) and line, all functions
    /// summed.
    pub lines: BTreeMap<(String, u32), DataCounts>,
    /// Calls per calling file and line.
    pub calls: BTreeMap<(String, u32), Vec<Call>>,
}

/// Parses a callgrind out file (`valgrind --tool=callgrind --cache-sim=yes`): `events:`
/// names the columns; `fl=`, `fi=` and `fe=` set the file of the cost lines that follow,
/// `fn=` the function; `cfi=`/`cfl=` and `cfn=` name a callee and `calls=` says that the
/// next cost line is the inclusive cost of calls to it from that line; other lines are
/// `POSITION COUNT...` (missing trailing counts are zero). Compressed names (`(7) name`,
/// then `(7)`) and positions (`+2`, `-1`, `*`) are understood.
pub fn parse_callgrind(text: &str) -> Result<SimOut> {
    let mut out = SimOut::default();
    let mut cols: Option<[usize; 6]> = None;
    let mut summary = None;
    let mut files: HashMap<String, String> = HashMap::new();
    let mut fns: HashMap<String, String> = HashMap::new();
    let (mut file, mut callee_file, mut callee_fn) = (String::new(), None::<String>, String::new());
    let mut in_call = false;
    let mut last = 0u32;
    let pick = |cols: &[usize; 6], nums: &[u64]| {
        let at = |k: usize| nums.get(cols[k]).copied().unwrap_or(0);
        DataCounts {
            dr: at(0),
            d1mr: at(1),
            dlmr: at(2),
            dw: at(3),
            d1mw: at(4),
            dlmw: at(5),
        }
    };
    let numbers = |s: &str, n: usize| -> Result<Vec<u64>> {
        s.split_whitespace()
            .map(|t| {
                t.parse::<u64>()
                    .map_err(|_| anyhow!("line {n}: `{t}` is not a count"))
            })
            .collect()
    };
    // `(id) name` defines a compressed name, `(id)` uses it, anything else is the name.
    let name = |table: &mut HashMap<String, String>, v: &str| -> String {
        let v = v.trim();
        if let Some(rest) = v.strip_prefix('(') {
            if let Some((id, tail)) = rest.split_once(')') {
                let tail = tail.trim();
                if tail.is_empty() {
                    return table.get(id).cloned().unwrap_or_default();
                }
                table.insert(id.to_string(), tail.to_string());
                return tail.to_string();
            }
        }
        v.to_string()
    };
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line = line.trim_end();
        let Some(first) = line.chars().next() else {
            continue;
        };
        if first.is_ascii_digit() || first == '+' || first == '-' || first == '*' {
            let c = cols.ok_or_else(|| anyhow!("line {n}: counts before the events line"))?;
            let (pos, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            let ln = match pos {
                "*" => Some(last),
                p if p.starts_with('+') => p[1..].parse::<u32>().ok().map(|d| last + d),
                p if p.starts_with('-') => {
                    p[1..].parse::<u32>().ok().map(|d| last.saturating_sub(d))
                }
                p => p.parse().ok(),
            }
            .ok_or_else(|| anyhow!("line {n}: bad position `{pos}`"))?;
            last = ln;
            let counts = pick(&c, &numbers(rest, n)?);
            if in_call {
                out.calls.entry((file.clone(), ln)).or_default().push(Call {
                    file: callee_file.take().unwrap_or_else(|| file.clone()),
                    function: callee_fn.clone(),
                    counts,
                });
                in_call = false;
            } else {
                out.lines
                    .entry((file.clone(), ln))
                    .or_default()
                    .add(&counts);
            }
            continue;
        }
        let Some((key, v)) = line.split_once(['=', ':']) else {
            continue;
        };
        match key {
            "desc" => out.desc.push(v.trim().to_string()),
            "events" => {
                let names: Vec<&str> = v.split_whitespace().collect();
                let mut c = [0usize; 6];
                for (k, e) in ["Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw"]
                    .iter()
                    .enumerate()
                {
                    c[k] = names.iter().position(|x| x == e).ok_or_else(|| {
                        anyhow!("line {n}: no `{e}` event (was it run with --cache-sim=yes?)")
                    })?;
                }
                cols = Some(c);
            }
            "fl" | "fi" | "fe" => file = name(&mut files, v),
            "fn" => {
                name(&mut fns, v);
            }
            "cfi" | "cfl" => callee_file = Some(name(&mut files, v)),
            "cfn" => callee_fn = name(&mut fns, v),
            "calls" => in_call = true,
            "summary" | "totals" => {
                let c = cols.ok_or_else(|| anyhow!("line {n}: totals before the events line"))?;
                summary = Some(pick(&c, &numbers(v, n)?));
            }
            // `version:`, `creator:`, `cmd:`, `positions:`, `ob=`, `cob=`, `jump=`, ...
            _ => {}
        }
    }
    if cols.is_none() {
        bail!("not a callgrind out file: no `events:` line");
    }
    out.total = match summary {
        Some(s) => s,
        None => {
            let mut t = DataCounts::default();
            for c in out.lines.values() {
                t.add(c);
            }
            t
        }
    };
    Ok(out)
}

/// The source lines of one loop nest: its DO statement to its last END DO.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LineRange {
    /// The file.
    pub file: PathBuf,
    /// The DO line.
    pub first: u32,
    /// The last line of the nest (its END DO, or the last statement of its body).
    pub last: u32,
}

/// The line range of the nest whose outermost loop is `loop_id` of unit `unit`, its DO
/// on `line`: from the DO statement over every statement of a block inside the nest
/// and on to the line before the unit's next statement (END DO is not a statement of
/// the IR, so its lines are the gap), never past the unit's end or into another unit.
pub fn nest_range(program: &Program, unit: &str, loop_id: u32, line: u32) -> Option<LineRange> {
    let u = program.units.iter().find(|u| {
        u.name.eq_ignore_ascii_case(unit)
            && u.loops
                .get(loop_id as usize)
                .is_some_and(|l| l.span.start.line == line)
    })?;
    let root = &u.loops[loop_id as usize];
    let file = root.span.start.file;
    let first = root.span.start.line;
    let inside = |mut id: Option<augur_ir::LoopId>| {
        while let Some(l) = id {
            if l.0 == loop_id {
                return true;
            }
            id = u.loops.get(l.0 as usize).and_then(|x| x.parent);
        }
        false
    };
    let mut stmts: BTreeSet<usize> = BTreeSet::new();
    for b in u.blocks.iter().filter(|b| inside(b.in_loop)) {
        stmts.extend(b.stmts.iter().map(|&s| s as usize));
    }
    let do_stmt = u
        .stmts
        .iter()
        .position(|s| matches!(&s.kind, StmtKind::Do { loop_id: l, .. } if l.0 == loop_id));
    stmts.extend(do_stmt);
    let k = stmts.last().copied()?;
    let mut last = root.span.end_line;
    for &s in &stmts {
        let st = &u.stmts[s];
        if st.span.start.file == file {
            last = last.max(st.span.end_line);
        }
    }
    // The END DO lines: up to the next statement, the unit's END, or another unit.
    let mut limit = if u.span.start.file == file && u.span.end_line > last {
        u.span.end_line - 1
    } else {
        last
    };
    if let Some(next) = u.stmts[k + 1..]
        .iter()
        .find(|st| st.span.start.file == file && st.span.start.line > last)
    {
        limit = limit.min(next.span.start.line - 1);
    }
    for other in &program.units {
        let l = other.span.start.line;
        if other.span.start.file == file && l > first && l > last && !std::ptr::eq(other, u) {
            limit = limit.min(l - 1);
        }
    }
    Some(LineRange {
        file: program.files.get(file).path.clone(),
        first,
        last: last.max(limit),
    })
}

/// Whether a file name of valgrind's (from the debug information) is `path`.
fn same_file(cg: &str, path: &Path, canonical: &Option<PathBuf>) -> bool {
    let p = Path::new(cg);
    if p == path {
        return true;
    }
    if let (Ok(a), Some(b)) = (p.canonicalize(), canonical) {
        return &a == b;
    }
    p.file_name().is_some() && p.file_name() == path.file_name()
}

/// Hardware cache counters from `perf stat`.
#[derive(Debug, Clone, Copy, Default, Serialize, schemars::JsonSchema)]
pub struct PerfCounts {
    /// `L1-dcache-load-misses`.
    pub l1_load_misses: Option<u64>,
    /// `LLC-load-misses`.
    pub llc_load_misses: Option<u64>,
}

const PERF_EVENTS: &str = "L1-dcache-load-misses,LLC-load-misses";

/// Parses `perf stat -x,` output (on the program's standard error, among its own lines).
fn parse_perf(stderr: &str) -> PerfCounts {
    let mut out = PerfCounts::default();
    for line in stderr.lines() {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() < 3 {
            continue;
        }
        let v = f[0].trim().parse::<u64>().ok();
        match f[2].trim().split(':').next().unwrap_or("") {
            "L1-dcache-load-misses" => out.l1_load_misses = v,
            "LLC-load-misses" => out.llc_load_misses = v,
            _ => {}
        }
    }
    out
}

/// What kind of virtual machine this is, if any (`KVM guest`).
fn virtual_machine() -> Option<String> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let flagged = cpuinfo
        .lines()
        .any(|l| l.starts_with("flags") && l.split_whitespace().any(|w| w == "hypervisor"));
    let clocks = std::fs::read_to_string(
        "/sys/devices/system/clocksource/clocksource0/available_clocksource",
    )
    .unwrap_or_default();
    if clocks.split_whitespace().any(|c| c == "kvm-clock") {
        Some("KVM guest".into())
    } else if clocks
        .split_whitespace()
        .any(|c| c == "hyperv_clocksource_tsc_page")
    {
        Some("Hyper-V guest".into())
    } else if flagged {
        Some("virtual machine".into())
    } else {
        None
    }
}

/// An executable found on `PATH`.
fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Runs the plain build under `perf stat`; `Err` says why the counters are unavailable.
fn perf_stat(perf: &Path, exe: &Path, spec: &RunSpec) -> Result<PerfCounts, String> {
    let mut s = spec.clone();
    s.args = vec![
        "stat".into(),
        "-x,".into(),
        "-e".into(),
        PERF_EVENTS.into(),
        "--".into(),
        exe.display().to_string(),
    ];
    s.args.extend(spec.args.iter().cloned());
    let r = toolchain::run(perf, &s).map_err(|e| format!("cannot run perf: {e}"))?;
    let err = String::from_utf8_lossy(&r.stderr);
    let c = parse_perf(&err);
    if c.l1_load_misses.is_none() && c.llc_load_misses.is_none() {
        let why = if err.contains("<not supported>") {
            "the events are <not supported>".to_string()
        } else if !r.success() {
            format!("perf stat {}", r.describe())
        } else {
            "no counts in perf's output".to_string()
        };
        return Err(why);
    }
    Ok(c)
}

/// One analyzed nest compared.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct NestResult {
    /// Program unit.
    pub unit: String,
    /// Line of the outermost DO.
    pub line: u32,
    /// Its source lines, when found.
    pub range: Option<LineRange>,
    /// Times it ran.
    pub executions: f64,
    /// Some loop ran its mean trip count instead of its bounds.
    pub approximate: bool,
    /// The histograms are estimates (prefix of the outer loop or spatial sampling).
    pub sampled: bool,
    /// References on the nest's lines that are not affine, hence not in its histograms
    /// (indirect subscripts, arrays passed to calls, ...).
    pub non_affine_refs: usize,
    /// Predicted L1d misses.
    pub predicted_l1: f64,
    /// Predicted last-level misses.
    pub predicted_ll: f64,
    /// The simulation's counts over the nest's lines, with the library calls made from
    /// them.
    pub simulated: DataCounts,
    /// The part of `simulated` in library functions called from the nest's lines
    /// (`memcpy` and `memset`, into which gfortran turns copy and zero loops).
    pub in_library_calls: DataCounts,
}

/// One program compared.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ProgramResult {
    /// Corpus name.
    pub name: String,
    /// Wall time of the run under valgrind, seconds.
    pub simulation_seconds: f64,
    /// The simulation's counts of the whole process.
    pub total: DataCounts,
    /// The simulation's counts over the lines of all analyzed nests (with the library
    /// calls made from them).
    pub in_nests: DataCounts,
    /// Predicted L1d misses, all nests.
    pub predicted_l1: f64,
    /// Predicted last-level misses, all nests.
    pub predicted_ll: f64,
    /// Hardware counters, where perf can read them.
    pub perf: Option<PerfCounts>,
    /// Per nest.
    pub nests: Vec<NestResult>,
}

/// The whole benchmark.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Report {
    /// Compiler and flags of the builds.
    pub setup: String,
    /// The caches simulated and predicted.
    pub geometry: Geometry,
    /// Why perf's counters are not shown, when they are not.
    pub perf_unavailable: Option<String>,
    /// Per program.
    pub programs: Vec<ProgramResult>,
    /// Programs that failed, with the reason.
    pub failed: Vec<(String, String)>,
}

/// The `schema` of `augur bench misses --json`.
pub const SCHEMA: u32 = 1;

/// The `kind` of `augur bench misses --json`.
pub const KIND: &str = "augur-cache-misses";

/// What `augur bench misses --json` prints: the report and the summaries of its ratios.
#[derive(Serialize, schemars::JsonSchema)]
pub struct Doc<'a> {
    /// [`SCHEMA`].
    pub schema: u32,
    /// [`KIND`].
    pub kind: &'static str,
    /// The report.
    #[serde(flatten)]
    pub report: &'a Report,
    /// Each summary's title and numbers.
    pub summaries: &'a [(String, RatioSummary)],
}

/// A memory profile with just the two compared caches, for the predictor's memory term
/// (its bandwidths are placeholders: only the miss counts are read).
fn memory_profile(g: &Geometry) -> MemoryProfile {
    let level = |name: &str, n: u32, c: &Cache| CacheLevel {
        name: name.into(),
        level: n,
        size_bytes: c.size_bytes,
        line_bytes: c.line_bytes,
        ways: Some(c.ways),
        bandwidth_gbs: Some(1.0),
        os_size_bytes: Some(c.size_bytes),
        os_line_bytes: Some(c.line_bytes),
        os_ways: Some(c.ways),
        ..Default::default()
    };
    MemoryProfile {
        levels: vec![level("L1d", 1, &g.l1), level("LL", 2, &g.ll)],
        memory: MainMemory {
            bandwidth_gbs: 1.0,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Predicted (L1d, LL) misses per nest, in the order of `loc.nests`.
fn predicted(loc: &LocalityProfile, g: &Geometry) -> Vec<(f64, f64)> {
    augur_model::memory::nest_memory(loc, &memory_profile(g), None, &[], &[], &[])
        .iter()
        .map(|n| {
            let at = |name: &str| {
                n.levels
                    .iter()
                    .find(|l| l.level == name)
                    .map_or(0.0, |l| l.misses)
            };
            (at("L1d"), at("LL"))
        })
        .collect()
}

/// What every program's run shares.
struct Ctx<'a> {
    root: &'a Path,
    tc: &'a Toolchain,
    g: &'a Geometry,
    valgrind: &'a Path,
    timeout: Duration,
}

/// perf, while it may still work, and why it does not once it failed.
struct PerfState {
    path: Option<PathBuf>,
    unavailable: Option<String>,
}

/// Runs one program: build, perf, simulation, analysis, comparison.
fn one(p: &corpus::CorpusProgram, cx: &Ctx, perf: &mut PerfState) -> Result<ProgramResult> {
    let (root, tc, g, timeout) = (cx.root, cx.tc, cx.g, cx.timeout);
    let (fortran, c_sources) = p.sources(root);
    let fortran: Vec<PathBuf> = fortran
        .iter()
        .map(|f| f.canonicalize().unwrap_or_else(|_| f.clone()))
        .collect();
    let work = augur_toolchain::interrupt::temp_dir("augur-misses-")?;
    let input = BuildInput {
        fortran: fortran.clone(),
        extra_fflags: [vec!["-g".to_string()], p.preprocessing_flags(root)].concat(),
        c_sources,
        objects: vec![],
        link_args: vec![],
    };
    let exe = toolchain::build(tc, &input, work.path(), "plain")
        .with_context(|| format!("{}: the plain build failed", p.name))?;
    let spec = RunSpec {
        args: p.args.clone(),
        stdin: p.stdin_path(root),
        timeout,
        env: vec![],
        cwd: std::env::current_dir()?,
        capture: true,
        fixed_addresses: false,
    };
    let mut perf_counts = None;
    if let Some(path) = perf.path.clone() {
        match perf_stat(&path, &exe, &spec) {
            Ok(c) => perf_counts = Some(c),
            Err(why) => {
                perf.unavailable = Some(why);
                perf.path = None;
            }
        }
    }
    let out_file = work.path().join("callgrind.out");
    let mut vg = spec.clone();
    vg.args = vec![
        "--tool=callgrind".into(),
        "--cache-sim=yes".into(),
        // The instruction cache is not compared; it is given the L1d's geometry so
        // that valgrind never depends on detecting the host's caches.
        format!("--I1={}", g.l1.valgrind_arg()),
        format!("--D1={}", g.l1.valgrind_arg()),
        format!("--LL={}", g.ll.valgrind_arg()),
        "--compress-strings=no".into(),
        "--compress-pos=no".into(),
        format!("--callgrind-out-file={}", out_file.display()),
        exe.display().to_string(),
    ];
    vg.args.extend(spec.args.iter().cloned());
    let t0 = Instant::now();
    let r = toolchain::run(cx.valgrind, &vg).with_context(|| format!("{}: valgrind", p.name))?;
    let simulation_seconds = t0.elapsed().as_secs_f64();
    if !r.success() {
        let err = String::from_utf8_lossy(&r.stderr);
        let tail: Vec<&str> = err.lines().rev().take(5).collect();
        bail!(
            "{}: the run under valgrind {} ({})",
            p.name,
            r.describe(),
            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
        );
    }
    let text = std::fs::read_to_string(&out_file)
        .with_context(|| format!("{}: valgrind wrote no {}", p.name, out_file.display()))?;
    let sim = parse_callgrind(&text).with_context(|| format!("{}: callgrind out file", p.name))?;

    let (_, opts) = p.analyze_options(root, tc)?;
    let analysis =
        augur_program::analyze(&fortran, &opts).map_err(|e| anyhow!("{}: {e}", p.name))?;
    let Some(loc) = &analysis.profile.locality else {
        bail!("{}: the program profile has no locality analysis", p.name);
    };
    // The program's own files: calls into them are counted on their own lines.
    let sources: Vec<(PathBuf, Option<PathBuf>)> = analysis
        .program
        .files
        .files
        .iter()
        .map(|f| (f.path.clone(), f.path.canonicalize().ok()))
        .collect();
    let is_program_file = |name: &str| sources.iter().any(|(p, c)| same_file(name, p, c));
    let sim_files: BTreeSet<&String> = sim
        .lines
        .keys()
        .chain(sim.calls.keys())
        .map(|(f, _)| f)
        .collect();
    let pred = predicted(loc, g);
    let mut nests = vec![];
    let mut counted: HashSet<(String, u32)> = HashSet::new();
    let mut in_nests = DataCounts::default();
    for (n, &(l1, ll)) in loc.nests.iter().zip(&pred) {
        let range = nest_range(&analysis.program, &n.unit, n.loop_id, n.line);
        let (mut all, mut lib) = (DataCounts::default(), DataCounts::default());
        if let Some(r) = &range {
            let canonical = r.file.canonicalize().ok();
            for f in sim_files
                .iter()
                .filter(|f| same_file(f, &r.file, &canonical))
            {
                for ln in r.first..=r.last {
                    let key = ((*f).clone(), ln);
                    let mut here = sim.lines.get(&key).copied().unwrap_or_default();
                    for c in sim.calls.get(&key).into_iter().flatten() {
                        if !is_program_file(&c.file) {
                            here.add(&c.counts);
                            lib.add(&c.counts);
                        }
                    }
                    all.add(&here);
                    if counted.insert(key) {
                        in_nests.add(&here);
                    }
                }
            }
        }
        let non_affine_refs = range.as_ref().map_or(0, |r| {
            loc.non_affine
                .iter()
                .filter(|x| x.unit == n.unit && (r.first..=r.last).contains(&x.line))
                .count()
        });
        nests.push(NestResult {
            unit: n.unit.clone(),
            line: n.line,
            range,
            executions: n.executions,
            approximate: n.approximate,
            sampled: n.sample_rate < 1.0 || n.streamed_accesses < n.accesses,
            non_affine_refs,
            predicted_l1: l1,
            predicted_ll: ll,
            simulated: all,
            in_library_calls: lib,
        });
    }
    Ok(ProgramResult {
        name: p.name.clone(),
        simulation_seconds,
        total: sim.total,
        in_nests,
        predicted_l1: nests.iter().map(|n| n.predicted_l1).sum(),
        predicted_ll: nests.iter().map(|n| n.predicted_ll).sum(),
        perf: perf_counts,
        nests,
    })
}

/// `predicted / simulated` as text (`1.05x`, `inf`, `-` when both are below one miss).
fn ratio_text(pred: f64, sim: f64) -> String {
    if sim <= 0.0 {
        if pred < 0.5 {
            "-".into()
        } else {
            "inf".into()
        }
    } else if pred / sim >= 100.0 {
        format!("{:.0}x", pred / sim)
    } else {
        format!("{:.2}x", pred / sim)
    }
}

/// A count in short form: `8.39e6`, or the integer below 10^4.
fn count_text(v: f64) -> String {
    if v.abs() < 1e4 {
        format!("{:.0}", v)
    } else {
        format!("{v:.3e}")
    }
}

fn share_text(part: u64, whole: u64) -> String {
    if whole == 0 {
        "-".into()
    } else {
        format!("{:.0}%", 100.0 * part as f64 / whole as f64)
    }
}

/// Summary of ratios: count, share within 1.5x and 2x, median deviation factor
/// `exp(median |ln ratio|)` and geometric mean ratio.
#[derive(Debug, Clone, Copy, Serialize, schemars::JsonSchema)]
pub struct RatioSummary {
    /// Pairs compared (none: the four numbers are NaN, `null` in JSON).
    pub compared: usize,
    /// Share with `1/1.5 ≤ ratio ≤ 1.5`.
    #[schemars(with = "Option<f64>")]
    pub within_1_5: f64,
    /// Share with `1/2 ≤ ratio ≤ 2`.
    #[schemars(with = "Option<f64>")]
    pub within_2: f64,
    /// `exp(median |ln ratio|)`.
    #[schemars(with = "Option<f64>")]
    pub median_factor: f64,
    /// `exp(mean ln ratio)`: above 1, the model over-predicts on the whole.
    #[schemars(with = "Option<f64>")]
    pub geometric_mean: f64,
}

/// Summarizes `(predicted, measured)` pairs with at least [`MIN_COMPARED`] misses on
/// one side (a zero side counts as a factor of 1000).
pub fn summarize(pairs: &[(f64, f64)]) -> RatioSummary {
    let logs: Vec<f64> = pairs
        .iter()
        .filter(|(p, c)| p.max(*c) >= MIN_COMPARED)
        .map(|&(p, c)| {
            if p <= 0.0 || c <= 0.0 {
                if p > c {
                    1000f64.ln()
                } else {
                    -(1000f64.ln())
                }
            } else {
                (p / c).ln()
            }
        })
        .collect();
    let n = logs.len();
    if n == 0 {
        return RatioSummary {
            compared: 0,
            within_1_5: f64::NAN,
            within_2: f64::NAN,
            median_factor: f64::NAN,
            geometric_mean: f64::NAN,
        };
    }
    let within =
        |f: f64| logs.iter().filter(|l| l.abs() <= f.ln() + 1e-12).count() as f64 / n as f64;
    let mut abs: Vec<f64> = logs.iter().map(|l| l.abs()).collect();
    abs.sort_by(|a, b| a.total_cmp(b));
    let med = if n % 2 == 1 {
        abs[n / 2]
    } else {
        0.5 * (abs[n / 2 - 1] + abs[n / 2])
    };
    RatioSummary {
        compared: n,
        within_1_5: within(1.5),
        within_2: within(2.0),
        median_factor: med.exp(),
        geometric_mean: (logs.iter().sum::<f64>() / n as f64).exp(),
    }
}

fn summary_text(what: &str, s: &RatioSummary) -> String {
    if s.compared == 0 {
        return format!("{what}: nothing to compare");
    }
    format!(
        "{what}: {} compared, within 1.5x: {:.0}%, within 2x: {:.0}%, median deviation {:.2}x, geometric mean ratio {:.2}x",
        s.compared,
        100.0 * s.within_1_5,
        100.0 * s.within_2,
        s.median_factor,
        s.geometric_mean
    )
}

/// The programs to run: `--only`, all of the manifest with `--all`, else the default set.
fn chosen(a: &MissesArgs) -> Result<(PathBuf, Vec<corpus::CorpusProgram>)> {
    let (root, programs) = corpus::load(a.manifest, a.only)?;
    if !a.only.is_empty() {
        let missing: Vec<&String> = a
            .only
            .iter()
            .filter(|n| !programs.iter().any(|p| &p.name == *n))
            .collect();
        if !missing.is_empty() {
            bail!(
                "not in {}: {}",
                a.manifest.display(),
                missing
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        return Ok((root, programs));
    }
    if a.all {
        return Ok((root, programs));
    }
    let programs = programs
        .into_iter()
        .filter(|p| DEFAULT_PROGRAMS.contains(&p.name.as_str()))
        .collect();
    Ok((root, programs))
}

/// Runs the benchmark and prints its table (or JSON); [`Verdict::Failed`] when some
/// program failed.
pub fn run(a: &MissesArgs) -> Result<Verdict> {
    let (root, programs) = chosen(a)?;
    let Some(valgrind) = which("valgrind") else {
        bail!(
            "valgrind is not installed: `augur bench misses` simulates the caches with its \
             cache simulator (apt-get install -y valgrind, or scripts/setup.sh)"
        );
    };
    let g = geometry(a.machine)?;
    if programs.is_empty() {
        bail!("no corpus program to run");
    }
    let tc = Toolchain::detect(a.fc, a.fflags)?;
    tc.check_flags()?;
    let setup = format!("{} {}", tc.fc, tc.fflags.join(" "));
    let path = which("perf");
    let mut perf = PerfState {
        unavailable: path.is_none().then(|| "perf is not installed".to_string()),
        path,
    };
    let cx = Ctx {
        root: &root,
        tc: &tc,
        g: &g,
        valgrind: &valgrind,
        timeout: a.timeout,
    };
    if !a.json {
        println!(
            "augur cache-miss benchmark: {} corpus programs built with {setup} (+ -g), \
             predicted misses against valgrind's cache simulation (callgrind) on the caches of {}:",
            programs.len(),
            g.source
        );
        println!("L1d {}, LL {}", g.l1.describe(), g.ll.describe());
        if g.l1.line_bytes != LINE_BYTES || g.ll.line_bytes != LINE_BYTES {
            println!(
                "note: the reuse histograms are at {LINE_BYTES}-byte lines; the prediction does not rescale them"
            );
        }
    }
    let mut report = Report {
        setup,
        geometry: g.clone(),
        perf_unavailable: None,
        programs: vec![],
        failed: vec![],
    };
    let mut said_perf = false;
    for p in &programs {
        let res = one(p, &cx, &mut perf);
        if !a.json && !said_perf && perf.path.is_none() {
            if let Some(why) = &perf.unavailable {
                let vm = virtual_machine()
                    .map(|v| format!(" ({v})"))
                    .unwrap_or_default();
                println!(
                    "perf: hardware counters not available on this machine{vm}: {why} — compared with valgrind's cache simulation instead"
                );
                said_perf = true;
            }
        }
        match res {
            Ok(r) => {
                if !a.json {
                    print_program(&r, report.programs.is_empty());
                }
                report.programs.push(r);
            }
            Err(e) => {
                if !a.json {
                    println!("{:<12} failed: {}", p.name, crate::error_text(&e));
                }
                report.failed.push((p.name.clone(), format!("{e:#}")));
            }
        }
    }
    report.perf_unavailable = perf.unavailable.map(|why| match virtual_machine() {
        Some(v) => format!("{why} ({v})"),
        None => why,
    });
    let summaries = summaries(&report);
    if a.json {
        let doc = Doc {
            schema: SCHEMA,
            kind: KIND,
            report: &report,
            summaries: &summaries,
        };
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        let d1: u64 = report.programs.iter().map(|p| p.total.d1()).sum();
        let d1in: u64 = report.programs.iter().map(|p| p.in_nests.d1()).sum();
        let llt: u64 = report.programs.iter().map(|p| p.total.ll()).sum();
        let llin: u64 = report.programs.iter().map(|p| p.in_nests.ll()).sum();
        println!(
            "\nratio = predicted / simulated over the nest's lines (with the library calls made from them); \
             ~ = trip counts from means, * = sampled histograms, ! = references on its lines that are \
             not affine (not in the histograms); a complete nest has neither ~ nor !; nests and \
             programs with fewer than {MIN_COMPARED:.0} misses on both sides are left out of the summary"
        );
        for (what, x) in &summaries {
            println!("{}", summary_text(&format!("{what:<22}"), x));
        }
        println!(
            "share of the simulated data misses inside analyzed nests: L1d {}, LL {} ({} programs, {} failed)",
            share_text(d1in, d1),
            share_text(llin, llt),
            report.programs.len(),
            report.failed.len()
        );
        if a.markdown {
            print_markdown(&report, &summaries);
        }
    }
    Ok(if report.failed.is_empty() {
        Verdict::Passed
    } else {
        Verdict::Failed
    })
}

/// Predicted, simulated and their ratio for the L1d, then for the last level.
fn cells(pred_l1: f64, pred_ll: f64, sim: &DataCounts) -> [String; 6] {
    let (l1, ll) = (sim.d1() as f64, sim.ll() as f64);
    [
        count_text(pred_l1),
        count_text(l1),
        ratio_text(pred_l1, l1),
        count_text(pred_ll),
        count_text(ll),
        ratio_text(pred_ll, ll),
    ]
}

/// One line of the text table.
fn text_row(label: &str, c: &[String; 6], note: &str) -> String {
    format!(
        "{label:<24} {:>10} {:>10} {:>8} {:>10} {:>10} {:>8}  {note}",
        c[0], c[1], c[2], c[3], c[4], c[5]
    )
}

/// The L1d misses of a nest's library calls, as a note.
fn library_note(n: &NestResult) -> String {
    match n.in_library_calls.d1() {
        0 => String::new(),
        lib => format!("{} L1d misses in library calls", count_text(lib as f64)),
    }
}

fn print_program(r: &ProgramResult, header: bool) {
    if header {
        let head = [
            "L1d pred",
            "simulated",
            "ratio",
            "LL pred",
            "simulated",
            "ratio",
        ];
        println!(
            "{}",
            text_row(
                "program / nest (lines)",
                &head.map(String::from),
                "program: its L1d misses in nests, of all; run time / nest: runs"
            )
        );
    }
    let note = format!(
        "{} of {}, {:.1} s",
        share_text(r.in_nests.d1(), r.total.d1()),
        count_text(r.total.d1() as f64),
        r.simulation_seconds
    );
    let c = cells(r.predicted_l1, r.predicted_ll, &r.in_nests);
    println!("{}", text_row(&r.name, &c, &note));
    if let Some(pc) = &r.perf {
        println!(
            "  perf: L1-dcache-load-misses {} (simulated D1 read misses {}), LLC-load-misses {} (simulated LL read misses {})",
            pc.l1_load_misses.map_or("-".into(), |v| count_text(v as f64)),
            count_text(r.total.d1mr as f64),
            pc.llc_load_misses.map_or("-".into(), |v| count_text(v as f64)),
            count_text(r.total.dlmr as f64)
        );
    }
    for n in &r.nests {
        let lib = library_note(n);
        let note = format!(
            "x{}{}{lib}",
            count_text(n.executions),
            if lib.is_empty() { "" } else { ", " }
        );
        let c = cells(n.predicted_l1, n.predicted_ll, &n.simulated);
        println!("{}", text_row(&format!("  {}", nest_label(n)), &c, &note));
    }
}

/// Whether every reference of the nest is in its histograms, with exact trip counts.
fn complete(n: &NestResult) -> bool {
    !n.approximate && n.non_affine_refs == 0
}

/// The summaries: per nest (all, complete ones) and per program, for both levels.
fn summaries(r: &Report) -> Vec<(String, RatioSummary)> {
    let nests = |keep: fn(&NestResult) -> bool, f: fn(&NestResult) -> (f64, f64)| {
        let pairs: Vec<(f64, f64)> = r
            .programs
            .iter()
            .flat_map(|p| p.nests.iter().filter(|n| keep(n)).map(f))
            .collect();
        summarize(&pairs)
    };
    let programs = |f: fn(&ProgramResult) -> (f64, f64)| {
        summarize(&r.programs.iter().map(f).collect::<Vec<_>>())
    };
    let l1 = |n: &NestResult| (n.predicted_l1, n.simulated.d1() as f64);
    let ll = |n: &NestResult| (n.predicted_ll, n.simulated.ll() as f64);
    vec![
        ("L1d per nest".into(), nests(|_| true, l1)),
        ("LL per nest".into(), nests(|_| true, ll)),
        ("L1d per complete nest".into(), nests(complete, l1)),
        ("LL per complete nest".into(), nests(complete, ll)),
        (
            "L1d per program".into(),
            programs(|p| (p.predicted_l1, p.in_nests.d1() as f64)),
        ),
        (
            "LL per program".into(),
            programs(|p| (p.predicted_ll, p.in_nests.ll() as f64)),
        ),
    ]
}

/// `unit:first-last` with `~` (approximate trip counts), `*` (sampled) and `!`
/// (references that are not affine).
fn nest_label(n: &NestResult) -> String {
    let lines = match &n.range {
        Some(x) => format!("{}-{}", x.first, x.last),
        None => format!("{}-?", n.line),
    };
    let mut mark = String::new();
    for (on, c) in [
        (n.approximate, '~'),
        (n.sampled, '*'),
        (n.non_affine_refs > 0, '!'),
    ] {
        if on {
            mark.push(c);
        }
    }
    if mark.is_empty() {
        format!("{}:{lines}", n.unit)
    } else {
        format!("{}:{lines} {mark}", n.unit)
    }
}

fn print_markdown(r: &Report, s: &[(String, RatioSummary)]) {
    println!(
        "\n| program / nest (lines) | runs | L1d predicted | L1d simulated | ratio | LL predicted | LL simulated | ratio | notes |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---|");
    let row = |label: &str, runs: &str, c: [String; 6], note: &str| {
        println!("| {label} | {runs} | {} | {note} |", c.join(" | "));
    };
    for p in &r.programs {
        let note = format!(
            "{} of the process's {} L1d misses in nests; {:.0} s under valgrind",
            share_text(p.in_nests.d1(), p.total.d1()),
            count_text(p.total.d1() as f64),
            p.simulation_seconds
        );
        let c = cells(p.predicted_l1, p.predicted_ll, &p.in_nests);
        row(&format!("**{}**", p.name), "", c, &note);
        for n in &p.nests {
            let c = cells(n.predicted_l1, n.predicted_ll, &n.simulated);
            row(
                &nest_label(n),
                &count_text(n.executions),
                c,
                &library_note(n),
            );
        }
    }
    println!(
        "\n| compared | n | within 1.5x | within 2x | median deviation | geometric mean ratio |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for (what, x) in s {
        if x.compared == 0 {
            println!("| {what} | 0 | - | - | - | - |");
        } else {
            println!(
                "| {what} | {} | {:.0}% | {:.0}% | {:.2}x | {:.2}x |",
                x.compared,
                100.0 * x.within_1_5,
                100.0 * x.within_2,
                x.median_factor,
                x.geometric_mean
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The head and the `sweep_` function of a real callgrind 3.19 out file
    /// (`valgrind --tool=callgrind --cache-sim=yes --compress-strings=no
    /// --compress-pos=no` on `gfortran -O2 -g corpus/jacobi77.f`, D1 32 KiB 8-way, LL
    /// 32 MiB 16-way): gfortran turned the copy loop of lines 63-66 into `memcpy` calls.
    const CG_OUT: &str = "\
# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 20894
cmd:  ./jacobi77
part: 1


desc: I1 cache: 32768 B, 64 B, 8-way associative
desc: D1 cache: 32768 B, 64 B, 8-way associative
desc: LL cache: 33554432 B, 64 B, 16-way associative

desc: Timerange: Basic block 0 - 324804473
desc: Trigger: Program termination

positions: line
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
summary: 4723642103 1261816386 315070366 2303 55858093 34873359 2067 1689 28786


ob=/tmp/h2cg/jacobi77
fl=/work/main/corpus/jacobi77.f
fn=sweep_
56 1900 1900 0 1 1900 0 1
55 1900 0 1900
56 3800
48 1900 0 1900
56 5700
48 17100 1900 3800 1 1900 0 1
56 11400 1900 0 0 1899
59 1388455400 831041000 0 1 16782700 0 1
57 276529800
59 829589400 276529800 276529800 0 16693400 16693400
60 553059600
61 553059600
57 553059600
59 2903200 2177400 0 1 727700 0 1
57 725800
59 2177400 725800 725800 0 725800 725800
60 1451600
61 1451600
57 1451600
56 5086300 0 1900 1 0 1900 1
65 17100 0 1900 0 0 1900
cob=/usr/lib/x86_64-linux-gnu/libc.so.6
cfi=./string/../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S
cfn=__memcpy_avx_unaligned_erms
calls=1900 264 
65 323000 98800 93100 6 49400 45600 6
cob=/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
cfi=./elf/../sysdeps/x86_64/dl-trampoline.h
cfn=_dl_runtime_resolve_xsave
calls=1 76 
65 735 257 126 3 60 23 0 5
65 1904 1902 2 0 1901
65 2895600 0 723900
cob=/usr/lib/x86_64-linux-gnu/libc.so.6
cfi=./string/../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S
cfn=__memcpy_avx_unaligned_erms
calls=723900 264 
65 123063000 37642800 35471100 0 17373600 17373600
65 723900 723900
65 725800
63 2177400
68 7600 7600
";

    #[test]
    fn parses_a_real_out_file() {
        let c = parse_callgrind(CG_OUT).unwrap();
        assert_eq!(c.desc.len(), 5);
        assert!(c.desc[2].contains("33554432 B"), "{:?}", c.desc);
        // summary: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
        assert_eq!(c.total.dr, 1_261_816_386);
        assert_eq!(c.total.d1(), 55_858_093 + 34_873_359);
        assert_eq!(c.total.ll(), 1_689 + 28_786);
        let f = "/work/main/corpus/jacobi77.f".to_string();
        // Line 59, the stencil statement: four cost lines summed.
        let l59 = c.lines[&(f.clone(), 59)];
        assert_eq!(l59.d1mr, 16_782_700 + 16_693_400 + 727_700 + 725_800);
        assert_eq!(l59.d1mw, 16_693_400 + 725_800);
        assert_eq!(l59.dw, 276_529_800 + 725_800);
        // Line 65, the copy: its own accesses, and three calls with inclusive counts.
        let l65 = c.lines[&(f.clone(), 65)];
        assert_eq!((l65.d1mr, l65.d1mw), (1_901, 1_900));
        let calls = &c.calls[&(f.clone(), 65)];
        assert_eq!(calls.len(), 3);
        assert_eq!(calls[0].function, "__memcpy_avx_unaligned_erms");
        assert!(calls[0].file.ends_with("memmove-vec-unaligned-erms.S"));
        assert_eq!(calls[1].function, "_dl_runtime_resolve_xsave");
        assert_eq!(calls[1].counts.dlmr, 5);
        let memcpy: u64 = calls
            .iter()
            .filter(|k| k.function.starts_with("__memcpy"))
            .map(|k| k.counts.d1())
            .sum();
        assert_eq!(memcpy, 49_400 + 45_600 + 2 * 17_373_600);
        // A call's cost line is not a self cost of the line.
        assert!(c.lines.keys().all(|(file, _)| file == &f));
    }

    #[test]
    fn compressed_names_and_positions() {
        let t = "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n\
                 fl=(1) /src/a.f90\nfn=(1) main\n10 5 3 0 0 2\n+2 5 3 0 0 1\n* 1 1 0 0 1\n\
                 cfi=(2) libc.c\ncfn=(2) memset\ncalls=4 1\n-1 9 0 8 0 0 8\n\
                 fl=(2)\nfn=(2)\n1 9 0 8 0 0 8\n";
        let c = parse_callgrind(t).unwrap();
        let a = "/src/a.f90".to_string();
        assert_eq!(c.lines[&(a.clone(), 10)].d1mr, 2);
        assert_eq!(c.lines[&(a.clone(), 12)].d1mr, 2);
        assert_eq!(c.calls[&(a, 11)][0].file, "libc.c");
        assert_eq!(c.calls[&("/src/a.f90".to_string(), 11)][0].counts.d1mw, 8);
        assert_eq!(c.lines[&("libc.c".to_string(), 1)].d1mw, 8);
        // Without a summary line, the total is the sum of the self counts.
        assert_eq!(c.total.d1(), 2 + 2 + 8);
    }

    #[test]
    fn rejects_out_files_without_the_cache_simulation() {
        let e = parse_callgrind("events: Ir\nfl=a.f90\nfn=x\n1 5\n").unwrap_err();
        assert!(e.to_string().contains("--cache-sim=yes"), "{e}");
        assert!(parse_callgrind("hello\n").is_err());
        let e = parse_callgrind("events: Ir Dr D1mr DLmr Dw D1mw DLmw\n1 x\n").unwrap_err();
        assert!(e.to_string().contains("not a count"), "{e}");
    }

    #[test]
    fn missing_trailing_counts_are_zero() {
        let c = parse_callgrind("events: Ir Dr D1mr DLmr Dw D1mw DLmw\nfl=a.f90\nfn=f\n7 10 4 2\n")
            .unwrap();
        let v = c.lines[&("a.f90".to_string(), 7)];
        assert_eq!((v.dr, v.d1mr, v.dlmr, v.dw), (4, 2, 0, 0));
        assert_eq!(c.total.d1(), 2);
    }

    #[test]
    fn perf_output_not_supported_and_counted() {
        let ks = "<not supported>,,L1-dcache-load-misses,0,100.00,,\n<not supported>,,LLC-load-misses,0,100.00,,\n";
        let c = parse_perf(ks);
        assert!(c.l1_load_misses.is_none() && c.llc_load_misses.is_none());
        let ok = "program output\n123456,,L1-dcache-load-misses:u,1000,100.00,,\n789,,LLC-load-misses,1000,100.00,,\n";
        let c = parse_perf(ok);
        assert_eq!(c.l1_load_misses, Some(123_456));
        assert_eq!(c.llc_load_misses, Some(789));
    }

    #[test]
    fn geometries_cachegrind_cannot_simulate_are_refused() {
        let ok = Cache {
            size_bytes: 32 << 10,
            ways: 8,
            line_bytes: 64,
        };
        assert!(ok.check("L1d").is_ok());
        let odd = Cache {
            size_bytes: 48 << 10,
            ways: 12,
            line_bytes: 64,
        };
        assert!(odd.check("L1d").is_ok());
        let bad = Cache {
            size_bytes: 3 << 20,
            ways: 16,
            line_bytes: 64,
        };
        assert!(bad.check("LL").is_err());
        // A last level of a power-of-two number of sets is taken below it.
        let taken = bad.power_of_two_sets().expect("3 MiB, 16 ways: 3,072 sets");
        assert_eq!(taken.size_bytes, 2 << 20);
        assert!(taken.check("LL").is_ok());
        assert_eq!(ok.power_of_two_sets(), None);
    }

    #[test]
    fn summary_counts_factors() {
        let s = summarize(&[(1e5, 1e5), (2e5, 1e5), (1e5, 3e5), (10.0, 0.0)]);
        assert_eq!(s.compared, 3);
        assert!((s.within_1_5 - 1.0 / 3.0).abs() < 1e-9);
        assert!((s.within_2 - 2.0 / 3.0).abs() < 1e-9);
        assert!((s.median_factor - 2.0).abs() < 1e-9);
    }
}
