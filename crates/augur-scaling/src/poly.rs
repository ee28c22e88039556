//! Multivariate polynomials with exact rational coefficients, and sums of them over
//! an index range in closed form (Faulhaber's formulas): the algebra of symbolic
//! iteration counts.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// An exact rational number.
pub type Q = BigRational;

/// `v` as an exact rational.
pub fn q(v: i64) -> Q {
    Q::from_integer(BigInt::from(v))
}

/// A monomial: variables (sorted by name) with their positive exponents.
type Monomial = Vec<(String, u32)>;

/// A polynomial in named integer variables with rational coefficients.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Poly {
    terms: BTreeMap<Monomial, Q>,
}

fn mono_mul(a: &Monomial, b: &Monomial) -> Monomial {
    let mut m: BTreeMap<String, u32> = a.iter().cloned().collect();
    for (v, e) in b {
        *m.entry(v.clone()).or_default() += e;
    }
    m.into_iter().collect()
}

impl Poly {
    /// The zero polynomial.
    pub fn zero() -> Poly {
        Poly::default()
    }

    /// A constant.
    pub fn constant(c: Q) -> Poly {
        let mut p = Poly::zero();
        if !c.is_zero() {
            p.terms.insert(vec![], c);
        }
        p
    }

    /// An integer constant.
    pub fn int(v: i64) -> Poly {
        Poly::constant(q(v))
    }

    /// The variable `name`.
    pub fn var(name: &str) -> Poly {
        let mut p = Poly::zero();
        p.terms.insert(vec![(name.to_string(), 1)], Q::one());
        p
    }

    /// Whether it is the zero polynomial.
    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    /// Its value when it has no variable.
    pub fn as_constant(&self) -> Option<Q> {
        match self.terms.len() {
            0 => Some(Q::zero()),
            1 => self.terms.get(&vec![]).cloned(),
            _ => None,
        }
    }

    /// `self + o`.
    pub fn add(&self, o: &Poly) -> Poly {
        let mut out = self.clone();
        for (m, c) in &o.terms {
            let e = out.terms.entry(m.clone()).or_insert_with(Q::zero);
            *e += c;
            if e.is_zero() {
                out.terms.remove(m);
            }
        }
        out
    }

    /// `self · c`.
    pub fn scale(&self, c: &Q) -> Poly {
        if c.is_zero() {
            return Poly::zero();
        }
        Poly {
            terms: self.terms.iter().map(|(m, v)| (m.clone(), v * c)).collect(),
        }
    }

    /// `self − o`.
    pub fn sub(&self, o: &Poly) -> Poly {
        self.add(&o.scale(&-Q::one()))
    }

    /// `self · o`.
    pub fn mul(&self, o: &Poly) -> Poly {
        let mut out = Poly::zero();
        for (ma, ca) in &self.terms {
            for (mb, cb) in &o.terms {
                let mut t = Poly::zero();
                t.terms.insert(mono_mul(ma, mb), ca * cb);
                out = out.add(&t);
            }
        }
        out
    }

    /// `self^e`.
    pub fn pow(&self, e: u32) -> Poly {
        (0..e).fold(Poly::int(1), |acc, _| acc.mul(self))
    }

    /// The names of its variables, sorted.
    pub fn vars(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .terms
            .keys()
            .flat_map(|m| m.iter().map(|(n, _)| n.clone()))
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// Whether `name` occurs in it.
    pub fn mentions(&self, name: &str) -> bool {
        self.terms.keys().any(|m| m.iter().any(|(n, _)| n == name))
    }

    /// Its coefficients as a polynomial in `name`: entry `p` multiplies `name^p`.
    pub fn coefficients_in(&self, name: &str) -> Vec<Poly> {
        let mut out: Vec<Poly> = vec![];
        for (m, c) in &self.terms {
            let p = m.iter().find(|(n, _)| n == name).map_or(0, |(_, e)| *e) as usize;
            let rest: Monomial = m.iter().filter(|(n, _)| n != name).cloned().collect();
            if out.len() <= p {
                out.resize(p + 1, Poly::zero());
            }
            let mut t = Poly::zero();
            t.terms.insert(rest, c.clone());
            out[p] = out[p].add(&t);
        }
        out
    }

    /// `self` with `name` replaced by `by`.
    pub fn substitute(&self, name: &str, by: &Poly) -> Poly {
        self.coefficients_in(name)
            .iter()
            .enumerate()
            .fold(Poly::zero(), |acc, (p, c)| {
                acc.add(&c.mul(&by.pow(p as u32)))
            })
    }

    /// Its value with every variable given, or `None` when one is missing.
    pub fn eval(&self, values: &HashMap<String, Q>) -> Option<Q> {
        let mut total = Q::zero();
        for (m, c) in &self.terms {
            let mut t = c.clone();
            for (n, e) in m {
                t *= num_traits::pow(values.get(n)?.clone(), *e as usize);
            }
            total += t;
        }
        Some(total)
    }

    /// Its value at integer values of its variables, in 128-bit arithmetic (`None` when a
    /// variable is missing, the value is not an integer or it overflows).
    pub fn eval_int(&self, values: &HashMap<String, i128>) -> Option<i128> {
        let mut num = BigInt::zero();
        let mut den = BigInt::one();
        for (m, c) in &self.terms {
            let mut t = c.numer().clone();
            for (n, e) in m {
                t *= num_traits::pow(BigInt::from(*values.get(n)?), *e as usize);
            }
            // num/den + t/c.den
            num = num * c.denom() + t * &den;
            den *= c.denom();
        }
        let v = Q::new(num, den);
        if !v.is_integer() {
            return None;
        }
        v.to_integer().to_i128()
    }
}

/// `Σ_{x=1}^{x} x^p` as a polynomial in `x` (Faulhaber), from
/// `(x+1)^{p+1} − 1 = Σ_{k=0}^{p} C(p+1, k) S_k(x)`.
fn power_sum(p: u32, cache: &mut Vec<Poly>) -> Poly {
    while cache.len() <= p as usize {
        let k = cache.len() as u32;
        let x = Poly::var("x");
        let mut rhs = x.add(&Poly::int(1)).pow(k + 1).sub(&Poly::int(1));
        for (j, s) in cache.iter().enumerate() {
            rhs = rhs.sub(&s.scale(&binomial(k + 1, j as u32)));
        }
        cache.push(rhs.scale(&(Q::one() / q(i64::from(k) + 1))));
    }
    cache[p as usize].clone()
}

fn binomial(n: u32, k: u32) -> Q {
    let mut r = Q::one();
    for i in 0..k {
        r = r * q(i64::from(n - i)) / q(i64::from(i) + 1);
    }
    r
}

/// `Σ_{name=lo}^{hi} body` in closed form: exact whenever `hi ≥ lo − 1` (a range of
/// zero or more values); `lo` and `hi` may be any polynomials without `name`.
pub fn sum_over(body: &Poly, name: &str, lo: &Poly, hi: &Poly) -> Poly {
    let mut cache = vec![];
    let mut out = Poly::zero();
    let below = lo.sub(&Poly::int(1));
    for (p, c) in body.coefficients_in(name).iter().enumerate() {
        if c.is_zero() {
            continue;
        }
        let s = power_sum(p as u32, &mut cache);
        let range = s.substitute("x", hi).sub(&s.substitute("x", &below));
        out = out.add(&c.mul(&range));
    }
    out
}

impl fmt::Display for Poly {
    /// Highest total degree first: `n^3/3 + n^2/2 + n/6`, `n*m - 2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return write!(f, "0");
        }
        let mut terms: Vec<(&Monomial, &Q)> = self.terms.iter().collect();
        terms.sort_by_key(|(m, _)| std::cmp::Reverse(m.iter().map(|(_, e)| *e).sum::<u32>()));
        for (i, (m, c)) in terms.into_iter().enumerate() {
            let neg = c.is_negative();
            match (i, neg) {
                (0, true) => write!(f, "-")?,
                (0, false) => {}
                (_, true) => write!(f, " - ")?,
                (_, false) => write!(f, " + ")?,
            }
            let a = c.abs();
            let vars: Vec<String> = m
                .iter()
                .map(|(n, e)| match e {
                    1 => n.clone(),
                    _ => format!("{n}^{e}"),
                })
                .collect();
            let num = a.numer().to_string();
            let body = match (vars.is_empty(), num.as_str()) {
                (true, _) => num,
                (false, "1") => vars.join("*"),
                (false, _) => format!("{num}*{}", vars.join("*")),
            };
            if a.denom().is_one() {
                write!(f, "{body}")?;
            } else {
                write!(f, "{body}/{}", a.denom())?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(p: &Poly, vals: &[(&str, i64)]) -> Q {
        let m = vals.iter().map(|(n, v)| (n.to_string(), q(*v))).collect();
        p.eval(&m).unwrap()
    }

    #[test]
    fn faulhaber_sums_match_brute_force() {
        for p in 0..6u32 {
            let body = Poly::var("i").pow(p);
            let s = sum_over(&body, "i", &Poly::int(3), &Poly::var("n"));
            for n in 2..12i64 {
                let brute: i64 = (3..=n).map(|i| i.pow(p)).sum();
                assert_eq!(at(&s, &[("n", n)]), q(brute), "p={p} n={n}");
            }
        }
    }

    #[test]
    fn a_triangle_sums_to_n_n_plus_1_over_2() {
        let inner = sum_over(&Poly::int(1), "j", &Poly::int(1), &Poly::var("i"));
        let outer = sum_over(&inner, "i", &Poly::int(1), &Poly::var("n"));
        assert_eq!(outer.to_string(), "n^2/2 + n/2");
    }

    #[test]
    fn integer_evaluation_agrees_and_refuses_fractions() {
        let p = Poly::var("n")
            .mul(&Poly::var("n").add(&Poly::int(1)))
            .scale(&(q(1) / q(2)));
        let m: HashMap<String, i128> = [("n".to_string(), 1_000_000i128)].into();
        assert_eq!(p.eval_int(&m), Some(500_000_500_000));
        let half = Poly::var("n").scale(&(q(1) / q(2)));
        let odd: HashMap<String, i128> = [("n".to_string(), 3i128)].into();
        assert_eq!(half.eval_int(&odd), None);
    }
}
