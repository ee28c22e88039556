//! Long replays sampled. SimGrid replays every action, so a time loop of a thousand
//! steps at a thousand ranks costs minutes; but after some repetitions a repeated pattern
//! takes the same time each. A run whose ranks all repeat the same records the same
//! number of times is replayed with every record's repeats cut to `k` and to `2k`; the
//! difference is the time of the repetitions added, extended to those left out in
//! proportion to each record's cost per repetition (its computing and its messages on the
//! idle network, on the rank where they are largest). The caller doubles `k` until two
//! successive extensions agree ([`AGREE`]): a pipeline's skew between ranks can take
//! tens of repetitions to settle.

use augur_program_profile::mpi::{MpiRun, RankTrace, Record};

/// Repetitions of each record in the first, shorter sampled replay.
pub const K: u64 = 4;

/// Calls over all ranks from which a run is replayed sampled.
pub const SAMPLE_FROM_CALLS: u64 = 400_000;

/// Two successive extensions closer than this (relative) end the doubling.
pub const AGREE: f64 = 0.002;

/// A long run and what each record's repetition costs.
#[derive(Debug, Clone)]
pub struct Sampler<'a> {
    run: &'a MpiRun,
    /// Per record: its repeats and its largest cost of one repetition over the ranks.
    records: Vec<(u64, f64)>,
    /// Calls of the whole run.
    pub calls: u64,
}

impl<'a> Sampler<'a> {
    /// A sampler of `run` when it is long ([`SAMPLE_FROM_CALLS`]) and its ranks share
    /// their records' repeats; `cost(rank, record)` is the seconds one repetition of a
    /// record takes on an idle machine.
    pub fn new(run: &'a MpiRun, cost: &dyn Fn(usize, usize) -> f64) -> Option<Sampler<'a>> {
        let first = run.traces.first()?;
        let calls: u64 = run.traces.iter().map(|t| t.calls).sum();
        let aligned = run.traces.iter().all(|t| {
            t.records.len() == first.records.len()
                && t.records
                    .iter()
                    .zip(&first.records)
                    .all(|(a, b)| a.repeat == b.repeat)
        });
        if calls < SAMPLE_FROM_CALLS || !aligned {
            return None;
        }
        let records: Vec<(u64, f64)> = first
            .records
            .iter()
            .enumerate()
            .map(|(i, rec)| {
                let w = (0..run.traces.len())
                    .map(|r| cost(r, i))
                    .fold(0.0, f64::max);
                (rec.repeat, w)
            })
            .collect();
        let s = Sampler {
            run,
            records,
            calls,
        };
        (s.factor(K).is_some()).then_some(s)
    }

    /// The run with every record's repeats cut to `k`.
    pub fn cut(&self, k: u64) -> MpiRun {
        MpiRun {
            traces: self.run.traces.iter().map(|t| cut_trace(t, k)).collect(),
            ..self.run.clone()
        }
    }

    /// Calls of the run cut to `k`.
    pub fn calls_at(&self, k: u64) -> u64 {
        self.run
            .traces
            .iter()
            .map(|t| {
                t.records
                    .iter()
                    .map(|r| r.repeat.min(k) * calls_of(r))
                    .sum::<u64>()
            })
            .sum()
    }

    /// How far the difference between the runs cut to `k` and `2k` extends to the whole
    /// run (`None`: nothing is left out, or nothing added).
    pub fn factor(&self, k: u64) -> Option<f64> {
        let (mut added, mut left) = (0.0, 0.0);
        for &(r, w) in &self.records {
            added += (r.min(2 * k) - r.min(k)) as f64 * w;
            left += (r - r.min(2 * k)) as f64 * w;
        }
        (added > 0.0 && left > 0.0).then(|| left / added)
    }
}

/// Calls one repetition of a record makes.
fn calls_of(rec: &Record) -> u64 {
    rec.steps.iter().filter(|s| s.event.is_call()).count() as u64
}

fn cut_trace(t: &RankTrace, k: u64) -> RankTrace {
    let records: Vec<Record> = t
        .records
        .iter()
        .map(|rec| Record {
            repeat: rec.repeat.min(k),
            steps: rec.steps.clone(),
        })
        .collect();
    RankTrace {
        rank: t.rank,
        calls: records.iter().map(|r| r.repeat * calls_of(r)).sum(),
        records,
    }
}

/// A quantity of the whole run from its values cut to `k` and to `2k`, given the factor.
pub fn extend(factor: f64, short: f64, long: f64) -> f64 {
    long + (long - short) * factor
}

#[cfg(test)]
mod tests {
    use super::*;
    use augur_program_profile::mpi::{Event, Step};

    fn rank(r: u32, repeats: &[u64]) -> RankTrace {
        let records: Vec<Record> = repeats
            .iter()
            .map(|&repeat| Record {
                repeat,
                steps: vec![Step {
                    segment: vec![],
                    event: Event::new("barrier"),
                }],
            })
            .collect();
        RankTrace {
            rank: r,
            calls: repeats.iter().sum(),
            records,
        }
    }

    #[test]
    fn long_aligned_runs_are_cut_and_extended_by_cost() {
        let run = MpiRun {
            ranks: 2,
            wall_seconds: 0.0,
            traces: vec![rank(0, &[1, 300_000, 1]), rank(1, &[1, 300_000, 1])],
        };
        let s = Sampler::new(&run, &|_, i| if i == 1 { 2.0 } else { 1.0 }).unwrap();
        let (short, long) = (s.cut(K), s.cut(2 * K));
        assert_eq!(long.traces[1].records[1].repeat, 2 * K);
        assert_eq!(short.traces[0].records[1].repeat, K);
        assert_eq!(short.traces[0].records[0].repeat, 1);
        assert_eq!(s.calls_at(K), 2 * (K + 2));
        // One record grows: the factor is its repetitions left over those added.
        let f = s.factor(K).unwrap();
        assert!((f - (300_000 - 2 * K) as f64 / K as f64).abs() < 1e-9);
        // 10 s at K, 18 s at 2K: 2 s a repetition.
        let full = extend(f, 10.0, 18.0);
        assert!((full - (18.0 + 2.0 * (300_000 - 2 * K) as f64)).abs() < 1e-6);
    }

    #[test]
    fn short_or_unaligned_runs_are_replayed_whole() {
        let short = MpiRun {
            ranks: 2,
            wall_seconds: 0.0,
            traces: vec![rank(0, &[100]), rank(1, &[100])],
        };
        assert!(Sampler::new(&short, &|_, _| 1.0).is_none());
        let unaligned = MpiRun {
            ranks: 2,
            wall_seconds: 0.0,
            traces: vec![rank(0, &[300_000]), rank(1, &[1, 299_999])],
        };
        assert!(Sampler::new(&unaligned, &|_, _| 1.0).is_none());
    }
}
