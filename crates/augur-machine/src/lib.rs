//! augur-machine: the machine characterizer.
//!
//! Measures the cost of abstract operations (AbOps) on a machine — a CPU together with a
//! compiler and its flags — with narrow-spectrum experiments (Saavedra-Barrera, digest 001
//! §4), and writes the machine profile.
//!
//! * [`experiments`]: the catalogue of experiments (direct, composite and indirect).
//! * [`harness`]: generates one Fortran program for all of them, builds and runs it.
//! * [`stats`]: means, deviations, variance propagation, 90% Student-t intervals.
//! * [`fit`]: least squares for the indirect measurements.
//! * The machine profile it writes is the format of `augur-machine-profile`.
//! * [`process`]: what a run pays outside the program's code (the process's start and exit).
//! * [`characterize`]: the whole pipeline.

pub mod experiments;
pub mod fit;
pub mod harness;
pub mod process;
pub mod stats;

use augur_ir::AbOp;
use augur_machine_profile::{AbOpEntry, MachineProfile, MEASURED, NOT_DETECTED};
use augur_toolchain::Toolchain;
use experiments::Experiment;
use harness::{Outcome, Progress, Settings};
use stats::Estimate;
use std::collections::HashMap;

/// The environment variable of the test hook: `MNEM` or `MNEM:compile` makes that AbOp's
/// experiment fail to compile, `MNEM:crash` makes it stop with an error at run time,
/// `MNEM:noisy` discards its observations' window check as if the machine were too noisy.
/// For tests of the failure paths only.
pub const TEST_BREAK_ENV: &str = "AUGUR_TEST_BREAK";

/// The test hook's request: which AbOp and how to break it.
fn test_break() -> Option<(AbOp, String)> {
    let v = std::env::var(TEST_BREAK_ENV).ok()?;
    let (m, how) = v.split_once(':').unwrap_or((v.as_str(), "compile"));
    Some((AbOp::from_mnemonic(m.trim())?, how.trim().to_string()))
}

/// Measures `exps` with `tc` and returns the profile (AbOps without an experiment are
/// `not yet measured`, or `not measurable` with the reason). `mode` is recorded in the
/// provenance (`quick`, `default` or `precise`). The program first measures the timer's
/// resolution, which sets the observation window ([`Settings::window_for`]). After the
/// first pass of `settings.reps` observations (the provenance's `observations`), the
/// experiments above the mode's target interval are re-observed adaptively
/// ([`reobserve`]), within the mode's budget of first passes; each entry's `observations`
/// counts its pooled, kept pairs.
pub fn characterize(
    tc: &Toolchain,
    exps: &[Experiment],
    settings: Settings,
    mode: &str,
    progress: &mut dyn Progress,
) -> Result<MachineProfile, String> {
    let start = std::time::Instant::now();
    let mut exps = exps.to_vec();
    let hook = test_break();
    if let Some((op, how)) = &hook {
        for e in exps.iter_mut().filter(|e| e.abop == *op) {
            match how.as_str() {
                "crash" => e.setup = format!("error stop 'augur test crash'\n{}", e.setup),
                "noisy" => {}
                _ => e.body.push_str("this is not fortran\n"),
            }
        }
    }
    let exps = &exps[..];
    let dir = augur_toolchain::interrupt::temp_dir("augur-machine-")
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    // Re-observation spends at most the mode's first passes' worth of observations.
    let first_pass = exps.len() as f64 * f64::from(settings.reps);
    let mut budget = (first_pass * settings.reobserve_passes) as u64;
    let cap = settings.reps * MAX_OBSERVATIONS_FACTOR;
    let mut more = |outcomes: &[Outcome], rate: u64| {
        let want = reobserve(
            exps,
            outcomes,
            rate,
            (settings.reps, cap),
            settings.target_rel_ci90,
        );
        let mut take = Vec::new();
        for (i, add) in want {
            if u64::from(add) > budget {
                break;
            }
            budget -= u64::from(add);
            take.push((i, add));
        }
        take
    };
    let mut m = harness::measure(tc, exps, settings, dir.path(), progress, &mut more)?;
    drop(dir);
    if let Some((op, how)) = &hook {
        if how == "noisy" {
            for (e, o) in exps.iter().zip(m.outcomes.iter_mut()) {
                if let (true, Outcome::Observed { in_window, .. }) = (e.abop == *op, o) {
                    *in_window = 0;
                }
            }
        }
    }
    let mut prov = augur_toolchain::os::toolchain_provenance(tc, env!("CARGO_PKG_VERSION"), mode);
    prov.window_ms = m.window_ns as f64 / 1e6;
    prov.observations = settings.reps;
    prov.timer_rate_hz = m.rate;
    prov.timer_resolution_ns = round_sig(m.resolution_ns);
    let mut p = MachineProfile::new(prov);
    for (op, why) in experiments::NOT_MEASURABLE {
        p.abop.insert(
            *op,
            AbOpEntry::status(format!(
                "{}{why}",
                augur_machine_profile::NOT_MEASURABLE_PREFIX
            )),
        );
    }
    for r in resolve(exps, &m.outcomes, m.rate) {
        p.abop.insert(r.op, r.entry);
    }
    p.provenance.elapsed_s = (start.elapsed().as_secs_f64() * 10.0).round() / 10.0;
    Ok(p)
}

/// The relative 90% half-width that re-observation aims at by default.
pub const TARGET_REL_CI90: f64 = 0.03;

/// At most this many times the first pass's observations per experiment.
pub const MAX_OBSERVATIONS_FACTOR: u32 = 12;

/// Adaptive re-observation (sequential sampling): the experiments whose parameter is
/// measured but whose 90% half-width exceeds `target` of its mean, with how many
/// more observations they need, cheapest first. The need is the usual sample-size estimate
/// from the current standard deviation, `n (hw / target)²`, with a fifth more for the error
/// of that estimate, and at least half a pass (`reps`, the first pass's observations). An
/// experiment that would need more than `cap`
/// observations in all gets one more pass (the first pass's deviation is a rough estimate)
/// and is then left as it is (its cost is close to the noise), so that the observations go
/// where they can reach the target. Costs that are not detected are not
/// re-observed: being below the noise is a result. An indirect parameter re-observes all
/// the experiments of its fit. Stopping when an interval is narrow enough makes the
/// intervals slightly optimistic (optional stopping); the pooled observations are all
/// kept, none is dropped.
pub fn reobserve(
    exps: &[Experiment],
    outcomes: &[Outcome],
    rate: u64,
    (reps, cap): (u32, u32),
    target: f64,
) -> Vec<(usize, u32)> {
    let mut want: Vec<(usize, u32)> = Vec::new();
    for r in resolve(exps, outcomes, rate) {
        let Some(Outcome::Observed { body, .. }) = r.sources.first().map(|&i| &outcomes[i]) else {
            continue;
        };
        let n = body.len() as u32;
        let entry = &r.entry;
        if entry.status != MEASURED || n >= cap {
            continue;
        }
        let (Some(m), Some(ci)) = (entry.mean_ns, entry.ci90_ns) else {
            continue;
        };
        let target = target * m.abs();
        if ci <= target {
            continue;
        }
        let need = ((ci / target).powi(2) * f64::from(n) * 1.2).ceil();
        let need = if !need.is_finite() || need > f64::from(cap) {
            // Ten observations estimate the deviation roughly: one more pass before
            // giving up.
            if n >= 2 * reps {
                continue;
            }
            n + reps
        } else {
            need as u32
        };
        let add = need.saturating_sub(n).max((reps / 2).max(2)).min(cap - n);
        for &i in &r.sources {
            match want.iter_mut().find(|w| w.0 == i) {
                Some(w) => w.1 = w.1.max(add),
                None => want.push((i, add)),
            }
        }
    }
    want.sort_by_key(|w| w.1);
    want
}

/// One parameter resolved from the observations.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The parameter.
    pub op: AbOp,
    /// Its profile entry.
    pub entry: AbOpEntry,
    /// The experiments (indices) whose observations it rests on directly.
    pub sources: Vec<usize>,
}

/// How one parameter is obtained.
enum Rule {
    /// One experiment (direct or composite).
    Direct(usize),
    /// The intercept and slope of the points of a least-squares line.
    Fit(Vec<usize>),
}

/// Turns the observations into parameters: the outlier rule for disturbed observations
/// ([`stats::undisturbed`]), overhead subtraction by paired differences, least squares for
/// the indirect measurements ([`fit::line`]), composite subtraction in dependency order,
/// variance propagation, interval, status. An entry's `observations` counts the pairs
/// kept (the fewest of its experiments, for a fit). One result per parameter, in the order
/// of the experiments.
pub fn resolve(exps: &[Experiment], outcomes: &[Outcome], rate: u64) -> Vec<Resolved> {
    let res_ns = if rate > 0 { 1e9 / rate as f64 } else { 1.0 };
    let (raw, floors) = raw_estimates(exps, outcomes, res_ns);
    let rules = rules_of(exps);
    let done = solve(exps, &rules, &raw, &floors);
    entries_of(exps, &rules, &done)
}

/// A parameter's estimate (or why there is none) and its noise floor per operation.
type Solved = (Result<Estimate, String>, f64);

/// Per experiment, the raw estimate per unit (body minus reference, the undisturbed
/// observations) or why there is none, and the noise floor per operation: the timer's
/// share of one operation, two clock reads of resolution `res_ns` per loop.
fn raw_estimates(
    exps: &[Experiment],
    outcomes: &[Outcome],
    res_ns: f64,
) -> (Vec<Result<Estimate, String>>, Vec<f64>) {
    let mut raw: Vec<Result<Estimate, String>> = Vec::new();
    let mut floors: Vec<f64> = Vec::new();
    for (e, o) in exps.iter().zip(outcomes) {
        let (r, floor) = match o {
            Outcome::Failed(why) => (Err(format!("failed: {why}")), 0.0),
            Outcome::Observed {
                reference,
                body,
                min_n,
                in_window,
            } => {
                let reps = body.len();
                if *in_window * 2 < reps {
                    (
                        Err(format!(
                            "{}only {in_window} of {reps} observations held the window",
                            augur_machine_profile::NOISY_PREFIX
                        )),
                        0.0,
                    )
                } else {
                    // Two clock reads per loop, quantization σ = res/√6 each: the timer's
                    // share of one operation.
                    let floor = 2.0 * res_ns / (*min_n as f64 * e.units * e.ops_per_unit);
                    let keep = stats::undisturbed(reference, body);
                    let pick = |xs: &[f64]| keep.iter().map(|&k| xs[k]).collect::<Vec<f64>>();
                    (
                        Ok(Estimate::paired(&pick(body), &pick(reference), e.units)),
                        floor,
                    )
                }
            }
        };
        raw.push(r);
        floors.push(floor);
    }
    (raw, floors)
}

/// The parameters and their rules, in experiment order: the points of an indirect
/// measurement share one rule (their AbOp is the intercept's).
fn rules_of(exps: &[Experiment]) -> Vec<(AbOp, Rule)> {
    let mut rules: Vec<(AbOp, Rule)> = Vec::new();
    for (i, e) in exps.iter().enumerate() {
        if e.fit.is_some() {
            if let Some((_, Rule::Fit(pts))) = rules.iter_mut().find(|r| r.0 == e.abop) {
                pts.push(i);
            } else {
                rules.push((e.abop, Rule::Fit(vec![i])));
            }
        } else {
            rules.push((e.abop, Rule::Direct(i)));
        }
    }
    rules
}

/// The terms `(count, estimate)` of the parameters `deps` once all are solved (`None`
/// before), or the failure of the first that failed.
fn dependency_terms(
    done: &HashMap<AbOp, Solved>,
    deps: &[(AbOp, f64)],
) -> Option<Result<Vec<(f64, Estimate)>, String>> {
    let mut terms = Vec::new();
    for (d, c) in deps {
        match done.get(d)?.0 {
            Ok(p) => terms.push((*c, p)),
            Err(ref why) => {
                let what = why.split(':').next().unwrap_or("failed");
                return Some(Err(format!("failed: depends on {d}, which is {what}")));
            }
        }
    }
    Some(Ok(terms))
}

/// Applies the rules in dependency order (composite subtraction), until no rule can be
/// applied; a parameter left out is in a circular dependency.
fn solve(
    exps: &[Experiment],
    rules: &[(AbOp, Rule)],
    raw: &[Result<Estimate, String>],
    floors: &[f64],
) -> HashMap<AbOp, Solved> {
    let mut done: HashMap<AbOp, Solved> = HashMap::new();
    let mut progress = true;
    while progress {
        progress = false;
        for (op, rule) in rules {
            if done.contains_key(op) {
                continue;
            }
            match rule {
                Rule::Direct(i) => {
                    let e = &exps[*i];
                    let Some(terms) = dependency_terms(&done, &e.subtract) else {
                        continue;
                    };
                    let r = match (&raw[*i], terms) {
                        (Err(why), _) => Err(why.clone()),
                        (_, Err(why)) => Err(why),
                        (Ok(est), Ok(terms)) => Ok(est.composite(&terms, e.ops_per_unit)),
                    };
                    done.insert(*op, (r, floors[*i]));
                }
                Rule::Fit(pts) => {
                    let first = &exps[pts[0]];
                    let Some(f) = first.fit.as_ref() else {
                        continue;
                    };
                    let (Some(t0), Some(t1)) = (
                        dependency_terms(&done, &first.subtract),
                        dependency_terms(&done, &f.slope_subtract),
                    ) else {
                        continue;
                    };
                    let floor = pts.iter().map(|&i| floors[i]).fold(f64::INFINITY, f64::min);
                    let xmax = pts
                        .iter()
                        .filter_map(|&i| exps[i].fit.as_ref().map(|f| f.x))
                        .fold(1.0, f64::max);
                    let (r0, r1) = match indirect(exps, raw, pts, t0, t1) {
                        Ok((a, b)) => (Ok(a), Ok(b)),
                        Err(why) => (Err(why.clone()), Err(why)),
                    };
                    done.insert(*op, (r0, floor));
                    done.insert(f.slope, (r1, floor / xmax));
                }
            }
            progress = true;
        }
    }
    done
}

/// The profile entries of the rules' parameters (an indirect measurement gives its
/// intercept and its slope), in rule order.
fn entries_of(
    exps: &[Experiment],
    rules: &[(AbOp, Rule)],
    done: &HashMap<AbOp, Solved>,
) -> Vec<Resolved> {
    let mut out = Vec::new();
    for (op, rule) in rules {
        let sources = match rule {
            Rule::Direct(i) => vec![*i],
            Rule::Fit(p) => p.clone(),
        };
        let e = &exps[sources[0]];
        let mut ops = vec![(*op, e.context.clone())];
        if let Some(f) = &e.fit {
            ops.push((f.slope, e.context.clone()));
        }
        for (op, context) in ops {
            let entry = match done.get(&op) {
                None => AbOpEntry::status("failed: circular dependency between experiments"),
                Some((Err(why), _)) => AbOpEntry::status(why.clone()),
                Some((Ok(p), floor)) => {
                    let ci = p.ci90();
                    AbOpEntry {
                        status: if p.not_detected(*floor) {
                            NOT_DETECTED
                        } else {
                            MEASURED
                        }
                        .to_string(),
                        mean_ns: Some(round_sig(p.mean)),
                        sd_ns: Some(round_sig(p.sd)),
                        ci90_ns: ci.is_finite().then(|| round_sig(ci)),
                        observations: p.n as u32,
                        context: String::new(),
                    }
                }
            };
            out.push(Resolved {
                op,
                entry: AbOpEntry { context, ..entry },
                sources: sources.clone(),
            });
        }
    }
    out
}

/// The intercept and slope of an indirect measurement from its points' raw estimates
/// (per unit), minus the parameters subtracted from each (`t0` from the intercept, `t1`
/// from the slope, as composite terms).
fn indirect(
    exps: &[Experiment],
    raw: &[Result<Estimate, String>],
    pts: &[usize],
    t0: Result<Vec<(f64, Estimate)>, String>,
    t1: Result<Vec<(f64, Estimate)>, String>,
) -> Result<(Estimate, Estimate), String> {
    let (t0, t1) = (t0?, t1?);
    let mut points = Vec::new();
    let mut n = usize::MAX;
    for &i in pts {
        let est = raw[i].clone()?;
        let x = exps[i].fit.as_ref().map(|f| f.x).unwrap_or(0.0);
        points.push((x, est.mean, est.sd * est.sd / est.n.max(1) as f64));
        n = n.min(est.n);
    }
    let l = fit::line(&points)
        .ok_or_else(|| "failed: the indirect measurement needs two distinct counts".to_string())?;
    // Express each coefficient's variance of the mean at n observations.
    let coef = |mean: f64, var: f64| Estimate {
        mean,
        sd: (var * n as f64).sqrt(),
        n,
    };
    let div = exps[pts[0]].ops_per_unit;
    Ok((
        coef(l.c0, l.var0).composite(&t0, div),
        coef(l.c1, l.var1).composite(&t1, div),
    ))
}

/// Rounds to 5 significant digits, so profiles stay readable.
fn round_sig(v: f64) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let mag = 10f64.powi(4 - v.abs().log10().floor() as i32);
    (v * mag).round() / mag
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_subtracts_reference_and_composites() {
        let all = experiments::catalogue();
        let exps = experiments::select(&all, &["SIND".to_string()]).unwrap();
        // ARDL: body 10 ns, reference 2 ns per iteration -> (10-2)/8 units /2 ops = 0.5 ns.
        // SIND: body 110, reference 14 -> 12 ns per unit, minus 0.5 -> 11.5 ns.
        let outcomes: Vec<Outcome> = exps
            .iter()
            .map(|e| {
                let (b, r) = if e.abop == AbOp::ARDL {
                    (10.0, 2.0)
                } else {
                    (110.0, 14.0)
                };
                Outcome::Observed {
                    reference: vec![r + 0.1, r, r - 0.1],
                    body: vec![b - 0.1, b, b + 0.1],
                    min_n: 1_000_000,
                    in_window: 3,
                }
            })
            .collect();
        let res = resolve(&exps, &outcomes, 1_000_000_000);
        let get = |op: AbOp| res.iter().find(|r| r.op == op).unwrap().entry.clone();
        let ardl = get(AbOp::ARDL);
        assert_eq!(ardl.status, MEASURED);
        assert!((ardl.mean_ns.unwrap() - 0.5).abs() < 1e-9);
        let sind = get(AbOp::SIND);
        assert!((sind.mean_ns.unwrap() - 11.5).abs() < 1e-9);
        assert_eq!(sind.observations, 3);
        // Paired differences -0.2, 0, 0.2 (sd 0.2): ARDL per unit 0.2/8, per op /2; SIND 0.2/8
        // combined with it.
        let s_ardl = 0.2f64 / 16.0;
        let s_sind = (0.2f64.powi(2) / 64.0 + s_ardl * s_ardl).sqrt();
        assert!((sind.sd_ns.unwrap() - s_sind).abs() < 1e-4);
    }

    #[test]
    fn failures_propagate_and_noise_is_reported() {
        let all = experiments::catalogue();
        let exps = experiments::select(&all, &["SIND".to_string()]).unwrap();
        let outcomes: Vec<Outcome> = exps
            .iter()
            .map(|e| {
                if e.abop == AbOp::ARDL {
                    Outcome::Failed("crashed".into())
                } else {
                    Outcome::Observed {
                        reference: vec![1.0, 1.0],
                        body: vec![2.0, 2.0],
                        min_n: 10,
                        in_window: 0,
                    }
                }
            })
            .collect();
        let res = resolve(&exps, &outcomes, 1_000_000_000);
        for r in res {
            let e = r.entry;
            if r.op == AbOp::ARDL {
                assert_eq!(e.status, "failed: crashed");
            } else {
                assert_eq!(e.status, "noisy: only 0 of 2 observations held the window");
            }
            assert!(e.status_is_valid());
        }
    }

    #[test]
    fn indirect_least_squares_gives_intercept_and_slope() {
        let all = experiments::catalogue();
        let exps = experiments::select(&all, &["LOIN".to_string()]).unwrap();
        // ARDL 0.5 ns per op (as above); loop points: per entry 3 + m (1 + 0.5) ns, exactly,
        // with the same ±0.1 paired noise everywhere.
        let outcomes: Vec<Outcome> = exps
            .iter()
            .map(|e| {
                let (b, r) = match &e.fit {
                    None => (10.0, 2.0),
                    Some(f) => (8.0 * (3.0 + 1.5 * f.x) + 1.0, 1.0),
                };
                Outcome::Observed {
                    reference: vec![r + 0.1, r, r - 0.1],
                    body: vec![b - 0.1, b, b + 0.1],
                    min_n: 1_000_000,
                    in_window: 3,
                }
            })
            .collect();
        let res = resolve(&exps, &outcomes, 1_000_000_000);
        let get = |op: AbOp| res.iter().find(|r| r.op == op).unwrap().clone();
        let loin = get(AbOp::LOIN);
        let loov = get(AbOp::LOOV);
        assert!((loin.entry.mean_ns.unwrap() - 3.0).abs() < 1e-6, "{loin:?}");
        assert!((loov.entry.mean_ns.unwrap() - 1.0).abs() < 1e-6, "{loov:?}");
        assert_eq!(loin.sources.len(), 6);
        assert!(loin
            .entry
            .context
            .starts_with("indirect (least squares over 6"));
        // Variances propagated: nonzero, and the intercept's wider than the slope's.
        let (c0, c1) = (loin.entry.ci90_ns.unwrap(), loov.entry.ci90_ns.unwrap());
        assert!(c0 > 0.0 && c1 > 0.0 && c0 > c1, "{c0} {c1}");
        // Re-observation of a fit asks for all its points.
        let outcomes2: Vec<Outcome> = outcomes
            .iter()
            .zip(&exps)
            .map(|(o, e)| match (o, &e.fit) {
                (Outcome::Observed { reference, .. }, Some(f)) => Outcome::Observed {
                    reference: reference.clone(),
                    body: vec![8.0 * (3.0 + 1.5 * f.x) - 5.0, 8.0 * (3.0 + 1.5 * f.x) + 7.0],
                    min_n: 1_000_000,
                    in_window: 2,
                },
                _ => o.clone(),
            })
            .collect();
        let want = reobserve(&exps, &outcomes2, 1_000_000_000, (10, 120), TARGET_REL_CI90);
        for r in &loin.sources {
            assert!(want.iter().any(|w| w.0 == *r), "{want:?}");
        }
    }

    #[test]
    fn rounding() {
        assert_eq!(round_sig(1.234567), 1.2346);
        assert_eq!(round_sig(0.00123456789), 0.0012346);
        assert_eq!(round_sig(0.0), 0.0);
    }
}
