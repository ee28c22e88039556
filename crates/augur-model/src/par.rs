//! Work spread over the host's cores: a prediction's pieces that do not depend on each
//! other (its compiled loops' replays, the misses of each cache level and TLB step) are
//! few and coarse, so std's scoped threads taking the next piece from a shared counter
//! are enough, without a thread pool.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// `f` of each of `items`, in their order, computed on as many threads as the host has
/// cores (on the calling thread alone for a single item or core).
pub(crate) fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    if threads < 2 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(k) else {
                    break;
                };
                let r = f(item);
                if let Ok(mut slot) = results[k].lock() {
                    *slot = Some(r);
                }
            });
        }
    });
    // A thread that panicked has panicked the scope: every slot holds its result.
    results
        .into_iter()
        .filter_map(|m| m.into_inner().ok().flatten())
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_come_in_the_order_of_the_items() {
        let items: Vec<u64> = (0..100).collect();
        let squares = super::map(&items, |x| x * x);
        assert_eq!(squares, items.iter().map(|x| x * x).collect::<Vec<_>>());
        assert!(super::map(&[] as &[u64], |x| *x).is_empty());
    }
}
