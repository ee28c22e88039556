//! A sequential program's profile with the traces it would have distributed over P
//! processors ([`augur_distribution`]): the sources read again (the profile names them
//! and their hashes), their HPF directives and the command line's distributions
//! analyzed at each processor count, each count's per-rank traces put where an MPI
//! analysis puts its own, so every MPI prediction, sweep, what-if and timeline applies.

use augur_distribution::hpf::Directives;
use augur_distribution::spec::{ArrayDistribution, Grid};
use augur_distribution::Analysis;
use augur_ir::{Program, Severity};
use augur_program_profile::mpi::MpiProfile;
use augur_program_profile::ProgramProfile;
use augur_source::SourceForm;
use std::path::PathBuf;

/// The profile with traces at each grid, and each grid's analysis.
pub struct Distributed {
    /// The input profile with `mpi` holding a run per grid (its notes say it is made
    /// from distributions, not traced).
    pub profile: ProgramProfile,
    /// Each grid's analysis, in order.
    pub analyses: Vec<Analysis>,
    /// The directives the sources hold.
    pub directives: Directives,
    /// The distributions applied (directives, then the command line's, which win).
    pub distributions: Vec<ArrayDistribution>,
}

/// Distributes `profile`'s program with its directives and `given` (the command line's,
/// overriding a directive for the same array) over each of `grids` (`None`: the
/// directives' PROCESSORS).
pub fn distribute(
    profile: &ProgramProfile,
    given: &[ArrayDistribution],
    grids: &[Grid],
) -> Result<Distributed, String> {
    if profile.mpi.is_some() {
        return Err("the profile is of an MPI program (it has traces): distributions apply to a sequential program".into());
    }
    let (program, texts) = program_of(profile)?;
    let directives = augur_distribution::hpf::read(&texts)?;
    let mut distributions: Vec<ArrayDistribution> = directives
        .distributions
        .iter()
        .filter(|d| !given.iter().any(|g| g.array == d.array))
        .cloned()
        .collect();
    distributions.extend(given.iter().cloned());
    distributions.retain(|d| !directives.templates.contains(&d.array) || given.is_empty());
    if distributions.is_empty() {
        return Err("no distribution: give one (`--distribute 'u(*,BLOCK)'`) or put `!HPF$ DISTRIBUTE` directives in the sources".into());
    }
    let grids: Vec<Grid> = if grids.is_empty() {
        vec![directives.grid.clone().ok_or("no processor count: give --procs (`--procs 1,2,4`) or a `!HPF$ PROCESSORS p(4)` directive")?]
    } else {
        grids.to_vec()
    };
    let mut runs = vec![];
    let mut analyses = vec![];
    for g in &grids {
        let a = augur_distribution::analyze(
            &program,
            profile,
            &distributions,
            g,
            &directives.templates,
        )?;
        runs.push(augur_distribution::traces::traces(&a, &program, profile));
        analyses.push(a);
    }
    runs.sort_by_key(|r| r.ranks);
    runs.dedup_by_key(|r| r.ranks);
    let mut out = profile.clone();
    let list: Vec<String> = distributions.iter().map(|d| d.to_string()).collect();
    out.notes.push(format!(
        "distributed, not traced: {} under owner-computes (augur_distribution)",
        list.join(", ")
    ));
    out.mpi = Some(MpiProfile { runs });
    Ok(Distributed {
        profile: out,
        analyses,
        directives,
        distributions,
    })
}

/// The program the profile was analyzed from, read again, with the texts of its files;
/// an error when a source is missing or changed since.
pub fn program_of(profile: &ProgramProfile) -> Result<(Program, Vec<(String, String)>), String> {
    let mut tops: Vec<String> = vec![];
    for u in &profile.units {
        if !tops.contains(&u.file) {
            tops.push(u.file.clone());
        }
    }
    let paths: Vec<PathBuf> = tops.iter().map(PathBuf::from).collect();
    for p in &paths {
        if !p.is_file() {
            return Err(format!(
                "{}: the source the profile was analyzed from is missing; a distribution reads the sources again (run from the directory of the analysis, or analyze again)",
                p.display()
            ));
        }
    }
    let flags = &profile.run.fflags;
    let front = augur_fortran::FrontEndOptions {
        load: augur_source::LoadOptions {
            form: flags.iter().find_map(|f| match f.as_str() {
                "-ffixed-form" => Some(SourceForm::Fixed),
                "-ffree-form" => Some(SourceForm::Free),
                _ => None,
            }),
            cpp: flags.iter().any(|f| f == "-cpp"),
            defines: flags
                .iter()
                .filter_map(|f| f.strip_prefix("-D"))
                .map(String::from)
                .collect(),
            include_dirs: flags
                .iter()
                .filter_map(|f| f.strip_prefix("-I"))
                .map(PathBuf::from)
                .collect(),
            openmp: false,
        },
        max_syntax_errors: 0,
        default_kinds: augur_fortran::DefaultKinds::from_flags(flags),
    };
    let program = reread(profile, &paths, &front).map_err(|e| match e {
        Reread::Parse(d) => format!("the sources do not parse:\n{d}"),
        Reread::Changed(path) => {
            format!("{path}: changed since the analysis; analyze again before distributing")
        }
    })?;
    let mut texts = vec![];
    for s in &profile.sources {
        let text = std::fs::read_to_string(&s.path).map_err(|e| format!("{}: {e}", s.path))?;
        texts.push((s.path.clone(), text));
    }
    Ok((program, texts))
}

/// Why the sources of a profile could not be read again.
pub enum Reread {
    /// A syntax error, rendered with its file and line.
    Parse(String),
    /// A source whose content changed since the analysis (its path).
    Changed(String),
}

/// The program of `paths` parsed with `front`, checked to be what `profile` was analyzed
/// from (every source's hash).
pub fn reread(
    profile: &ProgramProfile,
    paths: &[PathBuf],
    front: &augur_fortran::FrontEndOptions,
) -> Result<Program, Reread> {
    let program = augur_fortran::analyze(paths, front);
    if let Some(d) = program
        .diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error)
    {
        return Err(Reread::Parse(d.render(&program.files)));
    }
    let now: Vec<&str> = program
        .files
        .files
        .iter()
        .map(|f| f.sha256.as_str())
        .collect();
    match profile
        .sources
        .iter()
        .find(|s| !now.contains(&s.sha256.as_str()))
    {
        Some(c) => Err(Reread::Changed(c.path.clone())),
        None => Ok(program),
    }
}
