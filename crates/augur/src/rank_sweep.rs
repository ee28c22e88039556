//! `augur predict PROFILE --mpi-ranks 1,2,4,...,1024`: an MPI program predicted at several
//! rank counts, as a table (time, the run and the launch, speedup, efficiency, the share
//! of the run spent in MPI calls) and, with `--plot`, a figure of the four.

use anyhow::{Context, Result};
use plotters::prelude::*;
use std::fmt::Write as _;
use std::path::Path;

/// One rank count of a sweep.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct SweepPoint {
    /// Ranks.
    pub ranks: u32,
    /// The predicted wall-clock time of the job (the run plus the launch), seconds.
    pub seconds: f64,
    /// Its 90% interval (the slowest rank's computing off by the sequential model's
    /// error), seconds: low and high.
    pub interval: (f64, f64),
    /// The run (SimGrid's replay), seconds.
    pub simulated: f64,
    /// The job's launch (`mpirun`, MPI_Init, MPI_Finalize), seconds.
    pub startup: f64,
    /// The smallest count's predicted time over this one's.
    pub speedup: f64,
    /// The speedup over the ideal one (this count over the smallest).
    pub efficiency: f64,
    /// Of the ranks' run time, the share inside MPI calls (transmission and waiting).
    pub mpi_share: f64,
    /// The rank counts the traces were extrapolated from (empty: traced at `ranks`).
    pub extrapolated_from: Vec<u32>,
    /// What the user must know about this count (work that ran out).
    pub warnings: Vec<String>,
}

/// The body of `augur predict --mpi-ranks P1,P2,... --json`.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct SweepJson<'a> {
    /// The machine.
    machine: &'a str,
    /// A point per rank count, in the order given.
    points: &'a [SweepPoint],
}

/// Predicts `program` (read from `profile`, its name in the table and figure) at every
/// count of `a.ranks`: the text table (or JSON) it prints, the figure written to
/// `out.plot`, and its section of a report.
pub fn sweep(
    program: &augur_program_profile::ProgramProfile,
    profile: &Path,
    machine: &augur_model::LoadedMachine,
    options: augur_model::PredictOptions,
    a: &crate::simgrid::MpiPredict,
    out: &crate::simgrid::Outputs<'_>,
) -> Result<crate::report::Beside> {
    let how = a.options();
    let bar = indicatif::ProgressBar::new(a.ranks.len() as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "replay [{elapsed_precise}] {bar:40} {pos}/{len} rank counts ({msg})",
    ) {
        bar.set_style(style);
    }
    let mut predictions = vec![];
    for &p in &a.ranks {
        bar.set_message(format!("{p} ranks"));
        let pred = augur_simgrid::predict_ranks(program, &machine.profile, options, p, &how)
            .with_context(|| format!("{} at {p} ranks", profile.display()))?;
        predictions.push(pred);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let points = points_of(&predictions);
    let name = crate::figure_style::program_name(program, profile);
    let as_distributed = if crate::simgrid::is_distributed(program) {
        ", as distributed"
    } else {
        ""
    };
    let title = crate::figure_style::title(
        &format!("MPI prediction by rank count (SimGrid replay{as_distributed})"),
        &name,
        &machine.name,
    );
    let mut figures = crate::report::Figures::new(out.draw);
    let caption =
        "Predicted time, speedup, efficiency and the share in MPI calls against the rank count";
    if let Some(path) = figures.add(out.plot, caption, || figure(&title, &points))? {
        eprintln!("augur: rank sweep figure written to {}", path.display());
    }
    let tables = table(profile, &machine.name, &points);
    let printed = if out.json {
        let body = SweepJson {
            machine: &machine.name,
            points: &points,
        };
        let doc = crate::schemas::Document::new("augur-rank-sweep", body);
        serde_json::to_string_pretty(&doc)? + "\n"
    } else {
        tables.clone()
    };
    let section = crate::simgrid::section(program, &a.ranks, tables, figures.drawn);
    Ok(crate::report::Beside { printed, section })
}

/// The sweep's points: speedup and efficiency over the first count given.
fn points_of(predictions: &[augur_simgrid::RanksPrediction]) -> Vec<SweepPoint> {
    let Some(base) = predictions.first() else {
        return vec![];
    };
    predictions
        .iter()
        .map(|p| {
            let speedup = base.seconds / p.seconds.max(1e-300);
            let in_mpi = p.timeline.as_ref().map_or(0.0, |t| {
                let busy: f64 = t.ranks.iter().map(|r| r.transmission + r.waiting).sum();
                busy / (p.simulated * f64::from(p.ranks)).max(1e-300)
            });
            SweepPoint {
                ranks: p.ranks,
                seconds: p.seconds,
                interval: p.interval,
                simulated: p.simulated,
                startup: p.startup,
                speedup,
                efficiency: speedup * f64::from(base.ranks) / f64::from(p.ranks),
                mpi_share: in_mpi.clamp(0.0, 1.0),
                extrapolated_from: p.extrapolated_from.clone(),
                warnings: p.warnings.clone(),
            }
        })
        .collect()
}

/// A row per rank count, then each warning once.
fn table(profile: &Path, machine: &str, points: &[SweepPoint]) -> String {
    let s = crate::predict::fmt_seconds;
    let base = points.first().map_or(1, |p| p.ranks);
    let mut out = format!(
        "augur MPI prediction: {} on {machine}, replayed by SimGrid at {} rank counts\n",
        profile.display(),
        points.len()
    );
    let _ = writeln!(
        out,
        "  ranks    predicted                   90% interval      the run       launch  speedup  efficiency   in MPI  notes"
    );
    for p in points {
        let note = match (&p.extrapolated_from[..], p.warnings.is_empty()) {
            ([], true) => String::new(),
            ([], false) => "the work runs out (below)".to_string(),
            (from, ok) => format!(
                "extrapolated from {from:?}{}",
                if ok {
                    ""
                } else {
                    "; the work runs out (below)"
                }
            ),
        };
        let _ = writeln!(
            out,
            "  {:>5} {:>12} {:>30} {:>12} {:>12} {:>8.2} {:>10.0}% {:>7.0}%  {note}",
            p.ranks,
            s(p.seconds),
            crate::predict::fmt_interval_ends(p.interval.0, p.interval.1),
            s(p.simulated),
            s(p.startup),
            p.speedup,
            100.0 * p.efficiency,
            100.0 * p.mpi_share,
        );
    }
    let _ = writeln!(
        out,
        "predicted = the run (MPI_Init to MPI_Finalize, SimGrid's replay) + the job's launch; speedup and efficiency over {base} ranks; in MPI: the share of the ranks' run inside MPI calls (transmission and waiting)"
    );
    // The first count where the work runs out says it for the larger ones.
    if let Some(w) = points.iter().find_map(|p| p.warnings.first()) {
        let _ = writeln!(out, "warning: {w}; the same at the larger counts");
    }
    out
}

/// Four panels against the rank count (log axes, a tick at each count): the predicted
/// time and the run, the speedup with the ideal line, the efficiency, the share in MPI
/// calls.
fn figure(title: &str, points: &[SweepPoint]) -> Result<String, String> {
    use crate::figure_style as st;
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let pmin = points.iter().map(|p| p.ranks).min().unwrap_or(1).max(1) as f64;
    let pmax = points.iter().map(|p| p.ranks).max().unwrap_or(2).max(2) as f64;
    let ranks: Vec<f64> = points.iter().map(|p| f64::from(p.ranks)).collect();
    let xs = Axis {
        range: (pmin / 1.3)..(pmax * 1.3),
        ticks: st::log_ticks(pmin / 1.3, pmax * 1.3, &ranks, true),
    };
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (1100, 800)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let root = root
            .titled(title, (st::FONT, st::TITLE))
            .map_err(|e| err(&e))?;
        let panels = root.split_evenly((2, 2));
        // Time: the job and the run.
        let tmax = points.iter().map(|p| p.seconds).fold(1e-12, f64::max);
        let tmin = points
            .iter()
            .map(|p| p.simulated.max(1e-12))
            .fold(tmax, f64::min);
        let ys = (tmin / 1.5)..(tmax * 1.5);
        let y_ticks =
            st::distinct_labels(&st::log_ticks(ys.start, ys.end, &[], false), st::fmt_time);
        let mut c = panel(&panels[0], "predicted time", &xs, ys, y_ticks)?;
        st::mesh(&mut c.configure_mesh())
            .x_desc("ranks")
            .y_desc("time")
            .x_label_formatter(&|v| st::fmt_number(*v))
            .y_label_formatter(&|v| st::fmt_time(*v))
            .draw()
            .map_err(|e| err(&e))?;
        for (k, name, f) in [
            (
                0,
                "predicted (run + launch)",
                (|p: &SweepPoint| p.seconds) as fn(&SweepPoint) -> f64,
            ),
            (1, "the run", |p| p.simulated),
        ] {
            line(&mut c, points, f, st::color(k), name)?;
        }
        st::legend(&mut c, SeriesLabelPosition::MiddleRight)?;
        // Speedup with the ideal line.
        let smax = points.iter().map(|p| p.speedup).fold(pmax / pmin, f64::max);
        let smin = points.iter().map(|p| p.speedup).fold(1.0, f64::min);
        let ys = (smin / 1.5)..(smax * 1.5);
        let y_ticks =
            st::distinct_labels(&st::log_ticks(ys.start, ys.end, &[], false), st::fmt_number);
        let mut c = panel(&panels[1], "speedup", &xs, ys, y_ticks)?;
        st::mesh(&mut c.configure_mesh())
            .x_desc("ranks")
            .y_desc(format!("speedup over {pmin:.0} ranks"))
            .x_label_formatter(&|v| st::fmt_number(*v))
            .y_label_formatter(&|v| st::fmt_number(*v))
            .draw()
            .map_err(|e| err(&e))?;
        c.draw_series(LineSeries::new(
            vec![(pmin, 1.0), (pmax, pmax / pmin)],
            st::NEUTRAL,
        ))
        .map_err(|e| err(&e))?
        .label("ideal")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], st::NEUTRAL));
        line(&mut c, points, |p| p.speedup, st::color(0), "predicted")?;
        st::legend(&mut c, SeriesLabelPosition::UpperLeft)?;
        // Efficiency and the share in MPI, in percent.
        percent_panel(&panels[2], "efficiency", points, |p| p.efficiency, &xs)?;
        percent_panel(
            &panels[3],
            "share of the run in MPI calls",
            points,
            |p| p.mpi_share,
            &xs,
        )?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(out)
}

/// The rank axis shared by the panels: its range and its ticks (the counts).
struct Axis {
    range: std::ops::Range<f64>,
    ticks: Vec<f64>,
}

/// A chart with log axes both ways.
type LogY<'a, 'b> = crate::figure_style::LogLog<'a, 'b>;

/// A panel with the ranks across and a logarithmic y axis ticked at `y_ticks`.
fn panel<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    caption: &str,
    xs: &Axis,
    ys: std::ops::Range<f64>,
    y_ticks: Vec<f64>,
) -> Result<LogY<'a, 'b>, String> {
    panel_builder(area, caption)
        .build_cartesian_2d(
            xs.range
                .clone()
                .log_scale()
                .with_key_points(xs.ticks.clone()),
            ys.log_scale().with_key_points(y_ticks),
        )
        .map_err(|e| e.to_string())
}

/// A panel's chart builder: its caption, margins and label areas.
fn panel_builder<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    caption: &str,
) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    use crate::figure_style as st;
    let mut b = ChartBuilder::on(area);
    b.caption(caption, (st::FONT, st::PANEL))
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(80);
    b
}

/// `f` of each point as a line with its points, named in the legend.
fn line(
    c: &mut LogY<'_, '_>,
    points: &[SweepPoint],
    f: fn(&SweepPoint) -> f64,
    color: RGBColor,
    name: &str,
) -> Result<(), String> {
    let xy: Vec<(f64, f64)> = points
        .iter()
        .map(|p| (f64::from(p.ranks), f(p).max(1e-300)))
        .collect();
    c.draw_series(LineSeries::new(xy.clone(), color.stroke_width(3)))
        .map_err(|e| e.to_string())?
        .label(name)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], color.stroke_width(3)));
    c.draw_series(xy.into_iter().map(|p| Circle::new(p, 5, color.filled())))
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// A panel of `f` of each point in percent, 0 to above the largest (at least 100%).
fn percent_panel(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    caption: &str,
    points: &[SweepPoint],
    f: fn(&SweepPoint) -> f64,
    xs: &Axis,
) -> Result<(), String> {
    use crate::figure_style as st;
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let top = points.iter().map(f).fold(1.0, f64::max) * 110.0;
    let mut c = panel_builder(area, caption)
        .build_cartesian_2d(
            xs.range
                .clone()
                .log_scale()
                .with_key_points(xs.ticks.clone()),
            0.0..top,
        )
        .map_err(|e| err(&e))?;
    st::mesh(&mut c.configure_mesh())
        .x_desc("ranks")
        .y_desc("%")
        .y_labels(6)
        .x_label_formatter(&|v| st::fmt_number(*v))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .map_err(|e| err(&e))?;
    let xy: Vec<(f64, f64)> = points
        .iter()
        .map(|p| (f64::from(p.ranks), 100.0 * f(p)))
        .collect();
    let color = st::color(0);
    c.draw_series(LineSeries::new(xy.clone(), color.stroke_width(3)))
        .map_err(|e| err(&e))?;
    c.draw_series(xy.into_iter().map(|p| Circle::new(p, 5, color.filled())))
        .map_err(|e| err(&e))?;
    Ok(())
}
