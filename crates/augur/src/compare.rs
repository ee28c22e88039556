//! `augur compare machines` and `augur machines --import-thesis`: rendering of
//! `augur_pershape`'s comparison as text, JSON and SVG files.

use anyhow::{bail, Context, Result};
use augur_pershape::{compare, svg, Comparison, PARAMETERS};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The options of `augur compare machines`.
#[derive(Debug, clap::Args)]
pub struct MachinesArgs {
    /// Machine profiles: library names (`augur machines`) or files; at least two (given
    /// here or with -m, as the other commands take them).
    #[arg(value_name = "MACHINES")]
    machines: Vec<String>,
    /// A machine profile, as the other commands take it: repeat for each (instead of the
    /// positional ones).
    #[arg(
        short = 'm',
        long = "machine",
        value_name = "MACHINE",
        conflicts_with = "machines"
    )]
    machine: Vec<String>,
    /// The machine the speeds are relative to (one of those compared; default: the first).
    #[arg(long, value_name = "NAME")]
    reference: Option<String>,
    /// Write the Kiviat graphs: a file ending in `.svg` (or `.png`) gets all machines in
    /// one grid; a directory gets one `NAME.svg` per machine and `grid.svg` (`.png` with
    /// `--format png`).
    #[arg(long, value_name = "DIR_OR_FILE.svg")]
    kiviat: Option<PathBuf>,
    /// The figures written into a `--kiviat` directory: SVG, or PNG for slides and
    /// documents that take no SVG (a file given by name takes its extension's format).
    #[arg(long, value_enum, default_value_t = crate::figure_style::FigureFormat::Svg)]
    format: crate::figure_style::FigureFormat,
    /// Write the cluster graph (figure 2.7) to this file (SVG, or PNG when it ends in
    /// `.png`).
    #[arg(long, value_name = "FILE.svg")]
    clusters: Option<PathBuf>,
    /// Join machines whose pershape distance is below this.
    #[arg(long, default_value_t = augur_pershape::THRESHOLD)]
    threshold: f64,
    /// Print the comparison as JSON.
    #[arg(long)]
    json: bool,
}

/// The body of `augur compare machines --json`.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct MachinesJson<'a> {
    /// The reduced parameters, in the order of the comparison's values.
    parameters: Vec<ParameterJson>,
    /// The comparison.
    comparison: &'a Comparison,
}

/// A reduced parameter (Saavedra-Barrera's Table 2.5).
#[derive(serde::Serialize, schemars::JsonSchema)]
struct ParameterJson {
    /// 1-17, as in Table 2.5 and Appendix 2.C.
    number: usize,
    /// The thesis's name.
    name: &'static str,
    /// A short label for tables and graphs.
    short: &'static str,
}

/// `augur machines --import-thesis SEED -o DIR`.
pub fn import_thesis(seed: &Path, dir: &Path) -> Result<ExitCode> {
    let text = std::fs::read_to_string(seed)
        .with_context(|| format!("reading the dissertation's text {}", seed.display()))?;
    let thesis = augur_pershape::thesis::parse(&text, &seed.display().to_string())?;
    let written = augur_pershape::thesis::write(&thesis, dir)?;
    println!(
        "{} historical machine profiles and the published reduced parameters and distances written to {} ({} files)",
        thesis.machines.len(),
        dir.display(),
        written.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// `augur compare machines`.
pub fn machines(args: &MachinesArgs) -> Result<ExitCode> {
    if !(args.threshold > 0.0 && args.threshold.is_finite()) {
        bail!(
            "--threshold {}: give a positive distance (the thesis uses 0.7)",
            args.threshold
        );
    }
    let specs: Vec<&String> = args.machines.iter().chain(&args.machine).collect();
    if specs.len() < 2 {
        bail!(
            "give at least two machines to compare: `augur compare machines A B` or `-m A -m B` (library names, see `augur machines`, or files)"
        );
    }
    let mut loaded = vec![];
    for spec in specs {
        let (name, _, profile) = augur_machine_profile::library::load(spec)?;
        loaded.push((name, profile));
    }
    let reference = match &args.reference {
        None => 0,
        Some(r) => {
            let stem = Path::new(r)
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or(r);
            loaded
                .iter()
                .position(|(n, _)| n == stem)
                .with_context(|| {
                    format!("--reference {r}: not one of the machines compared; add it to the list")
                })?
        }
    };
    let c = compare(&loaded, reference, args.threshold);
    write_figures(&c, args)?;
    if args.json {
        let parameters = PARAMETERS
            .iter()
            .map(|p| ParameterJson {
                number: p.number,
                name: p.name,
                short: p.short,
            })
            .collect();
        let body = MachinesJson {
            parameters,
            comparison: &c,
        };
        let doc = crate::schemas::Document::new("augur-machine-comparison", body);
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", render(&c));
    }
    Ok(ExitCode::SUCCESS)
}

fn write_figures(c: &Comparison, args: &MachinesArgs) -> Result<()> {
    if let Some(k) = &args.kiviat {
        if k.extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("svg") || e.eq_ignore_ascii_case("png"))
        {
            crate::figure_style::write_figure(k, &svg::kiviat_grid(c))?;
        } else {
            std::fs::create_dir_all(k).with_context(|| format!("creating {}", k.display()))?;
            for (m, name) in c.machines.iter().enumerate() {
                crate::figure_style::write_figure(
                    &k.join(format!("{name}.{}", args.format.extension())),
                    &svg::kiviat(c, m),
                )?;
            }
            crate::figure_style::write_figure(
                &k.join(format!("grid.{}", args.format.extension())),
                &svg::kiviat_grid(c),
            )?;
        }
    }
    if let Some(f) = &args.clusters {
        crate::figure_style::write_figure(f, &svg::cluster_graph(c))?;
    }
    Ok(())
}

/// The widest a table's line gets with the machines' names over its columns; wider, the
/// columns are headed M1, M2, ... and the names listed above the tables.
const TABLE_WIDTH: usize = 100;

/// The heads of the tables' columns: the machines' names whole (never cut), or `M1`,
/// `M2`, ... when the names would make the lines wider than [`TABLE_WIDTH`].
fn column_heads(c: &Comparison) -> Vec<String> {
    let widest = c.machines.iter().map(|n| n.chars().count()).max();
    let width = widest.unwrap_or(8).max(9);
    if 14 + c.machines.len() * (width + 1) <= TABLE_WIDTH {
        c.machines.clone()
    } else {
        (1..=c.machines.len()).map(|i| format!("M{i}")).collect()
    }
}

/// A table of one number per parameter and machine.
fn table(c: &Comparison, title: &str, cell: impl Fn(usize, usize) -> Option<f64>) -> String {
    let heads = column_heads(c);
    let width = heads
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(8)
        .max(9);
    let mut out = format!("{title}\n{:<14}", "parameter");
    for n in &heads {
        let _ = write!(out, " {n:>width$}");
    }
    out.push('\n');
    for (k, p) in PARAMETERS.iter().enumerate() {
        let _ = write!(out, "{:>2} {:<11}", p.number, p.short);
        for m in 0..c.machines.len() {
            let v = cell(m, k).map_or("-".to_string(), number);
            let _ = write!(out, " {v:>width$}");
        }
        out.push('\n');
    }
    out + "\n"
}

/// Four significant digits, or a plain number for large ones.
fn number(v: f64) -> String {
    if v == 0.0 {
        "0".to_string()
    } else if v.abs() >= 1000.0 {
        format!("{v:.0}")
    } else {
        let digits = (3 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
        format!("{v:.digits$}")
    }
}

/// The text report.
fn render(c: &Comparison) -> String {
    let reference = &c.machines[c.reference];
    let mut out = String::new();
    if column_heads(c) != c.machines {
        out += "Machines\n";
        for (i, name) in c.machines.iter().enumerate() {
            let _ = writeln!(out, "  M{}  {name}", i + 1);
        }
        out.push('\n');
    }
    out += &table(
        c,
        "Reduced parameters, ns (Saavedra-Barrera's Table 2.5)",
        |m, k| c.value(m, k),
    );
    out += &table(c, "Ratio to the fastest machine (m/f)", |m, k| {
        c.over_fastest(m, k)
    });
    out += &table(
        c,
        &format!("Speed relative to {reference} ({reference}/m; the Kiviat graphs)"),
        |m, k| c.speedup(m, k),
    );
    for (name, r) in c.machines.iter().zip(&c.reduced) {
        for note in &r.notes {
            let _ = writeln!(out, "note: {name}: parameter {note}");
        }
    }
    out += "\nPershape distances (equation 2.10), closest first\n";
    for (i, j, d) in c.pairs() {
        let mut terms = d.terms.clone();
        terms.sort_by(|a, b| b.1.total_cmp(&a.1));
        let top: Vec<&str> = terms
            .iter()
            .take(3)
            .map(|t| PARAMETERS[t.0].short)
            .collect();
        let dims = if d.dimensions < PARAMETERS.len() {
            format!(", {} parameters", d.dimensions)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  {:.3}  {} - {}  (most: {}{dims})",
            d.value,
            c.machines[i],
            c.machines[j],
            top.join(", ")
        );
    }
    let _ = writeln!(out, "\nClusters (joined below {}):", c.clusters.threshold);
    for comp in &c.clusters.components {
        let names: Vec<&str> = comp.iter().map(|&i| c.machines[i].as_str()).collect();
        let _ = writeln!(out, "  {{{}}}", names.join(", "));
    }
    out
}
