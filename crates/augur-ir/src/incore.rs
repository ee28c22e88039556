//! The vocabulary of compiled loops: the classes of machine instructions an in-core
//! model prices.
//!
//! A program profile records, for each hot loop the compiler emitted, how many
//! instructions of each class one compiled iteration executes and which classes lie on
//! its loop-carried dependence chains; a machine profile records, for each class, its
//! latency and reciprocal throughput on the host, measured by the machine wing's own
//! kernels. Neither side knows the other's numbers: the classes are the contract.

use serde::{Deserialize, Serialize};
use std::fmt;

/// What one machine instruction does, as far as its time on an out-of-order core goes.
/// A load or store folded into an arithmetic instruction (`addsd 8(%rax), %xmm0`) is
/// counted as the arithmetic instruction plus a [`InstrClass::Load`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InstrClass {
    /// A read from memory (a move into a register, or an operand folded into another
    /// instruction).
    Load,
    /// A load on a loop-carried chain that reads what a store of the chain wrote
    /// (a variable kept in memory, as unoptimized code keeps every variable): its
    /// latency is the store-to-load forwarding latency.
    Forward,
    /// The same for a load into a general-purpose register (an integer variable kept in
    /// memory): cores that rename memory through the stack (AMD since Zen 2) pass it on
    /// at no cost, where a floating-point value waits for the forwarding.
    ForwardInt,
    /// A load wider than the stores that wrote its bytes (a 16-byte vector load of two
    /// 8-byte stores just made, as gcc's vectorized code reads a small array its scalar
    /// code stored): the store buffer cannot forward it, the load waits until the stores
    /// have written the cache; its latency is that wait.
    ForwardWide,
    /// A load on such a chain that sign- or zero-extends what the store wrote (`movslq`
    /// of a default integer stored by `movl`, as gfortran -O2 reads an integer it
    /// indexes with): a core that renames memory does not rename it (a Zen 4: 2.3 ns a
    /// link where `movl` takes 0.34); its latency is the forwarding's.
    ForwardExt,
    /// A load into a general-purpose register on such a chain whose address the core
    /// cannot match to the store's by its registers: a pointer loaded again between the
    /// two (as unoptimized code reaches a dummy argument or a derived type's component:
    /// `movq -72(%rbp), %rax` before each `movl 292(%rax)`), or a rip-relative or
    /// absolute address (a module variable, a COMMON block). Memory renaming matches a
    /// load to a store by the same address registers, unchanged between them, and
    /// displacement; this one waits for the store queue's forwarding (a Zen 5: 8 cycles
    /// a link where the slot's own `movl` takes 1).
    ForwardReloaded,
    /// A write to memory.
    Store,
    /// Integer and logical arithmetic, compares, moves between registers, address
    /// computations (`lea`), shifts, conditional moves and sets.
    IntAlu,
    /// Integer multiply.
    IntMul,
    /// Integer divide or remainder of 32-bit operands or narrower (`idivl`, `divl`: a
    /// default integer's `mod` or `/`): not pipelined.
    IntDiv,
    /// Integer divide or remainder of 64-bit operands (`idivq`, `divq`: `integer(8)`):
    /// not pipelined, and on many cores slower than the 32-bit divide (a Zen 4 of
    /// 2026-12-06 starts one every 7 cycles, the 32-bit ones every 6).
    IntDiv64,
    /// Floating-point add, subtract and compare.
    FpAdd,
    /// Floating-point minimum and maximum (`maxsd`: two cycles on a Zen 4 where an add
    /// takes three).
    FpMinMax,
    /// Floating-point multiply.
    FpMul,
    /// Fused multiply-add.
    FpFma,
    /// Floating-point divide: not pipelined.
    FpDiv,
    /// Floating-point square root: not pipelined.
    FpSqrt,
    /// Conversions between integer and floating point and between precisions,
    /// roundings.
    FpConvert,
    /// Moves, shuffles, broadcasts, blends and logic on floating-point or vector
    /// registers.
    VecMove,
    /// Integer arithmetic on vector registers.
    VecInt,
    /// A jump, taken or not.
    Branch,
    /// A call (its callee's time is not in the loop's instructions).
    Call,
    /// Anything else the classifier does not know.
    Other,
}

impl InstrClass {
    /// Every class, in order.
    pub const ALL: [InstrClass; 23] = [
        InstrClass::Load,
        InstrClass::Forward,
        InstrClass::ForwardInt,
        InstrClass::ForwardWide,
        InstrClass::ForwardExt,
        InstrClass::ForwardReloaded,
        InstrClass::Store,
        InstrClass::IntAlu,
        InstrClass::IntMul,
        InstrClass::IntDiv,
        InstrClass::IntDiv64,
        InstrClass::FpAdd,
        InstrClass::FpMinMax,
        InstrClass::FpMul,
        InstrClass::FpFma,
        InstrClass::FpDiv,
        InstrClass::FpSqrt,
        InstrClass::FpConvert,
        InstrClass::VecMove,
        InstrClass::VecInt,
        InstrClass::Branch,
        InstrClass::Call,
        InstrClass::Other,
    ];

    /// The class's name in the formats (`fp_add`).
    pub fn name(self) -> &'static str {
        match self {
            InstrClass::Load => "load",
            InstrClass::Forward => "forward",
            InstrClass::ForwardInt => "forward_int",
            InstrClass::ForwardWide => "forward_wide",
            InstrClass::ForwardExt => "forward_ext",
            InstrClass::ForwardReloaded => "forward_reloaded",
            InstrClass::Store => "store",
            InstrClass::IntAlu => "int_alu",
            InstrClass::IntMul => "int_mul",
            InstrClass::IntDiv => "int_div",
            InstrClass::IntDiv64 => "int_div64",
            InstrClass::FpAdd => "fp_add",
            InstrClass::FpMinMax => "fp_min_max",
            InstrClass::FpMul => "fp_mul",
            InstrClass::FpFma => "fp_fma",
            InstrClass::FpDiv => "fp_div",
            InstrClass::FpSqrt => "fp_sqrt",
            InstrClass::FpConvert => "fp_convert",
            InstrClass::VecMove => "vec_move",
            InstrClass::VecInt => "vec_int",
            InstrClass::Branch => "branch",
            InstrClass::Call => "call",
            InstrClass::Other => "other",
        }
    }

    /// Whether the class is a load on a chain through memory (a store-to-load
    /// forwarding of any kind but the failed one, [`InstrClass::ForwardWide`]).
    pub fn is_forwarding(self) -> bool {
        matches!(
            self,
            InstrClass::Forward
                | InstrClass::ForwardInt
                | InstrClass::ForwardExt
                | InstrClass::ForwardReloaded
        )
    }

    /// The class whose execution units an instruction of this class takes turns in:
    /// divides and square roots share one unit (AMD's and Intel's cores alike), minima
    /// and maxima run on the adders, the two widths of integer divide share one divider;
    /// every other class is its own.
    pub fn unit(self) -> InstrClass {
        match self {
            InstrClass::FpSqrt => InstrClass::FpDiv,
            InstrClass::FpMinMax => InstrClass::FpAdd,
            InstrClass::IntDiv64 => InstrClass::IntDiv,
            c => c,
        }
    }

    /// Whether the class works on floating-point values.
    pub fn is_floating(self) -> bool {
        matches!(
            self,
            InstrClass::FpAdd
                | InstrClass::FpMinMax
                | InstrClass::FpMul
                | InstrClass::FpFma
                | InstrClass::FpDiv
                | InstrClass::FpSqrt
                | InstrClass::FpConvert
        )
    }

    /// A latency in cycles typical of today's x86-64 cores, used only to choose which
    /// of a loop's dependence paths is the longest when the profile is made (the
    /// machine's own latencies price the path chosen).
    pub fn generic_latency_cycles(self) -> f64 {
        match self {
            InstrClass::Load => 5.0,
            InstrClass::Forward => 6.0,
            InstrClass::ForwardInt => 1.0,
            InstrClass::ForwardWide => 15.0,
            InstrClass::ForwardExt | InstrClass::ForwardReloaded => 6.0,
            InstrClass::Store => 0.0,
            InstrClass::IntAlu | InstrClass::VecMove | InstrClass::VecInt => 1.0,
            InstrClass::IntMul => 3.0,
            InstrClass::IntDiv | InstrClass::IntDiv64 => 15.0,
            InstrClass::FpAdd | InstrClass::FpMinMax | InstrClass::FpMul => 3.0,
            InstrClass::FpFma | InstrClass::FpConvert => 4.0,
            InstrClass::FpDiv => 13.0,
            InstrClass::FpSqrt => 15.0,
            InstrClass::Branch | InstrClass::Call | InstrClass::Other => 1.0,
        }
    }
}

/// The group of execution units a floating-point or vector instruction computes in.
/// A value passed from one group to another waits a bypass delay on some cores (an
/// Intel core with Golden Cove's two-cycle adders: an add feeding a multiply, or a
/// multiply an add, about half a cycle more a crossing on the Xeon guest of
/// 2026-12-05; `orpd` between multiplies the same), measured by the machine wing
/// (`[incore] crossing_ns`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BypassGroup {
    /// Adds and subtracts.
    Adder,
    /// Multiplies, fused multiply-adds, divides, square roots, minimum and maximum,
    /// conversions.
    Multiplier,
    /// Logic and integer arithmetic on vector registers (`orpd`, `paddd`).
    Logic,
}

impl InstrClass {
    /// The bypass group of the class (`None`: not a floating-point or vector
    /// computation; register moves pass a value on within its group).
    pub fn bypass_group(self) -> Option<BypassGroup> {
        match self {
            InstrClass::FpAdd => Some(BypassGroup::Adder),
            InstrClass::FpMinMax
            | InstrClass::FpMul
            | InstrClass::FpFma
            | InstrClass::FpDiv
            | InstrClass::FpSqrt
            | InstrClass::FpConvert => Some(BypassGroup::Multiplier),
            InstrClass::VecInt => Some(BypassGroup::Logic),
            _ => None,
        }
    }
}

/// How many times a loop-carried `path` (its classes in order; the last feeds the first
/// of the next iteration) passes a value from one [`BypassGroup`] to another. A register
/// move keeps the value in its group; any other class that is no floating-point or
/// vector computation (a load, a store, an integer instruction) ends the run, as the
/// value leaves the vector units there.
pub fn bypass_crossings(path: &[InstrClass]) -> u32 {
    let tokens: Vec<Option<BypassGroup>> = path
        .iter()
        .filter(|c| **c != InstrClass::VecMove)
        .map(|c| c.bypass_group())
        .collect();
    let n = tokens.len();
    if n < 2 {
        return 0;
    }
    // Start after a break when there is one (a path without one wraps around whole).
    let start = tokens.iter().position(Option::is_none).map_or(0, |k| k + 1);
    let links = if tokens.iter().any(Option::is_none) {
        n - 1
    } else {
        n
    };
    (0..links)
        .filter(|&k| {
            let (a, b) = (tokens[(start + k) % n], tokens[(start + k + 1) % n]);
            matches!((a, b), (Some(x), Some(y)) if x != y)
        })
        .count() as u32
}

impl fmt::Display for InstrClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The width an instruction works on: one scalar, or a vector register of 128, 256 or
/// 512 bits.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Width {
    /// One value (a general-purpose register, or the low lane of a vector register).
    #[default]
    Scalar,
    /// A 128-bit vector (xmm, packed).
    V128,
    /// A 256-bit vector (ymm).
    V256,
    /// A 512-bit vector (zmm).
    V512,
}

impl Width {
    /// The width in bits of a packed operation (64 for scalars).
    pub fn bits(self) -> u32 {
        match self {
            Width::Scalar => 64,
            Width::V128 => 128,
            Width::V256 => 256,
            Width::V512 => 512,
        }
    }
}

/// An instruction class at a width: the unit of both the program's counts and the
/// machine's costs (`fp_add.v256`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ClassWidth {
    /// The class.
    pub class: InstrClass,
    /// Its width.
    #[serde(default)]
    pub width: Width,
}

impl ClassWidth {
    /// A class at a width.
    pub fn new(class: InstrClass, width: Width) -> Self {
        ClassWidth { class, width }
    }

    /// The key used in machine profiles: `fp_add` for scalars, `fp_add.v256` for
    /// vectors.
    pub fn key(self) -> String {
        match self.width {
            Width::Scalar => self.class.name().to_string(),
            Width::V128 => format!("{}.v128", self.class),
            Width::V256 => format!("{}.v256", self.class),
            Width::V512 => format!("{}.v512", self.class),
        }
    }

    /// The inverse of [`ClassWidth::key`].
    pub fn from_key(key: &str) -> Option<Self> {
        let (name, width) = match key.split_once('.') {
            None => (key, Width::Scalar),
            Some((n, "v128")) => (n, Width::V128),
            Some((n, "v256")) => (n, Width::V256),
            Some((n, "v512")) => (n, Width::V512),
            Some(_) => return None,
        };
        let class = InstrClass::ALL.into_iter().find(|c| c.name() == name)?;
        Some(ClassWidth { class, width })
    }
}

impl fmt::Display for ClassWidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use InstrClass::*;

    #[test]
    fn a_chain_crosses_between_adders_and_multipliers_each_time_it_changes_group() {
        // A Horner step `p = p*x + c`: the multiply feeds the add, the add the next
        // iteration's multiply.
        assert_eq!(bypass_crossings(&[FpMul, FpAdd]), 2);
        // A Gauss-Seidel point: six adds into a divide and back.
        assert_eq!(
            bypass_crossings(&[FpAdd, FpAdd, FpAdd, FpAdd, FpAdd, FpAdd, FpDiv]),
            2
        );
        // A sum or a product alone never crosses; a register move passes a value on.
        assert_eq!(bypass_crossings(&[FpAdd, FpAdd]), 0);
        assert_eq!(bypass_crossings(&[FpMul, VecMove, FpAdd, VecMove]), 2);
        // `aint` as gfortran -O2 emits it: convert there and back, `orpd` the sign
        // back in, then a multiply.
        assert_eq!(bypass_crossings(&[FpConvert, FpConvert, VecInt, FpMul]), 2);
    }

    #[test]
    fn a_value_through_memory_or_an_integer_register_does_not_cross() {
        // -O0: the add's result is stored and loaded again before the multiply.
        assert_eq!(
            bypass_crossings(&[Forward, FpAdd, Store, Forward, FpMul, Store]),
            0
        );
        // The run after the break still counts its own crossings, not around the end.
        assert_eq!(bypass_crossings(&[Load, FpMul, FpAdd, FpMul]), 2);
        assert_eq!(bypass_crossings(&[FpAdd, IntAlu, FpMul, IntAlu]), 0);
        // Around the end: the add feeds the next iteration's multiply.
        assert_eq!(bypass_crossings(&[FpMul, IntAlu, FpAdd]), 1);
    }

    #[test]
    fn keys_round_trip() {
        for c in InstrClass::ALL {
            for w in [Width::Scalar, Width::V128, Width::V256, Width::V512] {
                let cw = ClassWidth::new(c, w);
                assert_eq!(ClassWidth::from_key(&cw.key()), Some(cw));
            }
        }
        assert_eq!(ClassWidth::from_key("fp_add.v64"), None);
        assert_eq!(ClassWidth::from_key("nothing"), None);
    }
}
