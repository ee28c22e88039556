//! Command-line interface: subcommands and their options.

use anyhow::{bail, Context, Result};
use augur_bench::parallel::Parallelism;
use augur_fortran::{FrontEndOptions, LoadOptions, SourceForm};
use augur_ir::Severity;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// augur predicts how long a Fortran program runs on a machine, and explains why,
/// from counts of abstract operations (the program) and their measured costs (the machine).
#[derive(Debug, Parser)]
#[command(name = "augur", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Analyze a Fortran program: build an instrumented copy, run it, write its profile.
    ///
    /// The program is built with your compiler and flags (--fc, --fflags), run once
    /// with your arguments and input, and the exact execution count of every basic
    /// block is combined with the static counts into the program profile (JSON):
    /// abstract operations by block, line, procedure, loop and region. The program's
    /// own output is shown (or saved with --program-output). C files, objects and -l/-L are
    /// linked, not analyzed.
    ///
    /// With --static, nothing is built or run: prints for every program unit its
    /// basic blocks and the abstract operations (AbOps) each executes once
    /// (Saavedra-Barrera's S matrix), then the parse coverage and any diagnostics.
    Analyze(Box<AnalyzeArgs>),
    /// Predict run times: program profiles on machine profiles, with the breakdown.
    ///
    /// T = Σ C·P: the program's AbOp counts (C, from `augur analyze`) times the
    /// machine's AbOp costs (P, from `augur characterize` or the machines/ library),
    /// with a 90% interval (the model's error on real programs and the parameters'
    /// uncertainty), and where the time goes:
    /// per AbOp (executions, share of operations, time, share of time), procedure,
    /// loop, line, block and region. Several profiles form a workload (optionally
    /// weighted); several machines are shown side by side.
    Predict(Box<PredictCmd>),
    /// Write one self-contained HTML report of a prediction to open in a browser: the
    /// predicted time with its interval on each machine, where the time goes by loop,
    /// procedure, line and AbOp (sortable tables, machines side by side), the source with
    /// each line's share, the memory term by nest, what the compiler did to the hot
    /// loops, the risk flags. No network or external file is needed to view it.
    Report(Box<ReportCmd>),
    /// Check a prediction against real runs: analyze, predict, build the program
    /// normally with the machine's compiler and flags, time it, print the error.
    Validate(Box<ValidateCmd>),
    /// List the machine profiles of the library (`machines/`, $AUGUR_MACHINES): the measured
    /// ones, then the historical ones (`machines/historical/`, transcribed from
    /// publications).
    Machines {
        /// Transcribe Saavedra-Barrera's published characterizations (Appendix 2.B, tables
        /// 2.10-2.14, and Appendix 4.A, tables 4.16-4.20) from the dissertation's text
        /// (seed 001) into one machine profile per machine, with Appendix 2.C's reduced
        /// parameters and Table 2.6's distances beside them, instead of listing.
        #[arg(long, value_name = "SEED_TEXT")]
        import_thesis: Option<PathBuf>,
        /// The directory the transcribed profiles go to.
        #[arg(
            short = 'o',
            long = "output",
            default_value = "machines/historical",
            requires = "import_thesis"
        )]
        output: PathBuf,
        /// Print the list as one JSON document (kind augur-machines) instead of text.
        #[arg(long, conflicts_with = "import_thesis")]
        json: bool,
    },
    /// List the catalogue of abstract operations (AbOps) with their codes and meanings.
    Abops {
        /// Print the table as Markdown (as in docs/FORMATS.md).
        #[arg(long)]
        markdown: bool,
    },
    /// Measure this machine completely: the cost of each abstract operation with your
    /// compiler and flags (narrow-spectrum experiments) and, on a second core beside
    /// them, the memory hierarchy; then the stream costs of loops with independent
    /// iterations and, beside them, the in-core parameters (instruction latencies and
    /// throughputs); then OpenMP's overheads, written as a machine profile (TOML). About
    /// a minute and a half on a 2-core guest; `--quick` about 20 seconds (its stream costs
    /// timed on the second core while the first finishes the AbOps').
    Characterize {
        /// Fortran compiler.
        #[arg(long, default_value = "gfortran")]
        fc: String,
        /// Compiler flags.
        #[arg(long, default_value = "-O2", allow_hyphen_values = true)]
        fflags: String,
        /// Short observations (5 x 5 ms instead of 6 x 15 ms): about twice as fast,
        /// less precise.
        #[arg(long, conflicts_with = "precise")]
        quick: bool,
        /// Longer and more observations (20 x 80 ms instead of 6 x 15 ms): narrower
        /// intervals, at the cost of several times the default's wall time (more than three
        /// times the observations, each 5.3 times as long).
        #[arg(long)]
        precise: bool,
        /// Measure only these AbOps (and those their experiments subtract), e.g. ARDL,SIND.
        /// When the output is an existing profile of the same compiler and flags, only these
        /// entries of it are replaced.
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
        /// Only the memory hierarchy (caches, TLB, prefetching, bandwidth): its section
        /// of the profile is replaced, the AbOp tables of an existing file are kept (the
        /// default characterization measures it after the AbOps).
        #[arg(long, conflicts_with_all = ["only", "precise"])]
        memory: bool,
        /// Only OpenMP: the overheads of parallel regions, loops and each schedule,
        /// barriers, single, critical, locks, atomics and reductions (EPCC's method),
        /// and memory bandwidth, per thread count from 1 to the cores; its section of
        /// the profile is replaced, the rest of an existing file is kept (the default
        /// characterization measures it last when the compiler supports -fopenmp).
        #[arg(long, conflicts_with_all = ["only", "precise", "memory"])]
        openmp: bool,
        /// Only MPI: the network between ranks with the real MPI library (mpif90 and
        /// mpirun on PATH): ping-pong time by message size, the eager limit, Hockney's and
        /// LogGP's parameters, and the collectives against size and rank count (2 to the
        /// cores); its section of the profile is replaced, the rest of an existing file is
        /// kept.
        #[arg(long, conflicts_with_all = ["only", "precise", "memory", "openmp"])]
        mpi: bool,
        /// Only the in-core parameters (x86-64): the cycle, the issue width, the taken
        /// branch, and the latency and reciprocal throughput of each instruction class
        /// (integer, load, store, store-to-load forwarding, floating-point add, multiply,
        /// FMA, divide, square root, conversion, vector moves and integers) at each width
        /// the CPU has, from generated assembly kernels (a few seconds); its section of the
        /// profile is replaced, the rest of an existing file is kept (the default
        /// characterization measures it after the stream costs).
        #[arg(long, conflicts_with_all = ["only", "precise", "memory", "openmp", "mpi"])]
        incore: bool,
        /// Only the optimization detection: which standard optimizations the compiler
        /// with its flags applies (constant folding, CSE, code motion, dead code, copy
        /// propagation, strength reduction, induction variables, address collapsing,
        /// register allocation, inlining, unrolling, interchange, vectorization,
        /// if-conversion, tail recursion), from paired naive / hand-optimized / cripple
        /// kernels, rated yes, partial, marginal or no (Saavedra's tables 4.9-4.11) beside
        /// the compiler's own report; its section of the profile is replaced, the rest of
        /// an existing file is kept. With --only: these optimizations only (their keys,
        /// e.g. dead_code,constant_folding).
        #[arg(long, conflicts_with_all = ["precise", "memory", "openmp", "mpi", "incore"])]
        optimizations: bool,
        /// Only what a run pays outside the program's code: the CPU time of a program that
        /// only prints a number, built with the compiler and flags (the loader, the
        /// run-time libraries' start, the exit), which every prediction then adds; its
        /// section of the profile is replaced, the rest of an existing file is kept (the
        /// default characterization measures it last). A second or so.
        #[arg(long, conflicts_with_all = ["only", "precise", "memory", "openmp", "mpi", "incore", "optimizations"])]
        process: bool,
        /// With --optimizations: run the detection this many times and report whether
        /// each rating was the same in every run.
        #[arg(long, default_value_t = 1, requires = "optimizations")]
        repeat: u32,
        /// The machine profile to write.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
    },
    /// The optimization tables of machine profiles side by side (a column per profile,
    /// a row per optimization: yes, partial, marginal, no; `*` where the rating contradicts
    /// the compiler's report), from their `[optimizations]` sections
    /// (`augur characterize --optimizations`).
    Optimizations {
        /// Machine profiles (library names or files), in column order.
        #[arg(short = 'm', long = "machine", required = true)]
        machines: Vec<String>,
        /// Also print each profile's tests with their times and verdicts.
        #[arg(long)]
        full: bool,
    },
    /// Turn a cluster description (TOML: nodes, cores per node, the links inside and
    /// between nodes, the topology, or a machine profile whose measured `[mpi]` section
    /// gives the link inside a node) into a SimGrid platform: the XML, its host file
    /// (next to it, `.hosts`) and the `smpirun` options its links need.
    Platform {
        /// The cluster file (docs/FORMATS.md; examples/cluster.toml).
        cluster: PathBuf,
        /// The platform XML to write.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
    },
    /// Draw the memory sweep of a machine profile as an SVG figure: time per access
    /// against stride (log2), one curve per array size, with the OS cache sizes.
    Plot {
        /// The machine profile, a file or a library name (with a `[memory]` section,
        /// from `augur characterize --memory`).
        profile: PathBuf,
        /// The file to write: SVG, or PNG when it ends in `.png`.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
    },
    /// Compare two machine profiles: per-AbOp relative difference and the median.
    Diff {
        /// The first profile (A), a file or a library name.
        a: PathBuf,
        /// The second profile (B), a file or a library name.
        b: PathBuf,
    },
    /// Measure stream-context AbOp costs and add them to a machine profile.
    ///
    /// The costs `characterize` measures are latencies (dependent chains); loops whose
    /// iterations are independent run several times faster on an out-of-order,
    /// vectorizing CPU. This generates about 370 small loop kernels (independent
    /// iterations, L1-resident: random mixes, stencils, calls and divides), builds them
    /// with the profile's compiler and flags, times
    /// them, and fits per-AbOp costs by non-negative least squares over augur's own counts
    /// of the kernels. The fitted costs go into the profile's `stream` table (the file is
    /// replaced atomically); AbOps not fitted keep only their chain cost.
    Stream {
        /// The machine profile to update in place; its provenance gives the compiler and
        /// flags.
        #[arg(long)]
        machine: PathBuf,
        /// Fortran compiler (instead of the profile's).
        #[arg(long)]
        fc: Option<String>,
        /// Compiler flags (instead of the profile's).
        #[arg(long, allow_hyphen_values = true)]
        fflags: Option<String>,
        /// 2 observations of 4 ms per kernel instead of 2 to 7 of 10 ms (each kernel
        /// observed until its lowest observations agree within 2%).
        #[arg(long)]
        quick: bool,
        /// Print the per-kernel table (counts, measured, fitted, leave-one-out).
        #[arg(long)]
        kernels: bool,
        /// Keep the generated kernel sources and build in this directory.
        #[arg(long, value_name = "DIR")]
        keep_build: Option<PathBuf>,
        /// Draw each stream cost towards its chain cost (from the profile) scaled by the
        /// median stream/chain ratio: steadier costs for AbOps seen in few kernels. Off by
        /// default: on this machine it lowered the -O2 RMS error but also the share of
        /// programs within 10% (docs/ACCURACY.md).
        #[arg(long)]
        prior: bool,
    },
    /// Compare machines or programs as Saavedra-Barrera's chapters 2 and 3 do.
    Compare {
        #[command(subcommand)]
        what: CompareCommand,
    },
    /// Rank machines on a workload: per program the predicted time normalized by a
    /// reference machine's (larger is faster) and their weighted geometric mean
    /// (Saavedra-Barrera's table 3.14), machines fastest first.
    Rank(Box<RankCmd>),
    /// Benchmarks of augur itself (front-end throughput and memory).
    Bench {
        #[command(subcommand)]
        what: BenchCommand,
    },
    /// Print a shell completion script, generated from these commands, to standard output:
    /// `augur completions bash > ~/.local/share/bash-completion/completions/augur`.
    Completions {
        /// The shell to complete in.
        shell: clap_complete::Shell,
    },
    /// Print the JSON Schema (draft 2020-12) of a kind of JSON document augur prints (every
    /// `--json` document says its `kind` and `schema` version; docs/schemas/KIND.schema.json
    /// holds the same); without KIND, list the kinds and the commands that print them.
    Schema {
        /// The kind, e.g. augur-prediction (the `augur-` may be left out).
        kind: Option<String>,
    },
    /// Write the man pages: with -o DIR one page per command (augur.1, augur-predict.1,
    /// augur-compare-machines.1, ...) into DIR; without, the top-level page to standard output.
    Man {
        /// The directory to write the pages into, created if missing (e.g. ~/.local/share/man/man1).
        #[arg(short, long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
        output: Option<PathBuf>,
    },
}

/// What `augur compare` compares.
#[derive(Debug, Subcommand)]
enum CompareCommand {
    /// Compare machine profiles by their 17 reduced parameters (Saavedra-Barrera's
    /// Table 2.5): the values in ns, the ratio to the fastest machine and the speed
    /// relative to a reference, the pershape distance of every pair (equation 2.10) and
    /// the clusters of machines closer than a threshold (figure 2.7); optionally the
    /// Kiviat graphs and the cluster graph as SVG. Measured and historical profiles mix.
    Machines(crate::compare::MachinesArgs),
    /// Characterize and compare program profiles (Saavedra-Barrera, chapter 3).
    ///
    /// Prints the dynamic distributions of statements, operations and operands (tables
    /// 3.2-3.4), the concentration of the execution in the top basic blocks and AbOps with
    /// the skewness index (tables 3.6-3.9), the 13 reduced parameters (table 3.10), the
    /// distance between every pair of programs and the clusters below a threshold (table
    /// 3.11, figure 3.11). With machines: the predicted times, each machine's ranking of
    /// the programs and Spearman's correlation between machines, and the execution-time
    /// similarity of every pair (table 3.15) with Spearman's check against the distance.
    Programs(Box<CompareProgramsCmd>),
    /// Compare compiler settings over a program set (Saavedra-Barrera's tables 4.6 and
    /// 4.7): each program's predicted speedup under each setting (machine profile) over
    /// the first, the programs' ranks, the geometric mean per setting, and the
    /// correlation (Pearson and Spearman, with their significance) of the per-program
    /// speedups between every two settings; with --measured, the measured speedups of
    /// kept runs beside them.
    Compilers(Box<CompareCompilersCmd>),
}

#[derive(Debug, Args)]
struct CompareCompilersCmd {
    /// Program profiles written by `augur analyze`.
    #[arg(required = true)]
    profiles: Vec<PathBuf>,
    /// Machine profile of one compiler setting (library name or TOML file); repeat, the
    /// first is the base of the speedups.
    #[arg(short, long = "machine", required = true)]
    machines: Vec<String>,
    /// Measured times kept by `augur bench accuracy --save DIR` (repeat for each
    /// setting's directory): matched by program name and by the build's compiler and
    /// flags.
    #[arg(long, value_name = "DIR")]
    measured: Vec<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct CompareProgramsCmd {
    /// Program profiles written by `augur analyze`.
    #[arg(required = true)]
    profiles: Vec<PathBuf>,
    /// Machine profile (library name or TOML file) to predict the programs on; repeat
    /// for the comparisons by execution time.
    #[arg(short, long = "machine")]
    machines: Vec<String>,
    /// Programs closer than this are joined in a cluster (the thesis's 0.71).
    #[arg(long, default_value_t = augur_workload::similarity::CLUSTER_THRESHOLD)]
    threshold: f64,
    /// Draw the clusters (figure 3.11) into this file (SVG, or PNG when it ends in
    /// `.png`).
    #[arg(long, value_name = "FILE.svg")]
    clusters: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// A workload on machines: what `augur predict` and `augur rank` read.
#[derive(Debug, Args)]
struct WorkloadArgs {
    /// Program profiles written by `augur analyze` (several form a workload).
    #[arg(required = true)]
    profiles: Vec<PathBuf>,
    /// Machine profile: a library name (see `augur machines`) or a TOML file; repeat
    /// to compare machines side by side. Without one, `augur predict` takes the library
    /// profile measured on this host's CPU with the program's compiler and flags;
    /// `augur rank` needs at least one.
    #[arg(short, long = "machine")]
    machines: Vec<String>,
    /// Weights of the programs in the workload, one per profile, comma-separated
    /// (default 1 each); the workload time is Σ weight·time.
    #[arg(long, value_delimiter = ',')]
    weights: Vec<f64>,
}

#[derive(Debug, Args)]
struct ReportCmd {
    /// The program profile written by `augur analyze`.
    profile: PathBuf,
    /// Machine profile: a library name (see `augur machines`) or a TOML file; repeat
    /// to show machines side by side (default: the library profile measured on this
    /// host's CPU with the program's compiler and flags).
    #[arg(short, long = "machine")]
    machines: Vec<String>,
    /// The HTML file to write.
    #[arg(short, long, value_name = "FILE.html")]
    output: PathBuf,
    /// How operation time and memory-hierarchy time combine in a loop nest.
    #[arg(long, value_enum, default_value = "ecm")]
    overlap: OverlapArg,
    /// Also price branch mispredictions the profile only bounds (as `augur predict`).
    #[arg(long)]
    branches: bool,
}

#[derive(Debug, Args)]
struct RankCmd {
    #[command(flatten)]
    workload: WorkloadArgs,
    /// The machine the times are normalized by (default the first -m); added to the
    /// machines when not among them.
    #[arg(long, value_name = "MACHINE")]
    reference: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("ranks").args(["mpi_ranks", "procs"]).multiple(false)))]
struct PredictCmd {
    #[command(flatten)]
    workload: WorkloadArgs,
    /// Breakdowns to show (default: abop, procedure, loop, line, region; for a workload
    /// only the table unless given).
    #[arg(long, value_enum, value_delimiter = ',')]
    by: Vec<crate::predict::By>,
    /// Rows per breakdown.
    #[arg(long, default_value_t = 15)]
    top: usize,
    /// Predict only this region (`!augur region NAME` ... `!augur end region`).
    #[arg(long)]
    region: Option<String>,
    /// Print JSON (every breakdown, all rows) instead of text.
    #[arg(long)]
    json: bool,
    /// Also write the prediction as one self-contained HTML page (`augur report`).
    #[arg(long, value_name = "FILE.html")]
    report: Option<PathBuf>,
    /// How operation time and memory-hierarchy time combine in a loop nest.
    #[arg(long, value_enum, default_value = "ecm")]
    overlap: OverlapArg,
    /// Also price branch mispredictions (BRMP, BRMC) that the profile only bounds into
    /// the total. Mispredictions simulated by the branch run (`augur analyze` makes one
    /// unless --no-branch-run) are in the total with or without this flag. A profile
    /// without a branch run has only a bound (every outcome against the most frequent
    /// direction, several times too high for patterned branches), left out of the total
    /// unless this flag is given; either way the branch time is reported.
    #[arg(long)]
    branches: bool,
    /// Predict at a size never run: NAME=VALUE (n=1024), or NAME=FROM..TO (n=64..4096) for
    /// a table over the range. The profile must come from `augur analyze --scale`, and
    /// its sources must be where they were analyzed.
    #[arg(long, value_name = "NAME=VALUE|NAME=FROM..TO")]
    at: Option<String>,
    /// With --at NAME=FROM..TO: draw the predicted time against the size (SVG, or PNG
    /// when the file ends in `.png`; so every figure below).
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// With --at NAME=VALUE: also write the program profile computed at that size; with
    /// --distribute or --procs, the profile with the distributed traces (to predict
    /// again with --mpi-ranks without distributing anew).
    #[arg(long, value_name = "FILE")]
    profile_out: Option<PathBuf>,
    /// With --plot: measured times to mark, SIZE=SECONDS pairs (`900=0.31,1200=0.74`,
    /// e.g. from `augur validate --scale ... --at`).
    #[arg(long, value_name = "SIZE=SECONDS,...", requires = "plot")]
    measured: Option<String>,
    /// An OpenMP program (analyzed with --threads): predict at these thread counts, with
    /// the work, imbalance, overhead and serial time of each; with --plot, the speedup
    /// curve as SVG.
    #[arg(
        long,
        value_name = "P1,P2,...",
        value_delimiter = ',',
        conflicts_with = "at"
    )]
    threads: Vec<u32>,
    /// With --threads: draw the per-thread timeline (a Gantt chart) at the largest count;
    /// with --mpi-ranks, the per-rank timeline (computing, transmission, waiting).
    #[arg(long, value_name = "FILE")]
    gantt: Option<PathBuf>,
    /// An MPI program (analyzed with --mpi-ranks): predict at this rank count, the
    /// compute segments priced by the sequential model and the calls replayed by
    /// SimGrid on `--cluster` (default: one node of this machine, its measured [mpi]
    /// network between the ranks).
    /// With --threads T (one count): a hybrid MPI + OpenMP program (analyzed with both),
    /// each rank running its segments with T threads.
    /// Several counts (`1,2,4,8,...,1024`): a table of time, speedup, efficiency and the
    /// share in MPI calls, and with --plot a figure of them.
    #[arg(
        long,
        value_name = "P1,P2,...",
        value_delimiter = ',',
        conflicts_with = "at"
    )]
    mpi_ranks: Vec<u32>,
    /// A sequential program as if its arrays were distributed (HPF's DISTRIBUTE, before
    /// any MPI code exists): `u(*,BLOCK)`, `a(CYCLIC(2),*)`, `b(BLOCK,BLOCK)`, or an
    /// alignment `v WITH u`; repeat for each array. Adds to (and for the same array
    /// replaces) the `!HPF$` directives of the sources, which are read again. Each loop
    /// nest assigning a distributed array is split under owner-computes, its non-local
    /// references become messages (shifts, broadcasts, gathers, reductions), and the
    /// ranks are replayed by SimGrid as an MPI program's are (--cluster and the
    /// what-ifs apply).
    #[arg(long, value_name = "ARRAY(FORMATS)", conflicts_with_all = ["at", "threads"])]
    distribute: Vec<String>,
    /// With --distribute or HPF directives: the processor counts (`1,2,4,8`) or grids
    /// (`4x4`, `2x8`) to predict at; one count for the distribution's report and
    /// timeline, several for a sweep (default: the sources' `!HPF$ PROCESSORS`).
    #[arg(long, value_name = "P1,P2,...|AxB", value_delimiter = ',', conflicts_with_all = ["at", "threads"])]
    procs: Vec<String>,
    /// With --procs: another candidate distribution to rank against the one given
    /// (--distribute and the directives): arrays separated by `;`
    /// (`'u(BLOCK,*);unew(BLOCK,*)'`), each replacing that array's distribution; repeat
    /// for more candidates. Prints each candidate's predicted time at each processor
    /// count, the fastest, and why.
    #[arg(long, value_name = "ARRAY(FORMATS);...", requires = "procs")]
    distribute_alt: Vec<String>,
    #[command(flatten)]
    mpi: MpiPredictArgs,
}

/// The options of an MPI prediction (`augur predict --mpi-ranks P`): where it replays,
/// what-if changes, the communication matrix.
#[derive(Debug, Args)]
struct MpiPredictArgs {
    /// With --mpi-ranks: the cluster to replay on (a cluster file, docs/FORMATS.md;
    /// `augur platform` shows the SimGrid platform it becomes).
    #[arg(
        long,
        visible_alias = "platform",
        value_name = "CLUSTER.toml",
        requires = "ranks"
    )]
    cluster: Option<PathBuf>,
    /// With --mpi-ranks: what if every link's latency were this, in microseconds (`2.5`),
    /// or this times what it is (`2x`, `0.5x`).
    #[arg(long, value_name = "US|Fx", requires = "ranks", value_parser = latency_change)]
    latency: Option<augur_simgrid::Change>,
    /// With --mpi-ranks: what if every link's bandwidth were this, in GB/s (`10`), or this
    /// times what it is (`2x`).
    #[arg(long, value_name = "GBS|Fx", requires = "ranks", value_parser = bandwidth_change)]
    bandwidth: Option<augur_simgrid::Change>,
    /// With --mpi-ranks: what if the cores were this many times as fast (`2`: every
    /// compute segment takes half as long).
    #[arg(long, value_name = "F", requires = "ranks", default_value_t = 1.0)]
    cpu_speed: f64,
    /// With --mpi-ranks: write the communication matrix (bytes and messages from each
    /// rank to each other, point to point) as CSV.
    #[arg(long, value_name = "FILE.csv", requires = "ranks")]
    matrix: Option<PathBuf>,
    /// With --mpi-ranks or --procs: replay every call of a long run (by default a run of
    /// more than 400,000 calls whose ranks repeat the same patterns is replayed at 4 and 8
    /// repetitions of each and the rest extended: minutes become seconds at 1,024 ranks).
    #[arg(long, requires = "ranks")]
    full_replay: bool,
}

impl MpiPredictArgs {
    fn what_if(&self) -> Result<augur_simgrid::WhatIf> {
        if !(self.cpu_speed.is_finite() && self.cpu_speed > 0.0) {
            bail!("--cpu-speed must be a number above 0 (2: twice as fast)");
        }
        Ok(augur_simgrid::WhatIf {
            latency: self.latency.unwrap_or(augur_simgrid::Change::Same),
            bandwidth: self.bandwidth.unwrap_or(augur_simgrid::Change::Same),
            cpu_speed: self.cpu_speed,
        })
    }
}

/// `--latency`: microseconds, or a factor (`2x`).
fn latency_change(s: &str) -> Result<augur_simgrid::Change, String> {
    change(s, "microseconds", true)
}

/// `--bandwidth`: GB/s, or a factor (`2x`).
fn bandwidth_change(s: &str) -> Result<augur_simgrid::Change, String> {
    change(s, "GB/s", false)
}

/// A value in `unit`, or a factor with an `x` after it; zero allowed only when `zero_ok`.
fn change(s: &str, unit: &str, zero_ok: bool) -> Result<augur_simgrid::Change, String> {
    let t = s.trim();
    let (number, factor) = match t.strip_suffix(['x', 'X']) {
        Some(n) => (n, true),
        None => (t, false),
    };
    let v: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number in {unit} nor a factor like `2x`"))?;
    let ok = v.is_finite() && (v > 0.0 || (zero_ok && v == 0.0 && !factor));
    if !ok {
        return Err(format!("`{s}`: give a positive number"));
    }
    Ok(if factor {
        augur_simgrid::Change::Times(v)
    } else {
        augur_simgrid::Change::To(v)
    })
}

#[derive(Debug, Args)]
struct ValidateCmd {
    #[command(flatten)]
    source: SourceArgs,
    /// `analyze`'s flag, which a validation cannot honour (it keeps no failed run's
    /// profile): taken only to say so.
    #[arg(long, hide = true)]
    keep_partial: bool,
    /// Machine profile: a library name (see `augur machines`) or a TOML file (default: the
    /// library profile measured on this host's CPU with --fc and --fflags, gfortran -O2
    /// when they are not given).
    #[arg(short, long)]
    machine: Option<String>,
    /// Fortran compiler (default: the one the machine profile was measured with).
    #[arg(long)]
    fc: Option<String>,
    /// Compiler flags (default: those of the machine profile).
    #[arg(long, allow_hyphen_values = true)]
    fflags: Option<String>,
    /// Timed runs of the normal build (the median is compared).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Program arguments, as one string.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    args: String,
    /// File to feed to the program's standard input.
    #[arg(long, value_name = "FILE")]
    stdin: Option<PathBuf>,
    /// Time limit of each run, in seconds.
    #[arg(long, default_value_t = 600.0)]
    timeout: f64,
    /// Link with library NAME (as the compiler's -l).
    #[arg(short = 'l', value_name = "NAME")]
    libs: Vec<String>,
    /// Search DIR for libraries (as the compiler's -L).
    #[arg(short = 'L', value_name = "DIR")]
    lib_dirs: Vec<PathBuf>,
    /// Also write the program profile of the counting run to FILE (`-o/--output` means
    /// the program profile in `augur analyze` too).
    #[arg(
        short = 'o',
        long = "profile",
        visible_alias = "output",
        value_name = "FILE"
    )]
    profile_out: Option<PathBuf>,
    /// Also write the prediction and the measured time as one HTML page (`augur report`).
    #[arg(long, value_name = "FILE.html", conflicts_with_all = ["threads", "mpi_ranks"])]
    report: Option<PathBuf>,
    /// Breakdowns to show (default: abop, loop). Asked for by name, `loop` and `procedure`
    /// are also measured: the normal build, with line tables, run once more under Linux
    /// `perf record` (the CPU clock sampled 4,000 times a second), each loop's and
    /// procedure's share of the samples beside its predicted time.
    #[arg(long, value_enum, value_delimiter = ',')]
    by: Vec<crate::predict::By>,
    /// Rows per breakdown.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
    /// How operation time and memory-hierarchy time combine in a loop nest.
    #[arg(long, value_enum, default_value = "ecm")]
    overlap: OverlapArg,
    /// Also price branch mispredictions (BRMP, BRMC) that the profile only bounds into
    /// the total. Mispredictions simulated by the branch run (`augur analyze` makes one
    /// unless --no-branch-run) are in the total with or without this flag. A profile
    /// without a branch run has only a bound (every outcome against the most frequent
    /// direction, several times too high for patterned branches), left out of the total
    /// unless this flag is given; either way the branch time is reported.
    #[arg(long)]
    branches: bool,
    /// Count at these sizes only (NAME=V1,V2,V3, `{NAME}` in -D, --args or --stdin), then
    /// predict and time the program at --at: how well a size never counted is predicted.
    #[arg(long, value_name = "NAME=V1,V2,V3", requires = "at")]
    scale: Option<String>,
    /// With --scale: the size to predict and time (NAME=VALUE).
    #[arg(long, value_name = "NAME=VALUE", requires = "scale")]
    at: Option<String>,
    /// An OpenMP program: count per thread, predict and time (wall clock, with
    /// OMP_NUM_THREADS) at each of these thread counts, with the speedups.
    #[arg(
        long,
        value_name = "P1,P2,...",
        value_delimiter = ',',
        conflicts_with = "scale"
    )]
    threads: Vec<u32>,
    /// An MPI program: trace, predict (SimGrid on this machine's measured [mpi]
    /// network) and time the job (wall clock, under mpirun) at each of these rank
    /// counts (timing runs cannot use more ranks than this machine's cores). With
    /// --threads, a hybrid MPI + OpenMP program: at every ranks x threads that fits the
    /// cores.
    #[arg(
        long,
        value_name = "P1,P2,...",
        value_delimiter = ',',
        conflicts_with = "scale"
    )]
    mpi_ranks: Vec<u32>,
}

#[derive(Debug, Subcommand)]
enum BenchCommand {
    /// Prediction accuracy: `validate` over the whole corpus (or a suite of real
    /// programs, --suite) on one machine profile, per program predicted, measured and
    /// error, then the share of programs within 5/10/15/20/30%, the mean and the RMS error.
    Accuracy {
        /// Machine profile (library name or file); its compiler and flags build the programs.
        #[arg(short, long)]
        machine: String,
        /// Fortran compiler (default: the machine profile's).
        #[arg(long)]
        fc: Option<String>,
        /// Compiler flags (default: the machine profile's).
        #[arg(long, allow_hyphen_values = true)]
        fflags: Option<String>,
        /// Timed runs per program (the median is compared).
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Only these corpus programs (default: all).
        #[arg(long, num_args = 1..)]
        only: Vec<String>,
        /// The corpus manifest.
        #[arg(long, default_value = "corpus/corpus.toml", conflicts_with = "suite")]
        manifest: PathBuf,
        #[command(flatten)]
        suite: SuiteArgs,
        /// Also print the tables as Markdown (for docs/ACCURACY.md).
        #[arg(long)]
        markdown: bool,
        /// How operation and memory time combine in the main table (all four are summarized).
        #[arg(long, value_enum, default_value = "ecm")]
        overlap: OverlapArg,
        /// Also price the bounded branch mispredictions of profiles without a branch run
        /// into the main table; mispredictions simulated by a branch run are priced with
        /// or without this flag (the summary also shows the errors without any branch
        /// time).
        #[arg(long)]
        branches: bool,
        /// Keep each program's profile and measured times in DIR (for --replay); with
        /// --replay --recount, the new profiles beside the kept times (DIR must differ).
        #[arg(long, value_name = "DIR")]
        save: Option<PathBuf>,
        /// Re-price the profiles and times kept by --save in DIR with this machine profile,
        /// without building or running anything (compares profiles or model changes on the
        /// same measurements).
        #[arg(long, value_name = "DIR")]
        replay: Option<PathBuf>,
        /// With --replay: analyze the programs again (after a change of the counting rules
        /// or the analyzer) and keep only the measured times.
        #[arg(long, requires = "replay")]
        recount: bool,
        /// Also measure where each program's time went (one more run of its normal build,
        /// with line tables, under `perf record`; kept by --save as NAME.lines.json, read
        /// back by --replay, taken then with --replay --recount when not kept) and print
        /// each program's innermost loops, measured against predicted.
        #[arg(long)]
        by_loop: bool,
    },
    /// Prediction at sizes never run: per program with a `[scale]` table in its manifest,
    /// counting runs at its small sizes, the prediction at its target size from them
    /// beside a direct counting run there, timed runs at the target, and the errors.
    Scaling {
        /// Machine profile (library name or file); its compiler and flags build the programs.
        #[arg(short, long)]
        machine: String,
        /// Timed runs at the target size (the median is compared).
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Only these programs (default: all with a [scale] table).
        #[arg(long, num_args = 1..)]
        only: Vec<String>,
        /// The corpus manifest.
        #[arg(long, default_value = "corpus/corpus.toml", conflicts_with = "suite")]
        manifest: PathBuf,
        #[command(flatten)]
        suite: SuiteArgs,
        /// Keep each program's scalable and direct profiles and measured times in DIR.
        #[arg(long, value_name = "DIR", conflicts_with = "replay")]
        save: Option<PathBuf>,
        /// Re-price the profiles and times kept by --save in DIR (after a model change),
        /// without building or timing anything; the sources must be present.
        #[arg(long, value_name = "DIR")]
        replay: Option<PathBuf>,
    },
    /// OpenMP accuracy: each program of the OpenMP corpus counted per thread, predicted
    /// and timed (wall clock) at each thread count; errors, speedups and their summary.
    Openmp {
        /// Thread counts (timing runs cannot use more threads than this machine's cores).
        #[arg(long, value_delimiter = ',', default_value = "1,2")]
        threads: Vec<u32>,
        /// The OpenMP corpus manifest.
        #[arg(
            long,
            default_value = "corpus/openmp/corpus.toml",
            conflicts_with = "suite"
        )]
        manifest: PathBuf,
        #[command(flatten)]
        common: ParallelBenchArgs,
    },
    /// MPI accuracy: each program of the MPI corpus traced per rank, predicted (SimGrid
    /// on the machine's measured network) and timed (wall clock of the job under mpirun)
    /// at each rank count; errors, speedups, the communication-only programs apart.
    Mpi {
        /// Rank counts (timing runs cannot use more ranks than this machine's cores).
        #[arg(long, value_delimiter = ',', default_value = "1,2")]
        ranks: Vec<u32>,
        /// The MPI corpus manifest.
        #[arg(
            long,
            default_value = "corpus/mpi/corpus.toml",
            conflicts_with = "suite"
        )]
        manifest: PathBuf,
        #[command(flatten)]
        common: ParallelBenchArgs,
    },
    /// MPI beyond this machine's cores: each program of the MPI corpus traced and
    /// predicted at each rank count beside SimGrid's online simulation of it (smpif90,
    /// same platform), with what each costs; with --replay-cost, the replay of the
    /// largest program's traces extrapolated to those counts, timed.
    Simgrid {
        /// Machine profile (library name or file) with an [mpi] section.
        #[arg(short, long)]
        machine: String,
        /// Rank counts (counting runs and simulations may exceed the cores).
        #[arg(long, value_delimiter = ',', default_value = "4,8,16,32,64")]
        ranks: Vec<u32>,
        /// Only these programs (default: all).
        #[arg(long, num_args = 1..)]
        only: Vec<String>,
        /// The MPI corpus manifest.
        #[arg(long, default_value = "corpus/mpi/corpus.toml")]
        manifest: PathBuf,
        /// Rank counts to time the replay at (e.g. 64,1024).
        #[arg(long, value_delimiter = ',', value_name = "P1,P2,...")]
        replay_cost: Vec<u32>,
    },
    /// Data distributions against MPI twins: each sequential program of
    /// corpus/distribution distributed by its HPF directives and predicted, beside its
    /// hand-written MPI twin timed at 1 and 2 ranks (and augur's prediction of the twin
    /// itself) and beside SimGrid's online simulation of the twin at more ranks.
    Distribution {
        /// Machine profile (library name or file) with an [mpi] section.
        #[arg(short, long)]
        machine: String,
        /// Timed runs of each twin at 1 and 2 ranks (the median is used).
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Rank counts simulated online (those each pair's twin accepts).
        #[arg(long, value_delimiter = ',', default_value = "4,8,16,32,64")]
        simulate: Vec<u32>,
        /// Only these pairs (default: all).
        #[arg(long, num_args = 1..)]
        only: Vec<String>,
        /// The pairs' manifest.
        #[arg(long, default_value = "corpus/distribution/pairs.toml")]
        manifest: PathBuf,
    },
    /// Instrumentation overhead: run time of the instrumented program over the plain one,
    /// per corpus program and the median (same compiler and flags).
    Overhead {
        /// Compiler flags of both builds.
        #[arg(long, default_value = "-O2", allow_hyphen_values = true)]
        fflags: String,
        /// Fortran compiler.
        #[arg(long, default_value = "gfortran")]
        fc: String,
        /// Timed runs of each build (the median is used).
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Only these corpus programs (default: all).
        #[arg(long, num_args = 1..)]
        only: Vec<String>,
        /// The corpus manifest.
        #[arg(long, default_value = "corpus/corpus.toml")]
        manifest: PathBuf,
        /// Instead of timing builds, read the programs kept in DIR (`augur bench accuracy
        /// --save DIR`) and print where their analysis spent its time: the counting run
        /// and the locality analysis against the plain run, and the address probes'
        /// executions.
        #[arg(long, value_name = "DIR", conflicts_with_all = ["only", "runs"])]
        kept: Option<PathBuf>,
    },
    /// The in-core model against LLVM's llvm-mca: every innermost loop of the corpus's
    /// compiled code that augur prices from its instructions, augur's cycles per compiled
    /// iteration (on the profile's [incore] parameters) beside llvm-mca's.
    Incore {
        /// Machine profile with an [incore] section (library name or file); its compiler
        /// and flags build the programs.
        #[arg(short, long)]
        machine: String,
        /// Only these corpus programs (default: all).
        #[arg(long, num_args = 1..)]
        only: Vec<String>,
        /// The corpus manifest.
        #[arg(long, default_value = "corpus/corpus.toml")]
        manifest: PathBuf,
        /// llvm-mca's -mcpu (default: the newest model of the host's family it knows).
        #[arg(long)]
        mcpu: Option<String>,
    },
    /// Predicted cache misses against valgrind's cache simulation: per corpus program and
    /// loop nest, the
    /// L1d and last-level misses of the locality model beside those of the real binary
    /// simulated on the same geometry (and perf's hardware counters where the machine
    /// exposes them).
    Misses {
        /// Fortran compiler.
        #[arg(long, default_value = "gfortran")]
        fc: String,
        /// Compiler flags (the build also gets -g, for line information).
        #[arg(long, default_value = "-O2", allow_hyphen_values = true)]
        fflags: String,
        /// Take the cache geometry from this machine profile's [memory] section (library
        /// name or file) instead of the OS.
        #[arg(short, long)]
        machine: Option<String>,
        /// Only these corpus programs (default: a memory-bound set that runs in a few
        /// minutes under valgrind).
        #[arg(long, num_args = 1.., conflicts_with = "all")]
        only: Vec<String>,
        /// Every program of the manifest (slow: programs run 10-50 times slower under valgrind).
        #[arg(long)]
        all: bool,
        /// The corpus manifest.
        #[arg(long, default_value = "corpus/corpus.toml")]
        manifest: PathBuf,
        /// Also print the tables as Markdown (for docs/ACCURACY.md).
        #[arg(long)]
        markdown: bool,
        /// Print the results as JSON instead of tables.
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// Time limit of one run under valgrind, in seconds.
        #[arg(long, default_value_t = 600.0)]
        timeout: f64,
    },
    /// Exactness of the block counts: augur's counts against gcov's line counts on the corpus.
    Counts {
        /// Only these corpus programs (default: all).
        #[arg(long, num_args = 1..)]
        only: Vec<String>,
        /// The corpus manifest.
        #[arg(long, default_value = "corpus/corpus.toml")]
        manifest: PathBuf,
    },
    /// Parse, lower and count a large generated input; print lines/s and peak memory.
    FrontEnd {
        /// Number of source lines to generate.
        #[arg(long, default_value_t = 100_000)]
        lines: usize,
        /// Fortran files of one source form to replicate instead of the built-in generator (e.g. corpus/*.f90 or corpus/*.f).
        #[arg(long, num_args = 1..)]
        from: Vec<PathBuf>,
        /// Repetitions (the best one is reported).
        #[arg(long, default_value_t = 3)]
        repeat: usize,
    },
    /// Repeatability of a characterization: `augur characterize` N times, one after the
    /// other (nothing else should run), then per entry its spread across the N profiles,
    /// the cache and TLB levels each inferred (the same in N of N? as the OS says?), each
    /// program's prediction across the profiles, and the entries that move predictions
    /// most.
    Repeatability {
        /// Characterizations to make (at least 2; the figure takes 5).
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// Fortran compiler.
        #[arg(long, default_value = "gfortran")]
        fc: String,
        /// Compiler flags.
        #[arg(long, default_value = "-O2", allow_hyphen_values = true)]
        fflags: String,
        /// Quick characterizations (short observations).
        #[arg(long)]
        quick: bool,
        /// Where the profiles go (run-1.toml, ...): kept for --replay.
        #[arg(long, default_value = "repeatability")]
        dir: PathBuf,
        /// Read the profiles already in --dir instead of characterizing.
        #[arg(long)]
        replay: bool,
        /// Directories of program profiles to predict on every profile (NAME.profile.json,
        /// as `augur bench accuracy --save` keeps them).
        #[arg(long, num_args = 1.., required = true)]
        programs: Vec<PathBuf>,
    },
}

/// Which part of a suite of real programs a benchmark takes.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PartArg {
    /// The development part.
    Dev,
    /// The part set aside for the final figure.
    Aside,
    /// Both.
    All,
}

impl PartArg {
    fn choice(self) -> augur_bench::suite::PartChoice {
        match self {
            PartArg::Dev => augur_bench::suite::PartChoice::Dev,
            PartArg::Aside => augur_bench::suite::PartChoice::Aside,
            PartArg::All => augur_bench::suite::PartChoice::All,
        }
    }
}

/// Where the sources of a suite's programs are: `--sources`, else `$AUGUR_REAL_SOURCES`,
/// else `~/.cache/augur/real`.
/// Which programs a benchmark takes besides its corpus manifest: a suite of real
/// programs, where their sources are, and which part.
#[derive(Debug, Args)]
struct SuiteArgs {
    /// A suite of real programs instead of the corpus: the directory of their
    /// manifests (bench/real); programs whose sources are absent are listed as missing.
    #[arg(long, value_name = "DIR")]
    suite: Option<PathBuf>,
    /// With --suite: the directory holding each program's sources in NAME/
    /// (default: $AUGUR_REAL_SOURCES, else ~/.cache/augur/real).
    #[arg(long, value_name = "DIR", requires = "suite")]
    sources: Option<PathBuf>,
    /// With --suite: the part taken (dev while developing; aside for the final figure).
    #[arg(long, value_enum, default_value = "all", requires = "suite")]
    part: PartArg,
}

/// [`SuiteArgs`] with the sources' default filled in.
struct ResolvedSuite {
    suite: Option<PathBuf>,
    sources: PathBuf,
    part: augur_bench::suite::PartChoice,
}

impl SuiteArgs {
    fn resolved(self) -> ResolvedSuite {
        ResolvedSuite {
            suite: self.suite,
            sources: real_sources(self.sources),
            part: self.part.choice(),
        }
    }
}

impl ResolvedSuite {
    /// The suite when one was given, else the corpus of `manifest`.
    fn programs<'a>(&'a self, manifest: &'a Path) -> augur_bench::accuracy::ProgramSet<'a> {
        match &self.suite {
            Some(dir) => augur_bench::accuracy::ProgramSet::Suite {
                manifests: dir,
                sources: &self.sources,
                part: self.part,
            },
            None => augur_bench::accuracy::ProgramSet::Corpus(manifest),
        }
    }
}

/// The options `augur bench openmp` and `augur bench mpi` share.
#[derive(Debug, Args)]
struct ParallelBenchArgs {
    /// Machine profile (library name or file) with an [openmp] section (bench openmp)
    /// or an [mpi] section (bench mpi); its compiler and flags build the programs.
    #[arg(short, long)]
    machine: String,
    /// Timed runs per program and count (the median is compared).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Only these programs (default: all).
    #[arg(long, num_args = 1..)]
    only: Vec<String>,
    #[command(flatten)]
    suite: SuiteArgs,
    /// Keep each program's profile and measured times in DIR.
    #[arg(long, value_name = "DIR", conflicts_with = "replay")]
    save: Option<PathBuf>,
    /// Re-price the profiles and times kept by --save in DIR, without running.
    #[arg(long, value_name = "DIR")]
    replay: Option<PathBuf>,
}

impl ParallelBenchArgs {
    /// Runs the benchmark and prints its report.
    fn run(self, manifest: &Path, parallelism: Parallelism, counts: &[u32]) -> Result<ExitCode> {
        let suite = self.suite.resolved();
        let report = augur_bench::parallel::run(&augur_bench::parallel::ParallelArgs {
            programs: suite.programs(manifest),
            machine: &self.machine,
            parallelism,
            counts,
            runs: self.runs.max(1),
            only: &self.only,
            save: self.save.as_deref(),
            replay: self.replay.as_deref(),
        })?;
        print!("{report}");
        Ok(ExitCode::SUCCESS)
    }
}

fn real_sources(given: Option<PathBuf>) -> PathBuf {
    given
        .or_else(|| std::env::var_os("AUGUR_REAL_SOURCES").map(PathBuf::from))
        .unwrap_or_else(|| {
            let home = std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_default();
            home.join(".cache/augur/real")
        })
}

/// How operation time and memory-hierarchy time combine in a loop nest.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum OverlapArg {
    /// max(operations, memory): transfers overlap computation (out-of-order cores).
    Max,
    /// operations + memory: no overlap (Saavedra's delay term).
    Sum,
    /// max(operations, sequential streams) + other transfers: prefetched streams
    /// overlap computation, strided and random accesses do not.
    Streams,
    /// max(operations, load/store issue + sequential streams) + other transfers: as
    /// `streams`, but the streams overlap only the arithmetic (the ECM model's split).
    Ecm,
    /// No memory term.
    None,
}

impl OverlapArg {
    fn model(self) -> augur_model::memory::Overlap {
        match self {
            OverlapArg::Max => augur_model::memory::Overlap::Max,
            OverlapArg::Sum => augur_model::memory::Overlap::Sum,
            OverlapArg::Streams => augur_model::memory::Overlap::Streams,
            OverlapArg::Ecm => augur_model::memory::Overlap::Ecm,
            OverlapArg::None => augur_model::memory::Overlap::None,
        }
    }
}

/// Options shared by every command that reads Fortran sources.
#[derive(Debug, Args)]
pub struct SourceArgs {
    /// Fortran source files (free form .f90/.f95/.f03/.f08, fixed form .f/.for/.f77; upper case =
    /// preprocessed); C files (.c), objects and archives (.o, .a, .so) are linked, not analyzed.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Force the source form instead of deciding by extension.
    #[arg(long, value_enum)]
    pub form: Option<FormArg>,
    /// Run the C preprocessor (traditional mode, as gfortran does) even for lower-case extensions.
    #[arg(long)]
    pub cpp: bool,
    /// Define a preprocessor macro: -D NAME or -D NAME=VALUE.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub defines: Vec<String>,
    /// Add a directory to search for #include and INCLUDE files.
    #[arg(short = 'I', value_name = "DIR", value_parser = existing_directory)]
    pub include: Vec<PathBuf>,
}

/// An `-I` argument: a directory that exists (a mistyped one would leave INCLUDE files
/// unfound with the search path looking right).
fn existing_directory(arg: &str) -> Result<PathBuf, String> {
    let dir = PathBuf::from(arg);
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err(String::from(
            "no such directory: give one that holds the INCLUDE or #include files",
        ))
    }
}

/// Source form named on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormArg {
    /// Fixed form (F77 columns).
    Fixed,
    /// Free form.
    Free,
}

impl SourceArgs {
    /// Front-end options from the command line.
    pub fn front_end(&self) -> FrontEndOptions {
        FrontEndOptions {
            load: LoadOptions {
                form: self.form.map(|f| match f {
                    FormArg::Fixed => SourceForm::Fixed,
                    FormArg::Free => SourceForm::Free,
                }),
                cpp: self.cpp,
                defines: self.defines.clone(),
                include_dirs: self.include.clone(),
                openmp: false,
            },
            max_syntax_errors: 0,
            default_kinds: Default::default(),
        }
    }
}

#[derive(Debug, Args)]
struct AnalyzeArgs {
    #[command(flatten)]
    source: SourceArgs,
    /// Static analysis only: no build, no run.
    #[arg(long = "static")]
    static_only: bool,
    /// With --static: write the static counts as JSON to standard output instead of tables.
    #[arg(long)]
    json: bool,
    /// Where to write the profile (dynamic) or the static JSON (--static), atomically,
    /// as `-o/--output` means the file augur makes in every command. Default for the
    /// profile: STEM.profile.json in the current directory.
    #[arg(
        short,
        long = "output",
        visible_alias = "output-file",
        value_name = "FILE"
    )]
    output_file: Option<PathBuf>,
    /// Fortran compiler for the instrumented build: gfortran, flang-19 or a path.
    #[arg(long, default_value = "gfortran")]
    fc: String,
    /// Compiler flags, as one string (e.g. "-O2 -march=native").
    #[arg(long, default_value = "-O2", allow_hyphen_values = true)]
    fflags: String,
    /// Program arguments, as one string.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    args: String,
    /// File to feed to the program's standard input (default: none, reads see end of file).
    #[arg(long, value_name = "FILE")]
    stdin: Option<PathBuf>,
    /// Time limit of the counting run, in seconds.
    #[arg(long, default_value_t = 600.0)]
    timeout: f64,
    /// Save the program's own output (stdout, then stderr) to this file instead of showing it.
    #[arg(long = "program-output", value_name = "FILE")]
    program_output: Option<PathBuf>,
    /// Link with library NAME (as the compiler's -l).
    #[arg(short = 'l', value_name = "NAME")]
    libs: Vec<String>,
    /// Search DIR for libraries (as the compiler's -L).
    #[arg(short = 'L', value_name = "DIR")]
    lib_dirs: Vec<PathBuf>,
    /// Write a profile marked partial when the run fails (crash, non-zero exit, timeout).
    #[arg(long)]
    keep_partial: bool,
    /// Keep the instrumented sources and the build in DIR (for inspection).
    #[arg(long, value_name = "DIR")]
    keep_build: Option<PathBuf>,
    /// Skip the second run that simulates branch prediction (the profile then bounds
    /// mispredictions from the block counts, and predictions leave them out).
    #[arg(long)]
    no_branch_run: bool,
    /// Show every block, including blocks without operations.
    #[arg(long)]
    all_blocks: bool,
    /// Count at several sizes for predictions at sizes never run: NAME=V1,V2,V3 (at
    /// least three), with `{NAME}` where the size goes in -D, --args or --stdin
    /// (`--scale n=32,48,64 -D N={n}`). Predict with `augur predict --at n=VALUE`.
    #[arg(long, value_name = "NAME=V1,V2,V3")]
    scale: Option<String>,
    /// With --scale: model blocks that run at some sizes only by fits instead of refusing.
    #[arg(long, requires = "scale")]
    allow_path_changes: bool,
    /// An OpenMP program: build with -fopenmp and count each block's executions per
    /// thread at these thread counts (more than the cores is fine: counts do not
    /// depend on timing). Predict with `augur predict --threads P`.
    #[arg(
        long,
        value_name = "P1,P2,...",
        value_delimiter = ',',
        conflicts_with = "scale"
    )]
    threads: Vec<u32>,
    /// An MPI program: build with the MPI wrapper compilers and a tracer and run under
    /// `mpirun -np P` at these rank counts (more than the cores is fine: counts do not
    /// depend on timing); each rank's compute segments and MPI calls are kept. The
    /// profile's counts are rank 0's at the first count. With --threads (a hybrid
    /// MPI + OpenMP program): the ranks run with one thread each, and one rank is counted
    /// per thread at each thread count.
    #[arg(
        long,
        value_name = "P1,P2,...",
        value_delimiter = ',',
        conflicts_with = "scale"
    )]
    mpi_ranks: Vec<u32>,
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Analyze(a) => analyze(*a),
        Command::Predict(p) => {
            check_program_profiles("predict", &p.workload.profiles)?;
            predict(*p)
        }
        Command::Report(r) => {
            check_program_profiles("report", std::slice::from_ref(&r.profile))?;
            crate::predict::report_page(
                &r.profile,
                &r.machines,
                augur_model::PredictOptions {
                    branches: r.branches,
                    overlap: r.overlap.model(),
                    ..augur_model::PredictOptions::default()
                },
                &r.output,
            )
        }
        Command::Validate(v) => validate(*v),
        Command::Machines {
            import_thesis: Some(seed),
            output,
            ..
        } => crate::compare::import_thesis(&seed, &output),
        Command::Machines { json: true, .. } => machines_json(),
        Command::Machines { .. } => Ok(machines()),
        Command::Abops { markdown } => {
            print!("{}", crate::static_report::catalogue(markdown));
            Ok(ExitCode::SUCCESS)
        }
        Command::Characterize {
            fc,
            fflags,
            quick,
            precise,
            only,
            memory,
            openmp,
            mpi,
            incore,
            optimizations,
            process,
            repeat,
            output,
        } => {
            use crate::characterize::Section;
            if optimizations {
                return crate::optimizations::characterize(&crate::optimizations::DetectArgs {
                    fc: &fc,
                    fflags: &fflags,
                    quick,
                    repeat,
                    only: &only,
                    output: &output,
                });
            }
            let section = if memory {
                Some(Section::Memory)
            } else if openmp {
                Some(Section::OpenMp)
            } else if mpi {
                Some(Section::Mpi)
            } else if incore {
                Some(Section::InCore)
            } else {
                process.then_some(Section::Process)
            };
            if let Some(section) = section {
                crate::characterize::section(section, &fc, &fflags, quick, &output)
            } else {
                crate::characterize::characterize(&fc, &fflags, quick, precise, &only, &output)
            }
        }
        Command::Optimizations { machines, full } => crate::optimizations::tables(&machines, full),
        Command::Plot { profile, output } => crate::plot::run(&profile, &output),
        Command::Platform { cluster, output } => crate::simgrid::platform(&cluster, &output),
        Command::Diff { a, b } => crate::characterize::diff(&a, &b),
        Command::Stream {
            machine,
            fc,
            fflags,
            quick,
            kernels,
            keep_build,
            prior,
        } => crate::stream::run(
            &machine,
            fc.as_deref(),
            fflags.as_deref(),
            quick,
            kernels,
            keep_build,
            prior,
        ),
        Command::Compare {
            what: CompareCommand::Machines(args),
        } => crate::compare::machines(&args),
        Command::Compare {
            what: CompareCommand::Programs(c),
        } => {
            check_program_profiles("compare programs", &c.profiles)?;
            crate::workload::compare_programs(&crate::workload::CompareArgs {
                profiles: c.profiles,
                machines: c.machines,
                threshold: c.threshold,
                clusters: c.clusters,
                json: c.json,
            })
        }
        Command::Compare {
            what: CompareCommand::Compilers(c),
        } => {
            check_program_profiles("compare compilers", &c.profiles)?;
            crate::speedup::compare_compilers(&crate::speedup::CompilersArgs {
                profiles: c.profiles,
                machines: c.machines,
                measured: c.measured,
                json: c.json,
            })
        }
        Command::Rank(r) if r.workload.machines.is_empty() => {
            bail!("give the machines to rank with -m NAME|FILE.toml (at least one; see `augur machines`)")
        }
        Command::Rank(r) => {
            check_program_profiles("rank", &r.workload.profiles)?;
            crate::workload::rank(&crate::workload::RankArgs {
                profiles: r.workload.profiles,
                machines: r.workload.machines,
                weights: r.workload.weights,
                reference: r.reference,
                json: r.json,
            })
        }
        Command::Bench { what } => bench(what),
        Command::Completions { shell } => crate::completions::completions(shell),
        Command::Man { output } => crate::completions::man(output.as_deref()),
        Command::Schema { kind } => crate::schemas::run(kind.as_deref()),
    }
}

/// `augur predict`.
fn predict(p: PredictCmd) -> Result<ExitCode> {
    crate::predict::run(&crate::predict::PredictArgs {
        machines: p.workload.machines,
        profiles: p.workload.profiles,
        weights: p.workload.weights,
        by: p.by,
        top: p.top.max(1),
        region: p.region,
        json: p.json,
        report: p.report,
        overlap: p.overlap.model(),
        branches: p.branches,
        at: p.at.as_deref().map(crate::scale::At::parse).transpose()?,
        plot: p.plot,
        profile_out: p.profile_out,
        measured: p
            .measured
            .as_deref()
            .map(crate::scale::parse_measured)
            .transpose()?
            .unwrap_or_default(),
        threads: p.threads.clone(),
        gantt: p.gantt,
        distribution: distribution_of(&p.distribute, &p.procs, &p.distribute_alt)?,
        mpi: if p.mpi_ranks.is_empty() && p.procs.is_empty() && p.distribute.is_empty() {
            None
        } else {
            Some(crate::simgrid::MpiPredict {
                ranks: p.mpi_ranks.clone(),
                threads: threads_per_rank(&p.threads)?,
                what_if: p.mpi.what_if()?,
                cluster: p.mpi.cluster,
                matrix: p.mpi.matrix,
                full_replay: p.mpi.full_replay,
            })
        },
    })
}

/// What `--distribute` and `--procs` ask for, read (`None`: neither given).
fn distribution_of(
    arrays: &[String],
    procs: &[String],
    alternatives: &[String],
) -> Result<Option<crate::distribution::DistributeArgs>> {
    if arrays.is_empty() && procs.is_empty() {
        return Ok(None);
    }
    let arrays = arrays
        .iter()
        .map(|a| augur_distribution::spec::ArrayDistribution::parse(a))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow::anyhow!("--distribute {e}"))?;
    let grids = procs
        .iter()
        .map(|g| augur_distribution::spec::Grid::parse(g))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow::anyhow!("--procs {e}"))?;
    let alternatives = alternatives
        .iter()
        .map(|alt| {
            alt.split(';')
                .filter(|a| !a.trim().is_empty())
                .map(augur_distribution::spec::ArrayDistribution::parse)
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow::anyhow!("--distribute-alt {e}"))?;
    Ok(Some(crate::distribution::DistributeArgs {
        arrays,
        grids,
        alternatives,
    }))
}

/// The threads of each rank of a hybrid prediction (`--mpi-ranks P --threads T`): one
/// count, or none (one thread).
fn threads_per_rank(threads: &[u32]) -> Result<u32> {
    match threads {
        [] => Ok(1),
        [t] if *t >= 1 => Ok(*t),
        _ => {
            bail!("with --mpi-ranks give one thread count per rank (--threads T), not {threads:?}")
        }
    }
}

/// `--scale` and `--at` of `augur validate`, checked against each other.
fn validate_scale(
    scale: Option<&str>,
    at: Option<&str>,
) -> Result<Option<(augur_program::scaling::ScaleSpec, i64)>> {
    let (Some(scale), Some(at)) = (scale, at) else {
        return Ok(None);
    };
    let spec = scale_spec(Some(scale), false)?.expect("given");
    let at = crate::scale::At::parse(at)?;
    if at.symbol != spec.symbol || at.to.is_some() {
        bail!(
            "--at {}: give one value of the scaled variable, --at {}=VALUE",
            at.symbol,
            spec.symbol
        );
    }
    Ok(Some((spec, at.from)))
}

/// `augur validate`.
fn validate(v: ValidateCmd) -> Result<ExitCode> {
    if v.keep_partial {
        bail!(
            "validate has no --keep-partial: it compares a finished run with its prediction; to keep \
             the profile of a run that fails, use `augur analyze --keep-partial FILES`"
        );
    }
    let scale = validate_scale(v.scale.as_deref(), v.at.as_deref())?;
    for out in v.profile_out.iter().chain(&v.report) {
        check_output_dir(out)?;
    }
    let machine = match v.machine {
        Some(m) => m,
        None => {
            let flags = v.fflags.as_deref().unwrap_or("-O2");
            let flags: Vec<String> = flags.split_whitespace().map(str::to_string).collect();
            crate::predict::host_machine_for(v.fc.as_deref().unwrap_or("gfortran"), &flags)?
        }
    };
    crate::validate::run(
        &v.source,
        &crate::validate::ValidateArgs {
            machine,
            fc: v.fc,
            fflags: v.fflags,
            runs: v.runs.max(1),
            args: v.args,
            stdin: v.stdin,
            timeout: v.timeout,
            libs: v.libs,
            lib_dirs: v.lib_dirs,
            profile_out: v.profile_out,
            report: v.report,
            json: v.json,
            by: v.by,
            top: v.top.max(1),
            overlap: v.overlap.model(),
            branches: v.branches,
            scale,
            threads: v.threads,
            mpi_ranks: v.mpi_ranks,
        },
    )
}

/// `augur machines`: the library's profiles, one line each.
fn machines() -> ExitCode {
    // Written with `writeln!` so a closed pipe (`augur machines | head`) ends
    // the listing quietly instead of panicking.
    let mut out = std::io::stdout().lock();
    use augur_machine_profile::library::{is_historical, list};
    let (historical, measured): (Vec<_>, Vec<_>) =
        list().into_iter().partition(|(_, p)| is_historical(p));
    let host = augur_toolchain::os::host_provenance();
    if measured.is_empty() && historical.is_empty() {
        let _ = writeln!(
            out,
            "no machine profiles found (searched: machines/, $AUGUR_MACHINES)"
        );
    }
    for (title, all) in [
        ("measured", measured),
        ("historical (published, no intervals)", historical),
    ] {
        if all.is_empty() || writeln!(out, "{title}:").is_err() {
            continue;
        }
        for (name, path) in all {
            if writeln!(out, "  {}", machine_line(&name, &path, &host)).is_err() {
                return ExitCode::SUCCESS;
            }
        }
    }
    ExitCode::SUCCESS
}

/// The body of `augur machines --json`.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct MachinesListJson {
    /// The library's profiles: the measured ones, then the historical ones, each group
    /// sorted by name, as `augur machines` lists them.
    machines: Vec<LibraryMachine>,
}

/// One profile of the library.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct LibraryMachine {
    /// The name to give `-m` (the file's stem).
    name: String,
    /// The profile's file.
    path: String,
    /// Whether it is historical (`machines/historical/`: transcribed from a publication,
    /// no intervals) rather than measured by `augur characterize`.
    historical: bool,
    /// Whether it was measured on a CPU like this host's: the same family and model, CPU
    /// name and cache sizes.
    this_host_cpu: bool,
    /// Why the file could not be read; then none of the profile's keys are present.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// What the profile records of where it comes from (absent when unreadable).
    #[serde(flatten)]
    profile: Option<LibraryProvenance>,
}

/// Where a library profile comes from.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct LibraryProvenance {
    /// The CPU model (`model name` of /proc/cpuinfo; a historical machine's name).
    cpu: String,
    /// The x86 `cpu family`, when recorded.
    cpu_family: Option<u32>,
    /// The x86 `model` within its family, when recorded.
    cpu_model_number: Option<u32>,
    /// Cache sizes as the OS reported them (`L1d`, `L2`, `L3`, ...: `"32K"`).
    caches: std::collections::BTreeMap<String, String>,
    /// When it was measured (RFC 3339) or published.
    date: String,
    /// The compiler command.
    compiler: String,
    /// The compiler's version line.
    compiler_version: String,
    /// The compiler flags.
    fflags: String,
    /// How it was made: `quick`, `default`, `precise` or `historical`.
    mode: String,
    /// The publication a historical profile was transcribed from (empty if measured).
    source: String,
}

/// `augur machines --json`: the library's profiles as one document.
fn machines_json() -> Result<ExitCode> {
    use augur_machine_profile::library::{is_historical, list};
    let host = augur_toolchain::os::host_provenance();
    let (historical, measured): (Vec<_>, Vec<_>) =
        list().into_iter().partition(|(_, p)| is_historical(p));
    let machines = measured
        .into_iter()
        .chain(historical)
        .map(|(name, path)| {
            let read = augur_machine_profile::MachineProfile::read(&path);
            let historical = is_historical(&path);
            let (profile, error, this_host_cpu) = match read {
                Ok(m) => {
                    let p = m.provenance;
                    let same = !historical && p.mode != "historical" && p.same_cpu(&host);
                    let profile = LibraryProvenance {
                        cpu: p.cpu_model,
                        cpu_family: p.cpu_family,
                        cpu_model_number: p.cpu_model_number,
                        caches: p.caches,
                        date: p.date,
                        compiler: p.compiler,
                        compiler_version: p.compiler_version,
                        fflags: p.fflags,
                        mode: p.mode,
                        source: p.source,
                    };
                    (Some(profile), None, same)
                }
                Err(e) => (None, Some(e.to_string()), false),
            };
            LibraryMachine {
                name,
                path: path.display().to_string(),
                historical,
                this_host_cpu,
                error,
                profile,
            }
        })
        .collect();
    let doc = crate::schemas::Document::new("augur-machines", MachinesListJson { machines });
    println!("{}", serde_json::to_string_pretty(&doc)?);
    Ok(ExitCode::SUCCESS)
}

/// One line of `augur machines`: the compiler and flags, the CPU (family and model when
/// recorded), its caches, the day measured, and whether it matches this host (`host`).
fn machine_line(name: &str, path: &Path, host: &augur_machine_profile::Provenance) -> String {
    match augur_machine_profile::MachineProfile::read(path) {
        Ok(m) if m.provenance.mode == "historical" => format!(
            "{name:<32} {} {}, published {}",
            m.provenance.cpu_model, m.provenance.fflags, m.provenance.date
        ),
        Ok(m) => {
            let p = &m.provenance;
            let cpu = match (p.cpu_family, p.cpu_model_number) {
                (Some(f), Some(n)) => format!("{} (family {f} model {n})", p.cpu_model),
                (Some(f), None) => format!("{} (family {f})", p.cpu_model),
                _ => p.cpu_model.clone(),
            };
            let cache = |k: &str| p.caches.get(k).map_or("?", String::as_str);
            let day = p.date.get(..10).unwrap_or(&p.date);
            let mark = if p.same_cpu(host) {
                "   <- this host's CPU"
            } else {
                ""
            };
            format!(
                "{name:<32} {:<17} {cpu}, L1d {} L2 {} L3 {}, measured {day}{mark}",
                format!("{} {}", p.compiler, p.fflags),
                cache("L1d"),
                cache("L2"),
                cache("L3"),
            )
        }
        Err(e) => format!("{name:<32} unreadable: {e}"),
    }
}

/// The exit status of a benchmark's verdict: 1 when some program failed.
fn exit_code(verdict: augur_bench::Verdict) -> ExitCode {
    match verdict {
        augur_bench::Verdict::Passed => ExitCode::SUCCESS,
        augur_bench::Verdict::Failed => ExitCode::from(1),
    }
}

/// `augur bench ...`: the benchmarks of `augur_bench`.
fn bench(what: BenchCommand) -> Result<ExitCode> {
    match what {
        BenchCommand::Repeatability {
            runs,
            fc,
            fflags,
            quick,
            dir,
            replay,
            programs,
        } => {
            if !replay {
                crate::characterize::repeatedly(&fc, &fflags, quick, runs, &dir)?;
            }
            let machines = augur_bench::repeatability::machine_profiles(&dir)?;
            if machines.len() < 2 {
                anyhow::bail!(
                    "{} holds {} machine profile(s): repeatability needs two or more (run without --replay to make them)",
                    dir.display(),
                    machines.len()
                );
            }
            let programs = augur_bench::repeatability::program_profiles(&programs)?;
            print!(
                "{}",
                augur_bench::repeatability::report(&machines, &programs)
            );
            Ok(ExitCode::SUCCESS)
        }
        BenchCommand::Overhead {
            fflags,
            fc,
            runs,
            only,
            manifest,
            kept,
        } => {
            match kept {
                Some(dir) => augur_bench::overhead::kept(&dir)?,
                None => augur_bench::overhead::run(&manifest, &fc, &fflags, runs.max(1), &only)?,
            }
            Ok(ExitCode::SUCCESS)
        }
        BenchCommand::Openmp {
            threads,
            manifest,
            common,
        } => common.run(&manifest, Parallelism::Threads, &threads),
        BenchCommand::Mpi {
            ranks,
            manifest,
            common,
        } => common.run(&manifest, Parallelism::Ranks, &ranks),
        BenchCommand::Simgrid {
            machine,
            ranks,
            only,
            manifest,
            replay_cost,
        } => {
            print!(
                "{}",
                augur_bench::simgrid::run(&augur_bench::simgrid::SimGridArgs {
                    manifest: &manifest,
                    machine: &machine,
                    ranks: &ranks,
                    only: &only,
                    replay_cost: &replay_cost,
                })?
            );
            Ok(ExitCode::SUCCESS)
        }
        BenchCommand::Distribution {
            machine,
            runs,
            simulate,
            only,
            manifest,
        } => {
            print!(
                "{}",
                augur_bench::distribution::run(&augur_bench::distribution::DistributionArgs {
                    manifest: &manifest,
                    machine: &machine,
                    runs,
                    simulate: &simulate,
                    only: &only,
                })?
            );
            Ok(ExitCode::SUCCESS)
        }
        BenchCommand::Scaling {
            machine,
            runs,
            only,
            manifest,
            suite,
            save,
            replay,
        } => {
            let suite = suite.resolved();
            let programs = suite.programs(&manifest);
            augur_bench::scaling::run(&augur_bench::scaling::ScalingArgs {
                programs,
                machine: &machine,
                runs: runs.max(1),
                only: &only,
                save: save.as_deref(),
                replay: replay.as_deref(),
            })
            .map(exit_code)
        }
        BenchCommand::Accuracy {
            machine,
            fc,
            fflags,
            runs,
            only,
            manifest,
            suite,
            markdown,
            overlap,
            branches,
            save,
            replay,
            recount,
            by_loop,
        } => {
            let suite = suite.resolved();
            let programs = suite.programs(&manifest);
            augur_bench::accuracy::run(&augur_bench::accuracy::AccuracyArgs {
                programs,
                machine: &machine,
                fc: fc.as_deref(),
                fflags: fflags.as_deref(),
                runs: runs.max(1),
                only: &only,
                markdown,
                overlap: overlap.model(),
                branches,
                save: save.as_deref(),
                replay: replay.as_deref(),
                recount,
                by_loop,
            })
            .map(exit_code)
        }
        BenchCommand::Incore {
            machine,
            only,
            manifest,
            mcpu,
        } => augur_bench::incore::run(&augur_bench::incore::IncoreArgs {
            manifest: &manifest,
            machine: &machine,
            only: &only,
            mcpu: mcpu.as_deref(),
        })
        .map(exit_code),
        BenchCommand::Misses {
            fc,
            fflags,
            machine,
            only,
            all,
            manifest,
            markdown,
            json,
            timeout,
        } => augur_bench::misses::run(&augur_bench::misses::MissesArgs {
            manifest: &manifest,
            fc: &fc,
            fflags: &fflags,
            machine: machine.as_deref(),
            only: &only,
            all,
            markdown,
            json,
            timeout: std::time::Duration::from_secs_f64(timeout.clamp(1.0, 1e6)),
        })
        .map(exit_code),
        BenchCommand::Counts { only, manifest } => {
            augur_bench::counts::run(&manifest, &only).map(exit_code)
        }
        BenchCommand::FrontEnd {
            lines,
            from,
            repeat,
        } => {
            augur_bench::front_end::run(lines, &from, repeat.max(1))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn analyze(a: AnalyzeArgs) -> Result<ExitCode> {
    if let Some(out) = &a.output_file {
        check_output_dir(out)?;
    }
    if a.json && !a.static_only {
        bail!(
            "--json prints the static counts and goes with --static; a dynamic analysis writes its program profile, a JSON document (kind augur-program-profile), to -o FILE (default: STEM.profile.json)"
        );
    }
    let flags: Vec<String> = a.fflags.split_whitespace().map(str::to_string).collect();
    let mut threads = a.threads.clone();
    if threads.is_empty()
        && a.mpi_ranks.is_empty()
        && !a.static_only
        && augur_program::openmp::flags_enable_openmp(&flags)
    {
        // augur counts an OpenMP build per thread (its counters are the threads'): the
        // flags ask for one, so it is analyzed as `--threads 1,2` would.
        threads = vec![1, 2];
        eprintln!(
            "augur: {} in --fflags: an OpenMP build, counted per thread at 1 and 2 threads (--threads P1,P2,... counts at others; predict with `augur predict PROFILE --threads P`)",
            flags
                .iter()
                .find(|f| augur_program::openmp::flag_enables_openmp(f))
                .map_or("-fopenmp", String::as_str)
        );
    }
    if !a.static_only {
        return crate::dynamic::run(
            &a.source,
            &crate::dynamic::DynamicArgs {
                output_file: a.output_file.clone(),
                fc: a.fc.clone(),
                fflags: a.fflags.clone(),
                args: a.args.clone(),
                stdin: a.stdin.clone(),
                timeout: a.timeout,
                program_output: a.program_output.clone(),
                libs: a.libs.clone(),
                lib_dirs: a.lib_dirs.clone(),
                keep_partial: a.keep_partial,
                keep_build: a.keep_build.clone(),
                branch_run: !a.no_branch_run,
                scale: scale_spec(a.scale.as_deref(), a.allow_path_changes)?,
                threads,
                mpi_ranks: a.mpi_ranks.clone(),
            },
        );
    }
    for f in &a.source.files {
        if !f.exists() {
            bail!(
                "{}: no such file (give the path of a Fortran source file)",
                f.display()
            );
        }
        if let Some(what) = crate::dynamic::not_a_source(f) {
            bail!("{}: {what}", f.display());
        }
    }
    let fortran: Vec<PathBuf> = a
        .source
        .files
        .iter()
        .filter(|p| !crate::dynamic::is_link_only(p))
        .cloned()
        .collect();
    if fortran.is_empty() {
        bail!("no Fortran source among the files given (C files and objects are only linked)");
    }
    let program = augur_fortran::analyze(&fortran, &a.source.front_end());
    let errors = program
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let report = crate::static_report::StaticReport::new(&program);
    if a.json || a.output_file.is_some() {
        let json = serde_json::to_string_pretty(&report)?;
        match &a.output_file {
            Some(path) => write_atomically(path, json.as_bytes())?,
            None => println!("{json}"),
        }
    } else {
        let mut out = std::io::stdout().lock();
        out.write_all(crate::static_report::render_text(&program, a.all_blocks).as_bytes())?;
    }
    // Diagnostics always go to standard error, with the source line quoted.
    let mut err = std::io::stderr().lock();
    for d in &program.diagnostics {
        write!(err, "{}", d.render(&program.files))?;
    }
    Ok(if errors > 0 || program.units.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The `--scale` option parsed.
fn scale_spec(
    text: Option<&str>,
    allow_path_changes: bool,
) -> Result<Option<augur_program::scaling::ScaleSpec>> {
    text.map(|t| {
        augur_program::scaling::ScaleSpec::parse(t)
            .map(|s| augur_program::scaling::ScaleSpec {
                allow_path_changes,
                ..s
            })
            .map_err(anyhow::Error::msg)
    })
    .transpose()
}

/// Whether `path` names a Fortran source by its extension (`.f90`, `.F`, `.f77`, ...).
pub(crate) fn is_fortran_source(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .is_some_and(|e| {
            matches!(
                e.as_str(),
                "f" | "for" | "ftn" | "f77" | "fpp" | "f90" | "f95" | "f03" | "f08" | "f18"
            )
        })
}

/// The program profiles given to `command` (`augur predict`, ...), checked for the
/// mistakes a first reading of the help makes: a Fortran source (analyze it first) or a
/// library machine's name (it goes with `-m`). A file that is neither is left to the
/// profile's reader.
fn check_program_profiles(command: &str, profiles: &[PathBuf]) -> Result<()> {
    for p in profiles {
        if p.is_file() && is_fortran_source(p) {
            let stem = p
                .file_stem()
                .map_or_else(|| "PROGRAM".into(), |s| s.to_string_lossy().to_string());
            bail!(
                "{}: a Fortran source, not a program profile: analyze it first (`augur analyze {}` runs it and writes {stem}.profile.json), then give `augur {command}` that file",
                p.display(),
                p.display()
            );
        }
        if !p.exists() {
            let name = p.to_string_lossy();
            if let Ok(machine) = augur_machine_profile::library::resolve(&name) {
                bail!(
                    "{name}: no such file; it is the name of a machine profile of the library ({}), not a program profile: give it with `-m {name}`, after the program's profile (`augur analyze PROGRAM.f90` writes one)",
                    machine.display()
                );
            }
        }
    }
    Ok(())
}

/// How to add a missing section to the machine profile at `path`: `command(FILE)` is the
/// command that measures it into FILE (`augur characterize --memory -o FILE`). A profile
/// of augur's own library is not measured into (it describes the machine it was measured
/// on, and an update of augur replaces it): the advice copies it out first; a historical
/// one (transcribed from a publication) cannot be measured at all.
pub(crate) fn measure_advice(path: &Path, command: impl Fn(&str) -> String) -> String {
    if in_builtin_library(path) {
        let stem = path
            .file_stem()
            .map_or_else(|| "machine".into(), |s| s.to_string_lossy().to_string());
        if augur_machine_profile::library::is_historical(path) {
            return format!(
                "{stem} is a historical profile, transcribed from a publication: nothing can be measured into it"
            );
        }
        let copy = format!("my-{stem}.toml");
        return format!(
            "on the machine it describes, copy it out of augur's library and measure into the copy (not into the library's file): `cp {} {copy} && {}`, then give `-m {copy}`",
            path.display(),
            command(&copy)
        );
    }
    format!(
        "on the machine it describes, measure it with `{}`",
        command(&path.display().to_string())
    )
}

/// Whether `path` is a profile of augur's library (`machines/` of the checkout or the
/// installation), not of a directory the user named in `$AUGUR_MACHINES`.
fn in_builtin_library(path: &Path) -> bool {
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let file = canonical(path);
    let own: Vec<PathBuf> = std::env::var("AUGUR_MACHINES")
        .map(|v| {
            v.split(':')
                .filter(|s| !s.is_empty())
                .map(|d| canonical(Path::new(d)))
                .collect()
        })
        .unwrap_or_default();
    augur_machine_profile::library::library_dirs()
        .iter()
        .map(|d| canonical(d))
        .filter(|d| !own.contains(d))
        .any(|d| file.starts_with(&d))
}

/// Permissions that leave a new file's mode to the user's umask (0666 before it).
fn umask_permissions() -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    std::fs::Permissions::from_mode(0o666)
}

/// An error when the directory `path` would be written into does not exist: checked
/// before a command runs a program whose result goes there, and again on writing.
pub fn check_output_dir(path: &Path) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !dir.is_dir() {
        bail!(
            "cannot write {}: {} is not a directory (create it first, or give another path)",
            path.display(),
            dir.display()
        );
    }
    Ok(())
}

/// Writes a file through a temporary file in the same directory and a rename,
/// so an interrupted run never leaves a partial file; once interrupted, writes nothing
/// (the file keeps its previous contents).
pub fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    augur_toolchain::interrupt::check_cancel().map_err(anyhow::Error::msg)?;
    check_output_dir(path)?;
    // Readable as the user's umask says (a bare temporary file would stay 0600).
    let mut tmp = tempfile::Builder::new()
        .permissions(umask_permissions())
        .tempfile_in(dir)
        .map_err(|e| {
            // The temporary file's name (tempfile adds `at path ".../.tmpXXXX"`) is not
            // the user's business: the reason is the system's.
            let reason = e.raw_os_error().map_or_else(
                || e.kind().to_string(),
                |c| std::io::Error::from_raw_os_error(c).to_string(),
            );
            anyhow::anyhow!(
                "cannot write {}: {reason} (in {})",
                path.display(),
                dir.display()
            )
        })?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .with_context(|| format!("cannot write {}", path.display()))?;
    // The last moment to give up: the temporary file goes when `tmp` drops.
    augur_toolchain::interrupt::check_cancel().map_err(anyhow::Error::msg)?;
    tmp.persist(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
