//! `augur report`: one self-contained HTML page of a prediction a user opens in a
//! browser: the prediction with its interval on each machine, where the time goes by
//! loop, procedure, line and AbOp (sortable tables, the machines side by side), the
//! source with each line's share as a heat strip, the memory term by nest, what the
//! compiler did to the hot loops, the risk flags and the warnings. No network, no
//! external script or style: the page works from a file.

use crate::predict::{fmt_seconds, short_path};
use augur_model::breakdown::PartRow;
use augur_model::machine::LoadedMachine;
use augur_model::Prediction;
use augur_program_profile::ProgramProfile;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// Rows kept per table (the largest first); `augur predict --json` has them all.
const ROWS: usize = 200;

/// Lines around each hot line shown in the source view.
const CONTEXT: u32 = 2;

/// A line whose share of the time reaches this is hot in the source view.
const HOT_SHARE: f64 = 0.001;

/// What one report shows: a program profile predicted on one or more machines.
pub struct ReportInput<'a> {
    /// The profile's file.
    pub profile_path: &'a Path,
    /// The profile.
    pub profile: &'a ProgramProfile,
    /// The machines, in the order given.
    pub machines: &'a [LoadedMachine],
    /// One prediction per machine, in the same order.
    pub predictions: &'a [Prediction],
    /// Warnings about the inputs (changed sources, notes).
    pub warnings: &'a [String],
    /// What the page adds to the sequential prediction: the measured time, the parallel
    /// or sweep predictions made with it.
    pub extras: &'a Extras,
}

/// What a report adds to the sequential prediction of its profile.
#[derive(Default)]
pub struct Extras {
    /// The time measured on the first machine (`augur validate --report`).
    pub measured: Option<Measured>,
    /// Predictions made beside the sequential one (`predict --report` with `--threads`,
    /// `--mpi-ranks`, `--procs` or `--at NAME=FROM..TO`), each a section after the
    /// predicted time.
    pub sections: Vec<Section>,
}

/// A section of the report made by another kind of prediction: its text table as
/// printed and its figures inline.
pub struct Section {
    /// The anchor of the section.
    pub id: String,
    /// Its heading.
    pub title: String,
    /// A sentence under the heading: what the rest of the page (the sequential
    /// prediction) is beside this section.
    pub lead: String,
    /// The table as the command printed it.
    pub text: String,
    /// Its figures (SVG documents), each with a caption.
    pub figures: Vec<crate::figure_style::Drawn>,
}

/// What a prediction made beside the sequential one (thread counts, rank counts, a
/// size sweep) prints, and its section of a report.
pub struct Beside {
    /// What the command prints: its tables, or the JSON document.
    pub printed: String,
    /// Its section of the report (figures in it only when drawn for one).
    pub section: Section,
}

/// The figures of a prediction: each written to its file when one is given (`--plot`,
/// `--gantt`) and kept for the report when there is one, drawn only if either wants it.
pub struct Figures {
    /// Whether a report wants them.
    report: bool,
    /// Those kept for the report.
    pub drawn: Vec<crate::figure_style::Drawn>,
}

impl Figures {
    /// No figure yet; those added kept when `report`.
    pub fn new(report: bool) -> Figures {
        Figures {
            report,
            drawn: vec![],
        }
    }

    /// Draws a figure (`make`: its SVG) if `file` or the report wants it, writes it to
    /// `file` and keeps it with its `caption`; the file when written.
    pub fn add<'p>(
        &mut self,
        file: Option<&'p Path>,
        caption: impl Into<String>,
        make: impl FnOnce() -> Result<String, String>,
    ) -> anyhow::Result<Option<&'p Path>> {
        if file.is_none() && !self.report {
            return Ok(None);
        }
        let svg = make().map_err(anyhow::Error::msg)?;
        if let Some(path) = file {
            crate::figure_style::write_figure(path, &svg)?;
        }
        if self.report {
            self.drawn.push(crate::figure_style::Drawn {
                caption: caption.into(),
                svg,
            });
        }
        Ok(file)
    }
}

/// A validation's measured time, shown beside the prediction on the first machine.
pub struct Measured {
    /// The median CPU time of the timed runs, seconds.
    pub seconds: f64,
    /// How many runs were timed.
    pub runs: usize,
    /// Their spread, (max - min) / median.
    pub spread: f64,
    /// How the program was built (compiler and flags).
    pub build: String,
}

/// The report as one HTML document.
pub fn html(r: &ReportInput) -> String {
    let name = r
        .profile_path
        .file_name()
        .map_or_else(String::new, |s| s.to_string_lossy().to_string());
    let program = name
        .trim_end_matches(".json")
        .trim_end_matches(".profile")
        .to_string();
    let title = format!("augur report: {program}");
    let mut body = String::new();
    body.push_str(&header(r, &title));
    body.push_str(&summary(r));
    for x in &r.extras.sections {
        body.push_str(&extra_section(x));
    }
    body.push_str(&parts_section(
        "loops",
        "Loops (nested loops included)",
        r,
        |p| &p.loops,
    ));
    body.push_str(&parts_section("procedures", "Procedures", r, |p| {
        &p.procedures
    }));
    body.push_str(&parts_section("lines", "Lines", r, |p| &p.lines));
    body.push_str(&abop_section(r));
    body.push_str(&source_section(r));
    body.push_str(&memory_section(r));
    body.push_str(&compiler_section(r));
    body.push_str(&risk_section(r));
    body.push_str(&warning_section(r));
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}<script>{SCRIPT}</script>\n</body>\n</html>\n",
        esc(&title)
    )
}

/// A section of another kind of prediction: its table as printed, its figures inline
/// (the XML prologue of a figure file dropped: it may not stand inside HTML).
fn extra_section(x: &Section) -> String {
    let mut s = format!(
        "<section id=\"{}\"><h2>{}</h2>\n<p>{}</p>\n<pre class=\"table\">{}</pre>\n",
        esc(&x.id),
        esc(&x.title),
        prose(&x.lead),
        esc(x.text.trim_end())
    );
    for f in &x.figures {
        let svg = f.svg.find("<svg").map_or(f.svg.as_str(), |i| &f.svg[i..]);
        let _ = writeln!(
            s,
            "<figure class=\"inline\">{svg}<figcaption>{}</figcaption></figure>",
            esc(&f.caption)
        );
    }
    s.push_str("</section>\n");
    s
}

/// Text for HTML with each `quoted` command as code.
fn prose(s: &str) -> String {
    let mut out = String::new();
    for (k, part) in s.split('`').enumerate() {
        if k % 2 == 1 {
            let _ = write!(out, "<code>{}</code>", esc(part));
        } else {
            out.push_str(&esc(part));
        }
    }
    out
}

/// Escapes text for HTML.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// A percentage with one decimal.
fn pct(share: f64) -> String {
    format!("{:.1}%", 100.0 * share)
}

/// A table cell holding a number shown as `text`, sorted by `value`.
fn num(value: f64, text: &str) -> String {
    format!("<td class=\"n\" data-v=\"{value:e}\">{}</td>", esc(text))
}

/// The page's title, what was predicted, how and when.
fn header(r: &ReportInput, title: &str) -> String {
    let run = &r.profile.run;
    format!(
        "<header><h1>{}</h1><p>Program profile <code>{}</code>, counted with {} {} ({} counters, the counting run {}). Report of augur {} on {} UTC.</p></header>\n",
        esc(title),
        esc(&r.profile_path.display().to_string()),
        esc(&run.compiler),
        esc(&run.fflags.join(" ")),
        run.counters,
        esc(&fmt_seconds(run.wall_seconds)),
        env!("CARGO_PKG_VERSION"),
        augur_machine_profile::utc_now()
            .replace('T', " ")
            .get(..16)
            .unwrap_or_default()
    )
}

/// The prediction on each machine with its interval, as a table and a figure.
fn summary(r: &ReportInput) -> String {
    let mut s = String::from("<section id=\"summary\"><h2>Predicted time</h2>\n<table class=\"sortable\"><thead><tr><th>machine</th><th>CPU</th><th>compiler and flags</th><th>predicted</th><th>90% interval</th><th>factor either way</th><th>memory term</th><th>branch mispredictions</th></tr></thead><tbody>\n");
    for (m, p) in r.machines.iter().zip(r.predictions) {
        let prov = &m.profile.provenance;
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{} {}</td>{}<td>{} .. {}</td>{}{}{}</tr>",
            esc(&m.name),
            esc(&prov.cpu_model),
            esc(&prov.compiler),
            esc(&prov.fflags),
            num(p.total.seconds, &fmt_seconds(p.total.seconds)),
            esc(&fmt_seconds(p.interval.low)),
            esc(&fmt_seconds(p.interval.high)),
            num(p.interval.factor(), &format!("×{:.2}", p.interval.factor())),
            num(p.memory_seconds, &fmt_seconds(p.memory_seconds)),
            num(p.branch_seconds, &fmt_seconds(p.branch_seconds)),
        );
    }
    s.push_str("</tbody></table>\n");
    if let (Some(t), Some(p)) = (&r.extras.measured, r.predictions.first()) {
        let error = (p.total.seconds - t.seconds) / t.seconds;
        let _ = writeln!(
            s,
            "<p class=\"measured\">Measured on this machine (built with {}): {} (CPU time, median of {} run(s), spread {:.1}%); the prediction is off by {:+.1}%, {} the 90% interval.</p>",
            esc(&t.build),
            esc(&fmt_seconds(t.seconds)),
            t.runs,
            100.0 * t.spread,
            100.0 * error,
            if p.interval.contains(t.seconds) { "inside" } else { "outside" }
        );
    }
    for (m, p) in r.machines.iter().zip(r.predictions) {
        if let Some(w) = &p.widest_parameter {
            let _ = writeln!(
                s,
                "<p class=\"note\">On {}: {}.</p>",
                esc(&m.name),
                esc(&crate::predict::widest_text(w, &m.path))
            );
        }
    }
    s.push_str("<p class=\"note\">The interval is where the run's time falls 9 times in 10: the model's error on real programs of the same kind (wider where calls and mispredicted branches take the time), the machine parameters' uncertainty, the counts' and, on a last cache level other guests share, what half that share would add (docs/FORMATS.md).</p>\n");
    s.push_str(&interval_figure(r));
    s.push_str("</section>\n");
    s
}

/// Each machine's prediction as a horizontal bar with its interval as a whisker (SVG).
fn interval_figure(r: &ReportInput) -> String {
    let (w, row, left, right) = (960.0, 34.0, 260.0, 290.0);
    let h = 40.0 + row * r.predictions.len() as f64 + 30.0;
    let top = r
        .predictions
        .iter()
        .map(|p| p.interval.high.max(p.total.seconds))
        .fold(0.0, f64::max)
        .max(f64::MIN_POSITIVE);
    let x = |t: f64| left + (w - left - right) * t / top;
    let mut s = format!(
        "<figure><svg class=\"fig\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\"><title>Predicted time of {} on each machine, with its 90% interval</title>",
        esc(&short_path(&r.profile_path.display().to_string()))
    );
    for (i, (m, p)) in r.machines.iter().zip(r.predictions).enumerate() {
        let y = 30.0 + row * i as f64;
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"14\">{}</text>",
            left - 10.0,
            y + 17.0,
            esc(&crate::predict::truncate(&m.name, 34))
        );
        let _ = write!(
            s,
            "<rect x=\"{left}\" y=\"{}\" width=\"{:.1}\" height=\"20\" fill=\"#4c78a8\"/>",
            y + 4.0,
            x(p.total.seconds) - left
        );
        let (lo, hi) = (x(p.interval.low), x(p.interval.high));
        let mid = y + 14.0;
        let _ = write!(
            s,
            "<path d=\"M{lo:.1} {mid}H{hi:.1}M{lo:.1} {}V{}M{hi:.1} {}V{}\" stroke=\"#222\" stroke-width=\"1.5\" fill=\"none\"/>",
            mid - 6.0,
            mid + 6.0,
            mid - 6.0,
            mid + 6.0
        );
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" font-size=\"14\">{} ({} .. {})</text>",
            hi + 8.0,
            y + 17.0,
            esc(&fmt_seconds(p.total.seconds)),
            esc(&fmt_seconds(p.interval.low)),
            esc(&fmt_seconds(p.interval.high))
        );
    }
    let axis = h - 22.0;
    let _ = write!(
        s,
        "<text x=\"{left}\" y=\"{axis}\" font-size=\"13\" fill=\"#555\">0</text><text x=\"{:.1}\" y=\"{axis}\" font-size=\"13\" fill=\"#555\" text-anchor=\"end\">{}</text><text x=\"{}\" y=\"{}\" font-size=\"13\" fill=\"#555\">bar: predicted time; whisker: 90% interval</text>",
        x(top),
        esc(&fmt_seconds(top)),
        left,
        h - 4.0
    );
    s.push_str("</svg></figure>\n");
    s
}

/// One breakdown (loops, procedures or lines) with every machine's time side by side:
/// the rows of all machines by name, the largest on the first machine first.
fn parts_section(
    id: &str,
    title: &str,
    r: &ReportInput,
    rows_of: impl Fn(&Prediction) -> &Vec<PartRow>,
) -> String {
    let mut order: Vec<(String, &PartRow)> = vec![];
    let mut times: BTreeMap<String, Vec<Option<&PartRow>>> = BTreeMap::new();
    for (mi, p) in r.predictions.iter().enumerate() {
        for row in rows_of(p) {
            let key = format!("{}\u{1}{}\u{1}{}", row.name, row.file, row.first_line);
            let e = times
                .entry(key.clone())
                .or_insert_with(|| vec![None; r.predictions.len()]);
            if e.iter().all(Option::is_none) {
                order.push((key, row));
            }
            e[mi] = Some(row);
        }
    }
    order.sort_by(|a, b| {
        let t = |k: &str| {
            times[k]
                .iter()
                .flatten()
                .next()
                .map_or(0.0, |r| r.estimate.seconds)
        };
        t(&b.0).total_cmp(&t(&a.0))
    });
    if order.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "<section id=\"{id}\"><h2>{}</h2>\n<table class=\"sortable\"><thead><tr><th>what</th><th>where</th><th>executions</th><th>operations</th>",
        esc(title)
    );
    for m in r.machines {
        let _ = write!(
            s,
            "<th>time on {0}</th><th>% of time on {0}</th>",
            esc(&m.name)
        );
    }
    s.push_str("<th>top AbOp</th></tr></thead><tbody>\n");
    for (key, row) in order.iter().take(ROWS) {
        let where_ = if row.first_line == row.last_line || row.last_line == 0 {
            format!("{}:{}", short_path(&row.file), row.first_line)
        } else {
            format!(
                "{}:{}-{}",
                short_path(&row.file),
                row.first_line,
                row.last_line
            )
        };
        let execs = row.executions.unwrap_or(0.0);
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td>{}{}",
            esc(&row.name),
            esc(&where_),
            num(execs, &count_text(row)),
            num(row.operations, &count(row.operations)),
        );
        for m in &times[key] {
            match m {
                Some(m) => {
                    s.push_str(&num(m.estimate.seconds, &fmt_seconds(m.estimate.seconds)));
                    s.push_str(&num(m.time_share, &pct(m.time_share)));
                }
                None => s.push_str(
                    "<td class=\"n\" data-v=\"0\">-</td><td class=\"n\" data-v=\"0\">-</td>",
                ),
            }
        }
        let top = row
            .top_abop
            .map(|(op, share)| format!("{} {:.0}%", op.mnemonic(), 100.0 * share))
            .unwrap_or_default();
        let _ = writeln!(s, "<td>{}</td></tr>", esc(&top));
    }
    s.push_str("</tbody></table>\n");
    if order.len() > ROWS {
        let _ = writeln!(
            s,
            "<p class=\"note\">{} more rows: `augur predict --json` lists them all.</p>",
            order.len() - ROWS
        );
    }
    s.push_str("</section>\n");
    s
}

/// A row's executions as the text tables print them (`entries x trips` for a loop).
fn count_text(row: &PartRow) -> String {
    match (row.executions, row.mean_trips) {
        (Some(e), Some(t)) => format!("{} x {}", count(e), count(t)),
        (Some(e), None) => count(e),
        _ => "-".into(),
    }
}

/// A count: whole below 100,000 (one decimal when not whole), else three digits and an
/// exponent.
fn count(x: f64) -> String {
    if x >= 1e5 {
        format!("{x:.2e}")
    } else if (x - x.round()).abs() < 1e-9 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

/// Time by AbOp on each machine.
fn abop_section(r: &ReportInput) -> String {
    let mut s = String::from("<section id=\"abops\"><h2>Abstract operations</h2>\n");
    for (m, p) in r.machines.iter().zip(r.predictions) {
        let _ = writeln!(
            s,
            "<h3>on {}</h3><table class=\"sortable\"><thead><tr><th>AbOp</th><th>meaning</th><th>executions</th><th>cost (ns)</th><th>time</th><th>% of time</th><th>cost measured</th></tr></thead><tbody>",
            esc(&m.name)
        );
        let mut rows: Vec<_> = p.abops.iter().collect();
        rows.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
        for a in rows.iter().take(ROWS) {
            let _ = writeln!(
                s,
                "<tr><td>{}</td><td>{}</td>{}{}{}{}<td>{}</td></tr>",
                a.abop.mnemonic(),
                esc(a.meaning),
                num(a.executions, &count(a.executions)),
                num(a.cost_ns, &format!("{:.4}", a.cost_ns)),
                num(a.seconds, &fmt_seconds(a.seconds)),
                num(a.time_share, &pct(a.time_share)),
                esc(&format!("{:?}", a.status).to_lowercase())
            );
        }
        s.push_str("</tbody></table>\n");
    }
    s.push_str("</section>\n");
    s
}

/// The source of the files that take time, each hot line (and a few around it) with
/// its share of the first machine's time as a strip: the darker, the more.
fn source_section(r: &ReportInput) -> String {
    let Some(p) = r.predictions.first() else {
        return String::new();
    };
    let mut by_file: BTreeMap<&str, BTreeMap<u32, f64>> = BTreeMap::new();
    for row in &p.lines {
        *by_file
            .entry(row.file.as_str())
            .or_default()
            .entry(row.first_line)
            .or_default() += row.time_share;
    }
    let top = p.lines.iter().map(|l| l.time_share).fold(0.0, f64::max);
    let mut files: Vec<(&str, f64)> = by_file
        .iter()
        .map(|(f, l)| (*f, l.values().sum::<f64>()))
        .filter(|(_, share)| *share >= HOT_SHARE)
        .collect();
    files.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut s = format!(
        "<section id=\"source\"><h2>Source</h2>\n<p class=\"note\">Each line's share of the time on {} as a strip (the darkest: {}); lines below {} and far from a hot line are left out.</p>\n",
        esc(&r.machines[0].name),
        pct(top),
        pct(HOT_SHARE)
    );
    for (file, share) in files {
        let _ = writeln!(
            s,
            "<h3><code>{}</code>: {} of the time</h3>",
            esc(file),
            pct(share)
        );
        match read_source(file, r.profile_path) {
            Some(text) => s.push_str(&source_listing(&text, &by_file[file], top)),
            None => {
                let _ = writeln!(
                    s,
                    "<p class=\"note\">{} is not where the profile says (run the report from the directory of the analysis).</p>",
                    esc(file)
                );
            }
        }
    }
    s.push_str("</section>\n");
    s
}

/// A source file as analyzed: its path as the profile gives it, else beside the profile.
fn read_source(file: &str, profile: &Path) -> Option<String> {
    let direct = Path::new(file);
    let beside = profile
        .parent()
        .map(|d| d.join(direct.file_name().unwrap_or_default()));
    std::iter::once(direct.to_path_buf())
        .chain(beside)
        .find_map(|p| std::fs::read(p).ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// The hot lines of `text` (`shares` by line number) with their context, gaps elided.
fn source_listing(text: &str, shares: &BTreeMap<u32, f64>, top: f64) -> String {
    let hot: Vec<u32> = shares
        .iter()
        .filter(|(_, s)| **s >= HOT_SHARE)
        .map(|(l, _)| *l)
        .collect();
    let shown = |n: u32| hot.iter().any(|h| n + CONTEXT >= *h && n <= h + CONTEXT);
    let mut s = String::from("<pre class=\"src\">");
    let mut gap = false;
    for (i, line) in text.lines().enumerate() {
        let n = i as u32 + 1;
        if !shown(n) {
            gap = true;
            continue;
        }
        if gap {
            s.push_str("<span class=\"gap\">…</span>\n");
            gap = false;
        }
        let share = shares.get(&n).copied().unwrap_or(0.0);
        let alpha = if top > 0.0 { share / top } else { 0.0 };
        let _ = writeln!(
            s,
            "<span class=\"ln\">{n:>5}</span><span class=\"heat\" style=\"background:rgba(200,40,30,{alpha:.3})\" title=\"{}\"></span><span class=\"pc\">{}</span> {}",
            pct(share),
            if share >= 0.0005 { pct(share) } else { String::new() },
            esc(line)
        );
    }
    if gap {
        s.push_str("<span class=\"gap\">…</span>\n");
    }
    s.push_str("</pre>\n");
    s
}

/// The memory term by loop nest on each machine.
fn memory_section(r: &ReportInput) -> String {
    if r.predictions.iter().all(|p| p.memory.is_empty()) {
        return String::new();
    }
    let mut s = String::from("<section id=\"memory\"><h2>Memory hierarchy by loop nest</h2>\n<p class=\"note\">The time the caches and memory add to each nest's operations (nests without any left out), and the misses of each level.</p>\n");
    for (m, p) in r.machines.iter().zip(r.predictions) {
        let _ = writeln!(
            s,
            "<h3>on {}</h3><table class=\"sortable\"><thead><tr><th>nest</th><th>where</th><th>operations</th><th>memory</th><th>combined</th><th>misses per level</th></tr></thead><tbody>",
            esc(&m.name)
        );
        let mut rows: Vec<_> = p.memory.iter().filter(|n| n.memory_seconds > 0.0).collect();
        rows.sort_by(|a, b| b.memory_seconds.total_cmp(&a.memory_seconds));
        for n in rows.iter().take(ROWS) {
            let _ = writeln!(
                s,
                "<tr><td>{}</td><td>{}:{}</td>{}{}{}<td>{}</td></tr>",
                esc(&n.name),
                esc(&short_path(&n.file)),
                n.line,
                num(n.operations_seconds, &fmt_seconds(n.operations_seconds)),
                num(n.memory_seconds, &fmt_seconds(n.memory_seconds)),
                num(n.combined_seconds, &fmt_seconds(n.combined_seconds)),
                esc(&crate::predict::levels_text(&n.levels))
            );
        }
        s.push_str("</tbody></table>\n");
    }
    s.push_str("</section>\n");
    s
}

/// What the compiler did to each innermost loop whose assembly was read, per machine
/// that prices loops from their instructions.
fn compiler_section(r: &ReportInput) -> String {
    if r.predictions.iter().all(|p| p.compiled.is_empty()) {
        return String::new();
    }
    let mut s =
        String::from("<section id=\"compiled\"><h2>What the compiler did to the loops</h2>\n");
    for (m, p) in r.machines.iter().zip(r.predictions) {
        if p.compiled.is_empty() {
            continue;
        }
        let _ = writeln!(
            s,
            "<h3>on {}</h3><table class=\"sortable\"><thead><tr><th>loop</th><th>time per source iteration</th><th>its compiled code</th></tr></thead><tbody>",
            esc(&m.name)
        );
        for c in &p.compiled {
            let t = c.seconds_per_iteration.unwrap_or(0.0);
            let text = c
                .seconds_per_iteration
                .map_or_else(|| "-".to_string(), fmt_seconds);
            let _ = writeln!(
                s,
                "<tr><td>{}:{}</td>{}<td>{}</td></tr>",
                esc(&short_path(&c.file)),
                c.line,
                num(t, &text),
                esc(&c.text)
            );
        }
        s.push_str("</tbody></table>\n");
    }
    s.push_str("</section>\n");
    s
}

/// The loops an optimization augur does not model may change, on the first machine.
fn risk_section(r: &ReportInput) -> String {
    let Some(p) = r.predictions.first() else {
        return String::new();
    };
    let risks = &p.risks;
    let mut s = String::from("<section id=\"risks\"><h2>Risk flags</h2>\n");
    if risks.flags.is_empty() {
        s.push_str("<p>None found: no loop an optimization augur does not model may change.</p>\n");
    } else {
        s.push_str("<table class=\"sortable\"><thead><tr><th>loop</th><th>where</th><th>optimization</th><th>rating</th><th>why</th></tr></thead><tbody>\n");
        for f in &risks.flags {
            let _ = writeln!(
                s,
                "<tr><td>{}</td><td>{}:{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&f.loop_name),
                esc(&short_path(&f.file)),
                f.line,
                esc(&f.optimization),
                esc(f.rating.as_deref().unwrap_or("-")),
                esc(&f.reason)
            );
        }
        s.push_str("</tbody></table>\n");
    }
    if let Some(n) = &risks.note {
        let _ = writeln!(s, "<p class=\"note\">{}</p>", esc(n));
    }
    s.push_str("</section>\n");
    s
}

/// The warnings about the inputs and each prediction.
fn warning_section(r: &ReportInput) -> String {
    let mut all: Vec<String> = r.warnings.to_vec();
    for (m, p) in r.machines.iter().zip(r.predictions) {
        all.extend(p.warnings.iter().map(|w| format!("on {}: {w}", m.name)));
    }
    if all.is_empty() {
        return String::new();
    }
    let mut s = String::from("<section id=\"warnings\"><h2>Warnings</h2><ul>\n");
    for w in all {
        let _ = writeln!(s, "<li>{}</li>", esc(&w));
    }
    s.push_str("</ul></section>\n");
    s
}

/// The page's style: readable tables, a source view with a heat strip.
const STYLE: &str = r#"
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1200px;padding:0 16px;color:#1b1b1b}
h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:28px 0 8px;border-bottom:1px solid #ddd}h3{font-size:15px;margin:16px 0 6px}
table{border-collapse:collapse;margin:4px 0 8px;font-size:13.5px}
th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
th{background:#f4f4f4;position:sticky;top:0}
table.sortable th{cursor:pointer;user-select:none}
th.asc::after{content:" ▲"}th.desc::after{content:" ▼"}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.note{color:#555;font-size:13.5px}
.measured{font-weight:600}
pre.src{font:12.5px/1.35 ui-monospace,Menlo,Consolas,monospace;background:#fafafa;border:1px solid #eee;padding:6px;overflow-x:auto}
.ln{color:#999;display:inline-block;width:3.5em}
.heat{display:inline-block;width:14px;height:1.1em;vertical-align:text-bottom;margin:0 6px}
.pc{display:inline-block;width:4em;text-align:right;color:#a33}
.gap{color:#999}
figure{margin:8px 0}svg.fig{max-width:100%;height:auto;font-family:system-ui,sans-serif}
pre.table{font:12.5px/1.35 ui-monospace,Menlo,Consolas,monospace;overflow-x:auto}
figure.inline svg{max-width:100%;height:auto}figcaption{color:#555;font-size:13.5px}
"#;

/// Sorting by a click on a column's header (numbers by their `data-v`), and a self-test
/// at `#selftest` that sorts every table by every column and says on the page whether
/// each came out in order (`document.body.dataset.selftest`).
const SCRIPT: &str = r##"
"use strict";
function cellValue(row, col) {
  const c = row.cells[col];
  if (!c) return "";
  const v = c.getAttribute("data-v");
  return v === null ? c.textContent.trim().toLowerCase() : parseFloat(v);
}
function sortTable(table, col, descending) {
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  rows.sort((a, b) => {
    const x = cellValue(a, col), y = cellValue(b, col);
    const c = (typeof x === "number" && typeof y === "number") ? x - y : String(x).localeCompare(String(y));
    return descending ? -c : c;
  });
  rows.forEach(r => body.appendChild(r));
  Array.from(table.tHead.rows[0].cells).forEach((th, i) => {
    th.classList.remove("asc", "desc");
    if (i === col) th.classList.add(descending ? "desc" : "asc");
  });
}
function inOrder(table, col, descending) {
  const vals = Array.from(table.tBodies[0].rows).map(r => cellValue(r, col));
  for (let i = 1; i < vals.length; i++) {
    const a = vals[i - 1], b = vals[i];
    const c = (typeof a === "number" && typeof b === "number") ? a - b : String(a).localeCompare(String(b));
    if (descending ? c < 0 : c > 0) return false;
  }
  return true;
}
document.querySelectorAll("table.sortable").forEach(table => {
  Array.from(table.tHead.rows[0].cells).forEach((th, col) => {
    th.addEventListener("click", () => sortTable(table, col, !th.classList.contains("desc")));
  });
});
if (location.hash === "#selftest") {
  let failed = [], sorted = 0;
  document.querySelectorAll("table.sortable").forEach((table, t) => {
    Array.from(table.tHead.rows[0].cells).forEach((th, col) => {
      for (const descending of [true, false]) {
        th.click();
        if (!th.classList.contains(descending ? "desc" : "asc") || !inOrder(table, col, descending)) failed.push(t + ":" + col);
        sorted++;
      }
    });
  });
  document.body.dataset.selftest = failed.length ? "failed " + failed.join(" ") : "passed " + sorted;
}
"##;
