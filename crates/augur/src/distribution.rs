//! `augur predict PROFILE -m M --distribute 'u(*,BLOCK)' --procs 1,2,4`: a sequential
//! program as if its arrays were distributed, before any MPI code exists. The program
//! wing distributes it (`augur_program::distribute`: each nest split under
//! owner-computes, its messages, per-rank traces); the MPI predictor replays the traces.

use anyhow::{Context, Result};
use augur_distribution::spec::{ArrayDistribution, Grid};
use augur_distribution::Analysis;
use augur_program_profile::mpi::MpiRun;
use std::path::Path;

/// What `--distribute` and `--procs` gave.
#[derive(Debug, Clone)]
pub struct DistributeArgs {
    /// The arrays' distributions (beside the sources' directives).
    pub arrays: Vec<ArrayDistribution>,
    /// The grids (empty: the directives' PROCESSORS).
    pub grids: Vec<Grid>,
}

/// The outputs asked for.
pub struct How<'a> {
    /// The per-rank timeline (one grid).
    pub gantt: Option<&'a Path>,
    /// The sweep's figure (several grids).
    pub plot: Option<&'a Path>,
    /// JSON: the MPI prediction's document.
    pub json: bool,
    /// Where to write the profile with the distributed traces.
    pub profile_out: Option<&'a Path>,
}

/// Distributes, reports the distribution and predicts it at each grid.
pub fn run(
    profile: &Path,
    machine: &augur_model::LoadedMachine,
    options: augur_model::PredictOptions,
    d: &DistributeArgs,
    mpi: &crate::simgrid::MpiPredict,
    how: &How<'_>,
) -> Result<String> {
    let program = augur_program_profile::ProgramProfile::read(profile)?;
    let dist = augur_program::distribute::distribute(&program, &d.arrays, &d.grids)
        .map_err(anyhow::Error::msg)
        .with_context(|| format!("{}", profile.display()))?;
    if let Some(out) = how.profile_out {
        let json = serde_json::to_string_pretty(&dist.profile)?;
        crate::cli::write_atomically(out, json.as_bytes())?;
        eprintln!(
            "augur: the distributed profile written to {}",
            out.display()
        );
    }
    let runs = &dist
        .profile
        .mpi
        .as_ref()
        .map(|m| m.runs.clone())
        .unwrap_or_default();
    let mut a = mpi.clone();
    a.ranks = runs.iter().map(|r| r.ranks).collect();
    let prediction = match &a.ranks[..] {
        [one] => crate::simgrid::predict_one(
            &dist.profile,
            profile,
            machine,
            options,
            &a,
            *one,
            how.gantt,
            how.json,
        )?,
        _ => crate::rank_sweep::sweep_loaded(
            &dist.profile,
            profile,
            machine,
            options,
            &a,
            how.plot,
            how.json,
        )?,
    };
    if how.json {
        return Ok(prediction);
    }
    Ok(report(profile, &dist, runs) + "\n" + &prediction)
}

/// The distribution as a user reads it: arrays, split nests, messages, per-rank transfers.
fn report(
    profile: &Path,
    dist: &augur_program::distribute::Distributed,
    runs: &[MpiRun],
) -> String {
    let Some(last) = dist.analyses.iter().max_by_key(|a| a.grid.processors()) else {
        return String::new();
    };
    let mut out = format!(
        "augur distribution: {} under owner-computes (each processor runs the iterations that assign what it owns), not an MPI run\n",
        profile.display()
    );
    for r in &dist.directives.read {
        out += &format!("  directive {r}\n");
    }
    out += &arrays_text(last);
    out += &nests_text(last);
    out += "per processor count: the busiest rank's point-to-point transfers and bytes, collectives per rank\n";
    out += "  procs  grid   transfers        bytes  collectives\n";
    for (a, run) in dist.analyses.iter().zip(runs) {
        let (t, b, c) = busiest(run);
        out += &format!(
            "  {:>5}  {:<5} {:>10} {:>12} {:>12}\n",
            a.grid.processors(),
            a.grid.to_string(),
            t,
            b,
            c
        );
    }
    let mut notes: Vec<&String> = dist.analyses.iter().flat_map(|a| &a.notes).collect();
    notes.sort();
    notes.dedup();
    for n in notes {
        out += &format!("note: {n}\n");
    }
    out
}

fn arrays_text(a: &Analysis) -> String {
    let mut out = format!("distributed arrays (grid {}):\n", a.grid);
    for l in a.layouts.values() {
        let formats: Vec<String> = l.formats.iter().map(|f| f.to_string()).collect();
        let extents: Vec<String> = l.dims.iter().map(|d| d.extent.to_string()).collect();
        let zero = a.grid.coords(0);
        let local: Vec<String> = l
            .dims
            .iter()
            .enumerate()
            .map(|(k, d)| d.local_extent(l.coord(k, &zero)).to_string())
            .collect();
        out += &format!(
            "  {}({})  {} elements of {} bytes (bounds {}); rank 0 holds {}\n",
            l.array,
            formats.join(","),
            extents.join(" x "),
            l.element_bytes,
            match l.bounds_from.as_str() {
                "run" => "as the run recorded them",
                "declared" => "as declared",
                _ => "from the loops that index it",
            },
            local.join(" x ")
        );
    }
    out
}

fn nests_text(a: &Analysis) -> String {
    if a.nests.is_empty() {
        return "no loop nest assigns a distributed array: every processor runs everything\n"
            .into();
    }
    let mut out = format!(
        "loop nests split over the {} processors (messages hoisted before each entry, reductions after):\n  unit             line   entries  split loops (array dim, largest share)       messages per entry\n",
        a.grid.processors()
    );
    for n in &a.nests {
        let splits: Vec<String> = n
            .partitions
            .iter()
            .map(|p| {
                let most = p.shares.iter().copied().fold(0.0, f64::max);
                if let Some(index) = p.fixed {
                    return format!(
                        "line {} loop run by the owner of {} index {index} (dim {})",
                        p.line,
                        p.array,
                        p.dim + 1
                    );
                }
                format!(
                    "{} ({} dim {}, {:.1}%{})",
                    if p.section {
                        "array statement"
                    } else {
                        p.var.as_str()
                    },
                    p.array,
                    p.dim + 1,
                    most * 100.0,
                    if p.exact { "" } else { " even split assumed" }
                )
            })
            .collect();
        let msgs: Vec<String> = n.messages.iter().map(|m| m.rule()).collect();
        out += &format!(
            "  {:<16} {:>4} {:>9}  {:<44} {}\n",
            n.unit_name,
            n.line,
            n.entries,
            splits.join(", "),
            if msgs.is_empty() {
                "none (every reference is local)".to_string()
            } else {
                msgs.join("; ")
            }
        );
    }
    out
}

/// The busiest rank's point-to-point transfers and bytes, and collectives per rank.
fn busiest(run: &MpiRun) -> (u64, i64, u64) {
    let mut most = (0u64, 0i64, 0u64);
    for t in &run.traces {
        let (mut n, mut b, mut c) = (0u64, 0i64, 0u64);
        for rec in &t.records {
            for s in &rec.steps {
                match s.event.op.as_str() {
                    "sendrecv" if s.event.peer >= 0 => {
                        n += rec.repeat;
                        b += s.event.bytes * rec.repeat as i64;
                    }
                    "init" | "finalize" | "sendrecv" => {}
                    _ => c += rec.repeat,
                }
            }
        }
        if (n, b) > (most.0, most.1) {
            most = (n, b, c);
        }
        most.2 = most.2.max(c);
    }
    most
}
