//! Reuse distances within a line's page-offset class.
//!
//! A first-level cache of 64-byte lines whose ways span a 4 KiB page (64 sets: every
//! x86 core's L1d of 32 or 48 KiB) is indexed by the address bits inside the page, and
//! the physically indexed levels behind it take those same bits for the low part of
//! their set index. Two lines compete for a set only when they share that offset: the
//! *class* of a line is its index inside its page. A strided walk at a multiple of
//! the page touches one class; the lines another array's walk (or another row of the
//! same array) brings in between two uses of its line compete with it only when they
//! fall in its class. [`ClassReuse`] measures the reuse distance of every access
//! counting only the lines of its class (machine-independent: it depends on the line
//! and the page size alone), the distance a cache's set actually sees.

use crate::reuse::{Histogram, NestArrayHistogram, ReuseAnalyzer, ReuseConfig, ReuseReport};
use crate::Access;
use std::collections::btree_map::{BTreeMap, Entry};

/// The classes of a 4 KiB page of `line_bytes` lines (at least one).
pub fn classes_per_page(line_bytes: u64, page_bytes: u64) -> u64 {
    (page_bytes / line_bytes.max(1)).max(1)
}

/// The classes a walk at `stride_bytes` cycles through: all of them unless the stride
/// is a multiple of a line, then the page's classes over their greatest common
/// divisor with the stride in lines (one for a multiple of the page).
pub fn classes_reached(stride_bytes: u64, line_bytes: u64, page_bytes: u64) -> u64 {
    let classes = classes_per_page(line_bytes, page_bytes);
    if line_bytes == 0 || stride_bytes == 0 || stride_bytes % line_bytes != 0 {
        return classes;
    }
    let (mut a, mut b) = (stride_bytes / line_bytes, classes);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    classes / a.max(1)
}

/// One reuse analyzer per page-offset class (see the module docs); each access goes
/// to its line's class, so its distance counts the distinct lines of that class alone.
#[derive(Clone, Debug)]
pub struct ClassReuse {
    classes: Vec<ReuseAnalyzer>,
    line_shift: u32,
}

impl ClassReuse {
    /// Analyzers for the classes of `page_bytes` pages of `config`'s lines, sharing its
    /// limit of tracked lines.
    pub fn new(config: ReuseConfig, page_bytes: u64) -> ClassReuse {
        let n = classes_per_page(config.line_bytes, page_bytes);
        let per = ReuseConfig {
            max_lines: (config.max_lines / n as usize).max(1024),
            ..config
        };
        ClassReuse {
            classes: (0..n)
                .map(|_| ReuseAnalyzer::new(per).without_write_backs())
                .collect(),
            line_shift: config.line_bytes.trailing_zeros(),
        }
    }

    /// [`ReuseAnalyzer::set_nest`] on every class.
    pub fn set_nest(&mut self, nest: u32) {
        self.classes.iter_mut().for_each(|c| c.set_nest(nest));
    }

    /// [`ReuseAnalyzer::attribute_to`] on every class.
    pub fn attribute_to(&mut self, nest: u32) {
        self.classes.iter_mut().for_each(|c| c.attribute_to(nest));
    }

    /// [`ReuseAnalyzer::sample_at_most`] on every class.
    pub fn sample_at_most(&mut self, shift: u32) {
        self.classes
            .iter_mut()
            .for_each(|c| c.sample_at_most(shift));
    }

    /// Records one access in its line's class.
    #[inline]
    pub fn access(&mut self, a: Access) {
        let n = self.classes.len() as u64;
        let class = (a.addr >> self.line_shift) % n;
        self.classes[class as usize].access(a);
    }

    /// The classes' histograms merged per nest and array (their `histogram` and
    /// `entering` parts; write-backs and stores are the line analyzer's).
    pub fn report(&self) -> ReuseReport {
        let mut merged: BTreeMap<(u32, u32), NestArrayHistogram> = BTreeMap::new();
        let (mut accesses, mut measured, mut tracked, mut peak) = (0, 0, 0, 0);
        let mut rate: f64 = 1.0;
        for c in &self.classes {
            let r = c.report();
            accesses += r.accesses;
            measured += r.measured_accesses;
            tracked += r.tracked_lines;
            peak += r.peak_bytes;
            rate = rate.min(r.sample_rate);
            for h in r.histograms {
                match merged.entry((h.nest, h.array)) {
                    Entry::Occupied(mut m) => {
                        let m = m.get_mut();
                        m.histogram.merge(&h.histogram);
                        m.entering.merge(&h.entering);
                    }
                    Entry::Vacant(v) => {
                        v.insert(NestArrayHistogram {
                            writebacks: Histogram::default(),
                            stores: Histogram::default(),
                            ..h
                        });
                    }
                }
            }
        }
        let merged: Vec<NestArrayHistogram> = merged.into_values().collect();
        ReuseReport {
            line_bytes: 1 << self.line_shift,
            accesses,
            measured_accesses: measured,
            sampled: rate < 1.0,
            sample_rate: rate,
            tracked_lines: tracked,
            peak_bytes: peak,
            histograms: merged,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(addr: u64, array: u32) -> Access {
        Access {
            addr,
            array,
            write: false,
        }
    }

    #[test]
    fn a_walk_of_another_class_does_not_count_between_two_uses() {
        // Two rows of a matrix of 8 KiB columns, walked in turn over 100 columns:
        // row 0 in class 0, row 8 (64 bytes on) in class 1. Each line of row 0 is used
        // again after 199 other lines, 99 of them its own class's.
        let mut c = ClassReuse::new(ReuseConfig::default(), 4096);
        let mut all = ReuseAnalyzer::new(ReuseConfig::default());
        for _ in 0..2 {
            for row in [0u64, 64] {
                for col in 0..100u64 {
                    let a = read(row + col * 8192, 0);
                    c.access(a);
                    all.access(a);
                }
            }
        }
        let class_h = &c.report().histograms[0].histogram;
        let all_h = &all.report().histograms[0].histogram;
        assert_eq!(class_h.total(), 400);
        assert_eq!(class_h.cold, 200);
        // A 12-way set holds 12 lines of a class: 100 lines of a class all miss it, and
        // a cache of 150 lines in all misses every reuse at 199, none of a class's 99.
        assert_eq!(all_h.misses_fully_associative(150), 400.0);
        assert_eq!(class_h.misses_fully_associative(150), 200.0);
        assert_eq!(class_h.misses_fully_associative(12), 400.0);
    }

    #[test]
    fn the_classes_a_stride_reaches() {
        assert_eq!(classes_reached(8192, 64, 4096), 1);
        assert_eq!(classes_reached(6400, 64, 4096), 16);
        assert_eq!(classes_reached(8000, 64, 4096), 64);
        assert_eq!(classes_reached(5600, 64, 4096), 64);
        assert_eq!(classes_reached(8, 64, 4096), 64);
    }
}
