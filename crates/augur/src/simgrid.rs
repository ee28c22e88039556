//! `augur platform`: a cluster description turned into a SimGrid platform.

use anyhow::{Context, Result};
use augur_machine_profile::MachineProfile;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Reads the cluster file, writes the platform XML to `output` and its host file next to
/// it (`.hosts`), and prints the `smpirun` command that replays traces on it.
pub fn platform(cluster: &Path, output: &Path) -> Result<ExitCode> {
    let c = augur_simgrid::Cluster::read(cluster)?;
    let mpi = match &c.machine {
        Some(m) if c.intra.is_none() => {
            let profile = MachineProfile::read(m)?;
            let mpi = profile.mpi.with_context(|| {
                format!(
                    "{}: the machine profile {} has no [mpi] section: {}",
                    cluster.display(),
                    m.display(),
                    crate::cli::measure_advice(m, |f| format!("augur characterize --mpi -o {f}"))
                )
            })?;
            Some(mpi)
        }
        _ => None,
    };
    let p = c
        .platform(mpi.as_ref(), &augur_simgrid::WhatIf::default())
        .map_err(|e| anyhow::anyhow!("{}: {e}", cluster.display()))?;
    let hosts = output.with_extension("hosts");
    crate::cli::write_atomically(output, p.xml.as_bytes())?;
    crate::cli::write_atomically(&hosts, p.hostfile.as_bytes())?;
    println!(
        "platform {} ({} nodes x {} cores = {} ranks, {:?}); host file {}",
        output.display(),
        c.nodes,
        c.cores_per_node,
        p.ranks,
        c.topology,
        hosts.display()
    );
    if let Some(m) = &c.machine {
        if c.intra.is_none() {
            println!(
                "the link inside a node and SMPI's factors by message size from {}'s measured ping-pong",
                m.display()
            );
        }
    }
    println!(
        "replay time-independent traces with:\n  smpirun -np {} -platform {} -hostfile {} -replay TRACES {} /usr/lib/x86_64-linux-gnu/simgrid/smpireplaymain",
        p.ranks,
        output.display(),
        hosts.display(),
        p.config
            .iter()
            .map(|c| format!("'{c}'"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    Ok(ExitCode::SUCCESS)
}

/// The body of `augur predict --mpi-ranks P --json`.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct RanksJson<'a> {
    /// Ranks.
    ranks: u32,
    /// The predicted wall-clock time of the job: the simulated time plus the launch, seconds.
    seconds: f64,
    /// The simulated time (SimGrid), seconds.
    simulated: f64,
    /// The launch (`mpirun`, MPI_Init, MPI_Finalize), seconds, as the cluster file's machine
    /// or else the machine measured it; 0 when neither did.
    startup: f64,
    /// The largest rank count the launch was measured at (absent: not measured).
    launch_measured_up_to: Option<u32>,
    /// The 90% interval (the slowest rank's computing off by the sequential model's error).
    interval: Interval90,
    /// The factor either way the slowest rank's computing takes in the interval.
    compute_factor: f64,
    /// What the user must know before reading the time (work that ran out at this count).
    warnings: &'a [String],
    /// The cluster replayed on: nodes.
    nodes: u32,
    /// Cores per node.
    cores_per_node: u32,
    /// Each rank's MPI calls.
    calls: &'a [u64],
    /// Where each rank's time went.
    timeline: Option<TimelineJson<'a>>,
    /// Bytes and messages between each pair of ranks.
    matrix: &'a augur_simgrid::matrix::Matrix,
    /// The rank counts the traces were extrapolated from (empty: traced at `ranks`).
    extrapolated_from: &'a [u32],
}

/// A 90% interval, seconds.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Interval90 {
    /// Low end.
    pub low: f64,
    /// High end.
    pub high: f64,
}

/// The replayed timeline: per rank and per call site.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct TimelineJson<'a> {
    /// By rank.
    ranks: &'a [augur_simgrid::timeline::RankTime],
    /// By call site, most waiting first.
    sites: &'a [augur_simgrid::timeline::SiteTime],
}

/// What `augur predict --mpi-ranks` was given.
#[derive(Debug, Clone)]
pub struct MpiPredict {
    /// The rank counts (one: a prediction with its timeline; several: a sweep).
    pub ranks: Vec<u32>,
    /// OpenMP threads per rank (a hybrid program; 1: one).
    pub threads: u32,
    /// The cluster file (default: one node of the machine).
    pub cluster: Option<PathBuf>,
    /// Changes to the network and the cores.
    pub what_if: augur_simgrid::WhatIf,
    /// Where to write the communication matrix (CSV).
    pub matrix: Option<PathBuf>,
    /// Replay every call of a long run (no sampling).
    pub full_replay: bool,
}

impl MpiPredict {
    /// How SimGrid replays each count: where, the what-ifs, the threads of each rank, with
    /// the timeline read back.
    pub fn options(&self) -> augur_simgrid::RanksOptions<'_> {
        augur_simgrid::RanksOptions {
            cluster: self.cluster.as_deref(),
            what_if: self.what_if,
            timeline: true,
            threads: self.threads,
            full_replay: self.full_replay,
        }
    }
}

/// The outputs an MPI prediction is asked for besides its tables.
pub struct Outputs<'a> {
    /// The per-rank timeline's file (one rank count).
    pub gantt: Option<&'a Path>,
    /// The sweep's figure file (several rank counts).
    pub plot: Option<&'a Path>,
    /// JSON instead of text.
    pub json: bool,
    /// Draw the figure for a report too (`--report`).
    pub draw: bool,
}

/// `augur predict PROFILE --mpi-ranks P [--cluster FILE] [what-ifs]`: every rank's compute
/// segments priced by the sequential model on `machine`, its MPI calls replayed by SimGrid
/// on the cluster (default: one node of `machine` with P cores, its measured `[mpi]`
/// network between the ranks); per rank its computing, transmission and waiting, the call
/// sites, the communication matrix, and the timeline (`gantt`). Several counts: a sweep.
pub fn predict(
    profile: &Path,
    machine: &augur_model::LoadedMachine,
    options: augur_model::PredictOptions,
    a: &MpiPredict,
    out: &Outputs<'_>,
) -> Result<crate::report::Beside> {
    let program = augur_program_profile::ProgramProfile::read(profile)?;
    let &[ranks] = &a.ranks[..] else {
        if a.matrix.is_some() || out.gantt.is_some() {
            anyhow::bail!(
                "--matrix and --gantt take one rank count (--mpi-ranks {}): a sweep of {:?} draws its figure with --plot",
                a.ranks.last().copied().unwrap_or(1),
                a.ranks
            );
        }
        return crate::rank_sweep::sweep(&program, profile, machine, options, a, out);
    };
    if out.plot.is_some() {
        anyhow::bail!("--plot with --mpi-ranks needs several rank counts (--mpi-ranks 1,2,4,8)");
    }
    predict_one(&program, profile, machine, options, a, ranks, out)
}

/// The section of a report holding an MPI prediction at `ranks` of `program` (its
/// `text` and `figures`): what the sequential page beside it is.
pub(crate) fn section(
    program: &augur_program_profile::ProgramProfile,
    ranks: &[u32],
    text: String,
    figures: Vec<crate::figure_style::Drawn>,
) -> crate::report::Section {
    let first = program
        .mpi
        .as_ref()
        .and_then(|m| m.runs.first())
        .map_or(1, |r| r.ranks);
    crate::report::Section {
        id: "mpi".into(),
        title: format!(
            "MPI: predicted at {} ranks (SimGrid replay)",
            crate::predict::list_counts(ranks)
        ),
        lead: format!("The predicted time above and the breakdowns below are the sequential model of the profile's counts: rank 0's computing in the run at {first} ranks, the time inside its MPI calls left out; here, the whole job replayed."),
        text,
        figures,
    }
}

/// [`predict`] at one rank count of a profile already read (`profile`: its name in the
/// report).
pub fn predict_one(
    program: &augur_program_profile::ProgramProfile,
    profile: &Path,
    machine: &augur_model::LoadedMachine,
    options: augur_model::PredictOptions,
    a: &MpiPredict,
    ranks: u32,
    out: &Outputs<'_>,
) -> Result<crate::report::Beside> {
    let how = a.options();
    let p = augur_simgrid::predict_ranks(program, &machine.profile, options, ranks, &how)
        .with_context(|| format!("{}", profile.display()))?;
    if let Some(path) = &a.matrix {
        crate::cli::write_atomically(path, p.matrix.csv().as_bytes())?;
        eprintln!("augur: communication matrix written to {}", path.display());
    }
    let mut figures = crate::report::Figures::new(out.draw);
    if let Some(t) = &p.timeline {
        let mut name = crate::figure_style::program_name(program, profile);
        if is_distributed(program) {
            name += " as distributed";
        }
        let caption = format!("Each rank's timeline at {ranks} ranks on {}", machine.name);
        let draw = || rank_gantt(&name, &machine.name, &p, t);
        if let Some(path) = figures.add(out.gantt, caption, draw)? {
            eprintln!("augur: per-rank timeline written to {}", path.display());
        }
    }
    let tables = report(profile, machine, a, &p);
    let printed = if out.json { json(&p)? } else { tables.clone() };
    let section = section(program, &[ranks], tables, figures.drawn);
    Ok(crate::report::Beside { printed, section })
}

/// Whether `program`'s traces were made by `--distribute`/`--procs` rather than traced.
pub(crate) fn is_distributed(program: &augur_program_profile::ProgramProfile) -> bool {
    program
        .notes
        .iter()
        .any(|n| n.starts_with("distributed, not traced"))
}

/// `augur predict --mpi-ranks P --json`: the prediction as a JSON document.
fn json(p: &augur_simgrid::RanksPrediction) -> Result<String> {
    let body = RanksJson {
        ranks: p.ranks,
        seconds: p.seconds,
        simulated: p.simulated,
        startup: p.startup,
        launch_measured_up_to: p.launch_measured_up_to,
        interval: Interval90 {
            low: p.interval.0,
            high: p.interval.1,
        },
        compute_factor: p.compute_factor,
        warnings: &p.warnings,
        nodes: p.nodes,
        cores_per_node: p.cores_per_node,
        calls: &p.calls,
        timeline: p.timeline.as_ref().map(|t| TimelineJson {
            ranks: &t.ranks,
            sites: &t.sites,
        }),
        matrix: &p.matrix,
        extrapolated_from: &p.extrapolated_from,
    };
    let doc = crate::schemas::Document::new("augur-rank-prediction", body);
    Ok(serde_json::to_string_pretty(&doc)? + "\n")
}

/// The text report of an MPI prediction.
fn report(
    profile: &Path,
    machine: &augur_model::LoadedMachine,
    a: &MpiPredict,
    p: &augur_simgrid::RanksPrediction,
) -> String {
    let s = crate::predict::fmt_seconds;
    let mut out = format!(
        "augur MPI prediction: {} at {} ranks on {} ({} node(s) x {} cores), replayed by SimGrid\n",
        profile.display(),
        p.ranks,
        machine.name,
        p.nodes,
        p.cores_per_node,
    );
    if !p.extrapolated_from.is_empty() {
        out += &format!(
            "traces extrapolated from those at {:?} ranks (each role's pattern, its numbers by their model of the rank count)\n",
            p.extrapolated_from
        );
    }
    for w in &p.warnings {
        out += &format!("warning: {w}\n");
    }
    if a.what_if != augur_simgrid::WhatIf::default() {
        out += &format!("what if: {}\n", what_if_text(&a.what_if));
    }
    out += &format!("predicted time {} ({})\n", s(p.seconds), time_parts(p));
    out += &format!(
        "  90% interval {} .. {} (the slowest rank's computing off by the sequential model's factor of {:.2} either way; the transmissions and the launch as measured)\n",
        s(p.interval.0),
        s(p.interval.1),
        p.compute_factor
    );
    match p.launch_measured_up_to {
        Some(most) if p.ranks > most || p.nodes > 1 => {
            out += &format!(
                "  (the launch was measured on one node up to {most} ranks: its time at {most} is used at {} ranks{})\n",
                p.ranks,
                if p.nodes > 1 { format!(" on {} nodes", p.nodes) } else { String::new() }
            );
        }
        _ => {}
    }
    if let Some(t) = &p.timeline {
        out += &ranks_table(p, t);
        out += &sites_table(t);
    }
    out += &matrix_text(&p.matrix);
    out
}

/// What a predicted time is made of, said the same way in every view: the run (SimGrid's
/// replay, MPI_Init to MPI_Finalize) and the job's launch.
fn time_parts(p: &augur_simgrid::RanksPrediction) -> String {
    let s = crate::predict::fmt_seconds;
    match p.launch_measured_up_to {
        Some(_) => format!(
            "the run {} + the job's launch, MPI_Init and MPI_Finalize {}",
            s(p.simulated),
            s(p.startup)
        ),
        None => "the run alone: no profile measured the job's launch (`augur characterize --mpi`)"
            .to_string(),
    }
}

/// Per rank: computing, transmission, waiting, calls.
fn ranks_table(
    p: &augur_simgrid::RanksPrediction,
    t: &augur_simgrid::timeline::Timeline,
) -> String {
    let s = crate::predict::fmt_seconds;
    let mut out = "  rank    computing  transmission      waiting  MPI calls\n".to_string();
    for (r, (rt, calls)) in t.ranks.iter().zip(&p.calls).enumerate() {
        out += &format!(
            "  {:>4} {:>12} {:>13} {:>12} {:>10}\n",
            r,
            s(rt.compute),
            s(rt.transmission),
            s(rt.waiting),
            calls
        );
    }
    out
}

/// The MPI call sites, most time first.
fn sites_table(t: &augur_simgrid::timeline::Timeline) -> String {
    let s = crate::predict::fmt_seconds;
    let mut out = "MPI call sites (time summed over the ranks):\n  call site                        calls  transmission      waiting  waited most\n".to_string();
    for site in t.sites.iter().take(12) {
        out += &format!(
            "  {:<30} {:>7} {:>13} {:>12}  rank {} ({})\n",
            site.label,
            site.calls,
            s(site.transmission),
            s(site.waiting),
            site.worst_rank.0,
            s(site.worst_rank.1)
        );
    }
    out
}

/// The communication matrix's totals and its largest pairs.
fn matrix_text(m: &augur_simgrid::matrix::Matrix) -> String {
    let pairs = m.pairs();
    let bytes: u64 = pairs.iter().map(|p| p.2).sum();
    let msgs: u64 = pairs.iter().map(|p| p.3).sum();
    let coll: u64 = m.collective.iter().map(|c| c.0).sum();
    let mut out = format!(
        "point to point: {bytes} bytes in {msgs} messages between {} pairs of ranks; {coll} collective calls\n",
        pairs.len()
    );
    for (a, b, bytes, msgs) in pairs.iter().take(8) {
        out += &format!("  {a} -> {b}: {bytes} bytes in {msgs} messages\n");
    }
    out
}

fn what_if_text(w: &augur_simgrid::WhatIf) -> String {
    let change = |c: augur_simgrid::Change, unit: &str| match c {
        augur_simgrid::Change::Same => "as measured".to_string(),
        augur_simgrid::Change::Times(f) => format!("{f} times"),
        augur_simgrid::Change::To(v) => format!("{v} {unit}"),
    };
    format!(
        "latency {}, bandwidth {}, cores {} times as fast",
        change(w.latency, "us"),
        change(w.bandwidth, "GB/s"),
        w.cpu_speed
    )
}

/// The per-rank timeline: each rank's stretches of computing, transmission and waiting
/// (beyond a screenful of ranks, bands of consecutive ranks: `crate::gantt`).
fn rank_gantt(
    program: &str,
    machine: &str,
    p: &augur_simgrid::RanksPrediction,
    t: &augur_simgrid::timeline::Timeline,
) -> Result<String, String> {
    use augur_simgrid::timeline::{State, BINS};
    use plotters::style::RGBColor;
    let palette = crate::figure_style::PALETTE;
    let color = |st: State| match st {
        State::Compute => palette[0],
        State::Transmission => palette[2],
        State::Waiting => palette[4],
    };
    let width = t.end / BINS as f64;
    let mut bars = vec![];
    for (rank, bins) in t.bins.iter().enumerate() {
        let mut k = 0;
        while k < bins.len() {
            let mut j = k + 1;
            while j < bins.len() && bins[j] == bins[k] {
                j += 1;
            }
            if let Some(st) = bins[k] {
                bars.push(crate::gantt::Bar {
                    row: rank,
                    from: k as f64 * width,
                    to: j as f64 * width,
                    color: color(st),
                });
            }
            k = j;
        }
    }
    let rows: Vec<String> = (0..t.bins.len()).map(|r| format!("rank {r}")).collect();
    let legend: [(&str, RGBColor); 3] = [
        ("computing", color(State::Compute)),
        ("MPI: transmission", color(State::Transmission)),
        ("MPI: waiting", color(State::Waiting)),
    ];
    let title = crate::figure_style::title(
        &format!("Per-rank timeline at {} ranks (SimGrid replay)", p.ranks),
        program,
        machine,
    );
    let subtitle = format!(
        "predicted {}: {}; the run is drawn",
        crate::figure_style::fmt_time(p.seconds),
        time_parts(p)
    );
    crate::gantt::figure(&title, &subtitle, "rank", &rows, &bars, &legend, t.end)
}
