//! `augur completions SHELL` and `augur man [-o DIR]`: scripts and pages generated from
//! the real command definition, and a clear error (no panic) on a directory that cannot
//! be written.

use std::process::{Command, Output};

fn augur() -> Command {
    Command::new(env!("CARGO_BIN_EXE_augur"))
}

/// The standard output of a command that must have succeeded.
fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).to_string()
}

#[test]
fn completion_scripts_name_the_subcommands() {
    for shell in ["bash", "zsh"] {
        let script = stdout(&augur().args(["completions", shell]).output().unwrap());
        assert!(!script.trim().is_empty(), "{shell}: empty script");
        for sub in ["predict", "characterize"] {
            assert!(
                script.contains(sub),
                "{shell} script does not mention {sub}"
            );
        }
    }
}

#[test]
fn an_unknown_shell_is_clap_s_usage_error() {
    let out = augur().args(["completions", "cmd.exe"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid value 'cmd.exe'"), "{err}");
}

#[test]
fn man_pages_one_per_command_in_a_new_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("man/man1");
    stdout(&augur().args(["man", "-o"]).arg(&dir).output().unwrap());
    for page in ["augur.1", "augur-predict.1", "augur-compare-machines.1"] {
        let text = std::fs::read_to_string(dir.join(page)).unwrap();
        assert!(
            text.lines().any(|l| l.starts_with(".TH ")),
            "{page} has no roff header"
        );
    }
    let top = stdout(&augur().arg("man").output().unwrap());
    assert!(top.contains(".TH augur 1"), "{top}");
}

#[test]
fn an_unwritable_man_directory_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    for dir in [
        std::path::PathBuf::from("/proc/forbidden-dir"),
        file.join("man1"),
    ] {
        let out = augur().args(["man", "-o"]).arg(&dir).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{}: {err}", dir.display());
        assert!(err.contains(&dir.display().to_string()), "{err}");
        assert!(
            err.contains("give -o a directory you can write to"),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}
