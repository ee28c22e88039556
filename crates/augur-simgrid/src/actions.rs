//! A rank's MPI events turned into the actions of SMPI's time-independent trace replayer
//! (`smpireplaymain`, SimGrid 3.32: `init`, `finalize`, `send`, `isend`, `recv`,
//! `irecv`, `wait` (naming the request by source, destination and tag), `waitall`,
//! `test`, `barrier`, `bcast`, `reduce`, `allreduce`, `gather`, `gatherv`, `scatter`,
//! `scatterv`, `allgather`, `allgatherv`, `alltoall`, `alltoallv`, `reducescatter`,
//! `compute`; sizes in bytes, the replay's default datatype being MPI_BYTE).
//!
//! The replayer runs every action on MPI_COMM_WORLD: its `comm_split` and `comm_dup`
//! do nothing and no action names a communicator. So a collective on a communicator
//! that spans the world (MPI_COMM_WORLD, a duplicate, a split with one colour) becomes
//! the replayer's collective, and one on fewer ranks (a split's part) becomes the
//! point-to-point messages of a simple algorithm among its members, in world ranks:
//! binomial trees for broadcasts and reductions (a reduction's arithmetic as `compute`
//! of one operation per 8 bytes, as the replayer's own reductions do), linear gathers
//! and scatters to and from the root, pairwise exchanges for all-to-all, and the
//! all-variants as a gather or reduction to the first member followed by a broadcast or
//! scatter. Their messages carry a tag of their own ([`COLLECTIVE_TAG`]). Making a
//! communicator costs what Open MPI runs for it on the parent: MPI_Comm_split and
//! MPI_Cart_sub (a split by the coordinates not kept) an allgather of (colour, key) and
//! an allreduce agreeing on the context id, MPI_Comm_dup the allreduce.
//!
//! Messages a rank sends to itself: the MPI library copies them in memory, no network
//! carries them. With a measured curve ([`SelfCopy`]) the sending half is written as
//! `compute` of the measured copy time and the receiving half and its wait as nothing;
//! without one they stay messages (SimGrid prices them through the node's loopback).
//!
//! Waits and tests: a call that completed requests waits for each of them (`wait`), in
//! the replay as in the run the program goes on only once they are complete; one that
//! completed none (a test that failed) writes nothing (SMPI charges each `test` a fixed
//! delay, which would price a polling loop by its number of polls).

use augur_program_profile::mpi::Event;
use std::collections::HashMap;
use std::fmt::Write as _;

/// The tag of the point-to-point messages a collective on part of the world becomes
/// (above the tags programs use; the replay matches messages on MPI_COMM_WORLD).
pub const COLLECTIVE_TAG: i32 = 2_147_483_000;

/// SMPI's MPI_ANY_SOURCE and MPI_ANY_TAG (`smpi.h`), for receives the trace could not
/// resolve.
const SMPI_ANY_SOURCE: i32 = -555;
const SMPI_ANY_TAG: i32 = -444;

/// The trace's MPI_PROC_NULL: a message to or from it is no message.
const PROC_NULL: i32 = -2;

/// SimGrid 3.32's default all-to-all selects its `pair` algorithm from this block size
/// on, which fails at a rank count that is not a power of two: such an all-to-all is
/// replayed as pairwise messages instead.
const ALLTOALL_PAIR_FROM_BYTES: i64 = 524_288;

/// What a message a rank sends to itself costs: the measured time of one such message
/// by size (the machine's `[mpi]` self messages), written as `compute` at the cores'
/// speed.
#[derive(Debug, Clone)]
pub struct SelfCopy {
    /// Seconds by message size, ascending.
    pub curve: Vec<augur_machine_profile::mpi::Timing>,
    /// The speed `compute` actions run at, operations per second.
    pub flops_per_second: f64,
}

impl SelfCopy {
    /// The `compute` line of a message of `bytes` rank `r` sends to itself.
    fn line(&self, r: u32, bytes: i64) -> String {
        let seconds = augur_machine_profile::mpi::interpolated(&self.curve, bytes.max(0) as u64)
            .unwrap_or(0.0);
        format!("{r} compute {:.0}\n", seconds * self.flops_per_second)
    }
}

/// The state of one rank's translation: its pending requests and the communicators
/// seen so far.
pub struct Translator {
    /// Ranks in MPI_COMM_WORLD.
    ranks: u32,
    /// Pending non-blocking requests by Fortran handle: (source, destination, tag), the
    /// replayer's name of a request.
    requests: HashMap<i64, (i32, i32, i32)>,
    /// Members (world ranks, in rank order) of communicators by Fortran handle.
    comms: HashMap<i32, Vec<u32>>,
    /// Messages to itself as memory copies (none: as messages).
    self_copy: Option<SelfCopy>,
}

/// Where a collective runs, as the replay sees it.
enum Scope {
    /// Every rank: the replayer's collective, with per-rank counts in world order as given
    /// by this map from the communicator's ranks to world ranks (none: the same order).
    World(Option<Vec<u32>>),
    /// Part of the world: point-to-point messages among these members.
    Part(Group),
}

/// A communicator that is part of the world, seen from one of its members.
struct Group {
    /// Its members (world ranks) in its rank order.
    members: Vec<u32>,
    /// This rank's index in `members`.
    me: usize,
}

/// One point-to-point step of a collective among a group (peers as world ranks).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Msg {
    Send(u32, i64),
    Recv(u32, i64),
    Isend(u32, i64),
    Irecv(u32, i64),
    /// Wait for the message sent to this peer.
    WaitSent(u32),
    /// Wait for the message received from this peer.
    WaitReceived(u32),
    /// Operations of a reduction.
    Compute(i64),
}

impl Translator {
    /// A translator for a rank of a run at `ranks` ranks.
    pub fn new(ranks: u32) -> Translator {
        Translator {
            ranks,
            requests: HashMap::new(),
            comms: HashMap::new(),
            self_copy: None,
        }
    }

    /// Messages a rank sends to itself priced as `copy` says (measured memory copies).
    pub fn with_self_copy(mut self, copy: Option<SelfCopy>) -> Translator {
        self.self_copy = copy;
        self
    }

    /// The replayer's lines (each ending in a newline) for one MPI call of rank `r`.
    pub fn lines(&mut self, r: u32, e: &Event) -> String {
        match e.op.as_str() {
            "init" | "finalize" | "barrier" => self.collective(r, e),
            "send" | "recv" | "isend" | "irecv" => self.point_to_point(r, e),
            "sendrecv" => sendrecv(r, e, self.self_copy.as_ref()),
            "wait" => self.wait(r, e.request),
            "waitall" if e.completed.is_empty() && !self.requests.is_empty() => {
                // A profile from before completions were recorded.
                self.requests.clear();
                format!("{r} waitall\n")
            }
            "waitall" | "waitany" | "waitsome" | "test" | "testall" | "testany" | "testsome" => {
                e.completed.iter().map(|&q| self.wait(r, q)).collect()
            }
            "comm" => {
                self.comms.insert(e.comm, e.members.clone());
                String::new()
            }
            "comm_split" | "comm_dup" | "cart_sub" => self.made(r, e),
            _ => self.collective(r, e),
        }
    }

    fn point_to_point(&mut self, r: u32, e: &Event) -> String {
        if e.peer == PROC_NULL {
            // Completes at once: its wait finds no request and writes nothing.
            return String::new();
        }
        let receive = e.op.ends_with("recv");
        let peer = if e.peer < 0 { SMPI_ANY_SOURCE } else { e.peer };
        let tag = match (e.tag < 0, receive) {
            (false, _) => e.tag,
            (true, true) => SMPI_ANY_TAG,
            (true, false) => 0,
        };
        let me = r as i32;
        if let (true, Some(copy)) = (e.peer == me, &self.self_copy) {
            // The send is the copy; the receive and the waits are nothing more.
            return match e.op.as_str() {
                "send" | "isend" => copy.line(r, e.bytes),
                _ => String::new(),
            };
        }
        match e.op.as_str() {
            "isend" => {
                self.requests.insert(e.request, (me, peer, tag));
            }
            "irecv" => {
                self.requests.insert(e.request, (peer, me, tag));
            }
            _ => {}
        }
        format!("{r} {} {peer} {tag} {}\n", e.op, e.bytes.max(0))
    }

    /// The wait for request `q`, if it is pending (a request to MPI_PROC_NULL is not).
    fn wait(&mut self, r: u32, q: i64) -> String {
        match self.requests.remove(&q) {
            Some((src, dst, tag)) => format!("{r} wait {src} {dst} {tag}\n"),
            None => String::new(),
        }
    }

    /// A communicator made: its members kept, its making priced on the parent.
    fn made(&mut self, r: u32, e: &Event) -> String {
        if let (false, Ok(handle)) = (e.members.is_empty(), i32::try_from(e.request)) {
            self.comms.insert(handle, e.members.clone());
        }
        let on_parent = |op: &str, bytes: i64| Event {
            bytes,
            bytes2: bytes,
            comm: e.comm,
            ..Event::new(op)
        };
        let mut out = String::new();
        if e.op != "comm_dup" {
            out += &self.collective(r, &on_parent("allgather", 8));
        }
        out + &self.collective(r, &on_parent("allreduce", 4))
    }

    /// Where a collective on communicator `comm` runs, from rank `r`.
    fn scope(&self, r: u32, comm: i32) -> Scope {
        let Some(members) = self.comms.get(&comm) else {
            // MPI_COMM_WORLD, or a communicator of an older profile.
            return Scope::World(None);
        };
        let mut sorted = members.clone();
        sorted.sort_unstable();
        if sorted.iter().copied().eq(0..self.ranks) {
            let same = members.iter().copied().eq(0..self.ranks);
            return Scope::World((!same).then(|| members.clone()));
        }
        match members.iter().position(|&m| m == r) {
            Some(me) => Scope::Part(Group {
                members: members.clone(),
                me,
            }),
            // Not a member: an inconsistent trace; the call is left out.
            None => Scope::Part(Group {
                members: vec![],
                me: 0,
            }),
        }
    }

    fn collective(&self, r: u32, e: &Event) -> String {
        match self.scope(r, e.comm) {
            Scope::World(order) => self.world_collective(r, e, order.as_deref()),
            Scope::Part(g) if g.members.is_empty() => String::new(),
            Scope::Part(g) => render(r, &part_collective(&g, e)),
        }
    }

    /// The replayer's own collective (or, where SimGrid 3.32 fails on it, its messages).
    fn world_collective(&self, r: u32, e: &Event, order: Option<&[u32]>) -> String {
        let p = self.ranks as usize;
        let (b, b2, root) = (e.bytes.max(0), e.bytes2.max(0), e.peer.max(0));
        let per_rank = |from: usize| world_order(&e.counts, from, p, order);
        let list = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(" ");
        let line = match e.op.as_str() {
            "init" | "finalize" | "barrier" => e.op.clone(),
            "bcast" => format!("bcast {b} {root}"),
            "reduce" => format!("reduce {b} {} {root}", b / 8),
            "allreduce" => format!("allreduce {b} {}", b / 8),
            "gather" | "scatter" => format!("{} {b} {b2} {root}", e.op),
            "allgather" => format!("allgather {b} {b2}"),
            "alltoall"
                if !self.ranks.is_power_of_two() && b.max(b2) >= ALLTOALL_PAIR_FROM_BYTES =>
            {
                let g = Group {
                    members: (0..self.ranks).collect(),
                    me: r as usize,
                };
                return render(r, &part_collective(&g, e));
            }
            "alltoall" => format!("alltoall {b} {b2}"),
            "gatherv" => format!("gatherv {b} {} {root}", list(&per_rank(0))),
            "scatterv" => format!("scatterv {} {b2} {root}", list(&per_rank(0))),
            "allgatherv" => format!("allgatherv {b} {}", list(&per_rank(0))),
            "alltoallv" => {
                let (s, g) = (per_rank(0), per_rank(p));
                let sum = |v: &[i64]| v.iter().sum::<i64>();
                format!(
                    "alltoallv {} {} {} {}",
                    sum(&s),
                    list(&s),
                    sum(&g),
                    list(&g)
                )
            }
            "reduce_scatter" => {
                let c = per_rank(0);
                format!("reducescatter {} {}", list(&c), c.iter().sum::<i64>() / 8)
            }
            // An operation this version does not know: left out of the replay.
            _ => return String::new(),
        };
        format!("{r} {line}\n")
    }
}

/// The `p` counts of `counts` from index `from` (missing ones 0, as at a rank where they
/// do not matter), put in world order by `order` (the world rank of each).
fn world_order(counts: &[i64], from: usize, p: usize, order: Option<&[u32]>) -> Vec<i64> {
    let given = |i: usize| counts.get(from + i).copied().unwrap_or(0).max(0);
    let mut out = vec![0; p];
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = given(i);
    }
    if let Some(order) = order {
        let mut placed = vec![0; p];
        for (i, &w) in order.iter().enumerate() {
            if let Some(s) = placed.get_mut(w as usize) {
                *s = given(i);
            }
        }
        out = placed;
    }
    out
}

/// `sendrecv` as an `isend`, a `recv` and the `wait` of the send (halves to or from
/// MPI_PROC_NULL left out; the source is in `request`; with `copy`, a send to itself is
/// its copy and a receive from itself nothing).
fn sendrecv(r: u32, e: &Event, copy: Option<&SelfCopy>) -> String {
    let (mut dst, mut src) = (e.peer, i32::try_from(e.request).unwrap_or(-1));
    let mut out = String::new();
    if let Some(copy) = copy {
        let me = r as i32;
        if dst == me {
            out += &copy.line(r, e.bytes);
            dst = PROC_NULL;
        }
        if src == me {
            src = PROC_NULL;
        }
    }
    let tag = e.tag.max(0);
    let rtag = e.recv_tag.unwrap_or(e.tag);
    let rtag = if rtag < 0 { SMPI_ANY_TAG } else { rtag };
    if dst != PROC_NULL {
        let _ = writeln!(out, "{r} isend {dst} {tag} {}", e.bytes.max(0));
    }
    if src != PROC_NULL {
        let from = if src < 0 { SMPI_ANY_SOURCE } else { src };
        let _ = writeln!(out, "{r} recv {from} {rtag} {}", e.bytes2.max(0));
    }
    if dst != PROC_NULL {
        let _ = writeln!(out, "{r} wait {r} {dst} {tag}");
    }
    out
}

/// The messages of a collective among group `g` (see the module's documentation).
fn part_collective(g: &Group, e: &Event) -> Vec<Msg> {
    let k = g.members.len();
    let (b, b2) = (e.bytes.max(0), e.bytes2.max(0));
    let root = g
        .members
        .iter()
        .position(|&m| i64::from(m) == i64::from(e.peer))
        .unwrap_or(0);
    let count = |i: usize| e.counts.get(i).copied().unwrap_or(0).max(0);
    let total: i64 = (0..k).map(count).sum();
    match e.op.as_str() {
        "barrier" => [gather(g, 0, 0, &|_| 0), bcast(g, 0, 0)].concat(),
        "bcast" => bcast(g, root, b),
        "reduce" => reduce(g, root, b),
        "allreduce" => [reduce(g, 0, b), bcast(g, 0, b)].concat(),
        "gather" => gather(g, root, b, &|_| b2),
        "gatherv" => gather(g, root, b, &count),
        "scatter" => scatter(g, root, &|_| b, b2),
        "scatterv" => scatter(g, root, &count, b2),
        "allgather" => [gather(g, 0, b, &|_| b2), bcast(g, 0, b2 * k as i64)].concat(),
        "allgatherv" => [gather(g, 0, b, &count), bcast(g, 0, total)].concat(),
        "alltoall" => exchange(g, &|_| b, &|_| b2),
        "alltoallv" => exchange(g, &count, &|i| count(k + i)),
        "reduce_scatter" => [reduce(g, 0, b), scatter(g, 0, &count, b2)].concat(),
        _ => vec![],
    }
}

/// A binomial-tree broadcast of `bytes` from member `root`.
fn bcast(g: &Group, root: usize, bytes: i64) -> Vec<Msg> {
    let k = g.members.len();
    let rel = (g.me + k - root) % k;
    let at = |v: usize| g.members[(v + root) % k];
    let mut out = vec![];
    let mut mask = 1;
    while mask < k {
        if rel & mask != 0 {
            out.push(Msg::Recv(at(rel - mask), bytes));
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if rel + mask < k {
            out.push(Msg::Send(at(rel + mask), bytes));
        }
        mask >>= 1;
    }
    out
}

/// A binomial-tree reduction of `bytes` to member `root`, one operation per 8 bytes
/// received.
fn reduce(g: &Group, root: usize, bytes: i64) -> Vec<Msg> {
    let k = g.members.len();
    let rel = (g.me + k - root) % k;
    let at = |v: usize| g.members[(v + root) % k];
    let mut out = vec![];
    let mut mask = 1;
    while mask < k {
        if rel & mask != 0 {
            out.push(Msg::Send(at(rel & !mask), bytes));
            break;
        }
        if rel | mask < k {
            out.push(Msg::Recv(at(rel | mask), bytes));
            out.push(Msg::Compute(bytes / 8));
        }
        mask <<= 1;
    }
    out
}

/// A linear gather to member `root`: each member sends `sent`, the root receives
/// `from(i)` from member `i`.
fn gather(g: &Group, root: usize, sent: i64, from: &dyn Fn(usize) -> i64) -> Vec<Msg> {
    if g.me != root {
        return vec![Msg::Send(g.members[root], sent)];
    }
    (0..g.members.len())
        .filter(|&i| i != root)
        .map(|i| Msg::Recv(g.members[i], from(i)))
        .collect()
}

/// A linear scatter from member `root`: it sends `to(i)` to member `i`, each other
/// member receives `got`.
fn scatter(g: &Group, root: usize, to: &dyn Fn(usize) -> i64, got: i64) -> Vec<Msg> {
    if g.me != root {
        return vec![Msg::Recv(g.members[root], got)];
    }
    (0..g.members.len())
        .filter(|&i| i != root)
        .map(|i| Msg::Send(g.members[i], to(i)))
        .collect()
}

/// A pairwise exchange: `to(i)` bytes sent to member `i`, `from(i)` received from it,
/// all posted at once and then waited for.
fn exchange(g: &Group, to: &dyn Fn(usize) -> i64, from: &dyn Fn(usize) -> i64) -> Vec<Msg> {
    let others: Vec<usize> = (0..g.members.len()).filter(|&i| i != g.me).collect();
    let mut out = vec![];
    for &i in &others {
        out.push(Msg::Irecv(g.members[i], from(i)));
        out.push(Msg::Isend(g.members[i], to(i)));
    }
    for &i in &others {
        out.push(Msg::WaitReceived(g.members[i]));
        out.push(Msg::WaitSent(g.members[i]));
    }
    out
}

/// The replayer's lines for the messages `msgs` of rank `r`.
fn render(r: u32, msgs: &[Msg]) -> String {
    let t = COLLECTIVE_TAG;
    let mut out = String::new();
    for m in msgs {
        let _ = match *m {
            Msg::Send(p, b) => writeln!(out, "{r} send {p} {t} {b}"),
            Msg::Recv(p, b) => writeln!(out, "{r} recv {p} {t} {b}"),
            Msg::Isend(p, b) => writeln!(out, "{r} isend {p} {t} {b}"),
            Msg::Irecv(p, b) => writeln!(out, "{r} irecv {p} {t} {b}"),
            Msg::WaitSent(p) => writeln!(out, "{r} wait {r} {p} {t}"),
            Msg::WaitReceived(p) => writeln!(out, "{r} wait {p} {r} {t}"),
            Msg::Compute(0) => Ok(()),
            Msg::Compute(f) => writeln!(out, "{r} compute {f}"),
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(op: &str, f: impl FnOnce(&mut Event)) -> Event {
        let mut e = Event::new(op);
        f(&mut e);
        e
    }

    #[test]
    fn v_collectives_on_the_world_are_the_replayers() {
        let mut t = Translator::new(3);
        let g = ev("gatherv", |e| {
            e.peer = 0;
            e.bytes = 8;
            e.counts = vec![8, 16, 24];
        });
        assert_eq!(t.lines(0, &g), "0 gatherv 8 8 16 24 0\n");
        // Away from the root the counts are not recorded: zeros.
        let g1 = ev("gatherv", |e| {
            e.peer = 0;
            e.bytes = 16;
        });
        assert_eq!(t.lines(1, &g1), "1 gatherv 16 0 0 0 0\n");
        let s = ev("scatterv", |e| {
            e.peer = 2;
            e.bytes2 = 24;
            e.counts = vec![8, 16, 24];
        });
        assert_eq!(t.lines(2, &s), "2 scatterv 8 16 24 24 2\n");
        let a = ev("allgatherv", |e| {
            e.bytes = 16;
            e.counts = vec![8, 16, 24];
        });
        assert_eq!(t.lines(1, &a), "1 allgatherv 16 8 16 24\n");
        let v = ev("alltoallv", |e| e.counts = vec![1, 2, 3, 4, 5, 6]);
        assert_eq!(t.lines(0, &v), "0 alltoallv 6 1 2 3 15 4 5 6\n");
        let rs = ev("reduce_scatter", |e| e.counts = vec![80, 80, 160]);
        assert_eq!(t.lines(0, &rs), "0 reducescatter 80 80 160 40\n");
    }

    #[test]
    fn completions_wait_for_the_requests_they_completed() {
        let mut t = Translator::new(2);
        let post = |op: &str, q: i64| {
            ev(op, |e| {
                e.peer = 1;
                e.tag = 3;
                e.bytes = 80;
                e.request = q;
            })
        };
        assert_eq!(t.lines(0, &post("irecv", 5)), "0 irecv 1 3 80\n");
        assert_eq!(t.lines(0, &post("isend", 6)), "0 isend 1 3 80\n");
        // A test that completed nothing writes nothing; waitany completed request 6.
        assert_eq!(t.lines(0, &ev("test", |e| e.request = 5)), "");
        let any = ev("waitany", |e| e.completed = vec![6]);
        assert_eq!(t.lines(0, &any), "0 wait 0 1 3\n");
        let some = ev("waitsome", |e| e.completed = vec![5]);
        assert_eq!(t.lines(0, &some), "0 wait 1 0 3\n");
        // Unresolved wildcards match anything; MPI_PROC_NULL is no message.
        let wild = ev("recv", |e| e.bytes = 8);
        assert_eq!(t.lines(0, &wild), "0 recv -555 -444 8\n");
        let null = ev("isend", |e| {
            e.peer = -2;
            e.request = 9;
        });
        assert_eq!(t.lines(0, &null), "");
        assert_eq!(t.lines(0, &ev("wait", |e| e.request = 9)), "");
    }

    #[test]
    fn messages_to_itself_are_measured_copies() {
        let t = |bytes, seconds| augur_machine_profile::mpi::Timing {
            bytes,
            seconds,
            half_width: 0.0,
            observations: 1,
        };
        let copy = SelfCopy {
            curve: vec![t(0, 1e-7), t(1024, 3e-7)],
            flops_per_second: 1e9,
        };
        let mut t = Translator::new(1).with_self_copy(Some(copy));
        let to_self = |op: &str, q: i64| {
            ev(op, |e| {
                e.peer = 0;
                e.tag = 1;
                e.bytes = 512;
                e.bytes2 = 512;
                e.request = q;
            })
        };
        // 0.2 µs at 1 Gflop/s: 200 operations; the receiving half and the waits: nothing.
        assert_eq!(t.lines(0, &to_self("sendrecv", 0)), "0 compute 200\n");
        assert_eq!(t.lines(0, &to_self("irecv", 4)), "");
        assert_eq!(t.lines(0, &to_self("isend", 5)), "0 compute 200\n");
        assert_eq!(t.lines(0, &ev("waitall", |e| e.completed = vec![4, 5])), "");
        // Without a measured curve it stays a message.
        let plain = Translator::new(1).lines(0, &to_self("sendrecv", 0));
        assert_eq!(plain, "0 isend 0 1 512\n0 recv 0 1 512\n0 wait 0 0 1\n");
    }

    #[test]
    fn sendrecv_receives_with_its_own_tag() {
        let e = ev("sendrecv", |e| {
            e.peer = 1;
            e.tag = 3;
            e.bytes = 8;
            e.bytes2 = 16;
            e.request = 2;
            e.recv_tag = Some(4);
        });
        assert_eq!(
            Translator::new(3).lines(0, &e),
            "0 isend 1 3 8\n0 recv 2 4 16\n0 wait 0 1 3\n"
        );
        let edge = ev("sendrecv", |x| {
            x.peer = -2;
            x.request = 1;
            x.bytes2 = 8;
        });
        assert_eq!(Translator::new(2).lines(0, &edge), "0 recv 1 -444 8\n");
    }

    #[test]
    fn collectives_on_part_of_the_world_are_messages_among_its_members() {
        // Ranks 1, 3 and 5 of 6 split off as communicator 3.
        let mut t = Translator::new(6);
        let split = ev("comm_split", |e| {
            e.request = 3;
            e.members = vec![1, 3, 5];
        });
        // Its cost on the world: an allgather of 8 bytes and an allreduce of 4.
        assert_eq!(t.lines(3, &split), "3 allgather 8 8\n3 allreduce 4 0\n");
        let bcast = ev("bcast", |e| {
            e.peer = 1;
            e.bytes = 100;
            e.comm = 3;
        });
        let tag = COLLECTIVE_TAG;
        assert_eq!(
            t.lines(1, &bcast),
            format!("1 send 5 {tag} 100\n1 send 3 {tag} 100\n")
        );
        assert_eq!(t.lines(5, &bcast), format!("5 recv 1 {tag} 100\n"));
        let reduce = ev("allreduce", |e| {
            e.bytes = 80;
            e.comm = 3;
        });
        assert_eq!(
            t.lines(1, &reduce),
            format!(
                "1 recv 3 {tag} 80\n1 compute 10\n1 recv 5 {tag} 80\n1 compute 10\n1 send 5 {tag} 80\n1 send 3 {tag} 80\n"
            )
        );
        let gv = ev("gatherv", |e| {
            e.peer = 3;
            e.bytes = 8;
            e.counts = vec![16, 8, 24];
            e.comm = 3;
        });
        assert_eq!(
            t.lines(3, &gv),
            format!("3 recv 1 {tag} 16\n3 recv 5 {tag} 24\n")
        );
        // A duplicate of the world: the replayer's collective, counts in world order.
        let dup = ev("comm_dup", |e| {
            e.request = 4;
            e.members = vec![0, 1, 2, 3, 4, 5];
        });
        assert_eq!(t.lines(0, &dup), "0 allreduce 4 0\n");
        let on_dup = ev("allgatherv", |e| {
            e.comm = 4;
            e.bytes = 1;
            e.counts = vec![1, 2, 3, 4, 5, 6];
        });
        assert_eq!(t.lines(0, &on_dup), "0 allgatherv 1 1 2 3 4 5 6\n");
        // Reversed ranks: the counts follow the world ranks.
        t.lines(
            0,
            &ev("comm", |e| {
                e.comm = 7;
                e.members = vec![5, 4, 3, 2, 1, 0];
            }),
        );
        let rev = ev("allgatherv", |e| {
            e.comm = 7;
            e.bytes = 1;
            e.counts = vec![1, 2, 3, 4, 5, 6];
        });
        assert_eq!(t.lines(0, &rev), "0 allgatherv 1 6 5 4 3 2 1\n");
    }

    #[test]
    fn a_cartesian_row_costs_a_split_and_its_collectives_stay_in_it() {
        // Row 1 of a 2x3 grid, kept by MPI_Cart_sub as communicator 5.
        let mut t = Translator::new(6);
        let sub = ev("cart_sub", |e| {
            e.request = 5;
            e.members = vec![3, 4, 5];
        });
        assert_eq!(t.lines(4, &sub), "4 allgather 8 8\n4 allreduce 4 0\n");
        let bcast = ev("bcast", |e| {
            e.peer = 3;
            e.bytes = 16;
            e.comm = 5;
        });
        let tag = COLLECTIVE_TAG;
        assert_eq!(t.lines(4, &bcast), format!("4 recv 3 {tag} 16\n"));
    }

    #[test]
    fn a_large_alltoall_at_three_ranks_is_pairwise_messages() {
        let big = ev("alltoall", |e| {
            e.bytes = 1 << 20;
            e.bytes2 = 1 << 20;
        });
        let lines = Translator::new(3).lines(1, &big);
        assert_eq!(lines.lines().count(), 8, "{lines}");
        assert!(lines.starts_with(&format!("1 irecv 0 {COLLECTIVE_TAG} 1048576\n")));
        assert_eq!(
            Translator::new(4).lines(1, &big),
            "1 alltoall 1048576 1048576\n"
        );
    }

    #[test]
    fn trees_cover_every_member_once() {
        // Every member but the root receives exactly once, from an earlier step's member.
        for k in 1..=9 {
            for root in 0..k {
                let received: usize = (0..k)
                    .map(|me| {
                        let g = Group {
                            members: (0..k as u32).collect(),
                            me,
                        };
                        let b = bcast(&g, root, 1);
                        let r = reduce(&g, root, 8);
                        let recvs = b.iter().filter(|m| matches!(m, Msg::Recv(..))).count();
                        let sends = r.iter().filter(|m| matches!(m, Msg::Send(..))).count();
                        assert_eq!(recvs, sends, "k {k} root {root} me {me}");
                        recvs
                    })
                    .sum();
                assert_eq!(received, k - 1, "k {k} root {root}");
            }
        }
    }
}
