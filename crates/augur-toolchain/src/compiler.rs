//! The compiler and its flags: detection, flag checks, install hints, and running a tool
//! in a registered process group.

use crate::*;
use std::io;
use std::path::Path;
use std::process::{Command, Output, Stdio};

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
    /// Whether its flags ask for optimization: the last `-O` option is not `-O0`
    /// (compilers do not optimize by default).
    pub fn optimizes(&self) -> bool {
        self.fflags
            .iter()
            .rfind(|f| f.starts_with("-O"))
            .is_some_and(|f| f != "-O0")
    }

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
    pub(crate) fn module_dir_args(&self, dir: &Path) -> Vec<String> {
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
    pub(crate) fn flags_set_module_dir(&self) -> bool {
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
/// The compiler a command runs, by its base name: an MPI wrapper's (`mpif90`,
/// `mpifort`: Open MPI's `--showme:command`, MPICH's `-show`), else the command's own.
/// A machine profile measured with `gfortran` prices a program built with `mpif90`
/// around it.
pub fn underlying_compiler(fc: &str) -> String {
    let name = command_basename(fc);
    if !name.starts_with("mpif") {
        return name;
    }
    let asked = |flag: &str| {
        std::process::Command::new(fc)
            .arg(flag)
            .stdin(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .split_whitespace()
                    .next()
                    .map(command_basename)
            })
    };
    asked("--showme:command")
        .or_else(|| asked("-show"))
        .unwrap_or(name)
}

fn command_basename(fc: &str) -> String {
    Path::new(fc)
        .file_name()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| fc.to_string())
}

/// What to do when the compiler `fc` is missing.
pub(crate) fn install_hint(fc: &str) -> String {
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
    find_on_path(name).is_some()
}

/// `mpirun`'s arguments to run `exe` with `args` on `ranks` ranks: as root with
/// `--allow-run-as-root` (Open MPI refuses root otherwise), and with `--oversubscribe`
/// when more ranks than cores are allowed (counting runs; never timing runs).
pub fn mpirun_args(
    ranks: u32,
    exe: &std::path::Path,
    oversubscribe: bool,
    args: &[String],
) -> Vec<String> {
    let mut out = vec![];
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        out.push("--allow-run-as-root".to_string());
    }
    if oversubscribe {
        out.push("--oversubscribe".to_string());
    }
    out.extend([
        "-np".to_string(),
        ranks.to_string(),
        exe.display().to_string(),
    ]);
    out.extend(args.iter().cloned());
    out
}

/// The first executable file named `name` in a directory of `PATH`.
pub fn find_on_path(name: &str) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// A command for a compiler, with messages in untranslated English so they can be parsed.
pub(crate) fn compiler_command(program: &str) -> Command {
    let mut cmd = Command::new(program);
    cmd.env("LC_ALL", "C");
    cmd
}

/// Points the compiler's own scratch files (gcc's `ccXXXXXX.s` and the like, made in
/// `TMPDIR`) into the build directory `dir`: a compiler killed by an interrupt cannot
/// clean them up, and the build directory goes as the work unwinds.
pub(crate) fn scratch_in(cmd: &mut Command, dir: &Path) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compiler_is_known_by_its_file_name_and_a_wrapper_by_what_it_runs() {
        assert_eq!(underlying_compiler("/usr/bin/gfortran"), "gfortran");
        assert_eq!(underlying_compiler("flang-new-19"), "flang-new-19");
        // A wrapper that cannot say what it wraps is taken by its own name.
        assert_eq!(underlying_compiler("/nonexistent/mpif90"), "mpif90");
        // Open MPI's wrapper (the CI installs it) runs gfortran.
        assert_eq!(underlying_compiler("mpif90"), "gfortran");
    }
}
