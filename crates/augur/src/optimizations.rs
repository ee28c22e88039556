//! `augur characterize --optimizations` (which optimizations the compiler applies, into
//! the profile's `[optimizations]` section) and `augur optimizations` (the tables of one
//! or more profiles, side by side).

use anyhow::{bail, Context, Result};
use augur_machine_profile::MachineProfile;
use augur_optimizations::{catalogue, table, Settings};
use augur_toolchain::Toolchain;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

/// What `augur characterize --optimizations` was asked.
#[derive(Debug, Clone)]
pub struct DetectArgs<'a> {
    /// Compiler.
    pub fc: &'a str,
    /// Its flags.
    pub fflags: &'a str,
    /// Short observations.
    pub quick: bool,
    /// Runs of the whole detection.
    pub repeat: u32,
    /// Only these optimizations (keys), or all.
    pub only: &'a [String],
    /// The profile to write (updated in place when it exists).
    pub output: &'a Path,
}

/// Runs the detection and writes its section into the profile atomically; an existing
/// profile keeps everything else and must be of the same compiler and flags. Ctrl-C
/// writes nothing.
pub fn characterize(a: &DetectArgs) -> Result<ExitCode> {
    let start = Instant::now();
    let tc = Toolchain::detect(a.fc, a.fflags)?;
    tc.check_flags()?;
    let mut profile = crate::characterize::existing_or_new(a.output, &tc, "optimizations only")?;
    same_machine(&profile, &tc, a.output)?;
    let all = catalogue::catalogue();
    let names: Vec<String> = a
        .only
        .iter()
        .flat_map(|o| o.split(','))
        .map(|s| s.trim().to_string())
        .collect();
    let tests = if names.is_empty() {
        all
    } else {
        catalogue::select(&all, &names).map_err(|bad| {
            let known: Vec<&str> = catalogue::OPTIMIZATIONS.iter().map(|o| o.0).collect();
            anyhow::anyhow!(
                "no optimization test named {}; the tests are {}",
                bad.join(", "),
                known.join(", ")
            )
        })?
    };
    let mut settings = if a.quick {
        Settings::QUICK
    } else {
        Settings::DEFAULT
    };
    settings.repeat = a.repeat.max(1);
    eprintln!(
        "optimizations: {} tests with {} {} ({} observations of {} ms per version, {} run(s))",
        tests.len(),
        tc.fc,
        tc.fflags.join(" "),
        settings.reps,
        settings.window_ns as f64 / 1e6,
        settings.repeat
    );
    let section = augur_optimizations::detect(&tc, &tests, settings, &mut |line| {
        eprintln!(
            "optimizations: {line} ({:.0} s)",
            start.elapsed().as_secs_f64()
        )
    });
    augur_toolchain::interrupt::check_cancel().map_err(anyhow::Error::msg)?;
    let section = section.map_err(anyhow::Error::msg)?;
    print!("{}", table::single(&section));
    if settings.repeat > 1 {
        print!("{}", table::stability(&section));
    }
    profile.optimizations = Some(section);
    profile
        .write(a.output)
        .with_context(|| format!("cannot write the machine profile {}", a.output.display()))?;
    println!(
        "optimization detection: {:.1} s; profile written to {}",
        start.elapsed().as_secs_f64(),
        a.output.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// An existing profile of another compiler or other flags is refused: its costs and the
/// optimizations would describe different machines.
fn same_machine(p: &MachineProfile, tc: &Toolchain, output: &Path) -> Result<()> {
    let prov = &p.provenance;
    let same_fc = augur_program_profile::optreport::same_compiler(&prov.compiler, &tc.fc);
    if same_fc
        && prov
            .fflags
            .split_whitespace()
            .eq(tc.fflags.iter().map(String::as_str))
    {
        return Ok(());
    }
    bail!(
        "{} was measured with {} {}, not {} {}: the optimizations belong in the profile of the same compiler and flags; choose another -o",
        output.display(),
        prov.compiler,
        prov.fflags,
        tc.fc,
        tc.fflags.join(" ")
    )
}

/// `augur optimizations -m A -m B ...`: the ratings of each profile's `[optimizations]`
/// section side by side (Markdown), or one profile's full table.
pub fn tables(machines: &[String], full: bool) -> Result<ExitCode> {
    let mut loaded = Vec::new();
    for m in machines {
        let (_, path, p) = augur_machine_profile::library::load(m)?;
        let Some(o) = p.optimizations.clone() else {
            bail!(
                "{} has no [optimizations] section: {}",
                path.display(),
                crate::cli::measure_advice(&path, |f| format!(
                    "augur characterize --optimizations --fc {} --fflags='{}' -o {f}",
                    p.provenance.compiler, p.provenance.fflags
                ))
            );
        };
        let label = format!("{} {}", p.provenance.compiler, p.provenance.fflags);
        loaded.push((label.trim().to_string(), o));
    }
    if full {
        for (label, o) in &loaded {
            println!("## {label}\n");
            print!("{}", table::single(o));
            println!();
        }
    }
    let columns: Vec<(
        String,
        &augur_machine_profile::optimizations::OptimizationsProfile,
    )> = loaded.iter().map(|(l, o)| (l.clone(), o)).collect();
    print!("{}", table::side_by_side(&columns));
    Ok(ExitCode::SUCCESS)
}
