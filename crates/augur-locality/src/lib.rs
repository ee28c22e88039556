//! Machine-independent program locality and cache models for augur.
//!
//! Saavedra-Barrera's chapter 5 extends the abstract-machine model with a
//! delay term, `T = Σ C·P + Σ_levels H·D`: the misses `H` of each level of
//! the memory hierarchy times the penalty `D` the characterizer measured for
//! it. This crate supplies the `H` side, keeping the program's part
//! (locality) apart from the machine's part (cache geometry), as the rest of
//! augur keeps counts apart from costs.
//!
//! # The pieces
//!
//! * [`nest`]: affine loop nests, that is loops whose bounds are affine in
//!   the indices of the loops around them and array references whose
//!   subscripts are affine in the loop indices, laid out column-major as
//!   Fortran does. [`nest::Nest::for_each_access`] enumerates the address
//!   stream in program order without storing it.
//! * [`cache`]: the exact reference models. A set-associative LRU cache
//!   (direct-mapped and fully associative are special cases), a TLB (a cache
//!   whose lines are pages) and a multi-level hierarchy, counting hits and
//!   misses per level, per array and per read/write.
//! * [`reuse`]: the machine-independent characterization. The LRU stack
//!   (reuse) distance of every access at cache-line granularity, in
//!   `O(log n)` per access and memory bounded by the number of distinct
//!   lines (with SHARDS-style spatial sampling above a limit), kept as
//!   histograms per loop nest and array. From a histogram: the misses of a
//!   fully associative LRU cache of any size (exact), and of a
//!   set-associative one (the statistical model of Smith, an approximation).
//! * [`oracle`]: the closed-form miss counts of Saavedra's matrix-multiply
//!   study (equations 5.3 to 5.10) and the DOT and SAXPY nests they describe,
//!   used as exact oracles for the simulator.
//! * [`extract`]: from augur's program model, the loop nests that are affine
//!   once the symbolic bounds are given values (for example the trip counts
//!   the analyzer measured), and the references that are not affine.
//!
//! # Limits
//!
//! * An access touches the line of its first byte only; elements are assumed
//!   not to straddle lines (true for naturally aligned Fortran arrays).
//! * Caches are write-allocate; a write miss is counted like a read miss.
//!   Write-backs, prefetching, and replacement policies other than LRU are
//!   not modelled.
//! * The hierarchy is the simple "each level sees the misses of the level
//!   above" kind, without back-invalidation; physical addresses, page
//!   colouring and hashed set indexing of modern last-level caches are not
//!   modelled, so conflict misses of real L2/L3 caches are only indicative.
//! * The reuse distance of one stream is that of the program order of one
//!   thread; reuse across loop nests is kept when one analyzer sees several
//!   nests in turn.

pub mod cache;
pub mod classes;
pub mod extract;
pub mod hash;
pub mod nest;
pub mod oracle;
pub mod profile;
pub mod reuse;

pub use cache::{AccessStats, Cache, CacheGeometry, CacheStats, GeometryError, Hierarchy};
pub use nest::{Affine, ArrayDecl, InnerStride, Loop, Nest, Node, Ref};
pub use reuse::{Histogram, ReuseAnalyzer, ReuseConfig, ReuseReport};

/// One data access: the byte address, the array it belongs to (a small dense
/// id chosen by whoever produces the stream) and whether it writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    /// Byte address of the first byte accessed.
    pub addr: u64,
    /// Dense array id, used to split statistics per array.
    pub array: u32,
    /// True for a store, false for a load.
    pub write: bool,
}

impl Access {
    /// A load of `addr` belonging to array `array`.
    pub fn read(addr: u64, array: u32) -> Access {
        Access {
            addr,
            array,
            write: false,
        }
    }

    /// A store to `addr` belonging to array `array`.
    pub fn write(addr: u64, array: u32) -> Access {
        Access {
            addr,
            array,
            write: true,
        }
    }
}
