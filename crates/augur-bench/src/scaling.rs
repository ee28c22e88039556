//! `augur bench scaling`: prediction at sizes never run. For every program with a
//! `[scale]` table: counting runs at its small sizes (`augur analyze --scale`), the
//! profile at its target size from them, a direct counting run at the target to compare
//! block counts and predictions with, and timed runs of the normal build at the target.

use crate::accuracy::ProgramSet;
use crate::corpus::{self, CorpusProgram, ScaleEntry};
use crate::suite;
use crate::validation::build_setup;
use crate::Verdict;
use anyhow::{Context, Result};
use augur_model::{LoadedMachine, PredictOptions};
use augur_program::scaling::{analyze_scaled, exact_mismatches, options_at, profile_at, ScaleSpec};
use augur_program_profile::ProgramProfile;
use augur_toolchain::{BuildInput, RunSpec, Toolchain};
use augur_validate::{relative_error, time_program};
use std::path::Path;
use std::time::Instant;

/// Options of the scaling benchmark.
pub struct ScalingArgs<'a> {
    /// The programs (those with a `[scale]` table are taken).
    pub programs: ProgramSet<'a>,
    /// Machine (path or library name).
    pub machine: &'a str,
    /// Timed runs at the target size.
    pub runs: usize,
    /// Only these programs.
    pub only: &'a [String],
    /// Keep each program's scalable and direct profiles and its measured times here.
    pub save: Option<&'a Path>,
    /// Re-price the profiles and times kept by `save` in this directory (after a model
    /// change) instead of analyzing and timing.
    pub replay: Option<&'a Path>,
}

/// One program's outcome.
struct Row {
    name: String,
    sizes: String,
    work_ratio: f64,
    exact_share: f64,
    exact: (usize, usize),
    /// Blocks that ran at the target but in none of the counting runs.
    new_blocks: usize,
    direct_error: f64,
    scaled_error: f64,
    measured: f64,
    cost_ratio: f64,
}

/// The programs with a `[scale]` table.
fn scalable_programs(a: &ScalingArgs) -> Result<Vec<CorpusProgram>> {
    let programs = match a.programs {
        ProgramSet::Corpus(manifest) => corpus::load(manifest, a.only)?.1,
        ProgramSet::Suite {
            manifests,
            sources,
            part,
        } => {
            let s = suite::load(manifests, sources, part, a.only)?;
            for m in &s.missing {
                println!("missing: {m}");
            }
            s.programs
        }
    };
    Ok(programs.into_iter().filter(|p| p.scale.is_some()).collect())
}

/// Runs the benchmark and prints its table.
pub fn run(a: &ScalingArgs) -> Result<Verdict> {
    let machine = LoadedMachine::load(a.machine)?;
    let (fc, fflags) = build_setup(&machine, None, None);
    let tc = Toolchain::detect(&fc, &fflags)?;
    if a.replay.is_none() {
        tc.check_flags()?;
    }
    let programs = scalable_programs(a)?;
    println!(
        "augur bench scaling: {} program(s) on {} ({}), built with {} {}",
        programs.len(),
        machine.name,
        machine.profile.provenance.cpu_model,
        tc.fc,
        tc.fflags.join(" ")
    );
    println!(
        "{:<16} {:>16} {:>7} {:>7} {:>9} {:>9} {:>9} {:>9} {:>6}",
        "program",
        "sizes -> target",
        "work",
        "exact",
        "mismatch",
        "measured",
        "direct",
        "scaled",
        "cost"
    );
    let mut rows = vec![];
    let mut failed = vec![];
    for p in &programs {
        match one(a, p, &machine, &tc) {
            Ok(r) => {
                print_row(&r);
                rows.push(r);
            }
            Err(e) => {
                println!("{:<16} failed: {}", p.name, crate::error_text(&e));
                failed.push(p.name.clone());
            }
        }
    }
    print_summary(&rows, &failed);
    Ok(if failed.is_empty() {
        Verdict::Passed
    } else {
        Verdict::Failed
    })
}

/// Counting runs at the small sizes, the profile at the target, the direct run and the
/// timed runs of one program.
fn one(a: &ScalingArgs, p: &CorpusProgram, machine: &LoadedMachine, tc: &Toolchain) -> Result<Row> {
    let entry: &ScaleEntry = p.scale.as_ref().context("no [scale] table")?;
    if let Some(dir) = a.replay {
        return replay(dir, p, entry, machine);
    }
    let tp = p.with_scale_templates();
    let (fortran, opts) = tp.analyze_options(&tp.root, tc)?;
    let spec = ScaleSpec {
        symbol: entry.symbol.clone(),
        values: entry.values.clone(),
        allow_path_changes: entry.allow_path_changes,
        sized_inputs: !entry.inputs.is_empty(),
    };
    let mut starts = vec![];
    let t0 = Instant::now();
    let scaled = analyze_scaled(&fortran, &opts, &spec, |v| {
        starts.push(Instant::now());
        if let Err(e) = tp.write_inputs_at(&spec.symbol, v) {
            eprintln!("augur: {e:#}");
        }
    })?;
    let end = Instant::now();
    let last_run = starts.last().map_or(0.0, |s| (end - *s).as_secs_f64());
    let cost_ratio = (end - t0).as_secs_f64() / last_run.max(1e-9);
    let at = profile_at(&scaled.profile, entry.target)?;
    tp.write_inputs_at(&spec.symbol, entry.target)?;
    let opts_t = options_at(&opts, &spec, entry.target);
    let direct = augur_program::analyze(&fortran, &opts_t)?;
    let flags: Vec<String> = tp
        .preprocessing_flags(&tp.root)
        .iter()
        .map(|f| spec.substitute(f, entry.target))
        .collect();
    let order = augur_program::analyze::compile_order(&direct.program, fortran.len());
    let input = BuildInput {
        fortran: order.iter().map(|&i| fortran[i].clone()).collect(),
        extra_fflags: flags,
        c_sources: opts_t.c_sources.clone(),
        objects: vec![],
        link_args: vec![],
    };
    let run = RunSpec {
        args: opts_t.args.clone(),
        stdin: opts_t.stdin.clone(),
        timeout: opts_t.timeout,
        env: vec![],
        cwd: opts_t.cwd.clone(),
        capture: true,
        fixed_addresses: false,
    };
    let timed = time_program(&opts_t.toolchain, &input, &run, a.runs)?;
    if let Some(dir) = a.save {
        save(
            dir,
            &p.name,
            &scaled.profile,
            &direct.profile,
            &timed.timing.runs,
        )?;
    }
    let options = PredictOptions::default();
    let measured = timed.timing.median;
    let scaled_pred = machine.predict(&at, options);
    let direct_pred = machine.predict(&direct.profile, options);
    let values: Vec<String> = entry.values.iter().map(|v| v.to_string()).collect();
    Ok(Row {
        name: p.name.clone(),
        sizes: format!("{} -> {}", values.join(","), entry.target),
        work_ratio: scaled.profile.operations / direct.profile.operations.max(1.0),
        exact_share: exact_share(&at),
        exact: exact_mismatches(&at, &direct.profile),
        new_blocks: new_blocks(&at, &direct.profile),
        direct_error: relative_error(direct_pred.total.seconds, measured),
        scaled_error: relative_error(scaled_pred.total.seconds, measured),
        measured,
        cost_ratio,
    })
}

/// A program's row from the profiles and times kept by `--save` in `dir`.
fn replay(
    dir: &Path,
    p: &CorpusProgram,
    entry: &ScaleEntry,
    machine: &LoadedMachine,
) -> Result<Row> {
    let read = |what: &str| -> Result<String> {
        let path = dir.join(format!("{}.{what}.json", p.name));
        std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {} (made by --save?)", path.display()))
    };
    let scaled: ProgramProfile = serde_json::from_str(&read("scaled")?)?;
    let direct: ProgramProfile = serde_json::from_str(&read("direct")?)?;
    let runs: Vec<f64> = serde_json::from_str(&read("timing")?)?;
    let measured = augur_validate::Timing::from_runs(runs).median;
    let at = profile_at(&scaled, entry.target)?;
    let options = PredictOptions::default();
    let values: Vec<String> = entry.values.iter().map(|v| v.to_string()).collect();
    Ok(Row {
        name: p.name.clone(),
        sizes: format!("{} -> {}", values.join(","), entry.target),
        work_ratio: scaled.operations / direct.operations.max(1.0),
        exact_share: exact_share(&at),
        exact: exact_mismatches(&at, &direct),
        new_blocks: new_blocks(&at, &direct),
        direct_error: relative_error(machine.predict(&direct, options).total.seconds, measured),
        scaled_error: relative_error(machine.predict(&at, options).total.seconds, measured),
        measured,
        cost_ratio: f64::NAN,
    })
}

/// Blocks the direct run executed that ran in none of the counting runs (a path the
/// small sizes never took).
fn new_blocks(at: &ProgramProfile, direct: &ProgramProfile) -> usize {
    let Some(sc) = &at.scaling else {
        return 0;
    };
    let counts = augur_program::scaling::block_counts_of(direct);
    counts
        .iter()
        .enumerate()
        .flat_map(|(u, bs)| bs.iter().enumerate().map(move |(b, c)| (u, b, *c)))
        .filter(|(_, _, c)| c.is_some_and(|c| c > 0.0))
        .filter(|(u, b, _)| {
            !sc.blocks
                .iter()
                .any(|m| m.unit == *u && m.block as usize == *b)
        })
        .count()
}

/// The share of the operations at the target that blocks with exact models execute.
fn exact_share(at: &ProgramProfile) -> f64 {
    augur_program::scaling::model_shares(at)
        .iter()
        .filter(|r| r.0 == "exact" || r.0 == "constant")
        .map(|r| r.2)
        .sum()
}

/// Keeps the scalable profile, the direct one and the measured times.
fn save(
    dir: &Path,
    name: &str,
    scaled: &ProgramProfile,
    direct: &ProgramProfile,
    runs: &[f64],
) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let write = |file: String, text: String| {
        let path = dir.join(file);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
    };
    write(
        format!("{name}.scaled.json"),
        serde_json::to_string(scaled)?,
    )?;
    write(
        format!("{name}.direct.json"),
        serde_json::to_string(direct)?,
    )?;
    write(format!("{name}.timing.json"), serde_json::to_string(runs)?)?;
    Ok(())
}

fn print_row(r: &Row) {
    let note = match r.new_blocks {
        0 => String::new(),
        n => format!("  ({n} blocks ran only at the target: a path the small sizes never took)"),
    };
    let cost = match r.cost_ratio.is_finite() {
        true => format!("{:.2}x", r.cost_ratio),
        false => "-".to_string(),
    };
    println!(
        "{:<16} {:>16} {:>6.1}% {:>6.1}% {:>4}/{:<4} {:>8.3}s {:>+8.1}% {:>+8.1}% {:>6}{note}",
        r.name,
        r.sizes,
        100.0 * r.work_ratio,
        100.0 * r.exact_share,
        r.exact.1,
        r.exact.0,
        r.measured,
        100.0 * r.direct_error,
        100.0 * r.scaled_error,
        cost
    );
}

fn rms(v: impl Iterator<Item = f64> + Clone) -> f64 {
    let n = v.clone().count().max(1) as f64;
    (v.map(|x| x * x).sum::<f64>() / n).sqrt()
}

fn print_summary(rows: &[Row], failed: &[String]) {
    let direct = rms(rows.iter().map(|r| r.direct_error));
    let scaled = rms(rows.iter().map(|r| r.scaled_error));
    let mismatched: usize = rows.iter().map(|r| r.exact.1).sum();
    let exact: usize = rows.iter().map(|r| r.exact.0).sum();
    let within = rows
        .iter()
        .filter(|r| r.scaled_error.abs() <= 1.25 * r.direct_error.abs() + 0.02)
        .count();
    let worst_cost = rows
        .iter()
        .map(|r| r.cost_ratio)
        .filter(|c| c.is_finite())
        .fold(0.0, f64::max);
    println!(
        "\n{} program(s): RMS error at the target {:.1}% extrapolated, {:.1}% direct (ratio {:.2}); {} of {} within 1.25x the direct error (+2 points)",
        rows.len(),
        100.0 * scaled,
        100.0 * direct,
        scaled / direct.max(1e-12),
        within,
        rows.len()
    );
    let cost = match worst_cost > 0.0 {
        true => format!(
            "; cost of the scalable analysis: at most {worst_cost:.2}x its run at the largest size"
        ),
        false => String::new(),
    };
    println!(
        "exact blocks: {mismatched} of {exact} differ from the direct counting run at the target{cost}"
    );
    if !failed.is_empty() {
        println!("failed: {}", failed.join(", "));
    }
}
