//! A timeline as an SVG Gantt chart: one row per thread or rank (first at the top),
//! coloured stretches, the legend on one line under the title (`augur predict --threads
//! ... --gantt`, `augur predict --mpi-ranks ... --gantt`). Beyond [`MAX_ROWS`] rows,
//! consecutive rows are drawn together: each stretch of a band is what most of its rows
//! do then, and the subtitle says so.

use crate::figure_style as st;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

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

/// Rows drawn at most (a screenful); more are drawn in bands of consecutive rows.
pub const MAX_ROWS: usize = 32;

/// Time steps a band's majority is taken over.
const BAND_STEPS: usize = 500;

/// Draws `bars` on one row per `rows` label over `[0, total]` seconds, with `legend`,
/// under `title` and a second line `subtitle` (what the figure's total is made of).
/// `what` names a row (`thread`, `rank`): beyond [`MAX_ROWS`] rows, bands of them.
pub fn figure(
    title: &str,
    subtitle: &str,
    what: &str,
    rows: &[String],
    bars: &[Bar],
    legend: &[(&str, RGBColor)],
    total: f64,
) -> Result<String, String> {
    let total = total.max(1e-12);
    let banded = bands(what, rows, bars, total, legend);
    let (rows, bars, subtitle) = match &banded {
        Some((r, b, note)) => (&r[..], &b[..], format!("{subtitle}; {note}")),
        None => (rows, bars, subtitle.to_string()),
    };
    // Only what the figure shows.
    let legend: Vec<(&str, RGBColor)> = legend
        .iter()
        .filter(|l| bars.iter().any(|b| b.color == l.1 && b.to > b.from))
        .copied()
        .collect();
    let n = rows.len().max(1);
    let row_px = match n {
        0..=8 => 40,
        9..=16 => 30,
        _ => 22,
    };
    let lines = wrap(&subtitle, 110);
    let head_px = 78 + 22 * lines.len();
    let height = (head_px + 95 + row_px * n) as u32;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (1000, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (head, body) = root.split_vertically(head_px as u32);
        header(&head, title, &lines, &legend)?;
        let (unit, per_second) = st::time_unit(total);
        // Row r fills [2(n-1-r), 2(n-r)] (integers: a label at its middle, an odd
        // value): row 0 at the top.
        let n = n as i32;
        let centres: Vec<i32> = (0..n).map(|r| 2 * r + 1).collect();
        let mut chart = ChartBuilder::on(&body)
            .margin(15)
            .margin_top(5)
            .x_label_area_size(55)
            .y_label_area_size(120)
            .build_cartesian_2d(0.0..total * 1.02, (0..2 * n).with_key_points(centres))
            .map_err(|e| e.to_string())?;
        let label = |y: &i32| {
            usize::try_from(n - 1 - y.div_euclid(2))
                .ok()
                .and_then(|r| rows.get(r))
                .cloned()
                .unwrap_or_default()
        };
        st::mesh(&mut chart.configure_mesh())
            .disable_y_mesh()
            .x_desc(format!("time ({unit})"))
            .x_label_formatter(&|v| st::fmt_number(v * per_second))
            .y_label_formatter(&label)
            .draw()
            .map_err(|e| e.to_string())?;
        let y = |row: usize| 2 * (n - 1 - row as i32);
        let rects = bars
            .iter()
            .map(|b| Rectangle::new([(b.from, y(b.row)), (b.to, y(b.row) + 2)], b.color.filled()));
        chart.draw_series(rects).map_err(|e| e.to_string())?;
        // A white line between the rows.
        let gaps = (0..n).map(|t| {
            Rectangle::new(
                [(0.0, 2 * t), (total * 1.02, 2 * t + 2)],
                WHITE.stroke_width(if n > 16 { 2 } else { 3 }),
            )
        });
        chart.draw_series(gaps).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// `text` in lines of at most about `width` characters, broken after "; " (a part longer
/// than the width keeps its line).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = vec![];
    for part in text.split("; ") {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 2 + part.chars().count() <= width => {
                l.push_str("; ");
                l.push_str(part);
            }
            Some(l) => {
                l.push(';');
                lines.push(part.to_string());
            }
            None => lines.push(part.to_string()),
        }
    }
    lines
}

/// The title, the subtitle's lines and the legend on one line, centred.
fn header(
    head: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    title: &str,
    subtitle: &[String],
    legend: &[(&str, RGBColor)],
) -> Result<(), String> {
    let centred = |size| {
        (st::FONT, size)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top))
    };
    head.draw(&Text::new(title, (500, 10), centred(st::TITLE)))
        .map_err(|e| e.to_string())?;
    let mut y = 40;
    for line in subtitle {
        head.draw(&Text::new(line.as_str(), (500, y), centred(st::SUBTITLE)))
            .map_err(|e| e.to_string())?;
        y += 22;
    }
    // A swatch and its label per entry, the line centred (about 7.2 px a character).
    let swatch = 16;
    let widths: Vec<i32> = legend
        .iter()
        .map(|(l, _)| swatch + 6 + (7.2 * l.chars().count() as f64) as i32 + 24)
        .collect();
    let mut x = 500 - widths.iter().sum::<i32>() / 2;
    let y = y + 12;
    let left = (st::FONT, st::LEGEND)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    for ((label, color), w) in legend.iter().zip(&widths) {
        head.draw(&Rectangle::new(
            [(x, y - swatch / 2), (x + swatch, y + swatch / 2)],
            color.filled(),
        ))
        .map_err(|e| e.to_string())?;
        head.draw(&Text::new(*label, (x + swatch + 6, y), left.clone()))
            .map_err(|e| e.to_string())?;
        x += w;
    }
    Ok(())
}

/// A band's rows and bars beyond [`MAX_ROWS`] rows: `k` consecutive rows a band, each
/// stretch of a band the colour most of its rows have then (by time, in
/// [`BAND_STEPS`] steps), and the note the subtitle adds; `None` when the rows fit.
fn bands(
    what: &str,
    rows: &[String],
    bars: &[Bar],
    total: f64,
    legend: &[(&str, RGBColor)],
) -> Option<(Vec<String>, Vec<Bar>, String)> {
    let n = rows.len();
    if n <= MAX_ROWS {
        return None;
    }
    let k = n.div_ceil(MAX_ROWS);
    let groups = n.div_ceil(k);
    // The colours in legend order, then any other.
    let mut colors: Vec<RGBColor> = legend.iter().map(|l| l.1).collect();
    for b in bars {
        if !colors.contains(&b.color) {
            colors.push(b.color);
        }
    }
    let step = total / BAND_STEPS as f64;
    // cover[group][step][colour]: seconds of the group's rows in that colour.
    let mut cover = vec![vec![vec![0.0f64; colors.len()]; BAND_STEPS]; groups];
    for b in bars.iter().filter(|b| b.to > b.from && b.row < n) {
        let c = colors.iter().position(|c| *c == b.color).unwrap_or(0);
        let g = b.row / k;
        let first = ((b.from / step) as usize).min(BAND_STEPS - 1);
        let last = ((b.to / step) as usize).min(BAND_STEPS - 1);
        for (s, cell) in cover[g].iter_mut().enumerate().take(last + 1).skip(first) {
            let (lo, hi) = (s as f64 * step, (s + 1) as f64 * step);
            cell[c] += (b.to.min(hi) - b.from.max(lo)).max(0.0);
        }
    }
    let mut out = vec![];
    for (g, steps) in cover.iter().enumerate() {
        let majority: Vec<Option<usize>> = steps
            .iter()
            .map(|cell| {
                // The most time; a tie goes to the colour first in the legend.
                let mut best: Option<(usize, f64)> = None;
                for (c, &secs) in cell.iter().enumerate() {
                    if secs > 0.0 && !matches!(best, Some(b) if b.1 >= secs) {
                        best = Some((c, secs));
                    }
                }
                best.map(|b| b.0)
            })
            .collect();
        let mut s = 0;
        while s < BAND_STEPS {
            let mut e = s + 1;
            while e < BAND_STEPS && majority[e] == majority[s] {
                e += 1;
            }
            if let Some(c) = majority[s] {
                out.push(Bar {
                    row: g,
                    from: s as f64 * step,
                    to: e as f64 * step,
                    color: colors[c],
                });
            }
            s = e;
        }
    }
    let labels = (0..groups)
        .map(|g| {
            let (a, b) = (g * k, ((g + 1) * k).min(n) - 1);
            if a == b {
                format!("{what} {a}")
            } else {
                format!("{what}s {a}-{b}")
            }
        })
        .collect();
    let note = format!(
        "{n} {what}s in bands of {k}: each stretch is what most of the band's {what}s do then"
    );
    Some((labels, out, note))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beyond_a_screenful_rows_are_banded_by_majority() {
        let (blue, orange) = (RGBColor(0, 114, 178), RGBColor(230, 159, 0));
        let rows: Vec<String> = (0..64).map(|r| format!("rank {r}")).collect();
        // Every rank computes the first half; rank 1 of each pair waits the second.
        let mut bars = vec![];
        for r in 0..64 {
            bars.push(Bar {
                row: r,
                from: 0.0,
                to: 0.5,
                color: blue,
            });
            let second = if r % 2 == 1 || r < 2 { orange } else { blue };
            bars.push(Bar {
                row: r,
                from: 0.5,
                to: 1.0,
                color: second,
            });
        }
        let legend = [("computing", blue), ("waiting", orange)];
        assert!(bands("rank", &rows[..32], &bars, 1.0, &legend).is_none());
        let (labels, banded, note) = bands("rank", &rows, &bars, 1.0, &legend).unwrap();
        assert_eq!(labels.len(), 32);
        assert_eq!(
            (&labels[0][..], &labels[31][..]),
            ("ranks 0-1", "ranks 62-63")
        );
        assert!(note.starts_with("64 ranks in bands of 2"), "{note}");
        // Band 0 (both ranks wait) turns orange halfway; the others tie and keep the
        // first colour of the legend; each band is whole.
        let band0: Vec<&Bar> = banded.iter().filter(|b| b.row == 0).collect();
        assert_eq!(band0.len(), 2);
        assert_eq!(band0[1].color, orange);
        assert!((band0[1].from - 0.5).abs() < 1e-9 && (band0[1].to - 1.0).abs() < 1e-9);
        assert!(banded
            .iter()
            .filter(|b| b.row == 5)
            .all(|b| b.color == blue));
        let svg = figure("t", "s", "rank", &rows, &bars, &legend, 1.0).unwrap();
        assert_eq!(wrap("a long one; b; c", 12), vec!["a long one;", "b; c"]);
        assert!(svg.contains("ranks 62-63") && svg.contains("bands of 2"));
    }
}
