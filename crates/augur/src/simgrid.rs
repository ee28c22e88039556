//! `augur platform`: a cluster description turned into a SimGrid platform.

use anyhow::{Context, Result};
use augur_machine_profile::MachineProfile;
use std::path::Path;
use std::process::ExitCode;

/// Reads the cluster file, writes the platform XML to `output` and its host file next to
/// it (`.hosts`), and prints the `smpirun` command that replays traces on it.
pub fn platform(cluster: &Path, output: &Path) -> Result<ExitCode> {
    let c = augur_simgrid::Cluster::read(cluster)?;
    let mpi = match &c.machine {
        Some(m) if c.intra.is_none() => {
            let profile = MachineProfile::read(m)?;
            let mpi = profile.mpi.with_context(|| {
                format!(
                    "{}: the machine profile {} has no [mpi] section: measure it with `augur characterize --mpi -o {}`",
                    cluster.display(),
                    m.display(),
                    m.display()
                )
            })?;
            Some(mpi)
        }
        _ => None,
    };
    let p = c
        .platform(mpi.as_ref())
        .map_err(|e| anyhow::anyhow!("{}: {e}", cluster.display()))?;
    let hosts = output.with_extension("hosts");
    crate::cli::write_atomically(output, p.xml.as_bytes())?;
    crate::cli::write_atomically(&hosts, p.hostfile.as_bytes())?;
    println!(
        "platform {} ({} nodes x {} cores = {} ranks, {:?}); host file {}",
        output.display(),
        c.nodes,
        c.cores_per_node,
        p.ranks,
        c.topology,
        hosts.display()
    );
    if let Some(m) = &c.machine {
        if c.intra.is_none() {
            println!(
                "the link inside a node and SMPI's factors by message size from {}'s measured ping-pong",
                m.display()
            );
        }
    }
    println!(
        "replay time-independent traces with:\n  smpirun -np {} -platform {} -hostfile {} -replay TRACES {} /usr/lib/x86_64-linux-gnu/simgrid/smpireplaymain",
        p.ranks,
        output.display(),
        hosts.display(),
        p.config
            .iter()
            .map(|c| format!("'{c}'"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    Ok(ExitCode::SUCCESS)
}

/// `augur predict PROFILE --mpi-ranks P [--cluster FILE]`: every rank's compute segments
/// priced by the sequential model on `machine`, its MPI calls replayed by SimGrid on the
/// cluster (default: one node of `machine` with P cores, its measured `[mpi]` network
/// between the ranks).
pub fn predict(
    profile: &Path,
    machine: &augur_model::LoadedMachine,
    options: augur_model::PredictOptions,
    ranks: u32,
    cluster: Option<&Path>,
) -> Result<String> {
    let program = augur_program_profile::ProgramProfile::read(profile)?;
    let p = augur_simgrid::predict_ranks(&program, &machine.profile, options, ranks, cluster)
        .with_context(|| format!("{}", profile.display()))?;
    let mut out = format!(
        "augur MPI prediction: {} at {ranks} ranks on {} ({} node(s) x {} cores), replayed by SimGrid\npredicted time {} (the run {}, the job's launch, MPI_Init and MPI_Finalize {})\n  rank   compute   communication and waiting   MPI calls\n",
        profile.display(),
        machine.name,
        p.nodes,
        p.cores_per_node,
        crate::predict::fmt_seconds(p.seconds),
        crate::predict::fmt_seconds(p.simulated),
        crate::predict::fmt_seconds(p.startup)
    );
    for (r, (busy, calls)) in p.compute.iter().zip(&p.calls).enumerate() {
        out += &format!(
            "  {:>4} {:>10} {:>27} {:>11}\n",
            r,
            crate::predict::fmt_seconds(*busy),
            crate::predict::fmt_seconds((p.simulated - busy).max(0.0)),
            calls
        );
    }
    Ok(out)
}
