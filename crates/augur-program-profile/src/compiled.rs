//! Compiled loops: the instructions the compiler emitted for a program's innermost
//! loops, read from the assembly of the optimization report's compile and mapped to the
//! source loops by the assembly's line table.
//!
//! Each record belongs to the compiler and code-generation flags of its
//! [`crate::optreport::OptReport`]; it holds counts of instruction classes, never a
//! machine's number (the machine profile's `[incore]` section prices them).

pub use augur_ir::incore::{bypass_crossings, BypassGroup, ClassWidth, InstrClass, Width};
use serde::{Deserialize, Serialize};

/// One innermost loop of the compiled code, mapped to a source loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompiledLoop {
    /// The source file, as in the profile's `sources`.
    pub file: String,
    /// The 1-based line of the source loop it was mapped to (its DO statement).
    pub line: u32,
    /// The assembly symbol of the function holding it.
    pub function: String,
    /// The instructions of one compiled iteration, by class and width.
    pub instructions: Vec<ClassCount>,
    /// How many iterations of the source loop one compiled iteration covers (vector
    /// lanes times unrolling).
    pub source_iterations: u32,
    /// The lanes of its widest packed arithmetic (1 for scalar code).
    #[serde(default)]
    pub lanes: u32,
    /// How `source_iterations` was found (`"4 double lanes (256-bit)"`, `"1: scalar"`).
    pub source_iterations_from: String,
    /// The loop-carried dependence chains: for each value carried from one compiled
    /// iteration to the next (a register, or a memory slot the code stores and loads
    /// again), the classes on its longest path through one iteration. The longest on
    /// the machine's latencies bounds the iteration.
    pub chains: Vec<Chain>,
    /// The longest path of dependent instructions through one compiled iteration
    /// (carried or not: at -O0 every statement stores its result and the next loads it
    /// back), the classes on it; the core overlaps it with the next iterations as far as
    /// its reorder window holds them. Empty in profiles made before the field.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub span: Vec<ClassCount>,
    /// Instructions of one compiled iteration as the core issues them (an operand
    /// folded into an arithmetic instruction is one instruction, not two).
    pub issued: u32,
    /// Conditional jumps whose target lies inside the loop (the arms of an IF): an
    /// iteration runs one path, while `instructions` counts every path's.
    #[serde(default)]
    pub inner_branches: u32,
    /// The other compiled loops mapped to the same source loop (a vectorized loop's
    /// scalar remainder, versions the compiler made for aliasing or alignment), which
    /// are not priced.
    #[serde(default)]
    pub versions: u32,
    /// Its basic blocks, when it branches inside an iteration (`inner_branches > 0`):
    /// the first is the loop's header, the others in the order they appear, so that
    /// each block's frequency (how often an iteration runs it) can weigh its
    /// instructions. Empty for a loop without branches inside.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<CompiledBlock>,
    /// The paths an iteration can take through `blocks` (from the header back to it),
    /// each with its own loop-carried chains: an iteration waits on the chains of the
    /// path it takes, not on every arm's in turn. Empty for a loop without branches
    /// inside, or with too many paths to list (its `chains` then span every block).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<CompiledPath>,
    /// The source lines (of `file`) its instructions come from, ascending: a loop the
    /// compiler made inside a source loop (a string's padding, `LEN_TRIM`) holds only a
    /// few of its lines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<u32>,
    /// What one compiled iteration takes of the core's in-flight resources (every
    /// block's instructions); `None` in profiles made before the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_flight: Option<InFlight>,
    /// One iteration of the loop around this one, when every loop inside that one is
    /// innermost (`None` otherwise, and in profiles made before the field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outer: Option<OuterIteration>,
    /// Its instructions in order (every block's, the header's first), as the schedule
    /// simulation replays them; empty in profiles made before the field.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub schedule: Vec<ScheduledOp>,
}

/// One instruction of a compiled iteration, as the schedule simulation of the predictor
/// replays it: the units it occupies, the values it waits for, the values it makes and
/// the core's resources it holds until it retires. Values are numbered per loop (a
/// register or a slot of the stack or of a fixed address: the same number is the same
/// place in every instruction of the loop).
///
/// Written as one line of text, so that a profile stays small:
/// `CLASSES; READS; WRITES; FLAGS`, e.g. `load,fp_add; 3:load+fp_add 5:fp_add; 4; hold=vw`
/// (docs/FORMATS.md).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct ScheduledOp {
    /// The units it occupies, by class and width (`load` and `fp_add` for an add with an
    /// operand in memory).
    pub classes: Vec<ClassWidth>,
    /// The values it reads, each with the classes between that value and its result.
    pub reads: Vec<ScheduledRead>,
    /// The values it writes.
    pub writes: Vec<u32>,
    /// The in-flight resources it holds until it retires: `i` an integer register (or
    /// the flags), `v` a vector register, `s` a store-queue entry, `w` an entry of the
    /// floating-point scheduler until its operands are ready (none: empty).
    pub holds: String,
    /// Its basic block, an index into the loop's `blocks` (0 for a loop without them).
    pub block: u32,
    /// In an outer iteration's schedule, the line of the innermost loop it belongs to
    /// (0: the outer loop's own instruction).
    pub inner: u32,
    /// Whether it is a loop's backward jump (taken on every iteration but the last).
    pub back_jump: bool,
    /// In an outer iteration's schedule, the values it reads or writes that are places
    /// of its inner loop only (an element `c(i,j)` inside the loop over k, whose address
    /// the loop around it moves): the replay starts them afresh each time the inner loop
    /// is entered.
    pub local: Vec<u32>,
    /// In an outer iteration's schedule, the values it reads or writes that are elements
    /// of memory an inner loop walks ([`WalkedElement`]): a different element each trip
    /// of the inner loop, the same elements again each iteration of the loop around it.
    pub elements: Vec<WalkedElement>,
}

/// An element of memory named by where an inner loop's trip puts it: `base + offset +
/// stride × trip` (bytes; trip 0 on entering the inner loop, and always 0 for the outer
/// loop's own instructions, whose `stride` is 0). `f(k)` updated by `do k = 1, 3` inside
/// a loop over `j` (an N-body force summed into a dummy argument) is an element a trip
/// stores and the same trip of the next `j` loads: a chain through store forwarding that
/// one name for all three trips would make three times too long, and none would lose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WalkedElement {
    /// The value the instruction reads or writes (numbered as in [`ScheduledOp::writes`]),
    /// standing for the element.
    pub value: u32,
    /// What the address is relative to (a number of its own: equal bases, one array or
    /// frame).
    pub base: u32,
    /// Bytes from the base on trip 0.
    pub offset: i64,
    /// Bytes the address moves each trip.
    pub stride: i64,
}

impl WalkedElement {
    fn key(&self) -> String {
        format!(
            "{}/{}/{}/{}",
            self.value, self.base, self.offset, self.stride
        )
    }

    fn from_key(k: &str) -> Option<Self> {
        let parts: Vec<&str> = k.split('/').collect();
        let [value, base, offset, stride] = parts[..] else {
            return None;
        };
        Some(WalkedElement {
            value: value.parse().ok()?,
            base: base.parse().ok()?,
            offset: offset.parse().ok()?,
            stride: stride.parse().ok()?,
        })
    }
}

/// A value an instruction reads and the classes between it and the instruction's result.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ScheduledRead {
    /// The value (numbered as in [`ScheduledOp::writes`]).
    pub value: u32,
    /// The classes on the way to the result (`forward`, `fp_add`).
    pub path: Vec<ClassWidth>,
}

impl From<ScheduledOp> for String {
    fn from(op: ScheduledOp) -> String {
        let keys =
            |v: &[ClassWidth], sep: &str| v.iter().map(|c| c.key()).collect::<Vec<_>>().join(sep);
        let numbers = |v: &[u32]| {
            v.iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        let reads: Vec<String> = op
            .reads
            .iter()
            .map(|r| format!("{}:{}", r.value, keys(&r.path, "+")))
            .collect();
        let mut flags = vec![];
        if !op.holds.is_empty() {
            flags.push(format!("hold={}", op.holds));
        }
        if op.block != 0 {
            flags.push(format!("block={}", op.block));
        }
        if op.inner != 0 {
            flags.push(format!("inner={}", op.inner));
        }
        if op.back_jump {
            flags.push("back".to_string());
        }
        if !op.local.is_empty() {
            flags.push(format!("local={}", numbers(&op.local)));
        }
        if !op.elements.is_empty() {
            let keys: Vec<String> = op.elements.iter().map(WalkedElement::key).collect();
            flags.push(format!("elem={}", keys.join(",")));
        }
        format!(
            "{}; {}; {}; {}",
            keys(&op.classes, ","),
            reads.join(" "),
            numbers(&op.writes),
            flags.join(" ")
        )
    }
}

impl TryFrom<String> for ScheduledOp {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        let bad = |what: &str| format!("scheduled instruction {text:?}: {what}");
        let class =
            |k: &str| ClassWidth::from_key(k).ok_or_else(|| bad(&format!("unknown class {k:?}")));
        let number = |n: &str| {
            n.parse::<u32>()
                .map_err(|_| bad(&format!("not a number: {n:?}")))
        };
        let list = |t: &str| -> Result<Vec<u32>, String> {
            t.split(',').filter(|x| !x.is_empty()).map(number).collect()
        };
        let parts: Vec<&str> = text.split(';').map(str::trim).collect();
        let [classes, reads, writes, flags] = parts[..] else {
            return Err(bad("expected four parts separated by ';'"));
        };
        let mut op = ScheduledOp {
            classes: classes
                .split(',')
                .filter(|x| !x.is_empty())
                .map(class)
                .collect::<Result<_, _>>()?,
            reads: vec![],
            writes: list(writes)?,
            holds: String::new(),
            block: 0,
            inner: 0,
            back_jump: false,
            local: vec![],
            elements: vec![],
        };
        for r in reads.split_whitespace() {
            let (value, path) = r.split_once(':').ok_or_else(|| bad("a read without ':'"))?;
            op.reads.push(ScheduledRead {
                value: number(value)?,
                path: path
                    .split('+')
                    .filter(|x| !x.is_empty())
                    .map(class)
                    .collect::<Result<_, _>>()?,
            });
        }
        for f in flags.split_whitespace() {
            match f.split_once('=') {
                Some(("hold", h)) => op.holds = h.to_string(),
                Some(("block", b)) => op.block = number(b)?,
                Some(("inner", l)) => op.inner = number(l)?,
                Some(("local", l)) => op.local = list(l)?,
                Some(("elem", e)) => {
                    op.elements = e
                        .split(',')
                        .map(|k| {
                            WalkedElement::from_key(k)
                                .ok_or_else(|| bad(&format!("not an element {k:?}")))
                        })
                        .collect::<Result<_, _>>()?
                }
                None if f == "back" => op.back_jump = true,
                _ => return Err(bad(&format!("unknown flag {f:?}"))),
            }
        }
        Ok(op)
    }
}

/// One iteration of the loop around innermost loops, as compiled: what runs between two
/// of its backward jumps, each inner loop's body taken once. Unoptimized code keeps
/// every value in memory, so such an iteration (a pair of bodies: the separation by
/// components in an inner loop, its square root and divide, the forces by components in
/// another) is one long dependent path the core cannot overlap with the next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OuterIteration {
    /// The line of its backward jump (its DO statement's).
    pub line: u32,
    /// Its longest dependent path, its inner loops' bodies taken once each.
    pub span: Vec<ClassCount>,
    /// The instructions it issues outside its inner loops.
    pub issued: u32,
    /// How many innermost loops it holds.
    pub inner_loops: u32,
    /// Its instructions in order, each inner loop's body once (marked by the inner
    /// loop's line: the simulation repeats them by its trip count); empty in profiles
    /// made before the field.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub schedule: Vec<ScheduledOp>,
}

/// The instructions of one compiled iteration by the resource each holds from issue to
/// retirement: how many iterations the core keeps in flight is the fewest any resource
/// allows (the machine profile's `[incore] window`, `window_vector`, `window_stores`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct InFlight {
    /// Instructions writing an integer register or the flags (compares included; a move
    /// between registers is renamed away and takes none).
    pub integer: u32,
    /// Instructions writing a vector register.
    pub vector: u32,
    /// Stores.
    pub stores: u32,
    /// Instructions computing into a vector register (loads and moves apart): each
    /// waits for its operands in a floating-point scheduler (the machine's `[incore]
    /// window_waiting`; recorded, not yet used by the predictor). 0 in profiles made
    /// before the field.
    #[serde(default)]
    pub waiting: u32,
}

/// One path of an iteration through a compiled loop's blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompiledPath {
    /// The blocks it runs, indices into the loop's blocks, the header first.
    pub blocks: Vec<u32>,
    /// Its loop-carried chains, as [`CompiledLoop::chains`].
    pub chains: Vec<Chain>,
    /// Its longest dependent path, as [`CompiledLoop::span`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub span: Vec<ClassCount>,
}

/// One basic block of a compiled loop that branches inside its iterations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompiledBlock {
    /// The source line of its first instruction that has one (0 when none has).
    pub first_line: u32,
    /// Its instructions by class and width.
    pub instructions: Vec<ClassCount>,
    /// Its instructions as the core issues them.
    pub issued: u32,
    /// Where control goes after it.
    pub end: BlockEnd,
    /// How many times an iteration of the loop (an execution of its header) runs it,
    /// from the program's counted branch outcomes (`augur_program::compiled`); `None`
    /// until they are known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency: Option<f64>,
    /// When it ends in a conditional jump, the share of its executions the jump is
    /// taken, from the same outcomes; `None` otherwise or until known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taken_share: Option<f64>,
    /// When it ends in a jump through a table ([`BlockEnd::Table`]), the share of its
    /// executions that goes to each of the arms, in their order; empty otherwise or
    /// until known.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arm_shares: Vec<f64>,
}

/// The end of a block of a compiled loop: its successors as indices into the loop's
/// blocks (0, the header, is the next iteration; `None` leaves the loop).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BlockEnd {
    /// Control goes on to one place (an unconditional jump or the next block).
    Goes {
        /// The block it goes to.
        to: Option<u32>,
    },
    /// A conditional jump.
    Branches {
        /// The source line of the jump (the condition's statement).
        line: u32,
        /// Where the jump goes when taken.
        taken: Option<u32>,
        /// Where control goes otherwise.
        not_taken: Option<u32>,
        /// The arm (`taken` or `not_taken`) the jump goes to only until that arm sets
        /// the flag the jump tests: at most once an entry into the loop (gfortran's
        /// MAXVAL and MINVAL flag their first element so). `None` for other jumps.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        until_set: Option<u32>,
    },
    /// An indirect jump through a table (a SELECT CASE or a computed GOTO compiled to
    /// `jmp *%rax`): the distinct places it may go to, in the table's order (`None` at
    /// most once, for the arms that leave the loop).
    Table {
        /// The source line of the jump (the SELECT CASE's or the GOTO's statement).
        line: u32,
        /// The arms.
        arms: Vec<Option<u32>>,
    },
}

/// A number of instructions of one class and width.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClassCount {
    /// The class and width.
    #[serde(flatten)]
    pub class: ClassWidth,
    /// How many per compiled iteration.
    pub count: u32,
}

/// One loop-carried dependence chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chain {
    /// What carries it (`%xmm0`, `-8(%rbp)`).
    pub carried_by: String,
    /// The instructions on its path through one compiled iteration.
    pub path: Vec<ClassCount>,
    /// The line of the enclosing loop each of whose iterations starts the chain afresh
    /// (writes its register or slot without reading it, or moves the address it lives
    /// at): a sum over a short inner loop that the next outer iteration restarts, whose
    /// restarts the core overlaps. `None` when no enclosing loop of the procedure does
    /// (or in profiles made before the field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restarted_by: Option<u32>,
    /// How many times its path passes a value between two groups of floating-point units
    /// (`augur_ir::incore::bypass_crossings`: an add feeding a multiply, a multiply an
    /// add or a vector logic instruction), each a bypass delay on some cores. 0 in
    /// profiles made before the field.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub crossings: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A source loop whose compiled code could not be read, and why (priced by its AbOps).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnmappedLoop {
    /// The source file.
    pub file: String,
    /// The 1-based line the compiled loop's branch belongs to.
    pub line: u32,
    /// Why it is not priced from its instructions.
    pub reason: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scheduled_instruction_is_one_line_of_text_and_back() {
        let text =
            "load,fp_add.v256; 3:load+fp_add.v256 5:; 4,7; hold=vw block=2 inner=12 back local=3 elem=5/9/-72/8";
        let op = ScheduledOp::try_from(text.to_string()).unwrap();
        assert_eq!(op.classes.len(), 2);
        assert_eq!(op.reads[0].value, 3);
        assert_eq!(op.reads[0].path[1].width, Width::V256);
        assert!(op.reads[1].path.is_empty());
        assert_eq!((op.writes.clone(), op.block, op.inner), (vec![4, 7], 2, 12));
        assert!(op.back_jump && op.holds == "vw" && op.local == vec![3]);
        assert_eq!((op.elements[0].offset, op.elements[0].stride), (-72, 8));
        assert_eq!(String::from(op), text);
        let bare = "branch; ; ; ";
        assert_eq!(
            String::from(ScheduledOp::try_from(bare.to_string()).unwrap()),
            bare
        );
    }

    #[test]
    fn a_damaged_scheduled_instruction_says_what_is_wrong() {
        for (text, says) in [
            ("load; 3:load", "four parts"),
            ("lode; ; ; ", "unknown class \"lode\""),
            ("load; x:load; ; ", "not a number"),
            ("load; ; ; hold=v color=red", "unknown flag"),
            ("load; ; ; elem=5/9/x/8", "not an element"),
        ] {
            let e = ScheduledOp::try_from(text.to_string()).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
