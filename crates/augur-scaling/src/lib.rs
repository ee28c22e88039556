//! Block executions as functions of the problem size, from counting runs at a few
//! sizes: P^3T+'s symbolic counting where a block's DO nest has bounds the sums can
//! follow (exact, checked against every run), otherwise the least model that explains
//! the runs — a constant, a polynomial checked on a spare run, or Extra-P's normal form
//! `c0 + c1 · n^i · log2(n)^j` chosen by leave-one-out cross-validation.
//!
//! [`block_models`] builds the models from the runs; [`counts_at`] evaluates them at a
//! size never run, with the program as it is built at that size (its named constants
//! may depend on the size through `-D`).

pub mod fit;
pub mod nest;
pub mod poly;
pub mod ranks;
pub mod sets;

use augur_ir::Program;
use augur_program_profile::locality::NestValues;
use augur_program_profile::scaling::{BlockScaling, CountModel};
use nest::{Count, Env, OverBudget};
use num_traits::ToPrimitive;
use poly::q;

/// Outer iterations an exact count may enumerate at most per loop before it uses its
/// closed form (or, without one, the fitted model).
pub const ENUMERATION_BUDGET: u64 = 20_000_000;

/// One counting run at one value of the scale variable.
#[derive(Debug, Clone, Copy)]
pub struct Run<'a> {
    /// The scale variable's value.
    pub value: i64,
    /// The program as built for this run.
    pub program: &'a Program,
    /// Executions per unit and block.
    pub counts: &'a [Vec<Option<f64>>],
    /// The values the recorded nests ran with.
    pub nest_values: &'a [NestValues],
}

/// The exact count of a nest's loop at one run, given its nest's symbolic iterations.
struct NestAt<'a> {
    program: &'a Program,
    unit: usize,
    /// The recorded value sets with their entries, when the count starts at the loop
    /// they were recorded at.
    sets: Option<Vec<(Env, i128)>>,
    /// Otherwise the entries of the loop the count starts at...
    entries: Option<f64>,
    /// ... and the values of the nest's only value set, if recorded.
    env: Env,
}

impl NestAt<'_> {
    /// Executions of the loop whose iterations per entry `count` gives (`None`: a name
    /// has no value, or too many iterations to enumerate and no closed form).
    fn total(&self, count: &Count, closed: Option<&poly::Poly>) -> Option<f64> {
        let params = nest::parameters(self.program, self.unit);
        let per = |vars: &Env| -> Option<i128> {
            let mut env = params.clone();
            env.extend(vars.iter().map(|(k, v)| (k.clone(), *v)));
            let mut budget = ENUMERATION_BUDGET;
            match count.enumerate(&mut env, &mut budget) {
                Ok(v) => v,
                Err(OverBudget) => {
                    let env_q = env.iter().map(|(k, v)| (k.clone(), q(*v as i64))).collect();
                    let v = closed?.eval(&env_q)?;
                    v.is_integer().then(|| v.to_integer().to_i128()).flatten()
                }
            }
        };
        match &self.sets {
            Some(sets) => {
                let mut total = 0.0;
                for (vars, times) in sets {
                    total += per(vars)? as f64 * *times as f64;
                }
                Some(total)
            }
            None => Some(per(&self.env)? as f64 * self.entries?),
        }
    }
}

/// The value sets (with their entries), or the entries and the single set's values.
type Weights = (Option<Vec<(Env, i128)>>, Option<f64>, Env);

/// The weights of a loop's count from loop `root` in one run (or at one size): the
/// value sets recorded at the nest's outermost loop `outermost` when `root` is that loop,
/// otherwise `root`'s entries, with the nest's values when it ran with one set only.
/// `None` when the nest ran with several sets and `root` is inside it.
fn weights(
    sets: Option<Vec<(Env, i128)>>,
    root: u32,
    outermost: u32,
    entries: Option<f64>,
) -> Option<Weights> {
    match sets {
        Some(s) if root == outermost => Some((Some(s), None, Env::new())),
        Some(s) if s.len() == 1 => Some((None, entries, s[0].0.clone())),
        Some(_) => None,
        None => Some((None, entries, Env::new())),
    }
}

/// The recorded values of nest `root` of unit `unit` in a run.
fn nest_values<'a>(
    program: &Program,
    values: &'a [NestValues],
    unit: usize,
    root: u32,
) -> Option<&'a NestValues> {
    let name = &program.units.get(unit)?.name;
    values.iter().find(|v| &v.unit == name && v.loop_id == root)
}

/// Whether an observed count equals an exact one.
fn same_count(a: f64, b: f64) -> bool {
    (a - b).abs() <= 0.5
}

/// The exact model of block `bi` of unit `ui`, when the symbolic count of its loop from
/// one of the loops of its nest (the outermost first) equals its executions in every run
/// and the nest's values extrapolate.
fn exact_model(runs: &[Run<'_>], ui: usize, bi: usize, symbol: &str) -> Option<CountModel> {
    let unit = runs.last()?.program.units.get(ui)?;
    let loop_id = unit.blocks.get(bi)?.in_loop?.0;
    let chain = nest::counted_chain(unit, loop_id);
    chain
        .iter()
        .rev()
        .find_map(|&root| exact_from(runs, ui, bi, loop_id, root, symbol))
}

/// [`exact_model`] with the count starting at loop `root`.
fn exact_from(
    runs: &[Run<'_>],
    ui: usize,
    bi: usize,
    loop_id: u32,
    root: u32,
    symbol: &str,
) -> Option<CountModel> {
    let last = runs.last()?;
    let unit = last.program.units.get(ui)?;
    let outermost = *nest::counted_chain(unit, loop_id).last()?;
    let root_entry = unit.loops.get(root as usize)?.entry_block.0 as usize;
    let xs: Vec<i64> = runs.iter().map(|r| r.value).collect();
    let per_run: Vec<Option<&NestValues>> = runs
        .iter()
        .map(|r| nest_values(r.program, r.nest_values, ui, outermost))
        .collect();
    if per_run.iter().any(|v| v.is_some()) {
        // The values must extrapolate, or the model could not be used beyond the runs.
        let recorded: Option<Vec<&NestValues>> = per_run.iter().copied().collect();
        sets::extrapolate(&xs, &recorded?, xs.last()? + 1)?;
    }
    let mut closed_ok = true;
    let mut closed_last = None;
    for (r, values) in runs.iter().zip(&per_run) {
        let u = r.program.units.get(ui)?;
        let count = nest::iterations_from(u, loop_id, root)?;
        let entries = r.counts.get(ui)?.get(root_entry).copied().flatten();
        let (sets, entries, env) = weights(values.map(sets::as_env), root, outermost, entries)?;
        let at = NestAt {
            program: r.program,
            unit: ui,
            sets,
            entries,
            env,
        };
        let observed = r.counts.get(ui)?.get(bi).copied().flatten()?;
        if !same_count(at.total(&count, None)?, observed) {
            return None;
        }
        let closed = count.closed();
        closed_ok &= closed
            .as_ref()
            .is_some_and(|c| at.total(&count, Some(c)).is_some() && closed_matches(&at, &count, c));
        closed_last = closed;
    }
    let count = nest::iterations_from(unit, loop_id, root)?;
    let mut symbols = match per_run
        .iter()
        .copied()
        .collect::<Option<Vec<&NestValues>>>()
    {
        Some(recorded) => sets::describe(&xs, &recorded, symbol),
        None => vec![],
    };
    symbols.extend(named_constants(runs, ui, &count, symbol));
    Some(CountModel::Exact {
        loop_id,
        root,
        per_entry: count.to_string(),
        closed_form: closed_last.filter(|_| closed_ok).map(|c| c.to_string()),
        symbols,
        by_value_sets: root == outermost && per_run.iter().all(|v| v.is_some()),
    })
}

/// How the named constants a count reads depend on the scale variable (`n = n` for a
/// `-D N={n}` build), for those that follow a polynomial.
fn named_constants(runs: &[Run<'_>], ui: usize, count: &Count, symbol: &str) -> Vec<String> {
    let Some(closed) = count.closed() else {
        return vec![];
    };
    let xs: Vec<i64> = runs.iter().map(|r| r.value).collect();
    let params: Vec<Env> = runs
        .iter()
        .map(|r| nest::parameters(r.program, ui))
        .collect();
    closed
        .vars()
        .into_iter()
        .filter_map(|name| {
            let ys: Option<Vec<poly::Q>> = params
                .iter()
                .map(|p| p.get(&name).map(|v| q(*v as i64)))
                .collect();
            let p = fit::exact_polynomial(&xs, &ys?, symbol)?;
            Some(format!("{name} = {p}"))
        })
        .collect()
}

/// Whether the closed form gives what enumeration gives at this run.
fn closed_matches(at: &NestAt<'_>, count: &Count, closed: &poly::Poly) -> bool {
    let params = nest::parameters(at.program, at.unit);
    let check = |vars: &Env| {
        let mut env = params.clone();
        env.extend(vars.iter().map(|(k, v)| (k.clone(), *v)));
        let mut budget = ENUMERATION_BUDGET;
        let Ok(Some(e)) = count.enumerate(&mut env, &mut budget) else {
            return false;
        };
        let env_q = env.iter().map(|(k, v)| (k.clone(), q(*v as i64))).collect();
        closed.eval(&env_q) == Some(q(e as i64))
    };
    match &at.sets {
        Some(sets) => sets.iter().all(|(v, _)| check(v)),
        None => check(&at.env),
    }
}

/// The model of a block observed `ys` at `xs` without its nest: constant, polynomial
/// (checked on a spare run) or fitted.
fn observed_model(xs: &[i64], ys: &[f64], symbol: &str) -> CountModel {
    if ys.iter().all(|y| same_count(*y, ys[0])) {
        return CountModel::Constant { value: ys[0] };
    }
    let yq: Vec<poly::Q> = ys.iter().map(|y| q(y.round() as i64)).collect();
    if let Some(p) = fit::exact_polynomial(xs, &yq, symbol) {
        let coefficients = p
            .coefficients_in(symbol)
            .iter()
            .map(|c| c.as_constant().unwrap_or_default().to_string())
            .collect();
        return CountModel::Polynomial {
            coefficients,
            form: p.to_string(),
        };
    }
    let xf: Vec<f64> = xs.iter().map(|x| *x as f64).collect();
    match fit::fit_power_law(&xf, ys) {
        Some(m) => CountModel::Fitted(m),
        None => CountModel::Constant {
            value: *ys.last().unwrap_or(&0.0),
        },
    }
}

/// The model of every block counted in every run (runs ascending by value, same program
/// structure): exact where the nest allows, otherwise from the observations.
pub fn block_models(runs: &[Run<'_>], symbol: &str) -> Vec<BlockScaling> {
    let Some(last) = runs.last() else {
        return vec![];
    };
    let xs: Vec<i64> = runs.iter().map(|r| r.value).collect();
    let xf: Vec<f64> = xs.iter().map(|x| *x as f64).collect();
    let mut out = vec![];
    let mut fallbacks = vec![];
    for (ui, unit) in last.program.units.iter().enumerate() {
        for bi in 0..unit.blocks.len() {
            let observed: Option<Vec<f64>> = runs
                .iter()
                .map(|r| r.counts.get(ui)?.get(bi).copied().flatten())
                .collect();
            let Some(observed) = observed else { continue };
            if observed.iter().all(|v| *v == 0.0) {
                continue;
            }
            let fallback = observed_model(&xs, &observed, symbol);
            let model = exact_model(runs, ui, bi, symbol).unwrap_or_else(|| fallback.clone());
            let fit = match (&model, &fallback) {
                (CountModel::Exact { .. }, CountModel::Fitted(m)) => Some(m.clone()),
                (CountModel::Exact { .. }, _) => fit::fit_power_law(&xf, &observed),
                _ => None,
            };
            out.push(BlockScaling {
                unit: ui,
                block: bi as u32,
                observed,
                model,
                fit,
            });
            fallbacks.push(fallback);
        }
    }
    demote_fitted_entries(&mut out, &fallbacks, last.program);
    shares_of_loops(&mut out, last.program);
    out
}

/// The models of a profile made by an earlier augur brought up to this one's rules that
/// need only the observations and the program's loops (shares of loop iterations):
/// [`counts_at`]'s callers apply it first.
pub fn refine(models: &mut [BlockScaling], program: &Program) {
    shares_of_loops(models, program);
}

/// Leave-one-out error a share may have beyond twice its fit's and still be preferred.
pub const SHARE_TOLERANCE: f64 = 0.02;

/// A fitted block inside a loop whose header's model is exact, constant or polynomial
/// becomes a constant share of the header's executions unless the fit predicts each run
/// from the others clearly better (branch probabilities on data hold across sizes; fits
/// of three noisy counts do not extrapolate).
fn shares_of_loops(models: &mut [BlockScaling], program: &Program) {
    for i in 0..models.len() {
        let CountModel::Fitted(fit) = &models[i].model else {
            continue;
        };
        let ui = models[i].unit;
        let Some(unit) = program.units.get(ui) else {
            continue;
        };
        let Some(lp) = unit
            .blocks
            .get(models[i].block as usize)
            .and_then(|b| b.in_loop)
        else {
            continue;
        };
        let header = unit.loops[lp.0 as usize].header_block.0;
        if header == models[i].block {
            continue;
        }
        let Some(h) = models.iter().find(|m| m.unit == ui && m.block == header) else {
            continue;
        };
        if !matches!(h.model.kind(), "exact" | "constant" | "polynomial") {
            continue;
        }
        let Some((ratio, cv_error)) = share_of(&models[i].observed, &h.observed) else {
            continue;
        };
        // The share has one parameter, the fit two: with three runs each fold of the fit
        // is an extrapolation through two points, whose error says little. The share is
        // kept unless the fit is clearly better.
        if cv_error <= 2.0 * fit.cv_error + SHARE_TOLERANCE {
            models[i].model = CountModel::Share {
                of_block: header,
                ratio,
                cv_error,
            };
        }
    }
}

/// The pooled share of `ys` in `of`, and its leave-one-out error (RMS of the relative
/// errors of each run predicted from the others' share).
fn share_of(ys: &[f64], of: &[f64]) -> Option<(f64, f64)> {
    if ys.len() != of.len() || ys.len() < 3 || of.iter().any(|v| *v <= 0.0) {
        return None;
    }
    let pooled = |skip: Option<usize>| {
        let (a, b) = ys
            .iter()
            .zip(of)
            .enumerate()
            .filter(|(k, _)| Some(*k) != skip)
            .fold((0.0, 0.0), |(a, b), (_, (y, o))| (a + y, b + o));
        a / b
    };
    let sq: f64 = (0..ys.len())
        .map(|k| ((pooled(Some(k)) * of[k] - ys[k]) / ys[k].abs().max(1.0)).powi(2))
        .sum();
    Some((pooled(None), (sq / ys.len() as f64).sqrt()))
}

/// An exact count not weighted by recorded value sets multiplies its root loop's entries:
/// when those come from a fitted model, so does the count, which takes its own fallback
/// model instead. Outer loops first, so that a demotion reaches the loops inside.
fn demote_fitted_entries(models: &mut [BlockScaling], fallbacks: &[CountModel], program: &Program) {
    let root_of = |m: &BlockScaling| match &m.model {
        CountModel::Exact {
            root,
            by_value_sets: false,
            ..
        } => Some(*root),
        _ => None,
    };
    let depth = |m: &BlockScaling| {
        root_of(m)
            .and_then(|r| program.units.get(m.unit)?.loops.get(r as usize))
            .map_or(0, |l| l.depth)
    };
    let mut order: Vec<usize> = (0..models.len()).collect();
    order.sort_by_key(|&i| depth(&models[i]));
    for i in order {
        let Some(root) = root_of(&models[i]) else {
            continue;
        };
        let Some(unit) = program.units.get(models[i].unit) else {
            continue;
        };
        let Some(lp) = unit.loops.get(root as usize) else {
            continue;
        };
        let entry = lp.entry_block.0;
        let entry_kind = models
            .iter()
            .find(|m| m.unit == models[i].unit && m.block == entry)
            .map(|m| m.model.kind());
        if !matches!(entry_kind, Some("exact" | "constant" | "polynomial")) {
            models[i].model = fallbacks[i].clone();
            models[i].fit = None;
        }
    }
}

/// Block executions at a size never run.
#[derive(Debug, Clone, PartialEq)]
pub struct CountsAt {
    /// Executions per unit and block (blocks never executed: 0; not counted: `None`).
    pub counts: Vec<Vec<Option<f64>>>,
    /// Blocks with an exact model that had to use their fitted one instead.
    pub fell_back: usize,
}

/// The value of a model that does not need the nest, at `x`.
fn observed_value(model: &CountModel, fit: Option<&fit::PowerLaw>, symbol: &str, x: i64) -> f64 {
    match model {
        CountModel::Constant { value } => *value,
        CountModel::Polynomial { coefficients, .. } => {
            let p = coefficients
                .iter()
                .enumerate()
                .fold(poly::Poly::zero(), |acc, (d, c)| {
                    let c: poly::Q = c.parse().unwrap_or_default();
                    acc.add(&poly::Poly::var(symbol).pow(d as u32).scale(&c))
                });
            fit::poly_at(&p, symbol, x).unwrap_or(0.0).max(0.0)
        }
        CountModel::Fitted(m) => m.eval(x as f64),
        CountModel::Exact { .. } | CountModel::Share { .. } => {
            fit.map_or(0.0, |m| m.eval(x as f64))
        }
    }
}

/// Every block's executions at `x`, with `program` as built at `x` and the runs'
/// recorded nest values (`(value, values)` ascending) to extrapolate the scalars from.
pub fn counts_at(
    models: &[BlockScaling],
    program: &Program,
    runs: &[(i64, &[NestValues])],
    symbol: &str,
    x: i64,
) -> CountsAt {
    let mut counts: Vec<Vec<Option<f64>>> = program
        .units
        .iter()
        .map(|u| vec![Some(0.0); u.blocks.len()])
        .collect();
    // Models that do not need a nest first: an exact model multiplies its nest's entries.
    for m in models {
        if let Some(slot) = counts
            .get_mut(m.unit)
            .and_then(|u| u.get_mut(m.block as usize))
        {
            *slot = Some(observed_value(&m.model, m.fit.as_ref(), symbol, x));
        }
    }
    let xs: Vec<i64> = runs.iter().map(|r| r.0).collect();
    let mut fell_back = 0;
    // Outer roots first: a count from an inner loop multiplies that loop's entries,
    // which an outer exact count may give.
    let depth = |m: &&BlockScaling| match &m.model {
        CountModel::Exact { root, .. } => program
            .units
            .get(m.unit)
            .and_then(|u| u.loops.get(*root as usize))
            .map_or(0, |l| l.depth),
        _ => 0,
    };
    let mut ordered: Vec<&BlockScaling> = models.iter().collect();
    ordered.sort_by_key(depth);
    for m in ordered {
        let CountModel::Exact {
            loop_id,
            root,
            closed_form,
            ..
        } = &m.model
        else {
            continue;
        };
        let nest = NestRef {
            unit: m.unit,
            loop_id: *loop_id,
            root: *root,
            closed: closed_form.is_some(),
        };
        match exact_at(program, runs, &xs, &nest, &counts, x) {
            Some(v) => set(&mut counts, m, Some(v)),
            None => fell_back += 1,
        }
    }
    for m in models {
        if let CountModel::Share {
            of_block, ratio, ..
        } = &m.model
        {
            let of = counts
                .get(m.unit)
                .and_then(|u| u.get(*of_block as usize))
                .copied()
                .flatten();
            set(&mut counts, m, of.map(|v| v * ratio));
        }
    }
    CountsAt { counts, fell_back }
}

/// Stores a block's executions (a model naming a block the program lacks is ignored: the
/// caller checked the structure).
fn set(counts: &mut [Vec<Option<f64>>], m: &BlockScaling, value: Option<f64>) {
    if let Some(slot) = counts
        .get_mut(m.unit)
        .and_then(|u| u.get_mut(m.block as usize))
    {
        *slot = value;
    }
}

/// A loop of an exact model: where it is, and whether its closed form was checked.
struct NestRef {
    unit: usize,
    loop_id: u32,
    root: u32,
    closed: bool,
}

/// The exact count of a loop at `x`, or `None` when it cannot be evaluated.
fn exact_at(
    program: &Program,
    runs: &[(i64, &[NestValues])],
    xs: &[i64],
    nest: &NestRef,
    counts: &[Vec<Option<f64>>],
    x: i64,
) -> Option<f64> {
    let (ui, loop_id, root) = (nest.unit, nest.loop_id, nest.root);
    let unit = program.units.get(ui)?;
    let count = nest::iterations_from(unit, loop_id, root)?;
    let outermost = *nest::counted_chain(unit, loop_id).last()?;
    let recorded: Vec<Option<&NestValues>> = runs
        .iter()
        .map(|(_, v)| nest_values(program, v, ui, outermost))
        .collect();
    let sets = match recorded.iter().all(|r| r.is_some()) && !recorded.is_empty() {
        true => {
            let r: Vec<&NestValues> = recorded.into_iter().flatten().collect();
            Some(sets::extrapolate(xs, &r, x)?)
        }
        false => None,
    };
    let entry = unit.loops.get(root as usize)?.entry_block.0 as usize;
    let entries = counts.get(ui)?.get(entry).copied().flatten();
    let (sets, entries, env) = weights(sets, root, outermost, entries)?;
    let at = NestAt {
        program,
        unit: ui,
        sets,
        entries,
        env,
    };
    let closed = count.closed().filter(|_| nest.closed);
    at.total(&count, closed.as_ref())
}
