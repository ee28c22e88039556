//! The JSON documents augur prints (`--json`): each carries `schema` (its version) and
//! `kind` (what it is), and has a JSON Schema (draft 2020-12) generated from its Rust
//! type, printed by `augur schema KIND` and kept in `docs/schemas/KIND.schema.json`.

use anyhow::{bail, Result};
use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde::Serialize;
use std::process::ExitCode;

/// A document whose body has no `schema` and `kind` of its own: those two, then the
/// body's keys.
#[derive(Serialize, JsonSchema)]
pub struct Document<T> {
    /// The version of the document's layout.
    pub schema: u32,
    /// What the document is.
    pub kind: &'static str,
    /// The document's own keys.
    #[serde(flatten)]
    pub body: T,
}

impl<T> Document<T> {
    /// The document of `kind` (one of [`KINDS`]) with `body`'s keys.
    pub fn new(kind: &'static str, body: T) -> Document<T> {
        let schema = find(kind).expect("a kind of KINDS").version;
        Document { schema, kind, body }
    }
}

/// One kind of JSON document.
pub struct Kind {
    /// The `kind` key's value.
    pub name: &'static str,
    /// The `schema` key's value, raised on any incompatible change.
    pub version: u32,
    /// The command that prints it.
    pub command: &'static str,
    /// The schema of its Rust type.
    schema: fn() -> schemars::Schema,
}

/// The schema of `T` as it serializes.
fn of<T: JsonSchema>() -> schemars::Schema {
    SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
}

/// Every kind of JSON document augur prints.
pub const KINDS: &[Kind] = &[
    Kind {
        name: "augur-static-analysis",
        version: crate::static_report::STATIC_SCHEMA,
        command: "augur analyze --static --json",
        schema: of::<crate::static_report::StaticReport<'static>>,
    },
    Kind {
        name: "augur-prediction",
        version: 1,
        command: "augur predict --json",
        schema: of::<crate::predict::PredictionJson<'static>>,
    },
    Kind {
        name: "augur-thread-prediction",
        version: 1,
        command: "augur predict --threads P1,P2,... --json",
        schema: of::<Document<crate::threads::ThreadsJson<'static>>>,
    },
    Kind {
        name: "augur-rank-prediction",
        version: 1,
        command: "augur predict --mpi-ranks P --json",
        schema: of::<Document<crate::simgrid::RanksJson<'static>>>,
    },
    Kind {
        name: "augur-distribution-ranking",
        version: 1,
        command: "augur predict --procs P1,... --distribute-alt ... --json",
        schema: of::<Document<crate::distribution::RankingJson>>,
    },
    Kind {
        name: "augur-rank-sweep",
        version: 1,
        command: "augur predict --mpi-ranks P1,P2,... --json",
        schema: of::<Document<crate::rank_sweep::SweepJson<'static>>>,
    },
    Kind {
        name: "augur-size-sweep",
        version: 1,
        command: "augur predict --at NAME=FROM..TO --json",
        schema: of::<Document<crate::scale::SweepJson<'static>>>,
    },
    Kind {
        name: "augur-validation",
        version: 1,
        command: "augur validate --json",
        schema: of::<Document<augur_bench::validation::Validation>>,
    },
    Kind {
        name: "augur-thread-validation",
        version: 1,
        command: "augur validate --threads P1,P2,... --json",
        schema: of::<Document<augur_bench::threads::ThreadValidation>>,
    },
    Kind {
        name: "augur-rank-validation",
        version: 1,
        command: "augur validate --mpi-ranks P1,P2,... --json",
        schema: of::<Document<augur_bench::ranks::RankValidation>>,
    },
    Kind {
        name: "augur-machines",
        version: 1,
        command: "augur machines --json",
        schema: of::<Document<crate::cli::MachinesListJson>>,
    },
    Kind {
        name: "augur-machine-comparison",
        version: 1,
        command: "augur compare machines --json",
        schema: of::<Document<crate::compare::MachinesJson<'static>>>,
    },
    Kind {
        name: "augur-program-comparison",
        version: 1,
        command: "augur compare programs --json",
        schema: of::<Document<augur_workload::compare::Comparison>>,
    },
    Kind {
        name: "augur-compiler-comparison",
        version: 1,
        command: "augur compare compilers --json",
        schema: of::<Document<augur_workload::speedups::SpeedupTable>>,
    },
    Kind {
        name: "augur-ranking",
        version: 1,
        command: "augur rank --json",
        schema: of::<Document<augur_workload::compare::Ranking>>,
    },
    Kind {
        name: augur_bench::misses::KIND,
        version: augur_bench::misses::SCHEMA,
        command: "augur bench misses --json",
        schema: of::<augur_bench::misses::Doc<'static>>,
    },
];

/// The kind named `name`, with or without its `augur-` prefix.
pub fn find(name: &str) -> Option<&'static Kind> {
    KINDS
        .iter()
        .find(|k| k.name == name || k.name.strip_prefix("augur-") == Some(name))
}

impl Kind {
    /// The JSON Schema of this kind: its type's, titled, with `schema` and `kind` fixed.
    pub fn schema(&self) -> serde_json::Value {
        let mut s = (self.schema)();
        s.insert("title".into(), self.name.into());
        s.insert(
            "description".into(),
            format!(
                "What `{}` prints (kind {}, schema {}).",
                self.command, self.name, self.version
            )
            .into(),
        );
        if let Some(p) = s.get_mut("properties").and_then(|p| p.as_object_mut()) {
            p.insert(
                "schema".into(),
                serde_json::json!({"description": "The version of the document's layout, raised on any incompatible change.", "const": self.version}),
            );
            p.insert(
                "kind".into(),
                serde_json::json!({"description": "What the document is.", "const": self.name}),
            );
        }
        s.to_value()
    }
}

/// `augur schema [KIND]`: the kind's schema, or without one the list of kinds.
pub fn run(kind: Option<&str>) -> Result<ExitCode> {
    let Some(name) = kind else {
        for k in KINDS {
            println!(
                "{:<27} schema {}  {}  (docs/schemas/{}.schema.json)",
                k.name, k.version, k.command, k.name
            );
        }
        return Ok(ExitCode::SUCCESS);
    };
    let Some(k) = find(name) else {
        let names: Vec<&str> = KINDS.iter().map(|k| k.name).collect();
        bail!("no kind `{name}`; the kinds: {}", names.join(", "));
    };
    println!("{}", serde_json::to_string_pretty(&k.schema())?);
    Ok(ExitCode::SUCCESS)
}
