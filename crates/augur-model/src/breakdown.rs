//! The breakdowns that explain a prediction: rows by AbOp, procedure, block, loop,
//! source line and region, each with its time and share of the whole, and the AbOps
//! executed without a cost.

use crate::block::BRANCH_ABOPS;
use crate::cost::{Coefficients, CostStatus, CostTable, Estimate};
use crate::price::PricedBlocks;
use augur_ir::{AbOp, AbOpCounts};
use augur_machine_profile::MachineProfile;
use augur_program_profile::{LoopProfile, ProgramProfile, UnitProfile};
use serde::Serialize;

/// One row of the AbOp breakdown (Saavedra's Fig. 3.12 report).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct AbOpRow {
    /// The AbOp.
    pub abop: AbOp,
    /// Its catalogue meaning.
    pub meaning: &'static str,
    /// Executions.
    pub executions: f64,
    /// Share of all operations executed (0-1).
    pub operation_share: f64,
    /// Cost per execution on the machine, ns.
    pub cost_ns: f64,
    /// Time spent in it, seconds.
    pub seconds: f64,
    /// Share of the predicted time (0-1).
    pub time_share: f64,
    /// How the cost is known.
    pub status: CostStatus,
}

/// What a part of the program is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum PartKind {
    /// A procedure (program unit), its own blocks only (callees not included).
    Procedure,
    /// A basic block.
    Block,
    /// A source line.
    Line,
    /// A loop, nested loops included (callees not included).
    Loop,
    /// A region marked with `!augur region NAME` ... `!augur end region`.
    Region,
}

/// A part of the program with its predicted time.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PartRow {
    /// What it is.
    pub kind: PartKind,
    /// Its name: `unit`, `unit block 3`, `file:line`, `unit loop 2 (line 40)`, region name.
    pub name: String,
    /// Its file.
    pub file: String,
    /// First line.
    pub first_line: u32,
    /// Last line.
    pub last_line: u32,
    /// Operations executed in it.
    pub operations: f64,
    /// Predicted time.
    pub estimate: Estimate,
    /// Share of the whole program's predicted time (0-1).
    pub time_share: f64,
    /// Executions: calls of a procedure, executions of a block, entries of a loop.
    pub executions: Option<f64>,
    /// Mean trips per entry of a loop.
    pub mean_trips: Option<f64>,
    /// The AbOp costing it most, with that AbOp's share of its time.
    pub top_abop: Option<(AbOp, f64)>,
}

/// An AbOp the program executes whose cost the machine profile does not give.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Uncosted {
    /// The AbOp.
    pub abop: AbOp,
    /// Its executions.
    pub executions: f64,
    /// Share of the program's operations.
    pub operation_share: f64,
    /// The machine profile's status for it (`not yet measured`, `failed: ...`, `absent`).
    pub machine_status: String,
}

/// The AbOp rows (Saavedra's Fig. 3.12 report), largest time first.
pub(crate) fn abop_rows(
    program: &ProgramProfile,
    table: &CostTable,
    all: &Coefficients,
    seconds: &AbOpCounts,
    whole: f64,
) -> Vec<AbOpRow> {
    let ops = program.operations;
    let mut abops: Vec<AbOpRow> = program
        .totals
        .iter()
        .filter(|(_, n)| *n > 0.0)
        .map(|(op, n)| {
            let t = seconds.get(op);
            let in_loops = all.stream.get(op) + all.vector.get(op) > 0.0;
            let status = match (table.get(op).status, table.own_stream(op)) {
                (_, Some(p)) if p.status == CostStatus::Scaled && in_loops => CostStatus::Scaled,
                (CostStatus::Measured, _) => CostStatus::Measured,
                (_, Some(p)) if p.status == CostStatus::Measured => CostStatus::Measured,
                (CostStatus::NotDetected, _) | (_, Some(_)) => CostStatus::NotDetected,
                (CostStatus::Missing | CostStatus::Scaled, None) => CostStatus::Missing,
            };
            AbOpRow {
                abop: op,
                meaning: op.info().meaning,
                executions: n,
                operation_share: share(n, ops),
                cost_ns: 1e9 * t / n,
                seconds: t,
                time_share: share(t, whole),
                status,
            }
        })
        .collect();
    abops.sort_by(|a, b| {
        b.seconds
            .total_cmp(&a.seconds)
            .then(b.executions.total_cmp(&a.executions))
    });
    abops
}

/// The rows of a program's parts, each list largest first.
pub(crate) struct PartRows<'a> {
    program: &'a ProgramProfile,
    priced: &'a PricedBlocks,
    pricer: PartPricer<'a>,
}

impl<'a> PartRows<'a> {
    /// The rows of `program`, whose blocks are `priced` (`all` their sum, costing
    /// `seconds` per AbOp and `whole` in all).
    pub(crate) fn new(
        program: &'a ProgramProfile,
        table: &'a CostTable,
        priced: &'a PricedBlocks,
        all: &Coefficients,
        seconds: &AbOpCounts,
        whole: f64,
    ) -> PartRows<'a> {
        PartRows {
            program,
            priced,
            pricer: PartPricer::new(program, table, all, seconds, whole),
        }
    }

    /// Every procedure (its own blocks; callees not included).
    pub(crate) fn procedures(&self) -> Vec<PartRow> {
        let mut procedures = vec![];
        for (ui, u) in self.program.units.iter().enumerate() {
            let mut unit_c = Coefficients::default();
            for c in &self.priced.blocks[ui] {
                unit_c.add(c);
            }
            procedures.push(self.pricer.exact(
                PartSpec {
                    kind: PartKind::Procedure,
                    name: u.name.clone(),
                    file: &u.file,
                    first_line: u.first_line,
                    last_line: u.last_line,
                    executions: u.calls,
                    mean_trips: None,
                },
                &unit_c,
            ));
        }
        sorted(procedures)
    }

    /// Every basic block.
    pub(crate) fn blocks(&self) -> Vec<PartRow> {
        let mut blocks = vec![];
        for (ui, u) in self.program.units.iter().enumerate() {
            for (bi, b) in u.blocks.iter().enumerate() {
                blocks.push(self.pricer.exact(
                    PartSpec {
                        kind: PartKind::Block,
                        name: format!("{} block {}", u.name, b.id),
                        file: &u.file,
                        first_line: b.first_line,
                        last_line: b.last_line,
                        executions: b.executions,
                        mean_trips: None,
                    },
                    &self.priced.blocks[ui][bi],
                ));
            }
        }
        sorted(blocks)
    }

    /// Every loop (its nested loops included; callees not included).
    pub(crate) fn loops(&self) -> Vec<PartRow> {
        let mut loops = vec![];
        for (ui, u) in self.program.units.iter().enumerate() {
            for l in &u.loops {
                let sum = self.priced.loop_sum(self.pricer.table, ui, u, l);
                loops.push(self.pricer.exact(
                    PartSpec {
                        kind: PartKind::Loop,
                        name: loop_name(u, l),
                        file: &u.file,
                        first_line: l.line,
                        last_line: sum.last_line,
                        executions: l.entries,
                        mean_trips: l.mean_trips,
                    },
                    &sum.work,
                ));
            }
        }
        sorted(loops)
    }

    /// Every source line, at the program's effective AbOp costs.
    pub(crate) fn lines(&self) -> Vec<PartRow> {
        let lines = self
            .program
            .lines
            .iter()
            .map(|l| {
                self.pricer.effective(
                    PartSpec {
                        kind: PartKind::Line,
                        name: format!("{}:{}", l.file, l.line),
                        file: &l.file,
                        first_line: l.line,
                        last_line: l.line,
                        executions: None,
                        mean_trips: None,
                    },
                    &l.abops,
                )
            })
            .collect();
        sorted(lines)
    }

    /// Every region, at the program's effective AbOp costs.
    pub(crate) fn regions(&self) -> Vec<PartRow> {
        let regions = self
            .program
            .regions
            .iter()
            .map(|r| {
                self.pricer.effective(
                    PartSpec {
                        kind: PartKind::Region,
                        name: r.name.clone(),
                        file: &r.file,
                        first_line: r.first_line,
                        last_line: r.last_line,
                        executions: None,
                        mean_trips: None,
                    },
                    &r.abops,
                )
            })
            .collect();
        sorted(regions)
    }
}

/// The AbOps the program executes without a cost on the machine (mispredictions only
/// when they are priced).
pub(crate) fn uncosted(
    abops: &[AbOpRow],
    machine: &MachineProfile,
    branches_priced: bool,
) -> Vec<Uncosted> {
    abops
        .iter()
        .filter(|r| r.status == CostStatus::Missing)
        .filter(|r| branches_priced || !BRANCH_ABOPS.contains(&r.abop))
        .map(|r| Uncosted {
            abop: r.abop,
            executions: r.executions,
            operation_share: r.operation_share,
            machine_status: machine
                .abop
                .get(&r.abop)
                .map(|e| e.status.clone())
                .unwrap_or_else(|| "absent".to_string()),
        })
        .collect()
}

/// `part / whole`, 0 when the whole is not positive.
fn share(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        part / whole
    } else {
        0.0
    }
}

/// The AbOp costing the most time, and its share of `total`.
fn top_abop(seconds: &AbOpCounts, total: f64) -> Option<(AbOp, f64)> {
    seconds
        .iter()
        .filter(|(_, t)| *t > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(op, t)| (op, share(t, total)))
}

/// A part of the program being priced.
struct PartSpec<'a> {
    kind: PartKind,
    name: String,
    file: &'a str,
    first_line: u32,
    last_line: u32,
    executions: Option<f64>,
    mean_trips: Option<f64>,
}

/// Prices parts: exactly from block coefficients, or (lines, regions, which the profile
/// records as AbOp counts only) at the program's effective cost of each AbOp.
struct PartPricer<'a> {
    table: &'a CostTable,
    whole: f64,
    /// Effective seconds per execution of each AbOp over the whole program.
    effective: Vec<f64>,
    /// Effective standard error per execution.
    effective_se: Vec<f64>,
}

impl<'a> PartPricer<'a> {
    /// A pricer of the parts of `program`, whose blocks sum to `all`, costing
    /// `seconds` per AbOp and `whole` in all.
    fn new(
        program: &ProgramProfile,
        table: &'a CostTable,
        all: &Coefficients,
        seconds: &AbOpCounts,
        whole: f64,
    ) -> PartPricer<'a> {
        let mut effective = vec![0.0; augur_ir::abop::COUNT];
        let mut effective_se = vec![0.0; augur_ir::abop::COUNT];
        for (op, n) in program.totals.iter() {
            if n > 0.0 {
                let i = op.index();
                effective[i] = seconds.get(op) / n;
                effective_se[i] = table.variance_of(all, op).sqrt() / n;
            }
        }
        PartPricer {
            table,
            whole,
            effective,
            effective_se,
        }
    }

    fn row(
        &self,
        p: PartSpec,
        operations: f64,
        estimate: Estimate,
        seconds: &AbOpCounts,
    ) -> PartRow {
        PartRow {
            kind: p.kind,
            name: p.name,
            file: p.file.to_string(),
            first_line: p.first_line,
            last_line: p.last_line,
            operations,
            time_share: share(estimate.seconds, self.whole),
            top_abop: top_abop(seconds, estimate.seconds),
            estimate,
            executions: p.executions,
            mean_trips: p.mean_trips,
        }
    }

    fn exact(&self, p: PartSpec, c: &Coefficients) -> PartRow {
        let ops = c.operations();
        let est = self.table.cost_of(c);
        let secs = self.table.seconds_by_abop(c);
        self.row(p, ops, est, &secs)
    }

    fn effective(&self, p: PartSpec, counts: &AbOpCounts) -> PartRow {
        let mut t = 0.0;
        let mut var = 0.0;
        let mut secs = AbOpCounts::new();
        for (op, n) in counts.iter() {
            t += n * self.effective[op.index()];
            var += (n * self.effective_se[op.index()]).powi(2);
            secs.add(op, n * self.effective[op.index()]);
        }
        let est = Estimate {
            seconds: t,
            sd_seconds: var.sqrt(),
        };
        self.row(p, counts.total(), est, &secs)
    }
}
/// The rows that executed operations, largest time first (then most operations).
fn sorted(mut rows: Vec<PartRow>) -> Vec<PartRow> {
    rows.retain(|r| r.operations > 0.0);
    rows.sort_by(|a, b| {
        b.estimate
            .seconds
            .total_cmp(&a.estimate.seconds)
            .then(b.operations.total_cmp(&a.operations))
    });
    rows
}

/// The name of loop `l` of unit `u` in the rows.
pub(crate) fn loop_name(u: &UnitProfile, l: &LoopProfile) -> String {
    format!("{} loop {} (line {})", u.name, l.id, l.line)
}
