//! One style for every figure augur draws with `plotters` (the size sweep, the speedup
//! curve, the rank sweep, the Gantt charts): fonts readable on a 900x600 canvas shown on
//! a slide, SI-prefixed time ticks ("100 ms", "250 µs"), a colour-blind-safe palette
//! (Okabe and Ito's), ticks on log axes where the data are (or at 1-2-5 steps) and titles
//! that name the program and the machine.

use plotters::coord::ranged1d::Ranged;
use plotters::prelude::*;
use std::path::Path;

/// The font family of every text (SVG text: the viewer renders it).
pub const FONT: &str = "sans-serif";

/// `plotters` writes an SVG font size of the size given over 1.24: the size to give for
/// `px` pixels on the page.
const fn px(px: f64) -> f64 {
    px * 1.24
}

/// Tick labels: 15 px.
pub const TICK: f64 = px(15.0);
/// Axis descriptions: 16 px.
pub const AXIS: f64 = px(16.0);
/// Legend entries: 15 px.
pub const LEGEND: f64 = px(15.0);
/// A figure's title: 20 px.
pub const TITLE: f64 = px(20.0);
/// The line under a title, and notes on the plot: 15 px.
pub const SUBTITLE: f64 = px(15.0);
/// A panel's caption in a figure of several: 18 px.
pub const PANEL: f64 = px(18.0);

/// Okabe and Ito's colour-blind-safe categorical palette, in the order series take it
/// (their yellow is left out: it cannot be read on white).
pub const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(230, 159, 0),   // orange
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(0, 0, 0),       // black
];

/// The colour of the `k`-th series.
pub fn color(k: usize) -> RGBColor {
    PALETTE[k % PALETTE.len()]
}

/// Marks that are not data (the ideal line, the cores, limits): a neutral grey.
pub const NEUTRAL: RGBColor = RGBColor(105, 105, 105);

/// The grid lines at the labelled ticks.
pub const GRID: RGBColor = RGBColor(225, 225, 225);

/// A figure's title: `WHAT: PROGRAM on MACHINE`.
pub fn title(what: &str, program: &str, machine: &str) -> String {
    format!("{what}: {program} on {machine}")
}

/// The program a profile is of, as a title names it: its first source file's name
/// (`jacobi.f90`), or the profile's file stem when it names no source.
pub fn program_name(profile: &augur_program_profile::ProgramProfile, path: &Path) -> String {
    profile
        .sources
        .first()
        .and_then(|s| Path::new(&s.path).file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| {
            path.file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
}

/// The machines a title names: one by its name, two by both when short enough, more by
/// their number (the legend names each).
pub fn machines_name(names: &[String]) -> String {
    match names {
        [one] => one.clone(),
        [a, b] if a.len() + b.len() <= 40 => format!("{a} and {b}"),
        more => format!("{} machines", more.len()),
    }
}

/// A machine profile as a legend names it: its name, the CPU and the compiler with its
/// flags (`gfortran12-O2-zen5: AMD EPYC, gfortran -O2`).
pub fn machine_label(m: &augur_model::LoadedMachine) -> String {
    let p = &m.profile.provenance;
    let compiler = format!("{} {}", p.compiler, p.fflags);
    let about: Vec<&str> = [p.cpu_model.trim(), compiler.trim()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect();
    if about.is_empty() {
        m.name.clone()
    } else {
        format!("{}: {}", m.name, about.join(", "))
    }
}

/// `x` to three significant digits without trailing zeros: 0.25, 1, 12.5, 1000.
pub fn fmt_number(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return if x.is_finite() {
            "0".into()
        } else {
            x.to_string()
        };
    }
    let digits = (2 - x.abs().log10().floor() as i32).max(0) as usize;
    let t = format!("{x:.digits$}");
    if t.contains('.') {
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        t
    }
}

/// Seconds with an SI prefix, three significant digits, no trailing zeros: 0.1 →
/// "100 ms", 1 → "1 s", 2.5e-4 → "250 µs", 1.5e-9 → "1.5 ns".
pub fn fmt_time(seconds: f64) -> String {
    if seconds == 0.0 || !seconds.is_finite() {
        return format!("{} s", fmt_number(seconds));
    }
    // Rounded first, so 0.99996 s reads "1 s", not "1000 ms".
    let r = round_significant(seconds, 3);
    let a = r.abs();
    let (unit, per_second) = if a >= 1.0 {
        ("s", 1.0)
    } else if a >= 1e-3 {
        ("ms", 1e3)
    } else if a >= 1e-6 {
        ("µs", 1e6)
    } else if a >= 1e-9 {
        ("ns", 1e9)
    } else {
        ("ps", 1e12)
    };
    format!("{} {unit}", fmt_number(r * per_second))
}

/// `x` rounded to `digits` significant digits.
fn round_significant(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(digits - 1 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

/// Data points labelled on a log axis at most (more: nice steps instead).
pub const MAX_DATA_TICKS: usize = 12;

/// The ticks of a log axis over `[lo, hi]`: the data points themselves when there are
/// one to [`MAX_DATA_TICKS`] distinct ones (the sizes, thread or rank counts measured or
/// predicted), else 1-2-5 steps per decade (decades only when those are more than ten;
/// finer steps when fewer than three), else every few data points. `integer`: the axis
/// counts something (no tick between integers).
pub fn log_ticks(lo: f64, hi: f64, data: &[f64], integer: bool) -> Vec<f64> {
    let eps = |x: f64| x * 1e-9;
    let mut pts: Vec<f64> = data
        .iter()
        .map(|&x| if integer { x.round() } else { x })
        .filter(|&x| x > 0.0 && x.is_finite() && x >= lo - eps(lo) && x <= hi + eps(hi))
        .collect();
    pts.sort_by(f64::total_cmp);
    pts.dedup_by(|a, b| (*a - *b).abs() <= eps(b.abs()));
    if (1..=MAX_DATA_TICKS).contains(&pts.len()) {
        return pts;
    }
    if !(lo > 0.0 && hi > lo && hi.is_finite()) {
        return pts;
    }
    let steps = |mantissas: &[f64]| -> Vec<f64> {
        let mut v = vec![];
        let mut decade = 10f64.powi(lo.log10().floor() as i32);
        while decade <= hi {
            for m in mantissas {
                let x = round_significant(m * decade, 3);
                if x >= lo - eps(lo) && x <= hi + eps(hi) && (!integer || x.fract() == 0.0) {
                    v.push(x);
                }
            }
            decade *= 10.0;
        }
        v
    };
    let mut nice = steps(&[1.0, 2.0, 5.0]);
    if nice.len() > 10 {
        nice = steps(&[1.0]);
        let k = nice.len().div_ceil(10);
        nice = nice.into_iter().step_by(k).collect();
    } else if nice.len() < 3 {
        nice = steps(&[1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0]);
    }
    if nice.len() >= 3 || pts.len() < 2 {
        return nice;
    }
    // A narrow range with many data points: every few of them, both ends kept.
    let k = pts.len().div_ceil(8);
    let last = *pts.last().expect("two points at least");
    let mut thin: Vec<f64> = pts.iter().copied().step_by(k).collect();
    if thin.last() != Some(&last) {
        thin.push(last);
    }
    thin
}

/// `ticks` without those whose label repeats the one before (a formatter that rounds
/// 1.2 and 1.5 both to "1" labels the first only).
pub fn distinct_labels(ticks: &[f64], label: impl Fn(f64) -> String) -> Vec<f64> {
    let mut out: Vec<f64> = vec![];
    let mut last: Option<String> = None;
    for &t in ticks {
        let l = label(t);
        if last.as_ref() != Some(&l) {
            out.push(t);
            last = Some(l);
        }
    }
    out
}

/// The mesh of every chart: readable labels, grid lines at the labelled ticks only.
pub fn mesh<'m, 'a, 'b, X, Y, DB>(
    m: &'m mut plotters::chart::MeshStyle<'a, 'b, X, Y, DB>,
) -> &'m mut plotters::chart::MeshStyle<'a, 'b, X, Y, DB>
where
    X: Ranged,
    Y: Ranged,
    DB: DrawingBackend,
{
    m.label_style((FONT, TICK))
        .axis_desc_style((FONT, AXIS))
        .bold_line_style(GRID)
        .max_light_lines(0)
}

/// Draws the legend of `chart` at `at`: readable entries on a light box.
pub fn legend<'a, 'b, DB, CT>(
    chart: &mut ChartContext<'a, DB, CT>,
    at: SeriesLabelPosition,
) -> Result<(), String>
where
    DB: DrawingBackend + 'a,
    CT: plotters::coord::CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(at)
        .margin(10)
        .border_style(RGBColor(170, 170, 170))
        .background_style(WHITE.mix(0.9))
        .label_font((FONT, LEGEND))
        .draw()
        .map_err(|e| e.to_string())
}

/// The unit a linear time axis over `[0, total]` seconds reads best in: its name and the
/// factor from seconds (ticks "0, 200, 400" with "time (ms)" rather than "0.0002").
pub fn time_unit(total: f64) -> (&'static str, f64) {
    if total >= 2.0 {
        ("s", 1.0)
    } else if total >= 2e-3 {
        ("ms", 1e3)
    } else if total >= 2e-6 {
        ("µs", 1e6)
    } else {
        ("ns", 1e9)
    }
}

/// A chart with log axes both ways whose ticks were chosen ([`log_ticks`]).
pub type LogLog<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<
        plotters::coord::combinators::WithKeyPoints<plotters::coord::combinators::LogCoord<f64>>,
        plotters::coord::combinators::WithKeyPoints<plotters::coord::combinators::LogCoord<f64>>,
    >,
>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_with_an_si_prefix_and_no_trailing_zeros() {
        assert_eq!(fmt_time(0.1), "100 ms");
        assert_eq!(fmt_time(1.0), "1 s");
        assert_eq!(fmt_time(2.5e-4), "250 µs");
        assert_eq!(fmt_time(0.01), "10 ms");
        assert_eq!(fmt_time(1.5), "1.5 s");
        assert_eq!(fmt_time(12.345), "12.3 s");
        assert_eq!(fmt_time(5e-10), "500 ps");
        assert_eq!(fmt_time(2e-9), "2 ns");
        assert_eq!(fmt_time(0.0), "0 s");
        // Rounded before the prefix is chosen.
        assert_eq!(fmt_time(0.99996), "1 s");
        assert_eq!(fmt_time(9.9996e-4), "1 ms");
        assert_eq!(fmt_number(0.25), "0.25");
        assert_eq!(fmt_number(1000.0), "1000");
        assert_eq!(fmt_number(12.0), "12");
    }

    #[test]
    fn log_ticks_sit_on_the_data_or_on_1_2_5_steps_without_duplicates() {
        // Few data points: each one, once (the rank sweep's 4, 8, ... 256).
        let ranks = [4.0, 8.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0];
        assert_eq!(
            log_ticks(3.0, 330.0, &ranks, true),
            vec![4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0]
        );
        // Many: 1-2-5 steps, integers only on a counting axis.
        let many: Vec<f64> = (0..=12).map(|k| 64.0 * 2f64.powf(k as f64 / 4.0)).collect();
        assert_eq!(
            log_ticks(51.0, 640.0, &many, true),
            vec![100.0, 200.0, 500.0]
        );
        // Twelve 1-2-5 steps are too many: decades.
        assert_eq!(
            log_ticks(1e-4, 0.6, &[], false),
            vec![1e-4, 1e-3, 0.01, 0.1]
        );
        assert_eq!(
            log_ticks(0.25, 12.0, &[], false),
            vec![0.5, 1.0, 2.0, 5.0, 10.0]
        );
        // A narrow range: finer steps.
        assert_eq!(log_ticks(1.1, 3.3, &[], false), vec![1.5, 2.0, 3.0]);
        // No tick reads like its neighbour, whatever the formatter.
        for (lo, hi) in [(0.8, 3.0), (1e-6, 2.0), (3.0, 1300.0), (0.2, 9.0)] {
            let t = log_ticks(lo, hi, &[], false);
            let labels: Vec<String> = t.iter().map(|&x| fmt_time(x)).collect();
            assert!(labels.windows(2).all(|w| w[0] != w[1]), "{labels:?}");
            let int: Vec<String> = log_ticks(lo, hi, &[], true)
                .iter()
                .map(|x| format!("{x:.0}"))
                .collect();
            assert!(int.windows(2).all(|w| w[0] != w[1]), "{int:?}");
        }
        // The old bug: a log axis from 1 to 3 labelled "1 1 1 2 2 2 2 2 3".
        let old = [1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.2, 2.5, 3.0];
        assert_eq!(
            distinct_labels(&old, |x| format!("{x:.0}")),
            vec![1.0, 1.6, 3.0]
        );
    }
}

/// Whether `path` asks for a PNG (its extension `.png`, in any case) rather than SVG.
pub fn wants_png(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"))
}

/// Writes figure `svg` to `path`: the SVG itself, or when the path ends in `.png` the
/// figure drawn at twice its size (crisp on a slide or a high-density screen) with the
/// system's fonts, for talks and documents that take no SVG.
pub fn write_figure(path: &Path, svg: &str) -> anyhow::Result<()> {
    if wants_png(path) {
        let png = rasterize(svg).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        crate::cli::write_atomically(path, &png)
    } else {
        crate::cli::write_atomically(path, svg.as_bytes())
    }
}

/// The PNG of `svg` at twice its size; an error naming what to install when the system
/// has no font to draw its text with.
pub fn rasterize(svg: &str) -> Result<Vec<u8>, String> {
    use resvg::{tiny_skia, usvg};
    let (fonts, sans) = system_fonts().ok_or_else(|| {
        "no font on this system to draw the figure's text with: install one \
         (Debian: `apt-get install fonts-dejavu-core`) or write the figure as .svg"
            .to_string()
    })?;
    let options = usvg::Options {
        fontdb: fonts.clone(),
        font_family: sans.clone(),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &options)
        .map_err(|e| format!("cannot read the figure augur drew ({e}); write it as .svg"))?;
    let size = tree
        .size()
        .to_int_size()
        .scale_by(2.0)
        .ok_or("the figure has no size")?;
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or("the figure is too large to draw as PNG; write it as .svg")?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(2.0, 2.0),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| format!("cannot encode the PNG: {e}"))
}

/// The system's fonts, read once for every figure a command draws, with the family that
/// stands for `sans-serif` (Arial's metrics first: a browser's sans-serif, which the
/// layouts are measured for); `None` when the system has no font.
fn system_fonts() -> Option<&'static (std::sync::Arc<resvg::usvg::fontdb::Database>, String)> {
    static FONTS: std::sync::OnceLock<
        Option<(std::sync::Arc<resvg::usvg::fontdb::Database>, String)>,
    > = std::sync::OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut fonts = resvg::usvg::fontdb::Database::new();
            fonts.load_system_fonts();
            let families: Vec<String> = fonts
                .faces()
                .flat_map(|f| f.families.iter().map(|(n, _)| n.clone()))
                .collect();
            let sans = [
                "Liberation Sans",
                "Arial",
                "Helvetica",
                "DejaVu Sans",
                "Noto Sans",
            ]
            .into_iter()
            .find(|want| families.iter().any(|f| f == want))
            .map(str::to_string)
            .or_else(|| families.first().cloned())?;
            fonts.set_sans_serif_family(sans.clone());
            Some((std::sync::Arc::new(fonts), sans))
        })
        .as_ref()
}

/// The format of figures written into a directory (a figure written to a named file
/// takes its extension's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FigureFormat {
    /// Scalable vector graphics (the default; a browser or Inkscape opens it).
    Svg,
    /// A bitmap at twice the figure's size, for slides and documents that take no SVG.
    Png,
}

impl FigureFormat {
    /// The file extension of the format.
    pub fn extension(self) -> &'static str {
        match self {
            FigureFormat::Svg => "svg",
            FigureFormat::Png => "png",
        }
    }
}

/// A figure drawn for a report rather than a file: the SVG and what it shows.
pub struct Drawn {
    /// What the figure shows, under it.
    pub caption: String,
    /// The SVG document.
    pub svg: String,
}
