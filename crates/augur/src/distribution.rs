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
    /// `--distribute-alt`: other candidates, each replacing some arrays' distributions.
    pub alternatives: Vec<Vec<ArrayDistribution>>,
}

/// The outputs asked for.
pub struct How<'a> {
    /// The prediction's: the timeline (one grid), the sweep's figure (several), JSON (the
    /// MPI prediction's document), a report's figures.
    pub out: crate::simgrid::Outputs<'a>,
    /// Where to write the profile with the distributed traces.
    pub profile_out: Option<&'a Path>,
}

/// Distributes, reports the distribution and predicts it at each grid: what it prints
/// and its section of a report.
pub fn run(
    profile: &Path,
    machine: &augur_model::LoadedMachine,
    options: augur_model::PredictOptions,
    d: &DistributeArgs,
    mpi: &crate::simgrid::MpiPredict,
    how: &How<'_>,
) -> Result<crate::report::Beside> {
    if !d.alternatives.is_empty() {
        let out = &how.out;
        if out.gantt.is_some() || out.plot.is_some() || how.profile_out.is_some() {
            anyhow::bail!("--distribute-alt compares candidates in a table: --gantt, --plot and --profile-out take one distribution");
        }
        return rank_candidates(profile, machine, options, d, mpi, out.json);
    }
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
            &how.out,
        )?,
        _ => crate::rank_sweep::sweep(&dist.profile, profile, machine, options, &a, &how.out)?,
    };
    let text = report(profile, &dist, runs) + "\n";
    Ok(preceded(prediction, &text, &a.ranks, how.out.json))
}

/// The MPI prediction of a distribution at `procs` preceded by the distribution's
/// `report`, printed (unless JSON) and in its section.
fn preceded(
    mut prediction: crate::report::Beside,
    report: &str,
    procs: &[u32],
    json: bool,
) -> crate::report::Beside {
    if !json {
        prediction.printed.insert_str(0, report);
    }
    let section = &mut prediction.section;
    section.id = "distribution".into();
    section.title = format!(
        "Distributed: predicted at {} processors (owner-computes, SimGrid replay)",
        crate::predict::list_counts(procs)
    );
    section.lead = DISTRIBUTED_LEAD.into();
    section.text.insert_str(0, report);
    prediction
}

/// What the sequential page beside a distributed prediction is.
const DISTRIBUTED_LEAD: &str = "The predicted time above and the breakdowns below are the sequential program's as it is; here, as if its arrays were distributed (not an MPI run).";

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

/// One candidate at one processor count, as `--distribute-alt` ranks them.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct CandidateRow {
    /// The candidate's distributions (`u(*,BLOCK), unew WITH u`).
    pub candidate: String,
    /// Processors.
    pub procs: u32,
    /// The grid (`4`, `2x2`).
    pub grid: String,
    /// Predicted time, seconds (the run and the launch).
    pub seconds: f64,
    /// The slowest rank's computing, seconds.
    pub computing: f64,
    /// The ranks' mean time in MPI calls moving data, seconds.
    pub transmission: f64,
    /// The ranks' mean time in MPI calls waiting, seconds.
    pub waiting: f64,
    /// Point-to-point bytes sent by all ranks.
    pub bytes: u64,
    /// Point-to-point messages sent by all ranks.
    pub messages: u64,
    /// Collective calls per rank (the most of any rank).
    pub collectives: u64,
}

/// The body of `augur predict --distribute-alt ... --json`.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct RankingJson {
    /// Every candidate at every processor count, candidates in the order given.
    pub rows: Vec<CandidateRow>,
    /// The fastest candidate at each processor count, with why.
    pub winners: Vec<Winner>,
}

/// The fastest candidate at one processor count.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct Winner {
    /// Processors.
    pub procs: u32,
    /// The candidate.
    pub candidate: String,
    /// Why it beats the next fastest, in words.
    pub reason: String,
}

/// `--distribute-alt`: each candidate (the base, then each alternative) distributed and
/// predicted at every processor count, ranked; what it prints and its section of a
/// report (the ranking).
pub fn rank_candidates(
    profile: &Path,
    machine: &augur_model::LoadedMachine,
    options: augur_model::PredictOptions,
    d: &DistributeArgs,
    mpi: &crate::simgrid::MpiPredict,
    json: bool,
) -> Result<crate::report::Beside> {
    let program = augur_program_profile::ProgramProfile::read(profile)?;
    let mut candidates = vec![d.arrays.clone()];
    for alt in &d.alternatives {
        let mut c: Vec<ArrayDistribution> = d
            .arrays
            .iter()
            .filter(|a| !alt.iter().any(|b| b.array == a.array))
            .cloned()
            .collect();
        c.extend(alt.iter().cloned());
        candidates.push(c);
    }
    let mut how = mpi.options();
    how.timeline = true;
    let mut rows = vec![];
    for c in &candidates {
        let dist = augur_program::distribute::distribute(&program, c, &d.grids)
            .map_err(anyhow::Error::msg)
            .with_context(|| format!("{}", profile.display()))?;
        let label = label_of(&dist.distributions);
        let runs = dist
            .profile
            .mpi
            .as_ref()
            .map(|m| m.runs.clone())
            .unwrap_or_default();
        for (a, run) in dist.analyses.iter().zip(&runs) {
            let p = augur_simgrid::predict_ranks(
                &dist.profile,
                &machine.profile,
                options,
                run.ranks,
                &how,
            )
            .with_context(|| format!("{label} at {} processors", run.ranks))?;
            rows.push(row(&label, a, &p));
        }
    }
    let winners = winners(&rows);
    let text = ranking_text(profile, machine, &rows, &winners);
    let procs: Vec<u32> = winners.iter().map(|w| w.procs).collect();
    let printed = if json {
        let doc = crate::schemas::Document::new(
            "augur-distribution-ranking",
            RankingJson { rows, winners },
        );
        serde_json::to_string_pretty(&doc)? + "\n"
    } else {
        text.clone()
    };
    let section = crate::report::Section {
        id: "distribution".into(),
        title: format!(
            "Distributions compared at {} processors (owner-computes, SimGrid replay)",
            crate::predict::list_counts(&procs)
        ),
        lead: DISTRIBUTED_LEAD.into(),
        text,
        figures: vec![],
    };
    Ok(crate::report::Beside { printed, section })
}

/// The candidate as written: distributed arrays first, then the alignments.
fn label_of(distributions: &[ArrayDistribution]) -> String {
    let mut sorted: Vec<&ArrayDistribution> = distributions.iter().collect();
    sorted.sort_by_key(|d| d.rule.target().is_some());
    let v: Vec<String> = sorted.iter().map(|x| x.to_string()).collect();
    v.join(", ")
}

fn row(label: &str, a: &Analysis, p: &augur_simgrid::RanksPrediction) -> CandidateRow {
    let ranks = p
        .timeline
        .as_ref()
        .map(|t| t.ranks.clone())
        .unwrap_or_default();
    let n = ranks.len().max(1) as f64;
    let sum =
        |f: fn(&augur_simgrid::timeline::RankTime) -> f64| ranks.iter().map(f).sum::<f64>() / n;
    let all = |v: &Vec<Vec<u64>>| v.iter().flatten().sum::<u64>();
    CandidateRow {
        candidate: label.to_string(),
        procs: p.ranks,
        grid: a.grid.to_string(),
        seconds: p.seconds,
        computing: p.compute.iter().copied().fold(0.0, f64::max),
        transmission: sum(|r| r.transmission),
        waiting: sum(|r| r.waiting),
        bytes: all(&p.matrix.bytes),
        messages: all(&p.matrix.messages),
        collectives: p.matrix.collective.iter().map(|c| c.0).max().unwrap_or(0),
    }
}

/// The fastest candidate at each processor count and why it beats the next.
fn winners(rows: &[CandidateRow]) -> Vec<Winner> {
    let mut procs: Vec<u32> = rows.iter().map(|r| r.procs).collect();
    procs.sort_unstable();
    procs.dedup();
    procs
        .into_iter()
        .filter_map(|p| {
            let mut at: Vec<&CandidateRow> = rows.iter().filter(|r| r.procs == p).collect();
            at.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
            let best = at.first()?;
            let reason = match at.get(1) {
                None => "the only candidate".to_string(),
                Some(next) => why(best, next),
            };
            Some(Winner {
                procs: p,
                candidate: best.candidate.clone(),
                reason,
            })
        })
        .collect()
}

/// The largest of the differences in time between `best` and `next`, said.
fn why(best: &CandidateRow, next: &CandidateRow) -> String {
    let s = crate::predict::fmt_seconds;
    if next.seconds - best.seconds < 0.01 * best.seconds {
        return format!(
            "a tie: {} is within 1%, less than the model can tell apart",
            next.candidate
        );
    }
    let parts = [
        (
            next.computing - best.computing,
            "less computing on the slowest rank (the work split more evenly)",
        ),
        (
            next.transmission - best.transmission,
            "less time moving data",
        ),
        (next.waiting - best.waiting, "less waiting for other ranks"),
    ];
    let (gain, what) = parts
        .iter()
        .copied()
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap_or((0.0, "the same"));
    let bytes = if best.bytes != next.bytes {
        format!("; {} bytes sent against {}", best.bytes, next.bytes)
    } else {
        String::new()
    };
    format!(
        "{} faster than {}: {what} ({} less){bytes}",
        s(next.seconds - best.seconds),
        next.candidate,
        s(gain.max(0.0))
    )
}

fn ranking_text(
    profile: &Path,
    machine: &augur_model::LoadedMachine,
    rows: &[CandidateRow],
    winners: &[Winner],
) -> String {
    let s = crate::predict::fmt_seconds;
    let mut out = format!(
        "augur distributions compared: {} on {}, each candidate distributed under owner-computes and replayed by SimGrid\n",
        profile.display(),
        machine.name
    );
    out += "  candidate                                 procs  grid        predicted    computing  transmission      waiting        bytes\n";
    for r in rows {
        let fastest = winners
            .iter()
            .any(|w| w.procs == r.procs && w.candidate == r.candidate);
        out += &format!(
            "  {:<40} {:>6}  {:<6} {:>12}{} {:>12} {:>13} {:>12} {:>12}\n",
            r.candidate,
            r.procs,
            r.grid,
            s(r.seconds),
            if fastest { "*" } else { " " },
            s(r.computing),
            s(r.transmission),
            s(r.waiting),
            r.bytes
        );
    }
    out += "the fastest at each processor count (* above):\n";
    for w in winners {
        out += &format!("  {:>6}: {} ({})\n", w.procs, w.candidate, w.reason);
    }
    out
}
