//! augur-machine: the machine characterizer.
//!
//! Measures the cost of abstract operations (AbOps) on a machine — a CPU together with a
//! compiler and its flags — with narrow-spectrum experiments (Saavedra-Barrera, digest 001
//! §4), and writes the machine profile.
//!
//! * [`experiments`]: the catalogue of experiments, one per measured AbOp.
//! * [`harness`]: generates one Fortran program for all of them, builds and runs it.
//! * [`stats`]: means, deviations, variance propagation, 90% Student-t intervals.
//! * [`profile`]: the versioned TOML machine profile.
//! * [`characterize`]: the whole pipeline.

pub mod experiments;
pub mod harness;
pub mod profile;
pub mod stats;

pub use profile::MachineProfile;

use augur_ir::AbOp;
use augur_program::toolchain::Toolchain;
use experiments::Experiment;
use harness::{Outcome, Progress, Settings};
use profile::{AbOpEntry, MEASURED, NOT_DETECTED};
use stats::Estimate;
use std::collections::HashMap;

/// Measures `exps` with `tc` and returns the profile (every other AbOp `not yet measured`).
/// `mode` is recorded in the provenance (`quick` or `default`). After the first pass of
/// `settings.reps` observations (the provenance's `observations`), the experiments above the
/// target interval are re-observed adaptively ([`reobserve`]), within a budget of one and a
/// half first passes; each entry's `observations` counts its pooled, kept pairs.
pub fn characterize(
    tc: &Toolchain,
    exps: &[Experiment],
    settings: Settings,
    mode: &str,
    progress: &mut dyn Progress,
) -> Result<MachineProfile, String> {
    let start = std::time::Instant::now();
    let dir = tempfile::Builder::new()
        .prefix("augur-machine-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    // Re-observation spends at most one and a half first passes' worth of observations.
    let mut budget = exps.len() as u64 * u64::from(settings.reps) * 3 / 2;
    let cap = settings.reps * MAX_OBSERVATIONS_FACTOR;
    let mut more = |outcomes: &[Outcome], rate: u64| {
        let want = reobserve(exps, outcomes, rate, settings.reps, cap);
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
    let (outcomes, rate) = harness::measure(tc, exps, settings, dir.path(), progress, &mut more)?;
    let mut prov = profile::host_provenance();
    prov.compiler = tc.fc.clone();
    prov.compiler_version = tc.version.clone();
    prov.fflags = tc.fflags.join(" ");
    prov.augur_version = env!("CARGO_PKG_VERSION").to_string();
    prov.mode = mode.to_string();
    prov.window_ms = settings.window_ns as f64 / 1e6;
    prov.observations = settings.reps;
    prov.timer_rate_hz = rate;
    let mut p = MachineProfile::new(prov);
    for (op, entry) in resolve(exps, &outcomes, rate) {
        p.abop.insert(op, entry);
    }
    p.provenance.elapsed_s = (start.elapsed().as_secs_f64() * 10.0).round() / 10.0;
    Ok(p)
}

/// The relative 90% half-width that re-observation aims at.
pub const TARGET_REL_CI90: f64 = 0.03;

/// At most this many times the first pass's observations per experiment.
pub const MAX_OBSERVATIONS_FACTOR: u32 = 12;

/// Adaptive re-observation (sequential sampling): the experiments whose parameter is
/// measured but whose 90% half-width exceeds [`TARGET_REL_CI90`] of its mean, with how many
/// more observations they need, cheapest first. The need is the usual sample-size estimate
/// from the current standard deviation, `n (hw / target)²`, with a fifth more for the error
/// of that estimate, and at least half a pass. An experiment that would need more than `cap`
/// observations in all gets one more pass (the first pass's deviation is a rough estimate)
/// and is then left as it is (its cost is close to the noise), so that the observations go
/// where they can reach the target. Costs that are not detected are not
/// re-observed: being below the noise is a result. Stopping when
/// an interval is narrow enough makes the intervals slightly optimistic (optional stopping);
/// the pooled observations are all kept, none is dropped.
pub fn reobserve(
    exps: &[Experiment],
    outcomes: &[Outcome],
    rate: u64,
    reps: u32,
    cap: u32,
) -> Vec<(usize, u32)> {
    let entries = resolve(exps, outcomes, rate);
    let mut want = Vec::new();
    for (i, (_, entry)) in entries.iter().enumerate() {
        let Outcome::Observed { body, .. } = &outcomes[i] else {
            continue;
        };
        let n = body.len() as u32;
        if entry.status != MEASURED || n >= cap {
            continue;
        }
        let (Some(m), Some(ci)) = (entry.mean_ns, entry.ci90_ns) else {
            continue;
        };
        let target = TARGET_REL_CI90 * m.abs();
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
        want.push((i, add));
    }
    want.sort_by_key(|w| w.1);
    want
}

/// Turns the observations into parameters: the outlier rule for disturbed observations
/// ([`stats::undisturbed`]), overhead subtraction by paired differences, composite
/// subtraction in dependency order, variance propagation, interval, status. An entry's
/// `observations` counts the pairs kept.
pub fn resolve(exps: &[Experiment], outcomes: &[Outcome], rate: u64) -> Vec<(AbOp, AbOpEntry)> {
    let res_ns = if rate > 0 { 1e9 / rate as f64 } else { 1.0 };
    let mut done: HashMap<AbOp, Result<Estimate, String>> = HashMap::new();
    let mut floors: HashMap<AbOp, f64> = HashMap::new();
    // Raw per-unit estimates.
    let mut raw: HashMap<AbOp, Result<Estimate, String>> = HashMap::new();
    for (e, o) in exps.iter().zip(outcomes) {
        let r = match o {
            Outcome::Failed(why) => Err(why.clone()),
            Outcome::Observed {
                reference,
                body,
                min_n,
                in_window,
            } => {
                let reps = body.len();
                if *in_window * 2 < reps {
                    Err(format!(
                        "noisy machine: only {in_window} of {reps} observations held the window"
                    ))
                } else {
                    // Two clock reads per loop, quantization σ = res/√6 each: the timer's
                    // share of one operation.
                    floors.insert(
                        e.abop,
                        2.0 * res_ns / (*min_n as f64 * e.units * e.ops_per_unit),
                    );
                    let keep = stats::undisturbed(reference, body);
                    let pick = |xs: &[f64]| keep.iter().map(|&k| xs[k]).collect::<Vec<f64>>();
                    Ok(Estimate::paired(&pick(body), &pick(reference), e.units))
                }
            }
        };
        raw.insert(e.abop, r);
    }
    // Composite subtraction, in dependency order.
    let mut progress = true;
    while progress {
        progress = false;
        for e in exps {
            if done.contains_key(&e.abop) {
                continue;
            }
            let r = match &raw[&e.abop] {
                Err(why) => Err(why.clone()),
                Ok(est) => {
                    let mut terms = Vec::new();
                    let mut missing = None;
                    let mut failed = None;
                    for (d, c) in &e.subtract {
                        match done.get(d) {
                            None => missing = Some(*d),
                            Some(Ok(p)) => terms.push((*c, *p)),
                            Some(Err(_)) => failed = Some(*d),
                        }
                    }
                    if let Some(d) = failed {
                        Err(format!("depends on {d}, which failed"))
                    } else if missing.is_some() {
                        continue;
                    } else {
                        Ok(est.composite(&terms, e.ops_per_unit))
                    }
                }
            };
            done.insert(e.abop, r);
            progress = true;
        }
    }
    exps.iter()
        .map(|e| {
            let entry = match done.get(&e.abop) {
                None => AbOpEntry::status("failed: circular dependency between experiments"),
                Some(Err(why)) => AbOpEntry::status(format!("failed: {why}")),
                Some(Ok(p)) => {
                    let floor = floors.get(&e.abop).copied().unwrap_or(0.0);
                    let ci = p.ci90();
                    AbOpEntry {
                        status: if p.not_detected(floor) {
                            NOT_DETECTED
                        } else {
                            MEASURED
                        }
                        .to_string(),
                        mean_ns: Some(round_sig(p.mean)),
                        sd_ns: Some(round_sig(p.sd)),
                        ci90_ns: ci.is_finite().then(|| round_sig(ci)),
                        observations: p.n as u32,
                        context: e.context.clone(),
                    }
                }
            };
            let mut entry = entry;
            if entry.context.is_empty() {
                entry.context = e.context.clone();
            }
            (e.abop, entry)
        })
        .collect()
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
        let get = |op: AbOp| res.iter().find(|(o, _)| *o == op).unwrap().1.clone();
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
        for (op, e) in res {
            assert!(e.status.starts_with("failed: "), "{op}: {}", e.status);
            assert!(e.status_is_valid());
        }
    }

    #[test]
    fn rounding() {
        assert_eq!(round_sig(1.234567), 1.2346);
        assert_eq!(round_sig(0.00123456789), 0.0012346);
        assert_eq!(round_sig(0.0), 0.0);
    }
}
