//! Tests of the toolchain layer with the real gfortran: detection, flag checks, builds
//! (modules, C sources, libraries), compile errors, and runs (arguments, stdin, exit codes,
//! signals, timeouts).
//!
//! These tests need gfortran and gcc; without them they fail with a message saying so.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use augur_toolchain::{
    build, parse_compiler_messages, run, BuildError, BuildInput, RunSpec, Toolchain, ToolchainError,
};

/// gfortran, or a failure that says how to get it.
fn gfortran() -> Toolchain {
    match Toolchain::detect("gfortran", "-O1") {
        Ok(tc) => tc,
        Err(e) => panic!(
            "these tests need gfortran (and gcc): {e}\ninstall them: apt-get install gfortran gcc"
        ),
    }
}

/// Writes `text` to `dir/name` and returns the path.
fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Builds the single free-form Fortran program `text` in `dir` and returns the executable.
fn build_one(tc: &Toolchain, dir: &Path, text: &str) -> PathBuf {
    let src = write(dir, "prog.f90", text);
    let input = BuildInput {
        fortran: vec![src],
        ..Default::default()
    };
    build(tc, &input, &dir.join("build"), "prog").unwrap_or_else(|e| panic!("build failed: {e}"))
}

/// A spec running in `dir` with a timeout of `secs` seconds.
fn spec(dir: &Path, secs: u64) -> RunSpec {
    RunSpec {
        args: Vec::new(),
        stdin: None,
        timeout: Duration::from_secs(secs),
        env: Vec::new(),
        cwd: dir.to_path_buf(),
        capture: true,
        fixed_addresses: false,
    }
}

fn stdout_of(r: &augur_toolchain::RunResult) -> String {
    String::from_utf8_lossy(&r.stdout).into_owned()
}

#[test]
fn detects_gfortran() {
    let tc = gfortran();
    assert!(!tc.version.is_empty());
    assert!(tc.version.contains("GNU Fortran"), "{}", tc.version);
    assert!(tc.is_gfortran());
    assert_eq!(tc.fflags, vec!["-O1".to_string()]);
    assert!(!tc.cc.is_empty());
    tc.check_flags().expect("-O1 is accepted");
}

#[test]
fn detect_splits_quoted_flags() {
    let tc = Toolchain::detect("gfortran", "-O2  -DMSG='a b'").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(tc.fflags, vec!["-O2".to_string(), "-DMSG=a b".to_string()]);
    assert!(matches!(
        Toolchain::detect("gfortran", "-O2 'open"),
        Err(ToolchainError::BadFlagSyntax { .. })
    ));
}

#[test]
fn missing_compiler_is_reported_with_a_hint() {
    let err = Toolchain::detect("augur-no-such-fortran-compiler", "").unwrap_err();
    match &err {
        ToolchainError::CompilerNotFound { fc, hint } => {
            assert_eq!(fc, "augur-no-such-fortran-compiler");
            assert!(!hint.is_empty());
        }
        other => panic!("expected CompilerNotFound, got {other:?}"),
    }
    assert!(err.to_string().contains("augur-no-such-fortran-compiler"));

    // flang-19 is not installed here; if it is, there is nothing to check.
    if let Err(ToolchainError::CompilerNotFound { hint, .. }) = Toolchain::detect("flang-19", "") {
        assert!(hint.contains("apt-get install flang-19"), "{hint}");
    }
    let err = Toolchain::detect("/nonexistent/bin/gfortran", "").unwrap_err();
    match err {
        ToolchainError::CompilerNotFound { hint, .. } => {
            assert!(hint.contains("apt-get install gfortran"), "{hint}")
        }
        other => panic!("expected CompilerNotFound, got {other:?}"),
    }
}

#[test]
fn rejected_flag_is_reported() {
    let tc = Toolchain::detect("gfortran", "-O2 -fno-such-flag").unwrap_or_else(|e| panic!("{e}"));
    let err = tc.check_flags().unwrap_err();
    match &err {
        ToolchainError::FlagsRejected { flags, message, .. } => {
            assert_eq!(flags, "-O2 -fno-such-flag");
            assert!(message.contains("-fno-such-flag"), "{message}");
        }
        other => panic!("expected FlagsRejected, got {other:?}"),
    }
    let text = err.to_string();
    assert!(text.contains("--fflags"), "{text}");
}

#[test]
fn fixed_form_flag_is_accepted() {
    let tc = Toolchain::detect("gfortran", "-ffixed-form -O0").unwrap_or_else(|e| panic!("{e}"));
    tc.check_flags()
        .expect("the check program is valid fixed form");
}

#[test]
fn builds_module_and_main_and_runs() {
    let tc = gfortran();
    let dir = tempfile::tempdir().unwrap();
    let m = write(
        dir.path(),
        "shapes.f90",
        "module shapes\n  implicit none\ncontains\n  function area(w, h) result(a)\n    real, intent(in) :: w, h\n    real :: a\n    a = w * h\n  end function\nend module\n",
    );
    let p = write(
        dir.path(),
        "main.f90",
        "program main\n  use shapes\n  implicit none\n  print '(F6.2)', area(2.0, 3.5)\nend program\n",
    );
    let input = BuildInput {
        fortran: vec![m, p],
        ..Default::default()
    };
    let work = dir.path().join("work");
    let exe = build(&tc, &input, &work, "app").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(exe, work.join("app"));
    assert!(
        work.join("shapes.mod").exists(),
        "module file goes to workdir"
    );
    let r = run(&exe, &spec(dir.path(), 20)).unwrap();
    assert!(r.success(), "{}", r.describe());
    assert_eq!(stdout_of(&r).trim(), "7.00");
    assert_eq!(r.exit_code, Some(0));
    assert_eq!(r.signal, None);
    assert!(!r.timed_out);
    assert!(r.wall < Duration::from_secs(20));
}

#[test]
fn extra_fflags_apply_to_sources() {
    let tc = gfortran();
    let dir = tempfile::tempdir().unwrap();
    // A free-form program in a fixed-form file name, with a line longer than 132 columns.
    let long = format!("  x = 1{}\n", " + 0".repeat(60));
    let src = write(
        dir.path(),
        "gen.f",
        &format!("program gen\n  integer :: x\n{long}  print *, x\nend program\n"),
    );
    let input = BuildInput {
        fortran: vec![src],
        extra_fflags: vec!["-ffree-form".into(), "-ffree-line-length-none".into()],
        ..Default::default()
    };
    let exe = build(&tc, &input, &dir.path().join("b"), "gen").unwrap_or_else(|e| panic!("{e}"));
    let r = run(&exe, &spec(dir.path(), 20)).unwrap();
    assert_eq!(stdout_of(&r).trim(), "1");
}

#[test]
fn links_c_source_and_library() {
    let tc = gfortran();
    let dir = tempfile::tempdir().unwrap();
    let c = write(
        dir.path(),
        "helper.c",
        "#include <math.h>\ndouble c_twice(double x) { return 2.0 * x; }\ndouble c_root(double x) { return sqrt(x); }\n",
    );
    let f = write(
        dir.path(),
        "main.f90",
        "program main\n  use iso_c_binding\n  implicit none\n  interface\n    real(c_double) function c_twice(x) bind(C, name='c_twice')\n      import :: c_double\n      real(c_double), value :: x\n    end function\n    real(c_double) function c_root(x) bind(C, name='c_root')\n      import :: c_double\n      real(c_double), value :: x\n    end function\n  end interface\n  print '(F5.1)', c_twice(21.0_c_double)\n  print '(F5.1)', c_root(16.0_c_double)\nend program\n",
    );
    let input = BuildInput {
        fortran: vec![f],
        c_sources: vec![c],
        link_args: vec!["-lm".into()],
        ..Default::default()
    };
    let exe = build(&tc, &input, &dir.path().join("b"), "mixed").unwrap_or_else(|e| panic!("{e}"));
    let r = run(&exe, &spec(dir.path(), 20)).unwrap();
    assert!(r.success(), "{}", r.describe());
    let out = stdout_of(&r);
    let lines: Vec<&str> = out.lines().map(str::trim).collect();
    assert_eq!(lines, vec!["42.0", "4.0"]);
}

#[test]
fn links_prebuilt_object() {
    let tc = gfortran();
    let dir = tempfile::tempdir().unwrap();
    let c = write(dir.path(), "k.c", "int c_seven(void) { return 7; }\n");
    let obj = dir.path().join("k_prebuilt.o");
    let status = std::process::Command::new(&tc.cc)
        .arg("-c")
        .arg(&c)
        .arg("-o")
        .arg(&obj)
        .status()
        .expect("gcc is needed for this test");
    assert!(status.success());
    let f = write(
        dir.path(),
        "main.f90",
        "program main\n  use iso_c_binding\n  interface\n    integer(c_int) function c_seven() bind(C)\n      import :: c_int\n    end function\n  end interface\n  print *, c_seven()\nend program\n",
    );
    let input = BuildInput {
        fortran: vec![f],
        objects: vec![obj],
        ..Default::default()
    };
    let exe = build(&tc, &input, &dir.path().join("b"), "obj").unwrap_or_else(|e| panic!("{e}"));
    let r = run(&exe, &spec(dir.path(), 20)).unwrap();
    assert_eq!(stdout_of(&r).trim(), "7");
}

#[test]
fn compile_error_has_parsed_messages() {
    let tc = gfortran();
    let dir = tempfile::tempdir().unwrap();
    let ok = write(
        dir.path(),
        "m.f90",
        "module m\n  integer :: k = 1\nend module\n",
    );
    let bad = write(
        dir.path(),
        "bad.f90",
        "program bad\n  use m\n  implicit none\n  integer :: x\n  x = = 1\n  print *, x\nend program\n",
    );
    let input = BuildInput {
        fortran: vec![ok, bad.clone()],
        ..Default::default()
    };
    let err = build(&tc, &input, &dir.path().join("b"), "bad").unwrap_err();
    let text = err.to_string();
    match err {
        BuildError::Compile {
            file,
            stderr,
            messages,
        } => {
            assert_eq!(file, bad);
            assert!(stderr.contains("Error"), "{stderr}");
            let first = messages.first().expect("a parsed message");
            assert_eq!(first.line, 5, "{messages:?}");
            assert_eq!(first.severity, "Error");
            assert!(first.file.ends_with("bad.f90"), "{:?}", first.file);
            assert!(first.col.is_some());
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
    assert!(text.contains("bad.f90"), "{text}");
    assert!(text.contains(":5:"), "{text}");
}

#[test]
fn link_error_is_reported() {
    let tc = gfortran();
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "main.f90",
        "program main\n  external :: augur_missing_sub\n  call augur_missing_sub()\nend program\n",
    );
    let input = BuildInput {
        fortran: vec![f],
        ..Default::default()
    };
    match build(&tc, &input, &dir.path().join("b"), "x") {
        Err(BuildError::Link { stderr }) => {
            assert!(stderr.contains("augur_missing_sub"), "{stderr}")
        }
        other => panic!("expected a link error, got {other:?}"),
    }
}

#[test]
fn parses_gfortran_error_and_warning() {
    let captured = "e.f90:3:8:\n\n    3 |   x = = 1\n      |        1\nError: Invalid character in name at (1)\nw.f90:2:17:\n\n    2 |   integer :: x, z\n      |                 1\nWarning: Unused variable \u{2018}z\u{2019} declared at (1) [-Wunused-variable]\nf.f90:2:6:\n\n    2 |  use nosuch\n      |      1\nFatal Error: Cannot open module file \u{2018}nosuch.mod\u{2019} for reading at (1): No such file or directory\ncompilation terminated.\n";
    let msgs = parse_compiler_messages(captured);
    assert_eq!(msgs.len(), 3, "{msgs:?}");
    assert_eq!(msgs[0].file, PathBuf::from("e.f90"));
    assert_eq!((msgs[0].line, msgs[0].col), (3, Some(8)));
    assert_eq!(msgs[0].severity, "Error");
    assert_eq!(msgs[0].message, "Invalid character in name at (1)");
    assert_eq!((msgs[1].line, msgs[1].col), (2, Some(17)));
    assert_eq!(msgs[1].severity, "Warning");
    assert!(msgs[1].message.starts_with("Unused variable"));
    assert_eq!(msgs[2].severity, "Fatal Error");
    assert_eq!(msgs[2].file, PathBuf::from("f.f90"));
}

#[test]
fn parses_real_gfortran_warning_output() {
    let tc = gfortran();
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "w.f90",
        "program w\n  implicit none\n  integer :: x, unused_z\n  x = 1\n  print *, x\nend program\n",
    );
    let out = std::process::Command::new(&tc.fc)
        .args(["-Wall", "-c"])
        .arg(&src)
        .arg("-o")
        .arg(dir.path().join("w.o"))
        .current_dir(dir.path())
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    let msgs = parse_compiler_messages(&String::from_utf8_lossy(&out.stderr));
    let warn = msgs
        .iter()
        .find(|m| m.message.contains("unused_z"))
        .unwrap_or_else(|| panic!("no warning parsed from {msgs:?}"));
    assert_eq!(warn.severity, "Warning");
    assert_eq!(warn.line, 3);
}

#[test]
fn parses_flang_one_liners() {
    let captured = "error: Semantic errors in ./t.f90\n./t.f90:4:3: error: No explicit type declared for 'y'\n    y = 2\n    ^\n/src/a.f90:10:1: warning: Label '10' is not used\nflang-19: error: unknown argument: '-fno-such-flag'\n";
    let msgs = parse_compiler_messages(captured);
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert_eq!(msgs[0].file, PathBuf::from("./t.f90"));
    assert_eq!((msgs[0].line, msgs[0].col), (4, Some(3)));
    assert_eq!(msgs[0].severity, "error");
    assert_eq!(msgs[0].message, "No explicit type declared for 'y'");
    assert_eq!(msgs[1].severity, "warning");
    assert_eq!(msgs[1].line, 10);
    assert!(parse_compiler_messages("").is_empty());
    assert!(parse_compiler_messages("gfortran: error: unrecognized option\n").is_empty());
}

#[test]
fn runs_with_args_and_stdin_file() {
    let tc = gfortran();
    let dir = tempfile::tempdir().unwrap();
    let exe = build_one(
        &tc,
        dir.path(),
        "program echo\n  implicit none\n  character(len=64) :: arg\n  integer :: n, total, v, ios\n  call get_command_argument(1, arg)\n  read(arg, *) n\n  total = 0\n  do\n    read(*, *, iostat=ios) v\n    if (ios /= 0) exit\n    total = total + v\n  end do\n  print '(I0,1X,I0)', n, total\nend program\n",
    );
    let input = write(dir.path(), "in.txt", "1\n2\n3\n");
    let mut s = spec(dir.path(), 20);
    s.args = vec!["5".into()];
    s.stdin = Some(input);
    let r = run(&exe, &s).unwrap();
    assert!(r.success(), "{}", r.describe());
    assert_eq!(stdout_of(&r).trim(), "5 6");
}

#[test]
fn runs_in_cwd_with_env() {
    let tc = gfortran();
    let dir = tempfile::tempdir().unwrap();
    let exe = build_one(
        &tc,
        dir.path(),
        "program env\n  character(len=32) :: v\n  call get_environment_variable('AUGUR_TEST_VAR', v)\n  open(10, file='out.txt')\n  write(10, '(A)') trim(v)\n  close(10)\nend program\n",
    );
    let cwd = dir.path().join("rundir");
    std::fs::create_dir(&cwd).unwrap();
    let mut s = spec(&cwd, 20);
    s.env = vec![("AUGUR_TEST_VAR".into(), "hello".into())];
    let r = run(&exe, &s).unwrap();
    assert!(r.success(), "{}", r.describe());
    assert_eq!(
        std::fs::read_to_string(cwd.join("out.txt")).unwrap().trim(),
        "hello"
    );
}

#[test]
fn stop_code_is_exit_status() {
    let tc = gfortran();
    let dir = tempfile::tempdir().unwrap();
    let exe = build_one(&tc, dir.path(), "program s\n  stop 3\nend program\n");
    let r = run(&exe, &spec(dir.path(), 20)).unwrap();
    assert_eq!(r.exit_code, Some(3));
    assert_eq!(r.signal, None);
    assert!(!r.success());
    assert_eq!(r.describe(), "exited with status 3");
}

#[test]
fn segfault_is_reported_as_signal() {
    let tc = gfortran();
    let dir = tempfile::tempdir().unwrap();
    let c = write(
        dir.path(),
        "crash.c",
        "#include <signal.h>\nvoid c_crash(void) { signal(SIGSEGV, SIG_DFL); raise(SIGSEGV); }\n",
    );
    let f = write(
        dir.path(),
        "main.f90",
        "program main\n  interface\n    subroutine c_crash() bind(C)\n    end subroutine\n  end interface\n  print *, 'before'\n  call c_crash()\n  print *, 'after'\nend program\n",
    );
    let input = BuildInput {
        fortran: vec![f],
        c_sources: vec![c],
        ..Default::default()
    };
    let exe = build(&tc, &input, &dir.path().join("b"), "crash").unwrap_or_else(|e| panic!("{e}"));
    let r = run(&exe, &spec(dir.path(), 20)).unwrap();
    assert_eq!(r.signal, Some(11), "{}", r.describe());
    assert_eq!(r.exit_code, None);
    assert!(!r.success());
    assert!(!r.timed_out);
    let d = r.describe();
    assert!(d.contains("signal 11") && d.contains("SIGSEGV"), "{d}");
}

#[test]
fn abort_is_reported_as_signal() {
    let tc = gfortran();
    let dir = tempfile::tempdir().unwrap();
    let exe = build_one(&tc, dir.path(), "program a\n  call abort()\nend program\n");
    let r = run(&exe, &spec(dir.path(), 20)).unwrap();
    assert_eq!(r.signal, Some(6), "{}", r.describe());
    assert!(r.describe().contains("SIGABRT"), "{}", r.describe());
}

#[test]
fn infinite_loop_times_out() {
    let tc = Toolchain::detect("gfortran", "-O0").unwrap_or_else(|e| panic!("{e}"));
    let dir = tempfile::tempdir().unwrap();
    let exe = build_one(
        &tc,
        dir.path(),
        "program forever\n  integer :: i\n  i = 0\n  do\n    i = i + 1\n  end do\nend program\n",
    );
    let started = Instant::now();
    let r = run(&exe, &spec(dir.path(), 1)).unwrap();
    let took = started.elapsed();
    assert!(r.timed_out, "{}", r.describe());
    assert!(!r.success());
    assert!(took < Duration::from_secs(3), "took {took:?}");
    assert!(r.wall >= Duration::from_secs(1));
    assert_eq!(r.signal, Some(9));
    let d = r.describe();
    assert!(d.starts_with("timed out after") && d.ends_with(" s"), "{d}");
}

#[test]
fn timeout_kills_the_process_group() {
    // A shell script that starts a background sleeper holding stdout: the run must still end
    // quickly, and the sleeper must be gone.
    let dir = tempfile::tempdir().unwrap();
    let script = write(
        dir.path(),
        "spawner.sh",
        "#!/bin/sh\nsleep 300 &\necho $! > child.pid\nwait\n",
    );
    let mut perms = std::fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&script, perms).unwrap();
    let started = Instant::now();
    let r = run(&script, &spec(dir.path(), 1)).unwrap();
    assert!(r.timed_out);
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    let pid = std::fs::read_to_string(dir.path().join("child.pid")).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let alive = Path::new(&format!("/proc/{}", pid.trim())).exists()
        && !std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()))
            .map(|s| s.contains(") Z "))
            .unwrap_or(true);
    assert!(!alive, "background sleeper {} survived", pid.trim());
}

#[test]
fn reading_missing_stdin_gets_eof() {
    let tc = gfortran();
    let dir = tempfile::tempdir().unwrap();
    let exe = build_one(
        &tc,
        dir.path(),
        "program r\n  integer :: n\n  read(*, *) n\n  print *, n\nend program\n",
    );
    let started = Instant::now();
    let r = run(&exe, &spec(dir.path(), 10)).unwrap();
    assert!(!r.timed_out, "reading stdin hung");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(!r.success());
    assert!(r.exit_code.is_some_and(|c| c != 0), "{}", r.describe());
    assert!(
        String::from_utf8_lossy(&r.stderr).contains("End of file"),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
}

#[test]
fn large_output_does_not_deadlock() {
    let tc = gfortran();
    let dir = tempfile::tempdir().unwrap();
    let exe = build_one(
        &tc,
        dir.path(),
        "program big\n  integer :: i\n  do i = 1, 200000\n    write(*, '(I8)') i\n    write(0, '(I8)') i\n  end do\nend program\n",
    );
    let r = run(&exe, &spec(dir.path(), 30)).unwrap();
    assert!(r.success(), "{}", r.describe());
    assert_eq!(r.stdout.len(), 200000 * 9);
    assert_eq!(r.stderr.len(), 200000 * 9);
}

/// A program that writes 300 MB to its standard output: its first 16 MiB and last MiB
/// are kept with a line saying how much was left out between them, so a program writing
/// gigabytes does not fill augur's memory; the last bytes it wrote are there.
#[test]
fn a_flood_of_output_is_kept_at_its_ends() {
    let tc = gfortran();
    let dir = tempfile::tempdir().unwrap();
    let exe = build_one(
        &tc,
        dir.path(),
        "program flood\n  character(len=1048576) :: block\n  integer :: u, i\n  block = repeat('x', len(block))\n  open(newunit=u, file='/dev/stdout', access='stream', form='unformatted')\n  do i = 1, 300\n    write(u) block\n  end do\n  write(u) 'THE END'\n  close(u)\nend program\n",
    );
    let r = run(&exe, &spec(dir.path(), 120)).unwrap();
    assert!(r.success(), "{}", r.describe());
    let kept = augur_toolchain::KEPT_HEAD + augur_toolchain::KEPT_TAIL;
    assert!(r.stdout.len() < kept + 200, "kept {} bytes", r.stdout.len());
    let text = stdout_of(&r);
    assert!(text.ends_with("THE END"), "the last bytes are kept");
    let dropped = 300 * 1048576 + 7 - kept;
    assert!(
        text.contains(&format!("[augur: {dropped} bytes of output left out here]")),
        "no note of what was left out"
    );
}

/// A program that leaves a child running in the background (`sleep 300 &` through the
/// shell) returns at once, says so, and its child is killed: no process outlives the run.
#[test]
fn children_left_running_are_killed() {
    let tc = gfortran();
    let dir = tempfile::tempdir().unwrap();
    let exe = build_one(
        &tc,
        dir.path(),
        "program leaves\n  call execute_command_line('sh -c \"echo $$ > child.pid; exec sleep 300\" &')\n  call execute_command_line('sleep 0.5')\n  print *, 'done'\nend program\n",
    );
    let start = Instant::now();
    let r = run(&exe, &spec(dir.path(), 60)).unwrap();
    assert!(r.success(), "{}", r.describe());
    assert!(r.left_behind, "the child in the background was not seen");
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "the run waited for its child"
    );
    let pid = std::fs::read_to_string(dir.path().join("child.pid")).unwrap();
    let stat = format!("/proc/{}/stat", pid.trim());
    // Killed: gone, or a zombie until something reaps it.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let state = std::fs::read_to_string(&stat)
            .ok()
            .and_then(|s| s.rsplit(')').next().map(|r| r.trim().chars().next()))
            .flatten();
        if matches!(state, None | Some('Z') | Some('X')) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the child {} still runs",
            pid.trim()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn run_errors_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-program");
    let err = run(&missing, &spec(dir.path(), 5)).unwrap_err();
    assert!(err.to_string().contains("no-such-program"), "{err}");
    let mut s = spec(dir.path(), 5);
    s.stdin = Some(dir.path().join("no-such-input"));
    let err = run(Path::new("/bin/true"), &s).unwrap_err();
    assert!(err.to_string().contains("no-such-input"), "{err}");
    let s = spec(&dir.path().join("no-such-dir"), 5);
    let err = run(Path::new("/bin/true"), &s).unwrap_err();
    assert!(err.to_string().contains("no-such-dir"), "{err}");
}

#[test]
fn fixed_addresses_repeat_from_run_to_run() {
    // The counting run samples addresses by a hash of their line: without address-space
    // randomization a heap array and a static one sit at the same addresses every run.
    let tc = gfortran();
    let dir = tempfile::tempdir().unwrap();
    let exe = build_one(
        &tc,
        dir.path(),
        "program p\n  real(8), allocatable :: a(:)\n  real(8), save :: s(1000)\n  allocate(a(100000))\n  a = 1; s = 2\n  print *, loc(a), loc(s)\nend program p\n",
    );
    let mut fixed = spec(dir.path(), 30);
    fixed.fixed_addresses = true;
    let first = stdout_of(&run(&exe, &fixed).unwrap());
    let second = stdout_of(&run(&exe, &fixed).unwrap());
    assert!(!first.trim().is_empty());
    assert_eq!(first, second);
}
