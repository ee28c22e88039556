//! Exact cache models: set-associative LRU caches, TLBs and hierarchies.
//!
//! A [`Cache`] is `sets × ways` lines of `line_bytes` each; a line number
//! `addr / line_bytes` maps to set `line mod sets` (the low bits of the line
//! number when `sets` is a power of two, as in Saavedra's model and in real
//! L1 caches) and the set keeps its lines in LRU order. Direct-mapped is
//! `ways = 1`, fully associative is one set (`assoc = 0` in
//! [`CacheGeometry::new`]). A TLB is the same structure with the page as
//! its line ([`Cache::tlb`]).
//!
//! Every access is counted as a hit or a miss, per array id and per
//! read/write ([`CacheStats`]). Caches are write-allocate: a store that
//! misses loads the line like a load does; write-backs are not counted.
//!
//! A [`Hierarchy`] passes each access to the first level and, on a miss, to
//! the next, so level `k` sees the misses of level `k-1`. It does not
//! back-invalidate upper levels when a lower level evicts a line (the simple
//! "inclusive by size" model); for LRU levels of growing size this differs
//! from a strictly inclusive hierarchy only by the rare lines the upper
//! level keeps after the lower one dropped them. An optional TLB sees every
//! access, independently of the caches.
//!
//! Sets with at most [`SMALL_WAYS`] ways are kept as small arrays in MRU
//! order (a scan and a rotate per access); wider sets (fully associative
//! caches, TLBs with hundreds of entries) use a hash map and an intrusive
//! doubly linked list per set, `O(1)` per access.

use crate::hash::{map_with_capacity, MixMap};
use crate::Access;
use serde::{Deserialize, Serialize};

/// Sets up to this many ways use the linear (array) representation.
pub const SMALL_WAYS: u32 = 16;

/// Size, line size and associativity of a cache (or entries, page size and
/// associativity of a TLB).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheGeometry {
    /// Capacity in bytes.
    pub size_bytes: u64,
    /// Line (block) size in bytes; a power of two.
    pub line_bytes: u64,
    /// Lines per set.
    pub ways: u32,
}

/// Why a cache geometry is not valid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GeometryError {
    /// The line size is zero or not a power of two.
    #[error("line size {0} is not a power of two")]
    Line(u64),
    /// The size is not a positive multiple of the line size.
    #[error("size {size} is not a positive multiple of the line size {line}")]
    Size {
        /// Capacity in bytes.
        size: u64,
        /// Line size in bytes.
        line: u64,
    },
    /// The number of lines is not a multiple of the associativity.
    #[error("{lines} lines cannot be split into sets of {ways} ways")]
    Ways {
        /// Lines in the cache.
        lines: u64,
        /// Requested associativity.
        ways: u32,
    },
}

impl CacheGeometry {
    /// A cache of `size_bytes` with lines of `line_bytes` and associativity
    /// `assoc`; `assoc = 0` means fully associative.
    pub fn new(size_bytes: u64, line_bytes: u64, assoc: u32) -> Result<Self, GeometryError> {
        if line_bytes == 0 || !line_bytes.is_power_of_two() {
            return Err(GeometryError::Line(line_bytes));
        }
        if size_bytes == 0 || size_bytes % line_bytes != 0 {
            return Err(GeometryError::Size {
                size: size_bytes,
                line: line_bytes,
            });
        }
        let lines = size_bytes / line_bytes;
        let ways = if assoc == 0 {
            u32::try_from(lines).map_err(|_| GeometryError::Ways { lines, ways: 0 })?
        } else {
            assoc
        };
        if lines % u64::from(ways) != 0 {
            return Err(GeometryError::Ways { lines, ways });
        }
        Ok(CacheGeometry {
            size_bytes,
            line_bytes,
            ways,
        })
    }

    /// A TLB of `entries` pages of `page_bytes` with associativity `assoc`
    /// (0 = fully associative).
    pub fn tlb(entries: u64, page_bytes: u64, assoc: u32) -> Result<Self, GeometryError> {
        Self::new(entries * page_bytes, page_bytes, assoc)
    }

    /// Number of lines (entries).
    pub fn lines(&self) -> u64 {
        self.size_bytes / self.line_bytes
    }

    /// Number of sets.
    pub fn sets(&self) -> u64 {
        self.lines() / u64::from(self.ways)
    }

    /// True when there is one set.
    pub fn fully_associative(&self) -> bool {
        self.sets() == 1
    }

    /// The part of the cache that a sweep of `stride_bytes` can use when
    /// virtual pages of `page_bytes` land on random physical frames: the set
    /// index bits inside the page offset are fixed by the virtual address, so a
    /// stride that is a multiple of `2^k` lines repeats the same few values of
    /// those bits (the bits above the page are spread by the frames). The
    /// sets reachable are `sets / gcd(stride in lines, index values inside a
    /// page)`; a stride below a line or not a multiple of one reaches every
    /// set. A 4 KiB stride through a 48 KiB, 12-way L1 of 64 sets (all index
    /// bits inside the page) reaches one set: 12 lines.
    pub fn reachable(&self, stride_bytes: u64, page_bytes: u64) -> CacheGeometry {
        let line = self.line_bytes.max(1);
        if stride_bytes < line || stride_bytes % line != 0 {
            return *self;
        }
        let sets = self.sets().max(1);
        let inside_page = sets.min((page_bytes / line).max(1));
        let g = gcd(stride_bytes / line, inside_page).max(1);
        CacheGeometry {
            size_bytes: (sets / g).max(1) * u64::from(self.ways) * line,
            line_bytes: line,
            ways: self.ways,
        }
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Hits and misses of loads and stores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessStats {
    /// Loads that hit.
    pub read_hits: u64,
    /// Loads that missed.
    pub read_misses: u64,
    /// Stores that hit.
    pub write_hits: u64,
    /// Stores that missed.
    pub write_misses: u64,
}

impl AccessStats {
    /// All misses.
    pub fn misses(&self) -> u64 {
        self.read_misses + self.write_misses
    }

    /// All hits.
    pub fn hits(&self) -> u64 {
        self.read_hits + self.write_hits
    }

    /// All accesses.
    pub fn accesses(&self) -> u64 {
        self.misses() + self.hits()
    }

    fn record(&mut self, write: bool, hit: bool) {
        match (write, hit) {
            (false, true) => self.read_hits += 1,
            (false, false) => self.read_misses += 1,
            (true, true) => self.write_hits += 1,
            (true, false) => self.write_misses += 1,
        }
    }

    /// Adds `o` to `self`.
    pub fn add(&mut self, o: &AccessStats) {
        self.read_hits += o.read_hits;
        self.read_misses += o.read_misses;
        self.write_hits += o.write_hits;
        self.write_misses += o.write_misses;
    }
}

/// Statistics of one cache: the total and one entry per array id.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheStats {
    /// All accesses.
    pub total: AccessStats,
    /// Indexed by array id; arrays never seen are zero or absent.
    pub per_array: Vec<AccessStats>,
}

impl CacheStats {
    fn record(&mut self, array: u32, write: bool, hit: bool) {
        self.total.record(write, hit);
        let a = array as usize;
        if a >= self.per_array.len() {
            self.per_array.resize(a + 1, AccessStats::default());
        }
        self.per_array[a].record(write, hit);
    }

    /// Statistics of one array (zero if never seen).
    pub fn array(&self, array: u32) -> AccessStats {
        self.per_array
            .get(array as usize)
            .copied()
            .unwrap_or_default()
    }
}

const EMPTY: u64 = u64::MAX;
const NIL: u32 = u32::MAX;

/// Wide sets: hash map from line to node, one LRU list per set.
#[derive(Clone, Debug)]
struct WideSets {
    map: MixMap<u64, u32>,
    line: Vec<u64>,
    prev: Vec<u32>,
    next: Vec<u32>,
    /// Per set: most recently used node.
    head: Vec<u32>,
    /// Per set: least recently used node.
    tail: Vec<u32>,
    fill: Vec<u32>,
    free: Vec<u32>,
}

impl WideSets {
    fn new(sets: usize) -> Self {
        WideSets {
            map: map_with_capacity(0),
            line: Vec::new(),
            prev: Vec::new(),
            next: Vec::new(),
            head: vec![NIL; sets],
            tail: vec![NIL; sets],
            fill: vec![0; sets],
            free: Vec::new(),
        }
    }

    fn unlink(&mut self, set: usize, n: u32) {
        let (p, x) = (self.prev[n as usize], self.next[n as usize]);
        if p == NIL {
            self.head[set] = x;
        } else {
            self.next[p as usize] = x;
        }
        if x == NIL {
            self.tail[set] = p;
        } else {
            self.prev[x as usize] = p;
        }
    }

    fn push_front(&mut self, set: usize, n: u32) {
        let h = self.head[set];
        self.prev[n as usize] = NIL;
        self.next[n as usize] = h;
        if h == NIL {
            self.tail[set] = n;
        } else {
            self.prev[h as usize] = n;
        }
        self.head[set] = n;
    }

    fn access(&mut self, set: usize, line: u64, ways: u32) -> bool {
        if let Some(&n) = self.map.get(&line) {
            if self.head[set] != n {
                self.unlink(set, n);
                self.push_front(set, n);
            }
            return true;
        }
        let n = if self.fill[set] == ways {
            let victim = self.tail[set];
            self.unlink(set, victim);
            self.map.remove(&self.line[victim as usize]);
            victim
        } else {
            self.fill[set] += 1;
            if let Some(n) = self.free.pop() {
                n
            } else {
                self.line.push(EMPTY);
                self.prev.push(NIL);
                self.next.push(NIL);
                (self.line.len() - 1) as u32
            }
        };
        self.line[n as usize] = line;
        self.map.insert(line, n);
        self.push_front(set, n);
        false
    }

    fn contains(&self, line: u64) -> bool {
        self.map.contains_key(&line)
    }
}

#[derive(Clone, Debug)]
enum Sets {
    /// `sets × ways` tags, each set in MRU-first order, EMPTY when unused.
    Small(Vec<u64>),
    Wide(WideSets),
}

/// A set-associative LRU cache (or TLB) with hit/miss statistics.
#[derive(Clone, Debug)]
pub struct Cache {
    geometry: CacheGeometry,
    line_shift: u32,
    sets: u64,
    set_mask: Option<u64>,
    ways: u32,
    store: Sets,
    stats: CacheStats,
}

impl Cache {
    /// An empty cache of the given geometry.
    pub fn new(geometry: CacheGeometry) -> Cache {
        let sets = geometry.sets();
        let ways = geometry.ways;
        let store = if ways <= SMALL_WAYS {
            Sets::Small(vec![EMPTY; (sets * u64::from(ways)) as usize])
        } else {
            Sets::Wide(WideSets::new(sets as usize))
        };
        Cache {
            geometry,
            line_shift: geometry.line_bytes.trailing_zeros(),
            sets,
            set_mask: sets.is_power_of_two().then(|| sets - 1),
            ways,
            store,
            stats: CacheStats::default(),
        }
    }

    /// A TLB of `entries` pages of `page_bytes`, associativity `assoc`
    /// (0 = fully associative).
    pub fn tlb(entries: u64, page_bytes: u64, assoc: u32) -> Result<Cache, GeometryError> {
        Ok(Cache::new(CacheGeometry::tlb(entries, page_bytes, assoc)?))
    }

    /// The geometry.
    pub fn geometry(&self) -> CacheGeometry {
        self.geometry
    }

    /// Statistics so far.
    pub fn stats(&self) -> &CacheStats {
        &self.stats
    }

    /// Clears the statistics, keeping the contents (to count a steady state
    /// after a warm-up).
    pub fn reset_stats(&mut self) {
        self.stats = CacheStats::default();
    }

    /// Line (or page) number of a byte address.
    #[inline]
    pub fn line_of(&self, addr: u64) -> u64 {
        addr >> self.line_shift
    }

    #[inline]
    fn set_of(&self, line: u64) -> usize {
        match self.set_mask {
            Some(m) => (line & m) as usize,
            None => (line % self.sets) as usize,
        }
    }

    /// Looks up the line of `a.addr`, updates LRU order and statistics, and
    /// returns true on a hit.
    #[inline]
    pub fn access(&mut self, a: Access) -> bool {
        let line = self.line_of(a.addr);
        let hit = self.access_line(line);
        self.stats.record(a.array, a.write, hit);
        hit
    }

    /// Looks up a line number without touching the statistics; returns true
    /// on a hit. The line becomes most recently used either way.
    #[inline]
    pub fn access_line(&mut self, line: u64) -> bool {
        let set = self.set_of(line);
        let ways = self.ways;
        match &mut self.store {
            Sets::Small(tags) => {
                let w = ways as usize;
                let s = &mut tags[set * w..set * w + w];
                if s[0] == line {
                    return true;
                }
                match s.iter().position(|&t| t == line) {
                    Some(p) => {
                        s[..=p].rotate_right(1);
                        true
                    }
                    None => {
                        s.rotate_right(1);
                        s[0] = line;
                        false
                    }
                }
            }
            Sets::Wide(wide) => wide.access(set, line, ways),
        }
    }

    /// True when the line holding `addr` is cached (no state change).
    pub fn contains(&self, addr: u64) -> bool {
        let line = self.line_of(addr);
        match &self.store {
            Sets::Small(tags) => {
                let w = self.ways as usize;
                let set = self.set_of(line);
                tags[set * w..set * w + w].contains(&line)
            }
            Sets::Wide(wide) => wide.contains(line),
        }
    }
}

/// A chain of caches (L1, L2, ...) and an optional TLB.
#[derive(Clone, Debug)]
pub struct Hierarchy {
    levels: Vec<Cache>,
    tlb: Option<Cache>,
}

impl Hierarchy {
    /// A hierarchy of the given levels, first level first.
    pub fn new(levels: Vec<CacheGeometry>, tlb: Option<CacheGeometry>) -> Hierarchy {
        Hierarchy {
            levels: levels.into_iter().map(Cache::new).collect(),
            tlb: tlb.map(Cache::new),
        }
    }

    /// Performs one access; returns the index of the level that hit
    /// (`levels().len()` when it went to memory).
    #[inline]
    pub fn access(&mut self, a: Access) -> usize {
        if let Some(t) = &mut self.tlb {
            t.access(a);
        }
        for (k, c) in self.levels.iter_mut().enumerate() {
            if c.access(a) {
                return k;
            }
        }
        self.levels.len()
    }

    /// The cache levels.
    pub fn levels(&self) -> &[Cache] {
        &self.levels
    }

    /// The TLB, if any.
    pub fn tlb(&self) -> Option<&Cache> {
        self.tlb.as_ref()
    }

    /// Clears all statistics, keeping the contents.
    pub fn reset_stats(&mut self) {
        for c in &mut self.levels {
            c.reset_stats();
        }
        if let Some(t) = &mut self.tlb {
            t.reset_stats();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_validation() {
        assert!(CacheGeometry::new(1024, 48, 1).is_err());
        assert!(CacheGeometry::new(1000, 64, 1).is_err());
        assert!(CacheGeometry::new(1024, 64, 3).is_err());
        let g = CacheGeometry::new(48 * 1024, 64, 12).unwrap();
        assert_eq!((g.lines(), g.sets()), (768, 64));
        let f = CacheGeometry::new(1024, 64, 0).unwrap();
        assert!(f.fully_associative());
        assert_eq!(f.ways, 16);
    }

    #[test]
    fn direct_mapped_conflict() {
        let mut c = Cache::new(CacheGeometry::new(256, 16, 1).unwrap());
        // 0 and 256 map to set 0 and evict each other.
        for _ in 0..3 {
            c.access(Access::read(0, 0));
            c.access(Access::read(256, 1));
        }
        assert_eq!(c.stats().total.misses(), 6);
        assert_eq!(c.stats().array(1).read_misses, 3);
        // 2-way keeps both.
        let mut c = Cache::new(CacheGeometry::new(256, 16, 2).unwrap());
        for _ in 0..3 {
            c.access(Access::read(0, 0));
            c.access(Access::write(256, 1));
        }
        assert_eq!(c.stats().total.misses(), 2);
        assert_eq!(c.stats().array(1).write_hits, 2);
    }

    #[test]
    fn lru_order_small_and_wide_agree() {
        // Same geometry forced through both representations: 1 set of 32 ways
        // is wide; compare with a reference LRU list.
        let g = CacheGeometry::new(32 * 8, 8, 0).unwrap();
        let mut c = Cache::new(g);
        let mut lru: Vec<u64> = Vec::new();
        let mut x = 12345u64;
        for _ in 0..20000 {
            x = crate::hash::mix64(x);
            let line = x % 50;
            let hit = c.access(Access::read(line * 8, 0));
            let pos = lru.iter().position(|&l| l == line);
            assert_eq!(hit, pos.is_some());
            if let Some(p) = pos {
                lru.remove(p);
            } else if lru.len() == 32 {
                lru.pop();
            }
            lru.insert(0, line);
        }
    }

    #[test]
    fn hierarchy_passes_misses_down() {
        let mut h = Hierarchy::new(
            vec![
                CacheGeometry::new(64, 16, 1).unwrap(),
                CacheGeometry::new(1024, 16, 0).unwrap(),
            ],
            Some(CacheGeometry::tlb(2, 4096, 0).unwrap()),
        );
        for rep in 0..2 {
            for i in 0..32u64 {
                let lvl = h.access(Access::read(i * 16, 0));
                assert_eq!(lvl, if rep == 0 { 2 } else { 1 });
            }
        }
        assert_eq!(h.levels()[0].stats().total.misses(), 64);
        assert_eq!(h.levels()[1].stats().total.accesses(), 64);
        assert_eq!(h.levels()[1].stats().total.misses(), 32);
        assert_eq!(h.tlb().unwrap().stats().total.misses(), 1);
    }
}
