//! What optimization does to a program, rendered: the per-loop explanation of
//! `augur predict PROFILE -m A -m B ... --by loop` (numbers from
//! `augur_model::speedup`) and `augur compare compilers` (tables 4.6 and 4.7, from
//! `augur_workload::speedups`).

use crate::predict::{fmt_seconds, short_path};
use anyhow::{bail, Result};
use augur_model::speedup::{Evidence, LoopSpeedup, Ratings, Reason, SpeedupExplanation};
use augur_validate::kept::{measured_matrix, KeptTiming};
use augur_workload::speedups::{Correlation, SpeedupTable, Speedups};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Options of `augur compare compilers`.
pub struct CompilersArgs {
    /// Program profiles.
    pub profiles: Vec<PathBuf>,
    /// Machines, one per compiler setting, the first the base.
    pub machines: Vec<String>,
    /// Directories of kept measured times.
    pub measured: Vec<PathBuf>,
    /// JSON instead of text.
    pub json: bool,
}

/// Runs `augur compare compilers`.
pub fn compare_compilers(a: &CompilersArgs) -> Result<ExitCode> {
    if a.machines.len() < 2 {
        bail!("give at least two compiler settings (-m BASE -m OTHER ...); the first is the base of the speedups");
    }
    let programs = augur_workload::load_programs(&a.profiles)?;
    let machines = augur_workload::load_machines(&a.machines)?;
    let measured = if a.measured.is_empty() {
        None
    } else {
        let mut kept = vec![];
        for dir in &a.measured {
            kept.extend(KeptTiming::read_dir(dir)?);
        }
        let names: Vec<String> = programs.iter().map(|p| kept_name(&p.path)).collect();
        let setups: Vec<String> = machines.iter().map(|m| m.setup()).collect();
        Some(measured_matrix(&kept, &names, &setups))
    };
    let table = augur_workload::speedups::speedup_table(&programs, &machines, 0, measured);
    if a.json {
        let doc = crate::schemas::Document::new("augur-compiler-comparison", &table);
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", table_text(&table));
    }
    Ok(ExitCode::SUCCESS)
}

/// The name a program's kept times go by: the profile's file stem without `.profile`
/// (`--save` writes `NAME.profile.json` beside `NAME.timing.json`).
fn kept_name(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    stem.strip_suffix(".profile").unwrap_or(&stem).to_string()
}

/// Column headings: each setting's compiler and flags, or its name when two share them.
fn headings(t: &SpeedupTable) -> Vec<String> {
    t.setups
        .iter()
        .zip(&t.settings)
        .map(|(setup, name)| {
            let shared = t.setups.iter().filter(|s| *s == setup).count() > 1;
            if shared || setup.is_empty() {
                name.clone()
            } else {
                setup.clone()
            }
        })
        .collect()
}

/// Tables 4.6 and 4.7 as text.
fn table_text(t: &SpeedupTable) -> String {
    let heads = headings(t);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "augur compare compilers: predicted speedups over {} ({}), {} program(s); (n) ranks the programs under each setting, 1 the largest speedup",
        heads[t.base],
        t.settings[t.base],
        t.programs.len()
    );
    s.push_str(&speedup_rows(t, &heads, &t.predicted));
    s.push_str(&correlation_rows(
        "\ncorrelation of the predicted per-program speedups between settings (table 4.7's form)",
        &heads,
        &t.predicted.correlations,
    ));
    if let Some(m) = &t.measured {
        let _ = writeln!(
            s,
            "\nmeasured speedups (kept runs, median CPU time; `-`: no run kept for that setting):"
        );
        s.push_str(&speedup_rows(t, &heads, m));
        s.push_str(&correlation_rows(
            "\ncorrelation of the measured per-program speedups between settings",
            &heads,
            &m.correlations,
        ));
        s.push_str(&correlation_rows(
            "\npredicted against measured speedups, per setting",
            &heads,
            &t.predicted_vs_measured,
        ));
    }
    s.push_str("\nsignificance: the one-sided probability of a coefficient this large without a positive correlation (Student's t, n - 2 degrees of freedom)\n");
    s
}

/// The rows of one speedup table: programs, then the geometric means.
fn speedup_rows(t: &SpeedupTable, heads: &[String], sp: &Speedups) -> String {
    let w = heads.iter().map(|h| h.len()).max().unwrap_or(8).max(14);
    let pw = t
        .programs
        .iter()
        .map(|p| p.len())
        .max()
        .unwrap_or(7)
        .max(15);
    let mut s = String::new();
    let _ = write!(s, "{:<pw$}", "program");
    for h in heads {
        let _ = write!(s, "  {h:>w$}");
    }
    s.push('\n');
    for (p, name) in t.programs.iter().enumerate() {
        let _ = write!(s, "{name:<pw$}");
        for c in 0..heads.len() {
            let cell = match (sp.speedups[p][c], sp.ranks[p][c]) {
                (Some(x), Some(r)) if c != t.base => format!("{x:.3} ({})", fmt_rank(r)),
                (Some(x), _) => format!("{x:.3}"),
                _ => "-".to_string(),
            };
            let _ = write!(s, "  {cell:>w$}");
        }
        s.push('\n');
    }
    let _ = write!(s, "{:<pw$}", "geometric mean");
    for g in &sp.geometric_means {
        let cell = g.map_or_else(|| "-".to_string(), |g| format!("{g:.3}"));
        let _ = write!(s, "  {cell:>w$}");
    }
    s.push('\n');
    s
}

/// A rank, as an integer when it is one (ties share half ranks).
fn fmt_rank(r: f64) -> String {
    if r.fract() == 0.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.1}")
    }
}

/// Correlation rows (table 4.7's form).
fn correlation_rows(title: &str, heads: &[String], rows: &[Correlation]) -> String {
    let mut s = String::new();
    if rows.is_empty() {
        return s;
    }
    let _ = writeln!(s, "{title}:");
    // The settings' names whole: two machines' names are wider than the usual column.
    let pairs: Vec<String> = rows
        .iter()
        .map(|c| {
            if c.a == c.b {
                heads[c.a].clone()
            } else {
                format!("{} and {}", heads[c.a], heads[c.b])
            }
        })
        .collect();
    let w = widest(pairs.iter().map(String::as_str), 40);
    let _ = writeln!(
        s,
        "  {:<w$} {:>8} {:>8} {:>8} {:>9} {:>8}",
        "settings", "programs", "Pearson", "signif.", "Spearman", "signif."
    );
    let num = |x: Option<f64>| x.map_or_else(|| "-".to_string(), |x| format!("{x:.4}"));
    for (c, pair) in rows.iter().zip(&pairs) {
        let _ = writeln!(
            s,
            "  {pair:<w$} {:>8} {:>8} {:>8} {:>9} {:>8}",
            c.programs,
            num(c.pearson),
            num(c.pearson_significance),
            num(c.spearman),
            num(c.spearman_significance)
        );
    }
    s
}

/// The width of a column of `names` shown whole: the widest of them, `least` at least.
fn widest<'a>(names: impl Iterator<Item = &'a str>, least: usize) -> usize {
    names
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max(least)
}

/// Each setting of `e` as its compiler and flags, or by its name when two share them (one
/// build on two machines).
fn setting_labels(e: &SpeedupExplanation) -> Vec<String> {
    let setups: Vec<&str> = e.settings.iter().map(|x| x.setup.as_str()).collect();
    e.settings
        .iter()
        .map(|st| {
            let shared = setups.iter().filter(|x| **x == st.setup).count() > 1;
            if shared || st.setup.is_empty() {
                st.name.clone()
            } else {
                st.setup.clone()
            }
        })
        .collect()
}

/// The per-loop explanation as text.
pub fn explanation_text(path: &Path, e: &SpeedupExplanation) -> String {
    let mut s = String::new();
    let Some(base) = e.settings.first() else {
        return s;
    };
    let same_build = e.settings.iter().all(|x| x.setup == base.setup);
    let _ = if same_build {
        writeln!(
            s,
            "\n{} built with {} on each machine: predicted speedups over {}, loop by loop",
            path.display(),
            base.setup,
            base.name
        )
    } else {
        writeln!(
            s,
            "\nwhat optimization does to {}: predicted speedups over {} ({}), loop by loop",
            path.display(),
            base.setup,
            base.name
        )
    };
    let name_w = widest(e.settings.iter().map(|x| x.name.as_str()), 30);
    let setup_w = widest(e.settings.iter().map(|x| x.setup.as_str()), 24);
    for st in &e.settings {
        let _ = writeln!(
            s,
            "  {:<name_w$} {:<setup_w$} {:>12}  speedup {}",
            st.name,
            st.setup,
            fmt_seconds(st.seconds),
            fmt_speedup(st.speedup)
        );
    }
    s.push_str(&rating_changes_text(e));
    for l in &e.loops {
        s.push_str(&loop_text(e, l));
    }
    if e.loops.is_empty() {
        let _ = writeln!(s, "\n  (no loop executed operations)");
    }
    for n in &e.notes {
        let _ = writeln!(s, "\nnote: {n}");
    }
    s
}

/// `2.345x`, or `-`.
fn fmt_speedup(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_string(), |x| format!("{x:.3}x"))
}

/// The ratings of one optimization across the settings: `no / yes / yes`.
fn ratings_line(r: &Ratings) -> String {
    r.ratings
        .iter()
        .map(|x| x.as_deref().unwrap_or("-"))
        .collect::<Vec<_>>()
        .join(" / ")
}

/// `code motion of invariants (local)`.
fn named(r: &Ratings) -> String {
    if r.scope == "-" {
        r.words.clone()
    } else {
        format!("{} ({})", r.words, r.scope)
    }
}

/// The detection-table rows that differ between the settings.
fn rating_changes_text(e: &SpeedupExplanation) -> String {
    let mut s = String::new();
    if e.rating_changes.is_empty() {
        return s;
    }
    let _ = writeln!(
        s,
        "\ndetection tables that differ ({}; `-`: no table):",
        setting_labels(e).join(" / ")
    );
    for r in &e.rating_changes {
        let _ = writeln!(s, "  {:<46} {}", named(r), ratings_line(r));
    }
    s
}

/// One loop: times, speedups, the cost-table changes and the reasons.
fn loop_text(e: &SpeedupExplanation, l: &LoopSpeedup) -> String {
    let mut s = String::new();
    let place = format!("{}:{}-{}", short_path(&l.file), l.first_line, l.last_line);
    let _ = writeln!(s, "\n{}  {}", l.name, place);
    let labels = setting_labels(e);
    let w = widest(labels.iter().map(String::as_str), 30);
    for (i, label) in labels.iter().enumerate() {
        let mem = if l.memory_seconds[i] > 0.0 {
            format!("  (memory term {})", fmt_seconds(l.memory_seconds[i]))
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "  {label:<w$} {:>12}  speedup {}{mem}",
            fmt_seconds(l.seconds[i]),
            fmt_speedup(l.speedups[i])
        );
    }
    s.push_str(&abops_text(e, l));
    let (modeled, not): (Vec<&Reason>, Vec<&Reason>) = l.reasons.iter().partition(|r| r.modeled);
    reasons_text(&mut s, "in the prediction", &modeled);
    reasons_text(
        &mut s,
        "not in the prediction (augur counts the code as written: the real speedup may be larger)",
        &not,
    );
    s
}

/// The AbOps whose time in the loop changes most.
fn abops_text(e: &SpeedupExplanation, l: &LoopSpeedup) -> String {
    let mut s = String::new();
    if l.abops.is_empty() {
        return s;
    }
    let labels = setting_labels(e);
    let last = labels.len() - 1;
    let _ = writeln!(
        s,
        "  cost tables ({} -> {}), the AbOps that change most:",
        labels[0], labels[last]
    );
    for a in &l.abops {
        let ns = |t: f64| {
            if a.executions > 0.0 {
                format!("{:.3}", 1e9 * t / a.executions)
            } else {
                "-".to_string()
            }
        };
        let per: Vec<String> = a.seconds.iter().map(|&t| ns(t)).collect();
        let share = a
            .share_of_change
            .map(|x| format!(", {:.0}% of the loop's change", 100.0 * x))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "    {:<5} {:.3e} executions, ns each {}: {} -> {}{share}",
            a.abop.mnemonic(),
            a.executions,
            per.join(" / "),
            fmt_seconds(a.seconds[0]),
            fmt_seconds(a.seconds[last])
        );
    }
    s
}

/// A group of reasons under a title.
fn reasons_text(s: &mut String, title: &str, reasons: &[&Reason]) {
    if reasons.is_empty() {
        return;
    }
    let _ = writeln!(s, "  {title}:");
    for r in reasons {
        let share = match (r.evidence, r.share) {
            (Evidence::Code, Some(x)) => format!(" ({:.1}% of the loop's operations)", 100.0 * x),
            _ => String::new(),
        };
        let _ = writeln!(
            s,
            "    {} [{}]: {}{share}",
            named(&r.ratings),
            ratings_line(&r.ratings),
            r.what
        );
    }
}
