//! What the counting run recorded for the locality analysis besides its counters:
//! the runtime shapes of arrays (`augur-shapes`) and the value sets of the loop
//! nests (`augur-env`), read from the counts file.

use crate::instrument::Plan;
use augur_ir::Program;
use augur_program_profile::locality::{NestValues, ValueSet};
use std::collections::HashMap;

/// The value sets of the recorded nests from the counts file (`augur-env` section:
/// `probe count values...` lines, then `augur-env-other` and `probe count` lines, then
/// `end`), per unit index and root loop.
pub fn read_nest_values(counts_text: &str, plan: &Plan) -> Vec<(usize, NestValues)> {
    let mut out: Vec<(usize, NestValues)> = plan
        .env_probes
        .iter()
        .map(|e| {
            (
                e.unit,
                NestValues {
                    unit: String::new(),
                    loop_id: e.root,
                    vars: e.vars.clone(),
                    sets: vec![],
                    other: 0,
                },
            )
        })
        .collect();
    let mut lines = counts_text.lines();
    if lines
        .by_ref()
        .find(|l| l.starts_with("augur-env "))
        .is_none()
    {
        return vec![];
    }
    let mut in_other = false;
    for l in lines {
        if l == "end" {
            break;
        }
        if l == "augur-env-other" {
            in_other = true;
            continue;
        }
        let nums: Vec<i64> = l
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        let (Some(&id), Some(&count)) = (nums.first(), nums.get(1)) else {
            continue;
        };
        let Some((_, nv)) = usize::try_from(id).ok().and_then(|i| out.get_mut(i)) else {
            continue;
        };
        let count = count.max(0) as u64;
        if in_other {
            nv.other += count;
        } else if nums.len() == 2 + nv.vars.len() {
            nv.sets.push(ValueSet {
                count,
                values: nums[2..].to_vec(),
            });
        }
    }
    // Most frequent first; among equally frequent sets a pseudo-random order (a hash of
    // the values), so that keeping the first [`MAX_VALUE_SETS`] does not keep a regular
    // slice of a regular grid of sizes.
    let key = |v: &[i64]| {
        v.iter().fold(0x9e37_79b9_7f4a_7c15u64, |h, &x| {
            augur_locality::hash::mix64(h ^ x as u64)
        })
    };
    for (_, nv) in &mut out {
        nv.sets.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then(key(&a.values).cmp(&key(&b.values)))
        });
    }
    out.retain(|(_, nv)| !nv.sets.is_empty());
    out
}

/// Largest recorded extent believed (a larger value is taken for garbage,
/// for example the shape of an array that was no longer allocated).
const MAX_EXTENT: i64 = 1 << 31;
/// Largest recorded array believed, bytes.
const MAX_ARRAY_BYTES: f64 = (1u64 << 40) as f64;

/// The shape slots the run wrote after its counters (`augur-shapes M`, M
/// values, `end`), or `None` when absent or malformed.
pub fn read_shape_slots(counts_text: &str) -> Option<Vec<i64>> {
    let mut lines = counts_text.lines();
    lines.by_ref().find(|l| l.starts_with("augur-shapes "))?;
    let mut v = Vec::new();
    for l in lines {
        if l == "end" {
            return Some(v);
        }
        v.push(l.trim().parse().ok()?);
    }
    None
}

/// Runtime shapes per unit from the recorded slots: only arrays whose every
/// slot was written with a plausible value (extent in `0..2^31`, at most
/// 1 TiB).
pub fn runtime_shapes(
    program: &Program,
    plan: &Plan,
    slots: &[i64],
) -> Vec<HashMap<String, Vec<(i64, i64)>>> {
    let mut out: Vec<HashMap<String, Vec<(i64, i64)>>> = vec![HashMap::new(); program.units.len()];
    for s in &plan.shapes {
        let Some(unit) = program.units.get(s.unit) else {
            continue;
        };
        let elem = unit
            .symbol(&s.array)
            .map_or(8.0, |sym| f64::from(sym.ty.kind.max(1)));
        let mut dims = Vec::with_capacity(s.rank);
        for d in 0..s.rank {
            let (Some(&lo), Some(&ext)) =
                (slots.get(s.first + 2 * d), slots.get(s.first + 2 * d + 1))
            else {
                break;
            };
            dims.push((lo, ext));
        }
        let bytes: f64 = elem * dims.iter().map(|d| d.1.max(0) as f64).product::<f64>();
        let plausible = dims.len() == s.rank
            && dims
                .iter()
                .all(|&(lo, e)| (1..MAX_EXTENT).contains(&e) && lo.abs() < MAX_EXTENT)
            && bytes <= MAX_ARRAY_BYTES;
        if plausible {
            out[s.unit].insert(s.array.clone(), dims);
        }
    }
    out
}
