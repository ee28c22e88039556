//! The communication matrix of a traced run: bytes and messages sent from each rank to
//! each other, point to point (collectives are counted apart, per rank: how a library
//! moves their data is its own).

use augur_program_profile::mpi::MpiRun;
use serde::Serialize;

/// Bytes and messages from rank to rank.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Matrix {
    /// Ranks.
    pub ranks: u32,
    /// `bytes[src][dst]`, point to point.
    pub bytes: Vec<Vec<u64>>,
    /// `messages[src][dst]`, point to point.
    pub messages: Vec<Vec<u64>>,
    /// Per rank: collective calls and the bytes it gave them.
    pub collective: Vec<(u64, u64)>,
}

impl Matrix {
    /// The matrix of `run`'s traces (every record times its repeat count).
    pub fn of(run: &MpiRun) -> Matrix {
        let n = run.ranks as usize;
        let mut m = Matrix {
            ranks: run.ranks,
            bytes: vec![vec![0; n]; n],
            messages: vec![vec![0; n]; n],
            collective: vec![(0, 0); n],
        };
        for t in &run.traces {
            let src = t.rank as usize;
            for record in &t.records {
                for step in &record.steps {
                    m.add(src, &step.event, record.repeat);
                }
            }
        }
        m
    }

    fn add(&mut self, src: usize, e: &augur_program_profile::mpi::Event, times: u64) {
        let bytes = e.bytes.max(0) as u64;
        match e.op.as_str() {
            "send" | "isend" | "sendrecv" => {
                let Some(dst) = usize::try_from(e.peer)
                    .ok()
                    .filter(|&d| d < self.bytes.len())
                else {
                    return;
                };
                if src < self.bytes.len() {
                    self.bytes[src][dst] += bytes * times;
                    self.messages[src][dst] += times;
                }
            }
            op if !e.is_call()
                || matches!(op, "recv" | "irecv" | "init" | "finalize")
                || op.starts_with("wait")
                || op.starts_with("test") => {}
            _ => {
                if let Some(c) = self.collective.get_mut(src) {
                    c.0 += times;
                    c.1 += bytes * times;
                }
            }
        }
    }

    /// The pairs that exchanged data, most bytes first: (src, dst, bytes, messages).
    pub fn pairs(&self) -> Vec<(u32, u32, u64, u64)> {
        let mut v = vec![];
        for (s, row) in self.bytes.iter().enumerate() {
            for (d, &b) in row.iter().enumerate() {
                let msgs = self.messages[s][d];
                if msgs > 0 {
                    v.push((s as u32, d as u32, b, msgs));
                }
            }
        }
        v.sort_by(|a, b| b.2.cmp(&a.2).then(b.3.cmp(&a.3)));
        v
    }

    /// The matrix as CSV: `src,dst,bytes,messages` per pair that exchanged data.
    pub fn csv(&self) -> String {
        let mut s = String::from("src,dst,bytes,messages\n");
        for (a, b, bytes, msgs) in self.pairs() {
            s += &format!("{a},{b},{bytes},{msgs}\n");
        }
        s
    }
}
