//! A timeline as an SVG Gantt chart: one row per thread or rank, coloured stretches,
//! a legend (`augur predict --threads ... --gantt`, `augur predict --mpi-ranks ... --gantt`).

use plotters::prelude::*;

/// A coloured stretch of one row.
pub struct Bar {
    /// The row (thread or rank index).
    pub row: usize,
    /// Start, seconds.
    pub from: f64,
    /// End, seconds.
    pub to: f64,
    /// Its colour (by what it is).
    pub color: RGBColor,
}

/// The unit a time axis over `[0, total]` seconds reads best in: its name and the
/// factor from seconds (ticks "0, 200, 400" ms rather than "0.0002" s).
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

/// Draws `bars` on one row per `rows` label over `[0, total]` seconds, with `legend`,
/// under `title` and a second line `subtitle` (what the figure's total is made of).
pub fn figure(
    title: &str,
    subtitle: &str,
    rows: &[String],
    bars: &[Bar],
    legend: &[(&str, RGBColor)],
    total: f64,
) -> Result<String, String> {
    let n = rows.len();
    let mut out = String::new();
    {
        let height = (200 + 28 * n).min(2000) as u32;
        let root = SVGBackend::with_string(&mut out, (1000, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (head, root) = root.split_vertically(52);
        let centred = |size| {
            ("sans-serif", size).into_font().color(&BLACK).pos(
                plotters::style::text_anchor::Pos::new(
                    plotters::style::text_anchor::HPos::Center,
                    plotters::style::text_anchor::VPos::Top,
                ),
            )
        };
        head.draw(&Text::new(title, (500, 8), centred(17)))
            .map_err(|e| e.to_string())?;
        head.draw(&Text::new(subtitle, (500, 31), centred(13)))
            .map_err(|e| e.to_string())?;
        let total = total.max(1e-12);
        let (unit, per_second) = time_unit(total);
        // Room above the bars for the legend.
        let room = legend.len() as i32;
        let mut chart = ChartBuilder::on(&root)
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..total * 1.02, (0..n as i32 + room).into_segmented())
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .light_line_style(WHITE.mix(0.0))
            .x_desc(format!("time ({unit})"))
            .x_label_formatter(&|v| {
                let x = v * per_second;
                let t = format!("{x:.3}");
                t.trim_end_matches('0').trim_end_matches('.').to_string()
            })
            .x_label_style(("sans-serif", 13))
            .y_label_style(("sans-serif", 13))
            .y_labels((n + legend.len()).min(40))
            .y_label_formatter(&|y| match y {
                SegmentValue::CenterOf(t) | SegmentValue::Exact(t) => usize::try_from(*t)
                    .ok()
                    .and_then(|t| rows.get(t))
                    .cloned()
                    .unwrap_or_default(),
                SegmentValue::Last => String::new(),
            })
            .draw()
            .map_err(|e| e.to_string())?;
        let rects = bars.iter().map(|b| {
            Rectangle::new(
                [
                    (b.from, SegmentValue::Exact(b.row as i32)),
                    (b.to, SegmentValue::Exact(b.row as i32 + 1)),
                ],
                b.color.filled(),
            )
        });
        chart.draw_series(rects).map_err(|e| e.to_string())?;
        // A white line between the rows.
        let gaps = (0..n).map(|t| {
            Rectangle::new(
                [
                    (0.0, SegmentValue::Exact(t as i32)),
                    (total * 1.02, SegmentValue::Exact(t as i32 + 1)),
                ],
                WHITE.stroke_width(if n > 32 { 1 } else { 3 }),
            )
        });
        chart.draw_series(gaps).map_err(|e| e.to_string())?;
        for &(label, c) in legend {
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(0.0, SegmentValue::Exact(0)), (0.0, SegmentValue::Exact(0))],
                    c.filled(),
                )))
                .map_err(|e| e.to_string())?
                .label(label)
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], c.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .border_style(BLACK)
            .background_style(WHITE.mix(0.85))
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}
