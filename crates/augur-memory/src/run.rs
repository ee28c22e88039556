//! The plan of points, the build and the runs of the experiment program, and the
//! parsing of its output into curves.

use crate::gen;
use augur_machine_profile::memory::{ChaseCurve, SlotCurve, StreamPoint, SweepCurve, TlbCurve};
use augur_toolchain::experiment::{self, output_lines, ExperimentBuild};
use augur_toolchain::interrupt::check_cancel;
use augur_toolchain::os::OsInfo;
use augur_toolchain::Toolchain;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// How long to observe.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Target duration of one observation, ns.
    pub window_ns: u64,
    /// Observations per point (the fastest undisturbed one is kept, see [`ns_per`]).
    pub reps: u32,
    /// Fewer points: powers of two only, no in-between sizes, a shorter TLB and stride
    /// range.
    pub quick: bool,
    /// Passes over the points of the latency curves (chases, TLB, slots), each with a
    /// share of the observations.
    pub passes: u32,
    /// Largest array of the sweep and the chases, bytes (0: four times the last level,
    /// rounded up to a power of two).
    pub max_bytes: u64,
    /// Largest stride of the sweep, bytes (0: 16 KiB or twice the page, and half the
    /// array up to four times the L1).
    pub max_stride: u64,
}

impl Settings {
    /// The default: 3 ms observations, 7 of them.
    pub const DEFAULT: Settings = Settings {
        window_ns: 3_000_000,
        reps: 7,
        passes: 4,
        quick: false,
        max_bytes: 0,
        max_stride: 0,
    };
    /// `--quick`: 3 ms observations, 4 of them in two passes, fewer points.
    pub const QUICK: Settings = Settings {
        window_ns: 3_000_000,
        reps: 4,
        passes: 2,
        quick: true,
        max_bytes: 0,
        max_stride: 0,
    };
}

/// The points to measure, per mode, as `(a, b)` pairs of the program's arguments.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    /// `(size, stride)`.
    pub sweep: Vec<(u64, u64)>,
    /// `(order, size)`: 0 random, 1 sequential.
    pub chase: Vec<(u64, u64)>,
    /// `(stride, count)`.
    pub tlb: Vec<(u64, u64)>,
    /// `(page, count)`: the TLB chase's elements at a stride of one page, gathered.
    pub tlb_gather: Vec<(u64, u64)>,
    /// Slot chases on huge pages (line sizes): `(count, slot)`.
    pub line: Vec<(u64, u64)>,
    /// Slot chases on base pages (page size): `(count, slot)`.
    pub page: Vec<(u64, u64)>,
    /// `(kernel 1-4, bytes per array)`.
    pub stream: Vec<(u64, u64)>,
    /// `(0, bytes)`: first touches of fresh arrays.
    pub fault: Vec<(u64, u64)>,
}

/// The TLB chase's element counts: 16 to 16384, powers of two and 1.5 times them
/// (`quick`: powers of two only).
pub fn tlb_counts(quick: bool) -> Vec<u64> {
    let mut v = Vec::new();
    let mut c = 16u64;
    while c <= 16384 {
        v.push(c);
        if !quick && c < 16384 {
            v.push(c * 3 / 2);
        }
        c *= 2;
    }
    v
}

/// The element counts of the line-size slot chases of a cache of `size` bytes: two
/// thirds of the size over candidate lines of 16 B to 256 B (see
/// [`crate::infer::slot_line`]: with slots of two and four candidate lines, the elements'
/// lines fill two thirds of the cache when the line is at most the candidate and four
/// thirds when it is larger).
pub fn line_counts(size: u64) -> [u64; 5] {
    LINE_CANDIDATES.map(|l| 2 * size / (3 * l))
}

/// The candidate line sizes of the capacity test, bytes.
pub const LINE_CANDIDATES: [u64; 5] = [16, 32, 64, 128, 256];

/// The slots of the line-size chases: 8 B to 1 KiB.
pub const LINE_SLOTS: [u64; 8] = [8, 16, 32, 64, 128, 256, 512, 1024];

/// The element counts of the page-size slot chases: more than a small first-level TLB
/// holds, far fewer than a second level does.
pub const PAGE_COUNTS: [u64; 3] = [128, 256, 512];

/// At strides other than the page, the TLB chase starts at this count (to find where
/// its last step lies, which moves with the stride below the page size).
pub const TLB_FROM: u64 = 256;

/// Builds the plan for this machine.
///
/// * Sizes: powers of two from 4 KiB to four times the last level (rounded up), plus 1.5
///   times each level's size (not `quick`).
/// * Strides: 8 B to 16 KiB (at least twice the page) by powers of two, up to half the
///   size; for sizes up to four times the L1, all the way to half the size (Saavedra's
///   associativity regime).
/// * Random chase at every size and at one line per TLB-chase element (so that the cache
///   part of the TLB chase can be subtracted); sequential chase and gather (independent
///   random reads) at every size.
/// * TLB chase: stride = page at [`tlb_counts`]; strides of a quarter, half and twice the
///   page at the counts from [`TLB_FROM`]. TLB gather: stride = page at [`tlb_counts`];
///   [`augur_machine_profile::memory::far_stride`] at the counts from [`TLB_FROM`], up to
///   twice the largest size.
/// * Streams: each STREAM kernel with arrays of a quarter of each level and of twice the
///   last; the single read stream with arrays of twice the last.
pub fn plan(os: &OsInfo, s: &Settings) -> Plan {
    let line = os.line();
    let page = os.page.max(line);
    let max = if s.max_bytes > 0 {
        s.max_bytes
    } else {
        (4 * os.llc()).next_power_of_two().min(MAX_SPAN_BYTES)
    };
    let l1 = os.caches.first().map(|c| c.size).unwrap_or(32 << 10);
    let mut sizes: Vec<u64> = Vec::new();
    let mut n = 4096u64;
    while n <= max {
        sizes.push(n);
        n *= 2;
    }
    if !s.quick {
        for c in &os.caches {
            let m = c.size * 3 / 2;
            if m < max && !sizes.contains(&m) {
                sizes.push(m);
            }
        }
    }
    sizes.sort_unstable();
    let smax = (2 * page).max(16384);
    let mut p = Plan::default();
    for &n in &sizes {
        let mut st = 8u64;
        let top = if s.max_stride > 0 {
            s.max_stride.min(n / 2)
        } else if n <= 4 * l1 {
            n / 2
        } else {
            smax.min(n / 2)
        };
        while st <= top {
            p.sweep.push((n, st));
            st *= 2;
        }
    }
    let counts = tlb_counts(s.quick);
    let mut chase: Vec<u64> = sizes.clone();
    for &c in &counts {
        let b = c * line;
        if !chase.contains(&b) {
            chase.push(b);
        }
    }
    // The capacity fit reads the shape of each transition: quarter octaves from half to
    // four times every level but the last (not `quick`).
    if !s.quick {
        for c in os.caches.iter().rev().skip(1) {
            for k in -4i32..=8 {
                let b = (c.size as f64 * 2f64.powf(k as f64 / 4.0)) as u64 / page * page;
                if b > 0 && b <= max && !chase.contains(&b) {
                    chase.push(b);
                }
            }
        }
    }
    chase.sort_unstable();
    p.chase = chase.iter().map(|&b| (0, b)).collect();
    p.chase.extend(sizes.iter().map(|&b| (1, b)));
    p.chase.extend(sizes.iter().map(|&b| (2, b)));
    for st in [page / 4, page / 2, page, 2 * page] {
        for &c in &counts {
            if (st == page || c >= TLB_FROM) && c * st <= max && st >= line {
                p.tlb.push((st, c));
                if st == page {
                    p.tlb_gather.push((st, c));
                }
            }
        }
    }
    let far = augur_machine_profile::memory::far_stride(page, line);
    for &c in counts
        .iter()
        .filter(|&&c| c >= TLB_FROM && c * far <= 2 * max)
    {
        p.tlb_gather.push((far, c));
    }
    // Line sizes: every cache whose largest count still reaches slots of 256 B, the
    // last of several excepted ([`line_size_levels`]).
    for size in line_size_levels(os) {
        for (n, l) in line_counts(size).into_iter().zip(LINE_CANDIDATES) {
            if n < 16 || n * 256 > max {
                continue;
            }
            // The capacity test reads slots of 4 and 8 candidate lines; 8 B shows the
            // elements packed.
            for slot in LINE_SLOTS
                .into_iter()
                .filter(|&v| n * v <= max && (v == 8 || (v >= 4 * l && v <= 8 * l)))
            {
                p.line.push((n, slot));
            }
        }
    }
    for n in PAGE_COUNTS {
        let mut slot = (page / 16).max(8);
        while slot <= 16 * page && n * slot <= max {
            p.page.push((n, slot));
            slot *= 2;
        }
    }
    let mut arrays: Vec<u64> = (0..os.caches.len())
        .map(|k| level_stream_bytes(os, k))
        .collect();
    if arrays.is_empty() {
        arrays.push(8192);
    }
    let memory = memory_stream_bytes(os, max);
    arrays.push(memory);
    for &a in arrays.iter().filter(|&&a| a <= max) {
        for k in 1..READ_KERNEL {
            p.stream.push((k, a));
        }
    }
    if memory <= max {
        p.stream.push((READ_KERNEL, memory));
    }
    p.fault = vec![(0, FAULT_BYTES), (0, 2 * FAULT_BYTES)];
    p
}

/// The largest buffer of the memory experiments, bytes: the plan goes to four times the
/// last level the OS reports, at most this ([`augur_toolchain::os::PAST_CACHES_MAX_BYTES`]).
/// On the Xeon guest that reports a 480 MiB last level, the plan to 2 GiB took 122 s, to
/// 512 MiB 38 s (2026-12-04); 512 MiB is past the largest region a program of the
/// development set reads at random (134 MB). A reference over a wider region is priced
/// at the 512 MiB point (on that Xeon the random chase read 236 ns there, 266 at 1 GiB and
/// 327 at 2 GiB: its page walks missing the caches).
pub const MAX_SPAN_BYTES: u64 = augur_toolchain::os::PAST_CACHES_MAX_BYTES;

/// The arrays (bytes each) of the streams that measure main memory: twice the last
/// level, at most half the plan's largest buffer `max` (three arrays then span 1.5 times
/// it).
pub fn memory_stream_bytes(os: &OsInfo, max: u64) -> u64 {
    (2 * os.llc()).min(max / 2)
}

/// The cache sizes whose line size the slot chases read: every level the OS reports but
/// the last of several (or a 32 KiB and a 1 MiB level when it reports none). The last
/// level's chases run from main memory, whose latency hides the slots' difference: they
/// bracketed no line on any host so far (Zen 3, 4 and 5, two Xeons: "no line-size reading",
/// the line taken from the OS), and over a last level of 480 MiB they took 11 of a
/// characterization's 299 s (a Xeon guest, 2026-12-04).
fn line_size_levels(os: &OsInfo) -> Vec<u64> {
    match os.caches.len() {
        0 => vec![32 << 10, 1 << 20],
        1 => vec![os.caches[0].size],
        n => os.caches[..n - 1].iter().map(|c| c.size).collect(),
    }
}

/// The arrays (bytes each) of the streams that measure cache level `k` (0 = L1) of `os`:
/// a quarter of its size, so that the triad's three arrays fill three quarters of it,
/// and beyond the second level at most [`STREAM_OUTER_LEVELS`] times the level below:
/// a guest given a share of a socket's last-level cache sees the whole socket's size
/// (480 MiB on a 2-vCPU Xeon guest, whose triad of 120 MiB arrays ran at main memory's
/// 15 GB/s where arrays of 2 to 8 MiB run at 27 GB/s).
pub fn level_stream_bytes(os: &OsInfo, k: usize) -> u64 {
    let Some(c) = os.caches.get(k) else {
        return 8192;
    };
    let quarter = (c.size / 4).max(1024);
    match k.checked_sub(1).and_then(|b| os.caches.get(b)) {
        Some(below) if k >= 2 => quarter.min(STREAM_OUTER_LEVELS * below.size),
        _ => quarter,
    }
}

/// How many times the level below's size a stream array of an outer cache level takes
/// at most ([`level_stream_bytes`]): three such arrays leave the level below holding a
/// twelfth of them; a level smaller than sixteen times the one below keeps its quarter.
pub const STREAM_OUTER_LEVELS: u64 = 4;

/// Array size of the first-touch measurement: above glibc's largest dynamic mmap
/// threshold (32 MiB), so that each ALLOCATE maps fresh pages.
pub const FAULT_BYTES: u64 = 64 << 20;

/// The STREAM kernels' names and bytes moved per element.
pub const KERNELS: [(&str, u64); 5] = [
    ("copy", 16),
    ("scale", 16),
    ("add", 24),
    ("triad", 24),
    ("read", 8),
];

/// The kernel number of the single read stream (`read`), measured with arrays of twice
/// the last level only: the rate one sequential stream gets from main memory, which its
/// prefetcher's reach ahead limits (a 2-vCPU Emerald Rapids Xeon guest: 6.7 ns a line,
/// where the triad's streams together move one every 3.9 ns).
pub const READ_KERNEL: u64 = 5;

/// The curves one measurement gives.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Curves {
    /// Saavedra's sweep, by size.
    pub sweep: Vec<SweepCurve>,
    /// Random and sequential chases.
    pub chase: Vec<ChaseCurve>,
    /// TLB chase, by stride.
    pub tlb: Vec<TlbCurve>,
    /// TLB gather (stride = page).
    pub tlb_gather: Vec<TlbCurve>,
    /// Slot chases, by kind of pages and count.
    pub slot: Vec<SlotCurve>,
    /// Streams.
    pub streams: Vec<StreamPoint>,
    /// Cost of a first touch, ns per page (the fastest of the fault points).
    pub fault_ns: Option<f64>,
    /// The flags the hardware's rates were measured with where they are not the
    /// toolchain's ([`hardware_toolchain`]).
    pub hardware_fflags: Option<String>,
}

/// The flags the hardware's rates are measured with when the toolchain's do not optimize.
pub const HARDWARE_OPTIMIZATION: &str = "-O2";

/// The modes that measure the hardware's rates: what the caches take to deliver a line
/// at each stride (Saavedra's sweep) and what a page walk adds to independent reads (the
/// TLB gathers), both of which the memory term adds beside a loop's own instructions.
pub const HARDWARE_MODES: [&str; 2] = ["sweep", "tlb_gather"];

/// The toolchain the hardware's rates ([`HARDWARE_MODES`]) are measured with: the
/// machine's, or where its flags do not optimize, the same compiler and flags with `-O2`
/// in place of their `-O` options. An unoptimized loop spends longer on its own
/// instructions than the caches take within them (a Xeon of family 6 model 167 at `-O0`:
/// 1.8 ns an access at every stride from 4 KiB to 1 MiB, where the optimized loop takes
/// 0.33 ns in the first level and 0.9 at a stride of 512 bytes in the second), so its
/// points say nothing of the transfers but the loop, and the term charged that loop a
/// second time beside the program's (`syrk` at -O0, two strided reads an iteration from
/// the second level: +64% with the unoptimized sweep, -10% with the optimized one); and
/// it hides part of each page walk inside its own time (a 2600 x 2300 transpose from
/// memory takes 0.41 s at -O0 as at -O2, its 6e7 walks priced 1.1 ns each by the -O0
/// gathers, 3.9 by the -O2 ones). Page walks are bound by the core's walkers, which an
/// unoptimized loop keeps as busy as an optimized one. Random reads (the gather chase),
/// chases and streams stay at the machine's flags: their misses in flight are bounded by
/// the loads the core's window holds, which the flags decide (at -O0 the window fills
/// with the loop's own instructions).
pub fn hardware_toolchain(tc: &Toolchain) -> Option<Toolchain> {
    if tc.optimizes() {
        return None;
    }
    let mut optimized = tc.clone();
    optimized.fflags.retain(|f| !f.starts_with("-O"));
    optimized.fflags.push(HARDWARE_OPTIMIZATION.to_string());
    Some(optimized)
}

/// One observation: the work done, the wall-clock counts it took and, when the program
/// printed it, the process CPU time of the same interval, ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Obs {
    /// Accesses, loads or kernel calls.
    pub work: u64,
    /// `system_clock` counts.
    pub counts: i64,
    /// CPU time, ns.
    pub cpu_ns: Option<i64>,
    /// The repetitions of the kernel (0 when not printed).
    pub reps: u64,
}

/// One point's observations: `(a, b)` and its observations.
type Points = Vec<((u64, u64), Vec<Obs>)>;

/// Parses `AUGRATE` and the `AUGM` lines, grouped by point in order of appearance.
pub fn parse(text: &str) -> Result<(u64, Points), String> {
    let mut rate = 0u64;
    let mut pts: Points = Vec::new();
    for line in output_lines(text) {
        let w = &line.words;
        match line.keyword() {
            Some("AUGRATE") => rate = line.field(1)?,
            Some("AUGM") => {
                if !(5..=7).contains(&w.len()) {
                    return Err(line.malformed());
                }
                let num = |i: usize| line.field::<i64>(i);
                let key = (num(1)?.max(0) as u64, num(2)?.max(0) as u64);
                let obs = Obs {
                    work: num(3)?.max(1) as u64,
                    counts: num(4)?,
                    cpu_ns: if w.len() >= 6 { Some(num(5)?) } else { None },
                    reps: if w.len() == 7 {
                        num(6)?.max(0) as u64
                    } else {
                        0
                    },
                };
                match pts.last_mut() {
                    Some((k, v)) if *k == key => v.push(obs),
                    _ => pts.push((key, vec![obs])),
                }
            }
            _ => {}
        }
    }
    if rate == 0 {
        return Err("the program did not print its clock rate".into());
    }
    Ok((rate, pts))
}

/// An observation is undisturbed when the process ran for at least this share of its
/// wall-clock time (otherwise the scheduler gave the CPU to someone else meanwhile, and
/// the caches come back cold).
pub const CLEAN: f64 = 0.97;

/// The median of `xs` (0 for none).
pub fn median(xs: &[f64]) -> f64 {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// The time per unit of work of one point, ns: the fastest undisturbed observation (see
/// [`CLEAN`]), or the fastest of all when every one was disturbed. Disturbances (other
/// processes, interrupts, a busy sibling) only ever add time, so the minimum is the
/// estimate least affected by them.
pub fn ns_per(rate: u64, obs: &[Obs]) -> f64 {
    let wall = |o: &Obs| o.counts as f64 * 1e9 / rate.max(1) as f64;
    let clean: Vec<f64> = obs
        .iter()
        .filter(|o| o.cpu_ns.map_or(true, |c| c as f64 >= CLEAN * wall(o)))
        .map(|o| wall(o) / o.work.max(1) as f64)
        .collect();
    let all: Vec<f64> = obs.iter().map(|o| wall(o) / o.work.max(1) as f64).collect();
    let pick = if clean.is_empty() { all } else { clean };
    round4(
        pick.into_iter()
            .filter(|v| v.is_finite() && *v > 0.0)
            .fold(f64::NAN, f64::min),
    )
}

/// Rounds to 4 significant digits.
pub fn round4(v: f64) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let mag = 10f64.powi(3 - v.abs().log10().floor() as i32);
    (v * mag).round() / mag
}

/// Builds the program in `dir` and runs every mode of the plan; `note` gets a line per
/// mode.
pub fn measure(
    tc: &Toolchain,
    os: &OsInfo,
    plan: &Plan,
    s: &Settings,
    dir: &Path,
    note: &mut dyn FnMut(&str),
) -> Result<Curves, String> {
    let build = ExperimentBuild::new(tc, dir, "augmem");
    let files = [
        ("augmemsup.f90", gen::SUPPORT.to_string()),
        ("augmem.f90", gen::PROGRAM.to_string()),
    ];
    let exe = build.write_and_build(&files).map_err(|e| e.to_string())?;
    let optimized = hardware_toolchain(tc);
    let hardware_dir = dir.join("hardware");
    let hardware_exe = match &optimized {
        Some(opt) => {
            std::fs::create_dir_all(&hardware_dir)
                .map_err(|e| format!("cannot create {}: {e}", hardware_dir.display()))?;
            ExperimentBuild::new(opt, &hardware_dir, "augmem")
                .write_and_build(&files)
                .map_err(|e| {
                    format!(
                        "the stride sweep and TLB gathers built with {HARDWARE_OPTIMIZATION}: {e}"
                    )
                })?
        }
        None => exe.clone(),
    };
    let line = os.line();
    let page = os.page.max(line);
    let mut out = Curves::default();
    let run = |mode: &Mode| -> Result<(u64, Points), String> {
        check_cancel()?;
        ModeRun {
            exe: if HARDWARE_MODES.contains(&mode.name) {
                &hardware_exe
            } else {
                &exe
            },
            dir,
            mode,
            window_ns: s.window_ns,
            line,
            page,
            max: mode.extent(page),
        }
        .observe(s)
    };
    // The bandwidths first as well as last: a neighbour's burst of memory traffic (a
    // guest shares the host's memory) that spoils one stretch of the phase spoils one
    // half of their observations, and the fastest is kept ([`ns_per`]).
    let early = modes(plan)
        .into_iter()
        .find(|m| m.name == "stream" && !m.points.is_empty())
        .map(|m| run(&m))
        .transpose()?;
    for mode in modes(plan) {
        if mode.points.is_empty() {
            continue;
        }
        note(&format!("{}: {} points", mode.name, mode.points.len()));
        let (rate, mut pts) = run(&mode)?;
        if let (Some((_, first)), "stream") = (&early, mode.name) {
            pool(&mut pts, first);
        }
        store_curves(&mut out, mode.name, rate, &pts);
    }
    out.hardware_fflags = optimized.map(|t| t.fflags.join(" "));
    Ok(out)
}

/// Adds the observations of `earlier` to the same points of `pts`.
fn pool(pts: &mut Points, earlier: &Points) {
    for (k, obs) in earlier {
        if let Some(p) = pts.iter_mut().find(|p| p.0 == *k) {
            p.1.extend(obs.iter().cloned());
        }
    }
}

/// One mode of the program over its points.
struct Mode<'a> {
    /// Its name in the notes and curves.
    name: &'static str,
    /// The program's mode argument.
    program_mode: &'static str,
    /// Whether its buffer is on huge pages.
    huge: bool,
    /// The points, `(a, b)` pairs of the program's arguments.
    points: &'a [(u64, u64)],
}

/// The modes of the plan, in the order they are measured.
fn modes<'a>(plan: &'a Plan) -> [Mode<'a>; 8] {
    let mode = |name, program_mode, huge, points: &'a [(u64, u64)]| Mode {
        name,
        program_mode,
        huge,
        points,
    };
    [
        mode("sweep", "sweep", false, &plan.sweep),
        mode("chase", "chase", false, &plan.chase),
        mode("line", "slot", true, &plan.line),
        mode("tlb", "tlb", false, &plan.tlb),
        mode("tlb_gather", "tlbg", false, &plan.tlb_gather),
        mode("page", "slot", false, &plan.page),
        mode("stream", "stream", false, &plan.stream),
        mode("fault", "fault", false, &plan.fault),
    ]
}

impl Mode<'_> {
    /// The buffer the program allocates for the mode's points, bytes.
    fn extent(&self, page: u64) -> u64 {
        let points = self.points;
        match self.name {
            "sweep" => points.iter().map(|p| p.0).max().unwrap_or(0),
            "chase" => points.iter().map(|p| p.1).max().unwrap_or(0),
            "tlb" | "tlb_gather" => points.iter().map(|p| p.0 * p.1).max().unwrap_or(0) + page,
            "line" | "page" => points.iter().map(|p| (p.0 + 1) * p.1).max().unwrap_or(0),
            // No buffer: each timing allocates its own arrays.
            "fault" => page,
            _ => points.iter().map(|p| p.1).max().unwrap_or(0),
        }
    }
}

/// The runs of the program for one mode.
struct ModeRun<'a> {
    exe: &'a Path,
    dir: &'a Path,
    mode: &'a Mode<'a>,
    window_ns: u64,
    line: u64,
    page: u64,
    /// The buffer, bytes ([`Mode::extent`]).
    max: u64,
}

impl ModeRun<'_> {
    /// One run of the program over `pts` (with the repetitions of a calibrated run, 0 to
    /// calibrate), `reps` observations each.
    fn run(&self, pts: &[((u64, u64), u64)], reps: u32) -> Result<(u64, Points), String> {
        let mut args = vec![
            self.mode.program_mode.to_string(),
            self.window_ns.to_string(),
            reps.to_string(),
            self.line.to_string(),
            self.page.to_string(),
            self.max.to_string(),
            u8::from(self.mode.huge).to_string(),
        ];
        args.extend(pts.iter().map(|((a, b), w)| {
            if *w > 0 {
                format!("{a}:{b}:{w}")
            } else {
                format!("{a}:{b}")
            }
        }));
        let r = experiment::run(self.exe, self.dir, args, Duration::from_secs(900))
            .map_err(|e| e.to_string())?;
        if !r.success() {
            return Err(format!(
                "the memory experiments ({}) {}: {}",
                self.mode.name,
                r.describe(),
                String::from_utf8_lossy(&r.stderr).trim()
            ));
        }
        parse(&String::from_utf8_lossy(&r.stdout))
    }

    /// Every point's observations. The latency curves are measured in passes spread over
    /// the whole mode, so that a disturbed stretch of time (a busy sibling core, another
    /// process's cache footprint) spoils one pass of a point rather than all its
    /// observations; later passes reuse the first pass's calibrated repetitions, in
    /// alternating order.
    fn observe(&self, s: &Settings) -> Result<(u64, Points), String> {
        let first: Vec<((u64, u64), u64)> = self.mode.points.iter().map(|&p| (p, 0)).collect();
        let passes = if matches!(self.mode.name, "sweep" | "stream" | "fault") {
            1
        } else {
            s.passes.max(1)
        };
        let per_pass = s.reps.div_ceil(passes).max(1);
        let (rate, mut pts) = self.run(&first, if passes == 1 { s.reps } else { per_pass })?;
        for pass in 1..passes {
            let mut again: Vec<((u64, u64), u64)> = pts
                .iter()
                .map(|(k, obs)| (*k, obs.last().map_or(0, |o| o.reps)))
                .collect();
            if pass % 2 == 1 {
                again.reverse();
            }
            let (_, more) = self.run(&again, per_pass)?;
            for (k, obs) in more {
                if let Some(p) = pts.iter_mut().find(|p| p.0 == k) {
                    p.1.extend(obs);
                }
            }
        }
        Ok((rate, pts))
    }
}

/// Turns one mode's points into its curves in `out`.
fn store_curves(out: &mut Curves, mode: &str, rate: u64, pts: &Points) {
    match mode {
        "sweep" => {
            out.sweep = grouped(rate, pts, |n| SweepCurve {
                size_bytes: n,
                ..Default::default()
            });
        }
        "chase" => {
            for (order, name) in [(0, "random"), (1, "sequential"), (2, "gather")] {
                let mut c = ChaseCurve {
                    order: name.to_string(),
                    ..Default::default()
                };
                for ((o, n), obs) in pts {
                    if *o == order {
                        c.size_bytes.push(*n);
                        c.ns.push(ns_per(rate, obs));
                    }
                }
                if !c.size_bytes.is_empty() {
                    out.chase.push(c);
                }
            }
        }
        "tlb" | "tlb_gather" => {
            let curves = grouped(rate, pts, |st| TlbCurve {
                stride_bytes: st,
                ..Default::default()
            });
            if mode == "tlb" {
                out.tlb = curves;
            } else {
                out.tlb_gather = curves;
            }
        }
        "line" | "page" => {
            let pages = if mode == "line" { "huge" } else { "base" };
            out.slot.extend(grouped(rate, pts, |n| SlotCurve {
                pages: pages.to_string(),
                count: n,
                ..Default::default()
            }));
        }
        "fault" => {
            out.fault_ns = pts
                .iter()
                .map(|(_, obs)| ns_per(rate, obs))
                .filter(|ns| ns.is_finite() && *ns > 0.0)
                .min_by(f64::total_cmp)
                .map(round4);
        }
        _ => {
            for ((k, bytes), obs) in pts {
                let Some(&(name, per)) = KERNELS.get((*k as usize).wrapping_sub(1)) else {
                    continue;
                };
                // Bytes per ns of the fastest undisturbed call.
                let ns = ns_per(rate, obs);
                out.streams.push(StreamPoint {
                    kernel: name.to_string(),
                    array_bytes: *bytes,
                    gbs: round4(per as f64 / ns.max(1e-9)),
                });
            }
        }
    }
}

/// A curve of points `(a, b)` with one `a`: the `b`s and their times.
trait Curve {
    /// Appends the point at `b` taking `ns`.
    fn push(&mut self, b: u64, ns: f64);
}

impl Curve for SweepCurve {
    fn push(&mut self, stride: u64, ns: f64) {
        self.stride_bytes.push(stride);
        self.ns.push(ns);
    }
}

impl Curve for TlbCurve {
    fn push(&mut self, count: u64, ns: f64) {
        self.count.push(count);
        self.ns.push(ns);
    }
}

impl Curve for SlotCurve {
    fn push(&mut self, slot: u64, ns: f64) {
        self.slot_bytes.push(slot);
        self.ns.push(ns);
    }
}

/// The points grouped by their first coordinate `a` into the curves `new(a)`, in
/// increasing `a`; each curve gets its points' second coordinates and times ([`ns_per`])
/// in the order measured.
fn grouped<C: Curve>(rate: u64, pts: &Points, new: impl Fn(u64) -> C) -> Vec<C> {
    let mut by: BTreeMap<u64, C> = BTreeMap::new();
    for ((a, b), obs) in pts {
        by.entry(*a)
            .or_insert_with(|| new(*a))
            .push(*b, ns_per(rate, obs));
    }
    by.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use augur_toolchain::os::OsCache;

    fn toolchain(flags: &[&str]) -> Toolchain {
        Toolchain {
            fc: "gfortran".into(),
            fflags: flags.iter().map(|f| f.to_string()).collect(),
            cc: "gcc".into(),
            version: String::new(),
        }
    }

    #[test]
    fn an_unoptimized_profiles_hardware_rates_are_built_with_optimization_and_its_other_flags() {
        let o0 = hardware_toolchain(&toolchain(&["-O0", "-march=native", "-fno-inline"]));
        assert_eq!(
            o0.map(|t| t.fflags),
            Some(vec![
                "-march=native".to_string(),
                "-fno-inline".to_string(),
                "-O2".to_string()
            ])
        );
        // No -O at all is no optimization; the last -O decides.
        assert!(hardware_toolchain(&toolchain(&[])).is_some());
        assert!(hardware_toolchain(&toolchain(&["-O3", "-O0"])).is_some());
        assert_eq!(hardware_toolchain(&toolchain(&["-O2"])), None);
        assert_eq!(hardware_toolchain(&toolchain(&["-O0", "-Ofast"])), None);
    }

    fn os() -> OsInfo {
        OsInfo {
            caches: vec![
                OsCache {
                    level: 1,
                    name: "L1d".into(),
                    size: 32 << 10,
                    line: 64,
                    ways: Some(8),
                    shared_cpus: Some(1),
                },
                OsCache {
                    level: 2,
                    name: "L2".into(),
                    size: 1 << 20,
                    line: 64,
                    ways: Some(8),
                    shared_cpus: None,
                },
            ],
            page: 4096,
            tlb_entries: None,
        }
    }

    /// `o` with the 480 MiB L3 a Xeon guest's `/sys` reports (the socket's).
    fn with_xeon_l3(mut o: OsInfo) -> OsInfo {
        o.caches.push(OsCache {
            level: 3,
            name: "L3".into(),
            size: 480 << 20,
            line: 64,
            ways: Some(16),
            shared_cpus: None,
        });
        o
    }

    #[test]
    fn the_plan_covers_the_ranges() {
        let p = plan(&os(), &Settings::DEFAULT);
        let sizes: Vec<u64> = p.sweep.iter().map(|x| x.0).collect();
        assert_eq!(*sizes.first().unwrap(), 4096);
        assert_eq!(*sizes.last().unwrap(), 4 << 20);
        assert!(sizes.contains(&(48 << 10)) && sizes.contains(&(3 << 19)));
        // Associativity regime at 2 x L1: strides to half the size.
        assert!(p.sweep.contains(&(64 << 10, 32 << 10)));
        assert!(!p.sweep.contains(&(4 << 20, 32 << 10)));
        assert!(p.sweep.contains(&(4 << 20, 16 << 10)));
        assert!(p.tlb.contains(&(4096, 16)) && p.tlb.contains(&(1024, TLB_FROM)));
        assert!(!p.tlb.contains(&(1024, 16)));
        // The gather reads the page-stride chase's elements, then the same counts seven
        // pages and a line apart from TLB_FROM on, within twice the largest size.
        let page_chase: Vec<_> = p.tlb.iter().filter(|t| t.0 == 4096).copied().collect();
        let far = augur_machine_profile::memory::far_stride(4096, 64);
        assert_eq!(far, 28736);
        let near: Vec<(u64, u64)> = p
            .tlb_gather
            .iter()
            .filter(|t| t.0 == 4096)
            .copied()
            .collect();
        let far_points: Vec<(u64, u64)> = p
            .tlb_gather
            .iter()
            .filter(|t| t.0 != 4096)
            .copied()
            .collect();
        assert_eq!(near, page_chase);
        assert!(far_points.iter().all(|t| t.0 == far && t.1 >= TLB_FROM));
        assert!(far_points.contains(&(far, 256)) && !far_points.contains(&(far, 16384)));
        // Four STREAM kernels at three array sizes, the single read stream at the largest.
        assert_eq!(p.stream.len(), 13);
        assert_eq!(p.stream.last(), Some(&(READ_KERNEL, 2 * os().llc())));
        // A guest shown a socket's last level goes no further than MAX_SPAN_BYTES.
        let b = plan(&with_xeon_l3(os()), &Settings::DEFAULT);
        let largest = b.chase.iter().map(|c| c.1).max();
        assert_eq!(largest, Some(MAX_SPAN_BYTES));
        assert!(b.sweep.iter().all(|s| s.0 <= MAX_SPAN_BYTES));
        assert_eq!(b.stream.last(), Some(&(READ_KERNEL, MAX_SPAN_BYTES / 2)));
        let q = plan(&os(), &Settings::QUICK);
        assert!(q.sweep.len() < p.sweep.len());
    }

    #[test]
    fn an_outer_levels_streams_stay_within_a_few_times_the_level_below() {
        let mut xeon = with_xeon_l3(os());
        xeon.caches[0].size = 48 << 10;
        xeon.caches[1].size = 2 << 20;
        let bytes: Vec<u64> = (0..3).map(|k| level_stream_bytes(&xeon, k)).collect();
        // A guest's /sys gives the socket's 480 MiB: 8 MiB arrays, not 120 MiB.
        assert_eq!(bytes, vec![12 << 10, 512 << 10, 8 << 20]);
        // A Zen 4's 32 MiB L3 behind 1 MiB of L2: 4 MiB arrays, 12 MiB in all.
        let mut zen4 = xeon.clone();
        zen4.caches[1].size = 1 << 20;
        zen4.caches[2].size = 32 << 20;
        assert_eq!(level_stream_bytes(&zen4, 2), 4 << 20);
        // The first two levels keep a quarter of their own size.
        assert_eq!(level_stream_bytes(&os(), 1), 256 << 10);
        assert_eq!(level_stream_bytes(&os(), 5), 8192);
    }

    #[test]
    fn the_line_size_chases_leave_the_last_level_out() {
        let xeon = with_xeon_l3(os());
        let counts = |o: &OsInfo| -> Vec<u64> {
            let mut c: Vec<u64> = plan(o, &Settings::DEFAULT)
                .line
                .iter()
                .map(|p| p.0)
                .collect();
            c.dedup();
            c
        };
        // The L1's and L2's candidate counts, none of the 480 MiB L3's (20 million
        // elements at 16 B, each a miss to memory).
        let both: Vec<u64> = line_counts(32 << 10)
            .into_iter()
            .chain(line_counts(1 << 20))
            .filter(|&n| n >= 16)
            .collect();
        assert_eq!(counts(&xeon), both);
        // Two levels: the first one's only; a single level keeps its own.
        assert!(counts(&os()).iter().all(|&n| n <= line_counts(32 << 10)[0]));
        let mut one = os();
        one.caches.truncate(1);
        let own = line_counts(32 << 10);
        assert!(!counts(&one).is_empty() && counts(&one).iter().all(|n| own.contains(n)));
    }

    #[test]
    fn parsing_groups_points() {
        let text = "AUGRATE 1000000000\nAUGM 4096 8 1000 500\nAUGM 4096 8 1000 700\nAUGM 4096 8 1000 600\nAUGM 8192 8 10 20\nAUGSINK 1 1\n";
        let (rate, pts) = parse(text).unwrap();
        assert_eq!(rate, 1_000_000_000);
        assert_eq!(pts.len(), 2);
        // No CPU times: the fastest.
        assert_eq!(ns_per(rate, &pts[0].1), 0.5);
        // The fastest observation the scheduler did not interrupt.
        let text = "AUGRATE 1000000000\nAUGM 1 2 1000 500 300\nAUGM 1 2 1000 700 700\nAUGM 1 2 1000 600 590\n";
        let (rate, pts) = parse(text).unwrap();
        assert_eq!(ns_per(rate, &pts[0].1), 0.6);
        assert!(parse("AUGRATE 1\nAUGM 1 2 3\n").is_err());
        assert!(parse("AUGM 1 2 3 4\n").is_err());
    }
}
