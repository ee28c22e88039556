//! An MPI program's traces at a rank count never run, from its traces at three or more
//! smaller counts (P^3T+'s work distribution, issue 9's fits applied to the rank count).
//!
//! An SPMD program's ranks play a few roles: rank 0, the last rank, and the ranks between,
//! which do the same thing with their neighbours. Each role's trace at the target count
//! takes the pattern its traces share (the same records, steps, operations and tags at
//! every count analyzed), each peer resolved by the rule every trace agrees on (this rank
//! plus or minus 1 or 2 around the ring, or along an open line whose ends talk to
//! MPI_PROC_NULL, rank 0, the last rank, MPI_PROC_NULL), and each number (repeat
//! counts, bytes, block executions) by the simplest model of the rank count that goes
//! through its values at every count: a constant, `a + b/P`, `a + b/P²`, `a + b·P`,
//! `a + b·log2 P` or `a·P^c`. When the ranks between differ (a 2-D decomposition, a
//! master handing out work to each worker in turn) or a number follows none of these,
//! the pattern does not allow it and the error says which.

use augur_program_profile::mpi::{Event, MpiRun, RankTrace, Record, Step};
use std::collections::BTreeMap;

/// MPI_PROC_NULL as the traces record it (docs/FORMATS.md, `peer`).
const PROC_NULL: i64 = -2;

/// How a peer is found from the rank that names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PeerRule {
    /// No peer (-1).
    None,
    /// `(rank + d) mod P`.
    Around(i64),
    /// `rank + d` on an open line: MPI_PROC_NULL past either end (a non-periodic
    /// neighbour, as `MPI_Cart_shift` gives on a non-periodic dimension).
    Open(i64),
    /// MPI_PROC_NULL at every count.
    ProcNull,
    /// Rank 0.
    First,
    /// Rank `P - 1`.
    Last,
}

impl PeerRule {
    const ALL: [PeerRule; 12] = [
        PeerRule::None,
        PeerRule::Around(1),
        PeerRule::Around(-1),
        PeerRule::Around(2),
        PeerRule::Around(-2),
        PeerRule::First,
        PeerRule::Last,
        PeerRule::Open(1),
        PeerRule::Open(-1),
        PeerRule::Open(2),
        PeerRule::Open(-2),
        PeerRule::ProcNull,
    ];

    fn peer(self, rank: i64, p: i64) -> i64 {
        match self {
            PeerRule::None => -1,
            PeerRule::Around(d) => (rank + d).rem_euclid(p),
            PeerRule::Open(d) if (0..p).contains(&(rank + d)) => rank + d,
            PeerRule::Open(_) | PeerRule::ProcNull => PROC_NULL,
            PeerRule::First => 0,
            PeerRule::Last => p - 1,
        }
    }

    /// The rules that give `peer` for `rank` of `p` (as a bit set over [`Self::ALL`]).
    fn matching(peer: i64, rank: i64, p: i64) -> u16 {
        let mut set = 0;
        for (k, rule) in Self::ALL.iter().enumerate() {
            if rule.peer(rank, p) == peer {
                set |= 1 << k;
            }
        }
        set
    }
}

/// One role's pattern: its records with the values at each count analyzed.
struct Role {
    /// Per record, per step: the peer rules every trace agrees on (peer, and the source
    /// a sendrecv keeps in `request`).
    rules: Vec<Vec<(u16, u16)>>,
    /// The traces of this role, one per count analyzed.
    traces: Vec<(i64, i64, RankTrace)>,
}

/// Traces at a rank count never run, with what a user must know about them.
#[derive(Debug, Clone, PartialEq)]
pub struct Extrapolated {
    /// The traces.
    pub run: MpiRun,
    /// Work that shrinks with the rank count and has run out at the target (a
    /// decomposition with more ranks than pieces of work): each block that every count
    /// analyzed ran at least once a step and that runs less than once at the target, with
    /// its executions a step at the counts analyzed; the block that shrank most first.
    pub vanished: Vec<VanishedWork>,
}

/// A block whose executions per rank run out at the target count.
#[derive(Debug, Clone, PartialEq)]
pub struct VanishedWork {
    /// Unit index in the program profile.
    pub unit: u32,
    /// Block id in the unit.
    pub block: u32,
    /// Its executions a step at each count analyzed.
    pub per_step: Vec<f64>,
}

/// The traces of `target` ranks from `runs` (three or more counts of at least 3 ranks).
pub fn extrapolate(runs: &[MpiRun], target: u32) -> Result<Extrapolated, String> {
    let mut runs: Vec<&MpiRun> = runs.iter().filter(|r| r.ranks >= 3).collect();
    runs.sort_by_key(|r| r.ranks);
    if runs.len() < 3 {
        return Err(format!(
            "predicting {target} ranks from smaller counts needs traces at three or more counts of at least 3 ranks (e.g. `augur analyze --mpi-ranks 4,8,16`)"
        ));
    }
    if target < 3 {
        return Err(format!("{target} ranks: extrapolation needs at least 3"));
    }
    let ps: Vec<f64> = runs.iter().map(|r| f64::from(r.ranks)).collect();
    let mut roles = [
        role(&runs, |_| 0, "rank 0")?,
        role(&runs, |p| p / 2, "the ranks between")?,
        role(&runs, |p| p - 1, "the last rank")?,
    ];
    for r in &runs {
        interior_agree(r, &mut roles[1])?;
    }
    let t = i64::from(target);
    let mut traces = vec![];
    let mut vanished = BTreeMap::new();
    for rank in 0..t {
        let k = if rank == 0 {
            0
        } else if rank == t - 1 {
            2
        } else {
            1
        };
        traces.push(build(&roles[k], &ps, rank, t, &mut vanished)?);
    }
    let mut vanished: Vec<VanishedWork> = vanished
        .into_iter()
        .map(|((unit, block), per_step)| VanishedWork {
            unit,
            block,
            per_step,
        })
        .collect();
    vanished.sort_by(|a, b| b.per_step[0].total_cmp(&a.per_step[0]));
    Ok(Extrapolated {
        run: MpiRun {
            ranks: target,
            wall_seconds: 0.0,
            traces,
        },
        vanished,
    })
}

/// Blocks whose executions per rank fell below one at the target while every count
/// analyzed ran them at least once: `(unit, block)` → executions at the counts analyzed.
type Vanished = BTreeMap<(u32, u32), Vec<f64>>;

/// The role of the rank `pick(P)` in every run: its traces, checked to have one pattern.
fn role(runs: &[&MpiRun], pick: impl Fn(i64) -> i64, name: &str) -> Result<Role, String> {
    let mut traces = vec![];
    for r in runs {
        let p = i64::from(r.ranks);
        let rank = pick(p);
        let t = r
            .traces
            .iter()
            .find(|t| i64::from(t.rank) == rank)
            .ok_or_else(|| format!("the trace of rank {rank} at {p} ranks is missing"))?;
        traces.push((rank, p, t.clone()));
    }
    let first = &traces[0].2;
    let mut rules: Vec<Vec<(u16, u16)>> = first
        .records
        .iter()
        .map(|rec| vec![(u16::MAX, u16::MAX); rec.steps.len()])
        .collect();
    for (rank, p, t) in &traces {
        same_pattern(first, t).map_err(|e| format!("{name}: {e} at {p} ranks"))?;
        narrow(&mut rules, t, *rank, *p);
    }
    check_rules(&rules, name)?;
    Ok(Role { rules, traces })
}

/// Whether `t` has `first`'s records and steps, operations and tags.
fn same_pattern(first: &RankTrace, t: &RankTrace) -> Result<(), String> {
    if first.records.len() != t.records.len() {
        return Err(format!(
            "{} patterns of calls instead of {} (the pattern changes with the rank count)",
            t.records.len(),
            first.records.len()
        ));
    }
    for (k, (a, b)) in first.records.iter().zip(&t.records).enumerate() {
        if b.steps
            .iter()
            .any(|s| !s.event.counts.is_empty() || !s.event.members.is_empty())
        {
            return Err(format!(
                "pattern {} of calls has a v-collective or a communicator's members (one entry per rank): not extrapolated",
                k + 1
            ));
        }
        let same = a.steps.len() == b.steps.len()
            && a.steps.iter().zip(&b.steps).all(|(x, y)| {
                x.event.op == y.event.op
                    && x.event.tag == y.event.tag
                    && x.event.comm == y.event.comm
            });
        if !same {
            return Err(format!("pattern {} of calls differs", k + 1));
        }
    }
    Ok(())
}

/// Keeps, for each step, the peer rules that also hold in `t` (rank `rank` of `p`).
fn narrow(rules: &mut [Vec<(u16, u16)>], t: &RankTrace, rank: i64, p: i64) {
    for (rec_rules, rec) in rules.iter_mut().zip(&t.records) {
        for (r, step) in rec_rules.iter_mut().zip(&rec.steps) {
            let e = &step.event;
            r.0 &= PeerRule::matching(i64::from(e.peer), rank, p);
            let source = if e.op == "sendrecv" { e.request } else { -1 };
            r.1 &= PeerRule::matching(source, rank, p);
        }
    }
}

fn check_rules(rules: &[Vec<(u16, u16)>], name: &str) -> Result<(), String> {
    for (k, rec) in rules.iter().enumerate() {
        if rec.iter().any(|(a, b)| *a == 0 || *b == 0) {
            return Err(format!(
                "{name}: a peer in pattern {} of calls is no neighbour (around the ring or on an open line), nor rank 0, nor the last rank, nor MPI_PROC_NULL, at every count (a 2-D or 3-D decomposition? give a trace at the rank count)",
                k + 1
            ));
        }
    }
    Ok(())
}

/// Whether every rank between the first and the last of `run` has the role's pattern;
/// the role's peer rules narrowed to those every one of them agrees on (rank 1 tells a
/// neighbour two ranks down around the ring from one on an open line).
fn interior_agree(run: &MpiRun, role: &mut Role) -> Result<(), String> {
    let p = i64::from(run.ranks);
    let first = &role.traces[0].2;
    for t in run
        .traces
        .iter()
        .filter(|t| t.rank > 0 && i64::from(t.rank) < p - 1)
    {
        same_pattern(first, t).map_err(|e| {
            format!(
                "rank {} at {p} ranks does not do what the other ranks between do ({e}): the pattern does not allow extrapolation (a 2-D decomposition? give a trace at the rank count)",
                t.rank
            )
        })?;
        narrow(&mut role.rules, t, i64::from(t.rank), p);
        check_rules(&role.rules, &format!("rank {} at {p} ranks", t.rank))?;
    }
    Ok(())
}

/// Rank `rank` of `p`: the role's pattern with its numbers at `p` and its peers resolved.
fn build(
    role: &Role,
    ps: &[f64],
    rank: i64,
    p: i64,
    vanished: &mut Vanished,
) -> Result<RankTrace, String> {
    let mut records = vec![];
    let template = &role.traces[0].2;
    for (k, rec) in template.records.iter().enumerate() {
        let at = |f: &dyn Fn(&RankTrace) -> f64, what: &str| -> Result<f64, String> {
            let ys: Vec<f64> = role.traces.iter().map(|(_, _, t)| f(t)).collect();
            value_at(ps, &ys, p as f64).ok_or_else(|| {
                format!(
                    "{what} of pattern {} of calls ({ys:?} at {ps:?} ranks) follows no model of the rank count",
                    k + 1
                )
            })
        };
        let repeat = at(&|t| t.records[k].repeat as f64, "the repeat count")?;
        let mut steps = vec![];
        for (s, step) in rec.steps.iter().enumerate() {
            let ev = |t: &RankTrace| t.records[k].steps[s].event.clone();
            let bytes = at(&|t| ev(t).bytes as f64, "the bytes")?;
            let bytes2 = at(&|t| ev(t).bytes2 as f64, "the bytes received")?;
            let (peer_rules, source_rules) = role.rules[k][s];
            let peer = rule_of(peer_rules).peer(rank, p);
            let request = if step.event.op == "sendrecv" {
                rule_of(source_rules).peer(rank, p)
            } else {
                step.event.request
            };
            let segment = segment_at(role, ps, (k, s), p as f64, vanished)?;
            steps.push(Step {
                segment,
                event: Event {
                    peer: peer as i32,
                    bytes: bytes.round() as i64,
                    bytes2: bytes2.round() as i64,
                    request,
                    ..step.event.clone()
                },
            });
        }
        records.push(Record {
            repeat: repeat.round().max(0.0) as u64,
            steps,
        });
    }
    let calls = records
        .iter()
        .map(|r| r.repeat * r.steps.len() as u64)
        .sum();
    Ok(RankTrace {
        rank: rank as u32,
        calls,
        records,
    })
}

/// The first rule of a set.
fn rule_of(set: u16) -> PeerRule {
    let k = set.trailing_zeros() as usize;
    PeerRule::ALL.get(k).copied().unwrap_or(PeerRule::None)
}

/// Step `s` of record `k`'s segment at `p`: every block any count executed, its
/// executions by the model through them (0 where a count did not execute it).
/// Blocks that every count ran but that run less than once at `p` go to `vanished`.
fn segment_at(
    role: &Role,
    ps: &[f64],
    (k, s): (usize, usize),
    p: f64,
    vanished: &mut Vanished,
) -> Result<Vec<(u32, u32, f64)>, String> {
    let mut blocks: BTreeMap<(u32, u32), Vec<f64>> = BTreeMap::new();
    let n = role.traces.len();
    for (i, (_, _, t)) in role.traces.iter().enumerate() {
        for &(unit, block, x) in &t.records[k].steps[s].segment {
            blocks.entry((unit, block)).or_insert_with(|| vec![0.0; n])[i] = x;
        }
    }
    blocks
        .into_iter()
        .map(|((unit, block), ys)| {
            let v = value_at(ps, &ys, p).ok_or_else(|| {
                format!(
                    "the executions of block {block} of unit {unit} ({ys:?} at {ps:?} ranks) follow no model of the rank count"
                )
            })?;
            if v < 1.0 && ys.iter().all(|y| *y >= 1.0) {
                vanished.insert((unit, block), ys);
            }
            Ok((unit, block, v.round().max(0.0)))
        })
        .filter(|r| !matches!(r, Ok((_, _, x)) if *x == 0.0))
        .collect()
}

/// The value at `p` of the simplest model through `(ps, ys)`: a constant, `a + b/P`,
/// `a + b/P²`, `a + b·P`, `a + b·log2 P`, or `a·P^c`, fitted to the smallest and the
/// largest count and checked on the others (within 1%, or 1 for small numbers: integer
/// division), the closest of those that fit.
pub fn value_at(ps: &[f64], ys: &[f64], p: f64) -> Option<f64> {
    let (p0, p1) = (ps[0], ps[ps.len() - 1]);
    let (y0, y1) = (ys[0], ys[ys.len() - 1]);
    let close = |a: f64, b: f64| (a - b).abs() <= (0.01 * b.abs()).max(1.0);
    let linear = |f: fn(f64) -> f64| -> Option<Box<dyn Fn(f64) -> f64>> {
        let (f0, f1) = (f(p0), f(p1));
        if (f1 - f0).abs() < 1e-300 {
            return None;
        }
        let b = (y1 - y0) / (f1 - f0);
        let a = y0 - b * f0;
        Some(Box::new(move |x| a + b * f(x)))
    };
    let mut models: Vec<Box<dyn Fn(f64) -> f64>> = vec![];
    if ys.iter().all(|y| close(*y, y0)) {
        models.push(Box::new(move |_| y0));
    }
    for f in [
        (|x: f64| 1.0 / x) as fn(f64) -> f64,
        |x| 1.0 / (x * x),
        |x| x,
        f64::log2,
    ] {
        models.extend(linear(f));
    }
    if y0 > 0.0 && y1 > 0.0 {
        let c = (y1 / y0).ln() / (p1 / p0).ln();
        models.push(Box::new(move |x| y0 * (x / p0).powf(c)));
    }
    // The model closest to every count (the simpler one on a tie), if close enough.
    let worst = |m: &dyn Fn(f64) -> f64| {
        ps.iter()
            .zip(ys)
            .map(|(x, y)| (m(*x) - y).abs() / y.abs().max(1.0))
            .fold(0.0, f64::max)
    };
    let mut best: Option<(f64, &dyn Fn(f64) -> f64)> = None;
    for m in &models {
        let fits = ps.iter().zip(ys).all(|(x, y)| close(m(*x), *y));
        let w = worst(m.as_ref());
        if fits && best.map_or(true, |(b, _)| w < b - 1e-9) {
            best = Some((w, m.as_ref()));
        }
    }
    best.map(|(_, m)| m(p).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_follow_the_simplest_model_of_the_rank_count() {
        let ps = [4.0, 8.0, 16.0];
        assert_eq!(value_at(&ps, &[60.0, 60.0, 60.0], 1024.0), Some(60.0));
        // n / P.
        assert_eq!(value_at(&ps, &[500.0, 250.0, 125.0], 1000.0), Some(2.0));
        // P - 1 messages.
        assert_eq!(value_at(&ps, &[3.0, 7.0, 15.0], 64.0), Some(63.0));
        // log2 P steps.
        assert_eq!(value_at(&ps, &[2.0, 3.0, 4.0], 1024.0), Some(10.0));
        // n² / P²: exact.
        let v = value_at(&ps, &[62500.0, 15625.0, 3906.25], 64.0).unwrap();
        assert!((v - 244.140625).abs() < 1e-6, "{v}");
        // Nothing simple.
        assert_eq!(value_at(&ps, &[5.0, 100.0, 7.0], 64.0), None);
    }

    fn event(op: &str, peer: i32, bytes: i64) -> Event {
        Event {
            peer,
            tag: 1,
            bytes,
            ..Event::new(op)
        }
    }

    /// `p` ranks that each repeat `steps(rank)` 10 times.
    fn run_of(p: u32, steps: impl Fn(u32) -> Vec<Step>) -> MpiRun {
        let traces = (0..p)
            .map(|r| {
                let steps = steps(r);
                RankTrace {
                    rank: r,
                    calls: 10 * steps.len() as u64,
                    records: vec![Record { repeat: 10, steps }],
                }
            })
            .collect();
        MpiRun {
            ranks: p,
            wall_seconds: 1.0,
            traces,
        }
    }

    /// A ring: each rank sends `8 * n / P` bytes to the next, 10 times, after `n / P`
    /// executions of block 3.
    fn ring(p: u32, n: f64) -> MpiRun {
        let bytes = (8.0 * n) as i64 / i64::from(p);
        run_of(p, |r| {
            vec![
                Step {
                    segment: vec![(0, 3, n / f64::from(p))],
                    event: event("send", ((r + 1) % p) as i32, bytes),
                },
                Step {
                    segment: vec![],
                    event: event("recv", ((r + p - 1) % p) as i32, bytes),
                },
            ]
        })
    }

    #[test]
    fn a_ring_extrapolates_to_many_ranks() {
        let runs: Vec<MpiRun> = [4, 8, 16].iter().map(|&p| ring(p, 1024.0)).collect();
        let big = extrapolate(&runs, 64).unwrap().run;
        assert_eq!(big.traces.len(), 64);
        let t = &big.traces[63];
        assert_eq!(t.records[0].repeat, 10);
        assert_eq!(t.records[0].steps[0].event.peer, 0);
        assert_eq!(t.records[0].steps[1].event.peer, 62);
        assert_eq!(t.records[0].steps[0].event.bytes, 128);
        assert_eq!(t.records[0].steps[0].segment, vec![(0, 3, 16.0)]);
        assert_eq!(big.traces[0].records[0].steps[1].event.peer, 63);
        assert_eq!(big, extrapolate(&runs, 64).unwrap().run);
    }

    /// A halo exchange on an open line: each rank sends to the next and receives from
    /// the previous in one sendrecv, MPI_PROC_NULL past the ends (-2 in a trace).
    fn open_line(p: u32) -> MpiRun {
        let open = |r: i64| {
            if (0..i64::from(p)).contains(&r) {
                r as i32
            } else {
                -2
            }
        };
        run_of(p, |r| {
            let mut e = event("sendrecv", open(i64::from(r) + 1), 8);
            e.request = i64::from(open(i64::from(r) - 1));
            vec![Step {
                segment: vec![(0, 3, 480.0 / f64::from(p))],
                event: e,
            }]
        })
    }

    #[test]
    fn an_open_line_extrapolates_with_its_ends_talking_to_proc_null() {
        let runs: Vec<MpiRun> = [4, 8, 16].iter().map(|&p| open_line(p)).collect();
        let big = extrapolate(&runs, 64).unwrap().run;
        let ev = |r: usize| &big.traces[r].records[0].steps[0].event;
        assert_eq!((ev(0).peer, ev(0).request), (1, -2));
        assert_eq!((ev(1).peer, ev(1).request), (2, 0));
        assert_eq!((ev(40).peer, ev(40).request), (41, 39));
        assert_eq!((ev(63).peer, ev(63).request), (-2, 62));
        assert_eq!(
            big.traces[63].records[0].steps[0].segment,
            vec![(0, 3, 8.0)]
        );
        assert!(extrapolate(&runs, 64).unwrap().vanished.is_empty());
        // 480 pieces of work over 1,024 ranks: they run out.
        let w = extrapolate(&runs, 1024).unwrap().vanished;
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!((w[0].unit, w[0].block), (0, 3));
        assert_eq!(w[0].per_step, vec![120.0, 60.0, 30.0]);
    }

    #[test]
    fn ranks_that_differ_between_do_not_extrapolate() {
        let mut runs: Vec<MpiRun> = [4, 8, 16].iter().map(|&p| ring(p, 1024.0)).collect();
        // Rank 2 of 8 sends to rank 5: no rule for it.
        runs[1].traces[2].records[0].steps[0].event.peer = 5;
        let e = extrapolate(&runs, 64).unwrap_err();
        assert!(e.contains("rank 2 at 8 ranks"), "{e}");
        let e = extrapolate(&runs[..2], 64).unwrap_err();
        assert!(e.contains("three or more counts"), "{e}");
    }
}
