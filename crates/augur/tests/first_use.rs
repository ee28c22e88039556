//! What a new user sees (issue 41): the traps a first session with the command line fell
//! into, each checked on the real binary the way the user met it. The ones fixed earlier
//! have their tests beside their commands (cli.rs, predict.rs, completions.rs,
//! schemas.rs); these are the ones found still open.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn augur() -> Command {
    Command::new(env!("CARGO_BIN_EXE_augur"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The checked-in program profiles (tests/fixtures/schemas).
fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/schemas")
        .join(name)
}

/// A library machine measured with gfortran -O2: what the validations build with.
const GFORTRAN_O2: &str = "gfortran12-O2-epyc-2core";

/// `augur ARGS` run in `dir`.
fn run(dir: &Path, args: &[&str]) -> Output {
    augur().current_dir(dir).args(args).output().unwrap()
}

/// The standard error of `augur ARGS` in `dir`, which must fail with status 2 and no
/// panic.
fn failing(dir: &Path, args: &[&str]) -> String {
    let out = run(dir, args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "augur {args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.lines().all(|l| !l.starts_with("Error:")),
        "only lowercase `error:`: {err}"
    );
    err
}

/// The standard output of `augur ARGS` in `dir`, which must succeed.
fn succeeding(dir: &Path, args: &[&str]) -> String {
    let out = run(dir, args);
    assert!(
        out.status.success(),
        "augur {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Item 1: `-o/--output` is the program profile in `validate` as in `analyze`.
#[test]
fn validate_output_is_the_program_profile_as_in_analyze() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("tiny.f90"), dir.path().join("tiny.f90")).unwrap();
    let args = ["validate", "tiny.f90", "--runs", "1", "-m", GFORTRAN_O2];
    succeeding(
        dir.path(),
        &[&args[..], &["--output", "tiny.profile.json"][..]].concat(),
    );
    let text = std::fs::read_to_string(dir.path().join("tiny.profile.json")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["kind"], "augur-program-profile");
}

/// Item 2: a READ past the end of a data file (not standard input) is said as such, in
/// `analyze` and `validate`: the advice to give `--stdin` sent the user the wrong way.
#[test]
fn a_read_past_the_end_of_a_data_file_is_not_blamed_on_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("rd.f90"),
        "program rd\n  implicit none\n  integer :: n, m\n  open(10, file='data.txt', status='old')\n  read(10, *) n\n  read(10, *) m\n  print *, n + m\nend program rd\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("data.txt"), "5\n").unwrap();
    let analyze = failing(dir.path(), &["analyze", "rd.f90"]);
    let validate = failing(dir.path(), &["validate", "rd.f90", "-m", GFORTRAN_O2]);
    for err in [&analyze, &validate] {
        assert!(
            err.contains("a READ ran past the end of data.txt (unit 10)"),
            "{err}"
        );
        assert!(!err.contains("--stdin"), "{err}");
        assert!(err.contains("At line 6 of file rd.f90"), "{err}");
    }
    assert!(!dir.path().join("rd.profile.json").exists());
}

/// Item 3: a program that fails in `validate`'s counting run is said without the options
/// of another command (`--keep-partial`) or a profile `validate` never writes.
#[test]
fn validate_of_a_failing_program_names_only_what_validate_does() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("st.f90"),
        "program st\n  print *, 'hello from st'\n  stop 3\nend program st\n",
    )
    .unwrap();
    let err = failing(dir.path(), &["validate", "st.f90", "-m", GFORTRAN_O2]);
    assert!(err.contains("the program exited with status 3"), "{err}");
    assert!(err.contains("hello from st"), "its output: {err}");
    assert!(!err.contains("keep-partial"), "{err}");
    assert!(!err.contains("no profile was written"), "{err}");
}

/// Item 3: a timed run of the normal build that fails after the counting run succeeded
/// (here: the file the program creates with STATUS='NEW' is there from the counting run)
/// says so, what usually causes it, and shows the program's output.
#[test]
fn a_timed_run_that_fails_shows_the_programs_output() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("newf.f90"),
        "program newf\n  implicit none\n  integer :: i\n  real(8) :: s\n  s = 0\n  do i = 1, 100000\n    s = s + sqrt(dble(i))\n  end do\n  open(11, file='out.dat', status='new')\n  write(11, *) s\n  close(11)\n  print *, s\nend program newf\n",
    )
    .unwrap();
    let err = failing(
        dir.path(),
        &["validate", "newf.f90", "--runs", "1", "-m", GFORTRAN_O2],
    );
    assert!(
        err.contains("timed run 1 of the normal build (gfortran -O2"),
        "{err}"
    );
    assert!(err.contains("STATUS='NEW'"), "{err}");
    assert!(
        err.contains("run once more") && err.contains("File exists"),
        "the output of the failing run: {err}"
    );
    assert!(err.contains("At line 9 of file newf.f90"), "{err}");
}

/// Item 5: no advice writes into a profile of augur's library (nor into a source): a
/// missing section is measured into a copy, a historical profile into nothing; a source
/// or a library machine given as the program profile is named as what it is.
#[test]
fn no_advice_writes_into_the_library_or_a_source() {
    let dir = tempfile::tempdir().unwrap();
    let library = repo().join("machines").canonicalize().unwrap();
    let into_library = |err: &str| {
        err.split("-o ")
            .skip(1)
            .any(|rest| Path::new(rest.split(['`', ' ']).next().unwrap()).starts_with(&library))
    };
    let err = failing(dir.path(), &["plot", "vax-11-780", "-o", "v.svg"]);
    assert!(err.contains("historical"), "{err}");
    assert!(!err.contains("characterize"), "{err}");
    // gfortran12-O2-xeon-2core has no [optimizations] section.
    let err = failing(
        dir.path(),
        &["optimizations", "-m", "gfortran12-O2-xeon-2core"],
    );
    assert!(err.contains("my-gfortran12-O2-xeon-2core.toml"), "{err}");
    assert!(!into_library(&err), "{err}");
    std::fs::copy(fixture("tiny.f90"), dir.path().join("tiny.f90")).unwrap();
    let err = failing(dir.path(), &["predict", "tiny.f90"]);
    assert!(
        err.contains("a Fortran source, not a program profile")
            && err.contains("augur analyze tiny.f90"),
        "{err}"
    );
    assert!(!err.contains("-o tiny.f90"), "{err}");
    let err = failing(dir.path(), &["predict", GFORTRAN_O2]);
    assert!(err.contains(&format!("-m {GFORTRAN_O2}")), "{err}");
    assert!(!err.contains("os error"), "{err}");
    let toml = format!("{}.toml", library.join(GFORTRAN_O2).display());
    let err = failing(dir.path(), &["analyze", &toml]);
    assert!(err.contains("not a Fortran source"), "{err}");
}

/// Item 6: a file in a directory that does not exist is refused with the path given, not
/// a temporary file's, and before a program is built and run for it.
#[test]
fn an_output_in_a_missing_directory_is_refused_plainly_and_early() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("tiny.f90"), dir.path().join("tiny.f90")).unwrap();
    let tiny = fixture("tiny.json");
    let tiny = tiny.to_str().unwrap();
    let err = failing(
        dir.path(),
        &["report", tiny, "-m", GFORTRAN_O2, "-o", "no/such/r.html"],
    );
    assert!(
        err.contains("cannot write no/such/r.html: no/such is not a directory"),
        "{err}"
    );
    assert!(!err.contains(".tmp") && !err.contains("os error"), "{err}");
    let err = failing(dir.path(), &["analyze", "tiny.f90", "-o", "no/such/p.json"]);
    assert!(err.contains("no/such is not a directory"), "{err}");
    assert!(!err.contains("building an instrumented copy"), "{err}");
}

/// Item 8: `analyze --json` without `--static` printed the text summary, not JSON.
#[test]
fn analyze_json_without_static_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("tiny.f90"), dir.path().join("tiny.f90")).unwrap();
    let err = failing(dir.path(), &["analyze", "--json", "tiny.f90"]);
    assert!(err.contains("--static") && err.contains("-o FILE"), "{err}");
    assert!(!dir.path().join("tiny.profile.json").exists());
}

/// A lower-case `.f90` with `#ifndef`/`#define` (the corpus's heat3d): gfortran's
/// "Illegal preprocessor directive" alone did not say what to do; the error names
/// `--cpp`, and with it the program is analyzed.
#[test]
fn preprocessor_lines_without_cpp_name_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let src = "#ifndef N\n#define N 4\n#endif\nprogram p\n  integer :: a(N)\n  a = 1\n  print *, sum(a)\nend program\n";
    std::fs::write(dir.path().join("pp.f90"), src).unwrap();
    let err = failing(dir.path(), &["analyze", "pp.f90"]);
    assert!(err.contains("Illegal preprocessor directive"), "{err}");
    assert!(err.contains("run again with --cpp"), "{err}");
    succeeding(dir.path(), &["analyze", "--cpp", "pp.f90"]);
}

/// A library machine copied under a name longer than any column: the tables that set
/// machines side by side show it whole.
fn long_named_machine(dir: &Path) -> String {
    let name = "gfortran12-O2-amd-epyc-9r45-zen5-2core-measured-2026-11-30";
    let from = repo().join(format!("machines/{GFORTRAN_O2}.toml"));
    std::fs::copy(from, dir.join(format!("{name}.toml"))).unwrap();
    name.to_string()
}

/// Item 10: the size sweep's columns are headed by the machines' whole names.
#[test]
fn a_size_sweep_heads_its_columns_with_whole_machine_names() {
    let dir = tempfile::tempdir().unwrap();
    let long = long_named_machine(dir.path());
    let profile = repo().join("measurements/scaling-zen3-2026-11-26/corpus/jacobi77.scaled.json");
    let file = format!("{long}.toml");
    let out = succeeding(
        dir.path(),
        &[
            "predict",
            profile.to_str().unwrap(),
            "--at",
            "n=48..64",
            "-m",
            &file,
            "-m",
            "gfortran12-O0-epyc-2core",
        ],
    );
    let head = out.lines().nth(1).unwrap();
    assert!(
        head.contains(&long) && head.contains("gfortran12-O0-epyc-2core"),
        "{out}"
    );
    assert!(!out.contains('…'), "{out}");
    // The rows line up under the header: each ends where the header does.
    let width = head.chars().count();
    for row in out.lines().skip(2).take(3) {
        assert_eq!(row.chars().count(), width, "{out}");
    }
}

/// Item 10: `compare machines` heads its columns with the whole names, or with M1, M2,
/// ... listed with their names when those would be too wide; never a name cut.
#[test]
fn compare_machines_never_cuts_a_name() {
    let dir = tempfile::tempdir().unwrap();
    let long = long_named_machine(dir.path());
    let file = format!("{long}.toml");
    for machines in [
        vec!["gfortran12-O0-epyc-2core", GFORTRAN_O2],
        vec![file.as_str(), "gfortran12-O0-epyc-2core", "vax-11-780"],
    ] {
        let names: Vec<&str> = machines
            .iter()
            .map(|m| m.trim_end_matches(".toml"))
            .collect();
        // Given with -m, as every other command takes machines.
        let args: Vec<&str> = machines.iter().flat_map(|m| ["-m", *m]).collect();
        let out = succeeding(dir.path(), &[&["compare", "machines"][..], &args].concat());
        let heads: Vec<&str> = out
            .lines()
            .find(|l| l.starts_with("parameter"))
            .unwrap()
            .split_whitespace()
            .skip(1)
            .collect();
        assert_eq!(heads.len(), names.len(), "{out}");
        for (i, head) in heads.iter().enumerate() {
            assert!(
                *head == names[i] || out.contains(&format!("  {head}  {}\n", names[i])),
                "column {head}: {out}"
            );
        }
    }
}

/// Item 10: the loop-by-loop speedups over machines (predict -m A -m B --by loop) and the
/// correlations of `compare compilers` keep every machine's whole name.
#[test]
fn speedup_tables_keep_whole_machine_names() {
    let dir = tempfile::tempdir().unwrap();
    let long = long_named_machine(dir.path());
    let file = format!("{long}.toml");
    let (tiny, omp) = (fixture("tiny.json"), fixture("omp.json"));
    let (tiny, omp) = (tiny.to_str().unwrap(), omp.to_str().unwrap());
    let out = succeeding(
        dir.path(),
        &[
            "predict",
            tiny,
            "-m",
            &file,
            "-m",
            "gfortran12-O0-epyc-2core",
            "--by",
            "loop",
        ],
    );
    assert!(
        out.lines()
            .any(|l| l.trim_start().starts_with(&long) && l.contains("speedup")),
        "{out}"
    );
    assert!(!out.contains('…'), "{out}");
    // Two settings with the same compiler and flags are told apart by their names.
    let out = succeeding(
        dir.path(),
        &[
            "compare",
            "compilers",
            tiny,
            omp,
            tiny,
            "-m",
            GFORTRAN_O2,
            "-m",
            &file,
            "-m",
            "gfortran12-O2-epyc-zen4-2core",
        ],
    );
    let pair = format!("{long} and gfortran12-O2-epyc-zen4-2core");
    assert!(out.contains(&pair), "{out}");
    assert!(!out.contains('…'), "{out}");
}
