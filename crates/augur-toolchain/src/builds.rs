//! Builds: each source compiled separately in compile order, then linked.

use crate::*;
use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The files to build and link.
#[derive(Debug, Clone, Default)]
pub struct BuildInput {
    /// Fortran sources in compile order (modules first); may be free-form generated files.
    pub fortran: Vec<PathBuf>,
    /// Added after the user flags for the Fortran sources, e.g. `-ffree-form`,
    /// `-ffree-line-length-none`; not used at link time.
    pub extra_fflags: Vec<String>,
    /// C sources, compiled with `cc -O2 -c` (and the preprocessing flags of
    /// `extra_fflags`).
    pub c_sources: Vec<PathBuf>,
    /// `.o` / `.a` files, linked as given.
    pub objects: Vec<PathBuf>,
    /// `-l` / `-L` / other linker arguments, passed at link time after the objects.
    pub link_args: Vec<String>,
}

/// What went wrong in [`build`].
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A source did not compile.
    #[error("could not compile {}: {}", .file.display(), compile_summary(.messages, .stderr))]
    Compile {
        /// The source file.
        file: PathBuf,
        /// The compiler's stderr (and stdout, if any).
        stderr: String,
        /// The diagnostics parsed from `stderr`.
        messages: Vec<CompilerMessage>,
    },
    /// The link failed.
    #[error("could not link the program: {}; check the libraries and objects given to link with", .stderr.trim())]
    Link {
        /// The linker's stderr (and stdout, if any).
        stderr: String,
    },
    /// A file-system error, or a compiler that could not be started.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// Ctrl-C or SIGTERM stopped the build ([`interrupt`]).
    #[error("interrupted")]
    Interrupted,
}

/// The first error of a failed compile, or the whole output if none could be parsed.
fn compile_summary(messages: &[CompilerMessage], stderr: &str) -> String {
    let first = messages
        .iter()
        .find(|m| m.severity.to_ascii_lowercase().contains("error"))
        .or_else(|| messages.first());
    match first {
        Some(m) => {
            let col = m.col.map(|c| format!(":{c}")).unwrap_or_default();
            let more = messages
                .iter()
                .filter(|m| m.severity.to_ascii_lowercase().contains("error"))
                .count()
                .saturating_sub(1);
            let more = if more > 0 {
                format!(" (and {more} more error(s))")
            } else {
                String::new()
            };
            format!(
                "{}:{}{}: {}: {}{}",
                m.file.display(),
                m.line,
                col,
                m.severity,
                m.message,
                more
            )
        }
        None => {
            let s = stderr.trim();
            if s.is_empty() {
                "the compiler failed without a message".to_string()
            } else {
                s.to_string()
            }
        }
    }
}

/// Compiles each source separately with `-c` into `workdir`, then links with the Fortran
/// compiler and the user flags into `workdir/exe_name`. Returns the executable's path.
///
/// Fortran sources get the user flags, then `extra_fflags`, then the module directory
/// (gfortran `-J workdir`, flang `-module-dir workdir`; left out if the user flags already
/// choose one) and `-I workdir`, so later units find the `.mod` files of earlier ones.
/// C sources are compiled with `cc -O2 -c` and the preprocessing flags among
/// `extra_fflags` (`-D`, `-U`, `-I`): a program's C files see its definitions. Objects are named after their sources
/// (`a.f90` -> `workdir/a.o`, with a suffix when two sources share a name).
pub fn build(
    tc: &Toolchain,
    input: &BuildInput,
    workdir: &Path,
    exe_name: &str,
) -> Result<PathBuf, BuildError> {
    build_from(tc, input, workdir, exe_name, None)
}

/// [`build`] with every tool run in `workdir` itself, for generated programs: gfortran
/// reads a `USE`d module's `.mod` file from the working directory before the `-I`
/// directories, so a module file of the same name where augur was started (a foreign
/// `augglob.mod`) would break the build. The paths of `input` are made absolute.
pub fn build_in_workdir(
    tc: &Toolchain,
    input: &BuildInput,
    workdir: &Path,
    exe_name: &str,
) -> Result<PathBuf, BuildError> {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let all = |v: &[PathBuf]| v.iter().map(|p| absolute(p)).collect::<Vec<_>>();
    let input = BuildInput {
        fortran: all(&input.fortran),
        c_sources: all(&input.c_sources),
        objects: all(&input.objects),
        ..input.clone()
    };
    let dir = absolute(workdir);
    build_from(tc, &input, &dir, exe_name, Some(&dir))
}

/// [`build`], the tools run in `cwd` when given.
fn build_from(
    tc: &Toolchain,
    input: &BuildInput,
    workdir: &Path,
    exe_name: &str,
    cwd: Option<&Path>,
) -> Result<PathBuf, BuildError> {
    let run_in = |cmd: &mut Command| {
        if let Some(d) = cwd {
            cmd.current_dir(d);
        }
    };
    std::fs::create_dir_all(workdir).map_err(|source| BuildError::Io {
        what: format!("cannot create the build directory {}", workdir.display()),
        source,
    })?;
    let mut taken: HashSet<String> = HashSet::new();
    let mut objects: Vec<PathBuf> = Vec::new();

    for src in &input.fortran {
        let obj = workdir.join(object_name(src, &mut taken));
        let mut cmd = fortran_compile(tc, &input.extra_fflags, workdir, src, &obj);
        run_in(&mut cmd);
        compile_one(cmd, &tc.fc, src)?;
        objects.push(obj);
    }
    for src in &input.c_sources {
        let obj = workdir.join(object_name(src, &mut taken));
        let mut cmd = compiler_command(&tc.cc);
        cmd.arg("-O2").args(preprocessing(&input.extra_fflags));
        cmd.arg("-c").arg(src).arg("-o").arg(&obj);
        scratch_in(&mut cmd, workdir);
        run_in(&mut cmd);
        compile_one(cmd, &tc.cc, src)?;
        objects.push(obj);
    }

    let exe = workdir.join(exe_name);
    let mut cmd = compiler_command(&tc.fc);
    cmd.args(&tc.fflags)
        .args(&objects)
        .args(&input.objects)
        .args(&input.link_args)
        .arg("-o")
        .arg(&exe);
    scratch_in(&mut cmd, workdir);
    run_in(&mut cmd);
    let output = tool_output(&mut cmd)
        .map_err(|source| build_io_error(source, || format!("cannot run `{}` to link", tc.fc)))?;
    if !output.status.success() {
        return Err(BuildError::Link {
            stderr: combined_output(&output.stdout, &output.stderr),
        });
    }
    Ok(exe)
}

/// Compiles each Fortran source (in the order given) to an object in `workdir` with the
/// user flags plus `extra_fflags`, as [`build`] does, but does not link; returns what the
/// compiler printed for each file. Used for the compiler's optimization reports.
pub fn compile_only(
    tc: &Toolchain,
    fortran: &[PathBuf],
    extra_fflags: &[String],
    workdir: &Path,
) -> Result<Vec<String>, BuildError> {
    std::fs::create_dir_all(workdir).map_err(|source| BuildError::Io {
        what: format!("cannot create the build directory {}", workdir.display()),
        source,
    })?;
    let mut taken: HashSet<String> = HashSet::new();
    let mut printed = Vec::with_capacity(fortran.len());
    for src in fortran {
        let obj = workdir.join(object_name(src, &mut taken));
        let mut cmd = fortran_compile(tc, extra_fflags, workdir, src, &obj);
        let output = tool_output(&mut cmd).map_err(|source| {
            build_io_error(source, || {
                format!("cannot run the compiler `{}` for {}", tc.fc, src.display())
            })
        })?;
        let text = combined_output(&output.stdout, &output.stderr);
        if !output.status.success() {
            let messages = parse_compiler_messages(&text);
            return Err(BuildError::Compile {
                file: src.to_path_buf(),
                stderr: text,
                messages,
            });
        }
        printed.push(text);
    }
    Ok(printed)
}

/// The preprocessing flags (`-D`, `-U`, `-I`) among `flags`.
fn preprocessing(flags: &[String]) -> impl Iterator<Item = &String> {
    flags
        .iter()
        .filter(|f| ["-D", "-U", "-I"].iter().any(|p| f.starts_with(p)) && f.len() > 2)
}

/// The command compiling Fortran source `src` to `obj`: the user flags, then `extra`,
/// then the module directory (unless the user flags choose one) and `-I workdir`.
fn fortran_compile(
    tc: &Toolchain,
    extra: &[String],
    workdir: &Path,
    src: &Path,
    obj: &Path,
) -> Command {
    let mut cmd = compiler_command(&tc.fc);
    cmd.args(&tc.fflags).args(extra);
    if !tc.flags_set_module_dir() {
        cmd.args(tc.module_dir_args(workdir));
    }
    cmd.arg("-I")
        .arg(workdir)
        .arg("-c")
        .arg(src)
        .arg("-o")
        .arg(obj);
    scratch_in(&mut cmd, workdir);
    cmd
}

/// Runs one compile command; a failure becomes [`BuildError::Compile`].
fn compile_one(mut cmd: Command, compiler: &str, src: &Path) -> Result<(), BuildError> {
    let output = tool_output(&mut cmd).map_err(|source| {
        let not_found = source.kind() == io::ErrorKind::NotFound;
        build_io_error(source, || {
            if not_found {
                format!(
                    "cannot run the compiler `{compiler}` for {} (not found; install it or set CC for C sources)",
                    src.display()
                )
            } else {
                format!(
                    "cannot run the compiler `{compiler}` for {}",
                    src.display()
                )
            }
        })
    })?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = combined_output(&output.stdout, &output.stderr);
    let messages = parse_compiler_messages(&stderr);
    Err(BuildError::Compile {
        file: src.to_path_buf(),
        stderr,
        messages,
    })
}

/// The build error of a tool that could not be run: [`BuildError::Interrupted`] after an
/// interrupt, else [`BuildError::Io`] saying `what` was being done.
fn build_io_error(source: io::Error, what: impl FnOnce() -> String) -> BuildError {
    if source.kind() == io::ErrorKind::Interrupted {
        BuildError::Interrupted
    } else {
        BuildError::Io {
            what: what(),
            source,
        }
    }
}

/// stderr, preceded by stdout when the tool wrote there too.
fn combined_output(stdout: &[u8], stderr: &[u8]) -> String {
    let out = String::from_utf8_lossy(stdout);
    let err = String::from_utf8_lossy(stderr);
    if out.trim().is_empty() {
        err.into_owned()
    } else if err.trim().is_empty() {
        out.into_owned()
    } else {
        format!("{out}{err}")
    }
}

/// A unique object file name for `src` (`dir/a.f90` -> `a.o`, then `a_2.o`, ...).
fn object_name(src: &Path, taken: &mut HashSet<String>) -> String {
    let stem = src
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unit".to_string());
    let mut name = format!("{stem}.o");
    let mut n = 2;
    while !taken.insert(name.clone()) {
        name = format!("{stem}_{n}.o");
        n += 1;
    }
    name
}
