//! The user's Fortran toolchain: detecting the compiler, checking its flags, building a
//! program from sources, and running the result under a timeout.
//!
//! Saavedra's "machine" is the CPU together with the compiler and its flags, so everything
//! here goes through the user's own compiler ([`Toolchain`]) rather than a fixed one.
//!
//! The parts: `compiler` (the [`Toolchain`], flags, tools run in registered groups),
//! `builds` ([`build`], [`compile_only`]), `messages` ([`parse_compiler_messages`]),
//! `runs` ([`run`]), and the public modules below; the first four are re-exported here.
//!
//! * [`Toolchain::detect`] checks that the compiler runs and records its version;
//!   [`Toolchain::check_flags`] checks that it accepts the flags.
//! * [`build`] compiles each source separately (modules first) and links the executable.
//! * [`run`] runs it in its own process group with stdin from a file or `/dev/null`, captures
//!   its output and kills the whole group when the time limit is reached.
//! * [`parse_compiler_messages`] turns gfortran's and flang/clang's diagnostics into
//!   [`CompilerMessage`]s; [`optreport`] reads the compiler's optimization report.
//! * [`experiment`]: the one generate-build-blame-run harness of the machine wing's
//!   experiment families.
//! * [`os`]: what the operating system says of the caches, TLBs and CPUs.
//! * [`interrupt`]: Ctrl-C and SIGTERM for every command: the cancel flag every long piece
//!   of work polls and the registry of live child process groups the handler kills. Every
//!   child started here ([`run`], and the compilers of [`build`], [`compile_only`] and
//!   [`Toolchain`] through [`tool_output`]) runs in a registered group of its own and an
//!   interrupted wait gives an `Interrupted` error.
//!
//! Architecture invariant: this is the only crate of augur that starts processes.

mod builds;
pub mod compiled;
mod compiler;
pub mod experiment;
pub mod forwarding;
pub mod interrupt;
pub mod mca;
mod messages;
pub mod optreport;
pub mod os;
mod runs;

pub use builds::*;
pub use compiler::*;
pub use messages::*;
pub use runs::*;

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn splits_flags_like_a_shell() {
        assert_eq!(
            split_flags(" -O2  -march=native ").unwrap(),
            vec!["-O2", "-march=native"]
        );
        assert_eq!(
            split_flags("-DNAME='a b' \"-I/x y\" a\\ b").unwrap(),
            vec!["-DNAME=a b", "-I/x y", "a b"]
        );
        assert!(split_flags("").unwrap().is_empty());
        assert!(matches!(
            split_flags("-O2 'x"),
            Err(ToolchainError::BadFlagSyntax { .. })
        ));
    }

    #[test]
    fn locations() {
        assert_eq!(
            parse_location("a.f90:3:4"),
            Some((PathBuf::from("a.f90"), 3, Some(4)))
        );
        assert_eq!(
            parse_location("a.f90:3:4-9"),
            Some((PathBuf::from("a.f90"), 3, Some(4)))
        );
        assert_eq!(
            parse_location("a.f90:3"),
            Some((PathBuf::from("a.f90"), 3, None))
        );
        assert_eq!(parse_location("gfortran"), None);
        assert_eq!(parse_location(":3"), None);
    }

    #[test]
    fn hints() {
        assert!(install_hint("gfortran").contains("apt-get install gfortran"));
        assert!(install_hint("flang-19").contains("apt-get install flang-19"));
        assert_eq!(resolve_compiler("gfortran"), "gfortran");
        assert_eq!(resolve_compiler("flang-x"), "flang-x");
        assert_eq!(resolve_compiler("flang-9999"), "flang-9999");
        assert!(install_hint("/opt/x/ifx").contains("full path"));
    }

    #[test]
    fn signal_names() {
        assert_eq!(signal_name(11), Some("SIGSEGV"));
        assert_eq!(signal_name(9), Some("SIGKILL"));
        assert_eq!(signal_name(0), None);
        assert_eq!(signal_name(64), None);
    }

    #[test]
    fn strips_colours() {
        assert_eq!(strip_ansi("\u{1b}[01;31mError:\u{1b}[m x"), "Error: x");
    }
}
