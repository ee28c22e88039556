//! The architecture invariants of docs/ARCHITECTURE.md, enforced: reads every crate's
//! `Cargo.toml` and fails when an arrow between augur's crates points the wrong way (as
//! rust-analyzer's tidy tests do). A new crate must be placed in [`LAYERS`] first.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Each crate with the augur crates its `[dependencies]` may name.
const LAYERS: &[(&str, &[&str])] = &[
    ("augur-ir", &[]),
    ("augur-source", &["augur-ir"]),
    ("augur-fortran", &["augur-ir", "augur-source"]),
    // The formats: data crates, the IR at most.
    ("augur-program-profile", &["augur-ir"]),
    ("augur-machine-profile", &["augur-ir"]),
    // The only crate that starts processes; it reads and writes the formats.
    (
        "augur-toolchain",
        &["augur-program-profile", "augur-machine-profile"],
    ),
    ("augur-locality", &["augur-ir", "augur-program-profile"]),
    // Counts as functions of the size: math over the IR and the profile's model types.
    ("augur-scaling", &["augur-ir", "augur-program-profile"]),
    // Data distributions: owner-computes over the IR and the profile's counts, the
    // symbolic counts of augur-scaling; traces in the profile's MPI format.
    (
        "augur-distribution",
        &["augur-ir", "augur-program-profile", "augur-scaling"],
    ),
    // The program wing.
    (
        "augur-program",
        &[
            "augur-ir",
            "augur-source",
            "augur-fortran",
            "augur-program-profile",
            "augur-toolchain",
            "augur-locality",
            "augur-scaling",
            "augur-distribution",
        ],
    ),
    // The machine wing.
    (
        "augur-machine",
        &["augur-ir", "augur-machine-profile", "augur-toolchain"],
    ),
    (
        "augur-stream",
        &[
            "augur-ir",
            "augur-fortran",
            "augur-machine-profile",
            "augur-toolchain",
        ],
    ),
    (
        "augur-memory",
        &["augur-machine-profile", "augur-toolchain"],
    ),
    (
        "augur-openmp",
        &["augur-machine-profile", "augur-toolchain"],
    ),
    ("augur-mpi", &["augur-machine-profile", "augur-toolchain"]),
    // In-core kernels: the instruction classes' vocabulary, the profile, the assembler.
    (
        "augur-incore",
        &["augur-ir", "augur-machine-profile", "augur-toolchain"],
    ),
    (
        "augur-optimizations",
        &["augur-ir", "augur-machine-profile", "augur-toolchain"],
    ),
    // SimGrid: platforms from cluster files and measured networks; trace replay (traces
    // extrapolated to rank counts never traced by augur-scaling).
    (
        "augur-simgrid",
        &[
            "augur-machine-profile",
            "augur-program-profile",
            "augur-model",
            "augur-scaling",
            "augur-toolchain",
        ],
    ),
    // The predictor reads two files.
    (
        "augur-model",
        &[
            "augur-ir",
            "augur-program-profile",
            "augur-machine-profile",
            "augur-locality",
        ],
    ),
    (
        "augur-validate",
        &["augur-toolchain", "augur-machine-profile"],
    ),
    // Machine comparison (reduced parameters, pershapes, the thesis's machines): reads
    // machine profiles, never measures or predicts.
    ("augur-pershape", &["augur-ir", "augur-machine-profile"]),
    // Programs characterized and compared (Saavedra-Barrera, chapter 3): reads the
    // formats and prices them with the predictor; never builds or runs anything.
    (
        "augur-workload",
        &[
            "augur-ir",
            "augur-program-profile",
            "augur-machine-profile",
            "augur-model",
        ],
    ),
];

/// Crates that may use every crate above them (applications, not libraries others build on).
const APPLICATIONS: &[&str] = &["augur-bench", "augur"];

const PROGRAM_WING: &[&str] = &["augur-program"];
const MACHINE_WING: &[&str] = &[
    "augur-machine",
    "augur-stream",
    "augur-memory",
    "augur-openmp",
    "augur-mpi",
    "augur-optimizations",
    "augur-incore",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every workspace crate with the augur crates named in one section of its manifest.
fn manifests(section: &str) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(workspace().join("crates")).expect("crates/ is readable") {
        let manifest = entry.expect("a directory entry").path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        let doc: toml::Table = text
            .parse()
            .unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
        let name = doc["package"]["name"]
            .as_str()
            .expect("package.name")
            .to_string();
        let deps = doc
            .get(section)
            .and_then(|d| d.as_table())
            .map(|t| {
                t.keys()
                    .filter(|k| k.starts_with("augur"))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        out.insert(name, deps);
    }
    out
}

#[test]
fn every_crate_has_a_place_in_the_layers() {
    for name in manifests("dependencies").keys() {
        assert!(
            LAYERS.iter().any(|(n, _)| n == name) || APPLICATIONS.contains(&name.as_str()),
            "crate {name} is in no layer: place it in LAYERS (tests/architecture.rs) and in docs/ARCHITECTURE.md"
        );
    }
}

#[test]
fn arrows_point_only_where_the_layers_allow() {
    let mut wrong = vec![];
    for (name, deps) in manifests("dependencies") {
        let Some((_, allowed)) = LAYERS.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        for d in deps.iter().filter(|d| !allowed.contains(&d.as_str())) {
            wrong.push(format!("{name} -> {d}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "arrows the architecture forbids: {wrong:?}"
    );
}

#[test]
fn the_benchmarks_never_depend_on_the_binary() {
    if let Some(deps) = manifests("dependencies").get("augur-bench") {
        assert!(
            !deps.iter().any(|d| d == "augur"),
            "augur-bench depends on the binary"
        );
    }
}

#[test]
fn the_wings_never_import_each_other_not_even_in_tests() {
    for section in ["dependencies", "dev-dependencies"] {
        for (name, deps) in manifests(section) {
            let other: &[&str] = if PROGRAM_WING.contains(&name.as_str()) {
                MACHINE_WING
            } else if MACHINE_WING.contains(&name.as_str()) {
                PROGRAM_WING
            } else {
                continue;
            };
            for d in &deps {
                assert!(
                    !other.contains(&d.as_str()),
                    "{name} ({section}) imports {d} from the other wing"
                );
            }
        }
    }
}

#[test]
fn the_formats_and_the_model_never_depend_on_producers_or_processes() {
    let deps = manifests("dependencies");
    for format in ["augur-program-profile", "augur-machine-profile"] {
        assert!(
            deps[format].iter().all(|d| d == "augur-ir"),
            "{format} depends on {:?}: a format crate depends on augur-ir at most",
            deps[format]
        );
    }
    for d in &deps["augur-model"] {
        assert!(
            !["augur-toolchain", "augur-program", "augur-machine"].contains(&d.as_str()),
            "augur-model depends on {d}: the model reads two files, it never builds or runs"
        );
    }
}
