//! Profiles at sizes never run: counting runs at a few values of a scale variable
//! ([`analyze_scaled`]), and the profile at another value computed from their models
//! ([`profile_at`]): block executions from [`augur_scaling`], the memory term's nests
//! re-streamed with the scalars and array shapes of that size.

use crate::analyze::{analyze, Analysis, AnalyzeError, AnalyzeOptions};
use crate::profile::build_profile;
use augur_ir::{AbOp, Program};
use augur_program_profile::locality::{NestValues, ValueSet};
use augur_program_profile::scaling::{ScaledInputs, ScaledRun, ScalingProfile};
use augur_program_profile::ProgramProfile;
use augur_source::SourceForm;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A scale variable and the values to analyze it at.
#[derive(Debug, Clone, PartialEq)]
pub struct ScaleSpec {
    /// Its name (`n`), written `{n}` in defines, arguments and the input file's name.
    pub symbol: String,
    /// Values, at least three.
    pub values: Vec<i64>,
    /// Model blocks that run at some sizes and not at others by their fits instead of
    /// refusing the analysis.
    pub allow_path_changes: bool,
    /// The caller writes input files holding the size before each run (so the options
    /// need not mention `{symbol}`).
    pub sized_inputs: bool,
}

impl ScaleSpec {
    /// Parses `n=32,48,64` (values ascending after parsing; at least three, positive).
    pub fn parse(text: &str) -> Result<ScaleSpec, String> {
        let (name, list) = text
            .split_once('=')
            .ok_or_else(|| format!("--scale {text}: write NAME=V1,V2,V3 (e.g. n=32,48,64)"))?;
        let name = name.trim();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!(
                "--scale {text}: `{name}` is not a name (letters, digits, _)"
            ));
        }
        let mut values = list
            .split(',')
            .map(|v| v.trim().parse::<i64>())
            .collect::<Result<Vec<i64>, _>>()
            .map_err(|_| {
                format!("--scale {text}: the values must be integers, e.g. {name}=32,48,64")
            })?;
        values.sort_unstable();
        values.dedup();
        if values.len() < 3 || values[0] < 2 {
            return Err(format!(
                "--scale {text}: give at least three different values above 1 (a model needs a run to check it)"
            ));
        }
        Ok(ScaleSpec {
            symbol: name.to_string(),
            values,
            allow_path_changes: false,
            sized_inputs: false,
        })
    }

    /// `{symbol}` in `text` replaced by `value`.
    pub fn substitute(&self, text: &str, value: i64) -> String {
        ScaledInputs::substitute(text, &self.symbol, value)
    }
}

/// The analysis options of the run at `value`: `{n}` substituted in the defines, the
/// arguments and the input file's name.
pub fn options_at(opts: &AnalyzeOptions, spec: &ScaleSpec, value: i64) -> AnalyzeOptions {
    let mut o = opts.clone();
    o.front.load.defines = opts
        .front
        .load
        .defines
        .iter()
        .map(|d| spec.substitute(d, value))
        .collect();
    o.args = opts
        .args
        .iter()
        .map(|a| spec.substitute(a, value))
        .collect();
    o.stdin = opts
        .stdin
        .as_ref()
        .map(|p| PathBuf::from(spec.substitute(&p.display().to_string(), value)));
    o
}

/// Whether the options mention `{symbol}` anywhere (else every run would be the same).
fn mentions_symbol(opts: &AnalyzeOptions, spec: &ScaleSpec) -> bool {
    let tag = format!("{{{}}}", spec.symbol);
    opts.front.load.defines.iter().any(|d| d.contains(&tag))
        || opts.args.iter().any(|a| a.contains(&tag))
        || opts
            .stdin
            .as_ref()
            .is_some_and(|p| p.display().to_string().contains(&tag))
}

/// Block executions per unit and block of a profile.
pub fn block_counts_of(profile: &ProgramProfile) -> Vec<Vec<Option<f64>>> {
    profile
        .units
        .iter()
        .map(|u| u.blocks.iter().map(|b| b.executions).collect())
        .collect()
}

/// The first difference in structure (units, blocks, each block's lines and statements)
/// between two programs. Operations may differ: a named constant that is a power of two
/// at one size turns a division into a multiplication.
pub fn structure_difference(a: &Program, b: &Program) -> Option<String> {
    if a.units.len() != b.units.len() {
        return Some(format!(
            "{} program units, then {}",
            a.units.len(),
            b.units.len()
        ));
    }
    a.units.iter().zip(&b.units).find_map(|(x, y)| {
        if x.name != y.name || x.blocks.len() != y.blocks.len() {
            return Some(format!(
                "unit `{}` has {} blocks, then `{}` has {}",
                x.name,
                x.blocks.len(),
                y.name,
                y.blocks.len()
            ));
        }
        x.blocks.iter().zip(&y.blocks).find_map(|(p, q)| {
            let same = p.span.start.line == q.span.start.line
                && p.span.end_line == q.span.end_line
                && p.stmts.len() == q.stmts.len();
            (!same).then(|| {
                let file = &a.files.get(p.span.start.file).path;
                format!(
                    "the statements of the block at {}:{} differ",
                    file.display(),
                    p.span.start.line
                )
            })
        })
    })
}

/// Blocks executed at some sizes and not at others: `file:line (unit)`.
fn path_changes(program: &Program, runs: &[Vec<Vec<Option<f64>>>]) -> Vec<String> {
    let mut out = vec![];
    for (ui, u) in program.units.iter().enumerate() {
        for (bi, b) in u.blocks.iter().enumerate() {
            let ran: Vec<bool> = runs
                .iter()
                .filter_map(|r| r.get(ui)?.get(bi).copied().flatten())
                .map(|c| c > 0.0)
                .collect();
            if ran.iter().any(|x| *x) && ran.iter().any(|x| !*x) {
                let file = &program.files.get(b.span.start.file).path;
                out.push(format!(
                    "{}:{} ({})",
                    file.display(),
                    b.span.start.line,
                    u.name
                ));
            }
        }
    }
    out
}

/// Counting runs at every value of `spec` and one profile: the run at the largest
/// value, with the `scaling` section that models every block. `progress` hears of each
/// value before its run.
pub fn analyze_scaled(
    sources: &[PathBuf],
    opts: &AnalyzeOptions,
    spec: &ScaleSpec,
    progress: impl FnMut(i64),
) -> Result<Analysis, AnalyzeError> {
    if spec.values.len() < 3 {
        return Err(AnalyzeError::Scale(format!(
            "--scale {}: give at least three values (a model needs a run to check it)",
            spec.symbol
        )));
    }
    if !spec.sized_inputs && !mentions_symbol(opts, spec) {
        return Err(AnalyzeError::Scale(format!(
            "--scale {s}: no -D, --args or --stdin mentions {{{s}}}, so every run would be the same; write e.g. -D N={{{s}}} or --args \"{{{s}}}\"",
            s = spec.symbol
        )));
    }
    let mut analyses = counting_runs(sources, opts, spec, progress)?;
    let counts: Vec<Vec<Vec<Option<f64>>>> = analyses
        .iter()
        .map(|a| block_counts_of(&a.profile))
        .collect();
    let Some(last) = analyses.last() else {
        return Err(AnalyzeError::Scale("no counting run".into()));
    };
    let changed = path_changes(&last.program, &counts);
    if !changed.is_empty() && !spec.allow_path_changes {
        return Err(AnalyzeError::Scale(format!(
            "the program takes a different path at different sizes: {} block(s) ran at some values of {} and not at others, first {}; choose sizes on one path, or pass --allow-path-changes to model those blocks by fits",
            changed.len(),
            spec.symbol,
            changed.iter().take(3).cloned().collect::<Vec<_>>().join(", ")
        )));
    }
    let blocks = models_of(&analyses, &counts, spec);
    let runs = analyses
        .iter()
        .zip(&spec.values)
        .map(|(a, v)| scaled_run(a, *v))
        .collect();
    let mut result = analyses
        .pop()
        .ok_or_else(|| AnalyzeError::Scale("no counting run".into()))?;
    if let Some(first) = changed.first() {
        result.profile.notes.push(format!(
            "{} block(s) run at some sizes only (first {first}): modelled by fits",
            changed.len()
        ));
    }
    result.profile.scaling = Some(ScalingProfile {
        symbol: spec.symbol.clone(),
        values: spec.values.clone(),
        profile_value: spec.values.iter().copied().max().unwrap_or(0),
        extrapolated: false,
        inputs: scaled_inputs(sources, opts),
        runs,
        blocks,
    });
    Ok(result)
}

/// One counting run per value, the program's structure checked the same in each. Only
/// the largest run's profile is kept: the others give their block counts, nest values and
/// shapes, without a branch run or an optimization report.
fn counting_runs(
    sources: &[PathBuf],
    opts: &AnalyzeOptions,
    spec: &ScaleSpec,
    mut progress: impl FnMut(i64),
) -> Result<Vec<Analysis>, AnalyzeError> {
    let largest = spec.values.iter().copied().max().unwrap_or(0);
    let mut analyses: Vec<Analysis> = vec![];
    for &v in &spec.values {
        progress(v);
        let mut at_v = options_at(opts, spec, v);
        if v != largest {
            at_v.branch_run = false;
            at_v.optimization_report = false;
        }
        let a = analyze(sources, &at_v)?;
        if let Some(d) = analyses
            .last()
            .and_then(|prev| structure_difference(&prev.program, &a.program))
        {
            return Err(AnalyzeError::Scale(format!(
                "the program's structure changes with {s}: {d} at {s}={v}; a size may only change values, not the code (an #if on the size?)",
                s = spec.symbol
            )));
        }
        analyses.push(a);
    }
    Ok(analyses)
}

/// Every block's model from the runs.
fn models_of(
    analyses: &[Analysis],
    counts: &[Vec<Vec<Option<f64>>>],
    spec: &ScaleSpec,
) -> Vec<augur_program_profile::scaling::BlockScaling> {
    let nest_values: Vec<Vec<NestValues>> = analyses
        .iter()
        .map(|a| {
            a.profile
                .locality
                .as_ref()
                .map(|l| l.nest_values.clone())
                .unwrap_or_default()
        })
        .collect();
    let runs: Vec<augur_scaling::Run<'_>> = analyses
        .iter()
        .zip(counts)
        .zip(&nest_values)
        .zip(&spec.values)
        .map(|(((a, c), nv), v)| augur_scaling::Run {
            value: *v,
            program: &a.program,
            counts: c,
            nest_values: nv,
        })
        .collect();
    augur_scaling::block_models(&runs, &spec.symbol)
}

/// What a run recorded beyond its block counts.
fn scaled_run(a: &Analysis, value: i64) -> ScaledRun {
    let loc = a.profile.locality.as_ref();
    ScaledRun {
        value,
        operations: a.profile.operations,
        wall_seconds: a.profile.run.wall_seconds,
        first_touch_pages: a.profile.run.first_touch_pages,
        nest_values: loc.map(|l| l.nest_values.clone()).unwrap_or_default(),
        runtime_shapes: loc.map(|l| l.runtime_shapes.clone()).unwrap_or_default(),
    }
}

fn absolute(p: &Path) -> String {
    std::fs::canonicalize(p)
        .unwrap_or_else(|_| p.to_path_buf())
        .display()
        .to_string()
}

/// The command line's inputs with `{n}` left in place, paths made absolute.
fn scaled_inputs(sources: &[PathBuf], opts: &AnalyzeOptions) -> ScaledInputs {
    let load = &opts.front.load;
    ScaledInputs {
        sources: sources.iter().map(|p| absolute(p)).collect(),
        form: load.form.map(|f| match f {
            SourceForm::Fixed => "fixed".to_string(),
            SourceForm::Free => "free".to_string(),
        }),
        cpp: load.cpp,
        defines: load.defines.clone(),
        include_dirs: load.include_dirs.iter().map(|p| absolute(p)).collect(),
        args: opts.args.clone(),
        stdin: opts.stdin.as_ref().map(|p| p.display().to_string()),
    }
}

/// Why a profile could not be computed at another size.
#[derive(Debug, thiserror::Error)]
pub enum ScaleError {
    /// The profile has no `scaling` section.
    #[error("the profile was analyzed at one size only; analyze with --scale NAME=V1,V2,V3 to predict at other sizes")]
    NotScalable,
    /// `--at` names another variable.
    #[error("--at {given}: the profile scales with `{symbol}`; write --at {symbol}=VALUE")]
    WrongSymbol {
        /// The name given.
        given: String,
        /// The profile's.
        symbol: String,
    },
    /// A source is missing or changed, or no longer parses.
    #[error("{0}")]
    Sources(String),
}

/// The profile at `x`: block executions from the models, the program re-read with `{n}`
/// = `x` (its named constants follow `-D`), loops, lines and regions summed again, the
/// branch mispredictions at each block's analyzed rate, and the locality of the nests
/// re-streamed with the scalars and shapes extrapolated to `x`.
pub fn profile_at(profile: &ProgramProfile, x: i64) -> Result<ProgramProfile, ScaleError> {
    let sc = profile.scaling.as_ref().ok_or(ScaleError::NotScalable)?;
    let program = program_at(profile, sc, x)?;
    let runs: Vec<(i64, &[NestValues])> = sc
        .runs
        .iter()
        .map(|r| (r.value, &r.nest_values[..]))
        .collect();
    let mut models = sc.blocks.clone();
    augur_scaling::refine(&mut models, &program);
    let at = augur_scaling::counts_at(&models, &program, &runs, &sc.symbol, x);
    let texts: Vec<Option<&str>> = vec![None; program.files.files.len()];
    let plan = crate::instrument::plan(&program, &texts);
    let simulated = profile
        .branches
        .as_ref()
        .map(|_| mispredictions_at(profile, &program, &at.counts));
    let run = run_at(profile, sc, x);
    let notes = notes_at(sc, x, at.fell_back);
    let mut out = build_profile(
        &program,
        &plan.rules,
        &at.counts,
        run,
        notes,
        simulated.as_deref(),
    );
    out.optimization = profile.optimization.clone();
    out.branches = profile.branches.clone().map(|mut b| {
        let before: f64 = profile.totals.get(AbOp::BRMP) + profile.totals.get(AbOp::BRMC);
        let after: f64 = out.totals.get(AbOp::BRMP) + out.totals.get(AbOp::BRMC);
        if before > 0.0 {
            b.mispredictions *= after / before;
        }
        b
    });
    out.locality = profile
        .locality
        .as_ref()
        .map(|base| locality_at(&program, &out, base, sc, x));
    if let (Some(base), Some(now)) = (&profile.locality, &out.locality) {
        out.run.first_touch_pages = profile
            .run
            .first_touch_pages
            .map(|pages| pages_with_footprint(pages, base, now))
            .or(out.run.first_touch_pages);
    }
    out.scaling = Some(ScalingProfile {
        profile_value: x,
        extrapolated: true,
        blocks: models,
        ..sc.clone()
    });
    Ok(out)
}

/// The run entry of the profile at `x`: the arguments and input as they would be, no
/// exit status or time (nothing ran).
fn run_at(
    profile: &ProgramProfile,
    sc: &ScalingProfile,
    x: i64,
) -> augur_program_profile::RunEntry {
    let at = |t: &String| ScaledInputs::substitute(t, &sc.symbol, x);
    let mut run = profile.run.clone();
    run.args = sc.inputs.args.iter().map(at).collect();
    run.stdin = sc.inputs.stdin.as_ref().map(at);
    run.exit_code = None;
    run.wall_seconds = 0.0;
    run.first_touch_pages = pages_at(sc, x);
    run
}

/// The notes of the profile at `x`.
fn notes_at(sc: &ScalingProfile, x: i64, fell_back: usize) -> Vec<String> {
    let values: Vec<String> = sc.values.iter().map(|v| v.to_string()).collect();
    let mut notes = vec![format!(
        "extrapolated to {}={x} from counting runs at {}",
        sc.symbol,
        values.join(", ")
    )];
    if fell_back > 0 {
        notes.push(format!(
            "{fell_back} block(s) with exact counts used their fitted model at {}={x} (their nest's values do not extrapolate, or too many iterations to enumerate without a closed form)",
            sc.symbol
        ));
    }
    notes
}

/// The front end's options of the build at `x` (`{n}` substituted in the definitions).
fn front_end_at(
    profile: &ProgramProfile,
    sc: &ScalingProfile,
    x: i64,
) -> augur_fortran::FrontEndOptions {
    let inputs = &sc.inputs;
    augur_fortran::FrontEndOptions {
        load: augur_source::LoadOptions {
            form: inputs.form.as_deref().map(|f| match f {
                "fixed" => SourceForm::Fixed,
                _ => SourceForm::Free,
            }),
            cpp: inputs.cpp,
            defines: inputs
                .defines
                .iter()
                .map(|d| ScaledInputs::substitute(d, &sc.symbol, x))
                .collect(),
            include_dirs: inputs.include_dirs.iter().map(PathBuf::from).collect(),
            openmp: false,
        },
        max_syntax_errors: 0,
        default_kinds: augur_fortran::DefaultKinds::from_flags(&profile.run.fflags),
    }
}

/// The program as built at `x`: the sources re-read with `{n}` = `x`, checked unchanged
/// and of the same structure as analyzed.
fn program_at(
    profile: &ProgramProfile,
    sc: &ScalingProfile,
    x: i64,
) -> Result<Program, ScaleError> {
    let inputs = &sc.inputs;
    let paths: Vec<PathBuf> = inputs.sources.iter().map(PathBuf::from).collect();
    for p in &paths {
        if !p.is_file() {
            return Err(ScaleError::Sources(format!(
                "{}: the source the profile was analyzed from is missing; predicting at another size reads the sources again (restore it, or analyze again where it is)",
                p.display()
            )));
        }
    }
    let front = front_end_at(profile, sc, x);
    let program = crate::distribute::reread(profile, &paths, &front).map_err(|e| {
        ScaleError::Sources(match e {
            crate::distribute::Reread::Parse(d) => {
                format!("the sources do not parse at {}={x}:\n{d}", sc.symbol)
            }
            crate::distribute::Reread::Changed(path) => format!(
                "{path}: changed since the analysis; analyze again to predict at other sizes"
            ),
        })
    })?;
    let analyzed = program
        .units
        .iter()
        .zip(&profile.units)
        .flat_map(|(u, p)| u.blocks.iter().zip(&p.blocks));
    let same = program.units.len() == profile.units.len()
        && program
            .units
            .iter()
            .zip(&profile.units)
            .all(|(a, b)| a.name == b.name && a.blocks.len() == b.blocks.len())
        && analyzed
            .clone()
            .all(|(b, bp)| b.span.start.line == bp.first_line && b.span.end_line == bp.last_line);
    if !same {
        return Err(ScaleError::Sources(format!(
            "at {}={x} the program's structure differs from the analyzed one (a size may only change values, not the code: an #if on the size?)",
            sc.symbol
        )));
    }
    Ok(program)
}

/// Each block's simulated mispredictions at the new counts: its analyzed rate per
/// execution (the `BRMP`/`BRMC` the profile spread over its executions) times them.
fn mispredictions_at(
    profile: &ProgramProfile,
    program: &Program,
    counts: &[Vec<Option<f64>>],
) -> Vec<Vec<Option<f64>>> {
    program
        .units
        .iter()
        .enumerate()
        .map(|(ui, u)| {
            (0..u.blocks.len())
                .map(|bi| {
                    let base = profile.units.get(ui)?.blocks.get(bi)?;
                    let rate = base.counts.get(AbOp::BRMP) + base.counts.get(AbOp::BRMC);
                    let stat = &u.blocks[bi].counts;
                    let rate = rate - stat.get(AbOp::BRMP) - stat.get(AbOp::BRMC);
                    Some(rate.max(0.0) * counts.get(ui)?.get(bi).copied().flatten()?)
                })
                .collect()
        })
        .collect()
}

/// The pages the arrays of the loop nests span: per array name, the most pages one nest
/// execution touches, summed.
fn array_pages(loc: &augur_program_profile::locality::LocalityProfile) -> f64 {
    let mut most: HashMap<&str, u64> = HashMap::new();
    for a in loc.nests.iter().flat_map(|n| &n.arrays) {
        let e = most.entry(a.name.as_str()).or_default();
        *e = (*e).max(a.footprint_pages);
    }
    most.values().sum::<u64>() as f64
}

/// Pages first touched at the new size: those of the largest run (the runtime's, the
/// stack's, the arrays') plus the growth of the arrays' pages from `base` to `now`, at
/// most in proportion to it (an array seen under two names, a dummy and its actual, is
/// counted twice by [`array_pages`]; the proportion bounds that).
fn pages_with_footprint(
    pages: u64,
    base: &augur_program_profile::locality::LocalityProfile,
    now: &augur_program_profile::locality::LocalityProfile,
) -> u64 {
    let (before, after) = (array_pages(base), array_pages(now));
    let grown = pages as f64 + (after - before).max(0.0);
    let proportional = pages as f64 * after / before.max(1.0);
    grown.min(proportional.max(pages as f64)).round() as u64
}

/// Pages first touched at `x`: the runs' counts extrapolated (Extra-P form), when the
/// profile has no locality to follow the arrays' growth with.
fn pages_at(sc: &ScalingProfile, x: i64) -> Option<u64> {
    let pages: Option<Vec<f64>> = sc
        .runs
        .iter()
        .map(|r| r.first_touch_pages.map(|p| p as f64))
        .collect();
    let xs: Vec<f64> = sc.runs.iter().map(|r| r.value as f64).collect();
    let m = augur_scaling::fit::fit_power_law(&xs, &pages?)?;
    Some(m.eval(x as f64).round() as u64)
}

/// The locality at `x`: the nests re-streamed with the recorded values and runtime
/// shapes extrapolated to `x` (a nest whose values do not extrapolate keeps those of the
/// largest run), the sampled references' accesses scaled with their loop's iterations.
fn locality_at(
    program: &Program,
    at: &ProgramProfile,
    base: &augur_program_profile::locality::LocalityProfile,
    sc: &ScalingProfile,
    x: i64,
) -> augur_program_profile::locality::LocalityProfile {
    let index: HashMap<&str, usize> = program
        .units
        .iter()
        .enumerate()
        .map(|(i, u)| (u.name.as_str(), i))
        .collect();
    let values = values_at(sc, x, &index);
    let shapes = shapes_at(sc, x, &index, program.units.len());
    let mut loc = crate::locality::analyze_locality_with(program, at, &shapes, &values);
    loc.sampled_refs = base
        .sampled_refs
        .iter()
        .map(|r| scaled_ref(r, &index, at, sc))
        .collect();
    loc
}

/// A sampled reference with its accesses scaled by its loop's iterations at `x` over
/// those of the largest run (its reuse histogram keeps its shape).
fn scaled_ref(
    r: &augur_program_profile::locality::SampledRef,
    index: &HashMap<&str, usize>,
    at: &ProgramProfile,
    sc: &ScalingProfile,
) -> augur_program_profile::locality::SampledRef {
    let ratio = iteration_ratio(r, index, at, sc).unwrap_or(1.0);
    let scale = |v: u64| (v as f64 * ratio).round() as u64;
    let mut r = r.clone();
    r.executions = scale(r.executions);
    r.samples = scale(r.samples);
    r.histogram.cold = scale(r.histogram.cold);
    for b in &mut r.histogram.bins {
        b[1] = scale(b[1]);
    }
    r
}

/// Iterations of the reference's loop at the new size over those of the largest run.
fn iteration_ratio(
    r: &augur_program_profile::locality::SampledRef,
    index: &HashMap<&str, usize>,
    at: &ProgramProfile,
    sc: &ScalingProfile,
) -> Option<f64> {
    let ui = *index.get(r.unit.as_str())?;
    let unit = at.units.get(ui)?;
    let now = unit.loops.get(r.loop_id as usize)?.iterations?;
    let header = unit.blocks.iter().position(|b| {
        b.in_loop == Some(r.loop_id) && b.block_kind == augur_ir::BlockKind::LoopHeader
    })?;
    let before = sc
        .blocks
        .iter()
        .find(|b| b.unit == ui && b.block as usize == header)?
        .observed
        .last()
        .copied()?;
    (before > 0.0).then(|| now / before)
}

/// Every recorded nest's value sets at `x`, by unit index.
fn values_at(
    sc: &ScalingProfile,
    x: i64,
    index: &HashMap<&str, usize>,
) -> Vec<(usize, NestValues)> {
    let Some(last) = sc.runs.last() else {
        return vec![];
    };
    let xs: Vec<i64> = sc.runs.iter().map(|r| r.value).collect();
    let mut out = vec![];
    for nv in &last.nest_values {
        let Some(&ui) = index.get(nv.unit.as_str()) else {
            continue;
        };
        let per_run: Option<Vec<&NestValues>> = sc
            .runs
            .iter()
            .map(|r| {
                r.nest_values
                    .iter()
                    .find(|v| v.unit == nv.unit && v.loop_id == nv.loop_id)
            })
            .collect();
        let sets = per_run.and_then(|p| augur_scaling::sets::extrapolate(&xs, &p, x));
        let extrapolated = match sets {
            Some(sets) => NestValues {
                sets: sets
                    .iter()
                    .map(|(env, count)| ValueSet {
                        count: *count as u64,
                        values: nv
                            .vars
                            .iter()
                            .map(|v| env.get(v).copied().unwrap_or(0) as i64)
                            .collect(),
                    })
                    .collect(),
                other: 0,
                ..nv.clone()
            },
            None => nv.clone(),
        };
        out.push((ui, extrapolated));
    }
    out
}

/// Runtime shapes at `x`: each lower bound and extent an exact polynomial in the scale
/// variable over the runs (an array whose shape does not extrapolate keeps the largest
/// run's).
fn shapes_at(
    sc: &ScalingProfile,
    x: i64,
    index: &HashMap<&str, usize>,
    units: usize,
) -> Vec<HashMap<String, Vec<(i64, i64)>>> {
    let mut out = vec![HashMap::new(); units];
    let Some(last) = sc.runs.last() else {
        return out;
    };
    let xs: Vec<i64> = sc.runs.iter().map(|r| r.value).collect();
    for s in &last.runtime_shapes {
        let Some(&ui) = index.get(s.unit.as_str()) else {
            continue;
        };
        let per_run: Option<Vec<&Vec<[i64; 2]>>> = sc
            .runs
            .iter()
            .map(|r| {
                r.runtime_shapes
                    .iter()
                    .find(|t| {
                        t.unit == s.unit && t.array == s.array && t.bounds.len() == s.bounds.len()
                    })
                    .map(|t| &t.bounds)
            })
            .collect();
        let dims: Vec<(i64, i64)> = (0..s.bounds.len())
            .map(|d| {
                let fit = |k: usize| -> Option<i64> {
                    let ys: Vec<i64> = per_run.as_ref()?.iter().map(|b| b[d][k]).collect();
                    augur_scaling::sets::polynomial_at(&xs, &ys, x)
                };
                (
                    fit(0).unwrap_or(s.bounds[d][0]),
                    fit(1).unwrap_or(s.bounds[d][1]).max(0),
                )
            })
            .collect();
        out[ui].insert(s.array.clone(), dims);
    }
    out
}

/// Per kind of model (`exact`, `constant`, `polynomial`, `share`, `fitted`): blocks and the share
/// of the profile's operations they execute.
pub fn model_shares(profile: &ProgramProfile) -> Vec<(&'static str, usize, f64)> {
    let Some(sc) = &profile.scaling else {
        return vec![];
    };
    let total = profile.operations.max(1e-300);
    let mut out: Vec<(&'static str, usize, f64)> =
        ["exact", "constant", "polynomial", "share", "fitted"]
            .iter()
            .map(|k| (*k, 0, 0.0))
            .collect();
    for b in &sc.blocks {
        let Some(row) = out.iter_mut().find(|r| r.0 == b.model.kind()) else {
            continue;
        };
        row.1 += 1;
        let ops = profile
            .units
            .get(b.unit)
            .and_then(|u| u.blocks.get(b.block as usize))
            .map_or(0.0, |bp| bp.counts.total() * bp.executions.unwrap_or(0.0));
        row.2 += ops / total;
    }
    out
}

/// Blocks with an exact model in `scaled` (a profile from [`profile_at`]) and how many of
/// them differ from `direct`'s executions (a counting run at the same size): `(exact,
/// mismatched)`.
pub fn exact_mismatches(scaled: &ProgramProfile, direct: &ProgramProfile) -> (usize, usize) {
    let Some(sc) = &scaled.scaling else {
        return (0, 0);
    };
    let (got, want) = (block_counts_of(scaled), block_counts_of(direct));
    let at = |c: &[Vec<Option<f64>>], b: &augur_program_profile::scaling::BlockScaling| {
        c.get(b.unit)
            .and_then(|u| u.get(b.block as usize))
            .copied()
            .flatten()
    };
    let exact: Vec<_> = sc
        .blocks
        .iter()
        .filter(|b| {
            matches!(
                b.model,
                augur_program_profile::scaling::CountModel::Exact { .. }
            )
        })
        .collect();
    let bad = exact.iter().filter(|b| at(&got, b) != at(&want, b)).count();
    (exact.len(), bad)
}
