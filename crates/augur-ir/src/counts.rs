//! Sparse vectors of AbOp counts: one row of Saavedra's S matrix (static counts
//! of a basic block) or a dynamic count vector C; and the scalar operand references
//! counted beside them ([`ScalarOperands`]).

use crate::abop::{AbOp, ALL, COUNT};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;

/// Counts of abstract operations, kept sparse and sorted by AbOp code.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AbOpCounts {
    entries: Vec<(AbOp, f64)>,
}

impl AbOpCounts {
    /// No operations.
    pub const fn new() -> AbOpCounts {
        AbOpCounts {
            entries: Vec::new(),
        }
    }

    /// Adds `n` occurrences of `op`.
    pub fn add(&mut self, op: AbOp, n: f64) {
        if n == 0.0 {
            return;
        }
        match self.entries.binary_search_by_key(&op, |e| e.0) {
            Ok(i) => self.entries[i].1 += n,
            Err(i) => self.entries.insert(i, (op, n)),
        }
    }

    /// Adds one occurrence of `op`.
    pub fn inc(&mut self, op: AbOp) {
        self.add(op, 1.0);
    }

    /// The count of `op` (0 when absent).
    pub fn get(&self, op: AbOp) -> f64 {
        self.entries
            .binary_search_by_key(&op, |e| e.0)
            .map(|i| self.entries[i].1)
            .unwrap_or(0.0)
    }

    /// Adds `scale` times every count of `other` (D = μ·S accumulation).
    pub fn add_scaled(&mut self, other: &AbOpCounts, scale: f64) {
        for &(op, n) in &other.entries {
            self.add(op, n * scale);
        }
    }

    /// Non-zero entries in code order.
    pub fn iter(&self) -> impl Iterator<Item = (AbOp, f64)> + '_ {
        self.entries.iter().copied()
    }

    /// Whether no operation is counted.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Sum of all counts.
    pub fn total(&self) -> f64 {
        self.entries.iter().map(|e| e.1).sum()
    }

    /// A dense vector indexed by [`AbOp::index`].
    pub fn to_dense(&self) -> Vec<f64> {
        let mut v = vec![0.0; COUNT];
        for &(op, n) in &self.entries {
            v[op.index()] = n;
        }
        v
    }

    /// Builds sparse counts from a dense vector indexed by [`AbOp::index`].
    pub fn from_dense(v: &[f64]) -> AbOpCounts {
        let mut c = AbOpCounts::new();
        for (i, &n) in v.iter().enumerate() {
            if let Some(op) = ALL.get(i) {
                c.add(*op, n);
            }
        }
        c
    }
}

/// References to scalar variables (Saavedra-Barrera's "simple variables", table 3.4),
/// counted beside the AbOps, which fold loads into the operators: every reference to a
/// non-constant scalar variable the counting rules visit, on either side of an
/// assignment, except inside subscripts and section bounds (the address computation
/// `ARR1`..`ARR4` stands for those) and in the arguments of inquiry intrinsics (`SIZE`,
/// `KIND`, ...: they read no value). Named constants and literals are not operands here.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ScalarOperands {
    /// References to local variables (and dummy arguments).
    pub local: f64,
    /// References to COMMON and module variables.
    pub global: f64,
}

impl ScalarOperands {
    /// Adds `scale` times `other`.
    pub fn add_scaled(&mut self, other: &ScalarOperands, scale: f64) {
        self.local += other.local * scale;
        self.global += other.global * scale;
    }

    /// Local and global references together.
    pub fn total(&self) -> f64 {
        self.local + self.global
    }

    /// Whether nothing is counted.
    pub fn is_zero(&self) -> bool {
        self.local == 0.0 && self.global == 0.0
    }
}

impl Serialize for AbOpCounts {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.entries.len()))?;
        for (op, n) in &self.entries {
            m.serialize_entry(op.mnemonic(), n)?;
        }
        m.end()
    }
}

/// Counts are written as an object from mnemonic to count.
impl schemars::JsonSchema for AbOpCounts {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AbOpCounts".into()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "Executions of each abstract operation, by mnemonic.",
            "type": "object",
            "propertyNames": g.subschema_for::<AbOp>(),
            "additionalProperties": { "type": "number" },
        })
    }
}

impl<'de> Deserialize<'de> for AbOpCounts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<AbOpCounts, D::Error> {
        let m = BTreeMap::<AbOp, f64>::deserialize(d)?;
        let mut c = AbOpCounts::new();
        for (op, n) in m {
            c.add(op, n);
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_get_scale() {
        let mut a = AbOpCounts::new();
        a.inc(AbOp::ARDL);
        a.add(AbOp::ARR1, 2.0);
        a.inc(AbOp::ARDL);
        assert_eq!(a.get(AbOp::ARDL), 2.0);
        assert_eq!(a.get(AbOp::MRDL), 0.0);
        let mut c = AbOpCounts::new();
        c.add_scaled(&a, 10.0);
        assert_eq!(c.get(AbOp::ARR1), 20.0);
        assert_eq!(c.total(), 40.0);
        let json = serde_json_like(&c);
        assert!(json.contains("ARDL"));
        assert_eq!(AbOpCounts::from_dense(&c.to_dense()), c);
    }

    fn serde_json_like(c: &AbOpCounts) -> String {
        c.iter()
            .map(|(o, n)| format!("{o}={n}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}
