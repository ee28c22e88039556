//! The figures as SVG, built as strings (no font or library needed): Kiviat graphs of the
//! pershapes (log scale, as the thesis's figures 2.5-2.6) and the cluster graph of
//! figure 2.7.
//!
//! One style for both: the Okabe-Ito colour-blind-safe palette, text of at least 13 px
//! (titles 18 px and more), a title naming the machines and the reference compared. Text
//! is laid out with an estimate of its width (DejaVu Sans, the widest of the usual
//! sans-serif fonts): every label is placed where it overlaps no other and stays inside
//! the figure, and one that cannot be is left out rather than overprinted.

use crate::compare::Comparison;
use crate::reduced::PARAMETERS;
use std::f64::consts::PI;
use std::fmt::Write;

/// Width and height of one Kiviat panel (with the machine's name above it), px.
pub const PANEL: (f64, f64) = (440.0, 380.0);
/// Kiviat panels per row of the grid.
pub const COLUMNS: usize = 4;

/// The Okabe-Ito palette: blue, vermillion, green, purple, sky, orange, black.
pub const PALETTE: [&str; 7] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#E69F00", "#000000",
];

/// Font sizes, px.
const TITLE: f64 = 20.0;
const SUBTITLE: f64 = 14.0;
const NAME: f64 = 16.0;
const LABEL: f64 = 13.0;
/// The radius of a Kiviat graph's outer ring, px.
const RADIUS: f64 = 130.0;
/// Space between the outer ring and an axis's label, px.
const AXIS_GAP: f64 = 8.0;
/// Room above a panel's centre for the machine's name, px.
const NAME_ROOM: f64 = 34.0;
/// Margin around a figure, px.
const MARGIN: f64 = 12.0;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// An axis-aligned rectangle, px.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Rect {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Rect {
    fn overlaps(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    fn grown(&self, d: f64) -> Rect {
        Rect {
            x0: self.x0 - d,
            y0: self.y0 - d,
            x1: self.x1 + d,
            y1: self.y1 + d,
        }
    }

    #[cfg(test)]
    fn within(&self, w: f64, h: f64) -> bool {
        self.x0 >= 0.0 && self.y0 >= 0.0 && self.x1 <= w && self.y1 <= h
    }

    /// Whether the segment `a`-`b` crosses the rectangle (Liang-Barsky clipping).
    fn cut_by(&self, (ax, ay): (f64, f64), (bx, by): (f64, f64)) -> bool {
        let (dx, dy) = (bx - ax, by - ay);
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        for (p, q) in [
            (-dx, ax - self.x0),
            (dx, self.x1 - ax),
            (-dy, ay - self.y0),
            (dy, self.y1 - ay),
        ] {
            if p == 0.0 {
                if q < 0.0 {
                    return false;
                }
            } else {
                let t = q / p;
                if p < 0.0 {
                    t0 = t0.max(t);
                } else {
                    t1 = t1.min(t);
                }
            }
        }
        t0 <= t1
    }
}

/// The estimated width of `s` at `size` px (DejaVu Sans; bold about 12% wider).
fn text_width(s: &str, size: f64, bold: bool) -> f64 {
    let em: f64 = s
        .chars()
        .map(|ch| match ch {
            'i' | 'j' | 'l' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' => 0.3,
            ' ' | 'f' | 't' | 'r' | '(' | ')' | '[' | ']' | '-' => 0.4,
            'm' | 'w' | 'M' | 'W' => 0.9,
            c if c.is_ascii_uppercase() => 0.72,
            _ => 0.64,
        })
        .sum();
    em * size * if bold { 1.12 } else { 1.0 }
}

/// Where a text's position is on it, horizontally.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    /// The anchor of a label placed outward along a direction whose cosine is `cos`:
    /// its start toward the right, its end toward the left, centred within `dead` of
    /// vertical.
    fn outward(cos: f64, dead: f64) -> Anchor {
        if cos > dead {
            Anchor::Start
        } else if cos < -dead {
            Anchor::End
        } else {
            Anchor::Middle
        }
    }

    fn name(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// A text to draw: its lines (the first at `y`, centred vertically on it), size and place.
#[derive(Debug, Clone)]
struct Label {
    lines: Vec<String>,
    x: f64,
    y: f64,
    size: f64,
    anchor: Anchor,
    bold: bool,
    fill: &'static str,
    /// Degrees, about `(x, y)`.
    rotate: f64,
    /// A white outline keeping it readable over lines.
    halo: bool,
}

impl Label {
    fn new(text: impl Into<String>, x: f64, y: f64, size: f64, anchor: Anchor) -> Label {
        Label {
            lines: vec![text.into()],
            x,
            y,
            size,
            anchor,
            bold: false,
            fill: "#000",
            rotate: 0.0,
            halo: false,
        }
    }

    fn line_height(&self) -> f64 {
        self.size * 1.25
    }

    /// The corners of its box, rotated with it.
    fn corners(&self) -> [(f64, f64); 4] {
        let w = self
            .lines
            .iter()
            .map(|l| text_width(l, self.size, self.bold))
            .fold(0.0, f64::max);
        let (x0, x1) = match self.anchor {
            Anchor::Start => (0.0, w),
            Anchor::Middle => (-w / 2.0, w / 2.0),
            Anchor::End => (-w, 0.0),
        };
        let (y0, y1) = (
            -self.size * 0.6,
            self.size * 0.6 + self.line_height() * (self.lines.len() as f64 - 1.0),
        );
        let (s, c) = self.rotate.to_radians().sin_cos();
        [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
            .map(|(u, v)| (self.x + u * c - v * s, self.y + u * s + v * c))
    }

    /// Whether its box and `other`'s (rotated or not) overlap: no separating axis among
    /// the two boxes' edges.
    #[cfg(test)]
    fn collides(&self, other: &Label) -> bool {
        let (a, b) = (self.corners(), other.corners());
        let separated = |p: &[(f64, f64); 4]| {
            (0..2).any(|e| {
                let (dx, dy) = (p[e + 1].0 - p[e].0, p[e + 1].1 - p[e].1);
                let (nx, ny) = (-dy, dx);
                let proj = |q: &[(f64, f64); 4]| {
                    q.iter()
                        .map(|(x, y)| x * nx + y * ny)
                        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                            (lo.min(v), hi.max(v))
                        })
                };
                let ((alo, ahi), (blo, bhi)) = (proj(&a), proj(&b));
                ahi <= blo || bhi <= alo
            })
        };
        !separated(&a) && !separated(&b)
    }

    /// Its bounding box (of the rotated box when rotated).
    fn rect(&self) -> Rect {
        let corners = self.corners();
        let fold = |f: fn(f64, f64) -> f64, init: f64, pick: fn(&(f64, f64)) -> f64| {
            corners.iter().map(pick).fold(init, f)
        };
        Rect {
            x0: fold(f64::min, f64::INFINITY, |p| p.0),
            y0: fold(f64::min, f64::INFINITY, |p| p.1),
            x1: fold(f64::max, f64::NEG_INFINITY, |p| p.0),
            y1: fold(f64::max, f64::NEG_INFINITY, |p| p.1),
        }
    }

    fn svg(&self) -> String {
        let mut attrs = format!(
            "x=\"{:.1}\" y=\"{:.1}\" font-size=\"{}\" text-anchor=\"{}\" dominant-baseline=\"central\" fill=\"{}\"",
            self.x,
            self.y,
            self.size,
            self.anchor.name(),
            self.fill
        );
        if self.bold {
            attrs.push_str(" font-weight=\"bold\"");
        }
        if self.rotate != 0.0 {
            let _ = write!(
                attrs,
                " transform=\"rotate({:.1} {:.1} {:.1})\"",
                self.rotate, self.x, self.y
            );
        }
        if self.halo {
            attrs.push_str(
                " stroke=\"white\" stroke-width=\"4\" stroke-linejoin=\"round\" paint-order=\"stroke\"",
            );
        }
        let mut body = String::new();
        for (i, line) in self.lines.iter().enumerate() {
            if i == 0 {
                body.push_str(&escape(line));
            } else {
                let _ = write!(
                    body,
                    "<tspan x=\"{:.1}\" dy=\"{:.1}\">{}</tspan>",
                    self.x,
                    self.line_height(),
                    escape(line)
                );
            }
        }
        format!("<text {attrs}>{body}</text>\n")
    }
}

/// A figure being drawn: its shapes and its texts (kept to check their placement).
#[derive(Debug, Default)]
struct Figure {
    width: f64,
    height: f64,
    shapes: String,
    labels: Vec<Label>,
    /// Texts drawn above the shapes (ring labels over the polygons).
    over: Vec<Label>,
    /// The cluster graph's edges, ends in px.
    edges: Vec<((f64, f64), (f64, f64))>,
}

impl Figure {
    fn finish(&self) -> String {
        let (w, h) = (self.width.ceil(), self.height.ceil());
        let mut out = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        );
        out.push_str(&self.shapes);
        for l in self.labels.iter().chain(&self.over) {
            out.push_str(&l.svg());
        }
        out.push_str("</svg>\n");
        out
    }
}

/// `text` broken into lines no wider than `width` at `size`.
fn wrap(text: &str, size: f64, bold: bool, width: f64) -> Vec<String> {
    let mut lines: Vec<String> = vec![];
    let mut line = String::new();
    for word in text.split_whitespace() {
        let candidate = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if !line.is_empty() && text_width(&candidate, size, bold) > width {
            lines.push(std::mem::replace(&mut line, word.to_string()));
        } else {
            line = candidate;
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// Draws a title (bold) and a subtitle, wrapped to `width` and centred; returns the
/// height they take.
fn heading(fig: &mut Figure, title: &str, subtitle: &str, width: f64) -> f64 {
    let mut y = MARGIN + TITLE * 0.6;
    let room = width - 2.0 * MARGIN;
    for line in wrap(title, TITLE, true, room) {
        let mut l = Label::new(line, width / 2.0, y, TITLE, Anchor::Middle);
        l.bold = true;
        fig.labels.push(l);
        y += TITLE * 1.25;
    }
    y += 2.0;
    for line in wrap(subtitle, SUBTITLE, false, room) {
        let mut l = Label::new(line, width / 2.0, y, SUBTITLE, Anchor::Middle);
        l.fill = "#333";
        fig.labels.push(l);
        y += SUBTITLE * 1.25;
    }
    y + 4.0
}

/// "a, b and c".
fn list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

// ---------------------------------------------------------------- Kiviat graphs

/// Machine `m`'s speed on parameter `k` relative to the reference, when it can be drawn
/// on a log scale (known, positive and finite).
fn speed(c: &Comparison, m: usize, k: usize) -> Option<f64> {
    c.speedup(m, k).filter(|v| *v > 0.0 && v.is_finite())
}

/// The decades the speedups span, common to every panel: `(lo, hi)` powers of ten.
fn decades(c: &Comparison) -> (i32, i32) {
    let logs: Vec<f64> = (0..c.machines.len())
        .flat_map(|m| (0..PARAMETERS.len()).filter_map(move |k| speed(c, m, k)))
        .map(f64::log10)
        .collect();
    let lo = logs.iter().copied().fold(0.0, f64::min).floor() as i32;
    let hi = logs.iter().copied().fold(0.0, f64::max).ceil() as i32;
    (lo, hi.max(lo + 1))
}

/// `10^d` as a speed ratio with an SI prefix: "0.1×", "1×", "100×", "10k×", "1M×".
fn ratio_label(d: i32) -> String {
    if d < 0 {
        return format!("{}×", 10f64.powi(d));
    }
    let (prefix, rest) = match d {
        0..=2 => ("", d),
        3..=5 => ("k", d - 3),
        6..=8 => ("M", d - 6),
        9..=11 => ("G", d - 9),
        _ => ("T", d - 12),
    };
    format!("{}{prefix}×", 10u64.pow(rest as u32))
}

/// The angle of axis `k` (the first straight up, clockwise).
fn axis_angle(k: usize) -> f64 {
    -PI / 2.0 + 2.0 * PI * k as f64 / PARAMETERS.len() as f64
}

/// The point of axis `k` at radius `r` around `(cx, cy)`.
fn polar(cx: f64, cy: f64, r: f64, k: usize) -> (f64, f64) {
    let a = axis_angle(k);
    (cx + r * a.cos(), cy + r * a.sin())
}

/// Why machine `m` has no point on axis `k`: "0 ns" (not detected: the operation was
/// overlapped), "n/a" (not measured), or the reference's "ref: 0 ns" or "ref: n/a" (no
/// ratio to take).
fn missing_note(c: &Comparison, m: usize, k: usize) -> Option<&'static str> {
    if speed(c, m, k).is_some() {
        return None;
    }
    let (own, reference) = (c.value(m, k), c.value(c.reference, k));
    Some(match (own, reference) {
        (Some(v), _) if v <= 0.0 => "0 ns",
        (None, _) => "n/a",
        (_, Some(r)) if r <= 0.0 => "ref: 0 ns",
        _ => "ref: n/a",
    })
}

/// A machine's shape from its points on the axes (`None` where it has none): one closed
/// path through the known points in axis order (a missing axis is skipped and its
/// neighbours joined), and the outline's edges as pairs of axes, those between
/// neighbouring axes solid, those across a missing one dashed.
#[derive(Debug, PartialEq)]
struct Outline {
    /// The closed path's `d` (empty with no point).
    path: String,
    solid: Vec<(usize, usize)>,
    dashed: Vec<(usize, usize)>,
}

fn outline(points: &[Option<(f64, f64)>]) -> Outline {
    let known: Vec<usize> = (0..points.len()).filter(|&k| points[k].is_some()).collect();
    let at = |k: usize| points[k].unwrap_or_default();
    let mut path = String::new();
    for (i, &k) in known.iter().enumerate() {
        let (x, y) = at(k);
        let _ = write!(path, "{}{x:.1},{y:.1} ", if i == 0 { "M" } else { "L" });
    }
    if !known.is_empty() {
        path.push('Z');
    }
    let (mut solid, mut dashed) = (vec![], vec![]);
    if known.len() >= 2 {
        for (i, &a) in known.iter().enumerate() {
            let b = known[(i + 1) % known.len()];
            if known.len() == 2 && i == 1 {
                break; // one chord, not drawn twice
            }
            if (a + 1) % points.len() == b {
                solid.push((a, b));
            } else {
                dashed.push((a, b));
            }
        }
    }
    Outline {
        path,
        solid,
        dashed,
    }
}

/// The `d` of segments between the points of these pairs of axes.
fn segments(points: &[Option<(f64, f64)>], pairs: &[(usize, usize)]) -> String {
    let mut d = String::new();
    for &(a, b) in pairs {
        if let (Some((ax, ay)), Some((bx, by))) = (points[a], points[b]) {
            let _ = write!(d, "M{ax:.1},{ay:.1} L{bx:.1},{by:.1} ");
        }
    }
    d
}

/// The labels of the axes around `(cx, cy)`, with machine `m`'s reason for a missing
/// point on a second line.
fn axis_labels(c: &Comparison, m: usize, cx: f64, cy: f64) -> Vec<Label> {
    PARAMETERS
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let a = axis_angle(k);
            let (cos, sin) = (a.cos(), a.sin());
            let anchor = Anchor::outward(cos, 0.1);
            let mut lines = vec![p.short.to_string()];
            if let Some(note) = missing_note(c, m, k) {
                lines.push(format!("({note})"));
            }
            let n = lines.len() as f64;
            let r = RADIUS + AXIS_GAP;
            // The text's first line is centred on `y`: push it out by half its height
            // (above or below the ring), more when it has two lines and sits above.
            let (x, mut y) = (cx + r * cos, cy + r * sin);
            y += sin * LABEL * 0.6;
            if sin < 0.0 {
                y -= (n - 1.0) * LABEL * 1.25 * (-sin);
            }
            let mut l = Label::new(String::new(), x, y, LABEL, anchor);
            l.lines = lines;
            if missing_note(c, m, k).is_some() {
                l.fill = "#666";
            }
            l
        })
        .collect()
}

/// The scale's labels on the rings (`radius` of decade `d`), along the bisector of the
/// first two axes, each only where it overlaps neither an axis's label nor another:
/// 1× (the reference) first, then every `step`-th decade so that they stay apart.
fn ring_labels(
    cx: f64,
    cy: f64,
    (lo, hi): (i32, i32),
    radius: impl Fn(i32) -> f64,
    taken: &[Rect],
) -> Vec<Label> {
    let a = -PI / 2.0 + PI / PARAMETERS.len() as f64;
    let spacing = (radius(hi) - radius(lo)) / (hi - lo) as f64;
    let step = ((LABEL * 1.4) / spacing).ceil().max(1.0) as i32;
    let mut order: Vec<i32> = vec![0];
    order.extend(
        (lo..=hi)
            .rev()
            .filter(|d| *d != 0 && d.rem_euclid(step) == 0),
    );
    let mut placed: Vec<Label> = vec![];
    for d in order {
        let r = radius(d);
        let mut l = Label::new(
            ratio_label(d),
            cx + r * a.cos(),
            cy + r * a.sin(),
            LABEL,
            Anchor::Middle,
        );
        l.fill = if d == 0 { "#000" } else { "#555" };
        l.halo = true;
        let rect = l.rect().grown(1.0);
        if taken.iter().any(|t| t.overlaps(&rect))
            || placed.iter().any(|p| p.rect().overlaps(&rect))
        {
            continue;
        }
        placed.push(l);
    }
    placed
}

/// One machine's panel at `(x, y)`: decade rings, axes, its shape, the scale. With
/// `name`, the machine's name above.
fn panel(
    fig: &mut Figure,
    c: &Comparison,
    m: usize,
    x: f64,
    y: f64,
    scale: (i32, i32),
    name: bool,
) {
    let (lo, hi) = scale;
    let top = if name { NAME_ROOM } else { 0.0 };
    let (cx, cy) = (x + PANEL.0 / 2.0, y + top + RADIUS + AXIS_GAP + 26.0);
    let radius = |d: f64| RADIUS * (0.1 + 0.9 * (d - lo as f64) / (hi - lo) as f64);
    let color = PALETTE[m % PALETTE.len()];
    if name {
        let mut l = Label::new(c.machines[m].clone(), cx, y + 18.0, NAME, Anchor::Middle);
        l.bold = true;
        fig.labels.push(l);
    }
    let s = &mut fig.shapes;
    for d in lo..=hi {
        let (stroke, width) = if d == 0 { ("#777", 1.5) } else { ("#ddd", 1.0) };
        let _ = writeln!(s, "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"{:.1}\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"{width}\"/>", radius(d as f64));
    }
    for k in 0..PARAMETERS.len() {
        let (ax, ay) = polar(cx, cy, RADIUS, k);
        let _ = writeln!(
            s,
            "<line x1=\"{cx:.1}\" y1=\"{cy:.1}\" x2=\"{ax:.1}\" y2=\"{ay:.1}\" stroke=\"#ddd\"/>"
        );
    }
    let points: Vec<Option<(f64, f64)>> = (0..PARAMETERS.len())
        .map(|k| speed(c, m, k).map(|v| polar(cx, cy, radius(v.log10()), k)))
        .collect();
    let shape = outline(&points);
    if !shape.path.is_empty() {
        let _ = writeln!(
            s,
            "<path d=\"{}\" fill=\"{color}\" fill-opacity=\"0.2\" stroke=\"none\"/>",
            shape.path
        );
    }
    if !shape.solid.is_empty() {
        let _ = writeln!(s, "<path d=\"{}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" stroke-linejoin=\"round\"/>", segments(&points, &shape.solid).trim_end());
    }
    if !shape.dashed.is_empty() {
        let _ = writeln!(s, "<path d=\"{}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" stroke-dasharray=\"5 4\"/>", segments(&points, &shape.dashed).trim_end());
    }
    for (px, py) in points.iter().flatten() {
        let _ = writeln!(
            s,
            "<circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"3\" fill=\"{color}\"/>"
        );
    }
    let axes = axis_labels(c, m, cx, cy);
    let taken: Vec<Rect> = axes.iter().map(Label::rect).collect();
    fig.over
        .extend(ring_labels(cx, cy, scale, |d| radius(d as f64), &taken));
    fig.labels.extend(axes);
}

/// The subtitle of the Kiviat figures.
fn kiviat_subtitle(c: &Comparison, machines: &[usize]) -> String {
    let reference = &c.machines[c.reference];
    let mut s = format!(
        "Speed per reduced parameter (Saavedra-Barrera's Table 2.5): {reference}'s time over the machine's, log scale, outward is faster; the dark ring (1×) is {reference}."
    );
    let notes: Vec<&str> = machines
        .iter()
        .flat_map(|&m| (0..PARAMETERS.len()).filter_map(move |k| missing_note(c, m, k)))
        .collect();
    let said: Vec<String> = [
        ("n/a", "n/a: not measured".to_string()),
        ("0 ns", "0 ns: not detected".to_string()),
        ("ref: ", format!("ref: {reference} lacks it")),
    ]
    .into_iter()
    .filter(|(key, _)| notes.iter().any(|n| n.starts_with(key)))
    .map(|(_, text)| text)
    .collect();
    if !said.is_empty() {
        let _ = write!(
            s,
            " Dashed: the outline across a parameter without a ratio ({}).",
            said.join("; ")
        );
    }
    s
}

fn kiviat_grid_figure(c: &Comparison) -> Figure {
    let n = c.machines.len().max(1);
    let cols = n.min(COLUMNS);
    let rows = n.div_ceil(cols);
    let width = cols as f64 * PANEL.0;
    let reference = &c.machines[c.reference];
    let title = if c.machines.len() <= 6 {
        format!("Pershapes of {} relative to {reference}", list(&c.machines))
    } else {
        format!(
            "Pershapes of {} machines relative to {reference}",
            c.machines.len()
        )
    };
    let mut fig = Figure {
        width,
        ..Figure::default()
    };
    let all: Vec<usize> = (0..c.machines.len()).collect();
    let top = heading(&mut fig, &title, &kiviat_subtitle(c, &all), width);
    let scale = decades(c);
    for m in 0..c.machines.len() {
        let (col, row) = (m % cols, m / cols);
        panel(
            &mut fig,
            c,
            m,
            col as f64 * PANEL.0,
            top + row as f64 * PANEL.1,
            scale,
            true,
        );
    }
    fig.height = top + rows as f64 * PANEL.1;
    fig
}

fn kiviat_figure(c: &Comparison, m: usize) -> Figure {
    let width = PANEL.0;
    let mut fig = Figure {
        width,
        ..Figure::default()
    };
    let title = format!("{} relative to {}", c.machines[m], c.machines[c.reference]);
    let top = heading(&mut fig, &title, &kiviat_subtitle(c, &[m]), width);
    panel(&mut fig, c, m, 0.0, top, decades(c), false);
    fig.height = top + PANEL.1 - NAME_ROOM;
    fig
}

/// Every machine's Kiviat graph in one grid, on a common log scale.
pub fn kiviat_grid(c: &Comparison) -> String {
    kiviat_grid_figure(c).finish()
}

/// One machine's Kiviat graph (the scale common to the comparison).
pub fn kiviat(c: &Comparison, m: usize) -> String {
    kiviat_figure(c, m).finish()
}

// ---------------------------------------------------------------- the cluster graph

/// Radius of a machine's dot in the cluster graph, px.
const DOT: f64 = 7.0;

/// The colour of each machine in the cluster graph: one per cluster of two or more
/// (the palette's colours but black, in turn), black for a machine joined to none.
fn cluster_colors(c: &Comparison) -> Vec<&'static str> {
    let mut colors = vec![PALETTE[6]; c.machines.len()];
    let mut next = 0;
    for comp in &c.clusters.components {
        if comp.len() < 2 {
            continue;
        }
        for &i in comp {
            if let Some(slot) = colors.get_mut(i) {
                *slot = PALETTE[next % 6];
            }
        }
        next += 1;
    }
    colors
}

/// The machines' names around the circle of radius `r` centred on `(cx, cy)`: level
/// when no two overlap, else along the radii (which keeps neighbours apart).
fn node_labels(names: &[String], cx: f64, cy: f64, r: f64, angles: &[f64]) -> Vec<Label> {
    let out = DOT + 6.0;
    let level: Vec<Label> = names
        .iter()
        .zip(angles)
        .map(|(name, &a)| {
            let (cos, sin) = (a.cos(), a.sin());
            let anchor = Anchor::outward(cos, 0.3);
            let d = r
                + out
                + if anchor == Anchor::Middle {
                    NAME * 0.3
                } else {
                    0.0
                };
            Label::new(name.clone(), cx + d * cos, cy + d * sin, NAME, anchor)
        })
        .collect();
    let rects: Vec<Rect> = level.iter().map(|l| l.rect().grown(2.0)).collect();
    let clash =
        (0..rects.len()).any(|i| (i + 1..rects.len()).any(|j| rects[i].overlaps(&rects[j])));
    if !clash {
        return level;
    }
    names
        .iter()
        .zip(angles)
        .map(|(name, &a)| {
            let (x, y) = (cx + (r + out) * a.cos(), cy + (r + out) * a.sin());
            let deg = a.to_degrees();
            let (anchor, rotate) = if a.cos() >= -1e-9 {
                (Anchor::Start, deg)
            } else {
                (Anchor::End, deg + 180.0)
            };
            let mut l = Label::new(name.clone(), x, y, NAME, anchor);
            l.rotate = rotate;
            l
        })
        .collect()
}

fn cluster_figure(c: &Comparison) -> Figure {
    let n = c.machines.len().max(1);
    // Dots at least 40 px apart along the circle.
    let r = (n as f64 * 40.0 / (2.0 * PI)).max(200.0);
    // Around the circle cluster by cluster (the machines of one side by side, so that
    // most edges are short chords), in the order given within each.
    let mut order: Vec<usize> = c.clusters.components.iter().flatten().copied().collect();
    let rest: Vec<usize> = (0..c.machines.len())
        .filter(|i| !order.contains(i))
        .collect();
    order.extend(rest);
    let mut angles = vec![0.0; c.machines.len()];
    for (slot, &i) in order.iter().enumerate() {
        if let Some(a) = angles.get_mut(i) {
            *a = -PI / 2.0 + 2.0 * PI * slot as f64 / n as f64;
        }
    }
    // Laid out around (0, 0) first, then moved below the heading.
    let at = |i: usize| (r * angles[i].cos(), r * angles[i].sin());
    let colors = cluster_colors(c);
    let mut names = node_labels(&c.machines, 0.0, 0.0, r, &angles);
    let dots: Vec<Rect> = (0..c.machines.len())
        .map(|i| {
            let (x, y) = at(i);
            Rect {
                x0: x - DOT,
                y0: y - DOT,
                x1: x + DOT,
                y1: y + DOT,
            }
        })
        .collect();
    let mut edges = c.clusters.edges.clone();
    edges.sort_by(|a, b| a.2.total_cmp(&b.2));
    // The distances, closest first: on their edge, on a white box that covers no other
    // edge, no dot and no other text; one that finds no such place is left out.
    let mut taken: Vec<Rect> = names.iter().map(Label::rect).collect();
    taken.extend(dots.iter().copied());
    // On the edge (interrupting it) at its middle or near it, else beside it (across
    // no edge at all).
    let mut distances: Vec<(usize, bool, Label)> = vec![];
    for (e, &(i, j, d)) in edges.iter().enumerate() {
        let (a, b) = (at(i), at(j));
        let len = (b.0 - a.0).hypot(b.1 - a.1).max(1e-9);
        let normal = (-(b.1 - a.1) / len, (b.0 - a.0) / len);
        let on = [0.5, 0.4, 0.6, 0.3, 0.7, 0.25, 0.75].map(|f| (f, 0.0));
        let beside = [
            (0.5, 1.0),
            (0.5, -1.0),
            (0.35, 1.0),
            (0.65, 1.0),
            (0.35, -1.0),
            (0.65, -1.0),
        ];
        // Beside a long chord a number could be read as another's: on short ones only.
        let beside = if len < 150.0 { &beside[..] } else { &[] };
        for (f, side) in on.into_iter().chain(beside.iter().copied()) {
            let text = format!("{d:.3}");
            let half = text_width(&text, LABEL, false) / 2.0 * normal.0.abs()
                + LABEL * 0.6 * normal.1.abs()
                + 3.0;
            let (x, y) = (
                a.0 + f * (b.0 - a.0) + side * half * normal.0,
                a.1 + f * (b.1 - a.1) + side * half * normal.1,
            );
            let l = Label::new(text, x, y, LABEL, Anchor::Middle);
            let rect = l.rect().grown(2.0);
            let crosses = edges
                .iter()
                .enumerate()
                .any(|(o, &(p, q, _))| (o != e || side != 0.0) && rect.cut_by(at(p), at(q)));
            if !crosses && !taken.iter().any(|t| t.overlaps(&rect)) {
                taken.push(rect);
                distances.push((i, side == 0.0, l));
                break;
            }
        }
    }
    let extent = names.iter().map(Label::rect).fold(
        Rect {
            x0: -r - DOT,
            y0: -r - DOT,
            x1: r + DOT,
            y1: r + DOT,
        },
        |a, b| Rect {
            x0: a.x0.min(b.x0),
            y0: a.y0.min(b.y0),
            x1: a.x1.max(b.x1),
            y1: a.y1.max(b.y1),
        },
    );
    let joined = c
        .clusters
        .components
        .iter()
        .filter(|k| k.len() >= 2)
        .count();
    let title = if c.machines.len() <= 6 {
        format!("Pershape clusters of {}", list(&c.machines))
    } else {
        format!("Pershape clusters of {} machines", c.machines.len())
    };
    let subtitle = format!(
        "Joined: pershape distance (equation 2.10) below {}; {joined} cluster{} of two or more, one colour each; black: joined to none. On the edges: the distance, closest first where it covers nothing else ({} of {}).",
        c.clusters.threshold,
        if joined == 1 { "" } else { "s" },
        distances.len(),
        edges.len()
    );
    let width = (extent.x1 - extent.x0 + 2.0 * MARGIN)
        .max(text_width(&title, TITLE, true).min(900.0) + 2.0 * MARGIN)
        .max(560.0);
    let mut fig = Figure {
        width,
        ..Figure::default()
    };
    let top = heading(&mut fig, &title, &subtitle, width);
    let (cx, cy) = (width / 2.0 - (extent.x0 + extent.x1) / 2.0, top - extent.y0);
    fig.height = top + (extent.y1 - extent.y0) + MARGIN;
    let at = |i: usize| {
        let (x, y) = at(i);
        (cx + x, cy + y)
    };
    let s = &mut fig.shapes;
    for &(i, j, _) in &edges {
        let ((x1, y1), (x2, y2)) = (at(i), at(j));
        fig.edges.push(((x1, y1), (x2, y2)));
        let _ = writeln!(s, "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"{}\" stroke-opacity=\"0.55\" stroke-width=\"1.5\"/>", colors[i]);
    }
    for (i, on_edge, mut l) in distances {
        l.x += cx;
        l.y += cy;
        if !on_edge {
            l.halo = true;
            fig.over.push(l);
            continue;
        }
        let b = l.rect().grown(2.0);
        let _ = writeln!(s, "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"3\" fill=\"white\" stroke=\"{}\"/>", b.x0, b.y0, b.x1 - b.x0, b.y1 - b.y0, colors[i]);
        fig.over.push(l);
    }
    for (i, color) in colors.iter().enumerate() {
        let (x, y) = at(i);
        let _ = writeln!(s, "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{DOT}\" fill=\"{color}\" stroke=\"white\" stroke-width=\"1.5\"/>");
    }
    for l in &mut names {
        l.x += cx;
        l.y += cy;
    }
    fig.labels.extend(names);
    fig
}

/// Figure 2.7: machines on a circle, pairs closer than the threshold joined (with their
/// distance), each connected component in its own colour.
pub fn cluster_graph(c: &Comparison) -> String {
    cluster_figure(c).finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distance::Clusters;
    use crate::reduced::Reduced;

    fn pts(known: &[bool]) -> Vec<Option<(f64, f64)>> {
        known
            .iter()
            .enumerate()
            .map(|(k, &on)| on.then_some((k as f64, k as f64)))
            .collect()
    }

    #[test]
    fn a_missing_parameter_joins_its_neighbours_in_one_closed_shape() {
        let full = outline(&pts(&[true, true, true, true]));
        assert_eq!(full.path, "M0.0,0.0 L1.0,1.0 L2.0,2.0 L3.0,3.0 Z");
        assert_eq!(full.solid, vec![(0, 1), (1, 2), (2, 3), (3, 0)]);
        assert!(full.dashed.is_empty());

        let gap = outline(&pts(&[true, false, true, true]));
        // One closed path through the known points; axis 1 skipped, 0 and 2 joined.
        assert_eq!(gap.path, "M0.0,0.0 L2.0,2.0 L3.0,3.0 Z");
        assert_eq!(gap.path.matches('M').count(), 1);
        assert_eq!(gap.solid, vec![(2, 3), (3, 0)]);
        assert_eq!(gap.dashed, vec![(0, 2)]);

        // Missing at the wrap-around: the last known point joins the first.
        let wrap = outline(&pts(&[false, true, true, false]));
        assert_eq!(wrap.path, "M1.0,1.0 L2.0,2.0 Z");
        assert_eq!(wrap.solid, vec![(1, 2)]);
        assert!(wrap.dashed.is_empty());
        assert_eq!(outline(&pts(&[false, false])).path, "");
    }

    /// A comparison with three machines, the second lacking parameters 2 (a zero), 5 and
    /// 11 (not measured), the reference lacking 12, the third with a long name.
    fn sample() -> Comparison {
        let n = PARAMETERS.len();
        let reduced = [1000.0, 0.5, 0.001]
            .iter()
            .enumerate()
            .map(|(m, scale)| {
                let mut values: Vec<Option<f64>> =
                    (0..n).map(|k| Some(scale * (1.0 + k as f64))).collect();
                if m == 1 {
                    values[2] = Some(0.0);
                    values[5] = None;
                    values[11] = None;
                }
                if m == 0 {
                    values[12] = None;
                }
                Reduced {
                    values,
                    notes: vec![],
                }
            })
            .collect();
        Comparison {
            machines: vec![
                "ref".into(),
                "gap".into(),
                "gfortran12-O2-epyc-zen4-2core".into(),
            ],
            reduced,
            reference: 0,
            fastest: vec![None; n],
            distances: vec![vec![None; 3]; 3],
            clusters: Clusters {
                threshold: 0.7,
                edges: vec![],
                components: vec![vec![0], vec![1], vec![2]],
            },
        }
    }

    fn no_overlap_and_inside(fig: &Figure) {
        let all: Vec<&Label> = fig.labels.iter().chain(&fig.over).collect();
        for (i, a) in all.iter().enumerate() {
            let r = a.rect();
            assert!(
                r.within(fig.width, fig.height),
                "{:?} {r:?} outside {}x{}",
                a.lines,
                fig.width,
                fig.height
            );
            for b in &all[i + 1..] {
                assert!(!a.collides(b), "{:?} overlaps {:?}", a.lines, b.lines);
            }
        }
    }

    #[test]
    fn kiviat_texts_are_readable_apart_and_inside() {
        let c = sample();
        for fig in [
            kiviat_grid_figure(&c),
            kiviat_figure(&c, 1),
            kiviat_figure(&c, 2),
        ] {
            no_overlap_and_inside(&fig);
            assert!(fig.labels.iter().chain(&fig.over).all(|l| l.size >= 13.0));
            assert!(fig.labels.iter().any(|l| l.bold && l.size >= 18.0));
        }
        let grid = kiviat_grid(&c);
        assert!(grid
            .contains("Pershapes of ref, gap and gfortran12-O2-epyc-zen4-2core relative to ref"));
        for color in &PALETTE[..3] {
            assert!(grid.contains(color), "{color}");
        }
        // The gap machine: one filled path, a dashed edge across each missing axis, and
        // the reason on the axis.
        let one = kiviat(&c, 1);
        assert_eq!(one.matches("fill-opacity=\"0.2\"").count(), 1);
        assert!(one.contains("stroke-dasharray"));
        assert!(one.contains("(0 ns)") && one.contains("(n/a)") && one.contains("(ref: n/a)"));
        assert!(!one.contains("NaN") && !one.contains("inf"));
    }

    #[test]
    fn ring_labels_skip_what_they_would_overprint() {
        let c = sample();
        let fig = kiviat_figure(&c, 0);
        let rings: Vec<&str> = fig.over.iter().map(|l| l.lines[0].as_str()).collect();
        assert!(rings.contains(&"1×"), "{rings:?}");
        assert!(rings.len() >= 2, "{rings:?}");
        // Crowded rings (many decades): fewer labels, none overlapping.
        let placed = ring_labels(0.0, 0.0, (-2, 12), |d| 10.0 * d as f64, &[]);
        for (i, a) in placed.iter().enumerate() {
            for b in &placed[i + 1..] {
                assert!(!a.rect().overlaps(&b.rect()), "{:?} {:?}", a.lines, b.lines);
            }
        }
        assert!(placed.len() < 15);
        assert_eq!(ratio_label(4), "10k×");
        assert_eq!(ratio_label(-1), "0.1×");
        assert_eq!(ratio_label(7), "10M×");
    }

    #[test]
    fn the_cluster_graph_keeps_names_inside_and_distances_off_other_edges() {
        let mut c = sample();
        // Many machines with long names, all joined: a crowded graph.
        c.machines = (0..30)
            .map(|i| format!("gfortran12-O2-epyc-zen4-2core-{i}"))
            .collect();
        c.clusters.edges = (0..30)
            .flat_map(|i| {
                (i + 1..30)
                    .filter(move |j| (j - i) % 7 == 1)
                    .map(move |j| (i, j, 0.1 + 0.01 * j as f64))
            })
            .collect();
        c.clusters.components = vec![(0..30).collect()];
        let fig = cluster_figure(&c);
        no_overlap_and_inside(&fig);
        assert!(fig.labels.iter().any(|l| l.rotate != 0.0), "radial names");
        let svg = fig.finish();
        assert!(svg.contains("gfortran12-O2-epyc-zen4-2core-29"));
        assert!(svg.contains("Pershape clusters of 30 machines"));
        // Each distance shown sits on its own edge (crossed by it alone) or beside it
        // (crossed by none).
        assert!(!fig.over.is_empty());
        for l in &fig.over {
            let crossing = fig
                .edges
                .iter()
                .filter(|(a, b)| l.rect().cut_by(*a, *b))
                .count();
            assert!(crossing <= 1, "{:?} crossed by {crossing} edges", l.lines);
        }

        // Few machines: level names, each distance shown.
        let c = sample();
        let mut c2 = c.clone();
        c2.clusters.edges = vec![(0, 1, 0.25)];
        c2.clusters.components = vec![vec![0, 1], vec![2]];
        let fig = cluster_figure(&c2);
        no_overlap_and_inside(&fig);
        assert!(fig.labels.iter().all(|l| l.rotate == 0.0));
        assert_eq!(fig.over.len(), 1);
        let svg = fig.finish();
        assert!(svg.contains("0.250") && svg.contains("(1 of 1)"));
        assert!(svg.contains(PALETTE[0]) && svg.contains(PALETTE[6]));
    }
}
