//! augur-memory: the memory-hierarchy characterization.
//!
//! Saavedra-Barrera's cache and TLB microbenchmark (dissertation §5.4, digest 001 §2.2:
//! time per access of a strided loop over every array size × stride), with today's
//! additions (digest anchors §2.11: lmbench's dependent pointer chase for latencies,
//! Calibrator's separation of TLB from cache costs, STREAM/likwid-bench kernels for
//! bandwidth), built as generated Fortran with the user's compiler and flags (the stride
//! sweep and the TLB gathers, which measure the hardware's rates, with optimization where the
//! flags have none: [`run::hardware_toolchain`]).
//!
//! * [`coherence`]: the coherence line by false sharing between two threads (in Rust).
//! * [`gen`]: the Fortran program and its separately compiled kernels.
//! * [`run`]: the plan of points, build, runs, medians.
//! * [`infer`]: levels, sizes, line sizes, associativity, latencies, miss penalties, TLB,
//!   prefetching, read off the curves (documented there).
//! * `augur_toolchain::os`: what the OS reports, for the comparison.
//! * [`svg`]: the classic figure.
//!
//! The result is the `[memory]` section of the machine profile
//! ([`augur_machine_profile::memory::MemoryProfile`]).

pub mod coherence;
pub mod gen;
pub mod infer;
pub mod run;
pub mod svg;

pub use augur_machine_profile::memory::MemoryProfile;
pub use run::Settings;

use augur_toolchain::Toolchain;
use infer::human;
use std::fmt::Write as _;

/// Measures the memory hierarchy with `tc` and infers its parameters. `note` gets
/// progress lines.
pub fn characterize(
    tc: &Toolchain,
    settings: &Settings,
    note: &mut dyn FnMut(&str),
) -> Result<MemoryProfile, String> {
    Ok(measure_curves(tc, settings, note)?.finish(note))
}

/// The curves of one core's experiments, before the two-thread coherence experiment and
/// the inference ([`OneCoreCurves::finish`]): what `augur characterize` runs beside the AbOp
/// experiments on the other core.
pub struct OneCoreCurves {
    settings: Settings,
    os: augur_toolchain::os::OsInfo,
    compiler: String,
    fflags: String,
    curves: run::Curves,
    /// Seconds the experiments took.
    seconds: f64,
}

/// Runs the experiments of one core (every curve but the coherence line's). `note`
/// gets progress lines.
pub fn measure_curves(
    tc: &Toolchain,
    settings: &Settings,
    note: &mut dyn FnMut(&str),
) -> Result<OneCoreCurves, String> {
    let start = std::time::Instant::now();
    let os = augur_toolchain::os::detect();
    let plan = run::plan(&os, settings);
    let dir = augur_toolchain::interrupt::temp_dir("augur-memory-")
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let curves = run::measure(tc, &os, &plan, settings, dir.path(), note)?;
    Ok(OneCoreCurves {
        settings: *settings,
        os,
        compiler: tc.fc.clone(),
        fflags: tc.fflags.join(" "),
        curves,
        seconds: start.elapsed().as_secs_f64(),
    })
}

impl OneCoreCurves {
    /// The coherence line's experiment (two threads, on two cores) and the inference:
    /// the `[memory]` section. Its `elapsed_s` counts the time of the experiments, not
    /// the time between them.
    pub fn finish(self, note: &mut dyn FnMut(&str)) -> MemoryProfile {
        let OneCoreCurves {
            settings,
            os,
            compiler,
            fflags,
            mut curves,
            seconds,
        } = self;
        note("coherence: false sharing between two threads");
        let begun = std::time::Instant::now();
        let coherence = coherence::measure(
            if settings.quick { 5 } else { 10 },
            std::time::Duration::from_secs(2),
        );
        let single = coherence.is_none();
        curves.chase.extend(coherence);
        let mut m = MemoryProfile {
            compiler,
            fflags,
            mode: if settings.quick { "quick" } else { "default" }.into(),
            date: augur_machine_profile::utc_now(),
            window_ms: settings.window_ns as f64 / 1e6,
            observations: settings.reps,
            os_page_bytes: os.page,
            sweep: curves.sweep,
            hardware_fflags: curves.hardware_fflags,
            chase: curves.chase,
            tlb_chase: curves.tlb,
            tlb_gather: curves.tlb_gather,
            slot_chase: curves.slot,
            streams: curves.streams,
            ..Default::default()
        };
        infer::infer(&mut m, &os);
        if single {
            m.notes.push(format!(
                "coherence line not measured ({} CPU(s) available, or the two threads never ran together): line sizes from the capacity tests",
                coherence::cpus()
            ));
        }
        m.memory.page_fault_ns = curves.fault_ns;
        m.elapsed_s = ((seconds + begun.elapsed().as_secs_f64()) * 10.0).round() / 10.0;
        m
    }
}

/// The report: inferred against OS values per level, TLB, memory, prefetching, notes.
pub fn report(m: &MemoryProfile) -> String {
    let mut o = String::new();
    let opt = |v: Option<u64>| v.map(human).unwrap_or_else(|| "-".into());
    let _ = writeln!(
        o,
        "{:<5} {:>10} {:>10} {:>6} {:>6} {:>9} {:>5} {:>8} {:>9} {:>8} {:>8}",
        "level",
        "size",
        "OS size",
        "line",
        "OS",
        "ways",
        "OS",
        "lat ns",
        "miss ns",
        "strided",
        "GB/s"
    );
    for l in &m.levels {
        let src = |s: &str| {
            if s == augur_machine_profile::memory::FROM_OS {
                "*"
            } else {
                ""
            }
        };
        let _ = writeln!(
            o,
            "{:<5} {:>10} {:>10} {:>6} {:>6} {:>9} {:>5} {:>8.2} {:>9.2} {:>8} {:>8}",
            l.name,
            format!("{}{}", human(l.size_bytes), src(&l.size_source)),
            opt(l.os_size_bytes),
            format!("{}{}", l.line_bytes, src(&l.line_source)),
            l.os_line_bytes
                .map(|v| v.to_string())
                .unwrap_or_else(|| "-".into()),
            format!(
                "{}{}",
                l.ways.map(|w| w.to_string()).unwrap_or_else(|| "-".into()),
                src(&l.ways_source)
            ),
            l.os_ways
                .map(|v| v.to_string())
                .unwrap_or_else(|| "-".into()),
            l.latency_ns,
            l.miss_penalty_ns,
            l.strided_miss_ns
                .map(|v| format!("{v:.2}"))
                .unwrap_or_else(|| "-".into()),
            l.bandwidth_gbs
                .map(|v| format!("{v:.1}"))
                .unwrap_or_else(|| "-".into()),
        );
    }
    let _ = writeln!(
        o,
        "{:<5} {:>10} {:>10} {:>6} {:>6} {:>9} {:>5} {:>8.2} {:>9} {:>8} {:>8.1}",
        "mem", "", "", "", "", "", "", m.memory.latency_ns, "", "", m.memory.bandwidth_gbs
    );
    if let Some(ns) = m.memory.page_fault_ns {
        let _ = writeln!(
            o,
            "first touch of a page (page fault): {:.2} us",
            ns / 1000.0
        );
    }
    let _ = writeln!(o, "(* = from OS; lat = dependent random load; miss = next level's latency minus this one's; strided = excess per access of a strided read at one line, arrays in the next level; GB/s = triad with arrays of a quarter of the level)");
    for t in &m.tlb {
        let _ = writeln!(
            o,
            "{}: {} entries x {} pages{} = {} reach, miss penalty {:.2} ns",
            t.name,
            t.entries,
            human(t.page_bytes),
            if t.page_source == augur_machine_profile::memory::FROM_OS {
                " (from OS)"
            } else {
                ""
            },
            human(t.reach_bytes),
            t.miss_penalty_ns
        );
    }
    if let Some(line) = walk_summary(m) {
        let _ = writeln!(o, "{line}");
    }
    let _ = writeln!(
        o,
        "OS page size {}{}",
        human(m.os_page_bytes),
        m.os_tlb_entries
            .map(|e| format!("; OS TLB size {e} 4 KiB pages (/proc/cpuinfo, all levels)"))
            .unwrap_or_default()
    );
    let _ = writeln!(o, "prefetch: {}", m.prefetch.summary);
    if let Some(flags) = &m.hardware_fflags {
        let _ = writeln!(
            o,
            "stride sweep and TLB gathers built with {flags} (the profile's {} do not optimize: they measure the hardware's rates, not their own loops)",
            m.fflags
        );
    }
    for s in &m.streams {
        let _ = write!(
            o,
            "{} {} {:.1} GB/s; ",
            s.kernel,
            human(s.array_bytes),
            s.gbs
        );
    }
    o.push('\n');
    for n in &m.notes {
        let _ = writeln!(o, "note: {n}");
    }
    o
}

/// The TLB gathers at twice the last TLB's reach, a line: "page walks, pages read
/// independently over 4096 pages: 4.18 ns an access one page apart, 5.25 ns 28736 B apart
/// (each walk a page-table line of its own)"; `None` without the gathers.
fn walk_summary(m: &augur_machine_profile::memory::MemoryProfile) -> Option<String> {
    let pages = 2 * m.tlb.last()?.entries;
    let at = |stride: u64| {
        m.tlb_gather
            .iter()
            .find(|c| c.stride_bytes == stride && c.count.iter().any(|&n| n >= pages))
            .map(|c| augur_machine_profile::memory::interp(&c.count, &c.ns, pages))
    };
    let page = if m.os_page_bytes > 0 {
        m.os_page_bytes
    } else {
        4096
    };
    let line = m.levels.first().map_or(64, |l| l.line_bytes);
    let far = augur_machine_profile::memory::far_stride(page, line);
    let near = at(page)?;
    let mut s = format!(
        "page walks, pages read independently over {pages} pages: {near:.2} ns an access one page apart"
    );
    if let Some(f) = at(far) {
        let _ = write!(
            s,
            ", {f:.2} ns {far} B apart (each walk a page-table line of its own)"
        );
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use augur_machine_profile::memory::{MemoryProfile, TlbCurve, TlbLevel};

    #[test]
    fn the_report_names_the_walks_of_both_gathers() {
        let tlb = |entries| TlbLevel {
            entries,
            ..Default::default()
        };
        let gather = |stride_bytes, ns: Vec<f64>| TlbCurve {
            stride_bytes,
            count: vec![2048, 4096, 8192],
            ns,
        };
        let mut m = MemoryProfile {
            os_page_bytes: 4096,
            tlb: vec![tlb(64), tlb(2048)],
            tlb_gather: vec![gather(4096, vec![0.6, 4.2, 5.0])],
            ..Default::default()
        };
        let one = walk_summary(&m).expect("a line");
        assert!(
            one.contains("over 4096 pages: 4.20 ns") && !one.contains("B apart"),
            "{one}"
        );
        m.tlb_gather.push(gather(28736, vec![0.6, 5.25, 7.4]));
        let both = walk_summary(&m).expect("a line");
        assert!(
            both.ends_with("5.25 ns 28736 B apart (each walk a page-table line of its own)"),
            "{both}"
        );
        m.tlb_gather.clear();
        assert!(walk_summary(&m).is_none());
    }
}
