//! `augur predict --threads P1,P2,...`: an OpenMP program's predicted time per thread
//! count with its breakdown (serial, work, imbalance, overhead), the phases of the
//! largest count, the speedup curve (`--plot`) and the per-thread timeline (`--gantt`).

use crate::schemas::Document;
use anyhow::{bail, Result};
use augur_model::openmp::{predict_threads, ThreadPoint, ThreadsPrediction};
use augur_model::{LoadedMachine, PredictOptions};
use augur_program_profile::ProgramProfile;
use plotters::prelude::*;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// The body of `augur predict --threads ... --json`.
#[derive(Serialize, schemars::JsonSchema)]
pub struct ThreadsJson<'a> {
    /// One entry per machine, in the order given.
    machines: Vec<MachineThreads<'a>>,
}

/// One machine's prediction at each thread count.
#[derive(Serialize, schemars::JsonSchema)]
struct MachineThreads<'a> {
    /// The machine's name.
    machine: &'a str,
    /// The prediction.
    prediction: &'a ThreadsPrediction,
}

/// What `--threads` was given with.
pub struct ThreadArgs<'a> {
    /// The thread counts.
    pub threads: &'a [u32],
    /// The speedup figure's file.
    pub plot: Option<&'a Path>,
    /// The timeline's file.
    pub gantt: Option<&'a Path>,
    /// JSON instead of text.
    pub json: bool,
}

/// Predicts one profile at each thread count on each machine and prints the tables.
pub fn run(
    profile_path: &Path,
    machines: &[LoadedMachine],
    options: PredictOptions,
    args: &ThreadArgs<'_>,
) -> Result<String> {
    if args.threads.is_empty() {
        bail!("give thread counts with --threads, e.g. --threads 1,2,4");
    }
    let profile = ProgramProfile::read(profile_path)?;
    let mut out = String::new();
    let mut all = vec![];
    for m in machines {
        let pred = predict_threads(&profile, &m.profile, options, args.threads)
            .map_err(|e| anyhow::anyhow!("{}: {e}", profile_path.display()))?;
        if !args.json {
            out.push_str(&table(&m.name, &pred));
        }
        all.push((m.name.clone(), pred));
    }
    if args.json {
        let machines = all
            .iter()
            .map(|(machine, prediction)| MachineThreads {
                machine,
                prediction,
            })
            .collect();
        let doc = Document::new("augur-thread-prediction", ThreadsJson { machines });
        out = serde_json::to_string_pretty(&doc)? + "\n";
    }
    if let Some(path) = args.plot {
        let svg = speedup_figure(&all).map_err(anyhow::Error::msg)?;
        crate::cli::write_atomically(path, svg.as_bytes())?;
        eprintln!("augur: speedup curve written to {}", path.display());
    }
    if let Some(path) = args.gantt {
        let (name, pred) = &all[0];
        let point = pred.points.last().expect("thread counts given");
        let svg = gantt_figure(name, point).map_err(anyhow::Error::msg)?;
        crate::cli::write_atomically(path, svg.as_bytes())?;
        eprintln!(
            "augur: timeline at {} threads written to {}",
            point.threads,
            path.display()
        );
    }
    Ok(out)
}

/// The text report of one machine: a row per thread count, the phases of the largest,
/// and what was extrapolated.
fn table(machine: &str, pred: &ThreadsPrediction) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "machine {machine}: OpenMP prediction (sequential model: {})",
        crate::predict::fmt_seconds(pred.sequential.total.seconds)
    );
    for w in &pred.warnings {
        let _ = writeln!(s, "warning: {w}");
    }
    s.push_str(&points_table(pred));
    if let Some(last) = pred.points.last() {
        s.push_str(&phases_table(last));
    }
    s.push('\n');
    s
}

/// A row per thread count: time, interval, speedup and the breakdown, with notes.
fn points_table(pred: &ThreadsPrediction) -> String {
    let f = crate::predict::fmt_seconds;
    let mut s = String::new();
    let t1 = pred
        .points
        .iter()
        .find(|p| p.threads == 1)
        .map(|p| p.seconds);
    let _ = writeln!(
        s,
        "{:>7} {:>10} {:>21} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9}  notes",
        "threads",
        "time",
        "90% interval",
        "speedup",
        "serial",
        "work",
        "imbalance",
        "overhead",
        "memory+"
    );
    for p in &pred.points {
        let speedup = t1.map_or("-".to_string(), |t| format!("{:.2}", t / p.seconds));
        let _ = writeln!(
            s,
            "{:>7} {:>10} {:>21} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9}  {}",
            p.threads,
            f(p.seconds),
            format!("{} - {}", f(p.low), f(p.high)),
            speedup,
            f(p.serial),
            f(p.work),
            f(p.imbalance),
            f(p.overhead),
            f(p.contention),
            point_notes(p, pred.cores).join("; ")
        );
    }
    s
}

/// What a row's numbers do not say: cores shared, serialization, extrapolation.
fn point_notes(p: &ThreadPoint, cores: Option<u32>) -> Vec<String> {
    let f = crate::predict::fmt_seconds;
    let mut notes = vec![];
    if p.oversubscribed {
        notes.push(format!(
            "{} threads share {} cores (+{})",
            p.threads,
            cores.unwrap_or(0),
            f(p.sharing)
        ));
    }
    if p.serialization > 0.0 {
        notes.push(format!(
            "critical sections and library locks serialize {}",
            f(p.serialization)
        ));
    }
    if p.line_sharing > 0.0 {
        notes.push(format!(
            "stores into lines threads share {}",
            f(p.line_sharing)
        ));
    }
    if !p.extrapolated.is_empty() {
        notes.push("machine parameters extrapolated (below)".into());
    }
    notes
}

/// The phases of one thread count, longest first, and what was extrapolated.
fn phases_table(last: &ThreadPoint) -> String {
    let f = crate::predict::fmt_seconds;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\nphases at {} threads (all executions together):",
        last.threads
    );
    let _ = writeln!(
        s,
        "  {:<40} {:>10} {:>10} {:>10} {:>10} {:>9}",
        "construct", "executions", "time", "slowest", "fastest", "overhead"
    );
    // A phase with nothing in it (a unit's blocks outside its constructs that never
    // ran on another thread) says nothing.
    let mut phases: Vec<_> = last
        .phases
        .iter()
        .filter(|ph| ph.seconds > 0.0 || ph.executions > 0.0)
        .collect();
    phases.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
    for ph in phases.iter().take(12) {
        let max = ph.thread_seconds.iter().copied().fold(0.0, f64::max);
        let min = ph
            .thread_seconds
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
        let _ = writeln!(
            s,
            "  {:<40} {:>10.0} {:>10} {:>10} {:>10} {:>9}",
            ph.name,
            ph.executions,
            f(ph.seconds),
            f(max),
            f(min),
            f(ph.overhead)
        );
    }
    for ph in last.phases.iter().filter(|ph| ph.spin_iterations > 0.0) {
        let _ = writeln!(
            s,
            "  {}: threads wait on flags (busy-wait loops): the counting run's {:.0} spins are left out of the work; the wait is the other threads' work (the slowest thread)",
            ph.name, ph.spin_iterations
        );
    }
    for e in &last.extrapolated {
        let _ = writeln!(s, "  extrapolated: {e}");
    }
    s
}

/// Speedup T(1)/T(P) against P (log2 axes) per machine, the ideal line, and where the
/// machine runs out of cores.
fn speedup_figure(all: &[(String, ThreadsPrediction)]) -> Result<String, String> {
    let pmax = all
        .iter()
        .flat_map(|(_, p)| p.points.iter().map(|x| x.threads))
        .max()
        .unwrap_or(1)
        .max(2) as f64;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (900, 600)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption("Predicted speedup T(1)/T(P)", ("sans-serif", 20))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(
                (0.8..pmax * 1.25).log_scale(),
                (0.25..pmax * 1.25).log_scale(),
            )
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("threads P")
            .y_desc("speedup")
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| format!("{v:.2}"))
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(LineSeries::new(
                vec![(1.0, 1.0), (pmax, pmax)],
                BLACK.mix(0.4),
            ))
            .map_err(|e| e.to_string())?
            .label("ideal")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], BLACK.mix(0.4)));
        for (k, (name, pred)) in all.iter().enumerate() {
            let color = HSLColor(k as f64 / all.len().max(1) as f64 * 0.85, 0.8, 0.4);
            let Some(t1) = pred
                .points
                .iter()
                .find(|p| p.threads == 1)
                .map(|p| p.seconds)
            else {
                return Err("the speedup curve needs 1 among the thread counts".into());
            };
            let line: Vec<(f64, f64)> = pred
                .points
                .iter()
                .map(|p| (p.threads as f64, t1 / p.seconds))
                .collect();
            chart
                .draw_series(LineSeries::new(line.clone(), color.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(name.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color));
            chart
                .draw_series(
                    line.iter()
                        .map(|&(x, y)| Circle::new((x, y), 4, color.filled())),
                )
                .map_err(|e| e.to_string())?;
            marks(&mut chart, pred, pmax, color)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .border_style(BLACK)
            .background_style(WHITE.mix(0.8))
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// A chart with log axes both ways (the speedup curves).
pub(crate) type LogLog<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<
        plotters::coord::combinators::LogCoord<f64>,
        plotters::coord::combinators::LogCoord<f64>,
    >,
>;

/// Marks where the machine runs out of cores and where sharing the memory bandwidth
/// first costs more than a tenth of the time.
fn marks(
    chart: &mut LogLog<'_, '_>,
    pred: &ThreadsPrediction,
    pmax: f64,
    color: HSLColor,
) -> Result<(), String> {
    if let Some(cores) = pred.cores.filter(|c| (*c as f64) < pmax) {
        let c = cores as f64;
        chart
            .draw_series(LineSeries::new(vec![(c, 0.25), (c, pmax)], color.mix(0.6)))
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(std::iter::once(Text::new(
                format!("{cores} cores"),
                (c * 1.03, 0.3),
                ("sans-serif", 13),
            )))
            .map_err(|e| e.to_string())?;
    }
    if let Some(p) = pred.points.iter().find(|p| p.contention > 0.1 * p.seconds) {
        let x = p.threads as f64;
        chart
            .draw_series(std::iter::once(Text::new(
                "bandwidth-bound from here".to_string(),
                (x, 0.45),
                ("sans-serif", 13),
            )))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// What a stretch of a thread's timeline is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Part {
    Work,
    Imbalance,
    CoreSharing,
    Overhead,
    Idle,
}

impl Part {
    const ALL: [Part; 5] = [
        Part::Work,
        Part::Imbalance,
        Part::CoreSharing,
        Part::Overhead,
        Part::Idle,
    ];

    fn label(self) -> &'static str {
        match self {
            Part::Work => "work",
            Part::Imbalance => "waiting (imbalance)",
            Part::CoreSharing => "waiting for a core (more threads than cores)",
            Part::Overhead => "overhead",
            Part::Idle => "idle (serial part)",
        }
    }

    fn color(self) -> RGBColor {
        match self {
            Part::Work => RGBColor(70, 130, 180),
            Part::Imbalance => RGBColor(230, 160, 60),
            Part::CoreSharing => RGBColor(150, 110, 190),
            Part::Overhead => RGBColor(200, 60, 60),
            Part::Idle => RGBColor(220, 220, 220),
        }
    }
}

/// The stretches of each thread's timeline: (thread, from, to, what), the serial part
/// first, then the phases in program order.
fn gantt_bars(p: &ThreadPoint) -> Vec<(usize, f64, f64, Part)> {
    let threads = p.threads as usize;
    let mut bars = vec![];
    for t in 0..threads {
        let part = if t == 0 { Part::Work } else { Part::Idle };
        bars.push((t, 0.0, p.serial, part));
    }
    let mut x = p.serial;
    let mut phases: Vec<_> = p.phases.iter().collect();
    phases.sort_by_key(|ph| ph.line);
    for ph in phases {
        let span = ph.seconds - ph.overhead;
        let slowest = ph
            .thread_seconds
            .iter()
            .copied()
            .fold(0.0, f64::max)
            .min(span);
        for t in 0..threads {
            let w = ph
                .thread_seconds
                .get(t)
                .copied()
                .unwrap_or(0.0)
                .min(slowest);
            bars.push((t, x, x + w, Part::Work));
            bars.push((t, x + w, x + slowest, Part::Imbalance));
            bars.push((t, x + slowest, x + span, Part::CoreSharing));
            bars.push((t, x + span, x + ph.seconds, Part::Overhead));
        }
        x += ph.seconds;
    }
    bars
}

/// One bar per thread: serial time (thread 0 busy, the others idle), then each phase's
/// work, its wait for the slowest thread and its overhead, phases in program order.
fn gantt_figure(machine: &str, p: &ThreadPoint) -> Result<String, String> {
    let rows: Vec<String> = (0..p.threads).map(|t| format!("thread {t}")).collect();
    let bars: Vec<crate::gantt::Bar> = gantt_bars(p)
        .into_iter()
        .map(|(row, from, to, part)| crate::gantt::Bar {
            row,
            from,
            to,
            color: part.color(),
        })
        .collect();
    let legend: Vec<(&str, RGBColor)> = Part::ALL.iter().map(|p| (p.label(), p.color())).collect();
    crate::gantt::figure(
        &format!("Per-thread timeline at {} threads on {machine}", p.threads),
        &format!(
            "predicted {}; each construct's executions together",
            crate::predict::fmt_seconds(p.seconds)
        ),
        &rows,
        &bars,
        &legend,
        p.seconds,
    )
}
