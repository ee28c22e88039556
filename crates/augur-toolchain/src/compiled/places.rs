//! The fixed places one compiled iteration keeps values in memory: stack and static
//! slots, and any address the iteration computes the same way from what the loop never
//! writes (a dummy argument's element `b(i,j)` inside a loop over `k`, as unoptimized
//! code reloads its address and indices each time). A value stored to such a place and
//! loaded again in the next iteration is a loop-carried chain through store forwarding.
//! So is an element whose address moves with the loop's counter (`affine`): stored at
//! `c(j)`, loaded as `c(j+1)` by the next iteration.

use super::affine::{displacement, immediate, integer_operation, Affine};
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
    /// What some of those hold on entering the loop, as the code before it set them (a
    /// pointer into the frame: `leaq 16(%rsp), %rdi` hoisted out of the loop).
    entry: HashMap<String, Affine>,
    /// The slots the loop writes.
    written: Vec<String>,
    /// Integer register → its value as an affine function of the iteration's start.
    affine: HashMap<String, Affine>,
    /// Slot → the affine value this iteration stored there so far.
    slot_values: HashMap<String, Affine>,
    /// The loop's counters: `I[slot]` → what one iteration adds to the slot.
    steps: HashMap<String, i64>,
    /// The names of the moving addresses this iteration stored to so far.
    stored: HashSet<String>,
    /// The names of the addresses the whole iteration stores to.
    stored_anywhere: HashSet<String>,
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
        let mut places = Places {
            untouched,
            written,
            ..Places::default()
        };
        places.steps = places.counters(body);
        places.stored_anywhere = places.clone_fresh().stores_of(body);
        places
    }

    /// Whether a core that renames memory can match a load of memory operand `op` to
    /// the store that wrote it by their address registers (Agner Fog's "mirroring":
    /// a base register, with or without an index, that the loop never writes, as the
    /// frame pointer or a pointer held in a register throughout; not a rip-relative or
    /// absolute address, nor a pointer the loop loads again before each access).
    pub(super) fn mirrored(&self, op: &str) -> bool {
        let registers = address_registers(op);
        !op.contains("(%rip)")
            && !registers.is_empty()
            && registers
                .iter()
                .all(|r| r == "bp" || r == "sp" || self.untouched.contains(r))
    }

    /// A copy at the start of an iteration: what is known of the whole loop, nothing of
    /// the instructions followed so far.
    fn clone_fresh(&self) -> Places {
        Places {
            untouched: self.untouched.clone(),
            entry: self.entry.clone(),
            written: self.written.clone(),
            steps: self.steps.clone(),
            stored_anywhere: self.stored_anywhere.clone(),
            ..Places::default()
        }
    }

    /// Follows `body` once, returning the names of the addresses it stores to.
    fn stores_of(mut self, body: &[Instr]) -> HashSet<String> {
        self.follow(body);
        self.stored
    }

    /// Follows every instruction of `body` in turn.
    fn follow(&mut self, body: &[Instr]) {
        for i in body {
            let writes = super::flow(i, &Places::default()).writes;
            self.after(i, super::registers(&writes));
        }
    }

    /// The slots stepped by a constant once an iteration: written by one instruction of
    /// `body`, which leaves there the slot's value at the start of the iteration plus a
    /// constant.
    fn counters(&self, body: &[Instr]) -> HashMap<String, i64> {
        let mut writers: HashMap<String, usize> = HashMap::new();
        for i in body
            .iter()
            .filter(|i| !is_jump(&i.mnemonic) && !is_compare(&i.mnemonic))
        {
            if let Some(s) = i.operands.last().and_then(|d| slot(d)) {
                *writers.entry(s).or_default() += 1;
            }
        }
        let candidates: Vec<String> = writers
            .into_iter()
            .filter(|(_, n)| *n == 1)
            .map(|(s, _)| s)
            .collect();
        // Each candidate's loads before its store read the counter's symbol.
        let mut trial = self.clone_fresh();
        trial.steps = candidates.iter().map(|s| (counter(s), 0)).collect();
        trial.follow(body);
        candidates
            .into_iter()
            .filter_map(|s| {
                let step = trial
                    .slot_values
                    .get(&s)?
                    .plus(&Affine::symbol(counter(&s)), -1)
                    .as_constant()?;
                (step != 0).then(|| (counter(&s), step))
            })
            .collect()
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

    /// The name of the element memory operand `op` stores to when its address moves
    /// with the loop's counters.
    pub(super) fn moving_place(&self, op: &str) -> Option<String> {
        let a = self.affine_address(op)?;
        a.moves(&self.steps).then(|| a.key())
    }

    /// The place a load of moving address `op` reads a value of this loop from: the
    /// element this iteration stored there before, else the element an earlier store of
    /// the previous iteration wrote when the addresses meet one iteration on (`c(j)`
    /// stored, `c(j+1)` loaded with `j` counting down). `None` for an element no store
    /// of the loop writes.
    pub(super) fn carried_place(&self, op: &str) -> Option<String> {
        let a = self.affine_address(op)?;
        if !a.moves(&self.steps) {
            return None;
        }
        let now = a.key();
        if self.stored.contains(&now) {
            return Some(now);
        }
        let before = a.one_iteration_on(&self.steps).key();
        (self.stored_anywhere.contains(&before) && !self.stored.contains(&before)).then_some(before)
    }

    /// The places of `body` (see [`Places::new`]), knowing what registers the code before
    /// the loop leaves in the ones it never writes: `before`, the instructions ahead of
    /// it, followed in order (a branch among them is taken as falling through).
    pub(super) fn entered_from(
        body: &[Instr],
        written_registers: &HashSet<String>,
        before: &[Instr],
    ) -> Self {
        let mut places = Places::new(body, written_registers);
        let mut ahead = Places::default();
        ahead.affine.insert("sp".into(), Affine::symbol("%sp"));
        for i in before {
            // A push or pop moves the stack pointer without naming it.
            let moved = match i.mnemonic.get(..3) {
                Some("pus") => -8,
                Some("pop") => 8,
                _ => 0,
            };
            if moved != 0 {
                if let Some(sp) = ahead.affine.get_mut("sp") {
                    *sp = sp.plus(&Affine::constant(moved), 1);
                }
                continue;
            }
            let writes = super::flow(i, &Places::default()).writes;
            ahead.after(i, super::registers(&writes));
        }
        places.entry = ahead
            .affine
            .into_iter()
            .filter(|(r, a)| places.untouched.contains(r) && a.as_constant().is_none())
            .collect();
        places
    }

    /// Where memory operand `op` points on trip 0 of the inner loop whose trip symbol is
    /// `trip` ([`Places::enter_inner`]), and the bytes it moves each trip of it by the
    /// counters that loop keeps in slots, when its registers hold affine values that the
    /// loop's own counters do not move.
    pub(super) fn trip_address(&self, op: &str, trip: &str) -> Option<(String, i64, i64)> {
        let a = self.affine_address(op)?;
        if a.moves(&self.steps) {
            return None;
        }
        let (base, offset) = a.without(trip).split();
        Some((base, offset, a.coefficient(trip)))
    }

    /// The counters the loop keeps in slots (unoptimized code's), by their symbols
    /// (`I[slot]`), with what one iteration adds.
    pub(super) fn slot_counters(&self) -> &HashMap<String, i64> {
        &self.steps
    }

    /// On entering an inner loop whose counters kept in slots are `counters` (by their
    /// symbols, [`Places::slot_counters`]): each such slot whose value on entry is known
    /// holds it plus its step times `trip`, the symbol of the inner loop's trip.
    pub(super) fn enter_inner<'a>(
        &mut self,
        counters: impl Iterator<Item = (&'a String, &'a i64)>,
        trip: &str,
    ) {
        for (symbol, step) in counters {
            let Some(s) = counter_slot(symbol) else {
                continue;
            };
            if let Some(entry) = self.slot_values.get(s) {
                let moving = entry.plus(&Affine::symbol(trip), *step);
                self.slot_values.insert(s.to_string(), moving);
            }
        }
    }

    /// Forgets what `registers` hold, and the slots of the counters among them (by their
    /// symbols, `I[slot]`): an inner loop stepped them a number of times that following
    /// its body once does not know.
    pub(super) fn forget<'a>(&mut self, registers: impl Iterator<Item = &'a String>) {
        for r in registers {
            if let Some(s) = counter_slot(r) {
                self.slot_values.remove(s);
                continue;
            }
            self.affine.remove(r);
            self.values.remove(r);
        }
    }

    /// `disp(base,index,scale)` as an affine value, if its registers hold affine values.
    fn affine_address(&self, op: &str) -> Option<Affine> {
        let (disp, inside) = op.split_once('(')?;
        let parts: Vec<&str> = inside
            .trim_end_matches(')')
            .split(',')
            .map(str::trim)
            .collect();
        if parts.contains(&"%rip") {
            return None;
        }
        let mut a = displacement(disp.trim());
        if let Some(base) = parts.first().filter(|p| !p.is_empty()) {
            a = a.plus(&self.affine_operand(base)?, 1);
        }
        if let Some(index) = parts.get(1).filter(|p| !p.is_empty()) {
            let scale = parts.get(2).map_or(Some(1), |s| s.parse().ok())?;
            a = a.plus(&self.affine_operand(index)?, scale);
        }
        Some(a)
    }

    /// The affine value an operand holds: an immediate, an integer register, or a load.
    fn affine_operand(&self, op: &str) -> Option<Affine> {
        if let Some(c) = immediate(op) {
            return Some(Affine::constant(c));
        }
        if op.contains('(') || !op.starts_with('%') {
            return self.affine_load(op);
        }
        let r = register(op)?;
        if r.starts_with('v') {
            return None;
        }
        if let Some(a) = self.affine.get(&r) {
            return Some(a.clone());
        }
        if !self.untouched.contains(&r) {
            return None;
        }
        Some(
            self.entry
                .get(&r)
                .cloned()
                .unwrap_or_else(|| Affine::symbol(format!("%{r}"))),
        )
    }

    /// The affine value a load of `op` reads: what this iteration stored in a slot, a
    /// counter's value at the start of the iteration, a slot the loop never writes, or
    /// an address that does not move and the loop never stores to.
    fn affine_load(&self, op: &str) -> Option<Affine> {
        if let Some(s) = slot(op) {
            if let Some(v) = self.slot_values.get(&s) {
                return Some(v.clone());
            }
            if self.steps.contains_key(&counter(&s)) {
                return Some(Affine::symbol(counter(&s)));
            }
            return (!self.written.contains(&s)).then(|| Affine::symbol(format!("[{s}]")));
        }
        let a = self.affine_address(op)?;
        let key = a.key();
        (!a.moves(&self.steps) && !self.stored_anywhere.contains(&key))
            .then(|| Affine::symbol(format!("mem{key}")))
    }

    /// The affine value integer instruction `i` leaves in its destination, if any.
    fn affine_result(&self, i: &Instr) -> Option<Affine> {
        let m = i.mnemonic.as_str();
        if matches!(m, "cltq" | "cdqe") {
            return self.affine_operand("%rax");
        }
        let op = integer_operation(m)?;
        let ops = &i.operands;
        let dest = ops.last()?;
        if register(dest).is_some_and(|r| r.starts_with('v')) {
            return None;
        }
        let first = || self.affine_operand(&ops[0]);
        let old = || self.affine_operand(dest);
        match (op, ops.len()) {
            ("mov", 2) => first(),
            ("lea", 2) => self.affine_address(&ops[0]),
            ("add", 2) => old()?.plus(&first()?, 1).into(),
            ("sub", 2) => old()?.plus(&first()?, -1).into(),
            ("xor", 2) if ops[0] == ops[1] => Some(Affine::constant(0)),
            ("neg", 1) => Some(old()?.times(-1)),
            ("inc", 1) => old()?.plus(&Affine::constant(1), 1).into(),
            ("dec", 1) => old()?.plus(&Affine::constant(1), -1).into(),
            ("sal" | "shl", 1) => Some(old()?.times(2)),
            ("sal" | "shl", 2) => {
                let k = immediate(&ops[0]).filter(|k| (0..32).contains(k))?;
                Some(old()?.times(1 << k))
            }
            ("imul", 3) => Some(self.affine_operand(&ops[1])?.times(immediate(&ops[0])?)),
            ("imul", 2) => {
                let (a, b) = (first()?, old()?);
                match (a.as_constant(), b.as_constant()) {
                    (Some(k), _) => Some(b.times(k)),
                    (_, Some(k)) => Some(a.times(k)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Follows the affine values through instruction `i`, which writes the registers
    /// `written_registers`.
    fn follow_affine(&mut self, i: &Instr, written_registers: &[String]) {
        let value = self.affine_result(i);
        for r in written_registers {
            self.affine.remove(r);
        }
        if i.mnemonic.starts_with("call") {
            // A call may change every register it does not have to keep, and, with the
            // addresses Fortran passes, any slot: what this iteration stored is unknown.
            self.affine
                .retain(|r, _| CALLEE_SAVED.contains(&r.as_str()));
            self.slot_values.clear();
            return;
        }
        if matches!(i.mnemonic.as_str(), "cltq" | "cdqe") {
            if let Some(v) = value {
                self.affine.insert("a".into(), v);
            }
            return;
        }
        let Some(dest) = i.operands.last() else {
            return;
        };
        if is_jump(&i.mnemonic) || is_compare(&i.mnemonic) {
            return;
        }
        if let Some(r) = register(dest) {
            if let Some(v) = value {
                self.affine.insert(r, v);
            }
        } else if let Some(s) = slot(dest) {
            match value {
                Some(v) => self.slot_values.insert(s, v),
                None => self.slot_values.remove(&s),
            };
        } else if let Some(a) = self.affine_address(dest) {
            self.stored.insert(a.key());
        }
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
        let written_registers: Vec<String> = written_registers.collect();
        self.follow_affine(i, &written_registers);
        let value = self.value_of(i);
        for r in &written_registers {
            self.values.remove(r);
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

/// The symbol of the counter kept in slot `s`.
fn counter(s: &str) -> String {
    format!("I[{s}]")
}

/// The slot of counter symbol `symbol` (`I[slot]`), if it is one.
fn counter_slot(symbol: &str) -> Option<&str> {
    symbol.strip_prefix("I[")?.strip_suffix(']')
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
