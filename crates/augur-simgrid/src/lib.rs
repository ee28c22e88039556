//! SimGrid for augur: a cluster described in TOML turned into a SimGrid platform
//! ([`Cluster::platform`]), and time-independent traces replayed on it by SMPI
//! ([`replay`]); the MPI events of a profile turned into the replayer's actions
//! ([`actions`]).
//!
//! A cluster is `nodes` hosts of `cores_per_node` cores (one MPI rank per core), a link
//! between the ranks of a node (SimGrid's loopback) and one between nodes, wired flat (every
//! node on one switch), as a fat tree or as a torus (SimGrid's cluster topologies). A
//! cluster of one node is written as one single-core host per core, each with a private
//! link of half the link's latency (a message crosses two): a rank's message to another
//! takes what it takes through the loopback, pairs of ranks exchange at the same time as
//! a node's shared-memory transport lets them, and SimGrid solves each host and link
//! apart instead of all ranks on one multi-core host and one loopback (1,024 ranks of a
//! pipelined wavefront: 47 s to replay instead of 267 s). The
//! link inside a node can come from a machine profile's measured `[mpi]` section: its
//! eager protocol's latency and bandwidth make the link, and SMPI's piecewise latency and
//! bandwidth factors (`smpi/lat-factor`, `smpi/bw-factor`, by message size) carry the
//! empty message's latency and the rendezvous protocol's, so that a replayed ping-pong
//! takes what the measured one took. (SMPI's factors are global: they scale the links
//! between nodes alike.)

pub mod actions;

use augur_machine_profile::mpi::MpiProfile;
use augur_machine_profile::MachineProfile;
use augur_program_profile::mpi::Record;
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub mod matrix;
pub mod online;
pub mod sampled;
pub mod timeline;

/// A cluster as a user describes it (TOML; see docs/FORMATS.md).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cluster {
    /// A name (the platform's zone id).
    pub name: String,
    /// Nodes (hosts).
    pub nodes: u32,
    /// Cores per node: MPI ranks per node.
    pub cores_per_node: u32,
    /// Floating-point operations per second of a core, in Gflop/s: the replayed traces
    /// give their compute segments in operations (augur writes seconds times this speed).
    #[serde(default = "one_gflops")]
    pub core_speed_gflops: f64,
    /// The link between the ranks of a node; taken from `machine` when absent.
    #[serde(default)]
    pub intra: Option<Link>,
    /// The link between nodes (each node's link to its switch).
    pub inter: Link,
    /// How the nodes are wired.
    #[serde(default)]
    pub topology: Topology,
    /// A machine profile with an `[mpi]` section (`augur characterize --mpi`): the link
    /// inside a node as measured there, relative to the cluster file's directory.
    #[serde(default)]
    pub machine: Option<PathBuf>,
}

fn one_gflops() -> f64 {
    1.0
}

/// A link's latency and bandwidth.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    /// Microseconds.
    pub latency_us: f64,
    /// Gigabytes per second.
    pub bandwidth_gbs: f64,
}

/// How the nodes of a cluster are wired (SimGrid's cluster topologies).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Topology {
    /// Every node on one switch (SimGrid's default cluster).
    #[default]
    Flat,
    /// A fat tree in SimGrid's notation, e.g. `2;4,4;1,2;1,2` (levels; down links per
    /// level; up links per level; parallel links): its leaves are the product of the
    /// down links.
    FatTree {
        /// SimGrid's `topo_parameters`.
        parameters: String,
    },
    /// A torus of these dimensions (their product is the node count).
    Torus {
        /// Nodes along each dimension.
        dimensions: Vec<u32>,
    },
}

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum SimGridError {
    /// The cluster file cannot be read or parsed.
    #[error("{path}: {message}")]
    Cluster {
        /// The file.
        path: PathBuf,
        /// What is wrong, and what to do.
        message: String,
    },
    /// SimGrid's `smpirun` or its trace replayer is missing.
    #[error(
        "{tool} was not found: install SimGrid (Debian: apt-get install libsimgrid-dev simgrid)"
    )]
    Missing {
        /// What is missing.
        tool: String,
    },
    /// The profiles do not allow the prediction asked for (what to do is in the text).
    #[error("{0}")]
    Input(String),
    /// The replay failed.
    #[error("the SimGrid replay failed: {0}")]
    Replay(String),
    /// Interrupted.
    #[error("interrupted")]
    Cancelled,
}

/// A SimGrid platform: the XML, the host file (one line per host, `host:ranks`), and the
/// SMPI configuration its links need.
#[derive(Debug, Clone, PartialEq)]
pub struct Platform {
    /// The platform XML.
    pub xml: String,
    /// The host file for `smpirun -hostfile`.
    pub hostfile: String,
    /// `--cfg=...` options for `smpirun`.
    pub config: Vec<String>,
    /// Ranks the host file places (nodes times cores).
    pub ranks: u32,
}

impl Cluster {
    /// Reads and checks a cluster file; a relative `machine` is a file next to it, or else
    /// a profile of the library by name (`gfortran12-O2-epyc-zen4-2core`), so that a copy of
    /// the file elsewhere still finds it.
    pub fn read(path: &Path) -> Result<Cluster, SimGridError> {
        let bad = |message: String| SimGridError::Cluster {
            path: path.to_path_buf(),
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read: {e}")))?;
        let mut c: Cluster = toml::from_str(&text).map_err(|e| bad(e.to_string()))?;
        if let Some(m) = &c.machine {
            let beside = path.parent().unwrap_or(Path::new("")).join(m);
            c.machine = Some(if beside.is_file() {
                beside
            } else {
                augur_machine_profile::library::resolve(&m.to_string_lossy()).map_err(|_| {
                    bad(format!(
                        "machine = {m:?} is neither a file next to the cluster file ({}) nor a profile of the library: give a path or a name `augur machines` lists",
                        beside.display()
                    ))
                })?
            });
        }
        c.check().map_err(bad)?;
        Ok(c)
    }

    /// The checks a cluster must pass before SimGrid sees it, each with what to do.
    pub fn check(&self) -> Result<(), String> {
        if self.nodes == 0 || self.cores_per_node == 0 {
            return Err("`nodes` and `cores_per_node` must be at least 1".into());
        }
        if !positive(self.core_speed_gflops) {
            return Err("`core_speed_gflops` must be positive".into());
        }
        let links = [Some(self.inter), self.intra];
        if links
            .iter()
            .flatten()
            .any(|l| !(positive(l.latency_us) || l.latency_us == 0.0) || !positive(l.bandwidth_gbs))
        {
            return Err("a link needs `latency_us` >= 0 and `bandwidth_gbs` > 0".into());
        }
        if self.intra.is_none() && self.machine.is_none() {
            return Err("give the link inside a node: `[intra]` or `machine = \"PROFILE.toml\"` (a profile measured by `augur characterize --mpi`)".into());
        }
        let wired = match &self.topology {
            Topology::Flat => self.nodes,
            Topology::Torus { dimensions } => dimensions.iter().product(),
            Topology::FatTree { parameters } => fat_tree_leaves(parameters)?,
        };
        if wired != self.nodes {
            return Err(format!(
                "the topology connects {wired} nodes but `nodes` is {}: make them agree",
                self.nodes
            ));
        }
        Ok(())
    }

    /// The SimGrid platform of this cluster; `mpi` is the measured network of the machine
    /// profile named by `machine` (required when `intra` is absent).
    pub fn platform(&self, mpi: Option<&MpiProfile>, what_if: &WhatIf) -> Result<Platform, String> {
        let (intra, config) = match (self.intra, mpi) {
            (Some(l), _) => (what_if.link(l), vec![]),
            (None, Some(m)) => measured_link(&what_if.network(m))?,
            (None, None) => return Err("no link inside a node: `[intra]` or `machine`".into()),
        };
        let inter = what_if.link(self.inter);
        if !(positive(intra.latency_us) || intra.latency_us == 0.0)
            || !positive(intra.bandwidth_gbs)
            || !positive(inter.bandwidth_gbs)
        {
            return Err(
                "a what-if left a link without a positive bandwidth or with a negative latency"
                    .into(),
            );
        }
        let topology = match &self.topology {
            Topology::Flat => String::new(),
            Topology::FatTree { parameters } => {
                format!(" topology=\"FAT_TREE\" topo_parameters=\"{parameters}\"")
            }
            Topology::Torus { dimensions } => {
                let dims: Vec<String> = dimensions.iter().map(u32::to_string).collect();
                format!(" topology=\"TORUS\" topo_parameters=\"{}\"", dims.join(","))
            }
        };
        if self.nodes == 1 {
            return Ok(self.one_node(intra, config));
        }
        let mut xml = String::from(PLATFORM_HEAD);
        let _ = writeln!(
            xml,
            "  <cluster id=\"{}\" prefix=\"node-\" suffix=\"\" radical=\"0-{}\" speed=\"{}Gf\" core=\"{}\" bw=\"{}GBps\" lat=\"{}us\" loopback_bw=\"{}GBps\" loopback_lat=\"{}us\"{topology}/>",
            xml_name(&self.name),
            self.nodes - 1,
            num(self.core_speed_gflops),
            self.cores_per_node,
            num(inter.bandwidth_gbs),
            num(inter.latency_us),
            num(intra.bandwidth_gbs),
            num(intra.latency_us),
        );
        xml.push_str(PLATFORM_TAIL);
        let hostfile: String = (0..self.nodes)
            .map(|n| format!("node-{n}:{}\n", self.cores_per_node))
            .collect();
        Ok(Platform {
            xml,
            hostfile,
            config,
            ranks: self.nodes * self.cores_per_node,
        })
    }
}

impl Cluster {
    /// One node as one single-core host per core, each with a private link of half the
    /// link `intra`'s latency and its bandwidth (see the module's documentation).
    fn one_node(&self, intra: Link, config: Vec<String>) -> Platform {
        let mut xml = String::from(PLATFORM_HEAD);
        let _ = writeln!(
            xml,
            "  <cluster id=\"{}\" prefix=\"node-\" suffix=\"\" radical=\"0-{}\" speed=\"{}Gf\" core=\"1\" bw=\"{}GBps\" lat=\"{}us\" loopback_bw=\"{}GBps\" loopback_lat=\"{}us\"/>",
            xml_name(&self.name),
            self.cores_per_node - 1,
            num(self.core_speed_gflops),
            num(intra.bandwidth_gbs),
            num(intra.latency_us / 2.0),
            num(intra.bandwidth_gbs),
            num(intra.latency_us),
        );
        xml.push_str(PLATFORM_TAIL);
        Platform {
            xml,
            hostfile: (0..self.cores_per_node)
                .map(|n| format!("node-{n}:1\n"))
                .collect(),
            config,
            ranks: self.cores_per_node,
        }
    }
}

/// The opening of a platform file.
const PLATFORM_HEAD: &str = "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n";

/// Its end.
const PLATFORM_TAIL: &str = "</platform>\n";

/// Whether `x` is a number above zero (not NaN).
fn positive(x: f64) -> bool {
    x.is_finite() && x > 0.0
}

/// The leaves of a fat tree in SimGrid's notation `levels;down;up;parallel`.
fn fat_tree_leaves(parameters: &str) -> Result<u32, String> {
    let bad = || {
        format!("fat tree `{parameters}`: expected SimGrid's `levels;down,...;up,...;parallel,...`, e.g. `2;4,4;1,2;1,2`")
    };
    let parts: Vec<&str> = parameters.split(';').collect();
    let [levels, down, up, parallel] = parts[..] else {
        return Err(bad());
    };
    let levels: usize = levels.trim().parse().map_err(|_| bad())?;
    let list = |s: &str| -> Result<Vec<u32>, String> {
        let v: Result<Vec<u32>, _> = s.split(',').map(|x| x.trim().parse()).collect();
        v.ok().filter(|v| v.len() == levels).ok_or_else(bad)
    };
    let down = list(down)?;
    list(up)?;
    list(parallel)?;
    Ok(down.iter().product())
}

/// A number as the platform writes it: nine decimals at most, no trailing zeros.
fn num(x: f64) -> String {
    let s = format!("{x:.9}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A name safe inside an XML attribute.
fn xml_name(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The link inside a node from a measured network, and SMPI's factors by message size
/// (SMPI's own calibration method: a piecewise-linear model of the ping-pong): the link
/// has the empty message's latency and the first protocol's bandwidth; from each
/// measured size on (up to the next), the latency and bandwidth factors make the time the
/// straight line through that size's measured time and the next one's, so that a replayed ping-pong takes the measured time at every
/// measured size and in between. (A decrease between two sizes, noise, is taken as flat.)
fn measured_link(m: &MpiProfile) -> Result<(Link, Vec<String>), String> {
    let Some(base) = m.protocols.first() else {
        return Err("the machine's [mpi] section has no protocol fitted: measure it again with `augur characterize --mpi`".into());
    };
    // The empty message's time on the link itself: SMPI applies no factor to size 0.
    let (lat0, bw0) = (m.latency_seconds.max(1e-9), base.bytes_per_second);
    let mut lat = vec![];
    let mut bw = vec![];
    for w in m.pingpongs.windows(2) {
        let (b0, t0) = (w[0].bytes as f64, w[0].seconds);
        let (b1, t1) = (w[1].bytes as f64, w[1].seconds);
        // Seconds per byte (at least a picosecond: SMPI divides by the bandwidth).
        let mut slope = ((t1 - t0) / (b1 - b0)).max(1e-12);
        // SMPI sends the envelope too: `s` bytes take `(s + 16) / bandwidth`.
        let sent = b0 + SMPI_ENVELOPE_BYTES as f64;
        let mut intercept = t0 - slope * sent;
        if intercept < 0.0 {
            // Steeper than through the origin: the line through the origin and this
            // size's time (the next entry takes over at the next size).
            intercept = 0.0;
            slope = t0 / sent;
        }
        let from = w[0].bytes + SMPI_ENVELOPE_BYTES - 1;
        lat.push((from, intercept / lat0));
        bw.push((from, 1.0 / (slope * bw0)));
    }
    // The largest size measured: through the origin from there on (a constant bandwidth),
    // so that it too takes its measured time.
    if let Some(last) = m.pingpongs.last().filter(|t| t.bytes > 0) {
        let sent = (last.bytes + SMPI_ENVELOPE_BYTES) as f64;
        lat.push((last.bytes + SMPI_ENVELOPE_BYTES - 1, 0.0));
        bw.push((
            last.bytes + SMPI_ENVELOPE_BYTES - 1,
            sent / (last.seconds * bw0),
        ));
    }
    if lat.len() < 2 {
        return Err("the machine's [mpi] section has fewer than two ping-pong sizes: measure it again with `augur characterize --mpi`".into());
    }
    let factors = |v: &[(u64, f64)]| {
        v.iter()
            .map(|(b, f)| format!("{b}:{f:.6e}"))
            .collect::<Vec<_>>()
            .join(";")
    };
    Ok((
        Link {
            latency_us: lat0 * 1e6,
            bandwidth_gbs: bw0 / 1e9,
        },
        vec![
            format!("--cfg=smpi/lat-factor:{}", factors(&lat)),
            format!("--cfg=smpi/bw-factor:{}", factors(&bw)),
        ],
    ))
}

/// The last lines of a log file (empty when unreadable).
fn log_tail(path: &Path) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = std::fs::File::open(path) else {
        return String::new();
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let _ = f.seek(SeekFrom::Start(len.saturating_sub(4096)));
    let mut tail = vec![];
    let _ = f.read_to_end(&mut tail);
    format!("\n{}", String::from_utf8_lossy(&tail))
}

/// SMPI (3.32) sends a message of `s` bytes as `s` plus this many (its envelope: an empty
/// message at 1 MB/s takes 16 µs beyond the latency), and looks it up in its factors by
/// that size, taking the entry with the largest threshold below it (with `0:1;1000:10` a
/// message of 984 bytes takes the factor 1, one of 985 bytes the factor 10; measured). An
/// entry meant from `b` bytes on is written at `b + 15`.
const SMPI_ENVELOPE_BYTES: u64 = 16;

/// A compute segment: `(unit, block, executions)`.
pub type Segment = [(u32, u32, f64)];

/// The time-independent traces of every rank of a run, and what augur needs to read the
/// replay back.
#[derive(Debug, Default)]
pub struct TiTraces {
    /// One text per rank (SimGrid's format).
    pub texts: Vec<String>,
    /// Each rank's compute seconds.
    pub compute: Vec<f64>,
    /// Each rank's MPI lines with their call sites and idle-network costs.
    pub lines: Vec<timeline::RankLines>,
    /// The call sites' labels.
    pub sites: Vec<String>,
}

/// SimGrid's time-independent trace of every rank of `run` (one text per rank): each
/// compute segment as `compute FLOPS` (its `seconds` at `flops_per_second`), each MPI call
/// as the replayer's actions ([`actions::Translator`]: a `sendrecv` becomes an `isend`, a
/// `recv` and a `wait`; a collective on part of the world, point-to-point messages),
/// repeated patterns written out. Also each rank's compute seconds, and each MPI line's
/// call site and cost on `net` when idle. A message a rank sends to itself is the memory
/// copy `self_copy` measured, when given.
pub fn time_independent(
    run: &augur_program_profile::mpi::MpiRun,
    seconds: &dyn Fn(&Segment) -> f64,
    flops_per_second: f64,
    net: &timeline::IdleNetwork,
    self_copy: Option<&[augur_machine_profile::mpi::Timing]>,
) -> TiTraces {
    let mut out = TiTraces::default();
    let mut sites = timeline::SiteTable::default();
    for t in &run.traces {
        let mut text = String::new();
        let mut busy = 0.0;
        let copy = self_copy.map(|curve| actions::SelfCopy {
            curve: curve.to_vec(),
            flops_per_second,
        });
        let mut translator = actions::Translator::new(run.ranks).with_self_copy(copy);
        let mut lines = timeline::RankLines::default();
        for record in &t.records {
            let mut pattern = vec![];
            let steps: Vec<(f64, String)> = record
                .steps
                .iter()
                .map(|s| {
                    let act = translator.lines(t.rank, &s.event);
                    pattern.extend(sites.lines(&s.event, timeline::logged_lines(&act), net));
                    (seconds(&s.segment), act)
                })
                .collect();
            lines.patterns.push((record.repeat, pattern));
            for _ in 0..record.repeat {
                for (sec, act) in &steps {
                    if *sec > 0.0 {
                        let _ = writeln!(text, "{} compute {:.0}", t.rank, sec * flops_per_second);
                        busy += sec;
                    }
                    text.push_str(act);
                }
            }
        }
        out.texts.push(text);
        out.compute.push(busy);
        out.lines.push(lines);
    }
    out.sites = sites.labels();
    out
}

/// An MPI program's predicted time at a rank count.
#[derive(Debug, Clone)]
pub struct RanksPrediction {
    /// Ranks.
    pub ranks: u32,
    /// The predicted wall-clock time of the job: the simulated time plus the launch.
    pub seconds: f64,
    /// The simulated time (SimGrid), seconds.
    pub simulated: f64,
    /// The launch (`mpirun`, MPI_Init, MPI_Finalize: an empty job at this rank count, as
    /// the cluster file's machine or else the machine measured it; 0 when neither did),
    /// seconds.
    pub startup: f64,
    /// The largest rank count the launch was measured at (`None`: not measured; beyond it
    /// the time at that count is used).
    pub launch_measured_up_to: Option<u32>,
    /// The 90% interval, low and high seconds: the slowest rank's computing off by the
    /// sequential prediction's factor on this program and machine, the transmissions and
    /// the launch as measured.
    pub interval: (f64, f64),
    /// The factor either way the slowest rank's computing takes in the interval (the
    /// sequential prediction's).
    pub compute_factor: f64,
    /// Each rank's compute seconds.
    pub compute: Vec<f64>,
    /// Each rank's MPI calls.
    pub calls: Vec<u64>,
    /// The cluster replayed on: nodes and cores per node.
    pub nodes: u32,
    /// Cores per node.
    pub cores_per_node: u32,
    /// Where each rank's time went, when asked for ([`RanksOptions::timeline`]).
    pub timeline: Option<timeline::Timeline>,
    /// Bytes and messages between each pair of ranks.
    pub matrix: matrix::Matrix,
    /// The rank counts the traces were extrapolated from (empty: traced at `ranks`).
    pub extrapolated_from: Vec<u32>,
    /// What the user must know before reading the time (work that ran out at this count).
    pub warnings: Vec<String>,
}

/// How to predict an MPI program.
#[derive(Debug, Clone, Default)]
pub struct RanksOptions<'a> {
    /// The cluster file to replay on (default: one node of the machine).
    pub cluster: Option<&'a Path>,
    /// Changes to the network and the cores.
    pub what_if: WhatIf,
    /// Read SimGrid's log of every action back into a [`timeline::Timeline`] (a log line
    /// per action: leave it off for long traces that only need the time).
    pub timeline: bool,
    /// OpenMP threads per rank (a hybrid program counted with `--threads`; 0 or 1: one).
    pub threads: u32,
    /// Replay every repetition even of a long run (else [`sampled`]: a long run whose
    /// ranks repeat the same patterns is replayed at a few repetitions and extended).
    pub full_replay: bool,
}

/// Changes to the cluster asked for (`--latency`, `--bandwidth`, `--cpu-speed`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WhatIf {
    /// Every link's latency.
    pub latency: Change,
    /// Every link's bandwidth.
    pub bandwidth: Change,
    /// The cores' speed, times the machine's (compute segments take 1/this as long).
    pub cpu_speed: f64,
}

impl Default for WhatIf {
    fn default() -> Self {
        WhatIf {
            latency: Change::Same,
            bandwidth: Change::Same,
            cpu_speed: 1.0,
        }
    }
}

/// A change to a link parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Change {
    /// As it is.
    Same,
    /// Times this.
    Times(f64),
    /// This value (latency in microseconds, bandwidth in GB/s).
    To(f64),
}

impl Change {
    fn apply(self, x: f64) -> f64 {
        match self {
            Change::Same => x,
            Change::Times(f) => x * f,
            Change::To(v) => v,
        }
    }
}

impl WhatIf {
    /// A measured network changed: every message's time less the empty message's
    /// latency `L` is the time its bytes take, so with latency `L'` and bandwidth `f`
    /// times as high a message of `b` bytes takes `L' + (t(b) - L) / f` (protocols alike).
    pub fn network(&self, m: &MpiProfile) -> MpiProfile {
        let l = m.latency_seconds;
        let l2 = self.latency.apply(l * 1e6) * 1e-6;
        let asymptotic = m.protocols.last().map_or(1e9, |p| p.bytes_per_second);
        let f = self.bandwidth.apply(asymptotic / 1e9) * 1e9 / asymptotic;
        let time = |t: f64| l2 + (t - l).max(0.0) / f;
        let mut out = m.clone();
        out.latency_seconds = l2;
        for p in &mut out.pingpongs {
            p.seconds = time(p.seconds);
        }
        for p in &mut out.protocols {
            p.latency_seconds = (p.latency_seconds - l).max(0.0) + l2;
            p.bytes_per_second *= f;
        }
        out
    }

    /// `link` changed.
    pub fn link(&self, link: Link) -> Link {
        Link {
            latency_us: self.latency.apply(link.latency_us),
            bandwidth_gbs: self.bandwidth.apply(link.bandwidth_gbs),
        }
    }
}

/// Predicts `program` (traced at `ranks` ranks) on `machine`: every rank's compute
/// segments priced by the sequential model, its MPI calls replayed by SimGrid on
/// the cluster (default: one node of `machine` with `ranks` cores and its measured `[mpi]`
/// network between them; a cluster file's `machine` gives its measured network).
pub fn predict_ranks(
    program: &augur_program_profile::ProgramProfile,
    machine: &MachineProfile,
    options: augur_model::PredictOptions,
    ranks: u32,
    how: &RanksOptions<'_>,
) -> Result<RanksPrediction, SimGridError> {
    let traced = traced_run(program, ranks)?;
    let run = traced.run.as_ref();
    let (c, measured) = cluster_and_network(machine, ranks, how.cluster)?;
    let launch = launch(machine, measured.as_ref(), ranks);
    let platform = c
        .platform(measured.as_ref(), &how.what_if)
        .map_err(SimGridError::Input)?;
    let self_copy: Option<Vec<_>> = measured
        .as_ref()
        .map(|m| m.self_messages.clone())
        .filter(|v| !v.is_empty());
    let net = idle_network(&c, measured, ranks, &how.what_if);
    // The ranks of a node share its memory bandwidth (as many as the machine has
    // cores: a node with more cores than the machine measured is assumed to have
    // bandwidth in proportion).
    let measured_cores = machine.openmp.as_ref().map_or(1, |o| o.cores.max(1));
    let per_node = ranks.min(c.cores_per_node).min(measured_cores);
    let workload = with_blocks_of(program, run);
    let mut blocks =
        augur_model::segments::BlockSeconds::sharing_node(&workload, machine, options, per_node);
    if how.threads > 1 {
        let team = augur_model::hybrid::threaded_blocks(program, machine, options, how.threads)
            .map_err(|e| {
                SimGridError::Input(format!(
                    "{e}: analyze the program with --mpi-ranks and --threads including {}",
                    how.threads
                ))
            })?;
        blocks = blocks.threaded(&team);
    }
    let speed = how.what_if.cpu_speed.max(1e-9);
    let seconds = |s: &Segment| blocks.segment(s) / speed;
    let flops = c.core_speed_gflops * 1e9;
    let ti = time_independent(run, &seconds, flops, &net, self_copy.as_deref());
    let sampler = if how.full_replay {
        None
    } else {
        sampled::Sampler::new(run, &|r, i| {
            record_cost(&run.traces[r].records[i], &seconds, &net)
        })
    };
    let mut warnings = traced.warnings;
    let replay_cut = |k: u64| {
        let cut = sampler
            .as_ref()
            .map(|s| s.cut(k))
            .unwrap_or_else(|| run.clone());
        let ti = time_independent(&cut, &seconds, flops, &net, self_copy.as_deref());
        replay_traces(&platform, &ti, how.timeline)
    };
    let (simulated, timeline) = match &sampler {
        None => replay_traces(&platform, &ti, how.timeline)?,
        Some(s) => {
            let (sampled, k) = sampled_replay(s, &replay_cut)?;
            warnings.push(format!(
                "a long run: replayed at {k} and {} repetitions of each repeated pattern ({} calls instead of {}), the rest extended (--full-replay replays every call)",
                2 * k,
                s.calls_at(k) + s.calls_at(2 * k),
                s.calls
            ));
            sampled
        }
    };
    let startup = launch.map_or(0.0, |l| l.0);
    let compute_factor = blocks.interval_factor();
    let interval = ranks_interval(compute_factor, simulated + startup, &ti.compute);
    Ok(RanksPrediction {
        ranks,
        seconds: simulated + startup,
        simulated,
        startup,
        compute: ti.compute,
        calls: run.traces.iter().map(|t| t.calls).collect(),
        nodes: c.nodes,
        cores_per_node: c.cores_per_node,
        timeline,
        matrix: matrix::Matrix::of(run),
        launch_measured_up_to: launch.map(|l| l.1),
        interval,
        compute_factor,
        extrapolated_from: traced.extrapolated_from,
        warnings,
    })
}

/// A replay and its timeline.
type Replayed = (f64, Option<timeline::Timeline>);

/// A long run replayed cut to `k` and `2k` repetitions, `k` doubled from
/// [`sampled::K`] until two successive extensions agree or the cut runs would cost a
/// quarter of the whole; the extended time and timeline, and the `k` used.
fn sampled_replay(
    s: &sampled::Sampler<'_>,
    replay_cut: &dyn Fn(u64) -> Result<Replayed, SimGridError>,
) -> Result<(Replayed, u64), SimGridError> {
    let extended = |k: u64, short: &Replayed, long: &Replayed| -> Replayed {
        let f = s.factor(k).unwrap_or(0.0);
        let end = sampled::extend(f, short.0, long.0);
        let line = match (&short.1, &long.1) {
            (Some(a), Some(b)) => Some(timeline::extended(
                a,
                b.clone(),
                &|x, y| sampled::extend(f, x, y),
                end,
            )),
            _ => None,
        };
        (end, line)
    };
    let mut k = sampled::K;
    let mut long = replay_cut(2 * k)?;
    let mut best = extended(k, &replay_cut(k)?, &long);
    while s.factor(2 * k).is_some() && s.calls_at(4 * k) * 4 <= s.calls {
        let longer = replay_cut(4 * k)?;
        let next = extended(2 * k, &long, &longer);
        let agree = (next.0 - best.0).abs() <= sampled::AGREE * next.0.abs();
        (long, best, k) = (longer, next, 2 * k);
        if agree {
            break;
        }
    }
    Ok((best, k))
}

/// Seconds one repetition of `rec` takes on an idle machine: its segments and its calls'
/// messages on the idle network.
fn record_cost(
    rec: &Record,
    seconds: &dyn Fn(&Segment) -> f64,
    net: &timeline::IdleNetwork,
) -> f64 {
    rec.steps
        .iter()
        .map(|s| {
            seconds(&s.segment)
                + if s.event.is_call() {
                    net.message(s.event.bytes)
                } else {
                    0.0
                }
        })
        .sum()
}

/// The 90% interval of a predicted `seconds` whose slowest rank computes for the largest
/// of `compute`: that computing scaled by `factor` either way (the sequential prediction's:
/// the model's error and the parameters'), the rest as is.
fn ranks_interval(factor: f64, seconds: f64, compute: &[f64]) -> (f64, f64) {
    let slowest = compute.iter().copied().fold(0.0, f64::max).min(seconds);
    (
        seconds - slowest * (1.0 - 1.0 / factor),
        seconds + slowest * (factor - 1.0),
    )
}

/// The job's launch at `ranks` (`mpirun`, MPI_Init, MPI_Finalize), with the largest rank
/// count it was measured at: from the network replayed on (a cluster file's machine), else
/// from `machine` (the same MPI library launching on a node of its kind). One definition
/// in every view; `None` when no profile measured it.
fn launch(
    machine: &MachineProfile,
    network: Option<&MpiProfile>,
    ranks: u32,
) -> Option<(f64, u32)> {
    [network, machine.mpi.as_ref()]
        .into_iter()
        .flatten()
        .find_map(|m| {
            let most = m.startups.iter().map(|s| s.ranks).max()?;
            Some((m.startup(ranks)?, most))
        })
}

/// `program` with every block that rank 0 of its counting run never executed given the
/// executions the ranks of `run` made of it, so that it is priced (a worker's task loop
/// when rank 0 is the master): a block's price per execution comes from its executions.
fn with_blocks_of(
    program: &augur_program_profile::ProgramProfile,
    run: &augur_program_profile::mpi::MpiRun,
) -> augur_program_profile::ProgramProfile {
    let mut totals: std::collections::HashMap<(u32, u32), f64> = Default::default();
    for t in &run.traces {
        for rec in &t.records {
            for step in &rec.steps {
                for &(u, b, x) in &step.segment {
                    *totals.entry((u, b)).or_default() += x * rec.repeat as f64;
                }
            }
        }
    }
    let mut p = program.clone();
    for (ui, u) in p.units.iter_mut().enumerate() {
        for (bi, b) in u.blocks.iter_mut().enumerate() {
            let done = totals.get(&(ui as u32, bi as u32)).copied().unwrap_or(0.0);
            if b.executions.unwrap_or(0.0) == 0.0 && done > 0.0 {
                b.executions = Some(done);
            }
        }
    }
    p
}

/// The traces a prediction replays.
struct Traced<'a> {
    run: Cow<'a, augur_program_profile::mpi::MpiRun>,
    /// The counts they were extrapolated from (empty: traced at the count).
    extrapolated_from: Vec<u32>,
    /// What the extrapolation warns of.
    warnings: Vec<String>,
}

/// The run of `program` traced at `ranks` ranks, or one extrapolated from its traces at
/// smaller counts (with those counts).
fn traced_run(
    program: &augur_program_profile::ProgramProfile,
    ranks: u32,
) -> Result<Traced<'_>, SimGridError> {
    let fail = |m: String| SimGridError::Input(m);
    let Some(mpi) = &program.mpi else {
        return Err(fail(format!(
            "the profile has no MPI traces: analyze the program with `augur analyze --mpi-ranks {ranks} ...`"
        )));
    };
    if let Some(run) = mpi.runs.iter().find(|r| r.ranks == ranks) {
        return Ok(Traced {
            run: Cow::Borrowed(run),
            extrapolated_from: vec![],
            warnings: vec![],
        });
    }
    let counted: Vec<u32> = mpi.runs.iter().map(|r| r.ranks).collect();
    let below: Vec<u32> = counted
        .iter()
        .copied()
        .filter(|&p| p >= 3 && p < ranks)
        .collect();
    if below.len() < 3 {
        return Err(fail(format!(
            "the program was traced at {counted:?} ranks, not {ranks}: analyze it with --mpi-ranks including {ranks}, or at three or more smaller counts of at least 3 ranks (e.g. --mpi-ranks 4,8,16) to extrapolate"
        )));
    }
    let runs: Vec<_> = mpi
        .runs
        .iter()
        .filter(|r| below.contains(&r.ranks))
        .cloned()
        .collect();
    let x = augur_scaling::ranks::extrapolate(&runs, ranks)
        .map_err(|e| fail(format!("{ranks} ranks from the traces at {below:?}: {e}")))?;
    Ok(Traced {
        run: Cow::Owned(x.run),
        warnings: vanished_work(program, &x.vanished, &below, ranks),
        extrapolated_from: below,
    })
}

/// The warning for work that ran out at `ranks` (the block that shrank most named by its
/// file and line).
fn vanished_work(
    program: &augur_program_profile::ProgramProfile,
    vanished: &[augur_scaling::ranks::VanishedWork],
    below: &[u32],
    ranks: u32,
) -> Vec<String> {
    let Some(v) = vanished.first() else {
        return vec![];
    };
    let unit = program.units.get(v.unit as usize);
    let place = unit
        .and_then(|u| {
            let b = u.blocks.iter().find(|b| b.id == v.block)?;
            Some(format!("{}:{} ({})", u.file, b.first_line, u.name))
        })
        .unwrap_or_else(|| format!("block {} of unit {}", v.block, v.unit));
    let per_step: Vec<String> = v.per_step.iter().map(|x| format!("{x}")).collect();
    vec![format!(
        "the work runs out at {ranks} ranks: {place} ran {} times a step at {below:?} ranks, less than once at {ranks} ({} block(s) like it); ranks there have nothing to do (more ranks than pieces of the decomposition) and their work is rounded to whole executions",
        per_step.join(", "),
        vanished.len()
    )]
}

/// The SimGrid platform a prediction of `ranks` ranks on `machine` replays on (the
/// cluster file's, else one node of `machine` with its measured network).
pub fn platform_for(
    machine: &MachineProfile,
    ranks: u32,
    cluster: Option<&Path>,
    what_if: &WhatIf,
) -> Result<Platform, SimGridError> {
    let (c, measured) = cluster_and_network(machine, ranks, cluster)?;
    c.platform(measured.as_ref(), what_if)
        .map_err(SimGridError::Input)
}

/// The cluster to replay on and its measured network, if any.
fn cluster_and_network(
    machine: &MachineProfile,
    ranks: u32,
    cluster: Option<&Path>,
) -> Result<(Cluster, Option<MpiProfile>), SimGridError> {
    let (c, measured) = match cluster {
        Some(f) => {
            let c = Cluster::read(f)?;
            let m = match (&c.machine, c.intra) {
                (Some(m), None) => {
                    augur_machine_profile::MachineProfile::read(m)
                        .map_err(|e| SimGridError::Cluster {
                            path: m.clone(),
                            message: e.to_string(),
                        })?
                        .mpi
                }
                _ => None,
            };
            (c, m)
        }
        None => (this_machine(machine, ranks)?, machine.mpi.clone()),
    };
    if c.nodes * c.cores_per_node < ranks {
        return Err(SimGridError::Input(format!(
            "the cluster has {} cores for {ranks} ranks: give a larger one",
            c.nodes * c.cores_per_node
        )));
    }
    Ok((c, measured))
}

/// What a call costs on the cluster's network when idle: the measured network (unless a
/// what-if changes it), else the link between the ranks.
fn idle_network(
    c: &Cluster,
    measured: Option<MpiProfile>,
    ranks: u32,
    what_if: &WhatIf,
) -> timeline::IdleNetwork {
    let link = what_if.link(if c.nodes > 1 {
        c.inter
    } else {
        c.intra.unwrap_or(c.inter)
    });
    // The measured network describes the links inside a node.
    let measured = measured.filter(|_| c.nodes == 1 && c.intra.is_none());
    timeline::IdleNetwork {
        latency: link.latency_us * 1e-6,
        bandwidth: link.bandwidth_gbs * 1e9,
        measured: measured.map(|m| what_if.network(&m)),
        ranks,
    }
}

/// Writes the traces, replays them on `platform`, and reads the timeline back if asked.
fn replay_traces(
    platform: &Platform,
    ti: &TiTraces,
    with_timeline: bool,
) -> Result<(f64, Option<timeline::Timeline>), SimGridError> {
    let io = |m: String| SimGridError::Replay(m);
    let dir = augur_toolchain::interrupt::temp_dir("augur-simgrid-")
        .map_err(|e| io(format!("cannot create a directory for the traces: {e}")))?;
    let mut traces = vec![];
    for (r, text) in ti.texts.iter().enumerate() {
        let path = dir.path().join(format!("rank{r}.txt"));
        std::fs::write(&path, text)
            .map_err(|e| io(format!("cannot write {}: {e}", path.display())))?;
        traces.push(path);
    }
    let log = with_timeline.then(|| dir.path().join("actions.log"));
    let simulated = replay(
        platform,
        dir.path(),
        &traces,
        log.as_deref(),
        Duration::from_secs(600),
    )?;
    let timeline = match log {
        Some(log) => {
            Some(timeline::read(&log, &ti.lines, ti.sites.clone(), simulated).map_err(io)?)
        }
        None => None,
    };
    Ok((simulated, timeline))
}

/// One node of `machine` with `ranks` cores, its measured network between them.
fn this_machine(machine: &MachineProfile, ranks: u32) -> Result<Cluster, SimGridError> {
    let Some(m) = &machine.mpi else {
        return Err(SimGridError::Input(
            "the machine profile has no [mpi] section: measure it with `augur characterize --mpi -o FILE`, or give a cluster".into(),
        ));
    };
    Ok(Cluster {
        name: "this-machine".into(),
        nodes: 1,
        cores_per_node: ranks,
        core_speed_gflops: 1.0,
        intra: None,
        inter: Link {
            latency_us: m.latency_seconds * 1e6,
            bandwidth_gbs: m.protocols.last().map_or(1.0, |p| p.bytes_per_second / 1e9),
        },
        topology: Topology::Flat,
        machine: None,
    })
}

/// Where the Debian package puts SMPI's time-independent trace replayer.
fn replayer() -> Result<PathBuf, SimGridError> {
    let dirs = [
        "/usr/lib/x86_64-linux-gnu/simgrid",
        "/usr/lib/aarch64-linux-gnu/simgrid",
        "/usr/lib/simgrid",
        "/usr/local/lib/simgrid",
    ];
    dirs.iter()
        .map(|d| Path::new(d).join("smpireplaymain"))
        .find(|p| p.is_file())
        .ok_or_else(|| SimGridError::Missing {
            tool: "smpireplaymain (SimGrid's trace replayer)".into(),
        })
}

/// Replays the time-independent traces `traces` (one file per rank, SimGrid's format:
/// `RANK init`, `RANK compute FLOPS`, `RANK send PEER TAG BYTES`, ...) on `platform`
/// written in `dir`; returns the simulated seconds.
pub fn replay(
    platform: &Platform,
    dir: &Path,
    traces: &[PathBuf],
    log: Option<&Path>,
    timeout: Duration,
) -> Result<f64, SimGridError> {
    let smpirun =
        augur_toolchain::find_on_path("smpirun").ok_or_else(|| SimGridError::Missing {
            tool: "smpirun".into(),
        })?;
    let replayer = replayer()?;
    let io =
        |e: std::io::Error| SimGridError::Replay(format!("cannot write in {}: {e}", dir.display()));
    std::fs::write(dir.join("platform.xml"), &platform.xml).map_err(io)?;
    std::fs::write(dir.join("hosts"), &platform.hostfile).map_err(io)?;
    let index: String = traces
        .iter()
        .map(|t| format!("{}\n", t.display()))
        .collect();
    std::fs::write(dir.join("traces"), index).map_err(io)?;
    let mut spec = augur_toolchain::RunSpec::new(dir, timeout);
    spec.args = vec![
        "-np".into(),
        traces.len().to_string(),
        "-platform".into(),
        "platform.xml".into(),
        "-hostfile".into(),
        "hosts".into(),
        "-replay".into(),
        "traces".into(),
    ];
    spec.args.extend(platform.config.iter().cloned());
    if let Some(log) = log {
        // Every action with its end time, `END|RANK ACTION ... DURATION` (no space in
        // the format: smpirun splits its arguments at spaces).
        spec.args.extend([
            "--log=smpi_replay.thres:verbose".to_string(),
            format!("--log=smpi_replay.app:file:{}", log.display()),
            "--log=smpi_replay.fmt:%.9d|%m%n".to_string(),
        ]);
    }
    spec.args.push(replayer.display().to_string());
    let ran = augur_toolchain::run(&smpirun, &spec).map_err(|e| match e {
        augur_toolchain::RunError::Interrupted => SimGridError::Cancelled,
        e => SimGridError::Replay(e.to_string()),
    })?;
    // With a log file, the replayer's last line (the simulated time) goes there too.
    let out = format!(
        "{}{}{}",
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr),
        log.map(log_tail).unwrap_or_default()
    );
    let time = out
        .lines()
        .filter_map(|l| l.split("Simulation time ").nth(1))
        .filter_map(|t| t.trim().parse::<f64>().ok())
        .next_back();
    match (ran.success(), time) {
        (true, Some(t)) => Ok(t),
        _ => {
            // SimGrid's own explanation (a trace line it cannot parse, ...), else the end.
            let lines: Vec<&str> = out.lines().collect();
            let tail: Vec<&str> = match lines.iter().position(|l| l.contains("Uncaught exception"))
            {
                Some(k) => lines[k..(k + 4).min(lines.len())].to_vec(),
                None => lines
                    .iter()
                    .copied()
                    .filter(|l| !l.contains("xbt_cfg/INFO"))
                    .collect(),
            };
            Err(SimGridError::Replay(format!(
                "{}: {}",
                ran.describe(),
                tail[tail.len().saturating_sub(4)..].join("; ")
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ping-pong time of `bytes`.
    fn timing(bytes: u64, seconds: f64) -> augur_machine_profile::mpi::Timing {
        augur_machine_profile::mpi::Timing {
            bytes,
            seconds,
            half_width: 0.0,
            observations: 1,
        }
    }

    fn cluster(topology: Topology, nodes: u32) -> Cluster {
        Cluster {
            name: "test cluster".into(),
            nodes,
            cores_per_node: 2,
            core_speed_gflops: 2.5,
            intra: Some(Link {
                latency_us: 0.3,
                bandwidth_gbs: 8.0,
            }),
            inter: Link {
                latency_us: 1.5,
                bandwidth_gbs: 12.5,
            },
            topology,
            machine: None,
        }
    }

    #[test]
    fn a_copied_cluster_file_finds_its_machine_by_library_name() {
        let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/cluster.toml");
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("cluster.toml");
        std::fs::copy(&example, &copy).unwrap();
        let c = Cluster::read(&copy).unwrap();
        let m = c.machine.expect("the example names a machine");
        assert!(
            m.is_file() && m.ends_with("gfortran12-O2-epyc-zen4-2core.toml"),
            "{m:?}"
        );
        let text = std::fs::read_to_string(&copy).unwrap();
        std::fs::write(&copy, text.replace("gfortran12-O2-epyc", "no-such-machine")).unwrap();
        let e = Cluster::read(&copy).unwrap_err().to_string();
        assert!(e.contains("neither a file next to the cluster file"), "{e}");
    }

    #[test]
    fn a_flat_cluster_is_one_simgrid_cluster() {
        let p = cluster(Topology::Flat, 4)
            .platform(None, &WhatIf::default())
            .unwrap();
        assert!(p.xml.contains("id=\"test_cluster\""), "{}", p.xml);
        assert!(p.xml.contains("radical=\"0-3\"") && p.xml.contains("core=\"2\""));
        assert!(p.xml.contains("bw=\"12.5GBps\" lat=\"1.5us\""));
        assert!(p
            .xml
            .contains("loopback_bw=\"8GBps\" loopback_lat=\"0.3us\""));
        assert_eq!(p.hostfile, "node-0:2\nnode-1:2\nnode-2:2\nnode-3:2\n");
        assert_eq!(p.ranks, 8);
        assert!(p.config.is_empty());
    }

    #[test]
    fn topologies_must_wire_every_node() {
        let torus = Topology::Torus {
            dimensions: vec![2, 2],
        };
        assert!(cluster(torus.clone(), 4).check().is_ok());
        let e = cluster(torus, 6).check().unwrap_err();
        assert!(e.contains("connects 4 nodes") && e.contains("is 6"), "{e}");
        let tree = Topology::FatTree {
            parameters: "2;4,4;1,2;1,2".into(),
        };
        let c = cluster(tree, 16);
        assert!(c.check().is_ok());
        assert!(c
            .platform(None, &WhatIf::default())
            .unwrap()
            .xml
            .contains("FAT_TREE"));
        let bad = Topology::FatTree {
            parameters: "2;4;1,2".into(),
        };
        assert!(cluster(bad, 4).check().unwrap_err().contains("levels;down"));
    }

    #[test]
    fn a_measured_network_gives_the_link_and_the_factors() {
        use augur_machine_profile::mpi::Protocol;
        let protocol = |name: &str, from, lat: f64, bw: f64| Protocol {
            name: name.into(),
            from_bytes: from,
            to_bytes: 0,
            latency_seconds: lat,
            bytes_per_second: bw,
        };
        let m = MpiProfile {
            cores: 2,
            ranks: vec![2],
            latency_seconds: 0.2e-6,
            eager_limit_bytes: Some(3072),
            protocols: vec![
                protocol("eager", 64, 0.5e-6, 5e9),
                protocol("rendezvous", 4096, 5e-6, 10e9),
            ],
            ..MpiProfile::default()
        };
        // 0.2 µs empty, 0.7 µs at 1000 bytes (2 GB/s between), 2.7 µs at 11000 (5 GB/s).
        let m = MpiProfile {
            pingpongs: vec![
                timing(0, 0.2e-6),
                timing(1000, 0.7e-6),
                timing(11000, 2.7e-6),
            ],
            ..m
        };
        let mut c = cluster(Topology::Flat, 1);
        c.intra = None;
        let p = c.platform(Some(&m), &WhatIf::default()).unwrap();
        // One host per core, each a private link of half the empty message's latency.
        assert!(
            p.xml.contains("radical=\"0-1\"")
                && p.xml.contains("core=\"1\" bw=\"5GBps\" lat=\"0.1us\""),
            "{}",
            p.xml
        );
        assert_eq!(p.hostfile, "node-0:1\nnode-1:1\n");
        // From 0: 2 GB/s and 0.2 - 16/2e9 = 0.192 µs; from 1000: 5 GB/s and
        // 0.7 - 1016/5e9 = 0.4968 µs (the 16 bytes of SMPI's envelope are sent too).
        assert_eq!(
            p.config,
            vec![
                "--cfg=smpi/lat-factor:15:9.600000e-1;1015:2.484000e0;11015:0.000000e0".to_string(),
                "--cfg=smpi/bw-factor:15:4.000000e-1;1015:1.000000e0;11015:8.160000e-1".to_string(),
            ]
        );
    }

    #[test]
    fn a_what_if_changes_the_measured_curve_and_the_links() {
        let m = MpiProfile {
            latency_seconds: 1e-6,
            protocols: vec![augur_machine_profile::mpi::Protocol {
                name: "eager".into(),
                from_bytes: 0,
                to_bytes: 1 << 20,
                latency_seconds: 1.5e-6,
                bytes_per_second: 4e9,
            }],
            pingpongs: vec![timing(0, 1e-6), timing(4000, 2e-6)],
            ..MpiProfile::default()
        };
        // Latency 3 µs, bandwidth twice (8 GB/s): 4000 bytes take 3 + 1/2 µs.
        let w = WhatIf {
            latency: Change::To(3.0),
            bandwidth: Change::Times(2.0),
            cpu_speed: 1.0,
        };
        let n = w.network(&m);
        assert!((n.latency_seconds - 3e-6).abs() < 1e-15);
        assert!((n.pingpongs[1].seconds - 3.5e-6).abs() < 1e-15, "{n:?}");
        assert!((n.protocols[0].latency_seconds - 3.5e-6).abs() < 1e-15);
        assert!((n.protocols[0].bytes_per_second - 8e9).abs() < 1.0);
        // Bandwidth given in GB/s is relative to the fastest protocol's.
        let to = WhatIf {
            bandwidth: Change::To(2.0),
            ..WhatIf::default()
        };
        assert!((to.network(&m).protocols[0].bytes_per_second - 2e9).abs() < 1.0);
        // A cluster's own links change alike.
        let p = cluster(Topology::Flat, 2).platform(None, &w).unwrap();
        assert!(p.xml.contains("bw=\"25GBps\" lat=\"3us\""), "{}", p.xml);
        // Nothing changed, nothing moves.
        assert_eq!(WhatIf::default().network(&m), m);
    }
}
