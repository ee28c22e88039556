//! Sampled references: the addresses the run sampled for the probed references
//! (subscripts not affine in the loop indices), replayed into one reuse histogram
//! per reference and added to the locality profile as its `sampled_refs`.

use crate::instrument::{Plan, Probe, PROBE_MAX_SAMPLES};
use augur_ir::{Expr, ExprKind, Program, StmtKind, Unit};
use augur_locality::{Histogram, ReuseAnalyzer, ReuseConfig};
use augur_program_profile::locality::*;
use augur_program_profile::ProgramProfile;
use std::time::Instant;

/// The sampled addresses of the probed references, as the run wrote them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AddressSamples {
    /// Executions per probe.
    pub calls: Vec<u64>,
    /// Final sampling shift (rate `2^-shift`).
    pub shift: u32,
    /// `(probe, byte address)` in execution order.
    pub samples: Vec<(u32, u64)>,
    /// Per sample, how many times the same probe touched the same line
    /// right after it (reuse distance 0; empty = none).
    pub repeats: Vec<u32>,
    /// Whether the run's sampler failed (no memory for its buffer).
    pub failed: bool,
    /// Per probe: executions that moved by the same step (at most a page) as the
    /// execution before, and executions that moved at all (empty from older runtimes).
    pub strides: Vec<(u64, u64)>,
}

/// Reads the samples file (`augur-samples P SHIFT N FAILED`, P call counts,
/// then N probe ids as `u32`, N addresses as `u64` and N repeat counts as
/// `u32`, native endian).
pub fn read_samples(bytes: &[u8]) -> Option<AddressSamples> {
    let mut pos = 0usize;
    let mut line = || -> Option<&str> {
        let rest = bytes.get(pos..)?;
        let end = rest.iter().position(|&b| b == b'\n')?;
        let l = std::str::from_utf8(&rest[..end]).ok()?;
        pos += end + 1;
        Some(l)
    };
    let head: Vec<&str> = line()?.split_whitespace().collect();
    if head.len() != 5 || head[0] != "augur-samples" {
        return None;
    }
    let probes: usize = head[1].parse().ok()?;
    let shift: u32 = head[2].parse().ok()?;
    let n: usize = head[3].parse().ok()?;
    let failed = head[4] != "0";
    let mut calls = Vec::with_capacity(probes.min(1 << 20));
    let mut strides = Vec::with_capacity(probes.min(1 << 20));
    for _ in 0..probes {
        let fields: Vec<u64> = line()?
            .split_whitespace()
            .map(|f| f.parse().ok())
            .collect::<Option<_>>()?;
        calls.push(*fields.first()?);
        strides.push((
            fields.get(1).copied().unwrap_or(0),
            fields.get(2).copied().unwrap_or(0),
        ));
    }
    let ids = bytes.get(pos..pos.checked_add(n.checked_mul(4)?)?)?;
    let at = pos + 4 * n;
    let addrs = bytes.get(at..at.checked_add(n.checked_mul(8)?)?)?;
    let at = at + 8 * n;
    let reps = bytes.get(at..at.checked_add(n.checked_mul(4)?)?)?;
    let repeats = reps
        .chunks_exact(4)
        .map(|r| u32::from_ne_bytes(r.try_into().unwrap_or([0; 4])))
        .collect();
    let samples = ids
        .chunks_exact(4)
        .zip(addrs.chunks_exact(8))
        .map(|(i, a)| {
            (
                u32::from_ne_bytes(i.try_into().unwrap_or([0; 4])),
                u64::from_ne_bytes(a.try_into().unwrap_or([0; 8])),
            )
        })
        .collect();
    Some(AddressSamples {
        calls,
        shift,
        samples,
        repeats,
        failed,
        strides,
    })
}

/// Reuse histograms of the probed references from the run's samples: the
/// samples are replayed through one reuse analyzer in execution order at
/// the run's sampling rate (so each sampled distance and access stands for
/// `2^shift`), and each probe's histogram is scaled to its executions.
pub fn sampled_histograms(s: &AddressSamples, probes: usize) -> (Vec<Histogram>, u64) {
    let mut an = ReuseAnalyzer::new(ReuseConfig {
        line_bytes: LINE_BYTES,
        ..Default::default()
    });
    an.sample_at_most(s.shift);
    for &(id, addr) in &s.samples {
        if (id as usize) < probes {
            an.access(augur_locality::Access::read(addr, id));
        }
    }
    let rep = an.report();
    let mut out = vec![Histogram::default(); probes];
    for h in rep.histograms {
        if let Some(o) = out.get_mut(h.array as usize) {
            o.merge(&h.histogram);
        }
    }
    // Repeats of the same line by the same probe: distance 0, each standing
    // for 2^shift accesses like the samples.
    for (&(id, _), &r) in s.samples.iter().zip(&s.repeats) {
        if let Some(o) = out.get_mut(id as usize) {
            o.add(Some(0), u64::from(r) << s.shift.min(63));
        }
    }
    for (k, h) in out.iter_mut().enumerate() {
        let total = h.total();
        let calls = s.calls.get(k).copied().unwrap_or(0);
        if total > 0 && calls > 0 {
            let f = calls as f64 / total as f64;
            for w in &mut h.bins {
                *w = (*w as f64 * f).round() as u64;
            }
            h.cold = (h.cold as f64 * f).round() as u64;
        }
    }
    (out, rep.peak_bytes as u64)
}

/// The loop whose memory row a probed reference joins: the nest root
/// holding it, else the outermost enclosing loop that holds no nest (none
/// when every enclosing loop holds a nest, so that rows never overlap).
fn row_loop(unit: &Unit, chain: &[u32], roots: &[u32]) -> Option<u32> {
    let is_ancestor = |a: u32, mut b: u32| loop {
        if a == b {
            return true;
        }
        match unit.loops.get(b as usize).and_then(|l| l.parent) {
            Some(p) => b = p.0,
            None => return false,
        }
    };
    chain
        .iter()
        .find(|&&l| roots.contains(&l) || !roots.iter().any(|&r| is_ancestor(l, r)))
        .copied()
}

/// Whether a probed reference such as `q(j)` is a pointer chase: one of the scalars its
/// subscripts read is assigned, in a block of its innermost loop, from an array element
/// subscripted by that scalar itself (`j = q(j)`, `p = next(p)`), so each address waits
/// for the load before it.
fn chases(unit: &Unit, p: &Probe) -> bool {
    let Some(&inner) = p.loops.last() else {
        return false;
    };
    // Whether `e` holds an element whose subscripts read scalar `name`.
    fn indexed_by(e: &Expr, name: &str) -> bool {
        let here = match &e.kind {
            ExprKind::Elem(_, subs) => subs.iter().any(|s| match s {
                augur_ir::Subscript::Index(x) => {
                    let mut vars = vec![];
                    augur_ir::chain::scalars_read(x, &mut vars);
                    vars.contains(&name)
                }
                _ => false,
            }),
            _ => false,
        };
        here || e.operands().into_iter().any(|o| indexed_by(o, name))
    }
    unit.blocks
        .iter()
        .filter(|b| b.in_loop.map(|l| l.0) == Some(inner))
        .flat_map(|b| b.stmts.iter())
        .filter_map(|&k| unit.stmts.get(k as usize))
        .any(|st| match &st.kind {
            StmtKind::Assign { lhs, rhs } => match &lhs.kind {
                ExprKind::Var(v) => p.subscript_vars.contains(&v.name) && indexed_by(rhs, &v.name),
                _ => false,
            },
            _ => false,
        })
}

/// Adds the sampled references to `loc` (see [`sampled_histograms`]).
pub fn add_sampled(
    loc: &mut LocalityProfile,
    program: &Program,
    profile: &ProgramProfile,
    plan: &Plan,
    s: &AddressSamples,
) {
    let t0 = Instant::now();
    let (hists, peak) = sampled_histograms(s, plan.probes.len());
    let rate = 1.0 / (1u64 << s.shift.min(63)) as f64;
    for (k, (p, h)) in plan.probes.iter().zip(&hists).enumerate() {
        let calls = s.calls.get(k).copied().unwrap_or(0);
        let (Some(unit), Some(up)) = (program.units.get(p.unit), profile.units.get(p.unit)) else {
            continue;
        };
        if calls == 0 {
            continue;
        }
        let roots: Vec<u32> = loc
            .nests
            .iter()
            .filter(|n| n.unit == up.name)
            .map(|n| n.loop_id)
            .collect();
        let Some(loop_id) = row_loop(unit, &p.loops, &roots) else {
            continue;
        };
        let elem_bytes = unit.symbol(&p.array).map_or(0, |sym| match sym.ty.base {
            augur_ir::BaseType::Complex => 2 * u64::from(sym.ty.kind),
            _ => u64::from(sym.ty.kind),
        });
        let mine = s.samples.iter().filter(|x| x.0 as usize == k);
        let samples = mine.clone().count() as u64;
        let span_bytes = match (mine.clone().map(|x| x.1).min(), mine.map(|x| x.1).max()) {
            (Some(lo), Some(hi)) => hi - lo + elem_bytes.max(1),
            _ => 0,
        };
        loc.sampled_refs.push(SampledRef {
            unit: up.name.clone(),
            file: up.file.clone(),
            line: p.line,
            array: p.array.clone(),
            reference: p.text.clone(),
            reason: p.reason.clone(),
            loop_id,
            executions: calls,
            samples,
            sample_rate: rate,
            elem_bytes,
            histogram: h.to_compact(),
            dependent: chases(unit, p),
            span_bytes,
            strided_share: match s.strides.get(k) {
                Some(&(strided, moved)) if moved > 0 => strided as f64 / moved as f64,
                _ => 0.0,
            },
        });
    }
    loc.address_sampling = Some(AddressSampling {
        probes: plan.probes.len(),
        executions: s.calls.iter().sum(),
        samples: s.samples.len() as u64,
        sample_rate: rate,
        buffer_bytes: (PROBE_MAX_SAMPLES * 16) as u64,
        seconds: t0.elapsed().as_secs_f64(),
        peak_bytes: peak,
        note: if s.failed {
            Some("the run's sampler could not allocate its buffer".to_string())
        } else if s.samples.is_empty() && s.calls.iter().any(|&c| c > 0) {
            // The buffer filled with repeated uses of few lines and the rate
            // dropped below one line: a small, hot working set.
            Some("no sample kept: the probed references reuse a few lines (the rate fell below one of them); their misses count as none".to_string())
        } else {
            None
        },
    });
}
