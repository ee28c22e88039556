//! The fixed places one compiled iteration keeps values in memory: stack and static
//! slots, and any address the iteration computes the same way from what the loop never
//! writes (a dummy argument's element `b(i,j)` inside a loop over `k`, as unoptimized
//! code reloads its address and indices each time). A value stored to such a place and
//! loaded again in the next iteration is a loop-carried chain through store forwarding.

use super::{address_registers, is_compare, is_jump, register, slot, writes_only, Instr, Loc};
use std::collections::{HashMap, HashSet};

/// The values a loop iteration holds in registers that are the same in every iteration,
/// and the places they address.
#[derive(Default)]
pub(super) struct Places {
    /// Register → the value it holds, as an expression of slots, registers and constants
    /// the loop never writes, while it holds it.
    values: HashMap<String, String>,
    /// Registers the loop never writes: each holds one value throughout.
    untouched: HashSet<String>,
    /// The slots the loop writes.
    written: Vec<String>,
}

/// Mnemonic prefixes of instructions whose result is a pure function of their operands
/// (moves, integer arithmetic, address arithmetic, sign and zero extensions).
const PURE: &[&str] = &[
    "mov", "lea", "add", "sub", "imul", "sal", "shl", "sar", "shr", "and", "or", "neg", "not",
    "inc", "dec",
];

/// The registers a call keeps (the System V x86-64 ABI's callee-saved ones); a call may
/// change every other.
const CALLEE_SAVED: &[&str] = &["b", "bp", "sp", "r12", "r13", "r14", "r15"];

impl Places {
    /// The places of `body`, whose instructions write the registers `written_registers`.
    pub(super) fn new(body: &[Instr], written_registers: &HashSet<String>) -> Self {
        let mut written: Vec<String> = body
            .iter()
            .filter(|i| !is_jump(&i.mnemonic) && !is_compare(&i.mnemonic))
            .filter_map(|i| i.operands.last().and_then(|d| slot(d)))
            .collect();
        written.sort();
        written.dedup();
        let calls = body.iter().any(|i| i.mnemonic.starts_with("call"));
        let untouched = body
            .iter()
            .flat_map(|i| i.operands.iter())
            .flat_map(|o| register(o).into_iter().chain(address_registers(o)))
            .filter(|r| !written_registers.contains(r))
            .filter(|r| !calls || CALLEE_SAVED.contains(&r.as_str()))
            .collect();
        Places {
            values: HashMap::new(),
            untouched,
            written,
        }
    }

    /// The fixed place memory operand `op` names, if any: a slot, or an address whose
    /// registers hold the same value in every iteration.
    pub(super) fn place(&self, op: &str) -> Option<String> {
        if let Some(s) = slot(op) {
            return Some(s);
        }
        if address_registers(op).is_empty() {
            return None;
        }
        self.address(op)
    }

    /// `disp(base,index,scale)` with each register replaced by its invariant value.
    fn address(&self, op: &str) -> Option<String> {
        let (disp, inside) = op.split_once('(')?;
        let parts: Vec<String> = inside
            .trim_end_matches(')')
            .split(',')
            .map(|p| {
                let p = p.trim();
                if p.starts_with('%') {
                    self.operand(p)
                } else {
                    Some(p.to_string())
                }
            })
            .collect::<Option<_>>()?;
        Some(format!("{disp}({})", parts.join(",")))
    }

    /// The invariant value of a register or immediate operand.
    fn operand(&self, op: &str) -> Option<String> {
        if op.starts_with('$') {
            return Some(op.to_string());
        }
        let r = register(op)?;
        if r == "ip" {
            return Some("%ip".into());
        }
        if let Some(v) = self.values.get(&r) {
            return Some(v.clone());
        }
        self.untouched.contains(&r).then(|| format!("%{r}"))
    }

    /// The invariant value a source operand of `mnemonic` reads: a register, a constant,
    /// a slot the loop never writes, or (for `lea`) an invariant address.
    fn source(&self, mnemonic: &str, op: &str) -> Option<String> {
        if mnemonic.starts_with("lea") {
            return self.address(op);
        }
        match slot(op) {
            Some(s) if !self.written.contains(&s) => Some(format!("[{s}]")),
            Some(_) => None,
            None if op.contains('(') => None,
            None => self.operand(op),
        }
    }

    /// The invariant value instruction `i` leaves in its destination register, if any.
    fn value_of(&self, i: &Instr) -> Option<String> {
        let m = i.mnemonic.as_str();
        let n = i.operands.len();
        if matches!(m, "cltq" | "cqto" | "cltd") {
            let extended = if m == "cltq" {
                self.operand("%rax")
            } else {
                None
            };
            return extended.map(|a| format!("cltq({a})"));
        }
        if n == 0 || !PURE.iter().any(|p| m.starts_with(p)) {
            return None;
        }
        register(&i.operands[n - 1])?;
        let sources = if writes_only(m, n) {
            &i.operands[..n - 1]
        } else {
            &i.operands[..]
        };
        let values: Vec<String> = sources
            .iter()
            .map(|s| self.source(m, s))
            .collect::<Option<_>>()?;
        Some(format!("{m}({})", values.join(",")))
    }

    /// Follows instruction `i`, which writes `written_registers`: a register it gives an
    /// invariant value holds it, any other it writes holds none.
    pub(super) fn after(&mut self, i: &Instr, written_registers: impl Iterator<Item = String>) {
        let value = self.value_of(i);
        for r in written_registers {
            self.values.remove(&r);
        }
        if i.mnemonic.starts_with("call") {
            // A call may change every register it does not have to keep.
            self.values
                .retain(|r, _| CALLEE_SAVED.contains(&r.as_str()));
        }
        let dest = if i.mnemonic == "cltq" {
            Some("a".to_string())
        } else {
            i.operands.last().and_then(|d| register(d))
        };
        if let (Some(v), Some(r)) = (value, dest) {
            self.values.insert(r, v);
        }
    }
}

/// What the value of place `key` depends on (the slots and registers its address was
/// computed from): a write to one of them moves the place.
pub(super) fn inputs(key: &str) -> Vec<Loc> {
    let mut out = vec![];
    let mut rest = key;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find(']') else {
            break;
        };
        out.push(Loc::Slot(rest[open + 1..open + close].to_string()));
        rest = &rest[open + close + 1..];
    }
    for (k, _) in key.match_indices('%') {
        let name: String = key[k + 1..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        out.push(Loc::Reg(name));
    }
    out
}
