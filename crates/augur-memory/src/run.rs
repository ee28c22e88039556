//! The plan of points, the build and the runs of the experiment program, and the
//! parsing of its output into curves.

use crate::gen;
use crate::os::OsInfo;
use augur_machine::memory_profile::{ChaseCurve, StreamPoint, SweepCurve, TlbCurve};
use augur_program::toolchain::{self, BuildInput, RunSpec, Toolchain};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// How long to observe.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Target duration of one observation, ns.
    pub window_ns: u64,
    /// Observations per point (the median is kept).
    pub reps: u32,
    /// Fewer points: powers of two only, no in-between sizes, a shorter TLB and stride
    /// range.
    pub quick: bool,
    /// Largest array of the sweep and the chases, bytes (0: four times the last level,
    /// rounded up to a power of two).
    pub max_bytes: u64,
    /// Largest stride of the sweep, bytes (0: 16 KiB or twice the page, and half the
    /// array up to four times the L1).
    pub max_stride: u64,
}

impl Settings {
    /// The default: 5 ms observations, 5 of them.
    pub const DEFAULT: Settings = Settings {
        window_ns: 5_000_000,
        reps: 5,
        quick: false,
        max_bytes: 0,
        max_stride: 0,
    };
    /// `--quick`: 5 ms observations, 3 of them, fewer points.
    pub const QUICK: Settings = Settings {
        window_ns: 5_000_000,
        reps: 3,
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
    /// `(kernel 1-4, bytes per array)`.
    pub stream: Vec<(u64, u64)>,
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
///   part of the TLB chase can be subtracted); sequential chase at every size.
/// * TLB chase: stride = page at [`tlb_counts`]; strides of a quarter, half and twice the
///   page at the counts from [`TLB_FROM`].
/// * Streams: each kernel with arrays of a quarter of each level and of twice the last.
pub fn plan(os: &OsInfo, s: &Settings) -> Plan {
    let line = os.line();
    let page = os.page.max(line);
    let max = if s.max_bytes > 0 {
        s.max_bytes
    } else {
        (4 * os.llc()).next_power_of_two()
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
    chase.sort_unstable();
    p.chase = chase.iter().map(|&b| (0, b)).collect();
    p.chase.extend(sizes.iter().map(|&b| (1, b)));
    for st in [page / 4, page / 2, page, 2 * page] {
        for &c in &counts {
            if (st == page || c >= TLB_FROM) && c * st <= max && st >= line {
                p.tlb.push((st, c));
            }
        }
    }
    let mut arrays: Vec<u64> = os.caches.iter().map(|c| (c.size / 4).max(1024)).collect();
    if arrays.is_empty() {
        arrays.push(8192);
    }
    arrays.push(2 * os.llc());
    for &a in arrays.iter().filter(|&&a| a <= max) {
        for k in 1..=4 {
            p.stream.push((k, a));
        }
    }
    p
}

/// `Err(CANCELLED)` after Ctrl-C.
fn check_cancel() -> Result<(), String> {
    if augur_machine::cancelled() {
        Err(augur_machine::CANCELLED.to_string())
    } else {
        Ok(())
    }
}

/// The STREAM kernels' names and bytes moved per element.
pub const KERNELS: [(&str, u64); 4] = [("copy", 16), ("scale", 16), ("add", 24), ("triad", 24)];

/// The curves one measurement gives.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Curves {
    /// Saavedra's sweep, by size.
    pub sweep: Vec<SweepCurve>,
    /// Random and sequential chases.
    pub chase: Vec<ChaseCurve>,
    /// TLB chase, by stride.
    pub tlb: Vec<TlbCurve>,
    /// Streams.
    pub streams: Vec<StreamPoint>,
}

/// One point's observations: `(a, b)` and the (work, counts) of each.
type Points = Vec<((u64, u64), Vec<(u64, i64)>)>;

/// Parses `AUGRATE` and the `AUGM` lines, grouped by point in order of appearance.
pub fn parse(text: &str) -> Result<(u64, Points), String> {
    let mut rate = 0u64;
    let mut pts: Points = Vec::new();
    for (no, line) in text.lines().enumerate() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let bad = || format!("line {}: malformed `{}`", no + 1, line.trim());
        match w.first().copied() {
            Some("AUGRATE") => rate = w.get(1).and_then(|v| v.parse().ok()).ok_or_else(bad)?,
            Some("AUGM") => {
                if w.len() != 5 {
                    return Err(bad());
                }
                let num = |i: usize| w[i].parse::<i64>().map_err(|_| bad());
                let key = (num(1)? as u64, num(2)? as u64);
                let obs = (num(3)?.max(1) as u64, num(4)?);
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

/// Median ns per unit of work of one point.
fn ns_per(rate: u64, obs: &[(u64, i64)]) -> f64 {
    let per: Vec<f64> = obs
        .iter()
        .map(|&(w, c)| c as f64 * 1e9 / rate as f64 / w as f64)
        .collect();
    round4(median(&per))
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
    let prog = dir.join("augmem.f90");
    let sup = dir.join("augmemsup.f90");
    std::fs::write(&prog, gen::PROGRAM)
        .map_err(|e| format!("cannot write {}: {e}", prog.display()))?;
    std::fs::write(&sup, gen::SUPPORT)
        .map_err(|e| format!("cannot write {}: {e}", sup.display()))?;
    let input = BuildInput {
        fortran: vec![sup, prog],
        ..Default::default()
    };
    let exe = toolchain::build(tc, &input, dir, "augmem").map_err(|e| e.to_string())?;
    let line = os.line();
    let page = os.page.max(line);
    let mut out = Curves::default();
    let modes: [(&str, &[(u64, u64)]); 4] = [
        ("sweep", &plan.sweep),
        ("chase", &plan.chase),
        ("tlb", &plan.tlb),
        ("stream", &plan.stream),
    ];
    for (mode, points) in modes {
        if points.is_empty() {
            continue;
        }
        check_cancel()?;
        note(&format!("{mode}: {} points", points.len()));
        let max = match mode {
            "sweep" => points.iter().map(|p| p.0).max().unwrap_or(0),
            "chase" => points.iter().map(|p| p.1).max().unwrap_or(0),
            "tlb" => points.iter().map(|p| p.0 * p.1).max().unwrap_or(0) + page,
            _ => points.iter().map(|p| p.1).max().unwrap_or(0),
        };
        let mut spec = RunSpec::new(dir, Duration::from_secs(900));
        spec.args = vec![
            mode.to_string(),
            s.window_ns.to_string(),
            s.reps.to_string(),
            line.to_string(),
            page.to_string(),
            max.to_string(),
        ];
        spec.args
            .extend(points.iter().map(|(a, b)| format!("{a}:{b}")));
        let r = toolchain::run(&exe, &spec).map_err(|e| e.to_string())?;
        check_cancel()?;
        if !r.success() {
            return Err(format!(
                "the memory experiments ({mode}) {}: {}",
                r.describe(),
                String::from_utf8_lossy(&r.stderr).trim()
            ));
        }
        let (rate, pts) = parse(&String::from_utf8_lossy(&r.stdout))?;
        match mode {
            "sweep" => {
                let mut by: BTreeMap<u64, SweepCurve> = BTreeMap::new();
                for ((n, st), obs) in &pts {
                    let c = by.entry(*n).or_insert_with(|| SweepCurve {
                        size_bytes: *n,
                        ..Default::default()
                    });
                    c.stride_bytes.push(*st);
                    c.ns.push(ns_per(rate, obs));
                }
                out.sweep = by.into_values().collect();
            }
            "chase" => {
                for (order, name) in [(0, "random"), (1, "sequential")] {
                    let mut c = ChaseCurve {
                        order: name.to_string(),
                        ..Default::default()
                    };
                    for ((o, n), obs) in &pts {
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
            "tlb" => {
                let mut by: BTreeMap<u64, TlbCurve> = BTreeMap::new();
                for ((st, c), obs) in &pts {
                    let t = by.entry(*st).or_insert_with(|| TlbCurve {
                        stride_bytes: *st,
                        ..Default::default()
                    });
                    t.count.push(*c);
                    t.ns.push(ns_per(rate, obs));
                }
                out.tlb = by.into_values().collect();
            }
            _ => {
                for ((k, bytes), obs) in &pts {
                    let Some(&(name, per)) = KERNELS.get((*k as usize).wrapping_sub(1)) else {
                        continue;
                    };
                    let gbs: Vec<f64> = obs
                        .iter()
                        .map(|&(w, c)| {
                            per as f64 * w as f64 / (c.max(1) as f64 / rate as f64) / 1e9
                        })
                        .collect();
                    out.streams.push(StreamPoint {
                        kernel: name.to_string(),
                        array_bytes: *bytes,
                        gbs: round4(median(&gbs)),
                    });
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::OsCache;

    fn os() -> OsInfo {
        OsInfo {
            caches: vec![
                OsCache {
                    level: 1,
                    name: "L1d".into(),
                    size: 32 << 10,
                    line: 64,
                    ways: Some(8),
                },
                OsCache {
                    level: 2,
                    name: "L2".into(),
                    size: 1 << 20,
                    line: 64,
                    ways: Some(8),
                },
            ],
            page: 4096,
            tlb_entries: None,
        }
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
        assert_eq!(p.stream.len(), 12);
        let q = plan(&os(), &Settings::QUICK);
        assert!(q.sweep.len() < p.sweep.len());
    }

    #[test]
    fn parsing_groups_points() {
        let text = "AUGRATE 1000000000\nAUGM 4096 8 1000 500\nAUGM 4096 8 1000 700\nAUGM 4096 8 1000 600\nAUGM 8192 8 10 20\nAUGSINK 1 1\n";
        let (rate, pts) = parse(text).unwrap();
        assert_eq!(rate, 1_000_000_000);
        assert_eq!(pts.len(), 2);
        assert_eq!(ns_per(rate, &pts[0].1), 0.6);
        assert!(parse("AUGRATE 1\nAUGM 1 2 3\n").is_err());
        assert!(parse("AUGM 1 2 3 4\n").is_err());
    }
}
