//! What a program pays to start and end, outside its own code (`[process]`).
//!
//! Every run of a Fortran program loads it and its run-time libraries (the loader maps and
//! relocates `libgfortran`, `libm`, `libquadmath`, ...), initializes them, and at the end
//! flushes its units and exits. A timed run counts it all (`augur validate` times the
//! process's CPU time); a prediction that prices only the program's statements misses it.
//! It is a millisecond or two: nothing for a run of seconds, a tenth of a run of 15 ms.

use serde::{Deserialize, Serialize};

/// The cost of a process around the program's code, measured by `augur characterize`
/// (or `--process` alone) as the CPU time of a program that only prints a number, built
/// with the profile's compiler and flags.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcessProfile {
    /// The median CPU time (user + system) of the runs, ns: the loader, the run-time
    /// libraries' initialization, one line of output and the exit.
    pub start_ns: f64,
    /// Half the range of the middle half of the runs (their interquartile range over
    /// two), ns: how much one run's start moves.
    pub spread_ns: f64,
    /// Runs timed (after the untimed ones that warm the file cache).
    pub runs: u32,
}

impl ProcessProfile {
    /// Why the section cannot be priced with, if it cannot: a start or spread that is
    /// negative or not finite.
    pub fn inconsistency(&self) -> Option<String> {
        let bad = |x: f64| !x.is_finite() || x < 0.0;
        (bad(self.start_ns) || bad(self.spread_ns))
            .then(|| "[process] has a negative or infinite start_ns or spread_ns".to_string())
    }

    /// The start in seconds.
    pub fn start_seconds(&self) -> f64 {
        self.start_ns * 1e-9
    }
}

#[cfg(test)]
mod tests {
    use crate::{MachineProfile, Provenance};

    #[test]
    fn a_process_section_reads_back_and_a_negative_start_is_refused() {
        let mut p = MachineProfile::new(Provenance::default());
        p.process = Some(super::ProcessProfile {
            start_ns: 1.25e6,
            spread_ns: 4.0e4,
            runs: 21,
        });
        let text = p.to_toml();
        assert!(text.contains("[process]"), "{text}");
        let back = MachineProfile::from_toml(&text, "p.toml").unwrap();
        assert_eq!(back.process, p.process);
        let bad = text.replace("start_ns = 1250000.0", "start_ns = -1.0");
        assert_ne!(bad, text);
        let e = MachineProfile::from_toml(&bad, "p.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("[process]") && e.contains("p.toml"), "{e}");
    }
}
