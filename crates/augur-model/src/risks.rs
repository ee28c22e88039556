//! Risk flags: the loops whose code an optimization augur does not model is likely to
//! change, so that a user knows where a prediction's error may come from.
//!
//! The program profile names what is there (`augur_ir::opportunities`: loop-invariant
//! operations, repeated subexpressions, a nest walking arrays across columns) and what
//! the compiler said it did beyond what the predictor models (the report's partial
//! unrolling, interchange, distribution, unswitching). The machine profile's detection
//! table (`[optimizations]`) says whether the compiler with its flags applies each
//! optimization: a `no` drops the flag; without a table every flag is conditional ("if
//! the compiler applies"). What the predictor does model from the report (vectorized
//! loops, complete unrolling, inlined calls, branch-free lines) is not flagged.

use crate::breakdown::loop_name;
use crate::cost::optimizing;
use augur_ir::opportunities::{Opportunity, OpportunityKind};
use augur_machine_profile::MachineProfile;
use augur_program_profile::optreport::OptReport;
use augur_program_profile::{LoopProfile, ProgramProfile, UnitProfile};
use serde::Serialize;

/// One loop at risk from one optimization.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RiskFlag {
    /// The loop, as the `--by loop` rows name it (`unit loop 2 (line 40)`).
    pub loop_name: String,
    /// Its file.
    pub file: String,
    /// Line of its DO.
    pub line: u32,
    /// The optimization's key in the detection table (`code_motion`, `cse`,
    /// `interchange`), or `report` for what the compiler reported.
    pub optimization: String,
    /// `local`, `global` or `-`.
    pub scope: String,
    /// The detection table's rating (`yes`, `partial`, `marginal`, `inconclusive`,
    /// `not tested`); `None` without a table; `reported` for the compiler's report.
    pub rating: Option<String>,
    /// Share of the loop's operations the optimization would remove, when it removes
    /// counted operations.
    pub share: Option<f64>,
    /// Why, in a sentence.
    pub reason: String,
}

/// The risk flags of one prediction.
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Risks {
    /// The flags, in program order.
    pub flags: Vec<RiskFlag>,
    /// Set when the machine profile has no detection table: what to run for one.
    pub note: Option<String>,
}

/// The risk flags of `program` on `machine`; `report` is the program's optimization
/// report when it is for the machine's compiler and flags.
pub fn risks(
    program: &ProgramProfile,
    machine: &MachineProfile,
    report: Option<&OptReport>,
) -> Risks {
    let table = Table { machine };
    let statics = machine.optimizations.is_some() || optimizing(&machine.provenance.fflags);
    let mut flags = vec![];
    for u in &program.units {
        for l in &u.loops {
            if statics {
                flags.extend(static_flags(u, l, &table));
            }
            flags.extend(report_flags(u, l, report));
        }
    }
    let note = machine.optimizations.is_none().then(|| {
        let how = if machine.provenance.source.is_empty() {
            "run `augur characterize --optimizations` for one"
        } else {
            "a historical machine: its publication has none"
        };
        format!(
            "the machine profile has no optimization detection table: the flags say \"if the \
             compiler applies\" ({how})"
        )
    });
    Risks { flags, note }
}

/// The machine's detection table.
pub(crate) struct Table<'a> {
    /// The machine.
    pub machine: &'a MachineProfile,
}

impl Table<'_> {
    /// `None` without a table, else the rating (`not tested` when the table lacks it).
    pub(crate) fn rating(&self, key: &str, scope: &str) -> Option<String> {
        let t = self.machine.optimizations.as_ref()?;
        Some(
            t.summary(key, scope)
                .map(|s| s.rating.clone())
                .unwrap_or_else(|| "not tested".into()),
        )
    }
}

/// The table key and the words for an opportunity's optimization.
pub(crate) fn optimization_of(kind: OpportunityKind) -> (&'static str, &'static str) {
    match kind {
        OpportunityKind::Invariant => ("code_motion", "code motion of invariants"),
        OpportunityKind::CommonSubexpression => ("cse", "common-subexpression elimination"),
        OpportunityKind::StridedNest => ("interchange", "loop interchange"),
    }
}

/// The loop's opportunities grouped by kind and scope, in the order first found.
pub(crate) fn opportunity_groups(l: &LoopProfile) -> Vec<OpportunityGroup<'_>> {
    let mut groups: Vec<OpportunityGroup> = vec![];
    for o in &l.opportunities {
        match groups
            .iter_mut()
            .find(|(k, s, _)| *k == o.kind && *s == o.scope)
        {
            Some(g) => g.2.push(o),
            None => groups.push((o.kind, &o.scope, vec![o])),
        }
    }
    groups
}

/// Opportunities of one kind and scope.
pub(crate) type OpportunityGroup<'a> = (OpportunityKind, &'a str, Vec<&'a Opportunity>);

/// One flag per kind and scope of the loop's opportunities, unless the table says `no`.
fn static_flags(u: &UnitProfile, l: &LoopProfile, table: &Table) -> Vec<RiskFlag> {
    opportunity_groups(l)
        .into_iter()
        .filter_map(|(kind, scope, ops)| {
            let (key, words) = optimization_of(kind);
            let rating = table.rating(key, scope);
            if rating.as_deref() == Some("no") {
                return None;
            }
            let share = removed_share(u, l, &ops);
            let reason = format!(
                "{}; {}",
                what(kind, &ops, share),
                applies(words, scope, rating.as_deref())
            );
            Some(RiskFlag {
                loop_name: loop_name(u, l),
                file: u.file.clone(),
                line: l.line,
                optimization: key.into(),
                scope: scope.into(),
                rating,
                share,
                reason,
            })
        })
        .collect()
}

/// What the compiler's rating means for the flag.
fn applies(words: &str, scope: &str, rating: Option<&str>) -> String {
    let scope = if scope == "-" {
        String::new()
    } else {
        format!(" ({scope})")
    };
    match rating {
        None => format!("if the compiler applies {words}{scope}"),
        Some(r) => format!("the detection table rates {words}{scope} `{r}`"),
    }
}

/// The operations the opportunities would remove, as a share of the loop's (from the
/// executions of the blocks they are in); `None` when they remove none or the loop ran
/// none.
pub(crate) fn removed_share(u: &UnitProfile, l: &LoopProfile, ops: &[&Opportunity]) -> Option<f64> {
    let whole = l.totals.total();
    let removed: f64 = ops
        .iter()
        .map(|o| {
            let mu = u
                .blocks
                .iter()
                .find(|b| b.id == o.block)
                .and_then(|b| b.executions)
                .unwrap_or(0.0);
            mu * o.saved.total()
        })
        .sum();
    (whole > 0.0 && removed > 0.0).then(|| (removed / whole).min(1.0))
}

/// The finding in words.
pub(crate) fn what(kind: OpportunityKind, ops: &[&Opportunity], share: Option<f64>) -> String {
    let first = ops.first().map(|o| (o.text.as_str(), o.line));
    let (text, line) = first.unwrap_or(("", 0));
    let more = match ops.len() {
        0 | 1 => String::new(),
        n => format!(" and {} more", n - 1),
    };
    let pct = share
        .map(|s| format!(", {:.1}% of the loop's operations", 100.0 * s))
        .unwrap_or_default();
    match kind {
        OpportunityKind::Invariant => format!(
            "loop-invariant `{text}` (line {line}){more} counted every iteration{pct}: \
             hoisted out of the loop, they run once (over-prediction)"
        ),
        OpportunityKind::CommonSubexpression => format!(
            "`{text}` computed again (line {line}){more}{pct}: its earlier value reused \
             (over-prediction)"
        ),
        OpportunityKind::StridedNest => format!(
            "walks {text} along a non-contiguous dimension while the loop at line {} \
             indexes the contiguous one: interchanged, the nest runs along columns \
             (its memory time over-predicted)",
            ops.first().and_then(|o| o.outer_line).unwrap_or(0)
        ),
    }
}

/// What the compiler reported doing to the loop that the predictor does not model.
fn report_flags(u: &UnitProfile, l: &LoopProfile, report: Option<&OptReport>) -> Vec<RiskFlag> {
    let Some(r) = report else {
        return vec![];
    };
    r.transformed_at(&u.file, l.line)
        .into_iter()
        .map(|t| RiskFlag {
            loop_name: loop_name(u, l),
            file: u.file.clone(),
            line: l.line,
            optimization: "report".into(),
            scope: "-".into(),
            rating: Some("reported".into()),
            share: None,
            reason: format!(
                "the compiler reports the loop {}, which augur does not model (it counts \
                 the loop as written)",
                t.what
            ),
        })
        .collect()
}
