//! Each AbOp in the thesis's categories: the operator and data type of an arithmetic or
//! logical operation (tables 3.3, 3.29-3.31), the array operand it addresses (table
//! 3.4), and the reduced program parameter it belongs to (table 3.10).
//!
//! The thesis names the 13 parameters but not which of its 109 AbOps form each; the
//! mapping here follows its prose (integer and floating-point division merged, branches
//! and DO loop iterations merged, complex arithmetic counted as the single or double
//! precision arithmetic it is made of) and chapter 2's reduced parameters (compares are
//! logical operations; `X**Y` is a call of the power function, an intrinsic).

use augur_ir::AbOp;
use serde::Serialize;

/// The data type of an operation, as the rows of table 3.3.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum DataType {
    /// REAL (single precision).
    RealSingle,
    /// DOUBLE PRECISION.
    RealDouble,
    /// INTEGER (any kind).
    Integer,
    /// COMPLEX (any kind).
    Complex,
    /// LOGICAL operators (`.AND.`, `.OR.`, ...) and bit operations.
    Logical,
}

impl DataType {
    /// Every type, in the order of table 3.3.
    pub const ALL: [DataType; 5] = [
        DataType::RealSingle,
        DataType::RealDouble,
        DataType::Integer,
        DataType::Complex,
        DataType::Logical,
    ];

    /// Its row label.
    pub fn label(self) -> &'static str {
        match self {
            DataType::RealSingle => "Real (single)",
            DataType::RealDouble => "Real (double)",
            DataType::Integer => "Integer",
            DataType::Complex => "Complex",
            DataType::Logical => "Logical",
        }
    }
}

/// The arithmetic operator, as the rows of table 3.3's second part.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Operator {
    /// `+` and `-` (unary minus included).
    AddSubtract,
    /// `*`.
    Multiply,
    /// `/` (and integer division by a constant).
    Quotient,
    /// `**`.
    Exponentiation,
    /// Relational operators.
    Comparison,
    /// Logical operators (`.AND.`, `.OR.`, `.NOT.`, ...) and bit operations.
    Logical,
}

impl Operator {
    /// The arithmetic operators, in the order of table 3.3.
    pub const ARITHMETIC: [Operator; 5] = [
        Operator::AddSubtract,
        Operator::Multiply,
        Operator::Quotient,
        Operator::Exponentiation,
        Operator::Comparison,
    ];

    /// Its row label.
    pub fn label(self) -> &'static str {
        match self {
            Operator::AddSubtract => "Add/Subtract",
            Operator::Multiply => "Multiply",
            Operator::Quotient => "Quotient",
            Operator::Exponentiation => "Exponentiation",
            Operator::Comparison => "Comparison",
            Operator::Logical => "Logical",
        }
    }
}

/// The 13 reduced program parameters of table 3.10, in its order.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Reduced {
    /// Stores and transfers (assignments).
    MemoryBandwidth,
    /// Integer add and subtract.
    IntegerAdd,
    /// Integer multiply and powers.
    IntegerMultiply,
    /// Single precision (real and complex) add.
    SingleAdd,
    /// Single precision multiply and `X**I`.
    SingleMultiply,
    /// Double precision add.
    DoubleAdd,
    /// Double precision multiply and `X**I`.
    DoubleMultiply,
    /// Every division, integer and floating point.
    Division,
    /// Logical operators, compares and bit operations.
    Logical,
    /// Intrinsic functions (and `X**Y`).
    Intrinsics,
    /// Procedure calls and their arguments.
    Calls,
    /// Array address computation.
    Address,
    /// Branches and loop iterations.
    BranchesIteration,
}

impl Reduced {
    /// The 13 parameters in the order of table 3.10.
    pub const ALL: [Reduced; 13] = [
        Reduced::MemoryBandwidth,
        Reduced::IntegerAdd,
        Reduced::IntegerMultiply,
        Reduced::SingleAdd,
        Reduced::SingleMultiply,
        Reduced::DoubleAdd,
        Reduced::DoubleMultiply,
        Reduced::Division,
        Reduced::Logical,
        Reduced::Intrinsics,
        Reduced::Calls,
        Reduced::Address,
        Reduced::BranchesIteration,
    ];

    /// Its name in table 3.10.
    pub fn label(self) -> &'static str {
        match self {
            Reduced::MemoryBandwidth => "memory bandwidth",
            Reduced::IntegerAdd => "integer addition",
            Reduced::IntegerMultiply => "integer multiplication",
            Reduced::SingleAdd => "single precision addition",
            Reduced::SingleMultiply => "single precision multiplication",
            Reduced::DoubleAdd => "double precision addition",
            Reduced::DoubleMultiply => "double precision multiplication",
            Reduced::Division => "division",
            Reduced::Logical => "logical operations",
            Reduced::Intrinsics => "intrinsic functions",
            Reduced::Calls => "procedure calls",
            Reduced::Address => "address computation",
            Reduced::BranchesIteration => "branches and iteration",
        }
    }
}

/// Whether an AbOp counts as an executed operation at all: branch mispredictions
/// (`BRMP`, `BRMC`) are events the profile bounds or simulates, not operations the
/// program executes, and are left out of every distribution.
pub fn is_operation(op: AbOp) -> bool {
    !matches!(op, AbOp::BRMP | AbOp::BRMC)
}

/// Whether one execution of the AbOp is one assignment statement (a store or transfer).
pub fn is_assignment(op: AbOp) -> bool {
    let m = op.mnemonic().as_bytes();
    let typed = scheme(op).is_some();
    (typed && (m[0] == b'S' || m[0] == b'T')) || matches!(op, AbOp::SLGL | AbOp::SLGG | AbOp::TCHR)
}

/// Whether the AbOp is a test (a compare or a logical operator): a block holding one
/// ends in an IF rather than in an unconditional branch.
pub fn is_test(op: AbOp) -> bool {
    matches!(
        operator_and_type(op),
        Some((Operator::Comparison | Operator::Logical, _))
    ) || op == AbOp::CCHR
}

/// The array operand an AbOp addresses: its number of dimensions (4 means 4 or more).
pub fn array_dimensions(op: AbOp) -> Option<usize> {
    match op {
        AbOp::ARR1 => Some(1),
        AbOp::ARR2 => Some(2),
        AbOp::ARR3 => Some(3),
        AbOp::ARR4 => Some(4),
        _ => None,
    }
}

/// The type letter (`R`, `C`, `I`) and size letter (`S`, `D`) of an AbOp named in
/// Saavedra's scheme (`{S,A,M,D,E,X,T,C}{R,C,I}{S,D}{L,G}`), if it is one.
fn scheme(op: AbOp) -> Option<(u8, u8, u8)> {
    let code = op.code();
    let named =
        ((1..=66).contains(&code) && code != 57 && code != 62) || (110..=141).contains(&code);
    let m = op.mnemonic().as_bytes();
    named.then(|| (m[0], m[1], m[2]))
}

/// The data type of a type and size letter pair.
fn data_type(ty: u8, size: u8) -> DataType {
    match (ty, size) {
        (b'R', b'S') => DataType::RealSingle,
        (b'R', _) => DataType::RealDouble,
        (b'C', _) => DataType::Complex,
        _ => DataType::Integer,
    }
}

/// The operator and data type of an arithmetic or logical operation; `None` for
/// stores, transfers and everything that is not an operator.
pub fn operator_and_type(op: AbOp) -> Option<(Operator, DataType)> {
    if let Some((kind, ty, size)) = scheme(op) {
        let operator = match kind {
            b'A' => Operator::AddSubtract,
            b'M' => Operator::Multiply,
            b'D' => Operator::Quotient,
            b'E' | b'X' => Operator::Exponentiation,
            b'C' => Operator::Comparison,
            _ => return None,
        };
        return Some((operator, data_type(ty, size)));
    }
    Some(match op {
        AbOp::ANDL | AbOp::ANDG | AbOp::BITI => (Operator::Logical, DataType::Logical),
        AbOp::DIC2 | AbOp::DICN => (Operator::Quotient, DataType::Integer),
        AbOp::PW2I => (Operator::Exponentiation, DataType::Integer),
        AbOp::DRC2 => (Operator::Quotient, DataType::RealDouble),
        AbOp::XRE2 => (Operator::Exponentiation, DataType::RealDouble),
        AbOp::MMUL => (Operator::Multiply, DataType::RealDouble),
        _ => return None,
    })
}

/// The reduced parameter an AbOp belongs to; `None` for conversions, input/output,
/// allocation and branch mispredictions, which no parameter of table 3.10 covers.
pub fn reduced(op: AbOp) -> Option<Reduced> {
    if is_assignment(op) {
        return Some(Reduced::MemoryBandwidth);
    }
    if let Some((operator, ty)) = operator_and_type(op) {
        return Some(reduced_operator(op, operator, ty));
    }
    Some(match op {
        AbOp::PROC | AbOp::ARGL => Reduced::Calls,
        AbOp::ARR1 | AbOp::ARR2 | AbOp::ARR3 | AbOp::ARR4 | AbOp::IADD => Reduced::Address,
        AbOp::GOTO
        | AbOp::GCOM
        | AbOp::LOIN
        | AbOp::LOOV
        | AbOp::LOIX
        | AbOp::LOOX
        | AbOp::ALIN
        | AbOp::ALOV => Reduced::BranchesIteration,
        AbOp::CCHR => Reduced::Logical,
        AbOp::CVIR
        | AbOp::CVRI
        | AbOp::CVSD
        | AbOp::CVII
        | AbOp::IOST
        | AbOp::IOIT
        | AbOp::IORF
        | AbOp::IORL
        | AbOp::IOFW
        | AbOp::IOFR
        | AbOp::IOED
        | AbOp::IOSL
        | AbOp::ALLO
        | AbOp::BRMP
        | AbOp::BRMC => return None,
        _ => Reduced::Intrinsics,
    })
}

/// The reduced parameter of an operator of a given type.
fn reduced_operator(op: AbOp, operator: Operator, ty: DataType) -> Reduced {
    let single = ty == DataType::RealSingle || (ty == DataType::Complex && size_is_single(op));
    match (operator, ty) {
        (Operator::Comparison | Operator::Logical, _) => Reduced::Logical,
        (Operator::Quotient, _) => Reduced::Division,
        (Operator::AddSubtract, DataType::Integer) => Reduced::IntegerAdd,
        (Operator::Multiply | Operator::Exponentiation, DataType::Integer) => {
            Reduced::IntegerMultiply
        }
        // X**Y calls the power function.
        (Operator::Exponentiation, _) if op.mnemonic().starts_with('X') && op != AbOp::XRE2 => {
            Reduced::Intrinsics
        }
        (Operator::AddSubtract, _) if single => Reduced::SingleAdd,
        (Operator::AddSubtract, _) => Reduced::DoubleAdd,
        _ if single => Reduced::SingleMultiply,
        _ => Reduced::DoubleMultiply,
    }
}

/// Whether a complex AbOp is single precision (`?CS?`).
fn size_is_single(op: AbOp) -> bool {
    op.mnemonic().as_bytes().get(2) == Some(&b'S')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saavedras_names_map_to_their_operator_and_type() {
        assert_eq!(
            operator_and_type(AbOp::ARDL),
            Some((Operator::AddSubtract, DataType::RealDouble))
        );
        assert_eq!(
            operator_and_type(AbOp::CISG),
            Some((Operator::Comparison, DataType::Integer))
        );
        assert_eq!(
            operator_and_type(AbOp::MCSL),
            Some((Operator::Multiply, DataType::Complex))
        );
        assert_eq!(operator_and_type(AbOp::SRDL), None);
        assert_eq!(operator_and_type(AbOp::ARR2), None);
        assert!(is_assignment(AbOp::TISL) && is_assignment(AbOp::SCDG));
        assert!(!is_assignment(AbOp::SINS) && !is_assignment(AbOp::SQRD));
        assert!(is_test(AbOp::CRSL) && is_test(AbOp::ANDL) && !is_test(AbOp::GOTO));
    }

    #[test]
    fn reduced_parameters_follow_table_3_10() {
        use Reduced::*;
        let cases = [
            (AbOp::TRDL, MemoryBandwidth),
            (AbOp::AISL, IntegerAdd),
            (AbOp::AIDG, IntegerAdd),
            (AbOp::EISL, IntegerMultiply),
            (AbOp::ARSG, SingleAdd),
            (AbOp::ACSL, SingleAdd),
            (AbOp::MRSL, SingleMultiply),
            (AbOp::ARDL, DoubleAdd),
            (AbOp::ACDL, DoubleAdd),
            (AbOp::MRDG, DoubleMultiply),
            (AbOp::DISL, Division),
            (AbOp::DRDL, Division),
            (AbOp::CRDL, Logical),
            (AbOp::ANDG, Logical),
            (AbOp::XRDL, Intrinsics),
            (AbOp::SIND, Intrinsics),
            (AbOp::ARGL, Calls),
            (AbOp::ARR3, Address),
            (AbOp::IADD, Address),
            (AbOp::LOOV, BranchesIteration),
            (AbOp::GCOM, BranchesIteration),
        ];
        for (op, want) in cases {
            assert_eq!(reduced(op), Some(want), "{op}");
        }
        assert_eq!(reduced(AbOp::CVIR), None);
        assert_eq!(reduced(AbOp::BRMP), None);
    }

    #[test]
    fn every_operation_but_conversions_io_and_allocation_has_a_parameter() {
        let outside: Vec<AbOp> = augur_ir::abop::ALL
            .iter()
            .copied()
            .filter(|op| reduced(*op).is_none())
            .collect();
        assert_eq!(outside.len(), 15, "{outside:?}");
    }
}
