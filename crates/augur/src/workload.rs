//! `augur compare programs` and `augur rank`: the tables of Saavedra-Barrera's chapter 3
//! rendered as text, JSON or (the clusters) SVG. The numbers come from `augur-workload`.

use anyhow::{bail, Result};
use augur_workload::classes::Reduced;
use augur_workload::compare::{Comparison, Ranking, TimeComparison};
use augur_workload::similarity::ISOLATION_THRESHOLD;
use augur_workload::Characterization;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `augur compare programs`.
pub struct CompareArgs {
    /// Program profiles.
    pub profiles: Vec<PathBuf>,
    /// Machines (library names or files), possibly none.
    pub machines: Vec<String>,
    /// Cluster threshold.
    pub threshold: f64,
    /// Where to draw the clusters.
    pub clusters: Option<PathBuf>,
    /// JSON instead of text.
    pub json: bool,
}

/// Options of `augur rank`.
pub struct RankArgs {
    /// Program profiles.
    pub profiles: Vec<PathBuf>,
    /// Machines.
    pub machines: Vec<String>,
    /// Program weights (empty: 1 each).
    pub weights: Vec<f64>,
    /// The reference machine (default the first).
    pub reference: Option<String>,
    /// JSON instead of text.
    pub json: bool,
}

/// Runs `augur compare programs`.
pub fn compare_programs(a: &CompareArgs) -> Result<ExitCode> {
    if !(a.threshold.is_finite() && a.threshold >= 0.0) {
        bail!("--threshold must be a non-negative number");
    }
    let programs = augur_workload::load_programs(&a.profiles)?;
    let machines = augur_workload::load_machines(&a.machines)?;
    let c = augur_workload::compare(&programs, &machines, a.threshold);
    if let Some(path) = &a.clusters {
        crate::figure_style::write_figure(path, &clusters_svg(&c))?;
    }
    if a.json {
        let doc = crate::schemas::Document::new("augur-program-comparison", &c);
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", comparison_text(&c));
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `augur rank`.
pub fn rank(a: &RankArgs) -> Result<ExitCode> {
    let programs = augur_workload::load_programs(&a.profiles)?;
    let mut specs = a.machines.clone();
    let reference = match &a.reference {
        None => 0,
        Some(r) => specs.iter().position(|s| s == r).unwrap_or_else(|| {
            specs.push(r.clone());
            specs.len() - 1
        }),
    };
    let machines = augur_workload::load_machines(&specs)?;
    let r = augur_workload::rank(&programs, &machines, &a.weights, reference)?;
    if a.json {
        let doc = crate::schemas::Document::new("augur-ranking", &r);
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", ranking_text(&r));
    }
    Ok(ExitCode::SUCCESS)
}

/// A table's title and its header: one column per program and their average.
fn table_header(out: &mut String, title: &str, names: &[&str]) {
    let _ = writeln!(out, "\n{title}");
    let _ = write!(out, "  {:<32}", "");
    for n in names {
        let _ = write!(out, " {:>12}", short(n));
    }
    let _ = writeln!(out, " {:>12}", "Average");
}

/// A table of shares: one column per program and their average.
fn share_table(out: &mut String, title: &str, names: &[&str], rows: &[(&str, Vec<f64>)]) {
    table_header(out, title, names);
    for (label, values) in rows {
        let _ = write!(out, "  {label:<32}");
        for v in values {
            let _ = write!(out, " {:>10.1} %", 100.0 * v + 0.0);
        }
        let avg = values.iter().sum::<f64>() / values.len().max(1) as f64;
        let _ = writeln!(out, " {:>10.1} %", 100.0 * avg + 0.0);
    }
}

/// A row of plain numbers (no average).
fn number_row(out: &mut String, label: &str, values: impl Iterator<Item = String>) {
    let _ = write!(out, "  {label:<32}");
    for v in values {
        let _ = write!(out, " {v:>12}");
    }
    let _ = writeln!(out);
}

/// A name cut to fit a column.
fn short(name: &str) -> String {
    name.chars().take(12).collect()
}

/// Rows of one characterization field per program.
fn rows<'a>(
    p: &[Characterization],
    labels: &[&'a str],
    f: impl Fn(&Characterization) -> Vec<f64>,
) -> Vec<(&'a str, Vec<f64>)> {
    let per: Vec<Vec<f64>> = p.iter().map(f).collect();
    labels
        .iter()
        .enumerate()
        .map(|(i, l)| (*l, per.iter().map(|v| v[i]).collect()))
        .collect()
}

/// Tables 3.2-3.4.
fn distributions(out: &mut String, p: &[Characterization], names: &[&str]) {
    let st = rows(
        p,
        &[
            "Assignments",
            "Procedure Calls",
            "IF Statements",
            "Branches",
            "DO Loops (iterations)",
        ],
        |c| {
            let s = &c.statements;
            vec![s.assignments, s.calls, s.ifs, s.branches, s.do_iterations]
        },
    );
    share_table(
        out,
        "Distribution of statements (table 3.2; derived from the blocks' AbOps)",
        names,
        &st,
    );
    let labels: Vec<&str> = p[0]
        .operation_types
        .iter()
        .map(|(t, _)| t.label())
        .collect();
    let ty = rows(p, &labels, |c| {
        c.operation_types.iter().map(|x| x.1).collect()
    });
    share_table(out, "Distribution of operations (table 3.3)", names, &ty);
    let labels: Vec<&str> = p[0].operators.iter().map(|(o, _)| o.label()).collect();
    let op = rows(p, &labels, |c| c.operators.iter().map(|x| x.1).collect());
    share_table(
        out,
        "Distribution of arithmetic operators (table 3.3)",
        names,
        &op,
    );
    operands(out, p, names);
}

/// Table 3.4: the shares of scalar and array operands among all operands. A profile
/// made before the scalar counts shows `n/a` for scalars and, in the array rows, the
/// split of its array references, left out of the average.
fn operands(out: &mut String, p: &[Characterization], names: &[&str]) {
    table_header(
        out,
        "Distribution of operands (table 3.4; share of operand references: scalar variables and array elements)",
        names,
    );
    let labels = ["Scalar", "Array 1-D", "Array 2-D", "Array 3-D", "Array 4-D"];
    for (i, label) in labels.iter().enumerate() {
        let _ = write!(out, "  {label:<32}");
        let mut complete = vec![];
        for c in p {
            let o = &c.operands;
            match (o.shares(), i) {
                (Some(s), _) => {
                    complete.push(s[i]);
                    let _ = write!(out, " {:>10.1} %", 100.0 * s[i] + 0.0);
                }
                (None, 0) => {
                    let _ = write!(out, " {:>12}", "n/a");
                }
                (None, _) => {
                    let _ = write!(out, " {:>10.1}*%", 100.0 * o.dimensions[i - 1] + 0.0);
                }
            }
        }
        match complete.len() {
            0 => {
                let _ = writeln!(out, " {:>12}", "n/a");
            }
            n => {
                let avg = complete.iter().sum::<f64>() / n as f64;
                let _ = writeln!(out, " {:>10.1} %", 100.0 * avg + 0.0);
            }
        }
    }
    number_row(
        out,
        "mean dimensions",
        p.iter()
            .map(|c| format!("{:.3}", c.operands.mean_dimensions)),
    );
    number_row(
        out,
        "global share of scalars",
        p.iter().map(|c| match c.operands.global_scalar_share {
            Some(g) => format!("{:.1} %", 100.0 * g + 0.0),
            None => "n/a".to_string(),
        }),
    );
    let old: Vec<&str> = names
        .iter()
        .zip(p)
        .filter(|(_, c)| c.operands.scalar_references.is_none())
        .map(|(n, _)| *n)
        .collect();
    if !old.is_empty() {
        let _ = writeln!(
            out,
            "  n/a: scalar operands not available for profiles made before 2026-11-27 ({}; re-run `augur analyze`); * their share of array references, left out of the average",
            old.join(", ")
        );
    }
}

/// Tables 3.6-3.9.
fn concentration(out: &mut String, p: &[Characterization], names: &[&str]) {
    let band = |b: &augur_workload::concentration::Band, unit: &str| match b.last {
        Some(l) => format!("{}-{l} {unit}", b.first),
        None => format!("> {} {unit}", b.first - 1),
    };
    let labels: Vec<String> = p[0]
        .blocks
        .bands
        .iter()
        .map(|b| band(b, "blocks"))
        .collect();
    let lr: Vec<&str> = labels.iter().map(String::as_str).collect();
    let bl = rows(p, &lr, |c| c.blocks.bands.iter().map(|b| b.share).collect());
    share_table(out, "Distribution of basic blocks (table 3.6)", names, &bl);
    number_row(
        out,
        "blocks executed / with ops",
        p.iter()
            .map(|c| format!("{}/{}", c.blocks.executed, c.blocks.total)),
    );
    number_row(
        out,
        "skewness (table 3.7)",
        p.iter().map(|c| format!("{:.3}", c.blocks.skewness)),
    );
    let labels: Vec<String> = p[0].abops.bands.iter().map(|b| band(b, "AbOps")).collect();
    let lr: Vec<&str> = labels.iter().map(String::as_str).collect();
    let ab = rows(p, &lr, |c| c.abops.bands.iter().map(|b| b.share).collect());
    share_table(
        out,
        "Distribution of abstract operations (table 3.8)",
        names,
        &ab,
    );
    number_row(
        out,
        "AbOps executed",
        p.iter().map(|c| c.abops.executed.to_string()),
    );
    number_row(
        out,
        "skewness (table 3.9)",
        p.iter().map(|c| format!("{:.3}", c.abops.skewness)),
    );
    number_row(
        out,
        "geometric fit α, K (fig. 3.10)",
        p.iter().map(|c| match &c.abops.fit {
            Some(f) => format!("{:.3}, {:.2}", f.alpha, f.k),
            None => "n/a".to_string(),
        }),
    );
}

/// Figure 3.10: the programs' average cumulative distribution of AbOps and its fit.
fn geometric_law(out: &mut String, c: &Comparison) {
    let at = |n: usize| c.abop_average.get(n - 1).copied().unwrap_or(1.0);
    let _ = write!(
        out,
        "  average of the programs (figure 3.10): the top 3 AbOps cover {:.1} %, the top 5 {:.1} %",
        100.0 * at(3),
        100.0 * at(5)
    );
    let _ = match &c.abop_average_fit {
        Some(f) => writeln!(
            out,
            "; 1 - K(1 - α)^n fitted with α = {:.3}, K = {:.3}, r = {:.4} ({} d.f.)",
            f.alpha, f.k, f.correlation, f.degrees_of_freedom
        ),
        None => writeln!(out, "; too few AbOps to fit 1 - K(1 - α)^n"),
    };
}

/// Table 3.10 and the pairs and clusters of table 3.11 and figure 3.11.
fn similarity(out: &mut String, c: &Comparison, names: &[&str]) {
    let mut labels: Vec<&str> = Reduced::ALL.iter().map(|r| r.label()).collect();
    labels.push("(in no parameter)");
    let red = rows(&c.programs, &labels, |p| {
        let mut v: Vec<f64> = p.reduced.iter().map(|x| x.1).collect();
        v.push(p.unreduced);
        v
    });
    share_table(
        out,
        "Reduced parameters (table 3.10; share of operations)",
        names,
        &red,
    );
    let _ = writeln!(out, "\nDistance between programs (table 3.11; equation 3.5, parameters normalized by the average)");
    let n = c.pairs.len();
    for (i, p) in c.pairs.iter().enumerate() {
        if n > 50 && (25..n - 25).contains(&i) {
            continue;
        }
        let _ = writeln!(
            out,
            "  {:03}  {:<16} {:<16} {:.4}",
            i + 1,
            names[p.a],
            names[p.b],
            p.distance
        );
    }
    let cl = &c.clusters;
    let _ = writeln!(
        out,
        "\nClusters (figure 3.11; joined below {:.4})",
        cl.threshold
    );
    for g in &cl.groups {
        let members: Vec<&str> = g.iter().map(|&i| names[i]).collect();
        let _ = writeln!(out, "  {}", members.join(", "));
    }
    for (i, d) in &cl.isolated {
        let nearest = d.map_or("no other program".to_string(), |d| {
            format!("nearest {d:.4}")
        });
        let _ = writeln!(out, "  {} (alone; {nearest})", names[*i]);
    }
}

/// The execution-time comparison (§3.6.6, table 3.15).
fn times(out: &mut String, t: &TimeComparison, names: &[&str]) {
    let _ = writeln!(out, "\nMachines");
    for (m, name) in t.machines.iter().enumerate() {
        let _ = writeln!(out, "  M{}  {name}", m + 1);
    }
    let labels: Vec<String> = (1..=t.machines.len()).map(|m| format!("M{m}")).collect();
    let _ = writeln!(out, "\nPredicted seconds (rank among the programs)");
    number_row(out, "", labels.iter().cloned());
    for (p, row) in t.times.iter().enumerate() {
        let cells = row
            .iter()
            .zip(&t.program_ranks)
            .map(|(s, r)| format!("{s:.3e} ({})", r[p]));
        number_row(out, names[p], cells);
    }
    let _ = writeln!(
        out,
        "\nSpearman's rank correlation of the machines' rankings of the programs"
    );
    number_row(out, "", labels.iter().cloned());
    for (m, row) in t.machine_spearman.iter().enumerate() {
        number_row(out, &labels[m], row.iter().map(|r| format!("{r:.3}")));
    }
    let _ = writeln!(out, "\nSimilarity by execution time (table 3.15: s(z)/(mean z·√n), z = t_A/t_B over {} machines; 0 = benchmark equivalent)", t.machines.len());
    for (i, p) in t.pairs.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {:03}  {:<16} {:<16} {:.4}   (distance {:.4})",
            i + 1,
            names[p.a],
            names[p.b],
            p.similarity,
            p.distance
        );
    }
    match t.metrics_spearman {
        Some(rho) => {
            let _ = writeln!(
                out,
                "  Spearman's rank correlation with the distance: {rho:.3} over {} pairs",
                t.pairs.len()
            );
        }
        None => {
            let _ = writeln!(out, "  (Spearman's check needs two pairs and two machines)");
        }
    }
}

/// The whole text report of `augur compare programs`.
fn comparison_text(c: &Comparison) -> String {
    let mut out = String::new();
    let names: Vec<&str> = c.programs.iter().map(|p| p.name.as_str()).collect();
    let _ = writeln!(out, "Programs compared (Saavedra-Barrera, chapter 3)");
    number_row(
        &mut out,
        "operations executed",
        c.programs.iter().map(|p| format!("{:.3e}", p.operations)),
    );
    number_row(
        &mut out,
        "statements executed",
        c.programs
            .iter()
            .map(|p| format!("{:.3e}", p.statements.executed)),
    );
    distributions(&mut out, &c.programs, &names);
    concentration(&mut out, &c.programs, &names);
    geometric_law(&mut out, c);
    similarity(&mut out, c, &names);
    if let Some(t) = &c.times {
        times(&mut out, t, &names);
    }
    out
}

/// A normalized time for the ranking: three decimals, or three significant digits in
/// scientific notation when three decimals would hide it (a 1990 machine is 10^-4 of
/// today's).
fn ratio(v: f64) -> String {
    if v == 0.0 || !v.is_finite() || (1e-2..1e4).contains(&v.abs()) {
        format!("{v:.3}")
    } else {
        format!("{v:.2e}")
    }
}

/// The text of `augur rank` (table 3.14).
fn ranking_text(r: &Ranking) -> String {
    let mut out = String::new();
    let m = r.machines.len();
    for (i, name) in r.machines.iter().enumerate() {
        let _ = writeln!(out, "  M{}  {name}", i + 1);
    }
    let _ = writeln!(out, "\nNormalized predicted results (table 3.14): M{}'s time over each machine's, larger is faster", r.reference + 1);
    let _ = write!(out, "  {:<24} {:>7}", "program", "weight");
    for i in 0..m {
        let _ = write!(out, " {:>12}", format!("M{}", i + 1));
    }
    let _ = writeln!(out);
    let by_machine = |i: usize| r.scores.iter().find(|s| s.machine == i);
    for (p, name) in r.programs.iter().enumerate() {
        let _ = write!(out, "  {name:<24} {:>7.3}", r.weights[p]);
        for i in 0..m {
            let v = by_machine(i).map_or(f64::NAN, |s| s.normalized[p]);
            let _ = write!(out, " {:>12}", ratio(v));
        }
        let _ = writeln!(out);
    }
    let _ = write!(out, "  {:<24} {:>7}", "geometric mean", "");
    for i in 0..m {
        let v = by_machine(i).map_or(f64::NAN, |s| s.geometric_mean);
        let _ = write!(out, " {:>12}", ratio(v));
    }
    let _ = writeln!(out, "\n\nMachines ranked (weighted geometric mean)");
    for (k, s) in r.scores.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {}. M{} {:<40} {}",
            k + 1,
            s.machine + 1,
            r.machines[s.machine],
            ratio(s.geometric_mean)
        );
    }
    let _ = writeln!(out, "\nPredicted seconds");
    for (p, name) in r.programs.iter().enumerate() {
        let _ = write!(out, "  {name:<32}");
        for t in &r.times[p] {
            let _ = write!(out, " {t:>12.4}");
        }
        let _ = writeln!(out);
    }
    out
}

/// Figure 3.11 as SVG: the programs on a circle, an edge for each pair closer than the
/// threshold (thicker when closer, labelled with the distance), the isolated programs'
/// nearest distance under their name when it exceeds the isolation threshold.
fn clusters_svg(c: &Comparison) -> String {
    let n = c.programs.len().max(1);
    let (w, h, r) = (720.0, 720.0, 270.0);
    let at = |i: usize| {
        let a = std::f64::consts::TAU * i as f64 / n as f64 - std::f64::consts::FRAC_PI_2;
        (w / 2.0 + r * a.cos(), h / 2.0 + r * a.sin())
    };
    let mut s = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"13\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    let _ = writeln!(s, "<text x=\"12\" y=\"22\" font-size=\"15\">Program clusters: distance below {:.4} (equation 3.5)</text>", c.clusters.threshold);
    for e in &c.clusters.edges {
        let ((x1, y1), (x2, y2)) = (at(e.a), at(e.b));
        let width = 1.0 + 6.0 * (1.0 - e.distance / c.clusters.threshold.max(1e-9));
        let _ = writeln!(s, "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"#3465a4\" stroke-width=\"{width:.2}\"/>");
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#3465a4\" font-size=\"11\">{:.3}</text>",
            (x1 + x2) / 2.0,
            (y1 + y2) / 2.0 - 3.0,
            e.distance
        );
    }
    let isolated: Vec<(usize, Option<f64>)> = c.clusters.isolated.clone();
    for (i, p) in c.programs.iter().enumerate() {
        let (x, y) = at(i);
        let _ = writeln!(
            s,
            "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"6\" fill=\"#cc0000\"/>"
        );
        let _ = writeln!(
            s,
            "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            y - 10.0,
            xml(&p.name)
        );
        if let Some((_, Some(d))) = isolated.iter().find(|(j, _)| *j == i) {
            if *d > ISOLATION_THRESHOLD {
                let _ = writeln!(s, "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"11\">{d:.4}</text>", y + 20.0);
            }
        }
    }
    s.push_str("</svg>\n");
    s
}

/// Text escaped for XML.
fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::ratio;

    #[test]
    fn tiny_normalized_times_keep_their_digits() {
        assert_eq!(ratio(1.0), "1.000");
        assert_eq!(ratio(0.25), "0.250");
        assert_eq!(ratio(2.9e-4), "2.90e-4");
        assert_eq!(ratio(0.0), "0.000");
    }
}
