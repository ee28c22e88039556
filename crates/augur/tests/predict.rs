//! End-to-end tests of `augur predict` and `augur validate` with the real compiler:
//! predictions, breakdowns, workloads, regions, validation against real runs, bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn augur() -> Command {
    Command::new(env!("CARGO_BIN_EXE_augur"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

/// A small program with a reduction, a stream loop, a call and a region.
const PROGRAM: &str = "\
program toy
  implicit none
  integer, parameter :: n = 200000
  real(8) :: x(n), y(n), s
  integer :: i, rep
  do i = 1, n
    x(i) = 1.0d0 / i
  end do
  s = 0.0d0
  !augur region work
  do rep = 1, 20
    do i = 1, n
      y(i) = 2.0d0 * x(i) + 1.0d0
    end do
    do i = 1, n
      s = s + x(i) * y(i)
    end do
  end do
  !augur end region
  call show(s)
contains
  subroutine show(v)
    real(8), intent(in) :: v
    print '(es12.5)', v
  end subroutine show
end program toy
";

/// Writes the program and analyzes it (gfortran -O2); returns the directory and profile.
fn analyzed() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("toy.f90");
    std::fs::write(&src, PROGRAM).unwrap();
    let prof = dir.path().join("toy.profile.json");
    let out = augur()
        .current_dir(dir.path())
        .args(["analyze", "toy.f90", "-o", "toy.profile.json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out).1);
    (dir, prof)
}

fn machine(name: &str) -> String {
    repo()
        .join("machines")
        .join(format!("{name}.toml"))
        .display()
        .to_string()
}

#[test]
fn prediction_has_an_interval_and_every_breakdown() {
    let (dir, prof) = analyzed();
    let out = augur()
        .current_dir(dir.path())
        .arg("predict")
        .arg(&prof)
        .args(["-m", &machine("gfortran12-O2-epyc-2core")])
        .output()
        .unwrap();
    let (so, se) = text(&out);
    assert!(out.status.success(), "{se}");
    assert!(so.contains("predicted time"), "{so}");
    assert!(so.contains("90% interval"), "{so}");
    for heading in [
        "by abstract operation",
        "by procedures",
        "by loops",
        "by lines",
        "by regions",
    ] {
        assert!(so.contains(heading), "missing {heading}: {so}");
    }
    assert!(so.contains("ARDL") && so.contains("MRDL"), "{so}");
    assert!(so.contains("work"), "region shown: {so}");

    // JSON: shares add up to 1, the region is most of the program, the reduction's
    // loop costs more per iteration than its operations' stream costs allow.
    let out = augur()
        .current_dir(dir.path())
        .arg("predict")
        .arg(&prof)
        .args(["-m", &machine("gfortran12-O2-epyc-2core"), "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out).1);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["kind"], "augur-prediction");
    let pred = &doc["programs"][0]["predictions"][0];
    let total = pred["total"]["seconds"].as_f64().unwrap();
    assert!(total > 0.0);
    let share: f64 = pred["abops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["time_share"].as_f64().unwrap())
        .sum();
    assert!(
        (share - 1.0).abs() < 1e-6,
        "AbOp time shares sum to {share}"
    );
    let ops_share: f64 = pred["abops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["operation_share"].as_f64().unwrap())
        .sum();
    assert!((ops_share - 1.0).abs() < 1e-6);
    let region = &pred["regions"][0];
    assert_eq!(region["name"], "work");
    assert!(region["time_share"].as_f64().unwrap() > 0.8);
    let proc_sum: f64 = pred["procedures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["estimate"]["seconds"].as_f64().unwrap())
        .sum();
    // Procedures add up to the operation time; the memory term comes on top.
    let memory = pred["memory_seconds"].as_f64().unwrap();
    // 1.6 MB arrays stream through L1 and L2: the nests have a memory term per level.
    let nests = pred["memory"].as_array().unwrap();
    assert!(!nests.is_empty(), "no memory term");
    assert!(nests[0]["memory_seconds"].as_f64().unwrap() > 0.0);
    assert!(memory >= 0.0);
    assert!((proc_sum + memory - total).abs() <= 1e-9 * total.max(1.0));
}

#[test]
fn region_and_workload_across_machines() {
    let (dir, prof) = analyzed();
    let out = augur()
        .current_dir(dir.path())
        .arg("predict")
        .arg(&prof)
        .args([
            "-m",
            &machine("gfortran12-O2-epyc-2core"),
            "--region",
            "work",
        ])
        .output()
        .unwrap();
    let (so, se) = text(&out);
    assert!(out.status.success(), "{se}");
    assert!(so.contains("region work"), "{so}");

    let out = augur()
        .current_dir(dir.path())
        .arg("predict")
        .arg(&prof)
        .arg(&prof)
        .args([
            "-m",
            &machine("gfortran12-O2-epyc-2core"),
            "-m",
            &machine("gfortran12-O0-epyc-2core"),
            "--weights",
            "1,3",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out).1);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for m in 0..2 {
        let one = doc["programs"][0]["predictions"][m]["total"]["seconds"]
            .as_f64()
            .unwrap();
        let w = doc["workload"][m]["seconds"].as_f64().unwrap();
        assert!((w - 4.0 * one).abs() <= 1e-9 * w, "Σ w·T: {w} vs 4 x {one}");
    }
    // -O0 code is predicted slower than -O2 code.
    assert!(doc["workload"][1]["seconds"].as_f64() > doc["workload"][0]["seconds"].as_f64());

    let out = augur()
        .current_dir(dir.path())
        .arg("predict")
        .arg(&prof)
        .args([
            "-m",
            &machine("gfortran12-O2-epyc-2core"),
            "--weights",
            "1,2",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(text(&out).1.contains("one weight per profile"));
}

#[test]
fn validate_times_real_runs_and_reports_the_error() {
    let (dir, _) = analyzed();
    let out = augur()
        .current_dir(dir.path())
        .args(["validate", "toy.f90", "--runs", "2", "--json", "-m"])
        .arg(machine("gfortran12-O2-epyc-2core"))
        .output()
        .unwrap();
    let (so, se) = text(&out);
    assert!(out.status.success(), "{se}");
    let doc: serde_json::Value = serde_json::from_str(&so).unwrap();
    assert_eq!(doc["measured"]["runs"].as_array().unwrap().len(), 2);
    let pred = doc["predicted"]["seconds"].as_f64().unwrap();
    let meas = doc["measured"]["median"].as_f64().unwrap();
    let err = doc["error"].as_f64().unwrap();
    assert!(meas > 0.0 && pred > 0.0);
    assert!((err - (pred - meas) / meas).abs() < 1e-9);
    // Same compiler and flags as the profile: no difference but, on a host of another
    // CPU than the profile's (this workplace's hosts change), that one.
    let diffs = doc["setup_differences"].as_array().unwrap();
    assert!(
        diffs
            .iter()
            .all(|d| d.as_str().unwrap().contains("measured on another CPU")),
        "{diffs:?}"
    );

    // Another flag set than the profile's: said so.
    let out = augur()
        .current_dir(dir.path())
        .args([
            "validate", "toy.f90", "--runs", "1", "--fflags", "-O1", "-m",
        ])
        .arg(machine("gfortran12-O2-epyc-2core"))
        .output()
        .unwrap();
    let (so, se) = text(&out);
    assert!(out.status.success(), "{se}");
    assert!(so.contains("predicted vs measured"), "{so}");
    assert!(se.contains("measured with flags `-O2`"), "{se}");
}

/// Two loops, the first with ten times the second's work.
const TWO_LOOPS: &str = "\
program two
  implicit none
  integer, parameter :: n = 2000
  real(8) :: a(n), s, t
  integer :: i, k
  call random_number(a)
  s = 0
  do k = 1, 40000
    do i = 1, n
      s = s + a(i) / (1.0d0 + a(i))
    end do
  end do
  t = 0
  do k = 1, 4000
    do i = 1, n
      t = t + a(i) / (1.0d0 + a(i))
    end do
  end do
  print *, s, t
end program
";

#[test]
fn validate_by_loop_measures_where_the_time_went() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("two.f90"), TWO_LOOPS).unwrap();
    let validate = |extra: &[&str]| {
        let args = [
            "validate",
            "two.f90",
            "--runs",
            "1",
            "--by",
            "loop,procedure",
        ];
        let (so, se) = on_the_o2_machine(dir.path(), &[&args, extra].concat());
        assert!(!se.contains("was not measured"), "perf must run here: {se}");
        so
    };
    let doc: serde_json::Value = serde_json::from_str(&validate(&["--json"])).unwrap();
    let parts = &doc["measured_parts"];
    assert!(parts["samples"].as_u64().unwrap() > 100, "{parts}");
    let loops = parts["loops"].as_array().unwrap();
    let innermost = |line: u64| {
        loops
            .iter()
            .find(|l| l["first_line"] == line && l["innermost"] == true)
            .unwrap_or_else(|| panic!("no innermost loop at line {line}: {loops:?}"))
    };
    let (heavy, light) = (innermost(9), innermost(15));
    let m = |l: &serde_json::Value| l["measured_seconds"].as_f64().unwrap();
    let ratio = m(heavy) / m(light);
    assert!(
        (5.0..20.0).contains(&ratio),
        "measured {ratio} times the work"
    );
    let program = &parts["procedures"][0];
    let total = doc["measured"]["median"].as_f64().unwrap();
    // The samples come from a run of their own, the median from the timed runs: on a
    // shared host a 50 ms program's two runs differ by several percent (a CI run on a Xeon
    // guest sampled 48 ms of the program where the timed run took more than 53).
    assert!(
        m(program) > 0.8 * total && m(program) <= 1.1 * total,
        "{program}, measured {total} s"
    );

    let text = validate(&[]);
    assert!(text.contains("where the time went, measured"), "{text}");
    assert!(text.contains("two.f90:9-10"), "{text}");
}

/// `augur ARGS -m` the library's -O2 profile in `dir`, which must succeed: its output.
fn on_the_o2_machine(dir: &Path, args: &[&str]) -> (String, String) {
    let out = augur()
        .current_dir(dir)
        .args(args)
        .arg("-m")
        .arg(machine("gfortran12-O2-epyc-2core"))
        .output()
        .unwrap();
    let (so, se) = text(&out);
    assert!(out.status.success(), "{so}\n{se}");
    (so, se)
}

#[test]
fn accuracy_by_loop_keeps_the_samples_and_replays_them() {
    let dir = tempfile::tempdir().unwrap();
    let kept = dir.path().join("kept");
    let accuracy = |extra: &[&str]| {
        let args = [
            "bench",
            "accuracy",
            "--only",
            "jacobi77",
            "--runs",
            "1",
            "--by-loop",
        ];
        on_the_o2_machine(&repo(), &[&args, extra].concat()).0
    };
    let first = accuracy(&["--save", kept.to_str().unwrap()]);
    assert!(first.contains("1 of 1 programs sampled"), "{first}");
    assert!(kept.join("jacobi77.lines.json").exists());
    // The loop holding most of the time, measured and predicted, with the compiler's work.
    let stencil = first
        .lines()
        .find(|l| l.starts_with("jacobi77") && l.contains("jacobi77.f:60-65"))
        .unwrap_or_else(|| panic!("{first}"));
    assert!(stencil.contains("scalar code"), "{stencil}");

    let replayed = accuracy(&["--replay", kept.to_str().unwrap()]);
    let table = |t: &str| t[t.find("where the time went").unwrap()..].to_string();
    assert_eq!(table(&replayed), table(&first));

    // Where the analysis of the kept program spent its time, against its plain run.
    let out = augur()
        .args(["bench", "overhead", "--kept"])
        .arg(&kept)
        .output()
        .unwrap();
    let (so, se) = text(&out);
    assert!(out.status.success(), "{so}\n{se}");
    let row = so
        .lines()
        .find(|l| l.starts_with("jacobi77"))
        .unwrap_or_else(|| panic!("{so}"));
    let ratio: f64 = row.split_whitespace().nth(3).unwrap().parse().unwrap();
    assert!(ratio > 0.5 && ratio < 20.0, "{row}");
    assert!(so.contains("of 1 within 1.2x"), "{so}");
}

#[test]
fn bad_inputs_get_clear_messages() {
    let (dir, prof) = analyzed();
    let m = machine("gfortran12-O2-epyc-2core");
    let run = |args: &[&str]| {
        let o = augur().current_dir(dir.path()).args(args).output().unwrap();
        assert!(!o.status.success(), "should fail: {args:?}");
        let (_, se) = text(&o);
        assert!(!se.contains("panicked"), "{se}");
        se
    };
    // Unknown machine: says where the library is listed; a misspelled one gets the
    // closest names.
    let se = run(&["predict", prof.to_str().unwrap(), "-m", "no-such-machine"]);
    assert!(se.contains("no machine profile `no-such-machine`"), "{se}");
    assert!(se.contains("`augur machines` lists the library"), "{se}");
    let se = run(&[
        "predict",
        prof.to_str().unwrap(),
        "-m",
        "gfortran12-O2-epyc-2cor",
    ]);
    assert!(
        se.contains("Did you mean `gfortran12-O2-epyc-2core`"),
        "{se}"
    );
    // Malformed program profile: file, line and column.
    std::fs::write(dir.path().join("bad.json"), "{\n  \"kind\": \n").unwrap();
    let se = run(&["predict", "bad.json", "-m", &m]);
    assert!(se.contains("bad.json:"), "{se}");
    // A machine profile given as the program profile.
    let se = run(&["predict", &m, "-m", &m]);
    assert!(se.contains("not"), "{se}");
    // A static analysis instead of a profile.
    let st = augur()
        .current_dir(dir.path())
        .args([
            "analyze",
            "--static",
            "--json",
            "-o",
            "static.json",
            "toy.f90",
        ])
        .output()
        .unwrap();
    assert!(st.status.success());
    let se = run(&["predict", "static.json", "-m", &m]);
    assert!(se.contains("static analysis"), "{se}");
    // Unknown region.
    let se = run(&[
        "predict",
        prof.to_str().unwrap(),
        "-m",
        &m,
        "--region",
        "nope",
    ]);
    assert!(
        se.contains("no region `nope`") && se.contains("work"),
        "{se}"
    );
    // A corrupt machine profile.
    std::fs::write(dir.path().join("m.toml"), "schema = 1\nkind = 3\n").unwrap();
    let se = run(&["predict", prof.to_str().unwrap(), "-m", "m.toml"]);
    assert!(se.contains("m.toml"), "{se}");

    // Sources changed since the profile: predicted, with a warning naming the file.
    std::fs::write(
        dir.path().join("toy.f90"),
        PROGRAM.replace("n = 200000", "n = 300000"),
    )
    .unwrap();
    let o = augur()
        .current_dir(dir.path())
        .arg("predict")
        .arg(&prof)
        .args(["-m", &m])
        .output()
        .unwrap();
    let (_, se) = text(&o);
    assert!(o.status.success(), "{se}");
    assert!(
        se.contains("toy.f90 changed since this profile was made"),
        "{se}"
    );
}

#[test]
fn a_straight_line_procedure_says_what_the_compiler_emitted() {
    // A 3x3 block times a vector written out in a file of its own (not inlined), called in a
    // loop: `--by procedure` names its compiled body and the cycles a call it costs.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mvsub.f90"),
        "subroutine mvsub(a, v, r)
  implicit none
  double precision a(3,3), v(3), r(3)
  r(1) = r(1) - a(1,1)*v(1) - a(1,2)*v(2) - a(1,3)*v(3)
  r(2) = r(2) - a(2,1)*v(1) - a(2,2)*v(2) - a(2,3)*v(3)
  r(3) = r(3) - a(3,1)*v(1) - a(3,2)*v(2) - a(3,3)*v(3)
end subroutine
",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("main.f90"),
        "program blocks
  implicit none
  double precision a(3,3,1000), v(3), r(3)
  integer i
  a = 0.001d0
  v = 1.0d0
  r = 1.0d0
  do i = 1, 1000
    call mvsub(a(1,1,i), v, r)
  end do
  print *, r
end program
",
    )
    .unwrap();
    let out = augur()
        .current_dir(dir.path())
        .args(["analyze", "main.f90", "mvsub.f90", "-o", "b.json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out).1);
    let out = augur()
        .current_dir(dir.path())
        .args(["predict", "b.json", "--by", "procedure"])
        .args(["-m", &machine("gfortran12-O2-epyc-zen4-2core")])
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    let note = stdout
        .lines()
        .find(|l| l.contains("mvsub.f90:") && l.contains("straight-line procedure, as compiled:"))
        .unwrap_or_else(|| panic!("no note for mvsub:\n{stdout}"));
    assert!(note.contains("cycles a call"), "{note}");
}

/// The total of the first prediction of a `predict --json` document, and its process
/// start.
fn total_and_start(dir: &Path, prof: &Path, machine: &str) -> (f64, f64) {
    let out = augur()
        .current_dir(dir)
        .arg("predict")
        .arg(prof)
        .args(["-m", machine, "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out).1);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pred = &doc["programs"][0]["predictions"][0];
    (
        pred["total"]["seconds"].as_f64().unwrap(),
        pred["process_start_seconds"].as_f64().unwrap(),
    )
}

#[test]
fn a_measured_process_start_is_added_to_the_prediction_and_said() {
    // `characterize --process` into a copy of a library profile: the other sections are
    // kept, and every prediction on it adds the measured start of a process.
    let (dir, prof) = analyzed();
    let library = machine("gfortran12-O2-epyc-2core");
    let copy = dir.path().join("m.toml");
    std::fs::copy(&library, &copy).unwrap();
    let out = augur()
        .current_dir(dir.path())
        .args(["characterize", "--process", "-o", "m.toml"])
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.contains("a program that only prints a number takes"),
        "{stdout}"
    );
    let written = std::fs::read_to_string(&copy).unwrap();
    assert!(written.contains("[process]"), "{written}");
    assert!(written.contains("[abop.ARDL]"), "the AbOps are kept");

    let (before, none) = total_and_start(dir.path(), &prof, &library);
    assert_eq!(none, 0.0, "a profile without [process] adds nothing");
    let (after, start) = total_and_start(dir.path(), &prof, copy.to_str().unwrap());
    assert!(start > 1e-5 && start < 0.1, "start {start} s");
    assert!(
        (after - before - start).abs() <= 1e-9 * after,
        "{before} + {start} != {after}"
    );

    let out = augur()
        .current_dir(dir.path())
        .args(["predict", "toy.profile.json", "-m", "m.toml"])
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("process start and exit:"), "{stdout}");
}
