//! The coherence granularity by false sharing: a line size no prefetcher can fake.
//!
//! Two threads (on two CPUs) each increment their own word of one page-aligned buffer
//! with an atomic read-modify-write, the words `d` bytes apart. While `d` is below the
//! line size of the coherent (core-private) caches, both words sit in one line, which
//! must move between the cores for every increment (false sharing), and an increment
//! takes several times as long as when each core owns its line. The line is the smallest
//! distance from which the increments stay fast. The stride sweep and the capacity tests
//! see the adjacent-line prefetcher's pairs of lines as one bigger line; ownership is
//! still given per line, so this measurement is blind to prefetching.
//!
//! Each round runs both threads over the same number of increments and is kept only
//! when they ran together (their intervals overlap by at least [`OVERLAP`] of the
//! longer): another process on one of the CPUs makes the threads take turns, and turns
//! show no sharing. A distance keeps the fastest kept round (disturbances only add
//! time). The curve is stored as a `[[memory.chase]]` of order [`ORDER`]: `size_bytes`
//! the distances, `ns` the time per increment.

use crate::run::round4;
use augur_machine_profile::memory::ChaseCurve;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// The order name of the false-sharing curve among the chases.
pub const ORDER: &str = "false sharing";

/// The distances between the two threads' words, bytes: 8 B to 1 KiB, and a page (two
/// lines that certainly differ, the reference).
pub const DISTANCES: [u64; 9] = [8, 16, 32, 64, 128, 256, 512, 1024, 4096];

/// Increments per thread and round.
pub const INCREMENTS: u64 = 100_000;

/// The share of the longer thread's interval the two must run together.
pub const OVERLAP: f64 = 0.9;

/// A distance counts as shared (one line) when its increments take this factor of the
/// reference's (the page distance).
pub const SHARED: f64 = 1.5;

#[repr(C, align(4096))]
struct Page([AtomicU64; 1024]);

struct Shared {
    page: Page,
    /// The round the helper is to run (`usize::MAX`: stop).
    go: AtomicUsize,
    /// The helper's word, index into `page`.
    word: AtomicUsize,
    /// The round the helper is running (set as it starts).
    ready: AtomicUsize,
}

fn increments(w: &AtomicU64, n: u64) -> (Instant, Instant) {
    let t0 = Instant::now();
    for _ in 0..n {
        w.fetch_add(1, Ordering::Relaxed);
    }
    (t0, Instant::now())
}

/// The number of CPUs this process may run on.
pub fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Measures the false-sharing curve: `min_rounds` kept rounds per distance, within
/// `budget` of time in all. `None` with a single CPU, or when no distance got a kept
/// round (the two threads never ran together).
pub fn measure(min_rounds: u32, budget: Duration) -> Option<ChaseCurve> {
    if cpus() < 2 {
        return None;
    }
    let s = Arc::new(Shared {
        page: Page(std::array::from_fn(|_| AtomicU64::new(0))),
        go: AtomicUsize::new(0),
        word: AtomicUsize::new(0),
        ready: AtomicUsize::new(0),
    });
    let (tx, rx) = mpsc::channel();
    let helper = {
        let s = s.clone();
        std::thread::spawn(move || {
            let mut seen = 0;
            loop {
                let g = loop {
                    let g = s.go.load(Ordering::Acquire);
                    if g != seen {
                        break g;
                    }
                    std::hint::spin_loop();
                };
                seen = g;
                if g == usize::MAX {
                    return;
                }
                s.ready.store(g, Ordering::Release);
                let word = &s.page.0[s.word.load(Ordering::Relaxed)];
                if tx.send(increments(word, INCREMENTS)).is_err() {
                    return;
                }
            }
        })
    };
    let mut best = [f64::INFINITY; DISTANCES.len()];
    let mut kept = [0u32; DISTANCES.len()];
    let start = Instant::now();
    let mut round = 0;
    while start.elapsed() < budget && kept.iter().any(|&k| k < min_rounds) {
        for (k, &d) in DISTANCES.iter().enumerate() {
            round += 1;
            s.word.store((d / 8) as usize, Ordering::Relaxed);
            s.go.store(round, Ordering::Release);
            // Start together: when the helper is running (not while it waits for a CPU).
            while s.ready.load(Ordering::Acquire) != round {
                std::hint::spin_loop();
            }
            let (a0, a1) = increments(&s.page.0[0], INCREMENTS);
            let Ok((b0, b1)) = rx.recv() else {
                return None;
            };
            let together = a1.min(b1).saturating_duration_since(a0.max(b0));
            let longer = (a1 - a0).max(b1 - b0);
            if together.as_secs_f64() >= OVERLAP * longer.as_secs_f64() {
                kept[k] += 1;
                best[k] = best[k].min(longer.as_nanos() as f64 / INCREMENTS as f64);
            }
        }
    }
    s.go.store(usize::MAX, Ordering::Release);
    let _ = helper.join();
    let (size_bytes, ns): (Vec<u64>, Vec<f64>) = DISTANCES
        .iter()
        .zip(best)
        .filter(|(_, t)| t.is_finite())
        .map(|(&d, t)| (d, round4(t)))
        .unzip();
    (!size_bytes.is_empty()).then(|| ChaseCurve {
        order: ORDER.into(),
        size_bytes,
        ns,
    })
}

/// The coherence line read off a false-sharing curve: the distance from which every
/// increment takes less than [`SHARED`] times the reference (the largest distance, a
/// page) while every smaller distance takes more. `None` when no distance is slow (the
/// two CPUs share their caches, e.g. two hardware threads of one core) or the curve is
/// not such a step (disturbed).
pub fn line(c: &ChaseCurve) -> Option<u64> {
    let n = c.size_bytes.len().min(c.ns.len());
    if n < 3 {
        return None;
    }
    let reference = c.ns[n - 1];
    let slow: Vec<bool> = c.ns[..n].iter().map(|&t| t > SHARED * reference).collect();
    let k = slow.iter().position(|s| !s)?;
    (k > 0 && slow[k..].iter().all(|s| !s)).then(|| c.size_bytes[k])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(ns: &[f64]) -> ChaseCurve {
        ChaseCurve {
            order: ORDER.into(),
            size_bytes: DISTANCES.to_vec(),
            ns: ns.to_vec(),
        }
    }

    #[test]
    fn the_line_is_where_the_sharing_stops() {
        let c = curve(&[12.5, 12.4, 12.6, 4.6, 4.7, 4.6, 4.6, 4.6, 4.6]);
        assert_eq!(line(&c), Some(64));
        let c = curve(&[30.0, 31.0, 29.0, 30.0, 5.0, 5.1, 5.0, 5.0, 5.0]);
        assert_eq!(line(&c), Some(128));
        // No slowdown anywhere: the CPUs share a cache.
        let c = curve(&[4.6; 9]);
        assert_eq!(line(&c), None);
        // A disturbed larger distance: not a line.
        let c = curve(&[12.5, 12.4, 12.6, 4.6, 4.7, 9.6, 4.6, 4.6, 4.6]);
        assert_eq!(line(&c), None);
    }

    #[test]
    fn this_machine_gives_a_curve() {
        // Only checks that the measurement runs and returns sane numbers.
        if let Some(c) = measure(1, Duration::from_millis(300)) {
            eprintln!("{c:?}");
            assert!(c.ns.iter().all(|&t| t > 0.0 && t.is_finite()));
        }
    }
}
