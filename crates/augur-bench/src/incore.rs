//! `augur bench incore`: the in-core model beside its peer, loop by loop. Each corpus
//! program is compiled to assembly with the machine profile's compiler and flags; every
//! innermost loop augur prices from its instructions is priced on the profile's
//! `[incore]` parameters (cycles per compiled iteration) and given to LLVM's llvm-mca
//! with the `-mcpu` of the host's family, and the two are printed side by side.

use crate::corpus;
use anyhow::{bail, Result};
use augur_model::LoadedMachine;
use augur_toolchain::{compiled, mca, os, Toolchain};
use std::path::Path;

/// What `augur bench incore` is asked.
pub struct IncoreArgs<'a> {
    /// The corpus manifest.
    pub manifest: &'a Path,
    /// The machine profile (with `[incore]`).
    pub machine: &'a str,
    /// Only these corpus programs (all when empty).
    pub only: &'a [String],
    /// llvm-mca's `-mcpu` (default: the host's family).
    pub mcpu: Option<&'a str>,
}

/// One loop priced by both.
struct Row {
    program: String,
    place: String,
    instructions: u32,
    augur_cycles: f64,
    bound: String,
    mca_cycles: Option<f64>,
}

/// Runs the comparison and prints its table.
pub fn run(a: &IncoreArgs) -> Result<crate::Verdict> {
    let machine = LoadedMachine::load(a.machine)?;
    let Some(incore) = machine.profile.incore.clone() else {
        bail!(
            "{} has no [incore] section: measure it with `augur characterize --incore -o {}`",
            machine.path.display(),
            machine.path.display()
        );
    };
    let (fc, fflags) = crate::validation::build_setup(&machine, None, None);
    let tc = Toolchain::detect(&fc, &fflags)?;
    let peer = mca::find();
    let mcpu = a.mcpu.map(str::to_string).or_else(|| {
        let (family, model) = os::cpu_family_model()?;
        Some(mca::amd_cpu(family, model, peer.as_ref()?.major).to_string())
    });
    let (root, programs) = corpus::load(a.manifest, a.only)?;
    println!(
        "augur in-core model against llvm-mca: the corpus's innermost loops built with {fc} {fflags}, \
         cycles per compiled iteration on {} ({}); peer: {}",
        machine.name,
        machine.profile.provenance.cpu_model,
        match (&peer, &mcpu) {
            (Some(p), Some(m)) => format!("{} -mcpu={m}", p.program),
            _ => "llvm-mca not found (apt-get install llvm): augur's column only".to_string(),
        }
    );
    let mut rows = vec![];
    for p in &programs {
        let (sources, _) = p.sources(&root);
        let names: Vec<String> = sources.iter().map(|s| s.display().to_string()).collect();
        let asm = match compiled::assembly(&tc, &sources, &p.preprocessing_flags(&root)) {
            Ok(a) => a,
            Err(e) => {
                println!("{}: not compiled: {e}", p.name);
                continue;
            }
        };
        for text in &asm {
            for (cl, body) in compiled::loops_with_text(text, &names) {
                let Some(t) = augur_model::incore::loop_time(&cl, &incore) else {
                    continue;
                };
                let mca_cycles = match (&peer, &mcpu) {
                    (Some(peer), Some(m)) => mca::cycles_per_iteration(peer, m, &body).ok(),
                    _ => None,
                };
                rows.push(Row {
                    program: p.name.clone(),
                    place: format!(
                        "{}:{}",
                        Path::new(&cl.file)
                            .file_name()
                            .map_or(cl.file.clone(), |f| f.to_string_lossy().to_string()),
                        cl.line
                    ),
                    instructions: cl.issued,
                    augur_cycles: t.per_compiled_iteration * 1e9 / incore.cycle_ns,
                    bound: t.bound.to_string(),
                    mca_cycles,
                });
            }
        }
    }
    print_rows(&rows);
    Ok(crate::Verdict::Passed)
}

fn print_rows(rows: &[Row]) {
    println!(
        "{:<14} {:<20} {:>6} {:>8} {:>8} {:>7}  augur's bound",
        "program", "loop", "instr", "augur", "mca", "ratio"
    );
    let mut ratios = vec![];
    for r in rows {
        let (mca, ratio) = match r.mca_cycles {
            Some(m) if m > 0.0 => {
                ratios.push(r.augur_cycles / m);
                (format!("{m:.2}"), format!("{:.2}", r.augur_cycles / m))
            }
            _ => ("-".to_string(), "-".to_string()),
        };
        println!(
            "{:<14} {:<20} {:>6} {:>8.2} {:>8} {:>7}  {}",
            r.program, r.place, r.instructions, r.augur_cycles, mca, ratio, r.bound
        );
    }
    if ratios.is_empty() {
        println!("\n{} loops priced; no peer figures", rows.len());
        return;
    }
    ratios.sort_by(f64::total_cmp);
    let median = ratios[ratios.len() / 2];
    let within = |x: f64| ratios.iter().filter(|r| (*r - 1.0).abs() <= x).count();
    println!(
        "\n{} loops: augur/llvm-mca median {median:.2}; within 10% {}, within 25% {}, within a factor of 2 {}",
        ratios.len(),
        within(0.10),
        within(0.25),
        ratios.iter().filter(|r| **r >= 0.5 && **r <= 2.0).count()
    );
}
