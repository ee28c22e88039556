//! The user's Fortran toolchain: detecting the compiler, checking its flags, building a
//! program from sources, and running the result under a timeout.
//!
//! Saavedra's "machine" is the CPU together with the compiler and its flags, so everything
//! here goes through the user's own compiler ([`Toolchain`]) rather than a fixed one.
//!
//! * [`Toolchain::detect`] checks that the compiler runs and records its version;
//!   [`Toolchain::check_flags`] checks that it accepts the flags.
//! * [`build`] compiles each source separately (modules first) and links the executable.
//! * [`run`] runs it in its own process group with stdin from a file or `/dev/null`, captures
//!   its output and kills the whole group when the time limit is reached.
//! * [`parse_compiler_messages`] turns gfortran's and flang/clang's diagnostics into
//!   [`CompilerMessage`]s; [`optreport`] reads the compiler's optimization report.
//! * [`os`]: what the operating system says of the caches, TLBs and CPUs.
//! * [`interrupt`]: Ctrl-C and SIGTERM for every command: the cancel flag every long piece
//!   of work polls and the registry of live child process groups the handler kills. Every
//!   child started here ([`run`], and the compilers of [`build`], [`compile_only`] and
//!   [`Toolchain`] through [`tool_output`]) runs in a registered group of its own and an
//!   interrupted wait gives an `Interrupted` error.
//!
//! Architecture invariant: this is the only crate of augur that starts processes.

pub mod experiment;
pub mod interrupt;
pub mod optreport;
pub mod os;

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// A Fortran compiler with its flags (Saavedra's "machine" is CPU + compiler + flags).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Toolchain {
    /// The compiler: a command name looked up on `PATH` or a path, e.g. `gfortran`,
    /// `flang-19`, `/opt/bin/gfortran`.
    pub fc: String,
    /// The user's flags, e.g. `["-O2", "-march=native"]`; used for every compile and the link.
    pub fflags: Vec<String>,
    /// The C compiler for C sources: `$CC` if set, else `gcc`.
    pub cc: String,
    /// The first line of `fc --version`.
    pub version: String,
}

/// What went wrong when detecting or checking a [`Toolchain`].
#[derive(Debug, thiserror::Error)]
pub enum ToolchainError {
    /// The compiler command does not exist (not on `PATH`, or no such file).
    #[error("Fortran compiler `{fc}` not found; {hint}")]
    CompilerNotFound {
        /// The command as given.
        fc: String,
        /// What to do about it, e.g. `install it: apt-get install gfortran`.
        hint: String,
    },
    /// The compiler exists but could not be started or `--version` failed.
    #[error("Fortran compiler `{fc}` does not work: {message}; check that it is a working compiler or pass another one")]
    CompilerFailed {
        /// The command as given.
        fc: String,
        /// Why: the OS error or the compiler's output.
        message: String,
    },
    /// The flags string could not be split (e.g. an unterminated quote).
    #[error("cannot split the flags `{flags}`: {message}; check the quoting in --fflags")]
    BadFlagSyntax {
        /// The flags as given.
        flags: String,
        /// What is wrong with them.
        message: String,
    },
    /// The compiler rejected the flags when compiling a tiny program.
    #[error("{fc} rejected the flags `{flags}`: {message}; check --fflags")]
    FlagsRejected {
        /// The compiler command.
        fc: String,
        /// The flags, joined with spaces.
        flags: String,
        /// The compiler's stderr.
        message: String,
    },
    /// A file-system error while checking (e.g. the temporary directory), or an interrupt
    /// (`source` of kind `Interrupted`, see [`interrupt`]).
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

impl Toolchain {
    /// Checks the compiler exists and runs (`fc --version`) and splits `fflags` shell-like
    /// (whitespace separates; single and double quotes and backslashes group).
    ///
    /// The C compiler is `$CC` if set and non-empty, else `gcc`; it is not checked here.
    ///
    /// A missing compiler gives [`ToolchainError::CompilerNotFound`] with an install hint
    /// (`apt-get install gfortran` for gfortran, `apt-get install flang-19` for flang-19).
    pub fn detect(fc: &str, fflags: &str) -> Result<Toolchain, ToolchainError> {
        let fc = fc.trim();
        let flags = split_flags(fflags)?;
        if fc.is_empty() {
            return Err(ToolchainError::CompilerNotFound {
                fc: String::new(),
                hint: "no compiler was given; pass one, e.g. gfortran".to_string(),
            });
        }
        let given = fc;
        let resolved = resolve_compiler(fc);
        let fc = resolved.as_str();
        let output = tool_output(compiler_command(fc).arg("--version"));
        let output = match output {
            Ok(o) => o,
            Err(source) if source.kind() == io::ErrorKind::Interrupted => {
                return Err(ToolchainError::Io {
                    what: format!("`{fc} --version`"),
                    source,
                })
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(ToolchainError::CompilerNotFound {
                    fc: given.to_string(),
                    hint: install_hint(given),
                })
            }
            Err(e) => {
                return Err(ToolchainError::CompilerFailed {
                    fc: fc.to_string(),
                    message: format!("cannot run it: {e}"),
                })
            }
        };
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        if !output.status.success() {
            let text = if stderr.trim().is_empty() {
                stdout.trim()
            } else {
                stderr.trim()
            };
            return Err(ToolchainError::CompilerFailed {
                fc: fc.to_string(),
                message: format!(
                    "`{fc} --version` {}: {}",
                    describe_status(output.status),
                    text
                ),
            });
        }
        let version = stdout
            .lines()
            .chain(stderr.lines())
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .to_string();
        let cc = std::env::var("CC")
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "gcc".to_string());
        Ok(Toolchain {
            fc: fc.to_string(),
            fflags: flags,
            cc,
            version,
        })
    }

    /// Checks that the compiler accepts the flags by compiling and linking a tiny program in a
    /// temporary directory. The program is valid in both fixed and free form, so form flags
    /// do not matter. A rejected flag gives [`ToolchainError::FlagsRejected`] with the
    /// compiler's stderr.
    pub fn check_flags(&self) -> Result<(), ToolchainError> {
        let dir = interrupt::temp_dir("augur-flags-").map_err(|source| ToolchainError::Io {
            what: "cannot create a temporary directory to check the flags".to_string(),
            source,
        })?;
        let src = dir.path().join("augurchk.f90");
        // Statements start in column 7: valid fixed form and free form.
        std::fs::write(
            &src,
            "      program augurchk\n      print *, 'ok'\n      end\n",
        )
        .map_err(|source| ToolchainError::Io {
            what: format!("cannot write {}", src.display()),
            source,
        })?;
        let mut cmd = compiler_command(&self.fc);
        cmd.args(&self.fflags)
            .arg(&src)
            .arg("-o")
            .arg(dir.path().join("augurchk"))
            .current_dir(dir.path());
        scratch_in(&mut cmd, dir.path());
        let output = match tool_output(&mut cmd) {
            Ok(o) => o,
            Err(source) if source.kind() == io::ErrorKind::Interrupted => {
                return Err(ToolchainError::Io {
                    what: "checking the flags".to_string(),
                    source,
                })
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(ToolchainError::CompilerNotFound {
                    fc: self.fc.clone(),
                    hint: install_hint(&self.fc),
                })
            }
            Err(e) => {
                return Err(ToolchainError::CompilerFailed {
                    fc: self.fc.clone(),
                    message: format!("cannot run it: {e}"),
                })
            }
        };
        if output.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let message = if stderr.trim().is_empty() {
            stdout.trim().to_string()
        } else {
            stderr.trim().to_string()
        };
        Err(ToolchainError::FlagsRejected {
            fc: self.fc.clone(),
            flags: self.fflags.join(" "),
            message,
        })
    }

    /// Whether this is gfortran (vs flang or another compiler); decides flags such as the
    /// module directory (`-J` for gfortran, `-module-dir` for flang).
    pub fn is_gfortran(&self) -> bool {
        if self.version.contains("GNU Fortran") {
            return true;
        }
        let lower = self.version.to_ascii_lowercase();
        if lower.contains("flang") || lower.contains("intel") || lower.contains("nvfortran") {
            return false;
        }
        command_basename(&self.fc).contains("gfortran")
    }

    /// Whether this is LLVM flang (`flang`, `flang-new`, `flang-19`, ...).
    pub fn is_flang(&self) -> bool {
        if self.version.to_ascii_lowercase().contains("flang") {
            return true;
        }
        !self.is_gfortran() && command_basename(&self.fc).contains("flang")
    }

    /// The arguments that send module files to `dir`.
    fn module_dir_args(&self, dir: &Path) -> Vec<String> {
        let dir = dir.display().to_string();
        if self.is_gfortran() {
            vec!["-J".to_string(), dir]
        } else if self.is_flang() {
            vec!["-module-dir".to_string(), dir]
        } else {
            // ifort, ifx, nvfortran and pgfortran.
            vec!["-module".to_string(), dir]
        }
    }

    /// Whether the user's flags already choose a module directory.
    fn flags_set_module_dir(&self) -> bool {
        self.fflags.iter().any(|f| {
            f.starts_with("-J")
                || f == "-module-dir"
                || f.starts_with("-module-dir=")
                || f == "-module"
        })
    }
}

/// Splits a flags string shell-like: whitespace separates words; `'...'` groups literally;
/// `"..."` groups with `\"` and `\\` escapes; a backslash outside quotes escapes the next
/// character. An unterminated quote gives [`ToolchainError::BadFlagSyntax`].
pub fn split_flags(flags: &str) -> Result<Vec<String>, ToolchainError> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = flags.chars();
    let bad = |message: &str| ToolchainError::BadFlagSyntax {
        flags: flags.to_string(),
        message: message.to_string(),
    };
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => return Err(bad("unterminated single quote")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => cur.push(c),
                            Some(c) => {
                                cur.push('\\');
                                cur.push(c);
                            }
                            None => return Err(bad("unterminated double quote")),
                        },
                        Some(c) => cur.push(c),
                        None => return Err(bad("unterminated double quote")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => cur.push(c),
                    None => return Err(bad("trailing backslash")),
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

/// The file name part of a command (`/opt/bin/gfortran-12` -> `gfortran-12`).
fn command_basename(fc: &str) -> String {
    Path::new(fc)
        .file_name()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| fc.to_string())
}

/// What to do when the compiler `fc` is missing.
fn install_hint(fc: &str) -> String {
    let base = command_basename(fc);
    let shown = if fc.contains('/') {
        format!("there is no executable at {fc}; ")
    } else {
        format!("`{fc}` is not on PATH; ")
    };
    let what = if base.starts_with("gfortran") {
        let version = base.strip_prefix("gfortran-").filter(|v| !v.is_empty());
        match version {
            Some(v) => format!("install it: apt-get install gfortran-{v}"),
            None => "install it: apt-get install gfortran".to_string(),
        }
    } else if let Some(v) = base
        .strip_prefix("flang-")
        .filter(|v| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit()))
    {
        format!("install it: apt-get install flang-{v}")
    } else if base.starts_with("flang") {
        "install it: apt-get install flang-19 (then use flang-19 or flang-new-19)".to_string()
    } else {
        "check the name, install the compiler, or give its full path".to_string()
    };
    shown + &what
}

/// The command to run for the compiler `fc`: `fc` itself, except that LLVM flang's
/// versioned name `flang-N` that is not on `PATH` resolves to `flang-new-N` when that is
/// (Debian's flang-19 package installs only `flang-new-19`).
pub fn resolve_compiler(fc: &str) -> String {
    let Some(v) = fc
        .strip_prefix("flang-")
        .filter(|v| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit()))
    else {
        return fc.to_string();
    };
    if on_path(fc) {
        return fc.to_string();
    }
    let alt = format!("flang-new-{v}");
    if on_path(&alt) {
        alt
    } else {
        fc.to_string()
    }
}

/// Whether an executable file named `name` is in a directory of `PATH`.
fn on_path(name: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|d| {
            std::fs::metadata(d.join(name))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}

/// A command for a compiler, with messages in untranslated English so they can be parsed.
fn compiler_command(program: &str) -> Command {
    let mut cmd = Command::new(program);
    cmd.env("LC_ALL", "C");
    cmd
}

/// Points the compiler's own scratch files (gcc's `ccXXXXXX.s` and the like, made in
/// `TMPDIR`) into the build directory `dir`: a compiler killed by an interrupt cannot
/// clean them up, and the build directory goes as the work unwinds.
fn scratch_in(cmd: &mut Command, dir: &Path) {
    cmd.env(
        "TMPDIR",
        std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf()),
    );
}

/// Runs a tool (a compiler, the linker, `gcov`) to its end and returns what it printed, as
/// `Command::output` does, with stdin from `/dev/null`, in a process group of its own that
/// an interrupt kills. An interrupt gives an error of kind `Interrupted`
/// ([`interrupt::interrupted_error`]), and so does a call once the work was cancelled.
pub fn tool_output(cmd: &mut Command) -> io::Result<Output> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (mut child, group) = interrupt::spawn_in_group(cmd)?;
    let stdout_reader = child.stdout.take().map(Reader::start);
    let stderr_reader = child.stderr.take().map(Reader::start);
    let waited = child.wait();
    if waited.is_err() {
        group.kill();
    }
    let status = waited?;
    let stdout = stdout_reader.map(|r| r.finish(None)).unwrap_or_default();
    let stderr = stderr_reader.map(|r| r.finish(None)).unwrap_or_default();
    drop(group);
    if interrupt::cancelled() {
        return Err(interrupt::interrupted_error());
    }
    Ok(Output {
        status,
        stdout,
        stderr,
    })
}

/// The files to build and link.
#[derive(Debug, Clone, Default)]
pub struct BuildInput {
    /// Fortran sources in compile order (modules first); may be free-form generated files.
    pub fortran: Vec<PathBuf>,
    /// Added after the user flags for the Fortran sources, e.g. `-ffree-form`,
    /// `-ffree-line-length-none`; not used at link time.
    pub extra_fflags: Vec<String>,
    /// C sources, compiled with `cc -O2 -c`.
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
/// C sources are compiled with `cc -O2 -c`. Objects are named after their sources
/// (`a.f90` -> `workdir/a.o`, with a suffix when two sources share a name).
pub fn build(
    tc: &Toolchain,
    input: &BuildInput,
    workdir: &Path,
    exe_name: &str,
) -> Result<PathBuf, BuildError> {
    std::fs::create_dir_all(workdir).map_err(|source| BuildError::Io {
        what: format!("cannot create the build directory {}", workdir.display()),
        source,
    })?;
    let mut taken: HashSet<String> = HashSet::new();
    let mut objects: Vec<PathBuf> = Vec::new();

    for src in &input.fortran {
        let obj = workdir.join(object_name(src, &mut taken));
        let cmd = fortran_compile(tc, &input.extra_fflags, workdir, src, &obj);
        compile_one(cmd, &tc.fc, src)?;
        objects.push(obj);
    }
    for src in &input.c_sources {
        let obj = workdir.join(object_name(src, &mut taken));
        let mut cmd = compiler_command(&tc.cc);
        cmd.arg("-O2").arg("-c").arg(src).arg("-o").arg(&obj);
        scratch_in(&mut cmd, workdir);
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

/// One diagnostic of the compiler, parsed from its stderr.
#[derive(Debug, Clone, PartialEq)]
pub struct CompilerMessage {
    /// The source file as the compiler names it.
    pub file: PathBuf,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, if given.
    pub col: Option<u32>,
    /// As the compiler spells it: `Error`, `Warning`, `Fatal Error` (gfortran), `error`,
    /// `warning`, `note` (flang, clang, gcc).
    pub severity: String,
    /// The message text.
    pub message: String,
}

/// Severities recognised in diagnostics, longest first (matched case-insensitively).
const SEVERITIES: &[&str] = &[
    "internal compiler error",
    "internal error",
    "fatal error",
    "portability",
    "warning",
    "error",
    "remark",
    "note",
];

/// Parses gfortran's multi-line format (a `file:line:col:` line, then the quoted source and
/// caret lines, then `Error: message`) and flang/clang/gcc's single-line format
/// (`file:line:col: error: message`). Lines that are neither (source quotes, driver
/// messages without a location, `compilation terminated.`) are skipped.
pub fn parse_compiler_messages(stderr: &str) -> Vec<CompilerMessage> {
    let mut out = Vec::new();
    let mut pending: Option<(PathBuf, u32, Option<u32>)> = None;
    for raw in stderr.lines() {
        let cleaned = strip_ansi(raw);
        let line = cleaned.trim_end();
        if line.is_empty() || line.starts_with(char::is_whitespace) {
            continue;
        }
        if line.starts_with("In file included from") {
            continue;
        }
        if let Some(msg) = parse_single_line(line) {
            out.push(msg);
            pending = None;
            continue;
        }
        if let Some(body) = line.strip_suffix(':') {
            if let Some(loc) = parse_location(body) {
                // With several loci, the first is the one the message is about.
                if pending.is_none() {
                    pending = Some(loc);
                }
                continue;
            }
        }
        if let Some((severity, message)) = split_severity(line) {
            if let Some((file, line_no, col)) = pending.take() {
                out.push(CompilerMessage {
                    file,
                    line: line_no,
                    col,
                    severity: severity.to_string(),
                    message: message.to_string(),
                });
            }
        }
    }
    out
}

/// Removes ANSI colour escapes (`ESC [ ... letter`).
fn strip_ansi(s: &str) -> String {
    if !s.contains('\u{1b}') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// `file:line`, `file:line:col` or `file:line:col-col` -> the parts.
fn parse_location(s: &str) -> Option<(PathBuf, u32, Option<u32>)> {
    let (rest, last) = s.rsplit_once(':')?;
    let number = |t: &str| -> Option<u32> {
        if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
            t.parse().ok()
        } else {
            None
        }
    };
    // The last part may be a column range like `5-12`.
    let last_num = number(last).or_else(|| {
        let (a, b) = last.split_once('-')?;
        number(b)?;
        number(a)
    })?;
    if let Some((file, line)) = rest.rsplit_once(':') {
        if let Some(line) = number(line) {
            if !file.is_empty() {
                return Some((PathBuf::from(file), line, Some(last_num)));
            }
        }
    }
    if rest.is_empty() || number(last).is_none() {
        return None;
    }
    Some((PathBuf::from(rest), last_num, None))
}

/// `Severity: message` -> the parts, if it starts with a known severity.
fn split_severity(s: &str) -> Option<(&str, &str)> {
    let lower = s.to_ascii_lowercase();
    for sev in SEVERITIES {
        if lower.starts_with(sev) && s[sev.len()..].starts_with(':') {
            let message = s[sev.len() + 1..].trim();
            return Some((&s[..sev.len()], message));
        }
    }
    None
}

/// `file:line:col: severity: message` -> a message.
fn parse_single_line(line: &str) -> Option<CompilerMessage> {
    for (idx, _) in line.match_indices(": ") {
        let after = &line[idx + 2..];
        let Some((severity, message)) = split_severity(after) else {
            continue;
        };
        if let Some((file, line_no, col)) = parse_location(&line[..idx]) {
            return Some(CompilerMessage {
                file,
                line: line_no,
                col,
                severity: severity.to_string(),
                message: message.to_string(),
            });
        }
    }
    None
}

/// How to run the program.
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// Command-line arguments.
    pub args: Vec<String>,
    /// A file to read as stdin; `None` gives `/dev/null` (reads see end-of-file).
    pub stdin: Option<PathBuf>,
    /// The time limit; the whole process group is killed when it is reached.
    pub timeout: Duration,
    /// Environment variables set on top of the inherited environment.
    pub env: Vec<(String, String)>,
    /// The working directory of the program (an empty path keeps the current one).
    pub cwd: PathBuf,
    /// Capture stdout/stderr (`true`) or let them go to the terminal (`false`).
    pub capture: bool,
    /// Run without address-space randomization (Linux `personality(ADDR_NO_RANDOMIZE)`),
    /// so that the addresses the counting run samples (spatially, by a hash of the line
    /// address) are the same from one analysis to the next.
    pub fixed_addresses: bool,
}

impl RunSpec {
    /// A spec with no arguments, stdin from `/dev/null`, no extra environment and captured
    /// output.
    pub fn new(cwd: impl Into<PathBuf>, timeout: Duration) -> RunSpec {
        RunSpec {
            args: Vec::new(),
            stdin: None,
            timeout,
            env: Vec::new(),
            cwd: cwd.into(),
            capture: true,
            fixed_addresses: false,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// The exit status, if the program exited.
    pub exit_code: Option<i32>,
    /// The signal that killed the program, if any (`9` after a timeout).
    pub signal: Option<i32>,
    /// Captured stdout (empty when not captured).
    pub stdout: Vec<u8>,
    /// Captured stderr (empty when not captured).
    pub stderr: Vec<u8>,
    /// Wall time from spawn to the end of the wait.
    pub wall: Duration,
    /// CPU time (user + system) the program used, its children included once waited for.
    pub cpu: Duration,
    /// Whether the time limit was reached and the program killed.
    pub timed_out: bool,
}

impl RunResult {
    /// Whether the program exited with status 0 within the time limit.
    pub fn success(&self) -> bool {
        !self.timed_out && self.exit_code == Some(0)
    }

    /// `exited with status 3`, `killed by signal 11 (SIGSEGV)`, `timed out after 5 s`.
    pub fn describe(&self) -> String {
        if self.timed_out {
            let secs = self.wall.as_secs_f64();
            return if secs >= 1.0 {
                format!("timed out after {} s", secs.round() as u64)
            } else {
                format!("timed out after {} ms", self.wall.as_millis())
            };
        }
        if let Some(sig) = self.signal {
            return match signal_name(sig) {
                Some(name) => format!("killed by signal {sig} ({name})"),
                None => format!("killed by signal {sig}"),
            };
        }
        match self.exit_code {
            Some(code) => format!("exited with status {code}"),
            None => "ended in an unknown way".to_string(),
        }
    }
}

/// The name of a Linux signal.
fn signal_name(sig: i32) -> Option<&'static str> {
    const NAMES: [&str; 31] = [
        "SIGHUP",
        "SIGINT",
        "SIGQUIT",
        "SIGILL",
        "SIGTRAP",
        "SIGABRT",
        "SIGBUS",
        "SIGFPE",
        "SIGKILL",
        "SIGUSR1",
        "SIGSEGV",
        "SIGUSR2",
        "SIGPIPE",
        "SIGALRM",
        "SIGTERM",
        "SIGSTKFLT",
        "SIGCHLD",
        "SIGCONT",
        "SIGSTOP",
        "SIGTSTP",
        "SIGTTIN",
        "SIGTTOU",
        "SIGURG",
        "SIGXCPU",
        "SIGXFSZ",
        "SIGVTALRM",
        "SIGPROF",
        "SIGWINCH",
        "SIGIO",
        "SIGPWR",
        "SIGSYS",
    ];
    usize::try_from(sig)
        .ok()
        .and_then(|i| i.checked_sub(1))
        .and_then(|i| NAMES.get(i).copied())
}

/// Text for an exit status: `exited with status 1` / `was killed by signal 9`.
fn describe_status(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exited with status {c}"),
        (None, Some(s)) => format!("was killed by signal {s}"),
        _ => "failed".to_string(),
    }
}

/// What went wrong in [`run`] (a program that fails or times out is not an error; see
/// [`RunResult`]).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The working directory does not exist.
    #[error("the working directory {} does not exist; create it or choose another", .cwd.display())]
    Cwd {
        /// The directory.
        cwd: PathBuf,
    },
    /// The stdin file could not be opened.
    #[error("cannot open the input file {} for stdin: {source}; check the path", .path.display())]
    Stdin {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The program could not be started.
    #[error("cannot start {}: {source}; check that it was built and is executable", .exe.display())]
    Spawn {
        /// The executable.
        exe: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// Waiting for the program failed.
    #[error("lost track of {} while waiting for it: {source}", .exe.display())]
    Wait {
        /// The executable.
        exe: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// Ctrl-C or SIGTERM stopped the run, killing the program's group ([`interrupt`]).
    #[error("interrupted")]
    Interrupted,
}

/// How long to keep reading output after the program ended (a background process that
/// inherited the pipes may keep them open).
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// Runs the executable with the spec.
///
/// stdin comes from the file if given, else `/dev/null`, so a program that reads input that
/// is not there gets end-of-file instead of hanging. The program runs in its own process
/// group; when the timeout is reached the whole group is killed with `SIGKILL` and the
/// result has `timed_out` set. Output is read on separate threads, so a program that writes
/// a lot cannot block on a full pipe. A program that fails is not an error: see
/// [`RunResult::success`] and [`RunResult::describe`].
///
/// The group is registered with [`interrupt`]: Ctrl-C or SIGTERM kills it and the run
/// returns [`RunError::Interrupted`] (so does a call once the work was cancelled).
pub fn run(exe: &Path, spec: &RunSpec) -> Result<RunResult, RunError> {
    if interrupt::cancelled() {
        return Err(RunError::Interrupted);
    }
    // A relative program path with a different working directory is ambiguous: make it
    // relative to our own working directory.
    let exe_abs = if exe.is_absolute() {
        exe.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(exe))
            .unwrap_or_else(|_| exe.to_path_buf())
    };
    let mut cmd = Command::new(&exe_abs);
    cmd.args(&spec.args);
    if !spec.cwd.as_os_str().is_empty() {
        if !spec.cwd.is_dir() {
            return Err(RunError::Cwd {
                cwd: spec.cwd.clone(),
            });
        }
        cmd.current_dir(&spec.cwd);
    }
    for (k, v) in &spec.env {
        cmd.env(k, v);
    }
    match &spec.stdin {
        Some(path) => {
            let file = File::open(path).map_err(|source| RunError::Stdin {
                path: path.clone(),
                source,
            })?;
            cmd.stdin(Stdio::from(file));
        }
        None => {
            cmd.stdin(Stdio::null());
        }
    }
    if spec.capture {
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    } else {
        cmd.stdout(Stdio::inherit()).stderr(Stdio::inherit());
    }
    cmd.process_group(0);
    if spec.fixed_addresses {
        // SAFETY: `personality` is async-signal-safe and only changes how the child's
        // address space is laid out; a refusal leaves randomization on.
        unsafe {
            cmd.pre_exec(|| {
                libc::personality(libc::ADDR_NO_RANDOMIZE as libc::c_ulong);
                Ok(())
            });
        }
    }

    let cpu_before = children_cpu();
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|source| RunError::Spawn {
        exe: exe.to_path_buf(),
        source,
    })?;
    let pid = child.id();
    let group = interrupt::register_group(pid);

    let stdout_reader = child.stdout.take().map(Reader::start);
    let stderr_reader = child.stderr.take().map(Reader::start);

    // The watchdog kills the process group at the deadline unless told the child ended.
    let timed_out = Arc::new(AtomicBool::new(false));
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let watchdog = {
        let timed_out = Arc::clone(&timed_out);
        let timeout = spec.timeout;
        thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = done_rx.recv_timeout(timeout) {
                timed_out.store(true, Ordering::SeqCst);
                interrupt::kill_group(pid);
            }
        })
    };

    let waited = child.wait();
    let wall = start.elapsed();
    let cpu = children_cpu().saturating_sub(cpu_before);
    let _ = done_tx.send(());
    let _ = watchdog.join();
    let status = match waited {
        Ok(s) => s,
        Err(source) => {
            let _ = child.kill();
            group.kill();
            return Err(RunError::Wait {
                exe: exe.to_path_buf(),
                source,
            });
        }
    };

    let deadline = Instant::now() + DRAIN_GRACE;
    let stdout = stdout_reader
        .map(|r| r.finish(Some(deadline)))
        .unwrap_or_default();
    let stderr = stderr_reader
        .map(|r| r.finish(Some(deadline)))
        .unwrap_or_default();
    drop(group);
    if interrupt::cancelled() {
        return Err(RunError::Interrupted);
    }
    Ok(RunResult {
        exit_code: status.code(),
        signal: status.signal(),
        stdout,
        stderr,
        wall,
        cpu,
        timed_out: timed_out.load(Ordering::SeqCst),
    })
}

/// User plus system CPU time of all waited-for children of this process so far
/// (`getrusage(RUSAGE_CHILDREN)`); the difference around one run is that run's CPU
/// time, as runs are waited for one at a time.
fn children_cpu() -> Duration {
    // SAFETY: getrusage only writes the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a rusage struct.
    if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) } != 0 {
        return Duration::ZERO;
    }
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// A thread that reads a pipe to its end into a shared buffer.
struct Reader {
    buf: Arc<Mutex<Vec<u8>>>,
    done: mpsc::Receiver<()>,
}

impl Reader {
    /// Starts reading `pipe`.
    fn start<R: Read + Send + 'static>(mut pipe: R) -> Reader {
        let buf = Arc::new(Mutex::new(Vec::new()));
        let (tx, done) = mpsc::channel();
        let shared = Arc::clone(&buf);
        thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        if let Ok(mut b) = shared.lock() {
                            b.extend_from_slice(&chunk[..n]);
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let _ = tx.send(());
        });
        Reader { buf, done }
    }

    /// Waits for the end of the pipe until `deadline` (`None`: however long it takes) or
    /// an interrupt, then returns what was read.
    fn finish(self, deadline: Option<Instant>) -> Vec<u8> {
        const POLL: Duration = Duration::from_millis(50);
        loop {
            let left = deadline.map_or(POLL, |d| d.saturating_duration_since(Instant::now()));
            match self.done.recv_timeout(left.min(POLL)) {
                Err(mpsc::RecvTimeoutError::Timeout)
                    if !interrupt::cancelled() && left > Duration::ZERO => {}
                _ => break,
            }
        }
        match self.buf.lock() {
            Ok(mut b) => std::mem::take(&mut *b),
            Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
