//! The process's start measured with the real compiler: a program that only prints a
//! number costs a positive CPU time of a millisecond's order, its spread below it.

use augur_toolchain::Toolchain;

#[test]
fn an_empty_program_costs_the_process_start_and_no_more() {
    let tc = Toolchain::detect("gfortran", "-O2").expect("gfortran is installed");
    let p = augur_machine::process::measure_start(&tc, 9).expect("the program builds and runs");
    assert_eq!(p.runs, 9);
    // Loading libgfortran and exiting: tens of microseconds at the least, and no
    // program of one print takes 100 ms of CPU.
    assert!(
        p.start_ns > 2.0e4 && p.start_ns < 1.0e8,
        "start {} ns",
        p.start_ns
    );
    assert!(p.spread_ns >= 0.0 && p.spread_ns < p.start_ns, "{p:?}");
}

#[test]
fn flags_the_compiler_refuses_are_a_build_error_naming_the_program() {
    let tc = Toolchain::detect("gfortran", "-O2 -fno-such-flag-augur").expect("gfortran");
    let e = augur_machine::process::measure_start(&tc, 5)
        .unwrap_err()
        .to_string();
    assert!(e.contains("process-start program did not build"), "{e}");
}
