//! Integer values and addresses of one compiled iteration as affine functions of what
//! the iteration starts from: the loop's counters (stack slots stepped by a constant
//! once an iteration, as unoptimized code keeps them) and values the loop never
//! changes. An element stored at `c(j)` and loaded as `c(j+1)` by the next iteration
//! (a back substitution, `j` counting down) is then one place: a loop-carried chain
//! through store forwarding, which unoptimized code has wherever the source carries a
//! recurrence through an array.

use std::collections::{BTreeMap, HashMap};

/// `constant + Σ coefficient × symbol`. Symbols: `I[slot]` a counter's value at the
/// start of the iteration, `[slot]` a slot the loop never writes, `%r` a register it
/// never writes, `mem(...)` a value loaded from an address that does not move.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Affine {
    terms: BTreeMap<String, i64>,
    constant: i64,
}

impl Affine {
    /// The constant `c`.
    pub(super) fn constant(c: i64) -> Self {
        Affine {
            terms: BTreeMap::new(),
            constant: c,
        }
    }

    /// One symbol.
    pub(super) fn symbol(s: impl Into<String>) -> Self {
        Affine {
            terms: BTreeMap::from([(s.into(), 1)]),
            constant: 0,
        }
    }

    /// `self + k × other`.
    pub(super) fn plus(&self, other: &Affine, k: i64) -> Affine {
        let mut out = self.clone();
        out.constant = out.constant.wrapping_add(other.constant.wrapping_mul(k));
        for (s, c) in &other.terms {
            let e = out.terms.entry(s.clone()).or_insert(0);
            *e = e.wrapping_add(c.wrapping_mul(k));
        }
        out.terms.retain(|_, c| *c != 0);
        out
    }

    /// `k × self`.
    pub(super) fn times(&self, k: i64) -> Affine {
        Affine::constant(0).plus(self, k)
    }

    /// The constant value, if no symbol is left.
    pub(super) fn as_constant(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// Whether any counter of `steps` appears.
    pub(super) fn moves(&self, steps: &HashMap<String, i64>) -> bool {
        self.terms.keys().any(|s| steps.contains_key(s))
    }

    /// The coefficient of symbol `s` (0 when absent).
    pub(super) fn coefficient(&self, s: &str) -> i64 {
        self.terms.get(s).copied().unwrap_or(0)
    }

    /// The expression with symbol `s` dropped (its value taken as 0).
    pub(super) fn without(&self, s: &str) -> Affine {
        let mut out = self.clone();
        out.terms.remove(s);
        out
    }

    /// The expression with each counter advanced by its step: the address a load names
    /// in the next iteration, written in this iteration's terms, so that it equals the
    /// name a store of this iteration gives the same element.
    pub(super) fn one_iteration_on(&self, steps: &HashMap<String, i64>) -> Affine {
        let mut out = self.clone();
        for (s, c) in &self.terms {
            if let Some(step) = steps.get(s) {
                out.constant = out.constant.wrapping_add(c.wrapping_mul(*step));
            }
        }
        out
    }

    /// The symbols' part by its canonical name, and the constant apart: two addresses
    /// with equal first parts are the same array or frame, the second the bytes from it.
    pub(super) fn split(&self) -> (String, i64) {
        let base = Affine {
            terms: self.terms.clone(),
            constant: 0,
        };
        (base.key(), self.constant)
    }

    /// A canonical name: equal values, equal names.
    pub(super) fn key(&self) -> String {
        let mut s = String::from("affine(");
        for (sym, c) in &self.terms {
            s.push_str(&format!("{c}*{sym} + "));
        }
        s.push_str(&format!("{})", self.constant));
        s
    }
}

/// The integer operation an instruction performs, its operand-size suffix dropped:
/// `addq` → `add`, `leal` → `lea`, `movslq` → `movs` (a sign extension keeps the value).
pub(super) fn integer_operation(m: &str) -> Option<&'static str> {
    const OPS: &[&str] = &[
        "mov", "lea", "add", "sub", "imul", "sal", "shl", "neg", "inc", "dec", "xor",
    ];
    if matches!(
        m,
        "movslq" | "movsl" | "movsbl" | "movswl" | "movsbq" | "movswq"
    ) {
        // Only a 32-bit value's extension keeps an index; bytes and words are flags.
        return (m == "movslq" || m == "movsl").then_some("mov");
    }
    let stem = match m.len() {
        0 => return None,
        n if OPS.contains(&&m[..n]) => m,
        n if matches!(&m[n - 1..], "b" | "w" | "l" | "q") => &m[..n - 1],
        _ => m,
    };
    OPS.iter().find(|o| **o == stem).copied()
}

/// An immediate `$12` or `$-8`.
pub(super) fn immediate(op: &str) -> Option<i64> {
    op.strip_prefix('$')?.parse().ok()
}

/// A displacement: a number, a symbol (`x_`), or a symbol plus a number (`x_+8`).
pub(super) fn displacement(d: &str) -> Affine {
    if d.is_empty() {
        return Affine::constant(0);
    }
    if let Ok(c) = d.parse::<i64>() {
        return Affine::constant(c);
    }
    if let Some(k) = d.rfind(['+', '-']).filter(|&k| k > 0) {
        if let Ok(c) = d[k..].trim_start_matches('+').parse::<i64>() {
            return Affine::symbol(format!("&{}", &d[..k])).plus(&Affine::constant(c), 1);
        }
    }
    Affine::symbol(format!("&{d}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_and_the_next_iterations_load_name_one_element() {
        // c(j) stored with j = M - I, c(j+1) loaded next iteration with I + 1.
        let m = Affine::symbol("mem(n)");
        let i = Affine::symbol("I[-36(%rbp)]");
        let j = m.plus(&i, -1);
        let store = Affine::symbol("[-136(%rbp)]").plus(&j.plus(&Affine::constant(-1), 1), 4);
        let load = Affine::symbol("[-136(%rbp)]").plus(&j, 4);
        let steps = HashMap::from([("I[-36(%rbp)]".to_string(), 1)]);
        assert!(store.moves(&steps));
        assert_ne!(load.key(), store.key());
        assert_eq!(load.one_iteration_on(&steps).key(), store.key());
    }

    #[test]
    fn suffixes_and_extensions() {
        assert_eq!(integer_operation("addq"), Some("add"));
        assert_eq!(integer_operation("leal"), Some("lea"));
        assert_eq!(integer_operation("movslq"), Some("mov"));
        assert_eq!(integer_operation("movzbl"), None);
        assert_eq!(integer_operation("addsd"), None);
        assert_eq!(integer_operation("subss"), None);
        assert_eq!(displacement("x_+8").key(), "affine(1*&x_ + 8)");
        assert_eq!(displacement("-24").as_constant(), Some(-24));
    }
}
