//! Every `--json` document of the real binary says its `kind` and `schema` and validates
//! against its published schema, `docs/schemas/KIND.schema.json`, which is exactly what
//! `augur schema KIND` prints.
//!
//! The predictions, comparisons and the ranking read checked-in program profiles
//! (`tests/fixtures/schemas/`: `augur analyze tiny.f90`, `augur analyze omp.f90 --threads
//! 1,2` and `augur analyze ring.f90 --mpi-ranks 1,2`, each `-o NAME.json`, beside
//! their sources) and need no compiler, nor does the size sweep, which reads a profile of
//! `augur analyze --scale` checked in with its measurements
//! (`measurements/scaling-zen3-2026-11-26/corpus/jacobi77.scaled.json`); the MPI prediction needs SimGrid's `smpirun`. The
//! validations and `bench misses` build and run programs: without their tools (gfortran;
//! OpenMPI and SimGrid; valgrind) those tests check only that the schema file parses as a
//! draft 2020-12 schema, and say so.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The checked-in profiles and their sources.
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schemas")
}

/// The standard output of `augur ARGS` run in `dir`, which must succeed.
fn augur(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_augur"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "augur {args:?}: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The published schema of `kind`, checked to be a valid draft 2020-12 schema.
fn schema_file(kind: &str) -> Value {
    let path = repo().join(format!("docs/schemas/{kind}.schema.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let schema: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
        "{kind}"
    );
    if let Err(e) = jsonschema::meta::validate(&schema) {
        panic!("{kind}: not a valid schema: {e}");
    }
    schema
}

/// `output`, one JSON document, is a `kind` document valid against its published schema.
fn check(kind: &str, output: &str) {
    let doc: Value = serde_json::from_str(output).unwrap_or_else(|e| panic!("{e}: {output}"));
    assert_eq!(doc["kind"], kind, "{output}");
    assert!(doc["schema"].is_u64(), "{output}");
    let validator = jsonschema::draft202012::new(&schema_file(kind)).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{kind}: {}", errors.join("\n"));
}

#[test]
fn a_document_that_breaks_its_schema_is_refused() {
    let args = [
        "rank",
        "tiny.json",
        "-m",
        "gfortran12-O2-epyc-2core",
        "--json",
    ];
    let mut doc: Value = serde_json::from_str(&augur(&fixtures(), &args)).unwrap();
    let validator = jsonschema::draft202012::new(&schema_file("augur-ranking")).unwrap();
    assert!(validator.is_valid(&doc));
    doc["scores"][0]["geometric_mean"] = "fast".into();
    assert!(!validator.is_valid(&doc));
    doc["kind"] = "augur-prediction".into();
    doc.as_object_mut().unwrap().remove("scores");
    assert_eq!(validator.iter_errors(&doc).count(), 2, "{doc}");
}

/// Fails `test` naming `tool` when it is not on PATH (CI installs every one of them):
/// these kinds are made only by a real compiler, launcher or simulator.
fn need(tool: &str, test: &str) {
    let found = std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()));
    assert!(
        found,
        "{test} needs `{tool}` on PATH: install it (scripts/setup.sh installs every tool the tests use)"
    );
}

#[test]
fn the_schema_files_are_what_augur_schema_prints() {
    let list = augur(&repo(), &["schema"]);
    let kinds: Vec<&str> = list.lines().filter_map(|l| l.split(' ').next()).collect();
    assert_eq!(kinds.len(), 16, "{list}");
    for kind in &kinds {
        let path = repo().join(format!("docs/schemas/{kind}.schema.json"));
        let file = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        assert!(
            file == augur(&repo(), &["schema", kind]),
            "{} differs from `augur schema {kind}`: regenerate it (docs/FORMATS.md)",
            path.display()
        );
        schema_file(kind);
    }
    // No file of a kind that is gone; the short name is the same kind.
    let files = std::fs::read_dir(repo().join("docs/schemas"))
        .unwrap()
        .count();
    assert_eq!(files, kinds.len());
    assert_eq!(
        augur(&repo(), &["schema", "ranking"]),
        augur(&repo(), &["schema", "augur-ranking"])
    );
}

#[test]
fn static_analysis() {
    let out = augur(
        &repo(),
        &["analyze", "--static", "--json", "examples/heat2d.f90"],
    );
    check("augur-static-analysis", &out);
}

#[test]
fn predictions_on_machines_side_by_side_with_the_loop_speedups() {
    let args = [
        "predict",
        "tiny.json",
        "omp.json",
        "--weights",
        "2,1",
        "-m",
        "gfortran12-O0-epyc-2core",
        "-m",
        "gfortran12-O2-epyc-2core",
        "--json",
    ];
    check("augur-prediction", &augur(&fixtures(), &args));
    let one = [&args[..2], &args[5..], &["--by", "loop"][..]].concat();
    let out = augur(&fixtures(), &one);
    assert!(out.contains("\"speedup\""), "{out}");
    check("augur-prediction", &out);
}

#[test]
fn thread_prediction() {
    let machine = repo().join("measurements/openmp-zen3-2026-11-26-b/zen3-O2-openmp.toml");
    let args = ["predict", "omp.json", "--threads", "1,2", "--json"];
    let out = augur(
        &fixtures(),
        &[&args[..], &["-m", machine.to_str().unwrap()][..]].concat(),
    );
    check("augur-thread-prediction", &out);
}

#[test]
fn size_sweep() {
    let profile = repo().join("measurements/scaling-zen3-2026-11-26/corpus/jacobi77.scaled.json");
    let args = ["predict", profile.to_str().unwrap(), "--at", "n=48..200"];
    let machines = [
        "-m",
        "gfortran12-O0-epyc-2core",
        "-m",
        "gfortran12-O2-epyc-2core",
    ];
    let out = augur(
        &repo(),
        &[&args[..], &machines[..], &["--json"][..]].concat(),
    );
    check("augur-size-sweep", &out);
    let doc: Value = serde_json::from_str(&out).unwrap();
    let sizes = doc["sizes"].as_array().unwrap();
    assert_eq!(sizes[0]["value"], 48, "{out}");
    assert_eq!(sizes.last().unwrap()["value"], 200, "{out}");
    assert!(sizes
        .iter()
        .all(|s| s["predictions"].as_array().unwrap().len() == 2));
    // One size is an ordinary prediction.
    let one = [
        "predict",
        profile.to_str().unwrap(),
        "--at",
        "n=200",
        "--json",
    ];
    check(
        "augur-prediction",
        &augur(&repo(), &[&one[..], &machines[..2]].concat()),
    );
}

#[test]
fn machines() {
    let out = augur(&repo(), &["machines", "--json"]);
    check("augur-machines", &out);
    let doc: Value = serde_json::from_str(&out).unwrap();
    let all = doc["machines"].as_array().unwrap();
    let named = |n: &str| {
        all.iter()
            .find(|m| m["name"] == n)
            .unwrap_or_else(|| panic!("{n}: {out}"))
    };
    assert_eq!(named("gfortran12-O2-epyc-2core")["historical"], false);
    assert_eq!(named("cray-2")["historical"], true);
    assert_eq!(named("cray-2")["this_host_cpu"], false);
    // As many as the text lists, one line each under its heading.
    let text = augur(&repo(), &["machines"]);
    let lines = text.lines().filter(|l| l.starts_with("  ")).count();
    assert_eq!(all.len(), lines, "{text}");
}

#[test]
fn rank_prediction() {
    need("smpirun", "rank_prediction");
    let machine = repo().join("measurements/mpi-zen3-2026-11-26/zen3-O2-mpi.toml");
    let args = ["predict", "ring.json", "--mpi-ranks", "2", "--json"];
    let out = augur(
        &fixtures(),
        &[&args[..], &["-m", machine.to_str().unwrap()][..]].concat(),
    );
    check("augur-rank-prediction", &out);
}

#[test]
fn rank_sweep() {
    need("smpirun", "rank_sweep");
    let machine = repo().join("measurements/mpi-zen3-2026-11-26/zen3-O2-mpi.toml");
    let args = ["predict", "ring.json", "--mpi-ranks", "1,2", "--json"];
    let out = augur(
        &fixtures(),
        &[&args[..], &["-m", machine.to_str().unwrap()][..]].concat(),
    );
    check("augur-rank-sweep", &out);
}

#[test]
fn comparisons_and_ranking() {
    let machines = [
        "-m",
        "gfortran12-O0-epyc-2core",
        "-m",
        "gfortran12-O2-epyc-2core",
        "--json",
    ];
    let profiles = ["tiny.json", "omp.json"];
    for (kind, command) in [
        ("augur-program-comparison", &["compare", "programs"][..]),
        ("augur-compiler-comparison", &["compare", "compilers"][..]),
        ("augur-ranking", &["rank"][..]),
    ] {
        let out = augur(
            &fixtures(),
            &[command, &profiles[..], &machines[..]].concat(),
        );
        check(kind, &out);
    }
    let historical = ["compare", "machines", "cray-y-mp-832", "cray-x-mp-432"];
    let out = augur(&repo(), &[&historical[..], &["--json"][..]].concat());
    check("augur-machine-comparison", &out);
}

/// `augur validate` of a fixture's source in a scratch directory: the output.
fn validate(source: &str, args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixtures().join(source), dir.path().join(source)).unwrap();
    let runs = ["validate", source, "--runs", "1", "--json"];
    augur(dir.path(), &[&runs[..], args].concat())
}

#[test]
fn validation() {
    need("gfortran", "validation");
    let out = validate("tiny.f90", &["-m", "gfortran12-O2-epyc-2core"]);
    check("augur-validation", &out);
}

#[test]
fn thread_validation() {
    need("gfortran", "thread_validation");
    let machine = repo().join("measurements/openmp-zen3-2026-11-26-b/zen3-O2-openmp.toml");
    let out = validate(
        "omp.f90",
        &["--threads", "1,2", "-m", machine.to_str().unwrap()],
    );
    check("augur-thread-validation", &out);
}

#[test]
fn rank_validation() {
    let tools = ["mpif90", "mpirun", "smpirun"];
    for t in tools {
        need(t, "rank_validation");
    }
    let machine = repo().join("measurements/mpi-zen3-2026-11-26/zen3-O2-mpi.toml");
    let out = validate(
        "ring.f90",
        &["--mpi-ranks", "1,2", "-m", machine.to_str().unwrap()],
    );
    check("augur-rank-validation", &out);
}

#[test]
fn cache_misses() {
    need("gfortran", "cache_misses");
    need("valgrind", "cache_misses");
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixtures().join("tiny.f90"), dir.path().join("tiny.f90")).unwrap();
    std::fs::write(
        dir.path().join("corpus.toml"),
        "[[program]]\nname = \"tiny\"\nfiles = [\"tiny.f90\"]\n",
    )
    .unwrap();
    let args = ["bench", "misses", "--manifest", "corpus.toml", "--json"];
    let out = augur(dir.path(), &[&args[..], &["--only", "tiny"][..]].concat());
    check("augur-cache-misses", &out);
}
