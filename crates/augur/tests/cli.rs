//! End-to-end tests of the `augur` binary: real files, real process, exit codes.

use std::path::{Path, PathBuf};
use std::process::Command;

fn augur() -> Command {
    Command::new(env!("CARGO_BIN_EXE_augur"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn formats_md_lists_the_catalogue_exactly() {
    let out = augur().args(["abops", "--markdown"]).output().unwrap();
    assert!(out.status.success());
    let table = String::from_utf8(out.stdout).unwrap();
    let doc = std::fs::read_to_string(repo().join("docs/FORMATS.md")).unwrap();
    let begin = doc.find("<!-- BEGIN ABOPS").expect("marker in FORMATS.md");
    let body_start = doc[begin..].find('\n').unwrap() + begin + 1;
    let end = doc.find("<!-- END ABOPS -->").expect("end marker");
    assert_eq!(
        &doc[body_start..end],
        table,
        "docs/FORMATS.md is out of date: regenerate it with `augur abops --markdown`"
    );
}

#[test]
fn static_analysis_of_an_example_as_text_and_json() {
    let ex = repo().join("examples/legacy.f");
    let out = augur()
        .args(["analyze", "--static"])
        .arg(&ex)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("subroutine sweep"));
    assert!(text.contains("coverage: 34 of 34 statements lowered (100.0%)"));

    let dir = tempfile::tempdir().unwrap();
    let json_path = dir.path().join("legacy.json");
    let out = augur()
        .args(["analyze", "--static", "-o"])
        .arg(&json_path)
        .arg(&ex)
        .output()
        .unwrap();
    assert!(out.status.success());
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(doc["schema"], 1);
    assert_eq!(doc["kind"], "augur-static-analysis");
    let units = doc["units"].as_array().unwrap();
    let sweep = units.iter().find(|u| u["name"] == "sweep").unwrap();
    // The relaxation statement: 8 array references of rank 2 and 4 index±1 subscripts.
    let body = sweep["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["first_line"] == 34)
        .unwrap();
    assert_eq!(body["counts"]["ARR2"], 8.0);
    assert_eq!(body["counts"]["IADD"], 4.0);
    assert_eq!(body["counts"]["SRDG"], 1.0);
    // No temporary file is left beside the output.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(leftovers.len(), 1);
}

#[test]
fn missing_file_is_a_clear_error_not_a_panic() {
    let out = augur()
        .args(["analyze", "--static", "no/such/file.f90"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("no/such/file.f90"), "{err}");
    assert!(err.contains("no such file"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_mistyped_include_directory_is_refused_by_name() {
    let out = augur()
        .args([
            "analyze",
            "--static",
            "-I",
            "no/such/dir",
            "no/such/file.f90",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("no/such/dir"), "{err}");
    assert!(err.contains("no such directory"), "{err}");
}

#[test]
fn syntax_error_names_file_line_and_source_and_other_units_survive() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.f90");
    std::fs::write(
        &f,
        "subroutine good(x)\n  real x\n  x = x + 1.0\nend subroutine\n\nsubroutine bad(y)\n  real y\n  y = = 2.0 +\nend subroutine\n",
    )
    .unwrap();
    let out = augur()
        .args(["analyze", "--static"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("bad.f90:8:"), "{err}");
    assert!(err.contains("y = = 2.0"), "source line quoted: {err}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("subroutine good"));
    assert!(text.contains("ARSL 1"), "{text}");
    assert!(
        !text.contains("(100.0%)"),
        "coverage must show the skipped statement: {text}"
    );
}

/// `augur analyze --fflags -O0 ARGS SOURCE` run in `dir`.
fn analyze_o0(
    dir: &std::path::Path,
    source: &std::path::Path,
    args: &[&std::ffi::OsStr],
) -> std::process::Output {
    augur()
        .args(["analyze", "--fflags", "-O0"])
        .args(args)
        .arg(source)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// `augur analyze --fflags -O0 ARGS examples/legacy.f` run in `dir`, which must succeed:
/// its standard error.
fn analyze_legacy(dir: &std::path::Path, args: &[&std::ffi::OsStr]) -> String {
    let out = analyze_o0(dir, &repo().join("examples/legacy.f"), args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    stderr
}

#[test]
fn dynamic_analysis_writes_a_profile_and_shows_the_program_output() {
    let dir = tempfile::tempdir().unwrap();
    let prof = dir.path().join("legacy.json");
    let stderr = analyze_legacy(dir.path(), &["-o".as_ref(), prof.as_os_str()]);
    assert!(
        stderr.contains("LEGACY ITERATIONS"),
        "program output shown: {stderr}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&prof).unwrap()).unwrap();
    assert_eq!(doc["schema"], 1);
    assert_eq!(doc["kind"], "augur-program-profile");
    assert_eq!(doc["partial"], false);
    // SWEEP is called once per relaxation iteration: 50 times.
    let sweep = doc["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["name"] == "sweep")
        .unwrap();
    assert_eq!(sweep["calls"], 50.0);
    // Its relaxation statement runs 198*198 times per call.
    let body = sweep["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["first_line"] == 34)
        .unwrap();
    assert_eq!(body["executions"], 50.0 * 198.0 * 198.0);
    assert!(doc["operations"].as_f64().unwrap() > 1e7);
}

#[test]
fn output_names_the_profile_and_program_output_the_programs_output() {
    // `-o/--output` is the file augur makes in every command; the program's own output
    // has a name of its own.
    let dir = tempfile::tempdir().unwrap();
    let (prof, text) = (dir.path().join("p.json"), dir.path().join("run.txt"));
    let stderr = analyze_legacy(
        dir.path(),
        &[
            "--no-branch-run".as_ref(),
            "--output".as_ref(),
            prof.as_os_str(),
            "--program-output".as_ref(),
            text.as_os_str(),
        ],
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&prof).unwrap()).unwrap();
    assert_eq!(doc["kind"], "augur-program-profile");
    let run = std::fs::read_to_string(&text).unwrap();
    assert!(run.contains("LEGACY ITERATIONS"), "{run}");
    assert!(!stderr.contains("LEGACY ITERATIONS"), "{stderr}");
}

/// Writes `text` to `dir/NAME.f90` and runs `augur analyze` on it, which must fail with
/// status 2: the source, the profile it was told to write and its standard error.
fn analyze_failing(
    dir: &std::path::Path,
    name: &str,
    text: &str,
) -> (std::path::PathBuf, std::path::PathBuf, String) {
    let src = dir.join(format!("{name}.f90"));
    std::fs::write(&src, text).unwrap();
    let prof = dir.join(format!("{name}.json"));
    let out = augur()
        .args(["analyze", "-o"])
        .arg(&prof)
        .arg(&src)
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    (src, prof, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A program whose ALLOCATE asks for more memory than the machine has: the error names
/// the program's own line where gfortran's run-time library says it failed ("In file
/// ..., around line 6" for the plain program too: the statement after the ALLOCATE),
/// not the instrumented copy's, and no profile is written.
#[test]
fn a_program_out_of_memory_names_its_allocate() {
    let dir = tempfile::tempdir().unwrap();
    let (src, prof, err) = analyze_failing(
        dir.path(),
        "hog",
        "program hog\n  real(8), allocatable :: a(:)\n  integer(8) :: n\n  n = 40000000000_8\n  allocate(a(n))\n  a = 1\n  print *, sum(a)\nend program hog\n",
    );
    let at = format!("At line 6 of file {}: Error allocating", src.display());
    assert!(
        err.contains(&at) && err.contains("Cannot allocate memory"),
        "{err}"
    );
    assert!(!prof.exists());
}

#[test]
fn failing_program_gets_a_clear_error_and_no_profile() {
    let dir = tempfile::tempdir().unwrap();
    let (src, prof, err) = analyze_failing(
        dir.path(),
        "fail",
        "program p\n  integer :: n\n  read(*,*) n\n  print *, n\nend program\n",
    );
    assert!(
        err.contains("--stdin"),
        "hint about the missing input: {err}"
    );
    // The run-time error names the program's line, not the instrumented copy's.
    let at = format!("At line 3 of file {}", src.display());
    assert!(
        err.contains(&at) && err.contains("of augur's instrumented copy)"),
        "{err}"
    );
    assert!(!prof.exists());
    // With its input it succeeds.
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "42\n").unwrap();
    let out = augur()
        .args(["analyze", "--stdin"])
        .arg(&input)
        .arg("-o")
        .arg(&prof)
        .arg(&src)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(prof.exists());
}

#[test]
fn compile_errors_point_at_the_original_fixed_form_line() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("bad.f");
    // Parses (tree-sitter is lenient) but gfortran rejects the type mismatch on line 4.
    std::fs::write(
        &src,
        "      PROGRAM P\n      INTEGER I\n      CHARACTER*4 C\n      I = C\n      PRINT *, I\n      END\n",
    )
    .unwrap();
    let out = augur()
        .arg("analyze")
        .arg(&src)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.f:4:"), "{err}");
}

#[test]
fn branches_help_says_simulated_mispredictions_are_priced_without_it() {
    // What `predict_options` does: the branch run's simulated mispredictions are always
    // priced; --branches adds the bound of a profile without a branch run.
    for cmd in ["predict", "validate"] {
        let out = augur().args([cmd, "--help"]).output().unwrap();
        assert!(out.status.success());
        let help = String::from_utf8_lossy(&out.stdout).replace('\n', " ");
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(!help.contains("Off by default"), "{cmd}: {help}");
        assert!(
            help.contains("are in the total with or without this flag"),
            "{cmd}: {help}"
        );
    }
}

#[test]
fn a_program_without_branches_reports_zero_mispredictions_unsigned() {
    // An empty sum of floats is -0.0, which printed as "-0.0000e0 mispredictions".
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("line.f90");
    std::fs::write(
        &src,
        "program line\n  real(8) :: x\n  x = 1.0d0\n  print *, x\nend program\n",
    )
    .unwrap();
    let profile = dir.path().join("line.json");
    let out = analyze_o0(dir.path(), &src, &["-o".as_ref(), profile.as_os_str()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("0.0000e0 mispredictions"), "{stdout}");
    assert!(!stdout.contains("-0.0000e0"), "{stdout}");
}

/// A figure written to a `.png` file is a bitmap at twice the SVG's size with its text
/// drawn (the system's fonts found), for slides that take no SVG.
#[test]
fn a_figure_asked_for_as_png_is_drawn_at_twice_its_size_with_its_text() {
    let dir = tempfile::tempdir().unwrap();
    let (svg, png) = (dir.path().join("sweep.svg"), dir.path().join("sweep.png"));
    for out in [&svg, &png] {
        let run = augur()
            .args(["plot", "gfortran12-O2-epyc-zen5-2core", "-o"])
            .arg(out)
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
    let text = std::fs::read_to_string(&svg).unwrap();
    let width: u32 = text
        .split("width=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .and_then(|w| w.parse().ok())
        .expect("the SVG's width");
    let pixmap = resvg::tiny_skia::Pixmap::load_png(&png).expect("a PNG");
    assert_eq!(pixmap.width(), 2 * width);
    // The title's text is drawn: dark pixels in the top band, above the plot.
    let band = (pixmap.width() * 100) as usize;
    let dark = pixmap.pixels()[..band]
        .iter()
        .filter(|p| p.red() < 80 && p.green() < 80 && p.blue() < 80)
        .count();
    assert!(dark > 200, "no title drawn in the PNG ({dark} dark pixels)");
}

/// A profile kept by `--keep-partial` is predicted with one warning that says it is
/// partial and why (the run's exit status), not the profile's note beside the model's.
#[test]
fn a_partial_profile_is_said_once_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("stops.f90");
    std::fs::write(
        &src,
        "program stops\n  integer :: i\n  real(8) :: s\n  s = 0\n  do i = 1, 1000\n    s = s + i\n  end do\n  print *, s\n  error stop 3\nend program stops\n",
    )
    .unwrap();
    let prof = dir.path().join("stops.json");
    let out = augur()
        .args(["analyze", "--keep-partial", "-o"])
        .arg(&prof)
        .arg(&src)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(prof.exists(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = augur()
        .args(["predict", "-m", "gfortran12-O2-epyc-zen4-2core"])
        .arg(&prof)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let partial: Vec<&str> = err.lines().filter(|l| l.contains("partial")).collect();
    assert_eq!(partial.len(), 1, "{err}");
    assert!(partial[0].contains("status 3"), "{err}");
}

#[test]
fn validate_keep_partial_points_to_analyze() {
    let out = augur()
        .args(["validate", "--keep-partial", "no/such/file.f90"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("augur analyze --keep-partial"), "{err}");
    assert!(!err.contains("-- --keep-partial"), "{err}");
}
