//! The classic figure (Saavedra's Figs. 5.2-5.4): time per access against stride, one
//! curve per array size, log2 stride on x, log time on y, with the OS cache sizes noted.
//! Drawn with `plotters`' SVG backend only (no font or system library: SVG text is
//! rendered by the viewer).

use crate::infer::human;
use augur_machine_profile::memory::MemoryProfile;
use plotters::prelude::*;

/// Font sizes as `plotters` takes them (it writes the size over 1.24 into the SVG): 15 px
/// ticks and legend, 16 px axis names, 20 px title (readable on a slide).
const TICK: f64 = 15.0 * 1.24;
const AXIS: f64 = 16.0 * 1.24;
const TITLE: f64 = 20.0 * 1.24;

/// Viridis (perceptually uniform, colour-blind safe) at nine points, for curves ordered
/// by array size.
const VIRIDIS: [(f64, f64, f64); 9] = [
    (68.0, 1.0, 84.0),
    (71.0, 44.0, 122.0),
    (59.0, 81.0, 139.0),
    (44.0, 113.0, 142.0),
    (33.0, 144.0, 141.0),
    (39.0, 173.0, 129.0),
    (92.0, 200.0, 99.0),
    (170.0, 220.0, 50.0),
    (253.0, 231.0, 37.0),
];

/// The colour of the `k`-th of `n` curves: viridis from dark violet to green (its pale
/// yellow end left out: unreadable on white).
fn sequential(k: usize, n: usize) -> RGBColor {
    let t = if n <= 1 {
        0.0
    } else {
        0.85 * k as f64 / (n - 1) as f64
    };
    let x = t * (VIRIDIS.len() - 1) as f64;
    let i = (x.floor() as usize).min(VIRIDIS.len() - 2);
    let f = x - i as f64;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    let mix = |p: f64, q: f64| (p + (q - p) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Nanoseconds to three significant digits, no trailing zeros: "0.5 ns", "12 ns".
fn fmt_ns(v: f64) -> String {
    if v <= 0.0 || !v.is_finite() {
        return "0 ns".into();
    }
    let digits = (2 - v.log10().floor() as i32).max(0) as usize;
    let t = format!("{v:.digits$}");
    let t = if t.contains('.') {
        t.trim_end_matches('0').trim_end_matches('.')
    } else {
        &t
    };
    format!("{t} ns")
}

/// Ticks of a log axis over `[lo, hi]` at 1-2-5 steps (decades when those are more
/// than ten, finer steps when fewer than three).
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo && hi.is_finite()) {
        return vec![];
    }
    let steps = |mantissas: &[f64]| {
        let mut v = vec![];
        let mut e = lo.log10().floor() as i32;
        while 10f64.powi(e) <= hi {
            for m in mantissas {
                // Built from the mantissa and the exponent: 0.5, not 0.5000000001.
                let x: f64 = format!("{m}e{e}").parse().unwrap_or(0.0);
                if x >= lo && x <= hi {
                    v.push(x);
                }
            }
            e += 1;
        }
        v
    };
    let nice = steps(&[1.0, 2.0, 5.0]);
    if nice.len() > 10 {
        steps(&[1.0])
    } else if nice.len() < 3 {
        steps(&[1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0])
    } else {
        nice
    }
}

/// Renders the sweep of `m` as an SVG document. `caches` are `(name, size)` pairs to
/// annotate (the OS's sizes).
pub fn sweep_figure(m: &MemoryProfile, caches: &[(String, u64)]) -> Result<String, String> {
    sweep_figure_named(m, caches, None)
}

/// [`sweep_figure`] with the machine profile's name in the title.
pub fn sweep_figure_named(
    m: &MemoryProfile,
    caches: &[(String, u64)],
    machine: Option<&str>,
) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (1000, 675)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let curves: Vec<_> = m.sweep.iter().filter(|c| !c.ns.is_empty()).collect();
        let smax = curves
            .iter()
            .flat_map(|c| c.stride_bytes.iter().copied())
            .max()
            .unwrap_or(16384)
            .max(16);
        let (mut ylo, mut yhi) = (f64::INFINITY, 0.0f64);
        for c in &curves {
            for &v in &c.ns {
                if v > 0.0 {
                    ylo = ylo.min(v);
                    yhi = yhi.max(v);
                }
            }
        }
        if !ylo.is_finite() {
            (ylo, yhi) = (0.1, 10.0);
        }
        let xhi = (smax as f64).log2() + 0.5;
        let title = format!(
            "Strided reads, time per access: {}{} {}, {}",
            machine.map(|n| format!("{n} (")).unwrap_or_default(),
            m.compiler,
            m.fflags,
            m.date.split('T').next().unwrap_or(&m.date)
        ) + if machine.is_some() { ")" } else { "" };
        let (main, foot) = root.split_vertically(640);
        let (plot, key) = main.split_horizontally(820);
        let (y0, y1) = (ylo * 0.8, yhi * 1.25);
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", TITLE))
            .margin(15)
            .x_label_area_size(55)
            .y_label_area_size(85)
            .build_cartesian_2d(
                2.5f64..xhi,
                (y0..y1).log_scale().with_key_points(log_ticks(y0, y1)),
            )
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("stride (bytes)")
            .y_desc("time per access")
            .x_labels(((xhi - 2.5) as usize).max(2))
            .x_label_formatter(&|v| human(2f64.powf(v.round()) as u64).replace(' ', ""))
            .y_label_formatter(&|v| fmt_ns(*v))
            .label_style(("sans-serif", TICK))
            .axis_desc_style(("sans-serif", AXIS))
            .bold_line_style(RGBColor(225, 225, 225))
            .max_light_lines(0)
            .draw()
            .map_err(|e| e.to_string())?;
        let n = curves.len().max(1);
        for (k, c) in curves.iter().enumerate() {
            let color = sequential(k, n);
            let pts: Vec<(f64, f64)> = c
                .stride_bytes
                .iter()
                .zip(&c.ns)
                .filter(|(_, &v)| v > 0.0)
                .map(|(&s, &v)| ((s as f64).log2(), v))
                .collect();
            chart
                .draw_series(LineSeries::new(pts, color.stroke_width(2)))
                .map_err(|e| e.to_string())?;
        }
        size_key(&key, &curves, caches)?;
        let note = caches
            .iter()
            .map(|(n, s)| format!("{n} {}", human(*s)))
            .collect::<Vec<_>>()
            .join(", ");
        foot.draw(&Text::new(
            format!("OS caches: {note}; one curve per array size"),
            (20, 8),
            ("sans-serif", TICK),
        ))
        .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// The colour key of the array sizes: a bar of one swatch per curve, smallest at the top,
/// labelled at the ends and at the OS's cache sizes.
fn size_key(
    key: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    curves: &[&augur_machine_profile::memory::SweepCurve],
    caches: &[(String, u64)],
) -> Result<(), String> {
    let n = curves.len();
    if n == 0 {
        return Ok(());
    }
    key.draw(&Text::new("array size", (10, 60), ("sans-serif", TICK)))
        .map_err(|e| e.to_string())?;
    let h = (400 / n as i32).clamp(6, 22);
    let top = 88;
    let label_style =
        ("sans-serif", TICK)
            .into_font()
            .color(&BLACK)
            .pos(plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Left,
                plotters::style::text_anchor::VPos::Center,
            ));
    let mut last_label = -1000;
    for (k, c) in curves.iter().enumerate() {
        let y = top + h * k as i32;
        key.draw(&Rectangle::new(
            [(10, y), (34, y + h)],
            sequential(k, n).filled(),
        ))
        .map_err(|e| e.to_string())?;
        let cache = caches
            .iter()
            .find(|(_, s)| *s == c.size_bytes)
            .map(|(name, _)| name.as_str());
        let end = k == 0 || k + 1 == n;
        // Labels at least 18 px apart; a cache size always.
        if (end || cache.is_some()) && (y + h / 2 - last_label >= 18 || cache.is_some()) {
            let text = match cache {
                Some(name) => format!("{} = {name}", human(c.size_bytes)),
                None => human(c.size_bytes),
            };
            key.draw(&Text::new(text, (42, y + h / 2), label_style.clone()))
                .map_err(|e| e.to_string())?;
            last_label = y + h / 2;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_read_below_a_nanosecond_and_colours_run_in_order() {
        assert_eq!(fmt_ns(0.5), "0.5 ns");
        assert_eq!(fmt_ns(2.0), "2 ns");
        assert_eq!(fmt_ns(12.5), "12.5 ns");
        assert_eq!(log_ticks(0.3, 12.0), vec![0.5, 1.0, 2.0, 5.0, 10.0]);
        assert_eq!(sequential(0, 19), RGBColor(68, 1, 84));
        assert_ne!(sequential(18, 19), sequential(17, 19));
    }
}
