//! Where each rank's simulated time goes: SMPI's replayer logs every action it finishes
//! with its end time (`smpi_replay` at verbose level, written to a file); augur matches
//! the k-th MPI action of a rank with the k-th it wrote for that rank, and splits each
//! call's simulated time into *transmission* (what the call costs on an idle network:
//! latency plus bytes over bandwidth, or the measured collective) and *waiting* (the
//! rest: a partner not there yet, a message queued behind others), Parashar and Hariri's
//! split of communication. Per rank, per call site, and binned into a timeline for the
//! Gantt chart.

use augur_machine_profile::mpi::MpiProfile;
use augur_program_profile::mpi::Event;
use serde::Serialize;
use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

/// What a call costs on an idle network, to split its simulated time.
#[derive(Debug, Clone)]
pub struct IdleNetwork {
    /// Latency of the link, seconds.
    pub latency: f64,
    /// Bandwidth of the link, bytes per second.
    pub bandwidth: f64,
    /// The measured network, when the replay is on it.
    pub measured: Option<MpiProfile>,
    /// Ranks of the job.
    pub ranks: u32,
}

impl IdleNetwork {
    /// One message of `bytes`: the measured protocol covering its size, else the link.
    pub fn message(&self, bytes: i64) -> f64 {
        let b = bytes.max(0) as u64;
        let protocol = self.measured.as_ref().and_then(|m| {
            m.protocols
                .iter()
                .find(|p| b <= p.to_bytes)
                .or(m.protocols.last())
        });
        match protocol {
            Some(p) => p.latency_seconds + b as f64 / p.bytes_per_second,
            None => self.latency + b as f64 / self.bandwidth,
        }
    }

    /// A collective `op` of `bytes` per rank: measured at this rank count (the nearest
    /// size, scaled by size above the largest), else a binomial tree of messages (twice
    /// for the all- operations).
    pub fn collective(&self, op: &str, bytes: i64) -> f64 {
        if self.ranks <= 1 {
            return 0.0;
        }
        let b = bytes.max(0) as u64;
        if let Some(m) = &self.measured {
            let nearest = m
                .collectives
                .iter()
                .filter(|c| c.operation == op && c.ranks == self.ranks)
                .min_by_key(|c| c.bytes.abs_diff(b));
            if let Some(c) = nearest {
                let scale = if b > c.bytes && c.bytes > 0 {
                    b as f64 / c.bytes as f64
                } else {
                    1.0
                };
                return c.seconds * scale;
            }
        }
        let steps = f64::from(self.ranks).log2().ceil();
        let twice = if op.starts_with("all") { 2.0 } else { 1.0 };
        twice * steps * self.message(bytes)
    }
}

/// What one line of a rank's replayed trace is: the call site it comes from (an index
/// into [`Timeline::sites`]) and its cost on an idle network.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineInfo {
    /// The call site.
    pub site: u32,
    /// Seconds on an idle network.
    pub idle: f64,
    /// The first line of its call (a call is counted there).
    pub first: bool,
}

/// Builds the [`LineInfo`]s of each rank's trace while it is written.
#[derive(Debug, Default)]
pub struct SiteTable {
    labels: Vec<String>,
    index: HashMap<String, u32>,
    /// Bytes of the pending non-blocking requests, by handle.
    pending: HashMap<i64, i64>,
}

impl SiteTable {
    /// The call site of `e`, numbered.
    fn site(&mut self, e: &Event) -> u32 {
        let label = site_label(e);
        if let Some(&k) = self.index.get(&label) {
            return k;
        }
        let k = self.labels.len() as u32;
        self.index.insert(label.clone(), k);
        self.labels.push(label);
        k
    }

    /// The lines `e` became (`lines` of them, the replayer's actions), each with its site
    /// and idle cost: the call's cost on the line where the replayer spends it.
    pub fn lines(&mut self, e: &Event, lines: usize, net: &IdleNetwork) -> Vec<LineInfo> {
        if lines == 0 {
            return vec![];
        }
        let site = self.site(e);
        let idle = match e.op.as_str() {
            "send" | "recv" => net.message(e.bytes),
            "isend" | "irecv" => {
                self.pending.insert(e.request, e.bytes);
                0.0
            }
            "wait" => self
                .pending
                .remove(&e.request)
                .map_or(0.0, |b| net.message(b)),
            // The requests a completion finishes travel together: the largest one's time
            // (a waitall of an older profile, which names none, finishes them all).
            op if op.starts_with("wait") || op.starts_with("test") => {
                let done: Vec<i64> = if e.completed.is_empty() && op == "waitall" {
                    self.pending.keys().copied().collect()
                } else {
                    e.completed.clone()
                };
                let largest = done.iter().filter_map(|r| self.pending.remove(r)).max();
                largest.map_or(0.0, |b| net.message(b))
            }
            "sendrecv" => net.message(e.bytes.max(e.bytes2)),
            op => net.collective(op, e.bytes.max(e.bytes2)),
        };
        // A sendrecv is isend, recv, wait: the recv (second line) waits and carries it.
        let carrier = if e.op == "sendrecv" {
            1.min(lines - 1)
        } else {
            lines.saturating_sub(1)
        };
        (0..lines)
            .map(|k| LineInfo {
                site,
                idle: if k == carrier { idle } else { 0.0 },
                first: k == 0,
            })
            .collect()
    }

    /// The call sites' labels, by index.
    pub fn labels(self) -> Vec<String> {
        self.labels
    }
}

/// The lines of `actions` (the replayer's, one per line) that the replayer logs as MPI
/// actions: not `init` and `finalize` (not logged), nor `compute` (logged, but as
/// computing: a reduction's operations).
pub fn logged_lines(actions: &str) -> usize {
    actions
        .lines()
        .filter(|l| {
            !matches!(
                l.split_whitespace().nth(1),
                Some("init" | "finalize" | "compute") | None
            )
        })
        .count()
}

/// A call site's label: the MPI operation, and where the call is when the trace says
/// (`MPI_Allreduce at cg.f90:40`).
fn site_label(e: &Event) -> String {
    let op = format!("MPI_{}", capitalized(&e.op));
    match &e.site {
        Some(s) => {
            let file = std::path::Path::new(&s.file)
                .file_name()
                .map_or(s.file.clone(), |f| f.to_string_lossy().to_string());
            format!("{op} at {file}:{}", s.line)
        }
        None => op,
    }
}

fn capitalized(op: &str) -> String {
    let mut c = op.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// A rank's replayed trace: its lines, pattern by pattern (`repeat` times each), as the
/// replayer reads them, with each MPI line's [`LineInfo`] (compute lines have none).
#[derive(Debug, Default, Clone)]
pub struct RankLines {
    /// (repeat, the pattern's MPI lines in order).
    pub patterns: Vec<(u64, Vec<LineInfo>)>,
}

/// Walks a rank's MPI lines in order.
struct Cursor<'a> {
    lines: &'a RankLines,
    pattern: usize,
    round: u64,
    line: usize,
}

impl Cursor<'_> {
    fn next(&mut self) -> Option<LineInfo> {
        loop {
            let (repeat, lines) = self.lines.patterns.get(self.pattern)?;
            if let Some(l) = lines.get(self.line) {
                self.line += 1;
                return Some(*l);
            }
            self.line = 0;
            self.round += 1;
            if self.round >= *repeat || lines.is_empty() {
                self.round = 0;
                self.pattern += 1;
            }
        }
    }
}

/// What a stretch of a rank's time was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum State {
    /// Computing (a compute segment).
    Compute,
    /// In an MPI call, moving data (its cost on an idle network).
    Transmission,
    /// In an MPI call, beyond that cost.
    Waiting,
}

/// One rank's time.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct RankTime {
    /// Computing, seconds.
    pub compute: f64,
    /// In MPI calls, moving data, seconds.
    pub transmission: f64,
    /// In MPI calls, waiting, seconds.
    pub waiting: f64,
    /// When its last action ended, seconds.
    pub end: f64,
}

/// One call site over all ranks.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct SiteTime {
    /// The call site.
    pub label: String,
    /// Calls (all ranks).
    pub calls: u64,
    /// Transmission, seconds summed over the ranks.
    pub transmission: f64,
    /// Waiting, seconds summed over the ranks.
    pub waiting: f64,
    /// The rank that waited longest here, and how long.
    pub worst_rank: (u32, f64),
}

/// The replayed timeline: per rank, per call site, and each rank's stretches binned for
/// a picture.
#[derive(Debug, Clone, Serialize)]
pub struct Timeline {
    /// By rank.
    pub ranks: Vec<RankTime>,
    /// By call site, most waiting first.
    pub sites: Vec<SiteTime>,
    /// The simulated time, seconds.
    pub end: f64,
    /// Each rank's time in [`BINS`] equal stretches of `[0, end]`: the state that filled
    /// most of each (none once the rank has ended).
    pub bins: Vec<Vec<Option<State>>>,
}

/// Bins per rank of [`Timeline::bins`].
pub const BINS: usize = 800;

/// Reads the replayer's log `log` (lines `END|RANK ACTION ...`), given each rank's lines
/// and the call sites' labels; `end` is the simulated time.
pub fn read(
    log: &Path,
    ranks: &[RankLines],
    labels: Vec<String>,
    end: f64,
) -> Result<Timeline, String> {
    let file = std::fs::File::open(log)
        .map_err(|e| format!("cannot read SimGrid's log {}: {e}", log.display()))?;
    let mut state = Reading::new(ranks, labels, end);
    for (k, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("{}: {e}", log.display()))?;
        state
            .line(&line)
            .map_err(|e| format!("{} line {}: {e}", log.display(), k + 1))?;
    }
    state.finish()
}

/// The state of [`read`].
struct Reading<'a> {
    cursors: Vec<Cursor<'a>>,
    last_end: Vec<f64>,
    ranks: Vec<RankTime>,
    sites: Vec<SiteTime>,
    /// Per rank, per site: waiting seconds (for the worst rank).
    site_waits: Vec<HashMap<u32, f64>>,
    /// Per rank, per bin: seconds in each state.
    bins: Vec<Vec<[f64; 3]>>,
    end: f64,
}

impl<'a> Reading<'a> {
    fn new(ranks: &'a [RankLines], labels: Vec<String>, end: f64) -> Self {
        let n = ranks.len();
        Reading {
            cursors: ranks
                .iter()
                .map(|lines| Cursor {
                    lines,
                    pattern: 0,
                    round: 0,
                    line: 0,
                })
                .collect(),
            last_end: vec![0.0; n],
            ranks: vec![RankTime::default(); n],
            sites: labels
                .into_iter()
                .map(|label| SiteTime {
                    label,
                    ..SiteTime::default()
                })
                .collect(),
            site_waits: vec![HashMap::new(); n],
            bins: vec![vec![[0.0; 3]; BINS]; n],
            end: end.max(1e-12),
        }
    }

    /// One log line: `END|RANK ACTION ...` (other lines, the final time, are skipped).
    fn line(&mut self, line: &str) -> Result<(), String> {
        let Some((end, action)) = line.split_once('|') else {
            return Ok(());
        };
        let end: f64 = end.trim().parse().map_err(|_| "no time before `|`")?;
        let mut words = action.split_whitespace();
        // Not an action (the final `Simulation time`): skipped.
        let Some(rank) = words.next().and_then(|r| r.parse::<usize>().ok()) else {
            return Ok(());
        };
        if rank >= self.ranks.len() {
            return Err(format!("rank {rank} is not a rank of the job"));
        }
        let op = words.next().unwrap_or("");
        let start = self.last_end[rank];
        self.last_end[rank] = end;
        let spent = (end - start).max(0.0);
        self.ranks[rank].end = end;
        if op == "compute" {
            self.ranks[rank].compute += spent;
            self.bin(rank, start, end, State::Compute);
            return Ok(());
        }
        let info = self.cursors[rank]
            .next()
            .ok_or_else(|| format!("rank {rank} did more MPI actions than its trace has"))?;
        let moving = info.idle.min(spent);
        self.ranks[rank].transmission += moving;
        self.ranks[rank].waiting += spent - moving;
        let site = &mut self.sites[info.site as usize];
        site.calls += u64::from(info.first);
        site.transmission += moving;
        site.waiting += spent - moving;
        *self.site_waits[rank].entry(info.site).or_default() += spent - moving;
        // Waiting first, then the data moves.
        self.bin(rank, start, end - moving, State::Waiting);
        self.bin(rank, end - moving, end, State::Transmission);
        Ok(())
    }

    /// Adds `[from, to]` in `state` to the rank's bins.
    fn bin(&mut self, rank: usize, from: f64, to: f64, state: State) {
        if to <= from {
            return;
        }
        let width = self.end / BINS as f64;
        let first = ((from / width) as usize).min(BINS - 1);
        let last = ((to / width) as usize).min(BINS - 1);
        for b in first..=last {
            let (lo, hi) = (b as f64 * width, (b + 1) as f64 * width);
            let overlap = to.min(hi) - from.max(lo);
            if overlap > 0.0 {
                self.bins[rank][b][state as usize] += overlap;
            }
        }
    }

    fn finish(mut self) -> Result<Timeline, String> {
        for (rank, c) in self.cursors.iter_mut().enumerate() {
            if c.next().is_some() {
                return Err(format!(
                    "rank {rank} has MPI actions in its trace that SimGrid's log does not show"
                ));
            }
        }
        for (rank, waits) in self.site_waits.iter().enumerate() {
            for (&site, &w) in waits {
                let s = &mut self.sites[site as usize];
                if w > s.worst_rank.1 {
                    s.worst_rank = (rank as u32, w);
                }
            }
        }
        self.sites.retain(|s| s.calls > 0);
        self.sites
            .sort_by(|a, b| (b.waiting + b.transmission).total_cmp(&(a.waiting + a.transmission)));
        let bins = self
            .bins
            .iter()
            .map(|rank| rank.iter().map(dominant).collect())
            .collect();
        Ok(Timeline {
            ranks: self.ranks,
            sites: self.sites,
            end: self.end,
            bins,
        })
    }
}

/// The state that filled most of a bin (none when empty: the rank had ended).
fn dominant(b: &[f64; 3]) -> Option<State> {
    let states = [State::Compute, State::Transmission, State::Waiting];
    let k = (0..3).max_by(|&i, &j| b[i].total_cmp(&b[j]))?;
    (b[k] > 0.0).then_some(states[k])
}

/// A long run's timeline from its two sampled replays ([`crate::sampled`]): every rank's
/// times and every call site's calls and times extended by `extend(short, long)`, the
/// simulated time `end`; the picture (`bins`) is the longer replay's, over its own time.
pub fn extended(
    short: &Timeline,
    long: Timeline,
    extend: &dyn Fn(f64, f64) -> f64,
    end: f64,
) -> Timeline {
    let ranks = long
        .ranks
        .iter()
        .zip(&short.ranks)
        .map(|(l, s)| RankTime {
            compute: extend(s.compute, l.compute),
            transmission: extend(s.transmission, l.transmission),
            waiting: extend(s.waiting, l.waiting),
            end: extend(s.end, l.end),
        })
        .collect();
    let mut sites: Vec<SiteTime> = long
        .sites
        .iter()
        .map(|l| {
            let s = short.sites.iter().find(|s| s.label == l.label);
            let (calls, transmission, waiting, worst) = s.map_or((0, 0.0, 0.0, 0.0), |s| {
                (s.calls, s.transmission, s.waiting, s.worst_rank.1)
            });
            SiteTime {
                label: l.label.clone(),
                calls: extend(calls as f64, l.calls as f64).round().max(0.0) as u64,
                transmission: extend(transmission, l.transmission),
                waiting: extend(waiting, l.waiting),
                worst_rank: (l.worst_rank.0, extend(worst, l.worst_rank.1)),
            }
        })
        .collect();
    sites.sort_by(|a, b| b.waiting.total_cmp(&a.waiting));
    Timeline {
        ranks,
        sites,
        end,
        bins: long.bins,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(op: &str, request: i64, bytes: i64) -> Event {
        Event {
            request,
            bytes,
            ..Event::new(op)
        }
    }

    #[test]
    fn a_completion_carries_the_largest_message_it_finished() {
        let net = IdleNetwork {
            latency: 1e-6,
            bandwidth: 1e9,
            measured: None,
            ranks: 4,
        };
        let mut t = SiteTable::default();
        assert_eq!(t.lines(&event("isend", 7, 1000), 1, &net)[0].idle, 0.0);
        t.lines(&event("irecv", 8, 4000), 1, &net);
        let any = Event {
            completed: vec![8],
            ..Event::new("waitany")
        };
        let l = t.lines(&any, 1, &net);
        assert!((l[0].idle - (1e-6 + 4e-6)).abs() < 1e-15, "{l:?}");
        // The send is still pending: a waitall naming none (an older profile) ends it.
        let l = t.lines(&Event::new("waitall"), 2, &net);
        assert_eq!(l[0].idle, 0.0);
        assert!((l[1].idle - 2e-6).abs() < 1e-15, "{l:?}");
        assert!(l[0].first && !l[1].first);
        // An allreduce of 4 ranks: twice a binomial tree of 2 steps.
        let l = t.lines(&event("allreduce", -1, 0), 1, &net);
        assert!((l[0].idle - 4e-6).abs() < 1e-15, "{l:?}");
        assert_eq!(
            t.labels(),
            [
                "MPI_Isend",
                "MPI_Irecv",
                "MPI_Waitany",
                "MPI_Waitall",
                "MPI_Allreduce"
            ]
        );
    }
}
