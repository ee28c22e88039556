//! One Fortran program for all experiments, its build and its runs.
//!
//! Building (with experiments that do not compile left out) and running go through the
//! toolchain's shared harness, [`augur_toolchain::experiment`]; the generator, the run's
//! arguments and the meaning of the output are this family's own.
//!
//! [`generate`] writes two free-form files: the program (`augchar.f90`: one routine per
//! experiment, a dispatcher and a main program that calibrates and observes) and the
//! separately compiled support file (`augsupport.f90`: the `augglob` module with the
//! operand arrays of the global experiments, identity functions and array fillers that hand
//! out operands at run time, sinks of scalars and arrays, empty routines). Both loops of an
//! experiment start by moving the operand index (`aj = iand(it, az)`, zero at run time; see
//! [`crate::experiments`]) when the compiler optimizes; at -O0 the index is the constant 0
//! ([`OperandIndex`]). The program takes the
//! window in nanoseconds, the observations per experiment and the experiment numbers on its
//! command line, so one build serves every mode and every subset.
//!
//! For each experiment the program calibrates the iteration count `n` by doubling (or
//! more) until the measured loop lasts a quarter of the window, then scales `n` to the
//! window. Each observation times the reference loop and the measured loop with the same
//! `n` (`system_clock` at `integer(8)` rate); if the measured loop leaves
//! `[window/2, 2*window]`, `n` is rescaled and the observation repeated, at most four times
//! (Saavedra's `[TMIN, TMAX]` check). It prints:
//!
//! ```text
//! AUGRATE <counts per second>
//! AUGRES <timer resolution in counts>
//! AUGSTART <experiment>
//! AUGGONE <experiment>      (the loop's time does not grow with n: the compiler removed it)
//! AUGOBS <experiment> <k> <n> <ref counts> <body counts> <1 if inside the window, else 0>
//! ```

use crate::experiments::{Experiment, SLOT_LEN, TAGS};
use augur_toolchain::experiment::{
    self, output_lines, BuildFailure, ExperimentBuild, ProgramSources, RunFailure,
};
use augur_toolchain::{RunError, RunResult, Toolchain};
use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The generated sources.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The program (`augchar.f90`).
    pub program: String,
    /// The support file (`augsupport.f90`), compiled separately.
    pub support: String,
    /// For each experiment (by index), the lines (1-based, end exclusive) of its routine in
    /// `program`, to blame compile errors.
    pub lines: Vec<Range<u32>>,
}

impl Generated {
    /// The sources to build: the support file, then the program (which holds the
    /// experiments).
    pub fn into_sources(self) -> ProgramSources {
        ProgramSources {
            files: vec![
                ("augsupport.f90", self.support),
                ("augchar.f90", self.program),
            ],
            experiments_file: 1,
            lines: self.lines,
        }
    }
}

fn indent(code: &str, pad: &str) -> String {
    code.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!("{pad}{l}\n"))
        .collect()
}

/// How the index `aj` of the operand elements is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperandIndex {
    /// For an optimizing compiler: zero at run time but moving with the iteration as far
    /// as the compiler knows (`aj = iand(it, az)`, `az` read at run time), so that the
    /// operand loads and stores stay in the loop.
    Moving,
    /// Without optimization (`-O0`, or no `-O` flag): `aj` and `az` are the named constant
    /// 0, so each subscript is a constant and each use one memory access, as a VOLATILE
    /// variable's was; a moving index would add the subscript arithmetic that -O0
    /// evaluates at every use to the operation timed.
    Fixed,
}

impl OperandIndex {
    /// The index for a build with `fflags`: [`OperandIndex::Fixed`] when the last `-O`
    /// flag is `-O0` or there is none.
    pub fn for_flags(fflags: &[String]) -> OperandIndex {
        match fflags.iter().rev().find(|f| f.starts_with("-O")) {
            Some(f) if f != "-O0" => OperandIndex::Moving,
            _ => OperandIndex::Fixed,
        }
    }

    /// The declarations of `aj` and `az` and their setting before the clock starts.
    fn declare(self) -> &'static str {
        match self {
            OperandIndex::Moving => "  integer(8) :: aj, az\n  az = augi8(0_8)\n  aj = 0\n",
            OperandIndex::Fixed => "  integer(8), parameter :: aj = 0, az = 0\n",
        }
    }

    /// The first statement of both loops.
    fn step(self) -> &'static str {
        match self {
            OperandIndex::Moving => "      aj = iand(it, az)\n",
            OperandIndex::Fixed => "",
        }
    }
}

/// Generates the program for `exps` (experiment `k` is `exps[k-1]`) with the operand index
/// `index`.
pub fn generate(exps: &[Experiment], index: OperandIndex) -> Generated {
    let mut p = String::new();
    let mut lines = Vec::new();
    p.push_str("! Generated by augur characterize: narrow-spectrum experiments.\n");
    for (k, e) in exps.iter().enumerate() {
        let start = p.lines().count() as u32 + 1;
        let id = k + 1;
        let _ = writeln!(p, "! Experiment {id}: {}", e.abop);
        let _ = writeln!(p, "subroutine aug_e{id}(which, n, t)");
        p.push_str("  use augglob\n  implicit none\n");
        p.push_str("  integer, intent(in) :: which\n  integer(8), intent(in) :: n\n");
        p.push_str("  integer(8), intent(out) :: t\n  integer(8) :: it, t0, t1\n");
        p.push_str("  real(8), external :: augr8\n  real(4), external :: augr4\n");
        p.push_str("  integer(4), external :: augi4\n  integer(8), external :: augi8\n");
        p.push_str("  complex(4), external :: augc4\n  complex(8), external :: augc8\n");
        p.push_str("  logical, external :: augl\n");
        p.push_str(&indent(&e.decl, "  "));
        p.push_str(index.declare());
        p.push_str(&indent(&e.setup, "  "));
        p.push_str("  call system_clock(t0)\n  if (which == 0) then\n    do it = 1, n\n");
        p.push_str(index.step());
        p.push_str(&indent(&e.ref_body, "      "));
        p.push_str("    end do\n  else\n    do it = 1, n\n");
        p.push_str(index.step());
        p.push_str(&indent(&e.body, "      "));
        p.push_str("    end do\n  end if\n");
        p.push_str(&indent(&e.sink, "  "));
        p.push_str("  call system_clock(t1)\n  t = t1 - t0\n");
        let _ = writeln!(p, "end subroutine aug_e{id}");
        let end = p.lines().count() as u32 + 1;
        lines.push(start..end);
    }
    p.push_str("\nsubroutine augrun(id, which, n, t)\n  implicit none\n");
    p.push_str("  integer, intent(in) :: id, which\n  integer(8), intent(in) :: n\n");
    p.push_str("  integer(8), intent(out) :: t\n  t = -1\n  select case (id)\n");
    for k in 1..=exps.len() {
        let _ = writeln!(p, "  case ({k})\n    call aug_e{k}(which, n, t)");
    }
    p.push_str("  end select\nend subroutine augrun\n\n");
    p.push_str(MAIN);
    Generated {
        program: p,
        support: support(),
        lines,
    }
}

const MAIN: &str = r#"program augchar
  implicit none
  integer(8) :: rate, n, tr, tb, nmax, c0, c1, res
  real(8) :: win, wc, t
  integer :: reps, k, ia, id, tries, inwin
  character(len=64) :: arg
  call system_clock(count_rate=rate)
  write (*, '(a,i0)') 'AUGRATE ', rate
  ! Timer resolution: the smallest nonzero difference of consecutive clock reads.
  res = huge(res)
  do k = 1, 200
    call system_clock(c0)
    do
      call system_clock(c1)
      if (c1 /= c0) exit
    end do
    res = min(res, c1 - c0)
  end do
  write (*, '(a,i0)') 'AUGRES ', res
  flush (6)
  call get_command_argument(1, arg)
  read (arg, *) win
  call get_command_argument(2, arg)
  read (arg, *) reps
  wc = win * real(rate, 8) / 1.0d9
  nmax = 2_8**50
  do ia = 3, command_argument_count()
    call get_command_argument(ia, arg)
    read (arg, *) id
    write (*, '(a,i0)') 'AUGSTART ', id
    flush (6)
    n = 1
    do
      call augrun(id, 1, n, tb)
      t = real(tb, 8)
      if (t >= 0.25d0 * wc .or. n >= nmax) exit
      if (t < 0.01d0 * wc) then
        n = n * 16
      else
        n = n * 2
      end if
    end do
    if (n >= nmax .and. t < 0.25d0 * wc) then
      write (*, '(a,i0)') 'AUGGONE ', id
      flush (6)
      cycle
    end if
    n = max(1_8, int(real(n, 8) * wc / max(t, 1.0d0), 8))
    do k = 1, reps
      tries = 0
      do
        call augrun(id, 0, n, tr)
        call augrun(id, 1, n, tb)
        t = real(tb, 8)
        inwin = 0
        if (t >= 0.5d0 * wc .and. t <= 2.0d0 * wc) inwin = 1
        if (inwin == 1 .or. tries >= 4) exit
        n = max(1_8, int(real(n, 8) * wc / max(t, 1.0d0), 8))
        tries = tries + 1
      end do
      write (*, '(a,i0,1x,i0,1x,i0,1x,i0,1x,i0,1x,i0)') 'AUGOBS ', id, k, n, tr, tb, inwin
      flush (6)
    end do
  end do
end program augchar
"#;

/// The separately compiled support file.
pub fn support() -> String {
    let mut s = String::from(
        "! Generated by augur characterize: operands, sinks and empty routines, compiled\n\
         ! separately so that the experiments cannot see through them.\n\
         module augglob\n  implicit none\n",
    );
    let n = SLOT_LEN;
    for (decl, tag) in TAGS {
        let _ = writeln!(
            s,
            "  {decl} :: g_{tag}x\n  {decl} :: g_{tag}a({n}), g_{tag}b({n})"
        );
    }
    let _ = writeln!(
        s,
        "  integer(4) :: g_i({n})\n  logical :: g_l\n  logical :: g_m({n})"
    );
    for (decl, tag) in TAGS {
        let _ = writeln!(s, "  {decl} :: sink_{tag}");
    }
    s.push_str("  logical :: sink_l\n  real(8), allocatable :: g_w(:)\n  character(len=80) :: sink_ch\nend module augglob\n\n");
    for (decl, tag) in TAGS.iter().chain([("logical", "l")].iter()) {
        let _ = writeln!(
            s,
            "function aug{tag}(v)\n  implicit none\n  {decl} :: aug{tag}, v\n  aug{tag} = v\nend function aug{tag}\n"
        );
        let _ = writeln!(
            s,
            "subroutine augs{tag}(v)\n  use augglob\n  implicit none\n  {decl} :: v\n  sink_{tag} = v\nend subroutine augs{tag}\n"
        );
    }
    for (decl, tag) in TAGS
        .iter()
        .chain([("logical", "l"), ("character(len=*)", "ch")].iter())
    {
        s.push_str(&array_routines(decl, tag));
    }
    s.push_str(
        "subroutine augnop()\nend subroutine augnop\n\n\
         subroutine augsch(v)\n  use augglob\n  character(len=*) :: v\n  sink_i4 = len_trim(v)\nend subroutine augsch\n\n\
         subroutine augnop3(x, y, z)\n  real(8) :: x, y, z\nend subroutine augnop3\n\n\
         subroutine augfill(v, n)\n  integer :: n, k\n  real(8) :: v(n)\n  do k = 1, n\n    v(k) = 1.0d0 + real(k, 8) / 1024.0d0\n  end do\nend subroutine augfill\n",
    );
    s
}

/// The operand arrays' routines of one type: `augset<tag>(v, n, val)` fills an array at
/// run time, `augsv<tag>(v, n)` is the sink of an array stored into (it records one
/// element; the caller cannot know which).
fn array_routines(decl: &str, tag: &str) -> String {
    let keep = match tag {
        "ch" => "sink_i4 = len_trim(v(n))".to_string(),
        "l" => "sink_l = v(n)".to_string(),
        _ => format!("sink_{tag} = v(n)"),
    };
    format!(
        "subroutine augset{tag}(v, n, val)\n  implicit none\n  integer :: n\n  {decl} :: v(n)\n  \
         {decl} :: val\n  v = val\nend subroutine augset{tag}\n\n\
         subroutine augsv{tag}(v, n)\n  use augglob\n  implicit none\n  integer :: n\n  {decl} :: v(n)\n  \
         {keep}\nend subroutine augsv{tag}\n\n"
    )
}

/// One observation line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Obs {
    /// Experiment number (1-based index into the generated list).
    pub id: usize,
    /// Observation number.
    pub k: u32,
    /// Iterations of both loops.
    pub n: u64,
    /// Clock counts of the reference loop.
    pub t_ref: i64,
    /// Clock counts of the measured loop.
    pub t_body: i64,
    /// Whether the measured loop lasted inside the window.
    pub in_window: bool,
}

/// What a run printed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Output {
    /// Clock counts per second.
    pub rate: Option<u64>,
    /// The smallest nonzero difference of consecutive clock reads, in counts.
    pub resolution: Option<u64>,
    /// Experiments whose loop the compiler removed.
    pub gone: Vec<usize>,
    /// Experiments started, in order.
    pub started: Vec<usize>,
    /// Observations.
    pub obs: Vec<Obs>,
}

/// Parses the program's output; other lines are ignored, malformed `AUG` lines are errors.
pub fn parse_output(text: &str) -> Result<Output, String> {
    let mut out = Output::default();
    for line in output_lines(text) {
        match line.keyword() {
            Some("AUGRATE") => out.rate = Some(line.field(1)?),
            Some("AUGRES") => out.resolution = Some(line.field(1)?),
            Some("AUGGONE") => out.gone.push(line.field(1)?),
            Some("AUGSTART") => out.started.push(line.field(1)?),
            Some("AUGOBS") => {
                if line.words.len() != 7 {
                    return Err(line.malformed());
                }
                let num = |i: usize| line.field::<i64>(i);
                out.obs.push(Obs {
                    id: num(1)? as usize,
                    k: num(2)? as u32,
                    n: num(3)?.max(1) as u64,
                    t_ref: num(4)?,
                    t_body: num(5)?,
                    in_window: num(6)? == 1,
                });
            }
            _ => {}
        }
    }
    Ok(out)
}

/// How long to observe.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Target duration of one observation of the measured loop, in ns.
    pub window_ns: u64,
    /// Observations per experiment.
    pub reps: u32,
    /// The relative 90% half-width that re-observation aims at.
    pub target_rel_ci90: f64,
    /// The re-observation rounds' budget, in first passes' worth of observations.
    pub reobserve_passes: f64,
}

impl Settings {
    /// `--quick`: 5 ms windows, 5 observations, then re-observation towards a 5% half-width
    /// within half a first pass (session 90: the rounds of a 3% target took a third of a
    /// quick characterization).
    pub const QUICK: Settings = Settings {
        window_ns: 5_000_000,
        reps: 5,
        target_rel_ci90: 0.05,
        reobserve_passes: 0.5,
    };
    /// Default: 15 ms windows, 6 observations, then the re-observation rounds for the
    /// experiments short of their target ([`crate::reobserve`]).
    pub const DEFAULT: Settings = Settings {
        window_ns: 15_000_000,
        reps: 6,
        target_rel_ci90: crate::TARGET_REL_CI90,
        reobserve_passes: 1.5,
    };
    /// `--precise`: 80 ms windows, 20 observations (about five times the default's time).
    pub const PRECISE: Settings = Settings {
        window_ns: 80_000_000,
        reps: 20,
        target_rel_ci90: crate::TARGET_REL_CI90,
        reobserve_passes: 1.5,
    };

    /// The observation window for a timer of `resolution_ns`: at least
    /// [`WINDOW_RESOLUTIONS`] resolutions, and never below this mode's window.
    pub fn window_for(&self, resolution_ns: f64) -> u64 {
        let from_timer = (WINDOW_RESOLUTIONS * resolution_ns).ceil();
        if from_timer.is_finite() && from_timer > self.window_ns as f64 {
            from_timer as u64
        } else {
            self.window_ns
        }
    }
}

/// The window is at least this many timer resolutions, so that quantization (two reads,
/// each off by up to one resolution) costs at most 0.2% of an observation.
pub const WINDOW_RESOLUTIONS: f64 = 1000.0;

/// What [`measure`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// One outcome per experiment.
    pub outcomes: Vec<Outcome>,
    /// Clock counts per second.
    pub rate: u64,
    /// The measured timer resolution, ns.
    pub resolution_ns: f64,
    /// The observation window used, ns.
    pub window_ns: u64,
}

/// The status reason of an experiment whose loop the compiler removed.
pub const REMOVED: &str = "the compiler removed the loop: its time does not grow with the iteration count (operands folded or the results unused)";

/// The outcome of one experiment's runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Per-iteration times in ns of the reference and measured loops, one per observation,
    /// the smallest iteration count used and how many observations held the window.
    Observed {
        /// Reference loop, ns per iteration.
        reference: Vec<f64>,
        /// Measured loop, ns per iteration.
        body: Vec<f64>,
        /// The smallest iteration count.
        min_n: u64,
        /// Observations inside the window.
        in_window: usize,
    },
    /// The experiment could not be built or run.
    Failed(String),
}

/// Progress reports.
pub trait Progress {
    /// `done` of `total` experiments finished.
    fn update(&mut self, done: usize, total: usize);
    /// A message (e.g. an experiment dropped).
    fn note(&mut self, msg: &str);
}

/// Builds the program for `exps` in `dir` and runs it in chunks, returning an outcome per
/// experiment and the clock rate. Compile errors inside an experiment's routine drop that
/// experiment (marked failed) and rebuild; a crash or timeout marks the running experiment
/// failed and continues with the next. A build error outside any experiment is an error.
///
/// After the first pass (`settings.reps` observations each), up to [`MAX_ROUNDS`]
/// re-observation rounds follow: `more` gets the outcomes so far and the clock rate and
/// names the experiments (indices into `exps`) to observe again with how many more
/// observations; the same program runs them (its experiment and observation arguments) and
/// their observations are pooled with the earlier ones (an empty answer ends the rounds).
pub fn measure(
    tc: &Toolchain,
    exps: &[Experiment],
    settings: Settings,
    dir: &Path,
    progress: &mut dyn Progress,
    more: &mut Reobserve<'_>,
) -> Result<Measured, String> {
    let mut outcomes: Vec<Option<Outcome>> = vec![None; exps.len()];
    // Build, dropping experiments that do not compile.
    let (exe, active) = build_program(tc, exps, dir, &mut |i, message| {
        progress.note(&format!("{} does not compile: {message}", exps[i].abop));
        outcomes[i] = Some(Outcome::Failed(format!("does not compile: {message}")));
    })?;
    // First pass: every experiment, in chunks so that progress shows and a crash loses
    // little.
    let total = exps.len();
    // The timer: rate and resolution, then the window.
    let probe = run_program(
        &exe,
        dir,
        vec!["0".to_string(), "0".to_string()],
        Duration::from_secs(30),
    )?;
    let out = parse_output(&probe.stdout)?;
    let mut rate = out.rate.unwrap_or(0);
    let res_counts = out.resolution.unwrap_or(1).max(1);
    let resolution_ns = if rate > 0 {
        res_counts as f64 * 1e9 / rate as f64
    } else {
        f64::NAN
    };
    let settings = Settings {
        window_ns: settings.window_for(resolution_ns),
        ..settings
    };
    let queue: Vec<(usize, u32)> = (1..=active.len()).map(|id| (id, settings.reps)).collect();
    run_pass(&exe, dir, settings, &queue, &mut rate, &mut |id, r| {
        let i = active[id - 1];
        if let Err(why) = &r {
            progress.note(&format!("{} failed: {why}", exps[i].abop));
        }
        outcomes[i] = Some(r.unwrap_or_else(Outcome::Failed));
        progress.update(outcomes.iter().filter(|o| o.is_some()).count(), total);
    })?;
    let mut outcomes: Vec<Outcome> = outcomes
        .into_iter()
        .map(|o| o.unwrap_or_else(|| Outcome::Failed("not run".to_string())))
        .collect();
    // Re-observation passes: the same program, more observations of the experiments asked
    // for, pooled with the earlier ones. A failure here keeps the earlier observations.
    for round in 1..=MAX_ROUNDS {
        let want: Vec<(usize, u32)> = more(&outcomes, rate)
            .into_iter()
            .filter_map(|(i, reps)| {
                let id = active.iter().position(|&a| a == i)? + 1;
                (reps > 0).then_some((id, reps))
            })
            .collect();
        if want.is_empty() {
            break;
        }
        let obs: u32 = want.iter().map(|w| w.1).sum();
        progress.note(&format!(
            "re-observation round {round}: {} experiments, {obs} more observations",
            want.len()
        ));
        let mut extra: Vec<(usize, Outcome)> = Vec::new();
        run_pass(&exe, dir, settings, &want, &mut rate, &mut |id, r| {
            if let Ok(o) = r {
                extra.push((active[id - 1], o));
            }
        })?;
        for (i, o) in extra {
            outcomes[i].pool(o);
        }
    }
    Ok(Measured {
        outcomes,
        rate,
        resolution_ns,
        window_ns: settings.window_ns,
    })
}

/// Given the outcomes so far and the clock rate, the experiments to observe again (indices)
/// with how many more observations each.
pub type Reobserve<'a> = dyn FnMut(&[Outcome], u64) -> Vec<(usize, u32)> + 'a;

/// Re-observation rounds after the first pass, at most.
pub const MAX_ROUNDS: usize = 5;

impl Outcome {
    /// Pools `other`'s observations into `self` (a failed `self` is replaced).
    pub fn pool(&mut self, other: Outcome) {
        match (&mut *self, other) {
            (
                Outcome::Observed {
                    reference,
                    body,
                    min_n,
                    in_window,
                },
                Outcome::Observed {
                    reference: r2,
                    body: b2,
                    min_n: n2,
                    in_window: w2,
                },
            ) => {
                reference.extend(r2);
                body.extend(b2);
                *min_n = (*min_n).min(n2);
                *in_window += w2;
            }
            (Outcome::Failed(_), o @ Outcome::Observed { .. }) => *self = o,
            (_, Outcome::Failed(_)) => {}
        }
    }
}

/// Runs the program on `queue` (program-local experiment ids with their observation
/// counts) in chunks of experiments with the same count, handing each experiment's outcome
/// (or why it failed) to `done`.
fn run_pass(
    exe: &Path,
    dir: &Path,
    settings: Settings,
    queue: &[(usize, u32)],
    rate: &mut u64,
    done: &mut dyn FnMut(usize, Result<Outcome, String>),
) -> Result<(), String> {
    const CHUNK: usize = 6;
    let mut queue: Vec<(usize, u32)> = queue.to_vec();
    while !queue.is_empty() {
        let reps = queue[0].1;
        let chunk: Vec<usize> = queue
            .iter()
            .take(CHUNK)
            .take_while(|q| q.1 == reps)
            .map(|q| q.0)
            .collect();
        let per_exp = Duration::from_nanos(settings.window_ns) * (reps * 6 + 30);
        let mut args = vec![settings.window_ns.to_string(), reps.to_string()];
        args.extend(chunk.iter().map(|id| id.to_string()));
        let res = run_program(
            exe,
            dir,
            args,
            per_exp * chunk.len() as u32 + Duration::from_secs(20),
        )?;
        let out = parse_output(&res.stdout)?;
        *rate = out.rate.unwrap_or(*rate);
        let mut finished = 0;
        for &id in &chunk {
            if out.gone.contains(&id) {
                done(id, Err(REMOVED.to_string()));
                finished += 1;
                continue;
            }
            let obs: Vec<&Obs> = out.obs.iter().filter(|o| o.id == id).collect();
            if obs.len() as u32 == reps && *rate > 0 {
                let to_ns = 1e9 / *rate as f64;
                done(
                    id,
                    Ok(Outcome::Observed {
                        reference: obs
                            .iter()
                            .map(|o| o.t_ref as f64 * to_ns / o.n as f64)
                            .collect(),
                        body: obs
                            .iter()
                            .map(|o| o.t_body as f64 * to_ns / o.n as f64)
                            .collect(),
                        min_n: obs.iter().map(|o| o.n).min().unwrap_or(1),
                        in_window: obs.iter().filter(|o| o.in_window).count(),
                    }),
                );
                finished += 1;
            } else {
                break;
            }
        }
        if finished < chunk.len() {
            // The experiment after the finished ones crashed, timed out or printed nothing.
            let id = chunk[finished];
            let why = res
                .failure
                .unwrap_or_else(|| "the program stopped without its observations".to_string());
            done(id, Err(why));
            finished += 1;
        }
        queue.drain(..finished);
    }
    Ok(())
}

/// Builds the program of `exps` in `dir`, leaving out the experiments that do not
/// compile (`dropped` gets each with its first error); returns the executable and the
/// experiments in it (experiment `active[j]` has program id `j + 1`). A build error outside
/// every experiment is an error.
fn build_program(
    tc: &Toolchain,
    exps: &[Experiment],
    dir: &Path,
    dropped: &mut dyn FnMut(usize, &str),
) -> Result<(PathBuf, Vec<usize>), String> {
    let build = ExperimentBuild::new(tc, dir, "augchar");
    let mut generate = |active: &[usize]| {
        let subset: Vec<Experiment> = active.iter().map(|&i| exps[i].clone()).collect();
        let index = OperandIndex::for_flags(&tc.fflags);
        (generate(&subset, index).into_sources(), ())
    };
    // Each build drops at least one experiment: as many attempts as it takes.
    match build.build_dropping(exps.len(), usize::MAX, &mut generate, dropped) {
        Ok(built) => Ok((built.exe, built.active)),
        Err(BuildFailure::Build(e)) => Err(format!("cannot build the experiments: {e}")),
        Err(e) => Err(e.to_string()),
    }
}

/// What one run of the experiment program printed, and why it failed, if it did.
struct Ran {
    stdout: String,
    failure: Option<String>,
}

/// Runs the experiment program with `args` in `dir`, killing it at `timeout`; a cancelled
/// characterization ([`augur_toolchain::interrupt::cancel`]) gives the error
/// [`augur_toolchain::interrupt::CANCELLED`].
fn run_program(
    exe: &Path,
    dir: &Path,
    args: Vec<String>,
    timeout: Duration,
) -> Result<Ran, String> {
    let ran = experiment::run(exe, dir, args, timeout).map_err(|e| match e {
        RunFailure::Run(RunError::Spawn { source, .. }) => {
            format!("cannot run the experiments ({}): {source}", exe.display())
        }
        RunFailure::Run(RunError::Wait { source, .. }) => {
            format!("cannot wait for the experiments: {source}")
        }
        e => e.to_string(),
    })?;
    Ok(Ran {
        stdout: String::from_utf8_lossy(&ran.stdout).to_string(),
        failure: failure(&ran, timeout),
    })
}

/// Why a run failed: `timed out after 30 s`, `the program exited with status 2: <the last
/// line of its stderr>`; `None` when it exited with status 0.
fn failure(ran: &RunResult, timeout: Duration) -> Option<String> {
    if ran.timed_out {
        return Some(format!("timed out after {:.0} s", timeout.as_secs_f64()));
    }
    if ran.exit_code == Some(0) {
        return None;
    }
    let how = match (ran.exit_code, ran.signal) {
        (Some(c), _) => format!("exited with status {c}"),
        (None, Some(sig)) => format!("was killed by signal {sig}"),
        _ => "failed".to_string(),
    };
    let stderr = String::from_utf8_lossy(&ran.stderr);
    let last = stderr
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or("");
    Some(if last.is_empty() {
        format!("the program {how}")
    } else {
        format!("the program {how}: {last}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::{catalogue, select};

    #[test]
    fn program_has_one_routine_per_experiment_and_a_dispatcher() {
        let all = catalogue();
        let g = generate(&all, OperandIndex::Moving);
        for k in 1..=all.len() {
            assert!(g
                .program
                .contains(&format!("subroutine aug_e{k}(which, n, t)")));
            assert!(g.program.contains(&format!("case ({k})\n")));
        }
        assert!(g.program.contains("program augchar"));
        assert_eq!(g.lines.len(), all.len());
        // Line ranges point at the routine.
        let lines: Vec<&str> = g.program.lines().collect();
        let r = &g.lines[2];
        assert!(lines[r.start as usize - 1].starts_with("! Experiment 3:"));
        assert!(lines[r.end as usize - 2].starts_with("end subroutine aug_e3"));
        assert!(g.support.contains("module augglob"));
        assert!(g.support.contains("function augr8(v)"));
        assert!(g.support.contains("subroutine augsc8(v)"));
        // Free form, no line longer than 132 characters.
        assert!(g.program.lines().all(|l| l.len() <= 132));
    }

    /// No experiment relies on VOLATILE (flang ignores it): operands are read at run time
    /// and results go to separately compiled sinks instead. Every operand placeholder is
    /// expanded.
    #[test]
    fn no_generated_source_uses_volatile() {
        for index in [OperandIndex::Moving, OperandIndex::Fixed] {
            let g = generate(&catalogue(), index);
            for (name, text) in [("augchar.f90", &g.program), ("augsupport.f90", &g.support)] {
                for (k, line) in text.lines().enumerate() {
                    let bad = line.to_lowercase().contains("volatile") || line.contains(['{', '}']);
                    assert!(!bad, "{index:?} {name}:{}: {line}", k + 1);
                }
            }
        }
    }

    #[test]
    fn generation_is_deterministic() {
        let all = catalogue();
        let sel = select(&all, &["ARDL".to_string()]).unwrap();
        let moving = generate(&sel, OperandIndex::Moving).program;
        assert_eq!(moving, generate(&sel, OperandIndex::Moving).program);
        assert!(moving.contains("x = x + a(aj + 8)") && moving.contains("aj = iand(it, az)"));
        let fixed = generate(&sel, OperandIndex::Fixed).program;
        assert!(fixed.contains("parameter :: aj = 0, az = 0") && !fixed.contains("iand(it"));
    }

    #[test]
    fn the_index_moves_only_when_the_compiler_optimizes() {
        let f = |s: &str| {
            OperandIndex::for_flags(&s.split_whitespace().map(String::from).collect::<Vec<_>>())
        };
        assert_eq!(f("-O2"), OperandIndex::Moving);
        assert_eq!(f("-O3 -march=native"), OperandIndex::Moving);
        assert_eq!(f("-O2 -O0"), OperandIndex::Fixed);
        assert_eq!(f("-O0"), OperandIndex::Fixed);
        assert_eq!(f("-g"), OperandIndex::Fixed);
        assert_eq!(f("-O0 -Og"), OperandIndex::Moving);
    }

    #[test]
    fn parses_output() {
        let text = "AUGRATE 1000000000\nAUGSTART 1\nAUGOBS 1 1 1000 200 1800 1\nnoise\nAUGOBS 1 2 900 180 1700 0\nAUGSTART 2\n";
        let out = parse_output(text).unwrap();
        assert_eq!(out.rate, Some(1_000_000_000));
        assert_eq!(out.started, vec![1, 2]);
        assert_eq!(out.obs.len(), 2);
        assert_eq!(
            out.obs[1],
            Obs {
                id: 1,
                k: 2,
                n: 900,
                t_ref: 180,
                t_body: 1700,
                in_window: false
            }
        );
        assert!(parse_output("AUGOBS 1 2 x").unwrap_err().contains("line 1"));
        assert!(parse_output("AUGRATE").is_err());
    }
}
