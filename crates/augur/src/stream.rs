//! `augur stream`: measure stream-context AbOp costs and add them to a machine profile.

use anyhow::{Context, Result};
use augur_machine_profile::MachineProfile;
use augur_stream::{StreamResult, StreamSettings};
use augur_toolchain::Toolchain;
use std::path::Path;
use std::process::ExitCode;

/// Runs `augur stream --machine FILE`: reads the profile, measures with its compiler and
/// flags (or `fc`/`fflags`), replaces its stream table and writes it back atomically.
pub fn run(
    machine: &Path,
    fc: Option<&str>,
    fflags: Option<&str>,
    quick: bool,
    kernels: bool,
    keep_build: Option<std::path::PathBuf>,
    prior: bool,
) -> Result<ExitCode> {
    // The error names the file.
    let mut profile = MachineProfile::read(machine)?;
    let fc = fc.unwrap_or(&profile.provenance.compiler).to_string();
    let fflags = fflags.unwrap_or(&profile.provenance.fflags).to_string();
    let fc = if fc.trim().is_empty() {
        "gfortran".to_string()
    } else {
        fc
    };
    let tc = Toolchain::detect(&fc, &fflags)?;
    let mut settings = settings_for(quick);
    settings.keep_dir = keep_build;
    if prior {
        settings.chain_costs = profile
            .abop
            .iter()
            .filter(|(_, e)| e.status == augur_machine_profile::MEASURED)
            .filter_map(|(&op, e)| Some((op, e.mean_ns.filter(|m| *m > 0.0)?)))
            .collect();
    }
    eprintln!(
        "stream: {} kernels with {} {} ({} observations of at least {} ms each)",
        settings.kernels,
        tc.fc,
        tc.fflags.join(" "),
        settings.observations,
        settings.window_ms
    );
    let result = measure_into(&tc, settings, &mut profile, "stream", &mut |l| {
        eprintln!("{l}")
    })?;
    profile
        .write(machine)
        .with_context(|| format!("cannot write the machine profile {}", machine.display()))?;
    if kernels {
        print_kernels(&result);
    }
    print_costs(&profile, &result);
    Ok(ExitCode::SUCCESS)
}

/// The stream settings of the default or the quick mode.
pub fn settings_for(quick: bool) -> StreamSettings {
    if quick {
        StreamSettings::quick()
    } else {
        StreamSettings::default()
    }
}

/// Measures the stream costs with `settings`, prints the fit's notes on stderr after
/// `who: `, and adds the costs to `profile` (used by `augur stream` and
/// by the complete `augur characterize`).
pub fn measure_into(
    tc: &Toolchain,
    settings: StreamSettings,
    profile: &mut MachineProfile,
    who: &str,
    progress: &mut dyn FnMut(&str),
) -> Result<StreamResult> {
    let prepared = augur_stream::prepare(tc, settings, progress)?;
    measure_prepared_into(prepared, profile, who, progress)
}

/// [`measure_into`] of kernels already built ([`augur_stream::prepare`]).
pub fn measure_prepared_into(
    prepared: augur_stream::Prepared,
    profile: &mut MachineProfile,
    who: &str,
    progress: &mut dyn FnMut(&str),
) -> Result<StreamResult> {
    let result = prepared.measure(progress)?;
    for n in &result.notes {
        eprintln!("{who}: {n}");
    }
    augur_stream::apply(profile, &result);
    Ok(result)
}

fn print_kernels(r: &StreamResult) {
    println!(
        "{:<8} {:<30} {:>4} {:>9} {:>9} {:>9} {:>7}  counts per iteration",
        "kernel", "what", "vec", "meas ns", "fit ns", "LOO ns", "LOO %"
    );
    for k in &r.kernels {
        let counts: Vec<String> = k
            .counts
            .iter()
            .map(|(op, v)| {
                if v.fract() == 0.0 {
                    format!("{op}:{v}")
                } else {
                    format!("{op}:{v:.2}")
                }
            })
            .collect();
        let loo = if k.loo_ns.is_finite() && k.measured_ns > 0.0 {
            format!("{:+.0}", 100.0 * (k.loo_ns - k.measured_ns) / k.measured_ns)
        } else {
            "-".to_string()
        };
        println!(
            "{:<8} {:<30} {:>4} {:>9.3} {:>9.3} {:>9.3} {:>7}  {}{}",
            k.name,
            k.description,
            if k.vectorized { "vec" } else { "" },
            k.measured_ns,
            k.fitted_ns,
            k.loo_ns,
            loo,
            counts.join(" "),
            k.note
                .as_ref()
                .map(|n| format!("  [{n}]"))
                .unwrap_or_default()
        );
    }
    println!();
}

fn print_costs(p: &MachineProfile, r: &StreamResult) {
    let title = if r.vector_stats.is_some() {
        "scalar loops (kernels the compiler did not vectorize)"
    } else {
        "all kernels"
    };
    print_table(p, &r.entries, &r.stats, title);
    if let Some(vs) = &r.vector_stats {
        println!();
        print_table(
            p,
            &r.vector_entries,
            vs,
            "vectorized loops (kernels the compiler reported vectorized)",
        );
    }
    print_divider(r);
}

/// The divide unit's occupancy per operation ([`StreamResult::divider_entries`]).
fn print_divider(r: &StreamResult) {
    if r.divider_entries.is_empty() {
        return;
    }
    println!();
    println!("divide unit, ns each operation holds it in a scalar loop (not pipelined):");
    for (op, e) in &r.divider_entries {
        println!(
            "{:<5} {:>10.3} ±{:.3}  {}",
            op.to_string(),
            e.mean_ns.unwrap_or(f64::NAN),
            e.ci90_ns.unwrap_or(f64::NAN),
            e.status
        );
    }
}

fn print_table(
    p: &MachineProfile,
    entries: &std::collections::BTreeMap<augur_ir::AbOp, augur_machine_profile::AbOpEntry>,
    s: &augur_stream::FitStats,
    title: &str,
) {
    println!("stream costs, {title}:");
    println!(
        "{:<5} {:>10} {:>10} {:>10} {:>8}  status",
        "AbOp", "stream ns", "±90% ns", "chain ns", "ratio"
    );
    for (op, e) in entries {
        let s = e.mean_ns.unwrap_or(f64::NAN);
        let chain = p.abop.get(op).and_then(|c| c.mean_ns);
        let (chain_txt, ratio) = match chain {
            Some(c) if c > 0.0 => (format!("{c:.3}"), format!("{:.2}", s / c)),
            Some(c) => (format!("{c:.3}"), "-".to_string()),
            None => ("-".to_string(), "-".to_string()),
        };
        println!(
            "{:<5} {:>10.3} {:>10.3} {:>10} {:>8}  {}",
            op.mnemonic(),
            s,
            e.ci90_ns.unwrap_or(f64::NAN),
            chain_txt,
            ratio,
            e.status
        );
    }
    println!(
        "{} of {} kernels fitted with {} parameters in {:.0} s: R² {:.3}, in-sample median error {:.1}%, \
         leave-one-out median error {:.1}%, p90 {:.0}%",
        s.kernels,
        s.generated,
        s.parameters,
        s.elapsed_s,
        s.r2,
        100.0 * s.fit_median,
        100.0 * s.loo_median,
        100.0 * s.loo_p90
    );
    if !s.unfitted.is_empty() {
        let names: Vec<String> = s
            .unfitted
            .iter()
            .map(|(op, why)| format!("{op} ({why})"))
            .collect();
        println!(
            "no stream cost (the predictor scales the chain cost by its family's stream/chain ratio): {}",
            names.join(", ")
        );
    }
}
