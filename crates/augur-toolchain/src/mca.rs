//! LLVM's llvm-mca, the peer the in-core model is compared with (`augur bench incore`):
//! its cycles per iteration of a loop body on the scheduling model of a CPU LLVM knows.
//! The model never needs it.

use crate::tool_output;
use std::process::Command;

/// An llvm-mca found on the PATH.
#[derive(Debug, Clone)]
pub struct Mca {
    /// The command (`llvm-mca-19`, `llvm-mca`).
    pub program: String,
    /// Its LLVM major version.
    pub major: u32,
}

/// The newest llvm-mca on the PATH, or `None`.
pub fn find() -> Option<Mca> {
    let names = (14..=21)
        .rev()
        .map(|v| format!("llvm-mca-{v}"))
        .chain(std::iter::once("llvm-mca".to_string()));
    for program in names {
        let Ok(out) = tool_output(Command::new(&program).arg("--version")) else {
            continue;
        };
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let major = text
            .split_whitespace()
            .skip_while(|w| *w != "version")
            .nth(1)
            .and_then(|v| v.split('.').next()?.parse().ok())
            .unwrap_or(0);
        return Some(Mca { program, major });
    }
    None
}

/// The `-mcpu` of an AMD family and model (x86-64 `cpu family` / `model` of
/// /proc/cpuinfo) that this LLVM knows, newest first: Zen 5, 4, 3, 2, 1.
pub fn amd_cpu(family: u32, model: u32, llvm_major: u32) -> &'static str {
    let zen = match (family, model) {
        (26, _) => 5,
        (25, 0x10..=0x1f) | (25, 0x60..=0xaf) => 4,
        (25, _) => 3,
        (23, 0x30..=0xff) => 2,
        (23, _) => 1,
        _ => 0,
    };
    let known = match llvm_major {
        19.. => 5,
        16.. => 4,
        12.. => 3,
        _ => 2,
    };
    match zen.min(known) {
        5 => "znver5",
        4 => "znver4",
        3 => "znver3",
        2 => "znver2",
        1 => "znver1",
        _ => "x86-64",
    }
}

/// llvm-mca's cycles per iteration of `body` (assembler text) on `mcpu`: its total
/// cycles over its iterations.
pub fn cycles_per_iteration(mca: &Mca, mcpu: &str, body: &str) -> Result<f64, String> {
    let dir = crate::interrupt::temp_dir("augur-mca-")
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let file = dir.path().join("loop.s");
    std::fs::write(&file, body).map_err(|e| e.to_string())?;
    let out = tool_output(
        Command::new(&mca.program)
            .arg(format!("-mcpu={mcpu}"))
            .arg("-iterations=200")
            .arg(&file),
    )
    .map_err(|e| format!("{} could not run: {e}", mca.program))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |name: &str| -> Option<f64> {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
    };
    match (field("Iterations:"), field("Total Cycles:")) {
        (Some(n), Some(c)) if n > 0.0 => Ok(c / n),
        _ => Err(format!(
            "{} did not report cycles: {}",
            mca.program,
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amd_families_name_the_newest_model_llvm_knows() {
        assert_eq!(amd_cpu(25, 17, 14), "znver3");
        assert_eq!(amd_cpu(25, 17, 19), "znver4");
        assert_eq!(amd_cpu(25, 1, 19), "znver3");
        assert_eq!(amd_cpu(26, 2, 19), "znver5");
        assert_eq!(amd_cpu(26, 2, 17), "znver4");
    }
}
