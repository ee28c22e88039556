//! The figures as SVG, built as strings (no font or library needed): Kiviat graphs of the
//! pershapes (log scale, as the thesis's figures 2.5-2.6) and the cluster graph of
//! figure 2.7.

use crate::compare::Comparison;
use crate::reduced::PARAMETERS;
use std::f64::consts::PI;
use std::fmt::Write;

/// Width and height of one Kiviat panel, px.
pub const PANEL: (f64, f64) = (320.0, 340.0);
/// Kiviat panels per row of the grid.
pub const COLUMNS: usize = 4;
/// Width and height of the cluster graph, px.
pub const GRAPH: (f64, f64) = (820.0, 820.0);

const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
];

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn open(w: f64, h: f64) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    )
}

/// The decades the speedups span, common to every panel: `(lo, hi)` powers of ten.
fn decades(c: &Comparison) -> (i32, i32) {
    let logs: Vec<f64> = (0..c.machines.len())
        .flat_map(|m| (0..PARAMETERS.len()).filter_map(move |k| c.speedup(m, k)))
        .map(f64::log10)
        .filter(|l| l.is_finite())
        .collect();
    let lo = logs.iter().copied().fold(0.0, f64::min).floor() as i32;
    let hi = logs.iter().copied().fold(0.0, f64::max).ceil() as i32;
    (lo, hi.max(lo + 1))
}

/// The point of axis `k` at radius `r` around `(cx, cy)`.
fn polar(cx: f64, cy: f64, r: f64, k: usize) -> (f64, f64) {
    let a = -PI / 2.0 + 2.0 * PI * k as f64 / PARAMETERS.len() as f64;
    (cx + r * a.cos(), cy + r * a.sin())
}

/// One machine's panel at `(x, y)`: decade circles, axes, its polygon.
fn panel(out: &mut String, c: &Comparison, m: usize, x: f64, y: f64, (lo, hi): (i32, i32)) {
    let (cx, cy, radius) = (x + PANEL.0 / 2.0, y + PANEL.1 / 2.0 + 12.0, 110.0);
    let scale = |v: f64| radius * (0.1 + 0.9 * (v.log10() - lo as f64) / (hi - lo) as f64);
    let color = COLORS[m % COLORS.len()];
    let _ = writeln!(out, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">{}</text>", cx, y + 20.0, escape(&c.machines[m]));
    for d in lo..=hi {
        let r = scale(10f64.powi(d));
        let _ = writeln!(out, "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"{r:.1}\" fill=\"none\" stroke=\"#ccc\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"8\" fill=\"#888\">{}x</text>", cx + 2.0, cy - r - 1.0, 10f64.powi(d));
    }
    let mut points: Vec<Option<String>> = vec![];
    for (k, p) in PARAMETERS.iter().enumerate() {
        let (ax, ay) = polar(cx, cy, radius, k);
        let (lx, ly) = polar(cx, cy, radius + 14.0, k);
        let _ = writeln!(out, "<line x1=\"{cx:.1}\" y1=\"{cy:.1}\" x2=\"{ax:.1}\" y2=\"{ay:.1}\" stroke=\"#ddd\"/><text x=\"{lx:.1}\" y=\"{ly:.1}\" font-size=\"8\" text-anchor=\"middle\">{}</text>", p.short);
        let point = c.speedup(m, k).map(|v| polar(cx, cy, scale(v), k));
        if let Some((px, py)) = point {
            let _ = writeln!(
                out,
                "<circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"2\" fill=\"{color}\"/>"
            );
        }
        points.push(point.map(|(px, py)| format!("{px:.1},{py:.1}")));
    }
    outline(out, &points, color);
}

/// The machine's shape: a filled polygon when every parameter is known; else only the
/// edges between neighbouring known parameters (a missing one leaves a gap rather than
/// a line that would read as a value).
fn outline(out: &mut String, points: &[Option<String>], color: &str) {
    if points.iter().all(Option::is_some) {
        let all: Vec<&str> = points.iter().flatten().map(String::as_str).collect();
        let _ = writeln!(out, "<polygon points=\"{}\" fill=\"{color}\" fill-opacity=\"0.25\" stroke=\"{color}\" stroke-width=\"1.5\"/>", all.join(" "));
        return;
    }
    let n = points.len();
    for k in 0..n {
        if let (Some(a), Some(b)) = (&points[k], &points[(k + 1) % n]) {
            let _ = writeln!(
                out,
                "<polyline points=\"{a} {b}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\"/>"
            );
        }
    }
}

fn caption(c: &Comparison, width: f64) -> String {
    format!(
        "<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">Pershapes: speed relative to {} per reduced parameter (log scale; outward is faster)</text>\n",
        width / 2.0,
        escape(&c.machines[c.reference])
    )
}

/// Every machine's Kiviat graph in one grid, on a common log scale.
pub fn kiviat_grid(c: &Comparison) -> String {
    let n = c.machines.len().max(1);
    let cols = n.min(COLUMNS);
    let rows = n.div_ceil(cols);
    let (w, h) = (cols as f64 * PANEL.0, rows as f64 * PANEL.1 + 36.0);
    let mut out = open(w, h);
    out.push_str(&caption(c, w));
    let scale = decades(c);
    for m in 0..c.machines.len() {
        let (col, row) = (m % cols, m / cols);
        panel(
            &mut out,
            c,
            m,
            col as f64 * PANEL.0,
            36.0 + row as f64 * PANEL.1,
            scale,
        );
    }
    out.push_str("</svg>\n");
    out
}

/// One machine's Kiviat graph (the scale common to the comparison).
pub fn kiviat(c: &Comparison, m: usize) -> String {
    let mut out = open(PANEL.0, PANEL.1 + 36.0);
    out.push_str(&caption(c, PANEL.0).replace("font-size=\"15\"", "font-size=\"8\""));
    panel(&mut out, c, m, 0.0, 36.0, decades(c));
    out.push_str("</svg>\n");
    out
}

/// Figure 2.7: machines on a circle, pairs closer than the threshold joined (with their
/// distance), each connected component in its own color.
pub fn cluster_graph(c: &Comparison) -> String {
    let (w, h) = GRAPH;
    let (cx, cy, r) = (w / 2.0, h / 2.0 + 10.0, w / 2.0 - 150.0);
    let n = c.machines.len().max(1);
    let at = |i: usize| {
        let a = -PI / 2.0 + 2.0 * PI * i as f64 / n as f64;
        (cx + r * a.cos(), cy + r * a.sin(), a)
    };
    let mut out = open(w, h);
    let _ = writeln!(out, "<text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">Machines joined when their pershape distance is below {}</text>", w / 2.0, c.clusters.threshold);
    for &(i, j, d) in &c.clusters.edges {
        let ((x1, y1, _), (x2, y2, _)) = (at(i), at(j));
        let _ = writeln!(out, "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"#555\" stroke-width=\"1.2\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" fill=\"#333\">{d:.3}</text>", (x1 + x2) / 2.0, (y1 + y2) / 2.0);
    }
    for (k, comp) in c.clusters.components.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        for &i in comp {
            let (x, y, a) = at(i);
            let anchor = if a.cos() < -0.1 {
                "end"
            } else if a.cos() > 0.1 {
                "start"
            } else {
                "middle"
            };
            let (tx, ty) = (x + 12.0 * a.cos(), y + 12.0 * a.sin() + 4.0);
            let _ = writeln!(out, "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"7\" fill=\"{color}\"/><text x=\"{tx:.1}\" y=\"{ty:.1}\" font-size=\"12\" text-anchor=\"{anchor}\">{}</text>", escape(&c.machines[i]));
        }
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::outline;

    fn points(known: &[bool]) -> Vec<Option<String>> {
        known
            .iter()
            .enumerate()
            .map(|(k, &on)| on.then(|| format!("{k}.0,{k}.0")))
            .collect()
    }

    #[test]
    fn a_missing_parameter_leaves_a_gap_in_the_shape() {
        let mut full = String::new();
        outline(&mut full, &points(&[true, true, true, true]), "red");
        assert!(full.contains("<polygon") && !full.contains("<polyline"));
        let mut gap = String::new();
        outline(&mut gap, &points(&[true, false, true, true]), "red");
        assert!(!gap.contains("<polygon"));
        // Edges 2-3 and 3-0 remain; nothing joins 0 to 2 across the missing axis 1.
        assert_eq!(gap.matches("<polyline").count(), 2);
        assert!(!gap.contains("0.0,0.0 2.0,2.0"));
    }
}
