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
    /// Draw the speedup curve and the timeline for a report too (`--report`), whether
    /// or not they are written to files.
    pub draw: bool,
}

/// Predicts one profile at each thread count on each machine: the tables it prints and
/// its section of a report (the tables, the speedup curve and the timeline at the
/// largest count).
pub fn run(
    profile_path: &Path,
    machines: &[LoadedMachine],
    options: PredictOptions,
    args: &ThreadArgs<'_>,
) -> Result<crate::report::Beside> {
    if args.threads.is_empty() {
        bail!("give thread counts with --threads, e.g. --threads 1,2,4");
    }
    let profile = ProgramProfile::read(profile_path)?;
    let mut tables = String::new();
    let mut all = vec![];
    for m in machines {
        let pred = predict_threads(&profile, &m.profile, options, args.threads)
            .map_err(|e| anyhow::anyhow!("{}: {e}", profile_path.display()))?;
        tables.push_str(&table(&m.name, &pred));
        all.push((m.name.clone(), pred));
    }
    let printed = if args.json {
        let machines = all
            .iter()
            .map(|(machine, prediction)| MachineThreads {
                machine,
                prediction,
            })
            .collect();
        let doc = Document::new("augur-thread-prediction", ThreadsJson { machines });
        serde_json::to_string_pretty(&doc)? + "\n"
    } else {
        tables.clone()
    };
    let program = crate::figure_style::program_name(&profile, profile_path);
    let section = crate::report::Section {
        id: "threads".into(),
        title: format!(
            "OpenMP: predicted at {} threads",
            crate::predict::list_counts(args.threads)
        ),
        lead: "The predicted time above and the breakdowns below are the sequential model's (one thread, no OpenMP overhead); here, each thread count's.".into(),
        text: tables,
        figures: figures(&program, machines, &all, args)?,
    };
    Ok(crate::report::Beside { printed, section })
}

/// The speedup curve of every machine and the first machine's timeline at the largest
/// count, each written to its file if given; those drawn for a report.
fn figures(
    program: &str,
    machines: &[LoadedMachine],
    all: &[(String, ThreadsPrediction)],
    args: &ThreadArgs<'_>,
) -> Result<Vec<crate::figure_style::Drawn>> {
    let mut figures = crate::report::Figures::new(args.draw);
    let curves: Vec<(&LoadedMachine, &ThreadsPrediction)> =
        machines.iter().zip(all.iter().map(|a| &a.1)).collect();
    let caption = "Predicted speedup against the thread count";
    if let Some(path) = figures.add(args.plot, caption, || speedup_figure(program, &curves))? {
        eprintln!("augur: speedup curve written to {}", path.display());
    }
    let (name, pred) = &all[0];
    let point = pred.points.last().expect("thread counts given");
    let caption = format!(
        "Each thread's timeline at {} threads on {name}",
        point.threads
    );
    if let Some(path) = figures.add(args.gantt, caption, || gantt_figure(program, name, point))? {
        eprintln!(
            "augur: timeline at {} threads written to {}",
            point.threads,
            path.display()
        );
    }
    Ok(figures.drawn)
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
        "{:>7} {:>10} {:>29} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9}  notes",
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
            "{:>7} {:>10} {:>29} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9}  {}",
            p.threads,
            f(p.seconds),
            crate::predict::fmt_interval_ends(p.low, p.high),
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

/// Speedup T(1)/T(P) against P (log axes) per machine, the ideal line, where each
/// machine runs out of cores (grey, dashed) and the limit of its memory bandwidth (the
/// triad's speedup `B(P)/B(1)` from its `[openmp]` section, dashed in its colour).
fn speedup_figure(
    program: &str,
    all: &[(&LoadedMachine, &ThreadsPrediction)],
) -> Result<String, String> {
    use crate::figure_style as st;
    let counts: Vec<f64> = all
        .iter()
        .flat_map(|(_, p)| p.points.iter().map(|x| f64::from(x.threads)))
        .collect();
    let pmax = counts.iter().copied().fold(2.0, f64::max);
    let names: Vec<String> = all.iter().map(|(m, _)| m.name.clone()).collect();
    let title = st::title(
        "Predicted speedup T(1)/T(P)",
        program,
        &st::machines_name(&names),
    );
    let (x0, x1) = (0.8, pmax * 1.25);
    let (y0, y1) = (0.25, pmax * 1.25);
    let x_ticks = st::log_ticks(x0, x1, &counts, true);
    // Powers of two: the ideal line passes through the ticks.
    let twos: Vec<f64> = (-2..=pmax.log2().ceil() as i32)
        .map(|k| 2f64.powi(k))
        .collect();
    let y_ticks = st::distinct_labels(&st::log_ticks(y0, y1, &twos, false), st::fmt_number);
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (900, 600)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption(&title, (st::FONT, st::TITLE))
            .margin(15)
            .x_label_area_size(55)
            .y_label_area_size(70)
            .build_cartesian_2d(
                (x0..x1).log_scale().with_key_points(x_ticks),
                (y0..y1).log_scale().with_key_points(y_ticks),
            )
            .map_err(|e| e.to_string())?;
        st::mesh(&mut chart.configure_mesh())
            .x_desc("threads P")
            .y_desc("speedup")
            .x_label_formatter(&|v| st::fmt_number(*v))
            .y_label_formatter(&|v| st::fmt_number(*v))
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(LineSeries::new(
                vec![(1.0, 1.0), (pmax, pmax)],
                st::NEUTRAL.stroke_width(1),
            ))
            .map_err(|e| e.to_string())?
            .label("ideal (speedup P)")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], st::NEUTRAL));
        cores_marks(&mut chart, all, pmax)?;
        for (k, (machine, pred)) in all.iter().enumerate() {
            let color = st::color(k);
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
                .draw_series(LineSeries::new(line.clone(), color.stroke_width(3)))
                .map_err(|e| e.to_string())?
                .label(st::machine_label(machine))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 22, y)], color.stroke_width(3))
                });
            chart
                .draw_series(
                    line.iter()
                        .map(|&(x, y)| Circle::new((x, y), 5, color.filled())),
                )
                .map_err(|e| e.to_string())?;
            bandwidth_limit(&mut chart, machine, pred, all.len() > 1, color)?;
            contention_mark(&mut chart, pred, t1)?;
        }
        st::legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// A chart with log axes both ways (the speedup curves).
type LogLog<'a, 'b> = crate::figure_style::LogLog<'a, 'b>;

/// A grey dashed vertical line where each machine runs out of cores (once per count of
/// cores), labelled `N cores`.
fn cores_marks(
    chart: &mut LogLog<'_, '_>,
    all: &[(&LoadedMachine, &ThreadsPrediction)],
    pmax: f64,
) -> Result<(), String> {
    use crate::figure_style as st;
    let mut cores: Vec<u32> = all
        .iter()
        .filter_map(|(_, p)| p.cores)
        .filter(|c| f64::from(*c) < pmax)
        .collect();
    cores.sort_unstable();
    cores.dedup();
    for c in cores {
        let x = f64::from(c);
        chart
            .draw_series(DashedLineSeries::new(
                vec![(x, 0.25), (x, pmax * 1.1)],
                8,
                6,
                st::NEUTRAL.stroke_width(2),
            ))
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(std::iter::once(Text::new(
                format!("{c} cores"),
                (x * 1.04, 0.3),
                (st::FONT, st::SUBTITLE).into_font().color(&st::NEUTRAL),
            )))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The speedup a loop bound by main memory reaches on `machine`: the triad's bandwidth
/// with P threads over one thread's (flat beyond the counts measured), dashed.
fn bandwidth_limit(
    chart: &mut LogLog<'_, '_>,
    machine: &LoadedMachine,
    pred: &ThreadsPrediction,
    name_it: bool,
    color: RGBColor,
) -> Result<(), String> {
    let Some(omp) = &machine.profile.openmp else {
        return Ok(());
    };
    let Some(b1) = omp
        .bandwidth("memory", 1)
        .filter(|b| b.extrapolated.is_none())
    else {
        return Ok(());
    };
    let line: Vec<(f64, f64)> = pred
        .points
        .iter()
        .filter_map(|p| {
            let b = omp.bandwidth("memory", p.threads)?;
            Some((f64::from(p.threads), b.value / b1.value))
        })
        .collect();
    if line.len() < 2 {
        return Ok(());
    }
    let label = if name_it {
        format!("memory-bound limit ({})", machine.name)
    } else {
        "memory-bound limit: triad bandwidth B(P)/B(1)".to_string()
    };
    chart
        .draw_series(DashedLineSeries::new(line, 10, 6, color.stroke_width(2)))
        .map_err(|e| e.to_string())?
        .label(label)
        .legend(move |(x, y)| {
            plotters::element::DashedPathElement::new(
                vec![(x, y), (x + 22, y)],
                6,
                4,
                color.stroke_width(2),
            )
        });
    Ok(())
}

/// Marks the first count where sharing the memory bandwidth costs more than a tenth of
/// the time.
fn contention_mark(
    chart: &mut LogLog<'_, '_>,
    pred: &ThreadsPrediction,
    t1: f64,
) -> Result<(), String> {
    use crate::figure_style as st;
    if let Some(p) = pred.points.iter().find(|p| p.contention > 0.1 * p.seconds) {
        let (x, y) = (f64::from(p.threads), t1 / p.seconds);
        chart
            .draw_series(std::iter::once(Text::new(
                "bandwidth-bound from here".to_string(),
                (x * 1.04, y * 0.8),
                (st::FONT, st::SUBTITLE).into_font().color(&st::NEUTRAL),
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

    /// Okabe and Ito's colours (the figures' palette), idle a light grey.
    fn color(self) -> RGBColor {
        use crate::figure_style::PALETTE;
        match self {
            Part::Work => PALETTE[0],
            Part::Imbalance => PALETTE[4],
            Part::CoreSharing => PALETTE[3],
            Part::Overhead => PALETTE[1],
            Part::Idle => RGBColor(215, 215, 215),
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
fn gantt_figure(program: &str, machine: &str, p: &ThreadPoint) -> Result<String, String> {
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
        &crate::figure_style::title(
            &format!(
                "Per-thread timeline at {} thread{}",
                p.threads,
                if p.threads == 1 { "" } else { "s" }
            ),
            program,
            machine,
        ),
        &format!(
            "predicted {}; each construct's executions together",
            crate::figure_style::fmt_time(p.seconds)
        ),
        "thread",
        &rows,
        &bars,
        &legend,
        p.seconds,
    )
}
