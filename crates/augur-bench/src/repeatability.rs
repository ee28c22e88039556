//! `augur bench repeatability`: how far apart N characterizations of one machine come out,
//! entry by entry, in the structure they infer, and in the predictions they make.
//!
//! A user characterizes once and trusts the result; a second characterization of the same
//! host that finds another cache level, or costs several percent apart, moves every
//! prediction. This benchmark reads N machine profiles made one after the other on one
//! host (the binary makes them: `augur bench repeatability` runs `augur characterize` N
//! times) and the program profiles of a development set, and prints: per AbOp entry and
//! per in-core class its spread across the N profiles (half the range over the median);
//! per cache and TLB level whether its size, line and ways are the same in N of N and
//! equal to what the operating system says; per program the spread of its prediction;
//! and the entries that move predictions most (each entry's spread weighted by the share
//! of the predicted time it prices, summed over the programs).

use anyhow::{Context, Result};
use augur_machine_profile::MachineProfile;
use augur_model::{predict, PredictOptions, Prediction};
use augur_program_profile::ProgramProfile;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The target: every prediction within ±2% across the profiles.
pub const TARGET_HALF_RANGE: f64 = 0.02;

/// Half the range of `xs` over their median (0 for fewer than two, or a zero median).
pub fn half_range(xs: &[f64]) -> f64 {
    if xs.len() < 2 {
        return 0.0;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let median = if v.len() % 2 == 1 {
        v[v.len() / 2]
    } else {
        0.5 * (v[v.len() / 2 - 1] + v[v.len() / 2])
    };
    if median.abs() < f64::MIN_POSITIVE {
        return 0.0;
    }
    0.5 * (v[v.len() - 1] - v[0]) / median.abs()
}

/// The machine profiles (`*.toml`) of `dir`, by file name.
pub fn machine_profiles(dir: &Path) -> Result<Vec<(String, MachineProfile)>> {
    profiles_in(dir, "toml", |p| {
        MachineProfile::read(p).with_context(|| format!("{}", p.display()))
    })
}

/// The program profiles (`*.profile.json`, as `augur bench accuracy --save` keeps them) of
/// each of `dirs`, by name.
pub fn program_profiles(dirs: &[PathBuf]) -> Result<Vec<(String, ProgramProfile)>> {
    let mut all = vec![];
    for d in dirs {
        all.extend(profiles_in(d, "profile.json", |p| {
            ProgramProfile::read(p).map_err(anyhow::Error::from)
        })?);
    }
    Ok(all)
}

/// Every file of `dir` whose name ends in `.{ext}`, read by `read`, sorted by name (the
/// name without the extension).
fn profiles_in<T>(
    dir: &Path,
    ext: &str,
    read: impl Fn(&Path) -> Result<T>,
) -> Result<Vec<(String, T)>> {
    let suffix = format!(".{ext}");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read the directory {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(&suffix))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            Ok((name.trim_end_matches(&suffix).to_string(), read(p)?))
        })
        .collect()
}

/// One measured quantity across the profiles.
#[derive(Debug, Clone)]
pub struct Spread {
    /// What it is (`ARDL`, `incore fp_add latency`, `L2 bandwidth`).
    pub name: String,
    /// Its value in each profile (absent where a profile lacks it).
    pub values: Vec<f64>,
    /// [`half_range`] of the values.
    pub half_range: f64,
    /// Half the range itself, in the values' unit.
    pub half_width: f64,
}

impl Spread {
    fn new(name: String, values: Vec<f64>) -> Spread {
        let half_range = half_range(&values);
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Spread {
            name,
            values,
            half_range,
            half_width: 0.5 * (hi - lo),
        }
    }
}

/// Each AbOp entry's cost, each in-core class's latency and throughput, and each memory
/// level's latency and bandwidth across `machines` (quantities every profile has).
pub fn entry_spreads(machines: &[(String, MachineProfile)]) -> Vec<Spread> {
    let mut by_name: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (_, m) in machines {
        for (op, e) in &m.abop {
            if let Some(ns) = e.mean_ns {
                by_name.entry(format!("{op:?}")).or_default().push(ns);
            }
        }
        for (class, c) in m.incore.iter().flat_map(|i| &i.class) {
            by_name
                .entry(format!("incore {class} latency"))
                .or_default()
                .push(c.latency_ns);
            by_name
                .entry(format!("incore {class} throughput"))
                .or_default()
                .push(c.throughput_ns);
        }
        for l in m.memory.iter().flat_map(|mm| &mm.levels) {
            by_name
                .entry(format!("{} latency", l.name))
                .or_default()
                .push(l.latency_ns);
            if let Some(b) = l.bandwidth_gbs {
                by_name
                    .entry(format!("{} bandwidth", l.name))
                    .or_default()
                    .push(b);
            }
        }
        if let Some(mm) = &m.memory {
            by_name
                .entry("memory bandwidth".into())
                .or_default()
                .push(mm.memory.bandwidth_gbs);
        }
    }
    let mut out: Vec<Spread> = by_name
        .into_iter()
        .filter(|(_, v)| v.len() == machines.len())
        .map(|(n, v)| Spread::new(n, v))
        .collect();
    out.sort_by(|a, b| b.half_range.total_cmp(&a.half_range));
    out
}

/// One inferred structure across the profiles: a cache or TLB level.
#[derive(Debug, Clone)]
pub struct Structure {
    /// The level.
    pub name: String,
    /// What each profile found (`32 KiB, 64 B lines, 8 ways`; `absent`).
    pub found: Vec<String>,
    /// What the operating system says, where it does.
    pub os: Option<String>,
}

impl Structure {
    /// Whether every profile found the same.
    pub fn same(&self) -> bool {
        self.found.windows(2).all(|w| w[0] == w[1])
    }

    /// Whether every profile found what the operating system says (true where it says
    /// nothing).
    pub fn as_the_os_says(&self) -> bool {
        self.os
            .as_ref()
            .map_or(true, |os| self.found.iter().all(|f| f == os))
    }
}

/// The cache and TLB levels each profile inferred, by level.
pub fn structures(machines: &[(String, MachineProfile)]) -> Vec<Structure> {
    let cache = |size: u64, line: u64, ways: Option<u32>| {
        format!(
            "{} KiB, {line} B lines, {} ways",
            size / 1024,
            ways.map_or("?".into(), |w| w.to_string())
        )
    };
    let depth = machines
        .iter()
        .map(|(_, m)| m.memory.as_ref().map_or(0, |mm| mm.levels.len()))
        .max()
        .unwrap_or(0);
    let mut out = vec![];
    for k in 0..depth {
        fn level(
            m: &MachineProfile,
            k: usize,
        ) -> Option<&augur_machine_profile::memory::CacheLevel> {
            m.memory.as_ref().and_then(|mm| mm.levels.get(k))
        }
        let name = machines
            .iter()
            .find_map(|(_, m)| level(m, k).map(|l| l.name.clone()))
            .unwrap_or_else(|| format!("level {}", k + 1));
        let found = machines
            .iter()
            .map(|(_, m)| {
                level(m, k).map_or("absent".into(), |l| {
                    cache(l.size_bytes, l.line_bytes, l.ways)
                })
            })
            .collect();
        let os = machines.iter().find_map(|(_, m)| {
            let l = level(m, k)?;
            Some(cache(
                l.os_size_bytes?,
                l.os_line_bytes.unwrap_or(l.line_bytes),
                l.os_ways.or(l.ways),
            ))
        });
        out.push(Structure { name, found, os });
    }
    let tlbs = machines
        .iter()
        .map(|(_, m)| m.memory.as_ref().map_or(0, |mm| mm.tlb.len()))
        .max()
        .unwrap_or(0);
    let os_tlb = machines
        .iter()
        .find_map(|(_, m)| m.memory.as_ref()?.os_tlb_entries);
    let levels: Vec<usize> = machines
        .iter()
        .map(|(_, m)| m.memory.as_ref().map_or(0, |mm| mm.tlb.len()))
        .collect();
    out.push(Structure {
        name: "TLB levels".into(),
        found: levels.iter().map(|n| n.to_string()).collect(),
        os: None,
    });
    for k in 0..tlbs {
        let found = machines
            .iter()
            .map(|(_, m)| {
                m.memory
                    .as_ref()
                    .and_then(|mm| mm.tlb.get(k))
                    .map_or("absent".into(), |t| {
                        format!("{} entries of {} KiB", t.entries, t.page_bytes / 1024)
                    })
            })
            .collect();
        // The OS names the entries of the last level (`TLB size`, 4 KiB pages).
        let os = os_tlb
            .filter(|_| k + 1 == tlbs)
            .map(|e| format!("{e} entries of 4 KiB"));
        out.push(Structure {
            name: format!("TLB level {}", k + 1),
            found,
            os,
        });
    }
    out
}

/// One program's predictions across the profiles.
#[derive(Debug, Clone)]
pub struct ProgramSpread {
    /// The program.
    pub name: String,
    /// Its predicted time on each profile, seconds.
    pub seconds: Vec<f64>,
    /// [`half_range`] of them.
    pub half_range: f64,
}

/// Each program predicted on each profile, and the entries that move the predictions
/// most: per AbOp entry, Σ over the programs of its executions × half its range (ns)
/// over the program's predicted time (what its spread alone moves the prediction by);
/// the memory levels' together, the memory term's share × the widest bandwidth spread.
/// Largest first.
pub fn prediction_spreads(
    machines: &[(String, MachineProfile)],
    programs: &[(String, ProgramProfile)],
    entries: &[Spread],
) -> (Vec<ProgramSpread>, Vec<(String, f64)>) {
    let width_of: BTreeMap<&str, f64> = entries
        .iter()
        .map(|s| (s.name.as_str(), s.half_width))
        .collect();
    let mut weight: BTreeMap<String, f64> = BTreeMap::new();
    let mut out = vec![];
    for (name, p) in programs {
        let preds: Vec<Prediction> = machines
            .iter()
            .map(|(_, m)| predict(p, m, PredictOptions::default()))
            .collect();
        let seconds: Vec<f64> = preds.iter().map(|x| x.total.seconds).collect();
        if let Some(first) = preds.first() {
            let total = first.total.seconds.max(f64::MIN_POSITIVE);
            for row in &first.abops {
                let key = format!("{:?}", row.abop);
                if let Some(w) = width_of.get(key.as_str()) {
                    *weight.entry(key).or_default() += row.executions * w * 1e-9 / total;
                }
            }
            let memory_share = first.memory_seconds / total;
            let bandwidths = entries
                .iter()
                .filter(|s| s.name.ends_with("bandwidth"))
                .map(|s| s.half_range)
                .fold(0.0, f64::max);
            *weight
                .entry("memory (the levels' bandwidths)".into())
                .or_default() += memory_share * bandwidths;
        }
        out.push(ProgramSpread {
            name: name.clone(),
            half_range: half_range(&seconds),
            seconds,
        });
    }
    let mut movers: Vec<(String, f64)> = weight.into_iter().collect();
    movers.sort_by(|a, b| b.1.total_cmp(&a.1));
    (out, movers)
}

/// The whole report as text.
pub fn report(
    machines: &[(String, MachineProfile)],
    programs: &[(String, ProgramProfile)],
) -> String {
    let entries = entry_spreads(machines);
    let structure = structures(machines);
    let (spreads, movers) = prediction_spreads(machines, programs, &entries);
    let mut out = format!(
        "augur repeatability benchmark: {} machine profiles ({}), {} programs\n",
        machines.len(),
        machines
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        programs.len()
    );
    let pct = |x: f64| format!("{:.2}%", 100.0 * x);
    let _ = writeln!(
        out,
        "\nentries (AbOp costs, in-core classes, memory levels): {} measured in every profile; half the range over the median: median {}, {} above 3%; the widest (an entry near zero spreads widely and weighs little):",
        entries.len(),
        pct(median(&entries.iter().map(|e| e.half_range).collect::<Vec<_>>())),
        entries.iter().filter(|e| e.half_range > 0.03).count()
    );
    for e in entries.iter().take(12) {
        let lo = e.values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = e.values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let _ = writeln!(
            out,
            "  {:<34} ±{:>8}  {lo:.4} .. {hi:.4} {}",
            e.name,
            pct(e.half_range),
            if e.name.ends_with("bandwidth") {
                "GB/s"
            } else {
                "ns"
            }
        );
    }
    let _ = writeln!(
        out,
        "\ninferred structure (the same in N of N? as the OS says?):"
    );
    for s in &structure {
        let _ = writeln!(
            out,
            "  {:<14} {:<5} {:<5} {}{}",
            s.name,
            if s.same() { "same" } else { "DIFF" },
            if s.as_the_os_says() { "= OS" } else { "≠ OS" },
            s.found.join(" | "),
            s.os.as_ref()
                .map_or(String::new(), |o| format!("   (OS: {o})"))
        );
    }
    let within = spreads
        .iter()
        .filter(|p| p.half_range <= TARGET_HALF_RANGE)
        .count();
    let _ = writeln!(
        out,
        "\npredictions: {within} of {} programs within ±{} across the profiles; median ±{}, largest ±{}",
        spreads.len(),
        pct(TARGET_HALF_RANGE),
        pct(median(&spreads.iter().map(|p| p.half_range).collect::<Vec<_>>())),
        pct(spreads.iter().map(|p| p.half_range).fold(0.0, f64::max))
    );
    let mut by_spread: Vec<&ProgramSpread> = spreads.iter().collect();
    by_spread.sort_by(|a, b| b.half_range.total_cmp(&a.half_range));
    for p in by_spread.iter().take(15) {
        let times: Vec<String> = p.seconds.iter().map(|s| format!("{s:.3}")).collect();
        let _ = writeln!(
            out,
            "  {:<26} ±{:>7}  {} s",
            p.name,
            pct(p.half_range),
            times.join(" ")
        );
    }
    let _ = writeln!(
        out,
        "\nthe entries that move predictions most (executions x half the entry's range over the predicted time, mean over the programs):"
    );
    let n = programs.len().max(1) as f64;
    for (name, w) in movers.iter().take(8) {
        let _ = writeln!(out, "  {name:<34} ±{}", pct(w / n));
    }
    out
}

/// The median of `xs` (0 when empty).
fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => 0.5 * (v[n / 2 - 1] + v[n / 2]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_the_range_over_the_median() {
        assert_eq!(half_range(&[1.0]), 0.0);
        assert!((half_range(&[0.98, 1.0, 1.02]) - 0.02).abs() < 1e-12);
        assert!((half_range(&[1.0, 2.0, 3.0, 10.0]) - 4.5 / 2.5).abs() < 1e-12);
    }

    #[test]
    fn structures_tell_a_level_that_moved() {
        let base = with_l2(1024);
        let other = with_l2(2048);
        let s = structures(&[("a".into(), base.clone()), ("b".into(), base.clone())]);
        assert!(s.iter().all(Structure::same), "{s:?}");
        let s = structures(&[("a".into(), base), ("b".into(), other)]);
        let l2 = s.iter().find(|x| x.name == "L2").unwrap();
        assert!(!l2.same() && !l2.as_the_os_says(), "{l2:?}");
    }

    /// A profile whose memory section has an L2 of `kib` KiB (the OS says 1 MiB).
    fn with_l2(kib: u64) -> MachineProfile {
        let mut m = MachineProfile::read(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../machines/gfortran12-O2-epyc-zen4-2core.toml"),
        )
        .unwrap();
        let mem = m.memory.as_mut().unwrap();
        let l2 = mem.levels.iter_mut().find(|l| l.name == "L2").unwrap();
        l2.size_bytes = kib * 1024;
        l2.os_size_bytes = Some(1024 * 1024);
        m
    }
}
