//! `augur predict --at`: a scalable profile (`augur analyze --scale`) priced at a size
//! never run, or over a range of sizes with its figure.

use anyhow::{bail, Context, Result};
use augur_model::{LoadedMachine, PredictOptions};
use augur_program::scaling::{model_shares, profile_at};
use augur_program_profile::ProgramProfile;
use plotters::prelude::*;
use std::fmt::Write as _;
use std::path::Path;

/// Where to predict: one value of the scale variable, or a range.
#[derive(Debug, Clone, PartialEq)]
pub struct At {
    /// The variable's name.
    pub symbol: String,
    /// First value (the only one unless a range).
    pub from: i64,
    /// Last value of a range.
    pub to: Option<i64>,
}

impl At {
    /// Parses `n=1024` or `n=64..4096`.
    pub fn parse(text: &str) -> Result<At> {
        let Some((name, value)) = text.split_once('=') else {
            bail!("--at {text}: write NAME=VALUE (n=1024) or NAME=FROM..TO (n=64..4096)");
        };
        let int = |s: &str| -> Result<i64> {
            let v: i64 = s
                .trim()
                .parse()
                .with_context(|| format!("--at {text}: `{s}` is not an integer"))?;
            if v < 2 {
                bail!("--at {text}: sizes must be at least 2");
            }
            Ok(v)
        };
        let (from, to) = match value.split_once("..") {
            Some((a, b)) => (int(a)?, Some(int(b)?)),
            None => (int(value)?, None),
        };
        if to.is_some_and(|t| t <= from) {
            bail!("--at {text}: the range must go up (FROM < TO)");
        }
        Ok(At {
            symbol: name.trim().to_string(),
            from,
            to,
        })
    }

    /// The sizes of a sweep: about a dozen, evenly spaced on a log scale, ends included.
    pub fn points(&self) -> Vec<i64> {
        let Some(to) = self.to else {
            return vec![self.from];
        };
        let (a, b) = ((self.from as f64).ln(), (to as f64).ln());
        let mut v: Vec<i64> = (0..=12)
            .map(|k| (a + (b - a) * k as f64 / 12.0).exp().round() as i64)
            .collect();
        v.dedup();
        v
    }
}

/// The profile at `at.from`, checked to scale with `at.symbol`.
pub fn profile_at_size(
    profile: &ProgramProfile,
    path: &Path,
    at: &At,
    x: i64,
) -> Result<ProgramProfile> {
    let Some(sc) = &profile.scaling else {
        bail!(
            "{}: analyzed at one size only; analyze with --scale {}=V1,V2,V3 to predict at other sizes",
            path.display(),
            at.symbol
        );
    };
    if sc.symbol != at.symbol {
        bail!(
            "--at {}=...: {} scales with `{}`; write --at {}=VALUE",
            at.symbol,
            path.display(),
            sc.symbol,
            sc.symbol
        );
    }
    let work = spinner(format!("computing the profile at {}={x}", at.symbol));
    let p =
        profile_at(profile, x).with_context(|| format!("{}: at {}={x}", path.display(), at.symbol));
    work.finish_and_clear();
    p
}

/// A spinner with the elapsed time on standard error, drawn only on a terminal: a step
/// that may take seconds says what it is doing.
fn spinner(what: String) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new_spinner();
    if let Ok(style) = indicatif::ProgressStyle::with_template("augur: {msg} {spinner} {elapsed}") {
        bar.set_style(style);
    }
    bar.set_message(what);
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

/// One line on the models behind a profile at a size: `exact 62% of operations (40
/// blocks), fitted 3% (5)`.
pub fn models_line(profile: &ProgramProfile) -> String {
    model_shares(profile)
        .iter()
        .filter(|r| r.1 > 0)
        .map(|(k, n, share)| format!("{k} {} of operations ({n} blocks)", fmt_share(*share)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One size of a sweep: the value, and per machine the time with its 90% interval.
type SweepRow = (i64, Vec<(f64, f64, f64)>);

/// The body of `augur predict PROFILE --at NAME=FROM..TO --json`.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct SweepJson<'a> {
    /// The program profile swept (analyzed with --scale).
    profile: String,
    /// The scale variable's name (`n`).
    symbol: &'a str,
    /// The sizes it was analyzed (counted) at.
    analyzed: Vec<i64>,
    /// The machines, in the order given; each size's `predictions` follow it.
    machines: Vec<&'a str>,
    /// One entry per size, smallest first.
    sizes: Vec<SweepSize>,
    /// The figure written with --plot, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    figure: Option<String>,
}

/// One size of a sweep.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct SweepSize {
    /// The scale variable's value.
    value: i64,
    /// Per machine (in the order of `machines`), the predicted time.
    predictions: Vec<SweepPrediction>,
    /// The models behind the profile at this size: per kind (`exact`, `fitted`, ...)
    /// the blocks and their share of the operations; kinds with no block left out.
    models: Vec<SweepModel>,
}

/// One machine's prediction at one size.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct SweepPrediction {
    /// The machine's name.
    machine: String,
    /// The predicted time, in seconds.
    seconds: f64,
    /// The 90% interval's lower bound, in seconds.
    low: f64,
    /// The 90% interval's upper bound, in seconds.
    high: f64,
}

/// One kind of model behind a profile at a size.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct SweepModel {
    /// The kind of model (`exact`, `fitted`, ...).
    kind: String,
    /// The blocks modeled so.
    blocks: usize,
    /// Their share of the operations, from 0 to 1.
    share: f64,
}

/// Measured times to mark on the figure: `SIZE=SECONDS` pairs, comma-separated
/// (`900=0.31,1200=0.74`).
pub fn parse_measured(text: &str) -> Result<Vec<(i64, f64)>> {
    text.split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|p| {
            let (x, t) = p
                .split_once('=')
                .with_context(|| format!("--measured {p}: write SIZE=SECONDS, e.g. 900=0.31"))?;
            let x: i64 = x
                .trim()
                .parse()
                .with_context(|| format!("--measured {p}: `{x}` is not a size"))?;
            let t: f64 = t
                .trim()
                .parse()
                .with_context(|| format!("--measured {p}: `{t}` is not seconds"))?;
            if !(t > 0.0 && t.is_finite()) {
                bail!("--measured {p}: the time must be positive seconds");
            }
            Ok((x, t))
        })
        .collect()
}

/// What a size sweep was given besides the profile and the machines.
pub struct SweepArgs<'a> {
    /// The range of sizes.
    pub at: &'a At,
    /// The figure's file (`--plot`).
    pub plot: Option<&'a Path>,
    /// Measured times to mark on the figure.
    pub measured: &'a [(i64, f64)],
    /// JSON instead of text.
    pub json: bool,
    /// Draw the figure for a report too (`--report`).
    pub draw: bool,
}

/// `augur predict PROFILE --at n=FROM..TO [--plot FILE]`: the predicted time on each
/// machine at each size, and the figure (with the measured times marked); what it prints
/// and its section of a report.
pub fn sweep(
    path: &Path,
    machines: &[LoadedMachine],
    options: PredictOptions,
    args: &SweepArgs<'_>,
) -> Result<crate::report::Beside> {
    let at = args.at;
    let profile = ProgramProfile::read(path)?;
    let sizes = at
        .points()
        .into_iter()
        .map(|x| size_at(&profile, path, at, x, machines, options))
        .collect::<Result<Vec<SweepSize>>>()?;
    let analyzed = profile
        .scaling
        .as_ref()
        .map(|s| s.values.clone())
        .unwrap_or_default();
    let names: Vec<&str> = machines.iter().map(|m| m.name.as_str()).collect();
    let tables = sweep_table(&path.display().to_string(), at, &names, &sizes)
        + &models_summary(&at.symbol, &analyzed, &sizes);
    let mut printed = tables.clone();
    let mut figures = crate::report::Figures::new(args.draw);
    let rows: Vec<SweepRow> = sizes.iter().map(SweepSize::row).collect();
    let marks = Marks::of(
        &profile,
        path,
        &at.symbol,
        machines,
        &analyzed,
        args.measured,
    );
    let caption = format!(
        "Predicted time against {} on each machine, with its 90% interval",
        at.symbol
    );
    if let Some(file) = figures.add(args.plot, caption, || figure(&at.symbol, &rows, &marks))? {
        writeln!(printed, "figure written to {}", file.display())?;
    }
    if args.json {
        let doc = crate::schemas::Document::new(
            "augur-size-sweep",
            SweepJson {
                profile: path.display().to_string(),
                symbol: &at.symbol,
                analyzed,
                machines: names,
                sizes,
                figure: args.plot.map(|f| f.display().to_string()),
            },
        );
        printed = serde_json::to_string_pretty(&doc)? + "\n";
    }
    let section = sweep_section(&profile, path, at, tables, figures.drawn);
    Ok(crate::report::Beside { printed, section })
}

/// The section of a sweep's report: its table and figure, and what the rest of the page
/// is: the prediction at the size the profile describes (counted, or computed when it
/// was extrapolated), with how to get it at another size.
fn sweep_section(
    profile: &ProgramProfile,
    path: &Path,
    at: &At,
    text: String,
    figures: Vec<crate::figure_style::Drawn>,
) -> crate::report::Section {
    let symbol = &at.symbol;
    let lead = profile.scaling.as_ref().map_or_else(String::new, |sc| {
        let how = if sc.extrapolated {
            "the size the profile was computed at"
        } else {
            "the largest counting run, the size the profile describes"
        };
        format!(
            "The predicted time above and the breakdowns below are at {symbol} = {} ({how}); `augur predict {} --at {symbol}=VALUE --report FILE.html` writes them at another size.",
            sc.profile_value,
            path.display()
        )
    });
    crate::report::Section {
        id: "sweep".into(),
        title: format!(
            "Size sweep: {symbol} from {} to {}",
            at.from,
            at.to.unwrap_or(at.from)
        ),
        lead,
        text,
        figures,
    }
}

/// The profile at size `x` priced on each machine, with the models behind its counts.
fn size_at(
    profile: &ProgramProfile,
    path: &Path,
    at: &At,
    x: i64,
    machines: &[LoadedMachine],
    options: PredictOptions,
) -> Result<SweepSize> {
    let p = profile_at_size(profile, path, at, x)?;
    let predictions = machines
        .iter()
        .map(|m| {
            let pr = m.predict(&p, options);
            SweepPrediction {
                machine: m.name.clone(),
                seconds: pr.total.seconds,
                low: pr.interval.low,
                high: pr.interval.high,
            }
        })
        .collect();
    let models = model_shares(&p)
        .iter()
        .filter(|r| r.1 > 0)
        .map(|(k, n, share)| SweepModel {
            kind: k.to_string(),
            blocks: *n,
            share: *share,
        })
        .collect();
    Ok(SweepSize {
        value: x,
        predictions,
        models,
    })
}

impl SweepSize {
    /// The size and each machine's (time, low, high), as the figure draws them.
    fn row(&self) -> SweepRow {
        let times = self.predictions.iter();
        (
            self.value,
            times.map(|p| (p.seconds, p.low, p.high)).collect(),
        )
    }
}

/// Width of one machine's cell in the sweep's table: the time, then its interval.
const CELL: usize = 10 + 2 + 30;

/// The sweep's table: a title saying what the numbers are, the machines over their
/// columns, then one short row per size (the time and its 90% interval per machine).
fn sweep_table(profile: &str, at: &At, machines: &[&str], sizes: &[SweepSize]) -> String {
    let mut out = format!(
        "predicted time of {profile} against {}, with its 90% interval (×F: F times smaller to F times larger):\n",
        at.symbol
    );
    // Each machine's cell is as wide as its name (whole, never cut) when that is wider
    // than the time and interval; the interval takes the extra width.
    let intervals: Vec<usize> = machines
        .iter()
        .map(|m| m.chars().count().max(CELL) - 12)
        .collect();
    let mut names = format!("{:>10}", "");
    let mut columns = format!("{:>10}", at.symbol);
    for (m, w) in machines.iter().zip(&intervals) {
        let _ = write!(names, "  {m:>width$}", width = w + 12);
        let _ = write!(columns, "  {:>10}  {:>w$}", "time", "90% interval");
    }
    for line in [names, columns] {
        let _ = writeln!(out, "{}", line.trim_end());
    }
    for s in sizes {
        let mut line = format!("{:>10}", s.value);
        for (p, w) in s.predictions.iter().zip(&intervals) {
            let _ = write!(
                line,
                "  {:>10}  {:>w$}",
                crate::predict::fmt_seconds(p.seconds),
                crate::predict::fmt_interval_ends(p.low, p.high)
            );
        }
        let _ = writeln!(out, "{line}");
    }
    out
}

/// Said once below the sweep's table: where the counts at each size come from (each
/// block's model in the scale variable, made from the counting runs at `analyzed`),
/// each kind of model with its share of the operations at the first and the last size.
fn models_summary(symbol: &str, analyzed: &[i64], sizes: &[SweepSize]) -> String {
    let (Some(first), Some(last)) = (sizes.first(), sizes.last()) else {
        return String::new();
    };
    let runs: Vec<String> = analyzed.iter().map(|v| v.to_string()).collect();
    let (lo, hi) = (analyzed.iter().min(), analyzed.iter().max());
    let beyond = sizes
        .iter()
        .any(|s| lo.is_some_and(|l| s.value < *l) || hi.is_some_and(|h| s.value > *h));
    let mut out = format!(
        "\nwhere the counts come from: each block's model of its executions in {symbol}, made from the counting runs at {symbol} = {}{}\n",
        runs.join(", "),
        if beyond { " (sizes outside them extrapolated)" } else { "" }
    );
    let (a, b) = (
        format!("% ops at {symbol}={}", first.value),
        format!("at {symbol}={}", last.value),
    );
    let _ = writeln!(
        out,
        "  {:<10}  {a}  {b}  {:>6}  what it is",
        "model", "blocks"
    );
    for m in &first.models {
        let at_last = last.models.iter().find(|l| l.kind == m.kind);
        let _ = writeln!(
            out,
            "  {:<10}  {:>aw$}  {:>bw$}  {:>6}  {}",
            m.kind,
            fmt_share(m.share),
            at_last.map_or("-".to_string(), |l| fmt_share(l.share)),
            m.blocks,
            model_meaning(&m.kind, symbol),
            aw = a.len(),
            bw = b.len()
        );
    }
    out
}

/// A share of the operations as a percentage; a share that is not zero never prints as
/// `0.0%`.
fn fmt_share(share: f64) -> String {
    if share > 0.0 && share < 0.0005 {
        "<0.1%".to_string()
    } else {
        format!("{:.1}%", 100.0 * share)
    }
}

/// What a kind of count model is, in a few words.
fn model_meaning(kind: &str, symbol: &str) -> String {
    match kind {
        "exact" => "a symbolic sum over the block's DO nest".to_string(),
        "constant" => "the same count at every counting run".to_string(),
        "polynomial" => format!("a polynomial in {symbol} through every counting run"),
        "share" => "a fixed share of its loop's iterations (a branch on data)".to_string(),
        "fitted" => "a power law fitted to the counting runs: least sure far from them".to_string(),
        _ => String::new(),
    }
}

/// What the figure names and marks besides the curves.
struct Marks<'a> {
    /// The title (what, the program, the machines).
    title: String,
    /// Each machine's legend entry, in the order of the rows' times.
    machines: Vec<String>,
    /// Sizes counted (on the axis).
    analyzed: &'a [i64],
    /// Measured times.
    measured: &'a [(i64, f64)],
}

impl<'a> Marks<'a> {
    /// The marks of `profile`'s sweep (read from `path`) along `symbol` on `machines`.
    fn of(
        profile: &ProgramProfile,
        path: &Path,
        symbol: &str,
        machines: &[LoadedMachine],
        analyzed: &'a [i64],
        measured: &'a [(i64, f64)],
    ) -> Marks<'a> {
        let names: Vec<String> = machines.iter().map(|m| m.name.clone()).collect();
        Marks {
            title: crate::figure_style::title(
                &format!("Predicted time against {symbol}"),
                &crate::figure_style::program_name(profile, path),
                &crate::figure_style::machines_name(&names),
            ),
            machines: machines
                .iter()
                .map(crate::figure_style::machine_label)
                .collect(),
            analyzed,
            measured,
        }
    }
}

/// Predicted time against the size, log-log, one curve (with its interval) per machine,
/// the analyzed sizes marked on the axis and measured times as points.
fn figure(symbol: &str, rows: &[SweepRow], marks: &Marks<'_>) -> Result<String, String> {
    use crate::figure_style as st;
    let (analyzed, measured) = (marks.analyzed, marks.measured);
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (900, 600)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let xs: Vec<f64> = rows
            .iter()
            .map(|r| r.0 as f64)
            .chain(analyzed.iter().map(|v| *v as f64))
            .chain(measured.iter().map(|m| m.0 as f64))
            .collect();
        let (xlo, xhi) = xs
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(a, b), x| (a.min(*x), b.max(*x)));
        let ys = rows
            .iter()
            .flat_map(|r| r.1.iter().flat_map(|t| [t.1, t.2]))
            .chain(measured.iter().map(|m| m.1));
        let (ylo, yhi) = ys
            .filter(|y| *y > 0.0)
            .fold((f64::INFINITY, 0.0f64), |(a, b), y| (a.min(y), b.max(y)));
        if !ylo.is_finite() || !xlo.is_finite() {
            return Err("nothing to draw: no positive prediction".into());
        }
        let (x0, x1) = (xlo * 0.8, xhi * 1.25);
        let (y0, y1) = (ylo * 0.5, yhi * 2.0);
        let label = |x: f64| st::fmt_number(x);
        let x_ticks = st::distinct_labels(&st::log_ticks(x0, x1, &xs, true), label);
        let y_ticks = st::distinct_labels(&st::log_ticks(y0, y1, &[], false), st::fmt_time);
        let mut chart = ChartBuilder::on(&root)
            .caption(&marks.title, (st::FONT, st::TITLE))
            .margin(15)
            .x_label_area_size(55)
            .y_label_area_size(95)
            .build_cartesian_2d(
                (x0..x1).log_scale().with_key_points(x_ticks),
                (y0..y1).log_scale().with_key_points(y_ticks),
            )
            .map_err(|e| e.to_string())?;
        st::mesh(&mut chart.configure_mesh())
            .x_desc(symbol)
            .y_desc("predicted time")
            .x_label_formatter(&|v| st::fmt_number(*v))
            .y_label_formatter(&|v| st::fmt_time(*v))
            .draw()
            .map_err(|e| e.to_string())?;
        for (k, name) in marks.machines.iter().enumerate() {
            let color = st::color(k);
            let band: Vec<(f64, f64)> = rows
                .iter()
                .map(|r| (r.0 as f64, r.1[k].2))
                .chain(rows.iter().rev().map(|r| (r.0 as f64, r.1[k].1)))
                .collect();
            chart
                .draw_series(std::iter::once(Polygon::new(band, color.mix(0.12))))
                .map_err(|e| e.to_string())?;
            // The interval's edges, so overlapping bands stay apart.
            for edge in [2, 1] {
                let e: Vec<(f64, f64)> = rows
                    .iter()
                    .map(|r| (r.0 as f64, if edge == 2 { r.1[k].2 } else { r.1[k].1 }))
                    .collect();
                chart
                    .draw_series(LineSeries::new(e, color.mix(0.45).stroke_width(1)))
                    .map_err(|e| e.to_string())?;
            }
            let line: Vec<(f64, f64)> = rows.iter().map(|r| (r.0 as f64, r.1[k].0)).collect();
            chart
                .draw_series(LineSeries::new(line, color.stroke_width(3)))
                .map_err(|e| e.to_string())?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 22, y)], color.stroke_width(3))
                });
        }
        // One entry for the bands (each in its curve's colour).
        chart
            .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
            .map_err(|e| e.to_string())?
            .label("90% interval (shaded)")
            .legend(|(x, y)| {
                Rectangle::new(
                    [(x, y - 6), (x + 22, y + 6)],
                    st::NEUTRAL.mix(0.25).filled(),
                )
            });
        let triangles = analyzed
            .iter()
            .map(|v| TriangleMarker::new((*v as f64, ylo * 0.6), 8, st::NEUTRAL.filled()));
        chart
            .draw_series(triangles)
            .map_err(|e| e.to_string())?
            .label("analyzed (counting runs)")
            .legend(|(x, y)| TriangleMarker::new((x + 11, y), 7, st::NEUTRAL.filled()));
        if !measured.is_empty() {
            let points = measured
                .iter()
                .map(|(x, t)| Circle::new((*x as f64, *t), 6, BLACK.filled()));
            chart
                .draw_series(points)
                .map_err(|e| e.to_string())?
                .label("measured")
                .legend(|(x, y)| Circle::new((x + 11, y), 5, BLACK.filled()));
        }
        st::legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_sweeps_span_the_range() {
        let at = At::parse("n=64..4096").unwrap();
        let p = at.points();
        assert_eq!((p[0], *p.last().unwrap()), (64, 4096));
        assert!(p.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(At::parse("n=1024").unwrap().points(), vec![1024]);
        assert!(At::parse("n=4096..64").is_err());
        assert!(At::parse("1024").is_err());
        assert!(At::parse("n=x").is_err());
    }

    /// A size of a sweep on two machines, with two kinds of count model.
    fn size(value: i64, fitted: f64) -> SweepSize {
        let prediction = |machine: &str, seconds: f64| SweepPrediction {
            machine: machine.to_string(),
            seconds,
            low: seconds / 1.3,
            high: seconds * 1.3,
        };
        let model = |kind: &str, blocks: usize, share: f64| SweepModel {
            kind: kind.to_string(),
            blocks,
            share,
        };
        SweepSize {
            value,
            predictions: vec![
                prediction("fast", 1e-4 * value as f64),
                prediction("slow", 1e-2),
            ],
            models: vec![model("exact", 11, 1.0 - fitted), model("fitted", 2, fitted)],
        }
    }

    #[test]
    fn a_sweep_says_its_models_once_below_short_rows() {
        let at = At::parse("n=64..1024").unwrap();
        let sizes: Vec<SweepSize> = [64, 256, 1024].map(|x| size(x, 0.02)).into();
        let mut sizes = sizes;
        sizes[2].models[1].share = 0.0001;
        let table = sweep_table("mm.json", &at, &["fast", "slow"], &sizes);
        let text = table.clone() + &models_summary("n", &[64, 96, 128], &sizes);
        let rows: Vec<&str> = table.lines().skip(3).collect();
        assert_eq!(rows.len(), 3, "{text}");
        for row in &rows {
            assert!(
                row.chars().count() <= 10 + 2 * (2 + CELL),
                "a long row: {row}\n{text}"
            );
            assert!(
                !row.contains("exact") && !row.contains("operations"),
                "{text}"
            );
        }
        assert!(
            rows[1].contains("25.600 ms") && rows[1].contains("×1.30"),
            "{text}"
        );
        assert_eq!(text.matches("symbolic sum").count(), 1, "{text}");
        assert_eq!(text.matches("power law").count(), 1, "{text}");
        assert!(text.contains("(sizes outside them extrapolated)"), "{text}");
        let fitted = text.lines().find(|l| l.trim_start().starts_with("fitted"));
        let fitted = fitted.unwrap_or_else(|| panic!("{text}"));
        assert!(
            fitted.contains("2.0%") && fitted.contains("<0.1%"),
            "{fitted}"
        );
        // The time column lines up under its header, whatever the units.
        let header = table.lines().nth(2).unwrap();
        let end = header.find("time").unwrap() + 4;
        assert!(rows.iter().all(|r| r[..end].ends_with('s')), "{text}");
    }
}
