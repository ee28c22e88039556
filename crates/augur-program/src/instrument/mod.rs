//! Instrumentation: where counters go, how each block's count is obtained, and
//! the rewritten source that carries the counters.
//!
//! Saavedra's analyzer put one counter in every basic block. augur places as
//! few counters as it can in hot code, while keeping every count exact:
//!
//! * A counted DO loop whose iterations cannot be cut short (no EXIT, GOTO out
//!   of the loop, RETURN or STOP inside, no call to a procedure that may STOP,
//!   bounds free of function calls) adds its trip count
//!   `max(0, (end - start + step) / step)` once, before the DO statement. The
//!   first block of its body runs once per iteration, so it gets no counter
//!   either: the innermost loop of a nest usually runs counter-free.
//! * Whole-array statements add `size(...)` of their elements once per execution.
//! * The test of an ELSE IF is derived (tests of the previous arm minus entries
//!   into the previous arm); the tests of a DO WHILE are its iterations plus
//!   its normal exits; blocks without operations need no count at all.
//! * Every other block with operations gets `augur_c(k) = augur_c(k) + 1`
//!   before its first statement (taking over the statement's label, so branches
//!   to the label are counted); a logical IF whose guarded statement needs a
//!   counter becomes an IF-THEN construct.
//!
//! The counters live in a module (`augur_counts_mod`) whose array is shared with a
//! small C runtime; a destructor in that runtime writes them to a file when the
//! program ends, whether by END, STOP or ERROR STOP in any procedure.
//!
//! The work is cut at its seams:
//!
//! * `counters`: where the counters go and the [`Rule`] that gives each block's count;
//! * `probes`: the locality instrumentation (array shape records, loop-nest value
//!   probes, address probes of references that are not affine);
//! * `rewriting`: the source edits and how they are applied to a text;
//! * `facts`: control flow, loop and WHERE facts of a unit both planners read;
//! * `sites`: the numbers of the MPI call sites (an MPI analysis);
//! * `runtime.c`: the C runtime linked with the instrumented program.

mod counters;
mod facts;
mod probes;
mod rewriting;
mod sites;
mod terminals;
mod threads;

pub use counters::{block_counts, counter_module, Rule, COUNTER_ARRAY, COUNTER_MODULE};
pub use probes::{
    EnvProbe, Probe, ShapeSlots, ENV_MAX_VARS, PROBE_LINE_BYTES, PROBE_MAX_SAMPLES, SHAPE_ARRAY,
};
pub use rewriting::rewrite;
pub use sites::{plan_mpi_sites, site_of, TRACED_MPI_CALLS};
pub use threads::{place_for_openmp, MAX_THREADS, THREAD_VAR};

pub(crate) use facts::{
    calls_user_function, do_statement, may_stop, plain_elsewhere_between, squeezed_code,
    where_ranges,
};
pub(crate) use rewriting::{use_module_edits, Edit};

use augur_ir::omp::Structure;
use augur_ir::{Program, UnitKind};
use counters::plan_unit;
use probes::{declared_attributes, plan_locality};
use std::collections::BTreeMap;

/// The C runtime: writes the counters when the program ends (normal end, STOP,
/// ERROR STOP or `exit()`), to the file named by `AUGUR_COUNTS_FILE`; samples the
/// addresses of probed references and records loop-nest values.
pub const RUNTIME_C: &str = include_str!("runtime.c");

/// The instrumentation of a whole program.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// Number of counters.
    pub counters: usize,
    /// For each unit (index in [`Program::units`]), the rule of each block.
    pub rules: Vec<Vec<Rule>>,
    /// Text edits for each input source (index = the unit's `source`).
    pub(crate) edits: BTreeMap<u32, Vec<Edit>>,
    /// Notes about approximations, for the profile.
    pub notes: Vec<String>,
    /// Slots of the shape array (`augur_s`): the bounds of allocatable,
    /// pointer and assumed-shape arrays referenced in loops and whole-array
    /// statements, recorded by the run for the locality analysis.
    pub shapes: Vec<ShapeSlots>,
    /// Number of shape slots.
    pub shape_slots: usize,
    /// Probed references (non-affine subscripts in loops), by probe id.
    pub probes: Vec<Probe>,
    /// Loop nests whose integer scalars are recorded at each entry, by id.
    pub env_probes: Vec<EnvProbe>,
    /// Counters per thread (an OpenMP build, see `threads`): `augur_c(k, thread)`.
    pub threaded: bool,
    /// The elements blocks of the array statements a WORKSHARE construct shares out
    /// when gfortran compiles it (`(unit, block)`; see `threads::workshared_elements`):
    /// their counter, a scalar statement, runs on one thread while the team shares the
    /// elements.
    pub workshared: Vec<(u32, u32)>,
    /// The MPI call sites of an MPI analysis (`sites`): site `n` is entry `n - 1`, the
    /// file and 1-based line of its CALL.
    pub mpi_sites: Vec<(augur_ir::FileId, u32)>,
}

/// Builds the instrumentation plan of a program for a sequential build.
pub fn plan(program: &Program, texts: &[Option<&str>]) -> Plan {
    plan_for(program, texts, false)
}

/// Builds the instrumentation plan of a program; `openmp`: the build compiles the
/// OpenMP directives, so counters are kept per thread.
pub fn plan_for(program: &Program, texts: &[Option<&str>], openmp: bool) -> Plan {
    let structures: Vec<Structure> = if openmp {
        program.units.iter().map(augur_ir::omp::structure).collect()
    } else {
        vec![]
    };
    let stoppers = may_stop(program);
    let functions: Vec<String> = program
        .units
        .iter()
        .filter(|u| u.kind == UnitKind::Function)
        .map(|u| u.name.clone())
        .collect();
    let mut p = Plan {
        threaded: openmp,
        ..Plan::default()
    };
    let attrs = declared_attributes(texts);
    for (ui, u) in program.units.iter().enumerate() {
        let rules = plan_unit(
            &mut p,
            u,
            &stoppers,
            &functions,
            texts.get(u.source as usize).copied().flatten(),
            structures.get(ui).filter(|s| !s.is_empty()),
        );
        if let Some(text) = texts.get(u.source as usize).copied().flatten() {
            if !matches!(u.kind, UnitKind::Module | UnitKind::BlockData) {
                plan_locality(&mut p, ui, u, &stoppers, text, &attrs);
            }
        }
        p.rules.push(rules);
    }
    terminals::block_dos(program, texts, &mut p.edits);
    if openmp {
        threads::adapt(&mut p, program, &structures, texts);
        p.workshared = threads::workshared_elements(program, &structures, texts, &attrs);
    }
    p
}

/// The Fortran module declaring the counters, the shape slots and the
/// address probe, shared with the C runtime.
pub fn module_for(plan: &Plan) -> String {
    let counters = if plan.threaded {
        threads::module_declarations(plan.counters)
    } else {
        format!(
            "  integer(c_int64_t), bind(C, name=\"augur_counts\") :: {COUNTER_ARRAY}({n})\n  integer(c_int64_t), bind(C, name=\"augur_ncounts\") :: augur_n = {n}\n",
            n = plan.counters.max(1)
        )
    };
    let procedures = if plan.threaded {
        threads::module_procedures()
    } else {
        String::new()
    };
    format!(
        "module {COUNTER_MODULE}\n  use iso_c_binding, only: c_int64_t, c_int32_t\n  implicit none\n{counters}  integer(c_int64_t), bind(C, name=\"augur_shapes\") :: {SHAPE_ARRAY}({m})\n  integer(c_int64_t), bind(C, name=\"augur_nshapes\") :: augur_ns = {m}\n  integer(c_int64_t), bind(C, name=\"augur_nprobes\") :: augur_np = {q}\n  integer(c_int64_t), bind(C, name=\"augur_nenv\") :: augur_ne = {e}\n  interface\n    subroutine augur_probe(id, addr) bind(C, name=\"augur_probe\")\n      import :: c_int32_t, c_int64_t\n      integer(c_int32_t), value :: id\n      integer(c_int64_t), value :: addr\n    end subroutine augur_probe\n    subroutine augur_env(id, n, v) bind(C, name=\"augur_env\")\n      import :: c_int32_t, c_int64_t\n      integer(c_int32_t), value :: id, n\n      integer(c_int64_t), intent(in) :: v(*)\n    end subroutine augur_env\n  end interface\n{procedures}end module {COUNTER_MODULE}\n",
        m = plan.shape_slots.max(1),
        q = plan.probes.len(),
        e = plan.env_probes.len(),
    )
}
