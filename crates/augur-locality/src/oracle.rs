//! Saavedra's matrix-multiply study as an oracle (thesis §5.8).
//!
//! The two loop orders of figure 5.6, with the references an optimizing
//! compiler makes (the thesis counts them so):
//!
//! * DOT, `C(I,J) = C(I,J) + A(I,K)*B(K,J)` with `I, J, K` from outside in:
//!   `C(I,J)` is loaded before the `K` loop, kept in a register, and stored
//!   after it; the `K` loop loads `A(I,K)` then `B(K,J)`. References:
//!   `2N³ + 2N²`, the stream `(C (A B)^N C)^{N²}` of eq. 5.11.
//! * SAXPY, `C(K,J) = C(K,J) + A(K,I)*B(I,J)`: `B(I,J)` is loaded before
//!   the `K` loop; the `K` loop loads `A(K,I)`, loads `C(K,J)` and stores
//!   `C(K,J)`. References: `3N³ + N²`, of which the store never misses.
//!   The order of the two loads matters on direct-mapped and 2-way caches:
//!   eq. 5.4 is exact for this order (`A` first); with `C` loaded first the
//!   simulator counts 3% to 11% more misses than eq. 5.4 (the tests record
//!   it).
//!
//! The matrices are `N × N`, laid out one after another (`A`, `B`, `C`), so
//! with `N²` a multiple of the cache size each starts at cache set 0 as the
//! thesis' power-of-two analysis assumes.
//!
//! The closed forms take the cache in elements: `D` elements of capacity,
//! lines of `b` elements, associativity `a`; `R = N²/D` is the occupancy
//! ratio. Each function returns `None` outside the region where the thesis
//! states the formula. Which of them equal an LRU simulation exactly, and
//! the source's typos, are recorded in the tests (`tests/oracle.rs`).

use crate::nest::{Affine, ArrayDecl, Loop, Nest, Ref};

/// Array ids of the matrices in [`dot`] and [`saxpy`].
pub const A: u32 = 0;
/// Array id of `B`.
pub const B: u32 = 1;
/// Array id of `C`.
pub const C: u32 = 2;

fn matrices(n: i64, elem_bytes: u64) -> Vec<ArrayDecl> {
    let bytes = (n * n) as u64 * elem_bytes;
    ["A", "B", "C"]
        .iter()
        .enumerate()
        .map(|(k, name)| ArrayDecl::new(name, k as u64 * bytes, elem_bytes, &[n, n]))
        .collect()
}

fn ijk(n: i64, before: Vec<crate::Node>, inner: Vec<crate::Node>, after: Vec<crate::Node>) -> Nest {
    let one = Affine::constant(1);
    let top = Affine::constant(n);
    let mut j_body = before;
    j_body.push(Loop::node("K", one.clone(), top.clone(), inner));
    j_body.extend(after);
    Nest {
        arrays: Vec::new(),
        body: vec![Loop::node(
            "I",
            one.clone(),
            top.clone(),
            vec![Loop::node("J", one, top, j_body)],
        )],
    }
}

/// The DOT nest of order `n` with elements of `elem_bytes`.
pub fn dot(n: i64, elem_bytes: u64) -> Nest {
    let (i, j, k) = (Affine::var(0), Affine::var(1), Affine::var(2));
    let mut nest = ijk(
        n,
        vec![Ref::read(C, vec![i.clone(), j.clone()])],
        vec![
            Ref::read(A, vec![i.clone(), k.clone()]),
            Ref::read(B, vec![k, j.clone()]),
        ],
        vec![Ref::write(C, vec![i, j])],
    );
    nest.arrays = matrices(n, elem_bytes);
    nest
}

/// The SAXPY nest of order `n` with elements of `elem_bytes`.
pub fn saxpy(n: i64, elem_bytes: u64) -> Nest {
    let (i, j, k) = (Affine::var(0), Affine::var(1), Affine::var(2));
    let mut nest = ijk(
        n,
        vec![Ref::read(B, vec![i.clone(), j.clone()])],
        vec![
            Ref::read(A, vec![k.clone(), i]),
            Ref::read(C, vec![k.clone(), j.clone()]),
            Ref::write(C, vec![k, j]),
        ],
        vec![],
    );
    nest.arrays = matrices(n, elem_bytes);
    nest
}

/// A cache in elements for the closed forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElemCache {
    /// Capacity `D` in elements.
    pub d: u64,
    /// Line `b` in elements.
    pub b: u64,
    /// Associativity `a`.
    pub a: u64,
}

fn ratio(n: u64, d: u64) -> Option<u64> {
    (n * n % d == 0).then(|| n * n / d)
}

fn delta1(a: u64) -> f64 {
    if a == 1 {
        1.0
    } else {
        0.0
    }
}

/// Eq. 5.3, DOT cache misses for `1 < R ≤ N`:
/// `(1 + 1/b)N³ + c·N² + (Rb − R)N·δ(a,1)`, where the thesis' text says
/// `c = 2` (C missing on its load and on its store) and its tables use
/// `c = 1`; `c` is a parameter so that both can be checked.
pub fn dot_misses(n: u64, c: ElemCache, c_term: u64) -> Option<f64> {
    let r = ratio(n, c.d)?;
    if !(r > 1 && r <= n) {
        return None;
    }
    let (nf, b, rf) = (n as f64, c.b as f64, r as f64);
    Some((1.0 + 1.0 / b) * nf.powi(3) + c_term as f64 * nf * nf + (rf * b - rf) * nf * delta1(c.a))
}

/// Eqs. 5.4 (`1 < R < N/2`), 5.5 (`R = N/2`) and 5.6 (`R = N`): SAXPY
/// cache misses.
pub fn saxpy_misses(n: u64, c: ElemCache) -> Option<f64> {
    let r = ratio(n, c.d)?;
    let (nf, b, rf, af) = (n as f64, c.b as f64, r as f64, c.a as f64);
    let base = nf.powi(3) / b + (1.0 + 1.0 / b) * nf * nf;
    let m_r = (2.0 * rf - rf / b) * nf * nf + (rf - rf / b) * nf - rf;
    if r > 1 && 2 * r < n {
        Some(base + m_r * delta1(c.a))
    } else if r > 1 && 2 * r == n {
        Some(if c.a == 1 {
            base + m_r
        } else {
            base + af / 2.0 * nf * (nf - 1.0)
        })
    } else if r > 1 && r == n {
        Some(if c.a == 1 {
            2.0 * nf.powi(3) + nf * nf
        } else {
            2.0 / b * nf.powi(3) + nf * nf
        })
    } else {
        None
    }
}

/// Eq. 5.7: DOT cache misses at `R = 1` (stated without derivation).
pub fn dot_misses_r1(n: u64, c: ElemCache) -> Option<f64> {
    if ratio(n, c.d)? != 1 {
        return None;
    }
    let (nf, b, af) = (n as f64, c.b as f64, c.a as f64);
    let common = (2.0 * af + 4.0 + 3.0 / b) * nf * nf - (2.0 + 2.0 * af / b) * nf;
    if c.a == 1 {
        Some(common + (b - 1.0) * nf)
    } else if c.a * c.b < n {
        Some(common)
    } else if c.a * c.b == n {
        Some(nf.powi(3) / b + 2.0 * (1.0 + 2.0 / b) * nf * nf - 2.0 * nf)
    } else {
        None
    }
}

/// Eq. 5.8: SAXPY cache misses at `R = 1` (stated without derivation).
pub fn saxpy_misses_r1(n: u64, c: ElemCache) -> Option<f64> {
    if ratio(n, c.d)? != 1 {
        return None;
    }
    let (nf, b, af) = (n as f64, c.b as f64, c.a as f64);
    if c.a == 1 {
        Some((4.0 + 3.0 / b) * nf * nf - (2.0 + 3.0 / b) * nf + 1.0)
    } else if c.a * c.b < n {
        Some(
            (2.0 + (2.0 * af * af + 3.0 * af - 1.0) / (af * b)) * nf * nf
                - ((2.0 * af * af + 2.0 * af - 1.0) / af + (5.0 * af - 3.0) / b) * nf
                + (5.0 * af - 3.0),
        )
    } else if c.a * c.b == n {
        Some(2.0 / b * nf.powi(3) + nf * nf)
    } else {
        None
    }
}

/// Eq. 5.9: DOT TLB misses, `N³/B + (1 + c/B)N²` with `B` = columns per
/// page (`page_elems / N`); the text has `c = 2`, the tables `c = 1`.
/// Valid when a page holds whole columns and a matrix is at least the TLB
/// reach (the thesis applies it at equality, Table 5.11).
pub fn dot_tlb_misses(n: u64, page_elems: u64, entries: u64, c_term: u64) -> Option<f64> {
    let bb = tlb_columns(n, page_elems, entries)?;
    let nf = n as f64;
    Some(nf.powi(3) / bb + (1.0 + c_term as f64 / bb) * nf * nf)
}

/// Eq. 5.10: SAXPY TLB misses, `(2/B)N² + N/B`.
pub fn saxpy_tlb_misses(n: u64, page_elems: u64, entries: u64) -> Option<f64> {
    let bb = tlb_columns(n, page_elems, entries)?;
    let nf = n as f64;
    Some(2.0 / bb * nf * nf + nf / bb)
}

fn tlb_columns(n: u64, page_elems: u64, entries: u64) -> Option<f64> {
    (page_elems % n == 0 && page_elems >= n && n * n >= entries * page_elems)
        .then(|| (page_elems / n) as f64)
}
