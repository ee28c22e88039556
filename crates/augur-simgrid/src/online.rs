//! SimGrid's own online simulation of an MPI program (SMPI: the program built with
//! `smpif90` runs inside the simulator, its compute bursts timed on this host and its
//! calls simulated on the platform), the peer a user would pick instead of augur's trace
//! replay: `augur bench simgrid` sets them side by side.

use crate::{Platform, SimGridError};
use std::path::Path;
use std::time::Duration;

/// One online simulation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OnlineRun {
    /// The simulated time of the program, seconds.
    pub simulated: f64,
    /// What the simulation took on this host (wall clock), seconds.
    pub wall: f64,
}

/// Runs `exe` (built with `smpif90`) at `ranks` ranks on `platform` in `dir`. Compute
/// bursts count at the host's speed: the platform's cores and `smpi/host-speed` are both
/// 1 Gflop/s (augur's platforms), so a burst takes in the simulation what it took here.
pub fn run(
    exe: &Path,
    platform: &Platform,
    ranks: u32,
    dir: &Path,
    timeout: Duration,
) -> Result<OnlineRun, SimGridError> {
    let smpirun =
        augur_toolchain::find_on_path("smpirun").ok_or_else(|| SimGridError::Missing {
            tool: "smpirun".into(),
        })?;
    let io =
        |e: std::io::Error| SimGridError::Replay(format!("cannot write in {}: {e}", dir.display()));
    std::fs::write(dir.join("platform.xml"), &platform.xml).map_err(io)?;
    std::fs::write(dir.join("hosts"), &platform.hostfile).map_err(io)?;
    let mut spec = augur_toolchain::RunSpec::new(dir, timeout);
    spec.args = vec![
        "-np".into(),
        ranks.to_string(),
        "-platform".into(),
        "platform.xml".into(),
        "-hostfile".into(),
        "hosts".into(),
        "--cfg=smpi/host-speed:1Gf".into(),
        "--cfg=smpi/display-timing:yes".into(),
    ];
    spec.args.extend(platform.config.iter().cloned());
    spec.args.push(exe.display().to_string());
    let ran = augur_toolchain::run(&smpirun, &spec).map_err(|e| match e {
        augur_toolchain::RunError::Interrupted => SimGridError::Cancelled,
        e => SimGridError::Replay(e.to_string()),
    })?;
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr)
    );
    let simulated = out
        .lines()
        .filter_map(|l| l.split("Simulated time: ").nth(1))
        .filter_map(|t| t.split_whitespace().next()?.parse::<f64>().ok())
        .next_back();
    match (ran.success(), simulated) {
        (true, Some(simulated)) => Ok(OnlineRun {
            simulated,
            wall: ran.wall.as_secs_f64(),
        }),
        _ => {
            let tail: Vec<&str> = out
                .lines()
                .filter(|l| !l.contains("xbt_cfg/INFO"))
                .collect();
            Err(SimGridError::Replay(format!(
                "SimGrid's online simulation: {}: {}",
                ran.describe(),
                tail[tail.len().saturating_sub(4)..].join("; ")
            )))
        }
    }
}
