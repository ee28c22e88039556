//! Affine loop nests and their address streams.
//!
//! A [`Nest`] is a list of [`Node`]s: loops and array references, in program
//! order, so imperfect nests (a reference before or after an inner loop, as
//! `C(I,J)` around the `K` loop of an optimized dot product) and sibling
//! loops are described as they run. The index of the loop at depth `k`
//! (0 = outermost) is variable `k` of every [`Affine`] expression below it.
//! A loop's bounds may use the indices of the loops around it; a reference's
//! subscripts may use the indices of all loops around it.
//!
//! Arrays ([`ArrayDecl`]) are laid out in column-major order (Fortran): the
//! byte address of `X(s1, ..., sr)` is
//! `base + elem_bytes · Σ_d (s_d − lower_d) · Π_{e<d} extent_e`.
//! Subscripts are not checked against the bounds, as Fortran does not check
//! them either, but an address below zero is an error at enumeration.
//!
//! [`Nest::for_each_access`] compiles every reference to one affine byte
//! address in the loop indices and calls a closure for each access in
//! program order, so a stream of any length flows into a cache simulator or
//! a reuse-distance analyzer without being stored.

use crate::Access;
use serde::{Deserialize, Serialize};

/// An affine expression `constant + Σ_k coeffs[k] · i_k` in the loop indices
/// `i_0` (outermost) ... A missing coefficient is zero.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Affine {
    /// The constant term.
    pub constant: i64,
    /// Coefficient of the index of the loop at each depth.
    pub coeffs: Vec<i64>,
}

impl Affine {
    /// The constant `c`.
    pub fn constant(c: i64) -> Affine {
        Affine {
            constant: c,
            coeffs: Vec::new(),
        }
    }

    /// The index of the loop at `depth`.
    pub fn var(depth: usize) -> Affine {
        let mut coeffs = vec![0; depth + 1];
        coeffs[depth] = 1;
        Affine {
            constant: 0,
            coeffs,
        }
    }

    /// `self + c`.
    pub fn plus(mut self, c: i64) -> Affine {
        self.constant += c;
        self
    }

    /// `self + o`.
    pub fn add(&self, o: &Affine) -> Affine {
        let n = self.coeffs.len().max(o.coeffs.len());
        let coeffs = (0..n).map(|k| self.coeff(k) + o.coeff(k)).collect();
        Affine {
            constant: self.constant + o.constant,
            coeffs,
        }
        .trimmed()
    }

    /// `self · f`.
    pub fn scale(&self, f: i64) -> Affine {
        Affine {
            constant: self.constant * f,
            coeffs: self.coeffs.iter().map(|c| c * f).collect(),
        }
        .trimmed()
    }

    /// The coefficient of the index at `depth`.
    pub fn coeff(&self, depth: usize) -> i64 {
        self.coeffs.get(depth).copied().unwrap_or(0)
    }

    /// The deepest loop index used, if any.
    pub fn max_depth(&self) -> Option<usize> {
        self.coeffs.iter().rposition(|&c| c != 0)
    }

    /// True without index terms.
    pub fn is_constant(&self) -> bool {
        self.max_depth().is_none()
    }

    fn trimmed(mut self) -> Affine {
        while self.coeffs.last() == Some(&0) {
            self.coeffs.pop();
        }
        self
    }

    /// The value for the given indices (`idx[k]` is the index at depth `k`).
    #[inline]
    pub fn eval(&self, idx: &[i64]) -> i64 {
        let mut v = self.constant;
        for (c, i) in self.coeffs.iter().zip(idx) {
            v += c * i;
        }
        v
    }
}

/// An array: where it lives and its column-major shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArrayDecl {
    /// Name, for reports.
    pub name: String,
    /// Byte address of the first element.
    pub base: u64,
    /// Bytes per element.
    pub elem_bytes: u64,
    /// Lower bound of each dimension.
    pub lower: Vec<i64>,
    /// Extent of each dimension (the last one may be a guess: it does not
    /// enter the addresses).
    pub extents: Vec<i64>,
}

impl ArrayDecl {
    /// A Fortran array `name(extents...)` with lower bounds 1.
    pub fn new(name: &str, base: u64, elem_bytes: u64, extents: &[i64]) -> ArrayDecl {
        ArrayDecl {
            name: name.to_string(),
            base,
            elem_bytes,
            lower: vec![1; extents.len()],
            extents: extents.to_vec(),
        }
    }

    /// Bytes between consecutive values of each subscript (column-major: the
    /// element size, then times each extent).
    pub fn subscript_strides(&self) -> Vec<i64> {
        let mut stride = self.elem_bytes as i64;
        self.extents
            .iter()
            .map(|&e| {
                let s = stride;
                stride = stride.saturating_mul(e);
                s
            })
            .collect()
    }

    /// Bytes reference `r` to this array moves per unit step of the loop at
    /// `depth` (0 when that loop's index does not enter its subscripts).
    pub fn byte_stride(&self, r: &Ref, depth: usize) -> i64 {
        r.subscripts
            .iter()
            .zip(self.subscript_strides())
            .map(|(s, st)| s.coeffs.get(depth).copied().unwrap_or(0).saturating_mul(st))
            .fold(0i64, |a, b| a.saturating_add(b))
    }

    /// Bytes the array occupies.
    pub fn bytes(&self) -> u64 {
        self.elem_bytes
            * self
                .extents
                .iter()
                .map(|&e| e.max(0) as u64)
                .product::<u64>()
    }
}

/// An array reference.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ref {
    /// Index into [`Nest::arrays`].
    pub array: u32,
    /// One affine subscript per dimension.
    pub subscripts: Vec<Affine>,
    /// True for a store.
    pub write: bool,
}

impl Ref {
    /// A load of `array(subscripts)`.
    pub fn read(array: u32, subscripts: Vec<Affine>) -> Node {
        Node::Ref(Ref {
            array,
            subscripts,
            write: false,
        })
    }

    /// A store to `array(subscripts)`.
    pub fn write(array: u32, subscripts: Vec<Affine>) -> Node {
        Node::Ref(Ref {
            array,
            subscripts,
            write: true,
        })
    }
}

/// A counted loop `DO i = lower, upper, step`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Loop {
    /// Index variable name, for reports.
    pub var: String,
    /// First value; may use the indices of enclosing loops.
    pub lower: Affine,
    /// Last value (inclusive); may use the indices of enclosing loops.
    pub upper: Affine,
    /// Non-zero step.
    pub step: i64,
    /// The body in program order.
    pub body: Vec<Node>,
    /// The loop runs on every `every`-th pass of control (1: each time): a loop an IF
    /// guards (`if (mod(it, 50) == 0)` around an output sweep) runs on the share of its
    /// parent's iterations the counts say, the first pass and then one in `every`.
    #[serde(default = "every_pass")]
    pub every: u64,
}

fn every_pass() -> u64 {
    1
}

impl Loop {
    /// `DO var = lower, upper` with step 1.
    pub fn node(var: &str, lower: Affine, upper: Affine, body: Vec<Node>) -> Node {
        Node::Loop(Loop {
            var: var.to_string(),
            lower,
            upper,
            step: 1,
            body,
            every: 1,
        })
    }
}

/// A loop or a reference.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Node {
    /// A loop and its body.
    Loop(Loop),
    /// An array reference, executed once each time control passes it.
    Ref(Ref),
}

/// Why a nest cannot be enumerated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NestError {
    /// A reference names an array that is not declared.
    #[error("reference to undeclared array {0}")]
    UnknownArray(u32),
    /// The number of subscripts differs from the rank.
    #[error("array {array} has rank {rank} but is referenced with {subscripts} subscripts")]
    Rank {
        /// Array name.
        array: String,
        /// Declared rank.
        rank: usize,
        /// Subscripts given.
        subscripts: usize,
    },
    /// A loop has step 0.
    #[error("loop {0} has step 0")]
    ZeroStep(String),
    /// An expression uses the index of a loop that does not enclose it.
    #[error("{what} uses the index of depth {depth}, but only {available} loops enclose it")]
    Scope {
        /// What the expression is.
        what: String,
        /// The index used.
        depth: usize,
        /// Loops around the expression.
        available: usize,
    },
    /// An address fell below zero.
    #[error("array {0} is addressed below address 0")]
    NegativeAddress(String),
}

/// A loop nest (or a sequence of nests sharing arrays).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Nest {
    /// The arrays, indexed by [`Ref::array`]; the index is the array id of
    /// the accesses.
    pub arrays: Vec<ArrayDecl>,
    /// The top-level loops and references in program order.
    pub body: Vec<Node>,
}

#[derive(Clone, Debug)]
enum Compiled {
    Loop {
        lower: Affine,
        upper: Affine,
        step: i64,
        body: Vec<Compiled>,
        every: u64,
        passes: std::cell::Cell<u64>,
    },
    Ref {
        addr: Affine,
        array: u32,
        write: bool,
        name: usize,
    },
}

impl Nest {
    /// Places the arrays one after another from `start`, each base rounded
    /// up to a multiple of `align` bytes (a power of two).
    pub fn place_arrays(&mut self, start: u64, align: u64) {
        let mut at = start;
        for a in &mut self.arrays {
            at = at.div_ceil(align) * align;
            a.base = at;
            at += a.bytes();
        }
    }

    fn compile(&self) -> Result<Vec<Compiled>, NestError> {
        fn go(nest: &Nest, nodes: &[Node], depth: usize) -> Result<Vec<Compiled>, NestError> {
            let scope = |e: &Affine, what: String, available: usize| match e.max_depth() {
                Some(d) if d >= available => Err(NestError::Scope {
                    what,
                    depth: d,
                    available,
                }),
                _ => Ok(()),
            };
            let mut out = Vec::with_capacity(nodes.len());
            for n in nodes {
                match n {
                    Node::Loop(l) => {
                        if l.step == 0 {
                            return Err(NestError::ZeroStep(l.var.clone()));
                        }
                        scope(&l.lower, format!("lower bound of {}", l.var), depth)?;
                        scope(&l.upper, format!("upper bound of {}", l.var), depth)?;
                        out.push(Compiled::Loop {
                            lower: l.lower.clone(),
                            upper: l.upper.clone(),
                            step: l.step,
                            body: go(nest, &l.body, depth + 1)?,
                            every: l.every.max(1),
                            passes: std::cell::Cell::new(0),
                        });
                    }
                    Node::Ref(r) => {
                        let a = nest
                            .arrays
                            .get(r.array as usize)
                            .ok_or(NestError::UnknownArray(r.array))?;
                        if a.extents.len() != r.subscripts.len() || a.lower.len() != a.extents.len()
                        {
                            return Err(NestError::Rank {
                                array: a.name.clone(),
                                rank: a.extents.len(),
                                subscripts: r.subscripts.len(),
                            });
                        }
                        let mut addr = Affine::constant(a.base as i64);
                        for ((d, s), stride) in
                            r.subscripts.iter().enumerate().zip(a.subscript_strides())
                        {
                            scope(s, format!("subscript {} of {}", d + 1, a.name), depth)?;
                            addr = addr.add(&s.clone().plus(-a.lower[d]).scale(stride));
                        }
                        out.push(Compiled::Ref {
                            addr,
                            array: r.array,
                            write: r.write,
                            name: r.array as usize,
                        });
                    }
                }
            }
            Ok(out)
        }
        go(self, &self.body, 0)
    }

    /// Calls `f` for every access of the nest in program order; returns the
    /// number of accesses. Nothing is stored: memory is independent of the
    /// stream length.
    ///
    /// A reference that may reach below the lowest array (the first array's `x(i-1)` at
    /// `i = 1`, which a guard such as `if (i == 1)` keeps from running, while the nest
    /// holds the references of both branches) shifts every address up by whole pages
    /// ([`PLACEMENT_PAGE`]): their lines, pages and relative placement, hence every
    /// reuse distance and conflict, stay as they were.
    pub fn for_each_access(&self, mut f: impl FnMut(Access)) -> Result<u64, NestError> {
        let code = self.compile()?;
        let lowest = lowest_address(&code, &mut Vec::new());
        let shift = if lowest < 0 {
            lowest.unsigned_abs().div_ceil(PLACEMENT_PAGE) * PLACEMENT_PAGE
        } else {
            0
        };
        let mut idx = Vec::new();
        let mut count = 0u64;
        run(self, &code, &mut idx, &mut f, shift as i64, &mut count)?;
        Ok(count)
    }

    /// The number of accesses, by running the loops (no addresses).
    pub fn access_count(&self) -> Result<u64, NestError> {
        self.for_each_access(|_| {})
    }

    /// The number of accesses without running the loops: each loop's trip count taken
    /// with the indices of the loops around it at their middle values (exact for a
    /// rectangular nest, the mean work of a triangular one's outer iteration), every
    /// loop run on each pass. The work of one execution, to weigh value sets by.
    pub fn estimated_accesses(&self) -> f64 {
        fn go(body: &[Node], idx: &mut Vec<i64>) -> f64 {
            body.iter()
                .map(|n| match n {
                    Node::Ref(_) => 1.0,
                    Node::Loop(l) if l.step != 0 => {
                        let (lo, hi) = (l.lower.eval(idx), l.upper.eval(idx));
                        let trips = ((hi - lo) / l.step + 1).max(0);
                        if trips == 0 {
                            return 0.0;
                        }
                        idx.push(lo + l.step * ((trips - 1) / 2));
                        let inner = go(&l.body, idx);
                        idx.pop();
                        trips as f64 * inner
                    }
                    Node::Loop(_) => 0.0,
                })
                .sum()
        }
        go(&self.body, &mut Vec::new())
    }

    /// Per array (indexed like [`Nest::arrays`]): the largest byte distance
    /// between the addresses of one of its references in consecutive
    /// iterations of the innermost loop around that reference (the loop's
    /// step included; 0 for references outside every loop or invariant in
    /// the innermost one), and whether any reference stores.
    ///
    /// Machine-independent: which cache sets a stream of such a stride can
    /// reach follows from a cache's geometry and the page size (a stride of
    /// a multiple of a page concentrates a column sweep in a few sets).
    pub fn inner_strides(&self) -> Result<Vec<InnerStride>, NestError> {
        fn go(code: &[Compiled], step: Option<(usize, i64)>, out: &mut [InnerStride]) {
            for c in code {
                match c {
                    Compiled::Ref {
                        addr, array, write, ..
                    } => {
                        let Some(s) = out.get_mut(*array as usize) else {
                            continue;
                        };
                        s.written |= *write;
                        if let Some((depth, by)) = step {
                            let coeff = addr.coeffs.get(depth).copied().unwrap_or(0);
                            let bytes = coeff.saturating_mul(by).unsigned_abs();
                            s.stride_bytes = s.stride_bytes.max(bytes);
                        }
                    }
                    Compiled::Loop { step: by, body, .. } => {
                        let depth = step.map_or(0, |(d, _)| d + 1);
                        go(body, Some((depth, *by)), out);
                    }
                }
            }
        }
        let code = self.compile()?;
        let mut out = vec![InnerStride::default(); self.arrays.len()];
        go(&code, None, &mut out);
        Ok(out)
    }
}

/// How one array is swept by the innermost loops of a nest ([`Nest::inner_strides`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InnerStride {
    /// Largest byte stride of its references along their innermost loop.
    pub stride_bytes: u64,
    /// True when some reference stores into it.
    pub written: bool,
}

/// The page by which addresses are shifted when a reference may fall below the lowest
/// array ([`Nest::for_each_access`]): a multiple of every line and of the page the
/// translation models use.
pub const PLACEMENT_PAGE: u64 = 4096;

/// The range `[low, high]` of an affine expression when each loop index at depth `d`
/// ranges over `ranges[d]`.
fn affine_range(e: &Affine, ranges: &[(i64, i64)]) -> (i64, i64) {
    let (mut low, mut high) = (e.constant, e.constant);
    for (c, &(lo, hi)) in e.coeffs.iter().zip(ranges) {
        let (a, b) = (c.saturating_mul(lo), c.saturating_mul(hi));
        low = low.saturating_add(a.min(b));
        high = high.saturating_add(a.max(b));
    }
    (low, high)
}

/// A lower bound of every address the compiled nest can form (interval arithmetic over
/// the loops' bounds; `ranges` holds the enclosing loops' index ranges).
fn lowest_address(code: &[Compiled], ranges: &mut Vec<(i64, i64)>) -> i64 {
    let mut lowest = i64::MAX;
    for c in code {
        match c {
            Compiled::Ref { addr, .. } => lowest = lowest.min(affine_range(addr, ranges).0),
            Compiled::Loop {
                lower, upper, body, ..
            } => {
                let (lo, hi) = (affine_range(lower, ranges), affine_range(upper, ranges));
                ranges.push((lo.0.min(hi.0), lo.1.max(hi.1)));
                lowest = lowest.min(lowest_address(body, ranges));
                ranges.pop();
            }
        }
    }
    lowest
}

fn run(
    nest: &Nest,
    code: &[Compiled],
    idx: &mut Vec<i64>,
    f: &mut impl FnMut(Access),
    shift: i64,
    count: &mut u64,
) -> Result<(), NestError> {
    for c in code {
        match c {
            Compiled::Ref {
                addr,
                array,
                write,
                name,
            } => {
                let a = addr.eval(idx) + shift;
                if a < 0 {
                    return Err(NestError::NegativeAddress(nest.arrays[*name].name.clone()));
                }
                *count += 1;
                f(Access {
                    addr: a as u64,
                    array: *array,
                    write: *write,
                });
            }
            Compiled::Loop {
                lower,
                upper,
                step,
                body,
                every,
                passes,
            } => {
                let pass = passes.get();
                passes.set(pass + 1);
                if pass % every != 0 {
                    continue;
                }
                let (lo, hi) = (lower.eval(idx), upper.eval(idx));
                let depth = idx.len();
                idx.push(lo);
                if *step > 0 {
                    let mut i = lo;
                    while i <= hi {
                        idx[depth] = i;
                        run(nest, body, idx, f, shift, count)?;
                        i += step;
                    }
                } else {
                    let mut i = lo;
                    while i >= hi {
                        idx[depth] = i;
                        run(nest, body, idx, f, shift, count)?;
                        i += step;
                    }
                }
                idx.pop();
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_major_addresses_and_triangular_bounds() {
        // DO I = 1, 3; DO J = I, 3; read X(J, I) with X(0:3, 2) of 8 bytes.
        let mut x = ArrayDecl::new("X", 1000, 8, &[4, 2]);
        x.lower = vec![0, 1];
        let nest = Nest {
            arrays: vec![x],
            body: vec![Loop::node(
                "I",
                Affine::constant(1),
                Affine::constant(3),
                vec![Loop::node(
                    "J",
                    Affine::var(0),
                    Affine::constant(3),
                    vec![Ref::read(0, vec![Affine::var(1), Affine::var(0)])],
                )],
            )],
        };
        let mut got = Vec::new();
        let n = nest.for_each_access(|a| got.push(a.addr)).unwrap();
        assert_eq!(n, 6);
        // (J, I) -> 1000 + 8*(J + 4*(I-1))
        assert_eq!(got, vec![1008, 1016, 1024, 1048, 1056, 1088]);
    }

    #[test]
    fn estimated_accesses_are_exact_for_a_rectangle_and_the_mean_for_a_triangle() {
        let x = ArrayDecl::new("X", 0, 8, &[100, 100]);
        let body = |inner_lower: Affine| {
            vec![Loop::node(
                "I",
                Affine::constant(1),
                Affine::constant(99),
                vec![
                    Ref::read(0, vec![Affine::constant(1), Affine::var(0)]),
                    Loop::node(
                        "J",
                        inner_lower,
                        Affine::constant(99),
                        vec![Ref::write(0, vec![Affine::var(1), Affine::var(0)])],
                    ),
                ],
            )]
        };
        let rectangle = Nest {
            arrays: vec![x.clone()],
            body: body(Affine::constant(1)),
        };
        assert_eq!(
            rectangle.estimated_accesses(),
            rectangle.access_count().unwrap() as f64
        );
        // DO J = I, 99: 50 trips at the middle I = 50, against 99·100/2 / 99 = 50 on average.
        let triangle = Nest {
            arrays: vec![x],
            body: body(Affine::var(0)),
        };
        assert_eq!(triangle.estimated_accesses(), 99.0 * 51.0);
        assert_eq!(triangle.access_count().unwrap(), 99 + 4950);
    }

    #[test]
    fn inner_strides_follow_the_innermost_loop_and_its_step() {
        // DO J = 1, 4; DO I = 1, 4, 2; B(J, I) = A(I, J); END DO; END DO
        // with A, B(64, 4) of 8 bytes: A moves 16 bytes per I step, B 1024.
        let nest = Nest {
            arrays: vec![
                ArrayDecl::new("A", 0, 8, &[64, 4]),
                ArrayDecl::new("B", 4096, 8, &[64, 4]),
                ArrayDecl::new("S", 8192, 8, &[1]),
            ],
            body: vec![
                Ref::read(2, vec![Affine::constant(1)]),
                Loop::node(
                    "J",
                    Affine::constant(1),
                    Affine::constant(4),
                    vec![Node::Loop(Loop {
                        var: "I".into(),
                        lower: Affine::constant(1),
                        upper: Affine::constant(4),
                        step: 2,
                        body: vec![
                            Ref::read(0, vec![Affine::var(1), Affine::var(0)]),
                            Ref::write(1, vec![Affine::var(0), Affine::var(1)]),
                        ],
                        every: 1,
                    })],
                ),
            ],
        };
        let s = nest.inner_strides().unwrap();
        assert_eq!(
            s[0],
            InnerStride {
                stride_bytes: 16,
                written: false
            }
        );
        assert_eq!(
            s[1],
            InnerStride {
                stride_bytes: 1024,
                written: true
            }
        );
        assert_eq!(
            s[2],
            InnerStride {
                stride_bytes: 0,
                written: false
            }
        );
    }

    #[test]
    fn a_guarded_loop_runs_on_one_pass_in_every() {
        // DO T = 1, 6: the loop over I runs at T = 1 and T = 4 (one pass in three).
        let guarded = Node::Loop(Loop {
            var: "I".into(),
            lower: Affine::constant(1),
            upper: Affine::constant(2),
            step: 1,
            body: vec![Ref::read(0, vec![Affine::var(1)])],
            every: 3,
        });
        let nest = Nest {
            arrays: vec![ArrayDecl::new("V", 0, 8, &[2])],
            body: vec![Loop::node(
                "T",
                Affine::constant(1),
                Affine::constant(6),
                vec![guarded],
            )],
        };
        assert_eq!(nest.access_count(), Ok(4));
        assert_eq!(
            nest.access_count(),
            Ok(4),
            "each enumeration counts its own passes"
        );
    }

    #[test]
    fn negative_step_and_errors() {
        let nest = Nest {
            arrays: vec![ArrayDecl::new("V", 0, 4, &[10])],
            body: vec![Node::Loop(Loop {
                var: "I".into(),
                lower: Affine::constant(10),
                upper: Affine::constant(1),
                step: -3,
                body: vec![Ref::write(0, vec![Affine::var(0)])],
                every: 1,
            })],
        };
        let mut got = Vec::new();
        nest.for_each_access(|a| got.push((a.addr, a.write)))
            .unwrap();
        assert_eq!(got, vec![(36, true), (24, true), (12, true), (0, true)]);
        let bad = Nest {
            arrays: vec![ArrayDecl::new("V", 0, 4, &[10])],
            body: vec![Ref::read(0, vec![Affine::var(0)])],
        };
        assert!(matches!(
            bad.for_each_access(|_| {}),
            Err(NestError::Scope { .. })
        ));
        let neg = Nest {
            arrays: vec![ArrayDecl::new("V", 0, 4, &[10])],
            body: vec![Ref::read(0, vec![Affine::constant(0)])],
        };
        // V(0) is 4 bytes below V(1) at address 0: every address moves up a page.
        let mut got = vec![];
        neg.for_each_access(|a| got.push(a.addr)).unwrap();
        assert_eq!(got, vec![PLACEMENT_PAGE - 4]);
    }

    #[test]
    fn a_reference_below_the_first_array_shifts_the_nest_by_whole_pages() {
        // DO I = 1, 100: read X(I-1), X(I), write Z(I); X at 0, Z a page later.
        let nest = |lower: i64| Nest {
            arrays: vec![
                ArrayDecl::new("X", 0, 8, &[100]),
                ArrayDecl::new("Z", 4096, 8, &[100]),
            ],
            body: vec![Loop::node(
                "I",
                Affine::constant(lower),
                Affine::constant(100),
                vec![
                    Ref::read(0, vec![Affine::var(0).plus(-1)]),
                    Ref::read(0, vec![Affine::var(0)]),
                    Ref::write(1, vec![Affine::var(0)]),
                ],
            )],
        };
        let addrs = |n: Nest| {
            let mut v = vec![];
            n.for_each_access(|a| v.push(a.addr)).unwrap();
            v
        };
        let (inside, below) = (addrs(nest(2)), addrs(nest(1)));
        // From I = 2 nothing moves; from I = 1 the same accesses sit a page higher.
        assert_eq!(inside[..3], [0, 8, 4104]);
        assert_eq!(
            below[3..6],
            [PLACEMENT_PAGE, PLACEMENT_PAGE + 8, PLACEMENT_PAGE + 4104]
        );
    }

    #[test]
    fn place_arrays_aligns() {
        let mut n = Nest {
            arrays: vec![
                ArrayDecl::new("A", 0, 8, &[3]),
                ArrayDecl::new("B", 0, 8, &[5]),
            ],
            body: vec![],
        };
        n.place_arrays(0, 64);
        assert_eq!((n.arrays[0].base, n.arrays[1].base), (0, 64));
    }
}
