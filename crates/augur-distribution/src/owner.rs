//! Which processor owns an index of a distributed dimension, and how many indices of
//! a range each one owns (HPF's BLOCK, BLOCK(m), CYCLIC(m)).

use crate::spec::Format;

/// One dimension of a distributed array laid out over one axis of the grid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DimLayout {
    /// The dimension's lower bound.
    pub lower: i64,
    /// Its extent.
    pub extent: i64,
    /// Its format.
    pub format: Format,
    /// Processors along its axis of the grid (1 for a collapsed dimension).
    pub procs: u32,
}

impl DimLayout {
    /// Indices per block: BLOCK's ⌈n/p⌉ (or its m), CYCLIC's m; the extent when collapsed.
    pub fn block(&self) -> i64 {
        match self.format {
            Format::Collapsed => self.extent.max(1),
            Format::Block(Some(m)) | Format::Cyclic(m) => m.max(1),
            Format::Block(None) => {
                let p = i64::from(self.procs.max(1));
                ((self.extent + p - 1) / p).max(1)
            }
        }
    }

    /// The coordinate along the axis that owns `index` (indices beyond the bounds go to
    /// the nearest end's owner).
    pub fn owner(&self, index: i64) -> u32 {
        let p = i64::from(self.procs.max(1));
        let k = (index - self.lower).clamp(0, (self.extent - 1).max(0));
        let b = k / self.block();
        let c = match self.format {
            Format::Cyclic(_) => b % p,
            _ => b.min(p - 1),
        };
        c as u32
    }

    /// The indices of `lo..=hi` (step 1) that coordinate `c` owns; indices beyond the
    /// bounds count for the nearest end's owner.
    pub fn owned_in(&self, c: u32, lo: i64, hi: i64) -> i64 {
        if hi < lo {
            return 0;
        }
        let last = self.lower + self.extent - 1;
        let mut n = self.owned_up_to(c, hi.min(last)) - self.owned_up_to(c, lo.max(self.lower) - 1);
        if lo < self.lower && self.owner(self.lower) == c {
            n += self.lower.min(hi + 1) - lo;
        }
        if hi > last && self.owner(last) == c {
            n += hi - last.max(lo - 1);
        }
        n.max(0)
    }

    /// Indices `lower..=x` that `c` owns.
    fn owned_up_to(&self, c: u32, x: i64) -> i64 {
        let k = x - self.lower + 1; // indices counted
        if k <= 0 {
            return 0;
        }
        let (b, p, c) = (self.block(), i64::from(self.procs.max(1)), i64::from(c));
        match self.format {
            Format::Collapsed => k,
            Format::Cyclic(_) => {
                let cycle = b * p;
                (k / cycle) * b + (k % cycle - c * b).clamp(0, b)
            }
            Format::Block(_) => {
                let end = if c == p - 1 { k } else { (c + 1) * b };
                (k.min(end) - c * b).max(0)
            }
        }
    }

    /// The indices coordinate `c` holds.
    pub fn local_extent(&self, c: u32) -> i64 {
        self.owned_in(c, self.lower, self.lower + self.extent - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(d: &DimLayout, c: u32, lo: i64, hi: i64) -> i64 {
        (lo..=hi).filter(|&i| d.owner(i) == c).count() as i64
    }

    #[test]
    fn counts_agree_with_the_owner_of_each_index() {
        for format in [
            Format::Block(None),
            Format::Block(Some(7)),
            Format::Cyclic(1),
            Format::Cyclic(3),
        ] {
            for procs in [1, 2, 3, 4, 5] {
                let d = DimLayout {
                    lower: 0,
                    extent: 22,
                    format,
                    procs,
                };
                if let Format::Block(Some(m)) = format {
                    if m * i64::from(procs) < 22 {
                        continue;
                    }
                }
                for c in 0..procs {
                    for (lo, hi) in [(0, 21), (1, 20), (-2, 25), (5, 9), (9, 5)] {
                        assert_eq!(
                            d.owned_in(c, lo, hi),
                            brute(&d, c, lo, hi),
                            "{format} p={procs} c={c} {lo}..{hi}"
                        );
                    }
                }
                let total: i64 = (0..procs).map(|c| d.local_extent(c)).sum();
                assert_eq!(total, 22);
            }
        }
    }

    #[test]
    fn block_gives_the_last_processor_the_remainder() {
        let d = DimLayout {
            lower: 1,
            extent: 10,
            format: Format::Block(None),
            procs: 4,
        };
        let sizes: Vec<i64> = (0..4).map(|c| d.local_extent(c)).collect();
        assert_eq!(sizes, vec![3, 3, 3, 1]);
        assert_eq!(d.owner(4), 1);
    }
}
