//! The memory term: the time a loop nest spends moving cache lines between the levels
//! of the memory hierarchy, and how it combines with the operation time.
//!
//! The program side is machine-independent (the program profile's reuse-distance
//! histograms per loop nest and array, `augur_program::locality`); the machine side is
//! the `[memory]` section of the machine profile (cache geometry and the bandwidth of
//! each level). For every cache level `k` the histograms give the misses `M_k` of the
//! nest on that level's geometry; each miss brings one line from the level below, so the
//! transfer time is `M_k · t_{k+1}`, where `t_{k+1}` is the time the supplying level
//! (L2 for L1 misses, ..., main memory for last-level misses) takes per line: the
//! smaller of `line / B_{k+1}` at its triad bandwidth and the stride sweep's time per
//! access at a one-line stride just beyond level `k` ([`sweep_line_seconds`]).
//! Throughputs rather than latencies are used because hardware prefetching (detected on
//! this machine kind) hides the latency of the regular streams affine nests make.
//!
//! Overlap (the ECM question): an out-of-order core may overlap transfers with
//! computation, so that a nest takes `max(T_ops, T_mem)` ([`Overlap::Max`]), or not, as
//! in Saavedra's chapter 5, `T_ops + T_mem` ([`Overlap::Sum`], the default: with line
//! times from the stride sweep the accuracy benchmark supports it at both -O0 and -O2). Stream costs
//! already include L1 hits (their kernels were L1-resident), so only transfers into L1
//! and below are added.
//!
//! Three kinds of references feed the term, each labelled in the breakdown: `affine`
//! (DO nests with affine subscripts), `array_syntax` (whole-array statements and
//! sections, as implicit loop nests over their runtime extents) and `sampled`
//! (references that are not affine — gathers, indirect subscripts, pointer chasing —
//! whose addresses the instrumented run sampled; their histograms cover all their
//! executions and join the row of the loop nest that holds them). Affine references in
//! loops that make no nest (DO WHILE, non-affine bounds) still have no memory term.

use augur_locality::cache::CacheGeometry;
use augur_machine::memory_profile::MemoryProfile;
use augur_program::locality::{misses, sampled_misses, LocalityProfile};
use serde::Serialize;

/// How operation time and memory time combine within a loop nest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Overlap {
    /// `max(T_ops, T_mem)`: transfers overlap computation (out-of-order core).
    Max,
    /// `T_ops + T_mem`: no overlap (Saavedra's delay term); the default, because the
    /// accuracy benchmark supports it at -O0 and -O2 (docs/ACCURACY.md).
    #[default]
    Sum,
    /// No memory term.
    None,
}

/// One level's share of a nest's memory time.
#[derive(Debug, Clone, Serialize)]
pub struct LevelTraffic {
    /// The level whose misses these are (`L1d`, `L2`, `L3`).
    pub level: String,
    /// Misses over all executions of the nest.
    pub misses: f64,
    /// Seconds to bring those lines from the level below at its line time.
    pub seconds: f64,
}

/// The memory time of one loop nest.
#[derive(Debug, Clone, Serialize)]
pub struct NestMemory {
    /// Program unit.
    pub unit: String,
    /// Loop id of the nest's outermost loop.
    pub loop_id: u32,
    /// Its line.
    pub line: u32,
    /// What the row holds: `affine`, `array_syntax`, `sampled`, or several
    /// joined by `+`.
    pub kind: String,
    /// Σ over levels.
    pub seconds: f64,
    /// Per level.
    pub levels: Vec<LevelTraffic>,
    /// Per array (or sampled reference) and level.
    pub arrays: Vec<ArrayTraffic>,
}

/// One array's (or one sampled reference's) share of a nest's memory time.
#[derive(Debug, Clone, Serialize)]
pub struct ArrayTraffic {
    /// Array name (for a sampled reference, the reference as written).
    pub name: String,
    /// `affine`, `array_syntax` or `sampled`.
    pub kind: String,
    /// Line of the nest, or of the sampled reference's statement.
    pub line: u32,
    /// Accesses over all executions.
    pub accesses: f64,
    /// Misses and seconds per level.
    pub levels: Vec<LevelTraffic>,
}

fn add_kind(kinds: &mut String, k: &str) {
    if !kinds.split('+').any(|x| x == k) {
        if !kinds.is_empty() {
            kinds.push('+');
        }
        kinds.push_str(k);
    }
}

/// Seconds per access of the machine's stride sweep at a stride of one line for the
/// smallest array of at least `size` bytes: a read stream whose every access brings a
/// line from beyond the level of that size (Saavedra's regime 2.b, loop included), the
/// time a level delivers a line when nothing else competes. The triad bandwidths of the
/// inner levels are bounded by the triad's own operations when the compiler does not
/// vectorize it (gcc 12 at -O2: 27 GB/s "in L1", less than in L2), so a level's line time
/// is the smaller of the two.
fn sweep_line_seconds(mem: &MemoryProfile, size: u64, line: u64) -> Option<f64> {
    mem.sweep
        .iter()
        .filter(|r| r.size_bytes >= size)
        .min_by_key(|r| r.size_bytes)
        .and_then(|r| {
            let i = r.stride_bytes.iter().position(|&s| s == line)?;
            r.ns.get(i).copied()
        })
        .filter(|ns| *ns > 0.0)
        .map(|ns| ns * 1e-9)
}

/// The memory time of every analyzed nest of a program on a machine.
pub fn nest_memory(loc: &LocalityProfile, mem: &MemoryProfile) -> Vec<NestMemory> {
    let line = loc.line_bytes.max(1);
    // (level name, geometry, seconds to bring one line from the level that supplies its
    // misses)
    let mut levels = vec![];
    for (i, l) in mem.levels.iter().enumerate() {
        let size = l.os_size_bytes.unwrap_or(l.size_bytes);
        let ways = l.os_ways.or(l.ways).unwrap_or(8).max(1);
        let supplier = match mem.levels.get(i + 1) {
            Some(next) => next.bandwidth_gbs,
            None => Some(mem.memory.bandwidth_gbs),
        };
        let Some(bw) = supplier.filter(|b| *b > 0.0) else {
            continue;
        };
        if size < line * ways as u64 {
            continue;
        }
        let by_bandwidth = line as f64 / (bw * 1e9);
        let by_sweep = sweep_line_seconds(mem, 2 * size, line);
        levels.push((
            l.name.clone(),
            CacheGeometry {
                size_bytes: size,
                line_bytes: line,
                ways,
            },
            by_sweep.map_or(by_bandwidth, |t| t.min(by_bandwidth)),
        ));
    }
    let mut out: Vec<NestMemory> = loc
        .nests
        .iter()
        .map(|n| NestMemory {
            unit: n.unit.clone(),
            loop_id: n.loop_id,
            line: n.line,
            kind: n.kind.clone(),
            seconds: 0.0,
            levels: vec![],
            arrays: n
                .arrays
                .iter()
                .map(|a| ArrayTraffic {
                    name: a.name.clone(),
                    kind: n.kind.clone(),
                    line: n.line,
                    accesses: a.accesses as f64 * n.executions,
                    levels: vec![],
                })
                .collect(),
        })
        .collect();
    // Sampled references join the row of their loop, or make one.
    let mut sampled_row = Vec::with_capacity(loc.sampled_refs.len());
    for r in &loc.sampled_refs {
        let at = match out
            .iter()
            .position(|n| n.unit == r.unit && n.loop_id == r.loop_id)
        {
            Some(i) => i,
            None => {
                out.push(NestMemory {
                    unit: r.unit.clone(),
                    loop_id: r.loop_id,
                    line: r.line,
                    kind: String::new(),
                    seconds: 0.0,
                    levels: vec![],
                    arrays: vec![],
                });
                out.len() - 1
            }
        };
        add_kind(&mut out[at].kind, "sampled");
        out[at].arrays.push(ArrayTraffic {
            name: r.reference.clone(),
            kind: "sampled".into(),
            line: r.line,
            accesses: r.executions as f64,
            levels: vec![],
        });
        sampled_row.push((at, out[at].arrays.len() - 1));
    }
    for (name, g, per_line) in &levels {
        let secs = |m: f64| m * per_line;
        let mut level_misses = vec![0.0; out.len()];
        for (i, m) in misses(loc, g).into_iter().enumerate() {
            if let Some(n) = out.get_mut(i) {
                level_misses[i] += m.misses;
                for (a, am) in n.arrays.iter_mut().zip(&m.arrays) {
                    a.levels.push(LevelTraffic {
                        level: name.clone(),
                        misses: am.misses,
                        seconds: secs(am.misses),
                    });
                }
            }
        }
        for (k, m) in sampled_misses(loc, g).into_iter().enumerate() {
            let Some(&(row, a)) = sampled_row.get(k) else {
                continue;
            };
            level_misses[row] += m;
            out[row].arrays[a].levels.push(LevelTraffic {
                level: name.clone(),
                misses: m,
                seconds: secs(m),
            });
        }
        for (n, m) in out.iter_mut().zip(level_misses) {
            let seconds = secs(m);
            n.seconds += seconds;
            n.levels.push(LevelTraffic {
                level: name.clone(),
                misses: m,
                seconds,
            });
        }
    }
    out
}

/// Combines a nest's operation time and memory time.
pub fn combine(ops: f64, mem: f64, overlap: Overlap) -> f64 {
    match overlap {
        Overlap::Max => ops.max(mem),
        Overlap::Sum => ops + mem,
        Overlap::None => ops,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_forms() {
        assert_eq!(combine(2.0, 3.0, Overlap::Max), 3.0);
        assert_eq!(combine(2.0, 1.0, Overlap::Max), 2.0);
        assert_eq!(combine(2.0, 3.0, Overlap::Sum), 5.0);
        assert_eq!(combine(2.0, 3.0, Overlap::None), 2.0);
    }
}
