//! An MPI program's traces at a rank count never run, from its traces at three or more
//! smaller counts (P^3T+'s work distribution, issue 9's fits applied to the rank count).
//!
//! An SPMD program's ranks play a few roles. On a line of ranks: rank 0, the last rank,
//! and the ranks between, which do the same thing with their neighbours. On a 2-D or
//! 3-D Cartesian grid (`MPI_Dims_create`, `MPI_Cart_create`, `MPI_Cart_shift`): one role
//! per position in the grid, first, middle or last along each dimension (a corner, an
//! edge, a face, the interior), the grid's dims at every count being those
//! `MPI_Dims_create` gives (Open MPI's rule, [`dims_create`]); the line is tried first,
//! then the 2-D grid, then the 3-D one. Each role's trace at the target count takes the
//! pattern its traces share (the same records, steps, operations and tags at every count
//! analyzed), each peer resolved by the rule every trace agrees on (this rank plus or
//! minus 1 or 2 along a dimension, around it or on an open one whose ends talk to
//! MPI_PROC_NULL, rank 0, the last rank, the first or last member of the call's
//! communicator, MPI_PROC_NULL), and each number (repeat counts, bytes, block executions)
//! by the simplest model through its values at every count: a constant, `a + b/x`,
//! `a + b/x²`, `a + b·x`, `a + b·log2 x`, `a + b/√x`, `a + b·x^(-1/3)`, `a + b·x^(-2/3)` or
//! `a·x^c`, x the rank count or, on a grid, the ranks along one dimension (a block's edge
//! is `n / dims[k]`, a row's size `dims[1]`) or, in 3-D, across one (a face, a plane's
//! size), whichever fits best.
//!
//! A communicator whose members a trace records (`comm`, `comm_split`, `comm_dup`,
//! `cart_sub`) is one of the grid's sub-communicators of the rank: the ranks sharing its
//! coordinates along every dimension but those kept, in grid order, as `MPI_Cart_sub`
//! gives them or `MPI_Comm_split` with the other coordinates as colour and the rank as
//! key: every rank in order (the world, a Cartesian communicator without reordering),
//! the rank's row or column of a 2-D grid, its line or plane of a 3-D one, or the rank
//! alone; the one every trace of a role agrees on, recomputed for each rank at the target.
//! A collective's root on it is a member (its first or last) where the traces agree on
//! that. Members that are none of these (even and odd ranks, a row in reverse order)
//! are refused, the error naming the pattern of calls. When the ranks of a role differ
//! (a master handing out work to each worker in turn, a grid whose dims are not
//! `MPI_Dims_create`'s) or a number follows none of these, the pattern does not allow it
//! and the error says which.

use augur_program_profile::mpi::{Event, MpiRun, RankTrace, Record, Step};
use std::collections::BTreeMap;

/// MPI_PROC_NULL as the traces record it (docs/FORMATS.md, `peer`).
const PROC_NULL: i64 = -2;

/// A peer no rule gives (a dimension the grid does not have).
const NO_PEER: i64 = i64::MIN;

/// A Cartesian grid of ranks numbered as `MPI_Cart_create` numbers them (row-major: the
/// last dimension varies fastest); a line of ranks is a grid of one dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    /// Ranks along each dimension.
    pub dims: Vec<i64>,
}

/// Where a rank sits along one dimension of a grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    First,
    Middle,
    Last,
}

impl Place {
    const ALL: [Place; 3] = [Place::First, Place::Middle, Place::Last];

    fn name(self) -> &'static str {
        match self {
            Place::First => "first",
            Place::Middle => "middle",
            Place::Last => "last",
        }
    }
}

/// The dims `MPI_Dims_create(p, nd, dims)` gives with every entry 0, as Open MPI 4.1 does
/// it: the prime factors of `p`, largest first, each multiplied into the dimension with
/// the fewest ranks so far, then the dims sorted in decreasing order.
pub fn dims_create(p: u32, nd: usize) -> Vec<u32> {
    let mut factors = vec![];
    let (mut n, mut f) = (p, 2);
    while n > 1 {
        while n % f == 0 {
            factors.push(f);
            n /= f;
        }
        f += 1;
        if f * f > n && n > 1 {
            factors.push(n);
            break;
        }
    }
    let mut dims = vec![1u32; nd.max(1)];
    for f in factors.into_iter().rev() {
        let k = (0..dims.len()).min_by_key(|&k| (dims[k], k)).unwrap_or(0);
        dims[k] *= f;
    }
    dims.sort_unstable_by(|a, b| b.cmp(a));
    dims
}

impl Grid {
    /// The grid of `p` ranks in `nd` dimensions by [`dims_create`] (a line for `nd` 1).
    pub fn of(p: u32, nd: usize) -> Grid {
        Grid {
            dims: dims_create(p, nd).into_iter().map(i64::from).collect(),
        }
    }

    /// The coordinates of `rank`.
    pub fn coords(&self, rank: i64) -> Vec<i64> {
        let mut c = vec![0; self.dims.len()];
        let mut r = rank;
        for k in (0..self.dims.len()).rev() {
            c[k] = r % self.dims[k];
            r /= self.dims[k];
        }
        c
    }

    /// The rank at `coords`.
    pub fn rank_of(&self, coords: &[i64]) -> i64 {
        coords.iter().zip(&self.dims).fold(0, |r, (c, d)| r * d + c)
    }

    /// The ranks of the grid.
    fn size(&self) -> i64 {
        self.dims.iter().product()
    }

    /// Where `rank` sits along each dimension.
    fn places(&self, rank: i64) -> Vec<Place> {
        self.coords(rank)
            .iter()
            .zip(&self.dims)
            .map(|(&c, &d)| match c {
                0 => Place::First,
                c if c == d - 1 => Place::Last,
                _ => Place::Middle,
            })
            .collect()
    }

    /// A rank at `places`, if the grid has one (a middle needs 3 ranks or more).
    fn rank_at(&self, places: &[Place]) -> Option<i64> {
        let mut c = vec![];
        for (pl, &d) in places.iter().zip(&self.dims) {
            c.push(match pl {
                Place::First => 0,
                Place::Middle if d >= 3 => d / 2,
                Place::Last if d >= 2 => d - 1,
                _ => return None,
            });
        }
        Some(self.rank_of(&c))
    }

    /// The ranks sharing `rank`'s coordinates along every dimension not in `keep` (bit
    /// `k`: dimension `k` kept), in grid order: the communicator `MPI_Cart_sub` gives
    /// with `remain_dims` true along the dimensions kept, or `MPI_Comm_split` with the
    /// other coordinates as colour and the rank as key (every rank for all dimensions,
    /// `rank` alone for none).
    fn sub(&self, rank: i64, keep: u32) -> Vec<u32> {
        let mut c = self.coords(rank);
        let kept: Vec<usize> = (0..c.len()).filter(|k| keep & (1 << k) != 0).collect();
        let n: i64 = kept.iter().map(|&k| self.dims[k]).product();
        (0..n)
            .map(|mut i| {
                for &k in kept.iter().rev() {
                    c[k] = i % self.dims[k];
                    i /= self.dims[k];
                }
                self.rank_of(&c) as u32
            })
            .collect()
    }

    /// The dims as `AxBxC`.
    fn shape(&self) -> String {
        let d: Vec<String> = self.dims.iter().map(i64::to_string).collect();
        d.join("x")
    }
}

/// How a peer is found from the rank that names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PeerRule {
    /// No peer (-1).
    None,
    /// `d` along dimension `k`, around it (a periodic dimension; on a line, `(rank + d)
    /// mod P`).
    Around(usize, i64),
    /// `d` along dimension `k`, MPI_PROC_NULL past either end (a non-periodic neighbour,
    /// as `MPI_Cart_shift` gives on a non-periodic dimension).
    Open(usize, i64),
    /// MPI_PROC_NULL at every count.
    ProcNull,
    /// Rank 0.
    First,
    /// Rank `P - 1`.
    Last,
    /// The first member of the step's communicator (a root at member 0 of a row).
    FirstMember,
    /// The last member of the step's communicator.
    LastMember,
}

/// A set of peer rules, a bit per entry of [`PeerRule::ALL`].
type Rules = u32;

impl PeerRule {
    const ALL: [PeerRule; 30] = [
        PeerRule::None,
        PeerRule::FirstMember,
        PeerRule::LastMember,
        PeerRule::Around(0, 1),
        PeerRule::Around(0, -1),
        PeerRule::Around(0, 2),
        PeerRule::Around(0, -2),
        PeerRule::First,
        PeerRule::Last,
        PeerRule::Open(0, 1),
        PeerRule::Open(0, -1),
        PeerRule::Open(0, 2),
        PeerRule::Open(0, -2),
        PeerRule::ProcNull,
        PeerRule::Open(1, 1),
        PeerRule::Open(1, -1),
        PeerRule::Open(2, 1),
        PeerRule::Open(2, -1),
        PeerRule::Around(1, 1),
        PeerRule::Around(1, -1),
        PeerRule::Around(2, 1),
        PeerRule::Around(2, -1),
        PeerRule::Open(1, 2),
        PeerRule::Open(1, -2),
        PeerRule::Open(2, 2),
        PeerRule::Open(2, -2),
        PeerRule::Around(1, 2),
        PeerRule::Around(1, -2),
        PeerRule::Around(2, 2),
        PeerRule::Around(2, -2),
    ];

    /// The peer of `rank` of `grid` on a communicator of `members` (world ranks in its
    /// order; empty: MPI_COMM_WORLD, or members never recorded).
    fn peer(self, rank: i64, grid: &Grid, members: &[u32]) -> i64 {
        let shifted = |k: usize, d: i64| {
            let n = *grid.dims.get(k)?;
            let mut c = grid.coords(rank);
            c[k] += d;
            Some((c, n))
        };
        match self {
            PeerRule::None => -1,
            PeerRule::Around(k, d) => shifted(k, d).map_or(NO_PEER, |(mut c, n)| {
                c[k] = c[k].rem_euclid(n);
                grid.rank_of(&c)
            }),
            PeerRule::Open(k, d) => shifted(k, d).map_or(NO_PEER, |(c, n)| {
                if (0..n).contains(&c[k]) {
                    grid.rank_of(&c)
                } else {
                    PROC_NULL
                }
            }),
            PeerRule::ProcNull => PROC_NULL,
            PeerRule::First => 0,
            PeerRule::Last => grid.size() - 1,
            PeerRule::FirstMember => members.first().map_or(NO_PEER, |&m| i64::from(m)),
            PeerRule::LastMember => members.last().map_or(NO_PEER, |&m| i64::from(m)),
        }
    }

    /// The rules that give `peer` for `rank` of `grid` on a communicator of `members`.
    fn matching(peer: i64, rank: i64, grid: &Grid, members: &[u32]) -> Rules {
        let mut set = 0;
        for (k, rule) in Self::ALL.iter().enumerate() {
            if rule.peer(rank, grid, members) == peer {
                set |= 1 << k;
            }
        }
        set
    }
}

/// A set of sub-communicators of a grid, a bit per set of dimensions kept (bit `m`: the
/// dimensions whose bits `m` has, as [`Grid::sub`] takes them).
type Keeps = u32;

/// The sets of dimensions kept whose sub-communicator of `rank` is `members`.
fn keeps_matching(members: &[u32], rank: i64, grid: &Grid) -> Keeps {
    (0..1u32 << grid.dims.len())
        .filter(|&m| grid.sub(rank, m) == members)
        .fold(0, |set, m| set | 1 << m)
}

/// What every trace of a role agrees on for one step.
#[derive(Debug, Clone, Copy)]
struct StepRules {
    /// The rules that give its peer (or root).
    peer: Rules,
    /// The rules that give a sendrecv's source (kept in `request`).
    source: Rules,
    /// The sub-communicators the members it records (a communicator described or made)
    /// may be; every one where it records none.
    keep: Keeps,
}

impl StepRules {
    const ANY: StepRules = StepRules {
        peer: Rules::MAX,
        source: Rules::MAX,
        keep: Keeps::MAX,
    };
}

/// The communicator a step describes (`comm`) or makes (`comm_split`, `comm_dup`): its
/// Fortran handle, if the step records members.
fn described(e: &Event) -> Option<i32> {
    match e.op.as_str() {
        _ if e.members.is_empty() => None,
        "comm" => Some(e.comm),
        _ => i32::try_from(e.request).ok(),
    }
}

/// Communicators' members (world ranks in their order) by Fortran handle, as a trace's
/// steps describe or make them, in order.
#[derive(Default)]
struct Comms(BTreeMap<i32, Vec<u32>>);

impl Comms {
    /// The members of the communicator `e` runs on (empty: MPI_COMM_WORLD, or a
    /// communicator never described).
    fn of(&self, e: &Event) -> &[u32] {
        self.0.get(&e.comm).map_or(&[], Vec::as_slice)
    }

    /// The communicator `e` describes or makes has `members`.
    fn note(&mut self, e: &Event, members: &[u32]) {
        if let Some(handle) = described(e) {
            self.0.insert(handle, members.to_vec());
        }
    }
}

/// One role's pattern: its records with the values at each count analyzed.
struct Role {
    /// What the role is, for errors.
    name: String,
    /// Per record, per step: the rules every trace agrees on.
    rules: Vec<Vec<StepRules>>,
    /// The traces of this role's representative, one per count analyzed.
    traces: Vec<RankTrace>,
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

/// The traces of `target` ranks from `runs` (three or more counts of at least 3 ranks):
/// as a line of ranks, else as a 2-D grid, else as a 3-D grid.
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
    let line = match on_grid(&runs, target, 1) {
        Ok(x) => return Ok(x),
        Err(e) => e,
    };
    let mut errors = vec![line];
    for nd in [2, 3] {
        match on_grid(&runs, target, nd) {
            Ok(x) => return Ok(x),
            Err(e) => errors.push(format!("as a {nd}-D grid of ranks: {e}")),
        }
    }
    Err(errors.join("; "))
}

/// The traces of `target` ranks with the ranks on grids of `nd` dimensions.
fn on_grid(runs: &[&MpiRun], target: u32, nd: usize) -> Result<Extrapolated, String> {
    let grids: Vec<Grid> = runs.iter().map(|r| Grid::of(r.ranks, nd)).collect();
    let at = Grid::of(target, nd);
    let fit = Fit::new(&grids, &at);
    let mut roles = BTreeMap::new();
    for places in all_places(nd) {
        roles.insert(places.clone(), role(runs, &grids, &places)?);
    }
    for (run, grid) in runs.iter().zip(&grids) {
        agree(run, grid, &mut roles)?;
    }
    let mut traces = vec![];
    let mut vanished = BTreeMap::new();
    for rank in 0..at.size() {
        let role = &roles[&at.places(rank)];
        let to = At {
            rank,
            grid: &at,
            fit: &fit,
        };
        traces.push(build(role, &to, &mut vanished)?);
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

/// Every position in a grid of `nd` dimensions.
fn all_places(nd: usize) -> Vec<Vec<Place>> {
    let mut all = vec![vec![]];
    for _ in 0..nd {
        all = all
            .into_iter()
            .flat_map(|p: Vec<Place>| {
                Place::ALL.iter().map(move |&pl| {
                    let mut q = p.clone();
                    q.push(pl);
                    q
                })
            })
            .collect();
    }
    all
}

/// What the ranks at `places` are, for errors.
fn role_name(places: &[Place]) -> String {
    match places {
        [Place::First] => "rank 0".into(),
        [Place::Middle] => "the ranks between".into(),
        [Place::Last] => "the last rank".into(),
        _ => {
            let p: Vec<&str> = places.iter().map(|p| p.name()).collect();
            format!("the ranks at ({}) of the grid", p.join(", "))
        }
    }
}

/// Blocks whose executions per rank fell below one at the target while every count
/// analyzed ran them at least once: `(unit, block)` → executions at the counts analyzed.
type Vanished = BTreeMap<(u32, u32), Vec<f64>>;

/// The role of the ranks at `places` in every run: its representative's traces, checked
/// to have one pattern.
fn role(runs: &[&MpiRun], grids: &[Grid], places: &[Place]) -> Result<Role, String> {
    let name = role_name(places);
    let mut traces = vec![];
    for (r, grid) in runs.iter().zip(grids) {
        let p = i64::from(r.ranks);
        let rank = grid.rank_at(places).ok_or_else(|| {
            format!(
                "no rank is one of {name} at {p} ranks (a {} grid): every count analyzed needs 3 ranks or more along each dimension",
                grid.shape()
            )
        })?;
        let t = r
            .traces
            .iter()
            .find(|t| i64::from(t.rank) == rank)
            .ok_or_else(|| format!("the trace of rank {rank} at {p} ranks is missing"))?;
        traces.push(t.clone());
    }
    let first = &traces[0];
    let mut rules: Vec<Vec<StepRules>> = first
        .records
        .iter()
        .map(|rec| vec![StepRules::ANY; rec.steps.len()])
        .collect();
    for ((t, r), grid) in traces.iter().zip(runs).zip(grids) {
        let p = i64::from(r.ranks);
        same_pattern(first, t).map_err(|e| format!("{name}: {e} at {p} ranks"))?;
        narrow(&mut rules, t, i64::from(t.rank), grid);
    }
    check_rules(&rules, &name)?;
    Ok(Role {
        name,
        rules,
        traces,
    })
}

/// Whether `t` has `first`'s records and steps, operations, tags and communicators (the
/// members each step records, if any, are checked by [`narrow`]'s rules).
fn same_pattern(first: &RankTrace, t: &RankTrace) -> Result<(), String> {
    if first.records.len() != t.records.len() {
        return Err(format!(
            "{} patterns of calls instead of {} (the pattern changes with the rank count)",
            t.records.len(),
            first.records.len()
        ));
    }
    for (k, (a, b)) in first.records.iter().zip(&t.records).enumerate() {
        if b.steps.iter().any(|s| !s.event.counts.is_empty()) {
            return Err(format!(
                "pattern {} of calls has a v-collective (bytes per rank): not extrapolated",
                k + 1
            ));
        }
        let same = a.steps.len() == b.steps.len()
            && a.steps.iter().zip(&b.steps).all(|(x, y)| {
                x.event.op == y.event.op
                    && x.event.tag == y.event.tag
                    && x.event.comm == y.event.comm
                    && x.event.members.is_empty() == y.event.members.is_empty()
                    && described(&x.event) == described(&y.event)
            });
        if !same {
            return Err(format!("pattern {} of calls differs", k + 1));
        }
    }
    Ok(())
}

/// Keeps, for each step, the rules that also hold in `t` (rank `rank` of `grid`): its
/// peers' (a root as a member of the step's communicator, as `t` recorded its members)
/// and its members'.
fn narrow(rules: &mut [Vec<StepRules>], t: &RankTrace, rank: i64, grid: &Grid) {
    let mut comms = Comms::default();
    for (rec_rules, rec) in rules.iter_mut().zip(&t.records) {
        for (r, step) in rec_rules.iter_mut().zip(&rec.steps) {
            let e = &step.event;
            let on = comms.of(e);
            r.peer &= PeerRule::matching(i64::from(e.peer), rank, grid, on);
            let source = if e.op == "sendrecv" { e.request } else { -1 };
            r.source &= PeerRule::matching(source, rank, grid, on);
            if !e.members.is_empty() {
                r.keep &= keeps_matching(&e.members, rank, grid);
            }
            comms.note(e, &e.members);
        }
    }
}

fn check_rules(rules: &[Vec<StepRules>], name: &str) -> Result<(), String> {
    for (k, rec) in rules.iter().enumerate() {
        if rec.iter().any(|r| r.keep == 0) {
            return Err(format!(
                "{name}: a communicator's members in pattern {} of calls are neither every rank in order nor the rank's row, column or plane of the grid (in grid order, as MPI_Cart_sub or MPI_Comm_split by a coordinate with the rank as key gives them) at every count: not extrapolated",
                k + 1
            ));
        }
        if rec.iter().any(|r| r.peer == 0 || r.source == 0) {
            return Err(format!(
                "{name}: a peer in pattern {} of calls is no neighbour (along a line or a dimension of the grid, around it or open), nor rank 0, nor the last rank, nor the first or last member of its communicator, nor MPI_PROC_NULL, at every count (give a trace at the rank count)",
                k + 1
            ));
        }
    }
    Ok(())
}

/// Whether every rank of `run` has the pattern of its role; the roles' peer rules
/// narrowed to those every one of its ranks agrees on (rank 1 tells a neighbour two
/// ranks down around the ring from one on an open line).
fn agree(run: &MpiRun, grid: &Grid, roles: &mut BTreeMap<Vec<Place>, Role>) -> Result<(), String> {
    let p = i64::from(run.ranks);
    for t in &run.traces {
        let rank = i64::from(t.rank);
        let Some(role) = roles.get_mut(&grid.places(rank)) else {
            continue;
        };
        same_pattern(&role.traces[0], t).map_err(|e| {
            format!(
                "rank {rank} at {p} ranks does not do what the other ones of {} do ({e}): the pattern does not allow extrapolation (give a trace at the rank count)",
                role.name
            )
        })?;
        narrow(&mut role.rules, t, rank, grid);
        check_rules(&role.rules, &format!("rank {rank} at {p} ranks"))?;
    }
    Ok(())
}

/// Where a trace is built: the rank, the target's grid and the fits to it.
struct At<'a> {
    rank: i64,
    grid: &'a Grid,
    fit: &'a Fit,
}

/// Rank `at.rank` of the grid `at.grid`: the role's pattern with its numbers there, its
/// communicators' members and its peers resolved.
fn build(role: &Role, at: &At, vanished: &mut Vanished) -> Result<RankTrace, String> {
    let mut records = vec![];
    let mut comms = Comms::default();
    for (k, rec) in role.traces[0].records.iter().enumerate() {
        let repeat = number_at(role, at.fit, k, "the repeat count", &|t| {
            t.records[k].repeat as f64
        })?;
        let mut steps = vec![];
        for s in 0..rec.steps.len() {
            steps.push(step_at(role, at, (k, s), &mut comms, vanished)?);
        }
        records.push(Record {
            repeat: repeat.round().max(0.0) as u64,
            steps,
        });
    }
    let calls = records
        .iter()
        .map(|r| r.repeat * r.steps.iter().filter(|s| s.event.is_call()).count() as u64)
        .sum();
    Ok(RankTrace {
        rank: at.rank as u32,
        calls,
        records,
    })
}

/// The value at the target of `what` of record `k` (`f` of each of the role's traces).
fn number_at(
    role: &Role,
    fit: &Fit,
    k: usize,
    what: &str,
    f: &dyn Fn(&RankTrace) -> f64,
) -> Result<f64, String> {
    let ys: Vec<f64> = role.traces.iter().map(f).collect();
    fit.at(&ys).ok_or_else(|| {
        format!(
            "{what} of pattern {} of calls of {} ({ys:?} at {:?} ranks) follows no model of the rank count",
            k + 1,
            role.name,
            fit.ps()
        )
    })
}

/// Step `s` of record `k` at the target; `comms` holds the members at the target of the
/// communicators the steps before described or made, and takes this step's.
fn step_at(
    role: &Role,
    at: &At,
    (k, s): (usize, usize),
    comms: &mut Comms,
    vanished: &mut Vanished,
) -> Result<Step, String> {
    let event = &role.traces[0].records[k].steps[s].event;
    let ev = |t: &RankTrace| t.records[k].steps[s].event.clone();
    let bytes = number_at(role, at.fit, k, "the bytes", &|t| ev(t).bytes as f64)?;
    let bytes2 = if role.traces.iter().all(|t| ev(t).bytes2 == -1) {
        -1.0
    } else {
        number_at(role, at.fit, k, "the bytes received", &|t| {
            ev(t).bytes2 as f64
        })?
    };
    let rules = role.rules[k][s];
    let on = comms.of(event);
    let peer = rule_of(rules.peer).peer(at.rank, at.grid, on);
    let request = if event.op == "sendrecv" {
        rule_of(rules.source).peer(at.rank, at.grid, on)
    } else {
        event.request
    };
    let members = if event.members.is_empty() {
        vec![]
    } else {
        at.grid.sub(at.rank, rules.keep.trailing_zeros())
    };
    comms.note(event, &members);
    Ok(Step {
        segment: segment_at(role, at.fit, (k, s), vanished)?,
        event: Event {
            peer: peer as i32,
            bytes: bytes.round() as i64,
            bytes2: bytes2.round() as i64,
            request,
            members,
            ..event.clone()
        },
    })
}

/// The first rule of a set.
fn rule_of(set: Rules) -> PeerRule {
    let k = set.trailing_zeros() as usize;
    PeerRule::ALL.get(k).copied().unwrap_or(PeerRule::None)
}

/// Step `s` of record `k`'s segment at the target: every block any count executed, its
/// executions by the model through them (0 where a count did not execute it).
/// Blocks that every count ran but that run less than once at the target go to
/// `vanished`.
fn segment_at(
    role: &Role,
    fit: &Fit,
    (k, s): (usize, usize),
    vanished: &mut Vanished,
) -> Result<Vec<(u32, u32, f64)>, String> {
    let mut blocks: BTreeMap<(u32, u32), Vec<f64>> = BTreeMap::new();
    let n = role.traces.len();
    for (i, t) in role.traces.iter().enumerate() {
        for &(unit, block, x) in &t.records[k].steps[s].segment {
            blocks.entry((unit, block)).or_insert_with(|| vec![0.0; n])[i] = x;
        }
    }
    blocks
        .into_iter()
        .map(|((unit, block), ys)| {
            let v = fit.at(&ys).ok_or_else(|| {
                format!(
                    "the executions of block {block} of unit {unit} by {} ({ys:?} at {:?} ranks) follow no model of the rank count",
                    role.name,
                    fit.ps()
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

/// The variables a number may follow: the rank count and, on a grid of two or more
/// dimensions, the ranks along each one (a block's edge), and in three the ranks across
/// each (a block's face); each with its values at the counts analyzed and at the
/// target.
struct Fit {
    vars: Vec<(Vec<f64>, f64)>,
}

impl Fit {
    fn new(grids: &[Grid], at: &Grid) -> Fit {
        let size = |g: &Grid| g.size() as f64;
        let mut vars = vec![(grids.iter().map(size).collect(), size(at))];
        if at.dims.len() > 1 {
            for k in 0..at.dims.len() {
                let xs = grids.iter().map(|g| g.dims[k] as f64).collect();
                vars.push((xs, at.dims[k] as f64));
            }
        }
        // In 3-D a face across dimension k holds the ranks along the other two.
        if at.dims.len() > 2 {
            for k in 0..at.dims.len() {
                let across = |g: &Grid| (g.size() / g.dims[k]) as f64;
                vars.push((grids.iter().map(across).collect(), across(at)));
            }
        }
        Fit { vars }
    }

    /// The rank counts analyzed.
    fn ps(&self) -> &[f64] {
        &self.vars[0].0
    }

    /// The value at the target of the model that fits `ys` best, of any variable (the
    /// rank count on a tie).
    fn at(&self, ys: &[f64]) -> Option<f64> {
        let mut best: Option<(f64, f64)> = None;
        for (xs, x) in &self.vars {
            if let Some((w, v)) = best_model(xs, ys, *x) {
                if best.map_or(true, |(b, _)| w < b - 1e-9) {
                    best = Some((w, v));
                }
            }
        }
        best.map(|(_, v)| v)
    }
}

/// The value at `p` of the simplest model through `(ps, ys)`: a constant, `a + b/P`,
/// `a + b/P²`, `a + b·P`, `a + b·log2 P`, `a + b/√P`, `a + b·P^(-1/3)`, `a + b·P^(-2/3)`,
/// or `a·P^c`, fitted to the smallest and the largest count and checked on the others
/// (within 1%, or 1 for small numbers: integer division), the closest of those that fit.
pub fn value_at(ps: &[f64], ys: &[f64], p: f64) -> Option<f64> {
    best_model(ps, ys, p).map(|(_, v)| v)
}

/// The models of [`value_at`] through the smallest and the largest count.
fn models(ps: &[f64], ys: &[f64]) -> Vec<Box<dyn Fn(f64) -> f64>> {
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
        |x| 1.0 / x.sqrt(),
        |x| x.powf(-1.0 / 3.0),
        |x| x.powf(-2.0 / 3.0),
    ] {
        models.extend(linear(f));
    }
    if y0 > 0.0 && y1 > 0.0 && (p1 / p0).ln().abs() > 1e-300 {
        let c = (y1 / y0).ln() / (p1 / p0).ln();
        models.push(Box::new(move |x| y0 * (x / p0).powf(c)));
    }
    models
}

/// The worst relative error of the model that fits `(ps, ys)` best (the simpler one on a
/// tie), if it fits every count, and its value at `p`.
fn best_model(ps: &[f64], ys: &[f64], p: f64) -> Option<(f64, f64)> {
    let close = |a: f64, b: f64| (a - b).abs() <= (0.01 * b.abs()).max(1.0);
    let worst = |m: &dyn Fn(f64) -> f64| {
        ps.iter()
            .zip(ys)
            .map(|(x, y)| (m(*x) - y).abs() / y.abs().max(1.0))
            .fold(0.0, f64::max)
    };
    let mut best: Option<(f64, f64)> = None;
    for m in &models(ps, ys) {
        let fits = ps.iter().zip(ys).all(|(x, y)| close(m(*x), *y));
        let w = worst(m.as_ref());
        if fits && best.map_or(true, |(b, _)| w < b - 1e-9) {
            best = Some((w, m(p).max(0.0)));
        }
    }
    best
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

    #[test]
    fn dims_are_those_open_mpi_gives() {
        // Checked against Open MPI 4.1's MPI_Dims_create for every count up to 300.
        for (p, two, three) in [
            (1, vec![1, 1], vec![1, 1, 1]),
            (7, vec![7, 1], vec![7, 1, 1]),
            (12, vec![4, 3], vec![3, 2, 2]),
            (32, vec![8, 4], vec![4, 4, 2]),
            (64, vec![8, 8], vec![4, 4, 4]),
            // Not the squarest (9 x 8): Open MPI's greedy rule.
            (72, vec![12, 6], vec![6, 4, 3]),
        ] {
            assert_eq!(dims_create(p, 2), two, "{p}");
            assert_eq!(dims_create(p, 3), three, "{p}");
        }
    }

    #[test]
    fn a_grid_numbers_its_ranks_row_major_and_places_them() {
        let g = Grid::of(12, 2);
        assert_eq!(g.dims, vec![4, 3]);
        assert_eq!(g.coords(7), vec![2, 1]);
        assert_eq!(g.rank_of(&[2, 1]), 7);
        assert_eq!(g.places(0), vec![Place::First, Place::First]);
        assert_eq!(g.places(7), vec![Place::Middle, Place::Middle]);
        assert_eq!(g.places(11), vec![Place::Last, Place::Last]);
        assert_eq!(g.rank_at(&[Place::Middle, Place::Last]), Some(8));
        // Neighbours along each dimension, MPI_PROC_NULL past an open edge.
        assert_eq!(PeerRule::Open(0, -1).peer(1, &g, &[]), PROC_NULL);
        assert_eq!(PeerRule::Open(0, 1).peer(1, &g, &[]), 4);
        assert_eq!(PeerRule::Open(1, 1).peer(2, &g, &[]), PROC_NULL);
        assert_eq!(PeerRule::Around(1, 1).peer(2, &g, &[]), 0);
        assert_eq!(PeerRule::Open(2, 1).peer(2, &g, &[]), NO_PEER);
        assert_eq!(all_places(3).len(), 27);
    }

    /// An `n`^`nd` field in blocks on `MPI_Dims_create`'s non-periodic grid of `p` ranks
    /// in `nd` dimensions: a sendrecv to each neighbour along each dimension (the block's
    /// face across it in doubles), the block's `n^nd / P` cells, then an allreduce on a
    /// communicator of every rank.
    fn halo(p: u32, n: i64, nd: usize) -> MpiRun {
        let g = Grid::of(p, nd);
        let face = |k: usize| {
            let sides = (0..nd).filter(|&j| j != k).map(|j| n / g.dims[j]);
            8 * sides.product::<i64>()
        };
        let mut run = run_of(p, |r| {
            let r = i64::from(r);
            let mut steps = vec![];
            for k in 0..nd {
                for d in [-1, 1] {
                    let mut e = event(
                        "sendrecv",
                        PeerRule::Open(k, d).peer(r, &g, &[]) as i32,
                        face(k),
                    );
                    e.request = PeerRule::Open(k, -d).peer(r, &g, &[]);
                    e.tag = steps.len() as i32;
                    steps.push(Step {
                        segment: vec![],
                        event: e,
                    });
                }
            }
            let mut members = Event::new("comm");
            members.members = (0..p).collect();
            steps.push(Step {
                segment: vec![(0, 5, n.pow(nd as u32) as f64 / f64::from(p))],
                event: members,
            });
            steps.push(Step {
                segment: vec![],
                event: event("allreduce", -1, 8),
            });
            steps
        });
        // The communicator's members are no call.
        for t in &mut run.traces {
            t.calls = 10 * (2 * nd as u64 + 1);
        }
        run
    }

    fn halo_2d(p: u32, n: i64) -> MpiRun {
        halo(p, n, 2)
    }

    #[test]
    fn a_3d_halo_extrapolates_its_faces() {
        // 3x3x3, 4x3x3, 4x4x3 and 4x4x4 grids (each dimension grows: with the third
        // at 3 throughout, a face across the first would look like an edge along the
        // second); 8x4x4 and 8x8x4 never run.
        let runs: Vec<MpiRun> = [27, 36, 48, 64].iter().map(|&p| halo(p, 48, 3)).collect();
        for target in [128, 256] {
            let big = extrapolate(&runs, target).unwrap().run;
            assert_eq!(big.traces, halo(target, 48, 3).traces, "{target} ranks");
        }
    }

    #[test]
    fn a_2d_halo_extrapolates_on_dims_create_grids() {
        let runs: Vec<MpiRun> = [9, 12, 16].iter().map(|&p| halo_2d(p, 48)).collect();
        // The line of ranks does not fit it; the grid does.
        for target in [32, 64] {
            let big = extrapolate(&runs, target).unwrap().run;
            assert_eq!(big.traces, halo_2d(target, 48).traces, "{target} ranks");
        }
        let big = extrapolate(&runs, 64).unwrap().run;
        let peers = |r: usize| -> Vec<i32> {
            let steps = &big.traces[r].records[0].steps;
            steps[..4]
                .iter()
                .map(|s| s.event.peer)
                .filter(|&p| p >= 0)
                .collect()
        };
        // A corner talks to 2 neighbours, an edge to 3, the interior to 4.
        assert_eq!(peers(0), vec![8, 1]);
        assert_eq!(peers(3), vec![11, 2, 4]);
        assert_eq!(peers(9), vec![1, 17, 8, 10]);
        assert_eq!(big.traces[9].calls, 10 * 5);
        assert_eq!(big.traces[9].records[0].steps[4].event.members.len(), 64);
    }

    #[test]
    fn a_2d_halo_whose_ranks_differ_says_which() {
        let mut runs: Vec<MpiRun> = [9, 12, 16].iter().map(|&p| halo_2d(p, 48)).collect();
        // Rank 5 of 12 (the middle of the last column) sends its first row to rank 0.
        runs[1].traces[5].records[0].steps[0].event.peer = 0;
        let e = extrapolate(&runs, 64).unwrap_err();
        assert!(
            e.contains("as a 2-D grid of ranks: rank 5 at 12 ranks"),
            "{e}"
        );
        // A grid too thin for a middle along each dimension.
        let runs: Vec<MpiRun> = [4, 6, 9].iter().map(|&p| halo_2d(p, 48)).collect();
        let e = extrapolate(&runs, 64).unwrap_err();
        assert!(e.contains("at 4 ranks (a 2x2 grid)"), "{e}");
    }

    /// A step of `e` after no computing.
    fn bare(e: Event) -> Step {
        Step {
            segment: vec![],
            event: e,
        }
    }

    /// An `n`² field on `MPI_Dims_create`'s grid of `p` ranks with `members(rank, grid)`
    /// for its column communicator (handle 4, made by `MPI_Comm_split`) and its row's
    /// (handle 3, as `MPI_Cart_sub` makes it: described before its first collective);
    /// then 10 times: an allreduce of the block's `n / dims[0]` row sums along the row,
    /// a reduce of them to the row's last member, a bcast of the block's `n / dims[1]`
    /// columns from the column's first member.
    fn sub_grid(p: u32, n: i64, column: impl Fn(i64, &Grid) -> Vec<u32>) -> MpiRun {
        let g = Grid::of(p, 2);
        let traces = (0..i64::from(p))
            .map(|r| {
                let (row, col) = (g.sub(r, 0b10), column(r, &g));
                let mut split = Event::new("comm_split");
                (split.request, split.members) = (4, col.clone());
                let mut cart = Event::new("comm");
                (cart.comm, cart.members) = (3, row.clone());
                let on = |op: &str, comm: i32, root: u32, bytes: i64| Event {
                    comm,
                    bytes,
                    peer: if op == "allreduce" { -1 } else { root as i32 },
                    ..Event::new(op)
                };
                let sums = 8 * n / g.dims[0];
                let steps = vec![
                    bare(on("allreduce", 3, 0, sums)),
                    bare(on("reduce", 3, row[row.len() - 1], sums)),
                    bare(on("bcast", 4, col[0], 8 * n / g.dims[1])),
                ];
                RankTrace {
                    rank: r as u32,
                    calls: 1 + 30,
                    records: vec![
                        Record {
                            repeat: 1,
                            steps: vec![bare(split), bare(cart)],
                        },
                        Record { repeat: 10, steps },
                    ],
                }
            })
            .collect();
        MpiRun {
            ranks: p,
            wall_seconds: 1.0,
            traces,
        }
    }

    fn columns(r: i64, g: &Grid) -> Vec<u32> {
        g.sub(r, 0b01)
    }

    #[test]
    fn rows_and_columns_of_the_grid_are_recomputed_at_the_target() {
        let runs: Vec<MpiRun> = [9, 12, 16]
            .iter()
            .map(|&p| sub_grid(p, 48, columns))
            .collect();
        for target in [32, 36] {
            let big = extrapolate(&runs, target).unwrap().run;
            assert_eq!(big.traces, sub_grid(target, 48, columns).traces, "{target}");
        }
        // 32 ranks: an 8x4 grid; rank 0 a corner, rank 9 (row 2, column 1) inside.
        let big = extrapolate(&runs, 32).unwrap().run;
        let step = |r: usize, k: usize, s: usize| &big.traces[r].records[k].steps[s].event;
        assert_eq!(step(0, 0, 0).members, [0, 4, 8, 12, 16, 20, 24, 28]);
        assert_eq!(step(0, 0, 1).members, [0, 1, 2, 3]);
        assert_eq!(step(9, 0, 0).members, [1, 5, 9, 13, 17, 21, 25, 29]);
        assert_eq!(step(9, 0, 1).members, [8, 9, 10, 11]);
        // Row sums of 48 / 8 rows, the columns 48 / 4 long; roots as members of each.
        assert_eq!((step(9, 1, 0).bytes, step(9, 1, 0).peer), (48, -1));
        assert_eq!((step(0, 1, 1).peer, step(9, 1, 1).peer), (3, 11));
        assert_eq!((step(9, 1, 2).bytes, step(9, 1, 2).peer), (96, 1));
        assert_eq!((step(0, 1, 2).peer, big.traces[9].calls), (0, 31));
    }

    #[test]
    fn members_neither_world_nor_a_row_nor_a_column_are_refused() {
        // Even and odd ranks.
        let parity = |r: i64, g: &Grid| {
            (0..g.size() as u32)
                .filter(|m| i64::from(m % 2) == r % 2)
                .collect()
        };
        let runs: Vec<MpiRun> = [9, 12, 16]
            .iter()
            .map(|&p| sub_grid(p, 48, parity))
            .collect();
        let e = extrapolate(&runs, 32).unwrap_err();
        assert!(
            e.contains("as a 2-D grid of ranks: ") && e.contains("members in pattern 1 of calls are neither every rank in order nor the rank's row, column or plane"),
            "{e}"
        );
        // A column in reverse order (MPI_Comm_split keyed by -rank).
        let reversed = |r: i64, g: &Grid| g.sub(r, 0b01).into_iter().rev().collect();
        let runs: Vec<MpiRun> = [9, 12, 16]
            .iter()
            .map(|&p| sub_grid(p, 48, reversed))
            .collect();
        let e = extrapolate(&runs, 32).unwrap_err();
        assert!(e.contains("members in pattern 1 of calls"), "{e}");
    }

    #[test]
    fn a_grid_gives_each_rank_its_row_column_or_plane() {
        let g = Grid::of(24, 3);
        assert_eq!(g.dims, vec![4, 3, 2]);
        // Rank 11 at (1, 2, 1).
        assert_eq!(g.sub(11, 0b001), vec![5, 11, 17, 23]);
        assert_eq!(g.sub(11, 0b010), vec![7, 9, 11]);
        let odd: Vec<u32> = (0..12).map(|k| 2 * k + 1).collect();
        assert_eq!(g.sub(11, 0b011), odd);
        assert_eq!(g.sub(11, 0b000), vec![11]);
        assert_eq!(g.sub(11, 0b111), (0..24).collect::<Vec<u32>>());
        assert_eq!(keeps_matching(&[7, 9, 11], 11, &g), 1 << 0b010);
    }
}
