//! The 17 reduced parameters of Saavedra-Barrera's Table 2.5: weighted sums of AbOp costs,
//! each a dimension of a machine's performance shape.
//!
//! Table 2.5's mnemonics are Saavedra's; three differ from the catalogue's: `CALL` is
//! [`AbOp::PROC`], `ARGU` is [`AbOp::ARGL`], and `CDRL` (a typo) is [`AbOp::CRDL`].
//!
//! **Missing measurements.** A component whose entry is `not detected` costs 0 (the
//! thesis's `1<`: the operation was overlapped; Appendix 2.C's CRAY Y-MP pipelining, 40.6
//! ns = 0.1 × GCOM, shows it counted as 0). A component with no usable cost (`failed`,
//! `noisy`, `not yet measured`, `not measurable`, `not published`) is left out and the
//! weights of the others are renormalized to the parameter's total weight; the reduced
//! value says which components it lacks ([`Reduced::notes`]). The two memory-bandwidth
//! parameters are half the mean of their *detected* transfer times (a transfer is a load
//! and a store): Appendix 2.C's values for the CRAY-2 and the Sun 3/260, whose TRDL and
//! TCSG are `1<`, are the mean over the other three.

use augur_ir::AbOp;
use augur_machine_profile::{MachineProfile, MEASURED, NOT_DETECTED};
use serde::Serialize;

/// One reduced parameter: its number and name in Table 2.5 and its weighted AbOps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReducedParameter {
    /// 1-17, as in Table 2.5 and Appendix 2.C.
    pub number: usize,
    /// The thesis's name.
    pub name: &'static str,
    /// A short label for tables and graphs.
    pub short: &'static str,
    /// The AbOps and their weights.
    pub components: &'static [(AbOp, f64)],
    /// Memory bandwidth: half the mean of the detected components (see the module).
    pub memory: bool,
}

use AbOp::*;

const SIXTH: f64 = 1.0 / 6.0;

/// Table 2.5's 17 reduced parameters. Intrinsics (single) are weighted 1/6 each (the
/// table prints .166; Appendix 2.C's values are the mean of the six).
#[rustfmt::skip]
pub const PARAMETERS: [ReducedParameter; 17] = [
    p(1, "memory bandwidth (single)", "mem sgl", &[(TRSL, 0.25), (TISL, 0.25), (TRSG, 0.25), (TISG, 0.25)], true),
    p(2, "memory bandwidth (double)", "mem dbl", &[(TCSL, 0.25), (TRDL, 0.25), (TCSG, 0.25), (TRDG, 0.25)], true),
    p(3, "integer addition", "int add", &[(AISL, 0.5), (AISG, 0.5)], false),
    p(4, "integer multiplication", "int mul", &[(MISL, 0.5), (MISG, 0.5)], false),
    p(5, "integer arithmetic", "int arith", &[(DISL, 0.4), (DISG, 0.4), (EISL, 0.09), (EISG, 0.09), (XISL, 0.01), (XISG, 0.01)], false),
    p(6, "floating-point addition (single)", "fp add", &[(ARSL, 0.5), (ARSG, 0.5)], false),
    p(7, "floating-point multiplication (single)", "fp mul", &[(MRSL, 0.5), (MRSG, 0.5)], false),
    p(8, "floating-point arithmetic (single)", "fp arith", &[(DRSL, 0.4), (DRSG, 0.4), (ERSL, 0.09), (ERSG, 0.09), (XRSL, 0.01), (XRSG, 0.01)], false),
    p(9, "complex arithmetic", "complex", &[(ACSL, 0.325), (ACSG, 0.325), (MCSL, 0.125), (MCSG, 0.125), (DCSL, 0.04), (DCSG, 0.04), (ECSL, 0.008), (ECSG, 0.008), (XCSL, 0.002), (XCSG, 0.002)], false),
    p(10, "double precision arithmetic", "double", &[(ARDL, 0.325), (ARDG, 0.325), (MRDL, 0.125), (MRDG, 0.125), (DRDL, 0.04), (DRDG, 0.04), (ERDL, 0.008), (ERDG, 0.008), (XRDL, 0.002), (XRDG, 0.002)], false),
    p(11, "intrinsic functions (single)", "intr sgl", &[(LOGS, SIXTH), (EXPS, SIXTH), (SINS, SIXTH), (TANS, SIXTH), (SQRS, SIXTH), (MODS, SIXTH)], false),
    p(12, "intrinsic functions (double)", "intr dbl", &[(LOGC, 0.1), (EXPC, 0.1), (SINC, 0.1), (SQRC, 0.1), (LOGD, 0.1), (EXPD, 0.1), (SIND, 0.1), (SQRD, 0.1), (TAND, 0.1), (MODD, 0.1)], false),
    p(13, "logical operations", "logical", &[(ANDL, 0.25), (CRSL, 0.25), (CISL, 0.25), (CRDL, 0.125), (CCSL, 0.125)], false),
    p(14, "pipelining (branches)", "branch", &[(GOTO, 0.9), (GCOM, 0.1)], false),
    p(15, "procedure calls", "call", &[(PROC, 0.75), (ARGL, 0.25)], false),
    p(16, "address computation", "address", &[(ARR1, 0.6), (ARR2, 0.3), (ARR3, 0.1)], false),
    p(17, "iteration (DO loops)", "loop", &[(LOIN, 0.06), (LOIX, 0.03), (LOOV, 0.605), (LOOX, 0.305)], false),
];

const fn p(
    number: usize,
    name: &'static str,
    short: &'static str,
    components: &'static [(AbOp, f64)],
    memory: bool,
) -> ReducedParameter {
    ReducedParameter {
        number,
        name,
        short,
        components,
        memory,
    }
}

/// A machine's 17 reduced parameters, in ns, with what each lacked.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Reduced {
    /// Parameter `i + 1`'s value in ns; `None` when none of its components has a cost.
    pub values: Vec<Option<f64>>,
    /// One line per parameter computed without some of its components, naming them and
    /// their status.
    pub notes: Vec<String>,
}

/// What one component contributes: a cost in ns (0 when not detected) or nothing.
fn component_cost(profile: &MachineProfile, op: AbOp, memory: bool) -> Result<f64, String> {
    let entry = profile.abop.get(&op);
    match entry.map(|e| (e.status.as_str(), e.mean_ns)) {
        Some((MEASURED, Some(m))) => Ok(m.max(0.0)),
        Some((NOT_DETECTED, _)) if !memory => Ok(0.0),
        Some((status, _)) => Err(format!(
            "{op} ({})",
            status.split(':').next().unwrap_or(status)
        )),
        None => Err(format!("{op} (absent)")),
    }
}

/// One reduced parameter of a profile, with the components it lacked.
pub fn reduce_one(
    profile: &MachineProfile,
    param: &ReducedParameter,
) -> (Option<f64>, Vec<String>) {
    let total: f64 = param.components.iter().map(|c| c.1).sum();
    let (mut sum, mut present) = (0.0, 0.0);
    let mut lacking = vec![];
    for &(op, w) in param.components {
        match component_cost(profile, op, param.memory) {
            Ok(c) => {
                sum += w * c;
                present += w;
            }
            Err(why) => lacking.push(why),
        }
    }
    if present <= 0.0 {
        return (None, lacking);
    }
    let scale = if param.memory { 0.5 } else { 1.0 };
    (Some(scale * sum * total / present), lacking)
}

/// The 17 reduced parameters of a machine profile.
pub fn reduce(profile: &MachineProfile) -> Reduced {
    let mut values = Vec::with_capacity(PARAMETERS.len());
    let mut notes = vec![];
    for param in &PARAMETERS {
        let (v, lacking) = reduce_one(profile, param);
        if !lacking.is_empty() {
            let how = if v.is_some() {
                "weights renormalized over the others"
            } else {
                "no component has a cost: left out of distances"
            };
            notes.push(format!(
                "{} ({}): without {}; {how}",
                param.number,
                param.name,
                lacking.join(", ")
            ));
        }
        values.push(v);
    }
    Reduced { values, notes }
}

#[cfg(test)]
mod tests {
    use super::*;
    use augur_machine_profile::{AbOpEntry, Provenance};

    fn profile(costs: &[(AbOp, &str, f64)]) -> MachineProfile {
        let mut p = MachineProfile::new(Provenance::default());
        for &(op, status, ns) in costs {
            let mut e = AbOpEntry::status(status);
            e.mean_ns = Some(ns);
            p.abop.insert(op, e);
        }
        p
    }

    #[test]
    fn weights_of_each_parameter_sum_to_one() {
        for param in &PARAMETERS {
            let total: f64 = param.components.iter().map(|c| c.1).sum();
            assert!((total - 1.0).abs() < 1e-9, "{}: {total}", param.name);
        }
    }

    #[test]
    fn memory_bandwidth_is_half_the_mean_of_detected_transfers() {
        let p = profile(&[
            (TCSL, MEASURED, 199.0),
            (TRDL, NOT_DETECTED, 0.0),
            (TCSG, MEASURED, 512.0),
            (TRDG, MEASURED, 302.0),
        ]);
        let (v, lacking) = reduce_one(&p, &PARAMETERS[1]);
        assert!((v.unwrap() - 1013.0 / 6.0).abs() < 1e-9);
        assert_eq!(lacking, ["TRDL (not detected)"]);
    }

    #[test]
    fn not_detected_costs_zero_and_failed_is_renormalized() {
        let p = profile(&[(GOTO, NOT_DETECTED, 0.0), (GCOM, MEASURED, 406.0)]);
        assert!((reduce_one(&p, &PARAMETERS[13]).0.unwrap() - 40.6).abs() < 1e-9);
        let p = profile(&[(GOTO, "failed: loop removed", 1.0), (GCOM, MEASURED, 406.0)]);
        let (v, lacking) = reduce_one(&p, &PARAMETERS[13]);
        assert!((v.unwrap() - 406.0).abs() < 1e-9);
        assert_eq!(lacking, ["GOTO (failed)"]);
        let r = reduce(&p);
        assert!(r.notes.iter().any(|n| n.starts_with("14 (pipelining")));
        assert_eq!(r.values[0], None, "no transfer measured");
    }
}
