//! Which compiler flags make a machine: a machine profile is measured with the
//! compiler's code-generation flags (`-O2`, `-march=native`, `-ffast-math`, ...); flags
//! that only say how to read the sources (form, line length, standard, preprocessing,
//! include and module directories), what to warn about, or how to link leave the
//! generated code as it is, so a build that differs from the profile only in those is
//! the same machine; so do the flags that promote default kinds (`-fdefault-real-8`),
//! which are the program's declarations given on the command line.

/// Flags that never change the generated code, matched as a whole word.
const NEUTRAL: &[&str] = &[
    "-ffixed-form",
    "-ffree-form",
    "-ffree-line-length-none",
    "-ffixed-line-length-none",
    "-cpp",
    "-nocpp",
    "-pedantic",
    "-pedantic-errors",
    "-w",
    "-g",
    "-g1",
    "-g2",
    "-g3",
    "-ggdb",
    "-v",
    "-pipe",
    "-fimplicit-none",
    "-fallow-argument-mismatch",
    "-fallow-invalid-boz",
    "-fdollar-ok",
    "-fsyntax-only",
    "-Mfree",
    "-Mfixed",
];

/// Prefixes of flags that never change the generated code: line lengths, standards,
/// warnings (and linker options passed with `-Wl,`), diagnostics, optimization reports,
/// macros, include, module and library directories, libraries; and the flags that
/// promote default kinds (`-fdefault-real-8`, `-freal-4-real-8`, `-finteger-4-integer-8`):
/// they are the program's declarations given on the command line (the counting sees
/// the kinds they make), and the compiler treats the promoted program as one declared
/// so: they say nothing of the machine.
const NEUTRAL_PREFIXES: &[&str] = &[
    "-fdefault-",
    "-freal-",
    "-finteger-",
    "-ffixed-line-length-",
    "-ffree-line-length-",
    "-std=",
    "-W",
    "-fdiagnostics-",
    "-fmax-errors=",
    "-fopt-info",
    "-Rpass",
    "-D",
    "-U",
    "-I",
    "-J",
    "-L",
    "-l",
    "-module-dir",
];

/// Neutral flags whose value may come as the next word (`-I dir`, `-J dir`).
const WITH_SEPARATE_VALUE: &[&str] = &["-I", "-J", "-D", "-U", "-L", "-l", "-module-dir"];

/// Whether `flag` can change the code the compiler generates. Unknown flags are taken to
/// (an `-O3`, `-march=native`, `-funroll-loops` or `-fopenmp` does).
pub fn changes_code(flag: &str) -> bool {
    !(NEUTRAL.contains(&flag) || NEUTRAL_PREFIXES.iter().any(|p| flag.starts_with(p)))
}

/// The flags of `flags` that can change the generated code, in their order (the value of
/// a neutral flag given as the next word is left out with it).
pub fn code_generation<S: AsRef<str>>(flags: &[S]) -> Vec<&str> {
    let mut out = vec![];
    let mut words = flags.iter().map(AsRef::as_ref);
    while let Some(flag) = words.next() {
        if changes_code(flag) {
            out.push(flag);
        } else if WITH_SEPARATE_VALUE.contains(&flag) {
            words.next();
        }
    }
    out
}

/// Whether two builds generate the same code by their flags: the same code-generation
/// flags in the same order.
pub fn same_code_generation<A: AsRef<str>, B: AsRef<str>>(a: &[A], b: &[B]) -> bool {
    code_generation(a) == code_generation(b)
}

/// The code-generation flags of `a` that `b` lacks, then those of `b` that `a` lacks.
pub fn code_generation_differences<A: AsRef<str>, B: AsRef<str>>(
    a: &[A],
    b: &[B],
) -> (Vec<String>, Vec<String>) {
    let (a, b) = (code_generation(a), code_generation(b));
    let only = |x: &[&str], y: &[&str]| {
        x.iter()
            .filter(|f| !y.contains(f))
            .map(|f| f.to_string())
            .collect()
    };
    (only(&a, &b), only(&b, &a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_form_standard_warnings_and_paths_do_not_change_code() {
        let machine = ["-O2"];
        for build in [
            &["-O2", "-ffree-line-length-none"][..],
            &["-std=legacy", "-O2", "-Wall", "-g"],
            &[
                "-O2",
                "-I",
                "include",
                "-DNMAX=512",
                "-J",
                "mods",
                "-ffixed-line-length-132",
            ],
            &[
                "-cpp",
                "-O2",
                "-fallow-argument-mismatch",
                "-lm",
                "-L/opt/lib",
            ],
            &["-O2", "-fdefault-real-8", "-fdefault-double-8"],
            &["-freal-8-real-4", "-O2", "-finteger-4-integer-8"],
        ] {
            assert!(same_code_generation(&machine, build), "{build:?}");
        }
    }

    #[test]
    fn optimization_and_target_flags_do() {
        for build in [
            &["-O3"][..],
            &["-O2", "-march=native"],
            &["-O2", "-ffast-math"],
            &["-O2", "-funroll-loops"],
            &["-O2", "-fopenmp"],
            &["-O2", "-fsome-flag-augur-does-not-know"],
        ] {
            assert!(!same_code_generation(&["-O2"], build), "{build:?}");
        }
        let (only_machine, only_build) =
            code_generation_differences(&["-O2", "-Wall"], &["-O3", "-march=native", "-g"]);
        assert_eq!(only_machine, ["-O2"]);
        assert_eq!(only_build, ["-O3", "-march=native"]);
    }

    #[test]
    fn the_value_of_a_separate_include_directory_is_not_a_flag() {
        assert_eq!(code_generation(&["-I", "-O3-dir", "-O2"]), ["-O2"]);
    }
}
