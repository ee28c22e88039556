//! The tables: one profile's tests and ratings, or the ratings of several profiles side
//! by side (tables 4.9-4.11 in one, a column per compiler setting).

use crate::catalogue::OPTIMIZATIONS;
use augur_machine_profile::optimizations::{OptimizationsProfile, Summary, TestResult};
use std::fmt::Write as _;

/// The display name of an optimization key.
pub fn name_of(key: &str) -> &str {
    OPTIMIZATIONS
        .iter()
        .find(|o| o.0 == key)
        .map_or(key, |o| o.1)
}

/// A row's label: `constant folding (local)`, `inlining`.
fn label(s: &Summary) -> String {
    match s.scope.as_str() {
        "-" => name_of(&s.optimization).to_string(),
        scope => format!("{} ({scope})", name_of(&s.optimization)),
    }
}

/// One test's numbers: `N 1.2  O 0.4  C 1.2  e 0.05` or `N/O 1.02 [0.98, 1.06] < 1.3`.
fn numbers(t: &TestResult) -> String {
    let mut s = format!("N {:>8.3}", t.naive_ns);
    let opt = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.3}"));
    let _ = write!(s, "  O {:>8}  C {:>8}", opt(t.opt_ns), opt(t.cripple_ns));
    if let Some(e) = t.effectiveness {
        let _ = write!(s, "  e {e:>6.2}  p {:.4}", t.p_value.unwrap_or(1.0));
    }
    if let (Some(r), Some(lo), Some(th)) = (t.ratio, t.ratio_low, t.ratio_threshold) {
        let hi = t
            .ratio_high
            .map_or("inf".to_string(), |h| format!("{h:.2}"));
        let _ = write!(s, "  R {r:.2} [{lo:.2}, {hi}] vs {th}");
    }
    s
}

/// The table of one profile's section: every test, then the ratings with the report.
pub fn single(p: &OptimizationsProfile) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<44} {:<12} numbers (ns per iteration)",
        "test", "verdict"
    );
    for t in &p.tests {
        let _ = writeln!(out, "{:<44} {:<12} {}", t.key, t.verdict, numbers(t));
        if !t.note.is_empty() {
            let _ = writeln!(out, "{:<44} {:<12} ({})", "", "", t.note);
        }
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{:<48} {:<12} {:<9} {:<13} contradiction",
        "optimization", "rating", "detected", "report"
    );
    for s in &p.summaries {
        let _ = writeln!(
            out,
            "{:<48} {:<12} {:<9} {:<13} {}",
            label(s),
            s.rating,
            format!("{}/{}", s.detected, s.conclusive),
            s.report,
            s.contradiction
        );
    }
    out
}

/// The stability of repeated runs: one line per row whose runs disagree, then the share.
pub fn stability(p: &OptimizationsProfile) -> String {
    let mut out = String::new();
    let (stable, total) = crate::stability(p);
    let runs = p.summaries.first().map_or(0, |s| s.repeats.len());
    for s in p
        .summaries
        .iter()
        .filter(|s| s.repeats.windows(2).any(|w| w[0] != w[1]))
    {
        let _ = writeln!(out, "unstable: {}: {}", label(s), s.repeats.join(", "));
    }
    let share = 100.0 * stable as f64 / total.max(1) as f64;
    let _ = writeln!(
        out,
        "stability: {stable} of {total} ratings ({share:.0}%) the same in all {runs} runs (target: 90%)"
    );
    out
}

/// The ratings of several profiles side by side, as a Markdown table: a row per
/// optimization and scope (in catalogue order), a column per `(label, section)`. A rating
/// that contradicts the compiler's report is marked `*`; a rating that changed between
/// repeated runs lists them (`yes/no/yes`).
pub fn side_by_side(columns: &[(String, &OptimizationsProfile)]) -> String {
    let mut out = String::from("| optimization |");
    for (l, _) in columns {
        let _ = write!(out, " {l} |");
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(columns.len()));
    out.push('\n');
    let mut rows: Vec<(&str, &str)> = Vec::new();
    for (key, _) in OPTIMIZATIONS {
        for scope in ["local", "global", "-"] {
            let present = columns.iter().any(|c| c.1.summary(key, scope).is_some());
            if present {
                rows.push((key, scope));
            }
        }
    }
    for (key, scope) in rows {
        let mut line = match scope {
            "-" => format!("| {} |", name_of(key)),
            s => format!("| {} ({s}) |", name_of(key)),
        };
        for (_, p) in columns {
            let cell = p.summary(key, scope).map_or("".to_string(), cell);
            let _ = write!(line, " {cell} |");
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// One cell: the rating, `*` when it contradicts the report, the runs when they differ.
fn cell(s: &Summary) -> String {
    let mut c = s.rating.clone();
    if !s.contradiction.is_empty() {
        c.push('*');
    }
    if s.repeats.windows(2).any(|w| w[0] != w[1]) {
        let _ = write!(c, " ({})", s.repeats.join("/"));
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(opt: &str, scope: &str, rating: &str) -> Summary {
        Summary {
            optimization: opt.into(),
            scope: scope.into(),
            rating: rating.into(),
            conclusive: 3,
            detected: 3,
            report: String::new(),
            contradiction: String::new(),
            repeats: vec![],
        }
    }

    fn profile(rows: Vec<Summary>) -> OptimizationsProfile {
        OptimizationsProfile {
            alpha: 0.05,
            observations: 8,
            window_ms: 2.0,
            elapsed_s: 1.0,
            summaries: rows,
            tests: vec![],
        }
    }

    #[test]
    fn side_by_side_has_a_column_per_profile_and_marks_contradictions() {
        let a = profile(vec![
            summary("constant_folding", "local", "no"),
            summary("inlining", "-", "no"),
        ]);
        let mut inl = summary("inlining", "-", "yes");
        inl.contradiction = "x".into();
        inl.repeats = vec!["yes".into(), "no".into()];
        let b = profile(vec![summary("constant_folding", "local", "yes"), inl]);
        let t = side_by_side(&[("gfortran -O0".into(), &a), ("gfortran -O2".into(), &b)]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "| optimization | gfortran -O0 | gfortran -O2 |");
        assert_eq!(lines[2], "| constant folding (local) | no | yes |");
        assert_eq!(lines[3], "| inlining | no | yes* (yes/no) |");
    }

    #[test]
    fn stability_counts_rows_whose_runs_agree() {
        let mut a = summary("cse", "local", "yes");
        a.repeats = vec!["yes".into(); 5];
        let mut b = summary("cse", "global", "yes");
        b.repeats = vec!["yes".into(), "partial".into()];
        let text = stability(&profile(vec![a, b]));
        assert!(text.contains("unstable: common subexpression elimination (global)"));
        assert!(text.contains("1 of 2 ratings (50%)"), "{text}");
    }
}
