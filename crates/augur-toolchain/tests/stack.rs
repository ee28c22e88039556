//! The stack a program runs with: an `-fopenmp` build puts its local arrays there, so
//! every run gets the main thread's limit raised (to the hard limit at most) and the
//! other threads' OMP_STACKSIZE unless the environment sets it.

use augur_toolchain::{run, RunSpec, MAIN_STACK_BYTES, OMP_STACKSIZE, THREAD_STACK};
use std::time::Duration;

#[test]
fn a_program_runs_with_the_stack_raised() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = RunSpec::new(dir.path(), Duration::from_secs(30));
    spec.args = vec![
        "-c".into(),
        "ulimit -s; ulimit -Hs; echo \"$OMP_STACKSIZE\"".into(),
    ];
    let r = run(std::path::Path::new("/bin/sh"), &spec).unwrap();
    assert!(r.success(), "{}", r.describe());
    let out = String::from_utf8_lossy(&r.stdout).to_string();
    let lines: Vec<&str> = out.lines().collect();
    let kib = |s: &str| -> u64 {
        if s == "unlimited" {
            u64::MAX
        } else {
            s.parse().unwrap_or_else(|_| panic!("{out}"))
        }
    };
    let (soft, hard) = (kib(lines[0]), kib(lines[1]));
    assert!(soft >= hard.min(MAIN_STACK_BYTES / 1024), "{out}");
    let expected = std::env::var(OMP_STACKSIZE).unwrap_or_else(|_| THREAD_STACK.into());
    assert_eq!(lines[2], expected, "{out}");
}
