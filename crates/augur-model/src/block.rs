//! One basic block's price: what the compiler did to it (vectorized, inlined,
//! unrolled, if-converted: [`BlockContext`]), its operations in the context that binds
//! them (scalar or vectorized stream, its recurrence at chain cost, the issue floor),
//! its branch mispredictions and its writes into registers.

use crate::cost::{Coefficients, CostTable};
use augur_ir::{AbOp, AbOpCounts};
use augur_machine_profile::flags::same_code_generation;
use augur_machine_profile::MachineProfile;
use augur_program_profile::optreport::{same_compiler, OptReport};
use augur_program_profile::ProgramProfile;
use augur_program_profile::{BlockProfile, UnitProfile};

/// The AbOps of estimated branch mispredictions.
pub const BRANCH_ABOPS: [AbOp; 2] = [AbOp::BRMP, AbOp::BRMC];

/// What the compiler did to one basic block, from the program's optimization report
/// (`augur_program_profile::optreport`) when it is for the machine's compiler and flags.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BlockContext {
    /// The block's loop (or its array statement) was vectorized.
    pub vectorized: bool,
    /// The share (0-1) of the block's calls that were inlined: their call overhead
    /// (`PROC`, `ARGL`) disappears.
    pub inlined: f64,
    /// The block's loop (or array statement) was unrolled completely: its loop control
    /// (`LOOV`, `LOOX`, `ALIN`, `ALOV`) disappears.
    pub unrolled: bool,
    /// The block's branch (an IF ending it) compiled to code that selects without a
    /// conditional jump: its mispredictions (`BRMP`, `BRMC`) disappear.
    pub branchless: bool,
    /// The block's branch compiled to a conditional jump: mispredictions of simple arms
    /// (`BRMC`, priced as what the compiler usually does with them) cost what any
    /// mispredicted branch costs (`BRMP`).
    pub branch_kept: bool,
    /// The block's array statements compiled to scalar loops whose instructions the
    /// report holds: each sets up a plain loop (`ALIN` priced as a DO loop's `LOIN`)
    /// when the machine prices loops from their instructions.
    pub scalar_array_loops: bool,
}

/// How one prediction prices blocks: the machine's cost table, and whether the
/// prediction puts branch mispredictions into the total ([`crate::PredictOptions`] and the
/// program profile decide).
#[derive(Debug, Clone, Copy)]
pub struct BlockPricing<'a> {
    /// The machine's costs.
    pub table: &'a CostTable,
    /// Whether mispredictions (`BRMP`, `BRMC`) are priced.
    pub branches_priced: bool,
}

impl BlockPricing<'_> {
    /// The coefficients of one execution of a block: its operations at stream cost
    /// unless its recurrence (`chain`) at chain cost takes longer; without stream costs,
    /// everything at chain cost (Saavedra's single-context model). Blocks outside loops
    /// are priced the same way: a procedure body called from a loop runs in the loop's
    /// context, and straight code that runs once costs next to nothing either way.
    ///
    /// `ctx` says what the compiler did to the block: inlined calls lose their call
    /// overhead (`PROC`, `ARGL`), and a block of a vectorized loop is priced at the
    /// vectorized-loop stream costs (a loop the compiler vectorized carries no
    /// recurrence that binds it).
    pub fn coefficients(
        &self,
        counts: &AbOpCounts,
        chain: &AbOpCounts,
        ctx: BlockContext,
    ) -> Coefficients {
        let table = self.table;
        let mut counts = counts.clone();
        if ctx.unrolled {
            for op in [AbOp::LOOV, AbOp::LOOX, AbOp::ALIN, AbOp::ALOV] {
                let n = counts.get(op);
                counts.add(op, -n);
            }
        }
        // ALIN is measured as the intercept of whole statements priced AbOp by AbOp;
        // an optimized element loop priced from its instructions leaves only a loop's
        // start (bg_nbody's `v(:,i) = ...` of three elements: 1.3 ns a statement at
        // ALIN, its compiled loops alone take the time measured). Unoptimized code
        // computes and stores the loop's bounds and offsets first (corpus nbody at -O0:
        // -19% with ALIN, -48% without).
        if ctx.scalar_array_loops && table.incore.is_some() && table.register_scalars {
            let n = counts.get(AbOp::ALIN);
            counts.add(AbOp::ALIN, -n);
            counts.add(AbOp::LOIN, n);
        }
        if ctx.branch_kept {
            let n = counts.get(AbOp::BRMC);
            counts.add(AbOp::BRMC, -n);
            counts.add(AbOp::BRMP, n);
        }
        if !self.branches_priced || ctx.branchless || (ctx.vectorized && table.has_vector()) {
            // Left out, an IF turned into selects, or a vectorized loop whose IFs
            // became masks.
            for op in BRANCH_ABOPS {
                let n = counts.get(op);
                counts.add(op, -n);
            }
        }
        if ctx.inlined > 0.0 {
            for op in [AbOp::PROC, AbOp::ARGL] {
                let n = counts.get(op);
                counts.add(op, -n * ctx.inlined.min(1.0));
            }
        }
        if !table.has_stream() {
            return Coefficients {
                chain: counts,
                ..Coefficients::default()
            };
        }
        // The issue floor bounds the operations that issue; mispredictions come on top.
        let (mispredicted, issuing) = split_ops(&counts, &BRANCH_ABOPS);
        let issued = issuing.total();
        if ctx.vectorized && table.has_vector() {
            let t_vector: f64 = issuing
                .iter()
                .map(|(op, n)| n * table.vector(op).seconds)
                .sum();
            // An in-order floating-point reduction keeps its chain.
            let ordered = if table.ordered_reductions {
                floating_arithmetic(chain)
            } else {
                AbOpCounts::new()
            };
            let t_chain: f64 = ordered
                .iter()
                .map(|(op, n)| n * table.get(op).seconds)
                .sum();
            if t_chain > t_vector.max(table.vector_floor * issued) {
                return Coefficients {
                    chain: ordered,
                    vector: mispredicted,
                    ..Coefficients::default()
                };
            }
            return if table.vector_floor * issued > t_vector {
                Coefficients {
                    vector_issue: issuing,
                    vector: mispredicted,
                    ..Coefficients::default()
                }
            } else {
                Coefficients {
                    vector: counts,
                    ..Coefficients::default()
                }
            };
        }
        let at_stream =
            |c: &AbOpCounts| -> f64 { c.iter().map(|(op, n)| n * table.stream(op).seconds).sum() };
        let (t_issued, t_mispredicted) = (at_stream(&issuing), at_stream(&mispredicted));
        let t_floor = table.floor * issued;
        let t_chain: f64 = chain.iter().map(|(op, n)| n * table.get(op).seconds).sum();
        if t_chain > t_issued.max(t_floor) + t_mispredicted {
            Coefficients {
                chain: chain.clone(),
                ..Coefficients::default()
            }
        } else if t_floor > t_issued {
            Coefficients {
                issue: issuing,
                stream: mispredicted,
                ..Coefficients::default()
            }
        } else {
            Coefficients {
                stream: counts,
                ..Coefficients::default()
            }
        }
    }

    /// The coefficients of all executions of a block.
    pub fn total(&self, b: &BlockProfile, ctx: BlockContext) -> Coefficients {
        let table = self.table;
        let mu = b.executions.unwrap_or(0.0);
        if !b.chain.is_empty() && priced_chain(table, b).is_empty() {
            return self.total(&without_chain(b), ctx);
        }
        let per = if table.register_scalars && !b.register_writes.is_empty() {
            let mut counts = b.counts.clone();
            for (op, n) in b.register_writes.iter() {
                counts.add(op, -n.min(counts.get(op)));
            }
            self.coefficients(&counts, &b.chain, ctx)
        } else {
            self.coefficients(&b.counts, &b.chain, ctx)
        };
        let mut c = Coefficients::default();
        c.add_scaled(&per, mu);
        c.executed = mu * b.counts.total();
        c
    }
}

/// The floating-point arithmetic of `counts` (the real and complex operation groups:
/// adds, multiplies, divides, ...; not the intrinsics).
pub(crate) fn floating_arithmetic(counts: &AbOpCounts) -> AbOpCounts {
    let mut out = AbOpCounts::new();
    for (op, n) in counts.iter() {
        let g = op.info().group;
        if g.starts_with("real") || g.starts_with("complex") {
            out.add(op, n);
        }
    }
    out
}

/// `counts` split into the executions of `ops` and the rest.
pub(crate) fn split_ops(counts: &AbOpCounts, ops: &[AbOp]) -> (AbOpCounts, AbOpCounts) {
    let mut picked = AbOpCounts::new();
    let mut rest = counts.clone();
    for &op in ops {
        let n = counts.get(op);
        picked.add(op, n);
        rest.add(op, -n);
    }
    (picked, rest)
}

/// The part of `c` that is operations `ops`.
pub(crate) fn only(c: &Coefficients, ops: &[AbOp]) -> Coefficients {
    Coefficients {
        executed: 0.0,
        ..c.each_context(|counts| split_ops(counts, ops).0)
    }
}

/// The recurrence of block `b` as the table prices it. An array reduction's partial
/// result (the chain of an element block) is a compiler temporary kept in a register
/// even without optimization (gfortran 12 -O0: `dot_product` 0.46 ns an element, the
/// add's latency), while the chain costs measured at -O0 hold a store and a reload of
/// a variable: there the element block keeps its stream costs.
pub(crate) fn priced_chain<'b>(table: &CostTable, b: &'b BlockProfile) -> &'b AbOpCounts {
    static NONE: AbOpCounts = AbOpCounts::new();
    if !table.register_scalars && b.block_kind == augur_ir::BlockKind::Elements {
        &NONE
    } else {
        &b.chain
    }
}

/// A block as if it carried no recurrence.
pub(crate) fn without_chain(b: &BlockProfile) -> BlockProfile {
    BlockProfile {
        chain: AbOpCounts::default(),
        ..b.clone()
    }
}

/// Coefficients without the mispredictions.
pub(crate) fn without_branches(c: &Coefficients) -> Coefficients {
    c.each_context(|counts| split_ops(counts, &BRANCH_ABOPS).1)
}

/// The program's optimization report when it is for the machine's compiler and its
/// code-generation flags (flags of source form, line length, standard, warnings, paths
/// and preprocessing do not change the code: `augur_machine_profile::flags`).
pub(crate) fn report_for<'a>(
    program: &'a ProgramProfile,
    machine: &MachineProfile,
) -> Option<&'a OptReport> {
    let r = program.optimization.as_ref()?;
    // An OpenMP analysis builds with -fopenmp added to the machine's flags (its
    // `[openmp]` section was measured so too): the report is the machine's.
    let openmp = program.openmp.is_some();
    let keep = |f: &&str| !(openmp && f.starts_with("-fopenmp"));
    let flags: Vec<&str> = machine
        .provenance
        .fflags
        .split_whitespace()
        .filter(keep)
        .collect();
    let report_flags: Vec<&str> = r.fflags.iter().map(String::as_str).filter(keep).collect();
    (same_compiler(&r.compiler, &machine.provenance.compiler)
        && same_code_generation(&report_flags, &flags))
    .then_some(r)
}

/// What the compiler did to block `b` of unit `u`, by the report.
pub fn block_context(
    report: Option<&OptReport>,
    u: &UnitProfile,
    b: &BlockProfile,
) -> BlockContext {
    let Some(r) = report else {
        return BlockContext::default();
    };
    let loop_line = b
        .in_loop
        .and_then(|id| u.loops.iter().find(|l| l.id == id))
        .map(|l| l.line);
    let array_statement = b.counts.get(AbOp::ALOV) > 0.0 || b.counts.get(AbOp::ALIN) > 0.0;
    let vectorized = loop_line.is_some_and(|line| r.is_vectorized(&u.file, line))
        || (array_statement && r.vectorized_within(&u.file, b.first_line, b.last_line));
    let header = b.block_kind == augur_ir::BlockKind::LoopHeader;
    let unrolled = (header && loop_line.is_some_and(|line| r.is_unrolled(&u.file, line)))
        || (array_statement && r.unrolled_within(&u.file, b.first_line, b.last_line));
    let calls = b.counts.get(AbOp::PROC);
    let inlined = if calls > 0.0 {
        (r.inlined_within(&u.file, b.first_line, b.last_line) as f64 / calls).min(1.0)
    } else {
        0.0
    };
    let branchless = !header && r.is_branchless(&u.file, b.last_line);
    let branch_kept = !header && r.is_branching(&u.file, b.last_line);
    BlockContext {
        vectorized,
        inlined,
        unrolled,
        branchless,
        branch_kept,
        scalar_array_loops: array_statement && !vectorized && scalar_array_loops(r, u, b),
    }
}

/// Whether the element loops of the array statements on the lines of block `b` of `u`
/// (at least one) each have a compiled loop in `r` that is scalar code in one version.
fn scalar_array_loops(r: &OptReport, u: &UnitProfile, b: &BlockProfile) -> bool {
    let mut loops = u
        .loops
        .iter()
        .filter(|l| l.loop_kind == augur_ir::LoopKind::ArrayElements)
        .filter(|l| (b.first_line..=b.last_line).contains(&l.line))
        .peekable();
    loops.peek().is_some()
        && loops.all(|l| {
            r.compiled_loop(&u.file, l.line)
                .is_some_and(|c| c.lanes <= 1 && c.versions == 0)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost::optimizing;
    use crate::test_support::{block_profile, entry, machine, pricing};
    use augur_machine_profile::{AbOpEntry, MEASURED};

    #[test]
    fn an_array_statement_compiled_to_a_scalar_loop_starts_as_a_do_loop() {
        let m = machine(&[
            (AbOp::ALIN, MEASURED, Some(1.3), Some(0.0), 10),
            (AbOp::LOIN, MEASURED, Some(0.1), Some(0.0), 10),
        ]);
        let mut t = CostTable::from_profile(&m);
        t.register_scalars = true;
        let mut counts = AbOpCounts::new();
        counts.add(AbOp::ALIN, 1.0);
        let ctx = BlockContext {
            scalar_array_loops: true,
            ..BlockContext::default()
        };
        let none = AbOpCounts::new();
        // Without in-core parameters the element loop is priced AbOp by AbOp: ALIN.
        let c = pricing(&t).coefficients(&counts, &none, ctx);
        assert!((t.cost_of(&c).seconds - 1.3e-9).abs() < 1e-15);
        t.incore = Some(Default::default());
        let c = pricing(&t).coefficients(&counts, &none, ctx);
        assert!((t.cost_of(&c).seconds - 0.1e-9).abs() < 1e-15);
        // A statement whose loop is not known scalar keeps it, and unoptimized code.
        let c = pricing(&t).coefficients(&counts, &none, BlockContext::default());
        assert!((t.cost_of(&c).seconds - 1.3e-9).abs() < 1e-15);
        t.register_scalars = false;
        let c = pricing(&t).coefficients(&counts, &none, ctx);
        assert!((t.cost_of(&c).seconds - 1.3e-9).abs() < 1e-15);
    }

    #[test]
    fn loop_blocks_take_the_larger_of_stream_and_recurrence() {
        let mut m = machine(&[
            (AbOp::ARDL, MEASURED, Some(3.0), Some(0.0), 10),
            (AbOp::MRDL, MEASURED, Some(3.0), Some(0.0), 10),
        ]);
        let t = CostTable::from_profile(&m);
        assert!(!t.has_stream());
        let mut counts = AbOpCounts::new();
        counts.add(AbOp::ARDL, 1.0);
        counts.add(AbOp::MRDL, 1.0);
        let mut chain = AbOpCounts::new();
        chain.add(AbOp::ARDL, 1.0);
        // Without stream costs: Saavedra's model, everything at chain cost.
        let c = pricing(&t).coefficients(&counts, &chain, BlockContext::default());
        assert!((t.cost_of(&c).seconds - 6e-9).abs() < 1e-15);

        let mut e = AbOpEntry::status(MEASURED);
        e.mean_ns = Some(0.5);
        e.ci90_ns = Some(0.0);
        e.observations = 10;
        m.stream.insert(AbOp::ARDL, e.clone());
        m.stream.insert(AbOp::MRDL, e);
        let t = CostTable::from_profile(&m);
        assert!(t.has_stream());
        // A reduction: the 3 ns add chain beats 2 x 0.5 ns of throughput.
        let c = pricing(&t).coefficients(&counts, &chain, BlockContext::default());
        assert!((t.cost_of(&c).seconds - 3e-9).abs() < 1e-15);
        // No recurrence: throughput.
        let c = pricing(&t).coefficients(&counts, &AbOpCounts::new(), BlockContext::default());
        assert!((t.cost_of(&c).seconds - 1e-9).abs() < 1e-15);

        // A loop the compiler vectorized: without leave to reassociate, it adds the
        // reduction in order, and the add chain still binds.
        let mut v = AbOpEntry::status(MEASURED);
        v.mean_ns = Some(0.125);
        v.ci90_ns = Some(0.0);
        v.observations = 10;
        m.stream_vector.insert(AbOp::ARDL, v);
        m.provenance.fflags = "-O2".into();
        let t = CostTable::from_profile(&m);
        assert!(t.ordered_reductions);
        let vec_ctx = BlockContext {
            vectorized: true,
            ..BlockContext::default()
        };
        let c = pricing(&t).coefficients(&counts, &chain, vec_ctx);
        assert!((t.cost_of(&c).seconds - 3e-9).abs() < 1e-15);
        // With -ffast-math the reduction becomes partial sums: the vector costs, ARDL at
        // its vector cost, MRDL (no vector entry) at its scalar stream cost.
        m.provenance.fflags = "-O2 -ffast-math".into();
        let t = CostTable::from_profile(&m);
        assert!(!t.ordered_reductions);
        let c = pricing(&t).coefficients(&counts, &chain, vec_ctx);
        assert!((t.cost_of(&c).seconds - 0.625e-9).abs() < 1e-15);
    }

    #[test]
    fn array_reductions_keep_their_chain_only_where_scalars_live_in_registers() {
        let mut m = machine(&[(AbOp::ARDL, MEASURED, Some(3.0), Some(0.0), 10)]);
        let mut counts = AbOpCounts::new();
        counts.add(AbOp::ARDL, 1.0);
        let b = block_profile(augur_ir::BlockKind::Elements, counts.clone(), counts);
        m.provenance.fflags = "-O2".into();
        let t = CostTable::from_profile(&m);
        assert_eq!(priced_chain(&t, &b).get(AbOp::ARDL), 1.0);
        // At -O0 the chain costs hold a store and a reload the temporary never pays.
        m.provenance.fflags = "-O0".into();
        let t = CostTable::from_profile(&m);
        assert!(priced_chain(&t, &b).is_empty());
        let straight = BlockProfile {
            block_kind: augur_ir::BlockKind::Straight,
            ..b.clone()
        };
        assert_eq!(priced_chain(&t, &straight).get(AbOp::ARDL), 1.0);
    }

    #[test]
    fn inlined_calls_lose_their_overhead() {
        let m = machine(&[
            (AbOp::PROC, MEASURED, Some(2.0), Some(0.0), 10),
            (AbOp::ARGL, MEASURED, Some(1.0), Some(0.0), 10),
            (AbOp::ARDL, MEASURED, Some(1.0), Some(0.0), 10),
        ]);
        let t = CostTable::from_profile(&m);
        let mut counts = AbOpCounts::new();
        counts.add(AbOp::PROC, 2.0);
        counts.add(AbOp::ARGL, 4.0);
        counts.add(AbOp::ARDL, 1.0);
        let none = AbOpCounts::new();
        let full = pricing(&t).coefficients(&counts, &none, BlockContext::default());
        assert!((t.cost_of(&full).seconds - 9e-9).abs() < 1e-15);
        let half = BlockContext {
            inlined: 0.5,
            ..BlockContext::default()
        };
        let c = pricing(&t).coefficients(&counts, &none, half);
        assert!((t.cost_of(&c).seconds - 5e-9).abs() < 1e-15);
    }

    #[test]
    fn no_block_issues_faster_than_the_floor_and_the_floor_is_exact() {
        let mut m = machine(&[
            (AbOp::ARDL, MEASURED, Some(3.0), Some(0.0), 10),
            (AbOp::BRMP, MEASURED, Some(8.0), Some(0.0), 10),
        ]);
        m.stream.insert(AbOp::ARDL, entry(0.01, 0.05));
        m.stream_floor_ns = Some(0.25);
        let t = CostTable::from_profile(&m);
        let priced = BlockPricing {
            table: &t,
            branches_priced: true,
        };
        let mut counts = AbOpCounts::new();
        counts.add(AbOp::ARDL, 4.0);
        counts.add(AbOp::BRMP, 0.5);
        let c = priced.coefficients(&counts, &AbOpCounts::new(), BlockContext::default());
        // 4 adds at 0.01 ns are below 4 issue slots of 0.25 ns: 1 ns, plus the half
        // misprediction (its chain cost: no stream cost) at 8 ns.
        let cost = t.cost_of(&c);
        assert!((cost.seconds - 5e-9).abs() < 1e-15, "{cost:?}");
        // The floor's slots carry no uncertainty of the adds' fitted cost.
        assert!(cost.sd_seconds < 1e-15, "{cost:?}");
        assert_eq!(c.issue.get(AbOp::ARDL), 4.0);
        // Above the floor, the stream costs stand.
        m.stream_floor_ns = Some(0.001);
        let t = CostTable::from_profile(&m);
        let c = pricing(&t).coefficients(&counts, &AbOpCounts::new(), BlockContext::default());
        assert_eq!(c.issue.total(), 0.0);
        assert_eq!(c.stream.get(AbOp::ARDL), 4.0);
    }

    #[test]
    fn register_writes_are_free_only_when_the_flags_optimize() {
        assert!(optimizing("-O2 -march=native"));
        assert!(optimizing("-O0 -O3"));
        assert!(!optimizing("-O2 -O0"));
        assert!(!optimizing("-g"));
        let mut m = machine(&[
            (AbOp::SRDL, MEASURED, Some(1.0), Some(0.0), 10),
            (AbOp::ARDL, MEASURED, Some(2.0), Some(0.0), 10),
        ]);
        let mut counts = AbOpCounts::new();
        counts.add(AbOp::SRDL, 2.0);
        counts.add(AbOp::ARDL, 1.0);
        let mut writes = AbOpCounts::new();
        writes.add(AbOp::SRDL, 1.0);
        // `s = s + x` (a register write) and `a(i) = y` (a store) in one block.
        let b = BlockProfile {
            last_line: 2,
            in_loop: None,
            register_writes: writes,
            ..block_profile(augur_ir::BlockKind::Straight, counts, AbOpCounts::new())
        };
        let seconds = |m: &MachineProfile| {
            let t = CostTable::from_profile(m);
            t.cost_of(&pricing(&t).total(&b, BlockContext::default()))
                .seconds
        };
        m.provenance.fflags = "-O0".into();
        assert!((seconds(&m) - 40e-9).abs() < 1e-15, "{}", seconds(&m));
        m.provenance.fflags = "-O2".into();
        assert!((seconds(&m) - 30e-9).abs() < 1e-15, "{}", seconds(&m));
    }

    #[test]
    fn mispredictions_priced_by_what_the_compiler_kept() {
        let m = machine(&[
            (AbOp::BRMP, MEASURED, Some(8.0), Some(0.0), 10),
            (AbOp::BRMC, MEASURED, Some(0.5), Some(0.0), 10),
            (AbOp::ARDL, MEASURED, Some(1.0), Some(0.0), 10),
        ]);
        let table = CostTable::from_profile(&m);
        let mut counts = AbOpCounts::new();
        counts.add(AbOp::BRMP, 1.0);
        counts.add(AbOp::BRMC, 2.0);
        counts.add(AbOp::ARDL, 1.0);
        let none = AbOpCounts::new();
        let cost =
            |t: BlockPricing, ctx| table.cost_of(&t.coefficients(&counts, &none, ctx)).seconds;
        // Not priced unless asked (or simulated: `PredictOptions::simulated_branches`).
        let mut t = pricing(&table);
        assert!((cost(t, BlockContext::default()) - 1e-9).abs() < 1e-15);
        t.branches_priced = true;
        assert!((cost(t, BlockContext::default()) - 10e-9).abs() < 1e-15);
        // A kept branch: simple arms cost a full misprediction.
        let kept = BlockContext {
            branch_kept: true,
            ..BlockContext::default()
        };
        assert!((cost(t, kept) - 25e-9).abs() < 1e-15);
        // An if-converted one: none.
        let free = BlockContext {
            branchless: true,
            ..BlockContext::default()
        };
        assert!((cost(t, free) - 1e-9).abs() < 1e-15);
    }
}
