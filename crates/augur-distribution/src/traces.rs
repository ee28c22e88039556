//! The per-rank traces of a distributed program: each nest's entry as its messages
//! (before: shifts, broadcasts, gathers; after: reductions) around the rank's share of
//! the nest's block executions, nests entered equally often in a row repeated together
//! (a time-step loop's body), everything outside the split nests run by every rank.
//! The traces are an MPI profile's, so the MPI predictor replays them as it replays a
//! traced program.

use crate::comm::Message;
use crate::work::{profile_units, Nest};
use crate::{Analysis, ArrayLayout};
use augur_ir::Program;
use augur_program_profile::mpi::{Event, MpiRun, RankTrace, Record, Step};
use augur_program_profile::ProgramProfile;
use std::collections::BTreeSet;

/// MPI_PROC_NULL in a trace.
const PROC_NULL: i32 = -2;

type Segment = Vec<(u32, u32, f64)>;

/// The traces of every rank of `analysis` (its grid's processors).
pub fn traces(analysis: &Analysis, program: &Program, profile: &ProgramProfile) -> MpiRun {
    let ranks = analysis.grid.processors();
    let units = profile_units(program, profile);
    let groups = groups(&analysis.nests);
    let replicated = replicated(analysis, profile, &units);
    let ctx = Ctx {
        analysis,
        program,
        profile,
        units: &units,
    };
    let traces = (0..ranks)
        .map(|r| {
            let coords = analysis.grid.coords(r);
            let mut records = vec![one(vec![Step {
                segment: vec![],
                event: Event::new("init"),
            }])];
            let mut pending: Segment = vec![];
            for g in &groups {
                let nests: Vec<&Nest> = g.iter().map(|&i| &analysis.nests[i]).collect();
                let repeat = nests[0].entries.round() as u64;
                if moving_roots(&nests) && repeat * u64::from(ranks) <= UNROLLED_ENTRIES {
                    // A broadcast whose root moves from entry to entry: each entry as is.
                    for e in 0..repeat {
                        let (steps, tail) = pattern(&ctx, &nests, &coords, e);
                        place(&mut records, &mut pending, steps, tail, 1);
                    }
                } else {
                    let (steps, tail) = pattern(&ctx, &nests, &coords, 0);
                    place(&mut records, &mut pending, steps, tail, repeat);
                }
            }
            pending.extend(replicated.iter().copied());
            records.push(one(vec![Step {
                segment: pending,
                event: Event::new("finalize"),
            }]));
            let calls = records
                .iter()
                .map(|rec| rec.repeat * rec.steps.len() as u64)
                .sum();
            RankTrace {
                rank: r,
                calls,
                records,
            }
        })
        .collect();
    MpiRun {
        ranks,
        wall_seconds: 0.0,
        traces,
    }
}

fn one(steps: Vec<Step>) -> Record {
    Record { repeat: 1, steps }
}

/// Appends a group's pattern repeated `repeat` times: the compute pending before it joins
/// its first step once, the compute after its last message (`tail`) the first step of
/// each later repetition, and is pending after the group.
fn place(
    records: &mut Vec<Record>,
    pending: &mut Segment,
    steps: Vec<Step>,
    tail: Segment,
    repeat: u64,
) {
    if repeat == 0 {
        return;
    }
    if steps.is_empty() {
        pending.extend(tail.iter().map(|&(u, b, x)| (u, b, x * repeat as f64)));
        return;
    }
    let mut first = steps.clone();
    first[0].segment.append(pending);
    records.push(one(first));
    if repeat > 1 {
        let mut rest = steps;
        rest[0].segment.extend(tail.iter().copied());
        records.push(Record {
            repeat: repeat - 1,
            steps: rest,
        });
    }
    *pending = tail;
}

/// Runs of consecutive nests entered equally often (indices into the nests).
fn groups(nests: &[Nest]) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![];
    for (i, n) in nests.iter().enumerate() {
        match out.last_mut() {
            Some(g) if (nests[g[0]].entries - n.entries).abs() < 0.5 => g.push(i),
            _ => out.push(vec![i]),
        }
    }
    out
}

/// Entries of a group unrolled one by one at most, over all ranks (a broadcast's root
/// moving; beyond, the root of the first entry serves every entry).
const UNROLLED_ENTRIES: u64 = 4_000_000;

/// What every rank's pattern reads.
struct Ctx<'a> {
    analysis: &'a Analysis,
    program: &'a Program,
    profile: &'a ProgramProfile,
    units: &'a [Option<usize>],
}

/// Whether a nest of the group broadcasts from a root that moves between entries.
fn moving_roots(nests: &[&Nest]) -> bool {
    nests.iter().flat_map(|n| &n.messages).any(|m| {
        matches!(m, Message::Broadcast { owners, .. } if owners.windows(2).any(|w| w[0] != w[1]))
    })
}

/// Entry `entry` of a group at the rank at `coords`: its steps and the compute after
/// the last one.
fn pattern(ctx: &Ctx<'_>, nests: &[&Nest], coords: &[u32], entry: u64) -> (Vec<Step>, Segment) {
    let Ctx {
        analysis,
        program,
        profile,
        units,
    } = *ctx;
    let mut steps = vec![];
    let mut pending: Segment = vec![];
    for (k, n) in nests.iter().enumerate() {
        let Some(pi) = units[n.unit] else {
            continue;
        };
        let unit = &program.units[n.unit];
        for (m, msg) in n.messages.iter().enumerate() {
            let tag = (k * 16 + m) as i32;
            for event in events(analysis, msg, coords, tag, true, entry) {
                steps.push(Step {
                    segment: std::mem::take(&mut pending),
                    event: at_nest(event, n),
                });
            }
        }
        for &b in &n.blocks {
            let done = profile.units[pi].blocks[b as usize]
                .executions
                .unwrap_or(0.0);
            let x = done / n.entries.max(1.0) * n.share(unit, b, coords);
            if x > 0.0 {
                pending.push((pi as u32, b, x));
            }
        }
        for msg in &n.messages {
            for event in events(analysis, msg, coords, 0, false, entry) {
                steps.push(Step {
                    segment: std::mem::take(&mut pending),
                    event: at_nest(event, n),
                });
            }
        }
    }
    (steps, pending)
}

/// The MPI events of message `msg` at the rank at `coords` at entry `entry` of its nest
/// (`before`: the messages that precede the nest; else those that follow it).
fn events(
    analysis: &Analysis,
    msg: &Message,
    coords: &[u32],
    tag: i32,
    before: bool,
    entry: u64,
) -> Vec<Event> {
    let layout = |a: &str| &analysis.layouts[a];
    match msg {
        Message::Reduction { bytes, .. } if !before => {
            let mut e = Event::new("allreduce");
            e.bytes = i64::from(*bytes);
            vec![e]
        }
        Message::Halo {
            array,
            dim,
            axis,
            below,
            above,
        } if before => {
            let l = layout(array);
            let d = &l.dims[*dim];
            // BLOCK: the neighbours' edge layers, none past the ends. CYCLIC(m): a shift
            // of w reaches the next processor round the ring for w of every m indices.
            let cyclic = match d.format {
                crate::spec::Format::Cyclic(m) if d.procs > 1 => Some(m),
                _ => None,
            };
            let wrap = cyclic.is_some();
            // Bytes the rank at `at` sends for a shift of `w`.
            let sent = |at: &[u32], w: i64| {
                let layers =
                    cyclic.map_or(w, |m| (d.local_extent(at[*axis]) * w.min(m) + m - 1) / m);
                layers * l.cross_section(*dim, at) * i64::from(l.element_bytes)
            };
            let lower = neighbour(analysis, coords, *axis, -1, wrap);
            let upper = neighbour(analysis, coords, *axis, 1, wrap);
            let at = |r: i32| (r >= 0).then(|| analysis.grid.coords(r as u32));
            let from = |r: i32, w: i64| at(r).map_or(0, |c| sent(&c, w));
            let mut out = vec![];
            if *above > 0 {
                let mine = sent(coords, *above);
                out.push(sendrecv(lower, upper, mine, from(upper, *above), tag * 2));
            }
            if *below > 0 {
                let mine = sent(coords, *below);
                out.push(sendrecv(
                    upper,
                    lower,
                    mine,
                    from(lower, *below),
                    tag * 2 + 1,
                ));
            }
            out
        }
        Message::Broadcast {
            array,
            dim,
            axis,
            index,
            owners,
            ..
        } if before => {
            let l = layout(array);
            let d = &l.dims[*dim];
            let owner = match owners.len() {
                0 => d.owner(index.unwrap_or(d.lower)),
                k => owners[(entry % k as u64) as usize],
            };
            let mut at: Vec<i64> = vec![0; analysis.grid.0.len()];
            at[*axis] = i64::from(owner);
            let root = analysis.grid.rank(&at).unwrap_or(0);
            let root_coords = analysis.grid.coords(root);
            let mut e = Event::new("bcast");
            e.peer = root as i32;
            e.bytes = l.cross_section(*dim, &root_coords) * i64::from(l.element_bytes);
            vec![e]
        }
        Message::Transpose { array } if before => {
            let l: &ArrayLayout = layout(array);
            let p = i64::from(analysis.grid.processors().max(1));
            let mut e = Event::new("alltoall");
            e.bytes = l.local_elements(coords) / p * i64::from(l.element_bytes);
            e.bytes2 = e.bytes;
            vec![e]
        }
        Message::Gather { array } if before => {
            let l: &ArrayLayout = layout(array);
            let most = (0..analysis.grid.processors())
                .map(|q| l.local_elements(&analysis.grid.coords(q)))
                .max()
                .unwrap_or(0);
            let mut e = Event::new("allgather");
            e.bytes = most * i64::from(l.element_bytes);
            e.bytes2 = e.bytes;
            vec![e]
        }
        _ => vec![],
    }
}

/// `e` with the nest's first line as its call site (the messages it needs).
fn at_nest(mut e: Event, n: &Nest) -> Event {
    e.site = Some(augur_program_profile::mpi::Site {
        file: n.file.clone(),
        line: n.line,
    });
    e
}

/// The rank next to `coords` along `axis` in direction `step` (round the axis when
/// `wrap`), or MPI_PROC_NULL.
fn neighbour(analysis: &Analysis, coords: &[u32], axis: usize, step: i64, wrap: bool) -> i32 {
    let mut at: Vec<i64> = coords.iter().map(|&c| i64::from(c)).collect();
    at[axis] += step;
    if wrap {
        let q = i64::from(analysis.grid.0[axis]);
        at[axis] = at[axis].rem_euclid(q);
    }
    analysis.grid.rank(&at).map_or(PROC_NULL, |r| r as i32)
}

/// A `sendrecv` to `dest` of `bytes`, from `source` of `received`.
fn sendrecv(dest: i32, source: i32, bytes: i64, received: i64, tag: i32) -> Event {
    let mut e = Event::new("sendrecv");
    e.peer = dest;
    e.request = i64::from(source);
    e.tag = tag;
    e.recv_tag = Some(tag);
    e.bytes = if dest == PROC_NULL { 0 } else { bytes };
    e.bytes2 = if source == PROC_NULL { 0 } else { received };
    e
}

/// The executions every rank runs: the blocks outside every split nest.
fn replicated(analysis: &Analysis, profile: &ProgramProfile, units: &[Option<usize>]) -> Segment {
    let inside: BTreeSet<(usize, u32)> = analysis
        .nests
        .iter()
        .flat_map(|n| n.blocks.iter().map(move |&b| (n.unit, b)))
        .collect();
    let mut out = vec![];
    for (ui, pi) in units.iter().enumerate() {
        let Some(pi) = *pi else {
            continue;
        };
        for (b, bp) in profile.units[pi].blocks.iter().enumerate() {
            let x = bp.executions.unwrap_or(0.0);
            if x > 0.0 && !inside.contains(&(ui, b as u32)) {
                out.push((pi as u32, b as u32, x));
            }
        }
    }
    out
}
