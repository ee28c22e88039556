//! One program characterized from its profile: the dynamic distributions of statements
//! (table 3.2), operations and operators (table 3.3), scalar and array operands (table
//! 3.4), the
//! block and AbOp concentration (tables 3.6-3.9) and the 13 reduced parameters (table
//! 3.10).

use crate::classes::{self, DataType, Operator, Reduced};
use crate::concentration::{concentration, Concentration, ABOP_BANDS, BLOCK_BANDS};
use augur_ir::{AbOp, AbOpCounts, ScalarOperands};
use augur_program_profile::ProgramProfile;
use serde::Serialize;

/// How a program's executed statements split into the five kinds of table 3.2.
///
/// A program profile records AbOps per basic block, not statements, so the kinds are
/// derived from the blocks: an assignment is one store or transfer AbOp; a procedure
/// call one `PROC` (CALLs and user function references alike); an IF statement the
/// branch (`GOTO`) of a block that also tests (a compare or logical operator), at most
/// one per block execution; a branch every other `GOTO` or `GCOM` (GOTO, CYCLE, EXIT,
/// computed GOTO, SELECT CASE, an IF whose condition is a plain logical variable); a DO
/// loop iteration one `LOOV`, `LOOX` or `ALOV` (an element of a whole-array statement,
/// the DO loop it stands for).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Statements {
    /// Statements executed (the sum of the five kinds).
    pub executed: f64,
    /// Share of assignments.
    pub assignments: f64,
    /// Share of procedure calls.
    pub calls: f64,
    /// Share of IF statements.
    pub ifs: f64,
    /// Share of other branches.
    pub branches: f64,
    /// Share of DO loop iterations.
    pub do_iterations: f64,
}

/// The operands of a program: scalar variables and array elements by number of
/// dimensions (table 3.4).
///
/// Array references are the profile's address computations (`ARR1`..`ARR4`: elements
/// with a non-constant subscript); scalar references are the blocks' scalar operand
/// counts (`augur_ir::ScalarOperands`), which profiles made before 2026-11-27 lack: then
/// only the split of array references by their dimensions is available.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Operands {
    /// Array element references executed (with a non-constant subscript).
    pub array_references: f64,
    /// Share of 1-, 2-, 3- and 4-or-more-dimensional references among them.
    pub dimensions: [f64; 4],
    /// Mean number of dimensions of a reference.
    pub mean_dimensions: f64,
    /// Scalar variable references executed; `None` when the profile does not count them.
    pub scalar_references: Option<f64>,
    /// Of those, the share of references to COMMON and module variables.
    pub global_scalar_share: Option<f64>,
}

impl Operands {
    /// Table 3.4's column: the shares of scalar, 1-, 2-, 3- and 4-or-more-dimensional
    /// array operands among all operands; `None` without scalar counts.
    pub fn shares(&self) -> Option<[f64; 5]> {
        let scalars = self.scalar_references?;
        let total = scalars + self.array_references;
        let arrays = share(self.array_references, total);
        let d = self.dimensions;
        Some([
            share(scalars, total),
            arrays * d[0],
            arrays * d[1],
            arrays * d[2],
            arrays * d[3],
        ])
    }
}

/// One program's characterization.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Characterization {
    /// Name shown (the profile's file stem).
    pub name: String,
    /// Operations executed (branch mispredictions left out).
    pub operations: f64,
    /// Statements (table 3.2).
    pub statements: Statements,
    /// Share of arithmetic and logical operations by data type (table 3.3, first part).
    pub operation_types: Vec<(DataType, f64)>,
    /// Share of each arithmetic operator among the arithmetic operations (table 3.3,
    /// second part; logical operators left out, as there).
    pub operators: Vec<(Operator, f64)>,
    /// Per data type, the share of each arithmetic operator among that type's operations
    /// (tables 3.29-3.31).
    pub operators_by_type: Vec<(DataType, Vec<(Operator, f64)>)>,
    /// Array operands (table 3.4).
    pub operands: Operands,
    /// Basic-block concentration (tables 3.6 and 3.7).
    pub blocks: Concentration,
    /// AbOp concentration (tables 3.8 and 3.9).
    pub abops: Concentration,
    /// The 13 reduced parameters: the share of operations of each (table 3.10).
    pub reduced: Vec<(Reduced, f64)>,
    /// Share of operations outside every reduced parameter (conversions, input/output,
    /// allocation).
    pub unreduced: f64,
}

/// `x / total`, 0 when the total is 0.
fn share(x: f64, total: f64) -> f64 {
    if total > 0.0 {
        x / total
    } else {
        0.0
    }
}

/// The operations of one execution of a block (mispredictions left out).
fn operations(counts: &AbOpCounts) -> f64 {
    counts
        .iter()
        .filter(|(op, _)| classes::is_operation(*op))
        .map(|(_, n)| n)
        .sum()
}

/// Statement counts of one block execution: assignments, calls, IFs, branches, DO
/// iterations.
fn block_statements(counts: &AbOpCounts) -> [f64; 5] {
    let sum = |f: fn(AbOp) -> bool| -> f64 {
        counts.iter().filter(|(op, _)| f(*op)).map(|(_, n)| n).sum()
    };
    let jumps = counts.get(AbOp::GOTO) + counts.get(AbOp::GCOM);
    let ifs = if sum(classes::is_test) > 0.0 {
        counts.get(AbOp::GOTO).min(1.0)
    } else {
        0.0
    };
    [
        sum(classes::is_assignment),
        counts.get(AbOp::PROC),
        ifs,
        jumps - ifs,
        counts.get(AbOp::LOOV) + counts.get(AbOp::LOOX) + counts.get(AbOp::ALOV),
    ]
}

/// Every block of the profile with its executions (0 when not needed or not measured).
fn blocks(profile: &ProgramProfile) -> impl Iterator<Item = (f64, &AbOpCounts)> {
    profile
        .units
        .iter()
        .flat_map(|u| u.blocks.iter())
        .map(|b| (b.executions.unwrap_or(0.0), &b.counts))
}

/// The statement distribution of a profile.
pub fn statements(profile: &ProgramProfile) -> Statements {
    let mut kinds = [0.0; 5];
    for (mu, counts) in blocks(profile) {
        for (k, n) in kinds.iter_mut().zip(block_statements(counts)) {
            *k += mu * n;
        }
    }
    let executed: f64 = kinds.iter().sum();
    Statements {
        executed,
        assignments: share(kinds[0], executed),
        calls: share(kinds[1], executed),
        ifs: share(kinds[2], executed),
        branches: share(kinds[3], executed),
        do_iterations: share(kinds[4], executed),
    }
}

/// Operations by data type and operator (MATMUL's multiply-add counts as a multiply and
/// an add).
fn operator_counts(c: &AbOpCounts) -> Vec<(Operator, DataType, f64)> {
    let mut out = vec![];
    for (op, n) in c.iter() {
        if let Some((operator, ty)) = classes::operator_and_type(op) {
            out.push((operator, ty, n));
            if op == AbOp::MMUL {
                out.push((Operator::AddSubtract, ty, n));
            }
        }
    }
    out
}

/// Shares of operations by type, of arithmetic operators overall and per type.
type OperatorShares = (
    Vec<(DataType, f64)>,
    Vec<(Operator, f64)>,
    Vec<(DataType, Vec<(Operator, f64)>)>,
);

/// The distributions of table 3.3 and tables 3.29-3.31.
fn operator_shares(c: &AbOpCounts) -> OperatorShares {
    let ops = operator_counts(c);
    let total: f64 = ops.iter().map(|o| o.2).sum();
    let sum = |f: &dyn Fn(Operator, DataType) -> bool| -> f64 {
        ops.iter().filter(|o| f(o.0, o.1)).map(|o| o.2).sum()
    };
    let types = DataType::ALL
        .iter()
        .map(|&t| (t, share(sum(&|_, ty| ty == t), total)))
        .collect();
    let arithmetic = sum(&|o, _| o != Operator::Logical);
    let operators = Operator::ARITHMETIC
        .iter()
        .map(|&o| (o, share(sum(&|op, _| op == o), arithmetic)))
        .collect();
    let by_type = DataType::ALL[..4]
        .iter()
        .map(|&t| {
            let of_type = sum(&|_, ty| ty == t);
            let rows = Operator::ARITHMETIC
                .iter()
                .map(|&o| (o, share(sum(&|op, ty| op == o && ty == t), of_type)))
                .collect();
            (t, rows)
        })
        .collect();
    (types, operators, by_type)
}

/// The operands of a dynamic AbOp vector and, when known, the dynamic scalar operand
/// references (see [`scalar_operands`]).
pub fn operands(c: &AbOpCounts, scalars: Option<ScalarOperands>) -> Operands {
    let by_dim = [AbOp::ARR1, AbOp::ARR2, AbOp::ARR3, AbOp::ARR4].map(|op| c.get(op));
    let refs: f64 = by_dim.iter().sum();
    let dimensions = by_dim.map(|n| share(n, refs));
    Operands {
        array_references: refs,
        dimensions,
        mean_dimensions: dimensions
            .iter()
            .enumerate()
            .map(|(i, s)| (i + 1) as f64 * s)
            .sum(),
        scalar_references: scalars.map(|s| s.total()),
        global_scalar_share: scalars.map(|s| share(s.global, s.total())),
    }
}

/// The dynamic scalar operand references of a profile: each block's static count times
/// its executions. `None` when a block has no count (a profile made before them).
pub fn scalar_operands(profile: &ProgramProfile) -> Option<ScalarOperands> {
    let mut total = ScalarOperands::default();
    for b in profile.units.iter().flat_map(|u| u.blocks.iter()) {
        total.add_scaled(&b.scalar_operands?, b.executions.unwrap_or(0.0));
    }
    Some(total)
}

/// The 13 reduced parameters of a dynamic AbOp vector, and the share outside them.
pub fn reduced_parameters(c: &AbOpCounts) -> (Vec<(Reduced, f64)>, f64) {
    let total = operations(c);
    let mut values = [0.0; 13];
    let mut outside = 0.0;
    for (op, n) in c.iter().filter(|(op, _)| classes::is_operation(*op)) {
        match classes::reduced(op) {
            Some(r) => values[Reduced::ALL.iter().position(|x| *x == r).unwrap_or(0)] += n,
            None => outside += n,
        }
    }
    let reduced = Reduced::ALL
        .iter()
        .zip(values)
        .map(|(r, v)| (*r, share(v, total)))
        .collect();
    (reduced, share(outside, total))
}

/// Characterizes one program profile; `name` labels it in tables.
pub fn characterize(name: &str, profile: &ProgramProfile) -> Characterization {
    let c = &profile.totals;
    let block_ops: Vec<f64> = blocks(profile)
        .map(|(mu, counts)| mu * operations(counts))
        .collect();
    let with_ops = blocks(profile).filter(|(_, c)| operations(c) > 0.0).count();
    let abop_ops: Vec<f64> = c
        .iter()
        .filter(|(op, _)| classes::is_operation(*op))
        .map(|(_, n)| n)
        .collect();
    let (operation_types, operators, operators_by_type) = operator_shares(c);
    let (reduced, unreduced) = reduced_parameters(c);
    Characterization {
        name: name.to_string(),
        operations: operations(c),
        statements: statements(profile),
        operation_types,
        operators,
        operators_by_type,
        operands: operands(c, scalar_operands(profile)),
        blocks: concentration(&block_ops, with_ops, BLOCK_BANDS),
        abops: concentration(&abop_ops, augur_ir::abop::COUNT - 2, ABOP_BANDS),
        reduced,
        unreduced,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operand_shares_add_scalars_to_the_array_references() {
        let mut c = AbOpCounts::new();
        c.add(AbOp::ARR1, 300.0);
        c.add(AbOp::ARR2, 200.0);
        let scalars = ScalarOperands {
            local: 302.0,
            global: 101.0,
        };
        let o = operands(&c, Some(scalars));
        let s = o.shares().unwrap();
        let want = [403.0, 300.0, 200.0, 0.0, 0.0].map(|n| n / 903.0);
        for (got, want) in s.iter().zip(want) {
            assert!((got - want).abs() < 1e-12, "{s:?}");
        }
        assert!((o.global_scalar_share.unwrap() - 101.0 / 403.0).abs() < 1e-12);
        assert!((o.mean_dimensions - 1.4).abs() < 1e-12);
        // Without scalar counts only the array references' split is known.
        let o = operands(&c, None);
        assert_eq!(o.shares(), None);
        assert_eq!(o.dimensions, [0.6, 0.4, 0.0, 0.0]);
    }
}
