//! The classic figure (Saavedra's Figs. 5.2-5.4): time per access against stride, one
//! curve per array size, log2 stride on x, log time on y, with the OS cache sizes noted.
//! Drawn with `plotters`' SVG backend only (no font or system library: SVG text is
//! rendered by the viewer).

use crate::infer::human;
use augur_machine_profile::memory::MemoryProfile;
use plotters::prelude::*;

/// Renders the sweep of `m` as an SVG document. `caches` are `(name, size)` pairs to
/// annotate (the OS's sizes).
pub fn sweep_figure(m: &MemoryProfile, caches: &[(String, u64)]) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (1000, 640)).into_drawing_area();
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
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!(
                    "Strided reads: time per access ({} {}, {})",
                    m.compiler, m.fflags, m.date
                ),
                ("sans-serif", 20),
            )
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .right_y_label_area_size(150)
            .build_cartesian_2d(2.5f64..xhi, (ylo * 0.8..yhi * 1.25).log_scale())
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("stride (bytes)")
            .y_desc("time per access (ns)")
            .x_labels(((xhi - 2.5) as usize).max(2))
            .x_label_formatter(&|v| human(2f64.powf(v.round()) as u64).replace(' ', ""))
            .draw()
            .map_err(|e| e.to_string())?;
        let n = curves.len().max(1);
        for (k, c) in curves.iter().enumerate() {
            let color = HSLColor(k as f64 / n as f64 * 0.85, 0.8, 0.4);
            let pts: Vec<(f64, f64)> = c
                .stride_bytes
                .iter()
                .zip(&c.ns)
                .filter(|(_, &v)| v > 0.0)
                .map(|(&s, &v)| ((s as f64).log2(), v))
                .collect();
            let mut label = human(c.size_bytes);
            for (name, size) in caches {
                if *size == c.size_bytes {
                    label = format!("{label} = {name}");
                }
            }
            chart
                .draw_series(LineSeries::new(pts, color.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .margin(5)
            .border_style(BLACK)
            .background_style(WHITE.mix(0.8))
            .label_font(("sans-serif", 11))
            .draw()
            .map_err(|e| e.to_string())?;
        let note = caches
            .iter()
            .map(|(n, s)| format!("{n} {}", human(*s)))
            .collect::<Vec<_>>()
            .join(", ");
        root.draw(&Text::new(
            format!("OS caches: {note}; one curve per array size"),
            (70, 615),
            ("sans-serif", 13),
        ))
        .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}
