//! `augur plot`: the memory sweep of a machine profile as an SVG figure.

use anyhow::{bail, Result};
use augur_machine_profile::MachineProfile;
use std::path::Path;
use std::process::ExitCode;

/// Reads `profile`, draws its memory sweep and writes `output` atomically.
pub fn run(profile: &Path, output: &Path) -> Result<ExitCode> {
    // A file or a library name, as `-m` takes.
    let profile = &augur_machine_profile::library::resolve(&profile.to_string_lossy())?;
    let p = MachineProfile::read(profile)?;
    let Some(m) = &p.memory else {
        bail!(
            "{} has no memory section; {}",
            profile.display(),
            crate::cli::measure_advice(profile, |f| format!("augur characterize --memory -o {f}"))
        );
    };
    if m.sweep.is_empty() {
        bail!("{} has no sweep points to draw", profile.display());
    }
    let caches: Vec<(String, u64)> = m
        .levels
        .iter()
        .filter_map(|l| Some((l.name.clone(), l.os_size_bytes?)))
        .collect();
    let name = profile.file_stem().unwrap_or_default().to_string_lossy();
    let svg = augur_memory::svg::sweep_figure_named(m, &caches, Some(&name))
        .map_err(anyhow::Error::msg)?;
    crate::figure_style::write_figure(output, &svg)?;
    println!(
        "{}: {} curves, written to {}",
        profile.display(),
        m.sweep.len(),
        output.display()
    );
    Ok(ExitCode::SUCCESS)
}
