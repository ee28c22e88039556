//! `[incore]`: what an analytical in-core model needs to price a compiled loop, measured
//! on the host by the machine wing's own instruction kernels (`augur-incore`).
//!
//! ```toml
//! [incore]
//! cycle_ns = 0.238
//! issue_ns = 0.048
//! taken_branch_ns = 0.238
//! memory_op_ns = 0.079
//! window = 202.0
//! window_vector = 156.0
//! window_stores = 67.0
//! window_waiting = 100.0
//!
//! [incore.class.fp_add]
//! latency_ns = 0.714
//! throughput_ns = 0.119
//!
//! [incore.class."fp_add.v256"]
//! latency_ns = 0.714
//! throughput_ns = 0.119
//! ```
//!
//! Keys of `class` are [`augur_ir::incore::ClassWidth::key`]s. A class the kernels did
//! not measure is absent; the model then prices it as the nearest class it knows
//! (the same class at the scalar width, else one cycle).

use augur_ir::incore::ClassWidth;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The in-core parameters of one host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct InCoreProfile {
    /// One core clock cycle, in ns: the latency of one integer add in a chain of
    /// dependent adds (one cycle on every x86-64 core since the 1990s).
    pub cycle_ns: f64,
    /// The least time one instruction of a loop body takes when nothing else binds it
    /// (the reciprocal of the sustained issue width, ns): measured by a loop of
    /// independent one-cycle integer instructions.
    pub issue_ns: f64,
    /// The least time one iteration of a loop takes (its taken backward branch), ns.
    pub taken_branch_ns: f64,
    /// The reciprocal throughput of loads and stores mixed, ns each: the address pipes
    /// they share (a Zen 4 does three memory operations a cycle, at most two of them
    /// stores: a mix runs at the loads' rate, not at the loads' and the stores' apart);
    /// `None` in profiles made before the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_op_ns: Option<f64>,
    /// The reciprocal throughput of floating-point adds, multiplies and shuffles mixed,
    /// ns each: the vector pipes they share (an Intel core runs adds on two ports and
    /// multiplies on two, one of them the same, and shuffles on a third: the three mixed
    /// run at about three a cycle, not at the four or five the classes apart allow;
    /// a Zen core's adds and multiplies have pipes of their own). `None` in profiles
    /// made before the field, or on a host without AVX.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector_pipes_ns: Option<f64>,
    /// The issue slots a read-modify-write of memory takes (`addl $1, -36(%rbp)`, an
    /// unoptimized loop's counter): two on an Intel core, whose renamer sees its load
    /// and add apart from its store, measured as the issue time it adds to independent
    /// integer instructions over `issue_ns`; `None` in profiles made before the field
    /// (one slot, as any instruction).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rmw_issue_slots: Option<f64>,
    /// Latency and reciprocal throughput of each class at each width measured.
    #[serde(default)]
    pub class: BTreeMap<String, ClassCost>,
    /// The instructions writing an integer register (or the flags) the core keeps in
    /// flight: its integer register file or its reorder buffer, whichever runs out
    /// first, measured by two independent chains of square roots with more and more
    /// independent integer moves between them; `None` in profiles made before the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<f64>,
    /// The instructions writing a vector register the core keeps in flight (its
    /// floating-point register file), measured as `window` with `vaddsd` fillers; `None`
    /// in profiles made before the field, or on a host without AVX.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_vector: Option<f64>,
    /// The stores the core keeps in flight (its store queue), measured as `window` with
    /// stores; `None` in profiles made before the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_stores: Option<f64>,
    /// The floating-point instructions waiting for an operand the core keeps in flight
    /// (its floating-point schedulers), measured as `window` with `vaddsd` fillers that
    /// read the chain's result; `None` in profiles made before the field, or on a host
    /// without AVX. The replay of a compiled loop holds its floating-point instructions
    /// there until their operands are ready (`augur_model::schedule`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_waiting: Option<f64>,
    /// The integer instructions waiting for an operand the core keeps in flight (its
    /// integer schedulers), measured as `window` with `lea 1(%rax)` fillers that read the
    /// chain's result (moved to `%rax`); `None` in profiles made before the field, or on
    /// a host without AVX. The replay of a compiled loop holds its integer computations
    /// there until their operands are ready (`augur_model::schedule`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_waiting_integer: Option<f64>,
    /// The store-to-load pairs through a pointer loaded again before each access (the
    /// `forward_reloaded` class) the core renames at no latency in one loop: its
    /// predictor of a loop's pairs holds this many, and a loop with more waits
    /// `forward_reloaded`'s latency at each. `None` in profiles made before the field
    /// (then every such pair is priced as `forward_int`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forwarding_pairs: Option<f64>,
    /// The extra latency, ns, of a value passed between two groups of floating-point
    /// units on a chain (an add feeding a multiply, or a multiply an add or a vector
    /// logic instruction: `augur_ir::incore::BypassGroup`), measured as a chain of adds
    /// and multiplies in turn less their own latencies, per crossing (the Xeon guest of
    /// 2026-12-05: about half a cycle). `None` in profiles made before the field
    /// (then no crossing costs anything).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crossing_ns: Option<f64>,
    /// What a scalar multiply costs beyond its latency when its operand and result are
    /// subnormal numbers, ns (a chain of them less the multiply's latency: the Xeon guest
    /// of 2026-12-05, a microcode assist of 120-121 cycles). No prediction prices it
    /// (a program profile says only whether its arithmetic met such numbers); `predict`
    /// quotes it. `None` in profiles made before the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subnormal_ns: Option<f64>,
}

/// What one instruction of a class costs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct ClassCost {
    /// From its operands ready to its result ready, ns (a chain of dependent
    /// instructions of the class).
    pub latency_ns: f64,
    /// Its reciprocal throughput, ns (independent instructions of the class back to
    /// back, as many chains as the core overlaps).
    pub throughput_ns: f64,
    /// A chain's latency per instruction of the class when one independent
    /// floating-point add of the same width issues beside each of them, ns: where the
    /// core's scheduler lets the add take the pipe the chain waits for (a Zen 5's
    /// `maxsd` chain: 2 cycles alone, 2.3-2.5 beside one `addsd`; its `addsd` chain: 2
    /// either way). `None` when not measured (integer classes, profiles made before the
    /// field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beside_add_ns: Option<f64>,
}

impl InCoreProfile {
    /// The cost of `cw`, or of the same class at the scalar width when its width was
    /// not measured (a vector instruction issues as one); a minimum or maximum not
    /// measured (profiles made before its class) costs an add, as it was counted, and a
    /// widening forwarding not measured waits as long as a forwarding that no core
    /// renames (`forward`'s latency) and takes its turns as an integer one
    /// (`forward_int`'s throughput), and a 64-bit divide not measured costs what
    /// `int_div` measured (those profiles timed it with 64-bit operands); else `None`.
    pub fn cost(&self, cw: ClassWidth) -> Option<ClassCost> {
        let own = |class| {
            self.class
                .get(&ClassWidth::new(class, cw.width).key())
                .copied()
                .or_else(|| {
                    self.class
                        .get(&ClassWidth::new(class, Default::default()).key())
                        .copied()
                })
        };
        use augur_ir::incore::InstrClass;
        own(cw.class).or_else(|| match cw.class {
            InstrClass::FpMinMax => own(InstrClass::FpAdd),
            InstrClass::ForwardExt => {
                let (waits, turns) = (own(InstrClass::Forward)?, own(InstrClass::ForwardInt)?);
                Some(ClassCost {
                    latency_ns: waits.latency_ns,
                    throughput_ns: turns.throughput_ns,
                    beside_add_ns: None,
                })
            }
            // Profiles made before it: priced as the slot's own reload was.
            InstrClass::ForwardReloaded => own(InstrClass::ForwardInt),
            // Profiles made before the 64-bit divide had its own class timed their
            // `int_div` with 64-bit operands.
            InstrClass::IntDiv64 => own(InstrClass::IntDiv),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use augur_ir::incore::{InstrClass, Width};

    #[test]
    fn a_class_not_measured_falls_back_to_its_scalar_width_or_an_add() {
        let mut p = InCoreProfile::default();
        let add = ClassCost {
            latency_ns: 0.8,
            throughput_ns: 0.13,
            beside_add_ns: None,
        };
        p.class.insert("fp_add".into(), add);
        // A 256-bit add measured only at the scalar width issues as one.
        assert_eq!(
            p.cost(ClassWidth::new(InstrClass::FpAdd, Width::V256)),
            Some(add)
        );
        // A maximum in a profile made before its class costs an add, as it was counted.
        assert_eq!(
            p.cost(ClassWidth::new(InstrClass::FpMinMax, Width::Scalar)),
            Some(add)
        );
        let max = ClassCost {
            latency_ns: 0.54,
            throughput_ns: 0.13,
            beside_add_ns: None,
        };
        p.class.insert("fp_min_max".into(), max);
        assert_eq!(
            p.cost(ClassWidth::new(InstrClass::FpMinMax, Width::V128)),
            Some(max)
        );
        assert_eq!(
            p.cost(ClassWidth::new(InstrClass::FpMul, Width::Scalar)),
            None
        );
    }

    #[test]
    fn a_64_bit_divide_not_measured_costs_the_divide_the_profile_timed() {
        let mut p = InCoreProfile::default();
        let old = ClassCost {
            latency_ns: 2.44,
            throughput_ns: 1.91,
            beside_add_ns: None,
        };
        p.class.insert("int_div".into(), old);
        let wide = ClassWidth::new(InstrClass::IntDiv64, Width::Scalar);
        assert_eq!(p.cost(wide), Some(old));
        let measured = ClassCost {
            latency_ns: 2.44,
            throughput_ns: 1.63,
            beside_add_ns: None,
        };
        p.class.insert("int_div".into(), measured);
        p.class.insert("int_div64".into(), old);
        assert_eq!(p.cost(wide), Some(old));
        assert_eq!(
            p.cost(ClassWidth::new(InstrClass::IntDiv, Width::Scalar)),
            Some(measured)
        );
    }

    #[test]
    fn a_widening_forwarding_not_measured_waits_as_a_forwarding_not_renamed() {
        let mut p = InCoreProfile::default();
        let renamed = ClassCost {
            latency_ns: 0.0,
            throughput_ns: 0.22,
            beside_add_ns: None,
        };
        let forwarded = ClassCost {
            latency_ns: 2.43,
            throughput_ns: 0.09,
            beside_add_ns: None,
        };
        p.class.insert("forward_int".into(), renamed);
        let ext = ClassWidth::new(InstrClass::ForwardExt, Width::Scalar);
        assert_eq!(p.cost(ext), None);
        p.class.insert("forward".into(), forwarded);
        let fallback = p.cost(ext).unwrap();
        assert_eq!((fallback.latency_ns, fallback.throughput_ns), (2.43, 0.22));
        let measured = ClassCost {
            latency_ns: 2.1,
            throughput_ns: 0.09,
            beside_add_ns: None,
        };
        p.class.insert("forward_ext".into(), measured);
        assert_eq!(p.cost(ext), Some(measured));
    }
}
