//! An independent check of augur's execution counts: the original sources built with
//! `--coverage -O0`, run once, and gcov's line counts compared with augur's μ.
//!
//! gcov counts lines, augur counts basic blocks, so only lines where the two mean the
//! same thing are compared (see [`compare`]): the first simple statement of a straight
//! block, alone on its lines, where gfortran puts no control flow of its own.

use augur_fortran::FrontEndOptions;
use augur_ir::{BlockKind, Expr, ExprKind, LoopKind, Program, StmtKind, Subscript, Unit};
use augur_program_profile::ProgramProfile;
use augur_toolchain::{self as toolchain, BuildError, BuildInput, RunError, RunSpec, Toolchain};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// gcov's line counts of one run of the coverage build.
#[derive(Debug, Clone, Default)]
pub struct GcovCounts {
    /// Executions of each line, keyed by (file name without directories, 1-based line).
    /// Lines of a file compiled into several objects (an include file) are summed.
    pub lines: HashMap<(String, u32), u64>,
    /// The standard output of the coverage run.
    pub stdout: Vec<u8>,
}

/// What went wrong while getting gcov's counts.
#[derive(Debug, thiserror::Error)]
pub enum GcovError {
    /// gcov line counts need gfortran (gcov reads the notes gcc writes).
    #[error("gcov line counts need gfortran; `{0}` is not gfortran")]
    NotGfortran(String),
    /// The coverage build failed.
    #[error("the coverage build failed: {0}")]
    Build(#[from] BuildError),
    /// The coverage build could not be run.
    #[error("cannot run the coverage build: {0}")]
    Run(#[from] RunError),
    /// The coverage build did not end normally.
    #[error("the coverage build {0}")]
    Failed(String),
    /// gcov failed or wrote something unexpected.
    #[error("gcov: {0}")]
    Gcov(String),
    /// A file-system error.
    #[error("{0}")]
    Io(String),
}

/// Compiler flags that make gfortran see the sources as augur's front end saw them: the
/// source form, `-cpp` with the `-D` and `-I` options when the front end preprocesses (or
/// has definitions), and `-I` for Fortran INCLUDE. Upper-case extensions (`.F`, `.F90`) are
/// preprocessed by gfortran itself.
pub fn front_end_flags(front: &FrontEndOptions) -> Vec<String> {
    let load = &front.load;
    let mut flags = vec![];
    match load.form {
        Some(augur_source::SourceForm::Fixed) => flags.push("-ffixed-form".to_string()),
        Some(augur_source::SourceForm::Free) => flags.push("-ffree-form".to_string()),
        None => {}
    }
    if load.cpp || !load.defines.is_empty() {
        flags.push("-cpp".to_string());
    }
    for d in &load.defines {
        flags.push(format!("-D{d}"));
    }
    for i in &load.include_dirs {
        flags.push(format!("-I{}", i.display()));
    }
    flags
}

/// The gcov matching a gfortran command (`gfortran-12` -> `gcov-12` when it exists).
fn gcov_command(fc: &str) -> String {
    let base = Path::new(fc)
        .file_name()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    if let Some(v) = base.strip_prefix("gfortran-") {
        let candidate = match Path::new(fc).parent() {
            Some(dir) if !dir.as_os_str().is_empty() => {
                dir.join(format!("gcov-{v}")).display().to_string()
            }
            _ => format!("gcov-{v}"),
        };
        let works = toolchain::tool_output(Command::new(&candidate).arg("--version"))
            .map(|o| o.status.success())
            .unwrap_or(false);
        if works {
            return candidate;
        }
    }
    "gcov".to_string()
}

/// Builds the original sources with `--coverage -O0` (after the toolchain's flags, so
/// `-O0` wins), runs the program once with `spec` and reads gcov's line counts.
///
/// The build happens in a temporary directory; gcc names each `.gcda` file after its
/// object (by absolute path), so the program may run in any working directory.
/// C sources are linked but not measured.
pub fn gcov_line_counts(
    tc: &Toolchain,
    fortran: &[PathBuf],
    c_sources: &[PathBuf],
    spec: &RunSpec,
) -> Result<GcovCounts, GcovError> {
    if !tc.is_gfortran() {
        return Err(GcovError::NotGfortran(tc.fc.clone()));
    }
    let dir = toolchain::interrupt::temp_dir("augur-gcov-")
        .map_err(|e| GcovError::Io(format!("cannot create a build directory: {e}")))?;
    let input = BuildInput {
        fortran: fortran.to_vec(),
        extra_fflags: vec!["--coverage".into(), "-O0".into()],
        c_sources: c_sources.to_vec(),
        objects: vec![],
        link_args: vec!["--coverage".into()],
    };
    let exe = toolchain::build(tc, &input, dir.path(), "augur_gcov")?;
    let run = toolchain::run(&exe, spec)?;
    if !run.success() {
        return Err(GcovError::Failed(run.describe()));
    }
    let mut gcdas: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .map_err(|e| GcovError::Io(format!("cannot read {}: {e}", dir.path().display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "gcda"))
        .collect();
    gcdas.sort();
    if gcdas.is_empty() && !fortran.is_empty() {
        return Err(GcovError::Gcov(
            "the coverage run wrote no .gcda file".to_string(),
        ));
    }
    let gcov = gcov_command(&tc.fc);
    let mut lines: HashMap<(String, u32), u64> = HashMap::new();
    for gcda in &gcdas {
        let mut cmd = Command::new(&gcov);
        cmd.arg("--json-format")
            .arg("--stdout")
            .arg(gcda)
            .current_dir(dir.path())
            .env("LC_ALL", "C");
        let out = toolchain::tool_output(&mut cmd)
            .map_err(|e| GcovError::Gcov(format!("cannot run `{gcov}`: {e}")))?;
        if !out.status.success() {
            return Err(GcovError::Gcov(format!(
                "`{gcov}` failed on {}: {}",
                gcda.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        parse_gcov_json(&out.stdout, &mut lines)?;
    }
    Ok(GcovCounts {
        lines,
        stdout: run.stdout,
    })
}

/// Adds the line counts of gcov's JSON output (one or more documents) to `lines`.
fn parse_gcov_json(text: &[u8], lines: &mut HashMap<(String, u32), u64>) -> Result<(), GcovError> {
    let stream = serde_json::Deserializer::from_slice(text).into_iter::<serde_json::Value>();
    for doc in stream {
        let doc = doc.map_err(|e| GcovError::Gcov(format!("unreadable JSON output: {e}")))?;
        let files = doc
            .get("files")
            .and_then(|f| f.as_array())
            .ok_or_else(|| GcovError::Gcov("JSON output without `files`".to_string()))?;
        for f in files {
            let name = f.get("file").and_then(|n| n.as_str()).unwrap_or("");
            let name = Path::new(name)
                .file_name()
                .map(|s| s.to_string_lossy().to_string())
                .unwrap_or_default();
            for l in f
                .get("lines")
                .and_then(|l| l.as_array())
                .into_iter()
                .flatten()
            {
                let (Some(line), Some(count)) = (
                    l.get("line_number").and_then(|x| x.as_u64()),
                    l.get("count").and_then(|x| x.as_u64()),
                ) else {
                    continue;
                };
                *lines.entry((name.clone(), line as u32)).or_insert(0) += count;
            }
        }
    }
    Ok(())
}

/// The result of [`compare`].
#[derive(Debug, Clone, Default)]
pub struct CountCheck {
    /// Lines compared.
    pub compared: usize,
    /// Lines where augur and gcov disagree.
    pub mismatches: Vec<Mismatch>,
    /// Simple statements of counted blocks left out, by reason.
    pub excluded: BTreeMap<Exclusion, usize>,
}

/// Why a simple statement of a counted block is not compared (see [`compare`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Exclusion {
    /// The statement is compiled to a loop on its own line (array expression,
    /// implied-DO list): gcov adds that loop's iterations to the line's count.
    LoopOnLine,
    /// Another statement shares one of its lines (the guarded statement of a logical IF,
    /// `;`, an include file included twice): gcov counts lines, not statements.
    SharedLine,
    /// The labelled terminal statement of a DO: gfortran puts the loop's exit label on it.
    DoTerminal,
    /// Right before END DO or END SELECT: gfortran puts the construct's exit label there.
    BeforeConstructEnd,
    /// The last statement of a unit with a CONTAINS part: gfortran puts the unit's
    /// return (and the generated `main`) there.
    BeforeContains,
    /// Right after an arithmetic IF: gfortran gives one of its jumps that location.
    AfterArithmeticIf,
    /// After a call, in the same block, to a procedure that may end the program (STOP):
    /// augur counts the block's entries, and the last entry may stop before reaching the
    /// statement (one execution too many for the whole run). The front end does not end
    /// blocks at calls.
    AfterStoppingCall,
    /// gcov has no count for the statement's lines.
    NoGcovCount,
}

impl Exclusion {
    /// A short description.
    pub fn describe(&self) -> &'static str {
        match self {
            Exclusion::LoopOnLine => "array expression or implied DO (a loop on the line)",
            Exclusion::SharedLine => "line shared with another statement",
            Exclusion::DoTerminal => "labelled DO terminal statement",
            Exclusion::BeforeConstructEnd => "right before END DO / END SELECT",
            Exclusion::BeforeContains => "last statement before CONTAINS",
            Exclusion::AfterArithmeticIf => "right after an arithmetic IF",
            Exclusion::AfterStoppingCall => "after a call that may STOP, in the same block",
            Exclusion::NoGcovCount => "no gcov count on its lines",
        }
    }
}

/// A line where augur's block count differs from gcov's line count.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// File name (without directories).
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// augur's μ of the block the line starts.
    pub augur: f64,
    /// gcov's count of the line.
    pub gcov: u64,
    /// What is there: unit, block and statement kind.
    pub what: String,
}

/// Whether an expression has an array value anywhere (gfortran compiles it to a loop on
/// the statement's own line).
fn has_array(e: &Expr) -> bool {
    if e.array {
        return true;
    }
    match &e.kind {
        ExprKind::Elem(_, subs) => subs.iter().any(|s| match s {
            Subscript::Index(x) => has_array(x),
            Subscript::Range(..) => true,
        }),
        ExprKind::Substring(a) | ExprKind::Component(a, _) | ExprKind::Unary(_, a) => has_array(a),
        ExprKind::Binary(_, a, b) => has_array(a) || has_array(b),
        ExprKind::Call(_, args) => args.iter().any(has_array),
        ExprKind::ArrayCtor(_) | ExprKind::ImpliedDo(..) => true,
        _ => false,
    }
}

/// Compares augur's μ with gcov's line counts where both mean "executions of this
/// statement".
///
/// Every statement of a straight (or entry) block runs as many times as the block, so a
/// line is compared when it holds a simple statement (an assignment, a CALL, an I/O
/// statement or an ASSIGN), a logical IF (with its guarded statement, on the same
/// line), an arithmetic IF or a computed GOTO of such a block with a known μ. Plain GOTOs
/// are not: GCC merges the bare jumps to one label, and gcov gives one GOTO's line the
/// counts of the others (measured on sort77, where two `GOTO 10` follow each other). gcov's count of a line is the
/// number of times control enters the line's code from another line (plus the
/// iterations of loops lying entirely on the line), which is the statement's executions
/// except where gfortran puts code of its own on the line or the line holds more than
/// the statement. Excluded, each for the reason given (see [`Exclusion`]):
///
/// * statements compiled to a loop on their own line (array expressions: sections, whole
///   arrays, constructors, elemental or transformational intrinsics; implied-DO lists):
///   gcov adds the iterations of loops that lie entirely on one line to its count;
/// * lines where another statement (of any unit) also is: the guarded statement of a
///   logical IF (the line is compared as the IF's), `;`-separated statements, statements
///   of an include file included twice — gcov counts the line, not the statement;
/// * the labelled terminal statement of a DO (its label is some loop's label): it is the
///   last statement of the body, so the loop's exit label is there too (measured:
///   `DO 50 I = 1, 10` ... `50 W = W + I` gives that line 11);
/// * the last statement of a DO body (right before END DO): gfortran puts the loop's exit
///   label at its location, so gcov adds the loop's exits to the line's count (measured:
///   `do i=1,10; s=s+i; end do` gives the line of `s=s+i` 11);
/// * the last statement before END SELECT: gfortran puts the label where every CASE arm
///   ends at its location, so gcov adds the arrivals from the other arms;
/// * the last statement of a unit with internal procedures (before CONTAINS): gfortran
///   gives the unit's return (and, for a main program, the generated `main`) that
///   location;
/// * the statement right after an arithmetic IF: gfortran gives the IF's jump past it
///   that statement's location (measured: `IF (S) 10, 10, 20` / `10 S = S + M` counts
///   line 10 as often as the IF);
/// * statements after a call (in the same block) to a procedure that may end the program:
///   augur's μ counts entries into the block, and the entry that ends in STOP does not
///   reach them;
/// * lines gcov has no count for (gfortran put the statement's code on another line of a
///   continued statement, or none at all).
///
/// A labelled DO terminal, a statement before END DO and the others are left out whatever
/// their counts; no line is left out because it disagrees.
pub fn compare(program: &Program, profile: &ProgramProfile, gcov: &GcovCounts) -> CountCheck {
    let file_name = |id: augur_ir::FileId| -> String {
        program
            .files
            .files
            .get(id.0 as usize)
            .and_then(|f| f.path.file_name())
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default()
    };
    // How many statements touch each line.
    let mut on_line: HashMap<(String, u32), usize> = HashMap::new();
    for u in &program.units {
        for s in &u.stmts {
            let f = file_name(s.span.start.file);
            for line in s.span.start.line..=s.span.end_line.max(s.span.start.line) {
                *on_line.entry((f.clone(), line)).or_insert(0) += 1;
            }
        }
    }
    let stoppers = crate::instrument::may_stop(program);
    let mut check = CountCheck::default();
    for (ui, u) in program.units.iter().enumerate() {
        let Some(up) = profile.units.get(ui) else {
            continue;
        };
        let loop_labels: HashSet<u32> = u.loops.iter().filter_map(|l| l.label).collect();
        let before_end_do = last_body_statements(u);
        let hosts = has_internal_procedures(program, ui);
        for (bi, b) in u.blocks.iter().enumerate() {
            if !matches!(b.kind, BlockKind::Straight | BlockKind::Entry) {
                continue;
            }
            let Some(mu) = up.blocks.get(bi).and_then(|bp| bp.executions) else {
                continue;
            };
            // Every statement of a straight block runs μ times (but see AfterStoppingCall).
            let mut after_stopping_call = false;
            for (pos, &si) in b.stmts.iter().enumerate() {
                let stopped_before = after_stopping_call;
                after_stopping_call |= calls_stopper(&u.stmts[si as usize].kind, &stoppers);
                let si = si as usize;
                let s = &u.stmts[si];
                let what = match &s.kind {
                    StmtKind::Assign { .. } => "assignment".to_string(),
                    StmtKind::Call { name, .. } => format!("call {name}"),
                    StmtKind::Io { keyword, .. } => keyword.clone(),
                    StmtKind::AssignLabel { .. } => "assign".to_string(),
                    StmtKind::LogicalIf { .. } => "logical IF".to_string(),
                    StmtKind::ArithmeticIf { .. } => "arithmetic IF".to_string(),
                    StmtKind::ComputedGoto { .. } => "computed GOTO".to_string(),
                    _ => continue,
                };
                let f = file_name(s.span.start.file);
                // A logical IF goes with its guarded statement, on the same line: gcov
                // counts the line as often as the IF runs, whatever the guarded
                // statement does (its code is entered from the same line).
                let last_of = |i: usize| {
                    let x = &u.stmts[i];
                    x.span.end_line.max(x.span.start.line)
                };
                let mut group = vec![si];
                if matches!(s.kind, StmtKind::LogicalIf { .. })
                    && u.stmts.get(si + 1).is_some_and(|g| {
                        g.span.start.file == s.span.start.file && g.span.start.line <= last_of(si)
                    })
                {
                    group.push(si + 1);
                }
                let last_stmt = *group.last().expect("not empty");
                let last = group
                    .iter()
                    .map(|&g| last_of(g))
                    .max()
                    .unwrap_or(last_of(si));
                let shared = (s.span.start.line..=last).any(|l| {
                    let ours = group
                        .iter()
                        .filter(|&&g| u.stmts[g].span.start.line <= l && l <= last_of(g))
                        .count();
                    on_line.get(&(f.clone(), l)).copied().unwrap_or(0) != ours
                });
                let reason = if stopped_before {
                    Some(Exclusion::AfterStoppingCall)
                } else if group.iter().any(|&g| has_loop_of_its_own(&u.stmts[g].kind)) {
                    Some(Exclusion::LoopOnLine)
                } else if shared {
                    Some(Exclusion::SharedLine)
                } else if s.label.is_some_and(|l| loop_labels.contains(&l)) {
                    Some(Exclusion::DoTerminal)
                } else if before_end_do.contains(&last_stmt)
                    || followed_by_construct_end(program, &u.stmts[last_stmt])
                {
                    Some(Exclusion::BeforeConstructEnd)
                } else if last_stmt + 1 == u.stmts.len() && hosts {
                    Some(Exclusion::BeforeContains)
                } else if si > 0 && matches!(u.stmts[si - 1].kind, StmtKind::ArithmeticIf { .. }) {
                    Some(Exclusion::AfterArithmeticIf)
                } else {
                    None
                };
                if let Some(r) = reason {
                    *check.excluded.entry(r).or_insert(0) += 1;
                    continue;
                }
                let Some(&count) =
                    (s.span.start.line..=last).find_map(|l| gcov.lines.get(&(f.clone(), l)))
                else {
                    *check.excluded.entry(Exclusion::NoGcovCount).or_insert(0) += 1;
                    continue;
                };
                check.compared += 1;
                if count as f64 != mu {
                    check.mismatches.push(Mismatch {
                        file: f,
                        line: s.span.start.line,
                        augur: mu,
                        gcov: count,
                        what: format!("{what} in {}, statement {} of block {bi}", u.name, pos + 1),
                    });
                }
            }
        }
    }
    check
}

/// Whether the statement calls (with CALL or in an expression) a procedure that may end
/// the program.
fn calls_stopper(kind: &StmtKind, stoppers: &HashSet<String>) -> bool {
    fn expr(e: &Expr, st: &HashSet<String>) -> bool {
        match &e.kind {
            ExprKind::Call(t, args) => {
                matches!(t, augur_ir::CallTarget::User(n) if st.contains(n))
                    || args.iter().any(|a| expr(a, st))
            }
            ExprKind::ArrayCtor(args) | ExprKind::ImpliedDo(args, _) => {
                args.iter().any(|a| expr(a, st))
            }
            ExprKind::Elem(_, subs) => subs.iter().any(|s| match s {
                Subscript::Index(x) => expr(x, st),
                Subscript::Range(a, b, c) => [a, b, c].into_iter().flatten().any(|x| expr(x, st)),
            }),
            ExprKind::Substring(a) | ExprKind::Component(a, _) | ExprKind::Unary(_, a) => {
                expr(a, st)
            }
            ExprKind::Binary(_, a, b) => expr(a, st) || expr(b, st),
            _ => false,
        }
    }
    match kind {
        StmtKind::Call { name, args } => {
            stoppers.contains(name) || args.iter().any(|a| expr(a, stoppers))
        }
        StmtKind::Assign { lhs, rhs } => expr(lhs, stoppers) || expr(rhs, stoppers),
        StmtKind::Io { items, .. } => items.iter().any(|a| expr(a, stoppers)),
        StmtKind::If { cond } | StmtKind::LogicalIf { cond } => expr(cond, stoppers),
        _ => false,
    }
}

/// Whether gfortran compiles the statement to a loop of its own, on its own line: an
/// array expression (section, whole-array operation, array constructor, implied-DO list,
/// array intrinsic). A whole array passed as an actual argument or written by an I/O
/// statement is passed by descriptor, without a loop.
fn has_loop_of_its_own(kind: &StmtKind) -> bool {
    let plain_array = |e: &Expr| matches!(e.kind, ExprKind::Var(_));
    match kind {
        StmtKind::Assign { lhs, rhs } => has_array(lhs) || has_array(rhs),
        StmtKind::Call { args, .. } => args.iter().any(|a| !plain_array(a) && has_array(a)),
        StmtKind::Io { items, .. } => items.iter().any(|a| !plain_array(a) && has_array(a)),
        StmtKind::LogicalIf { cond } => has_array(cond),
        StmtKind::ArithmeticIf { expr, .. } | StmtKind::ComputedGoto { expr, .. } => {
            has_array(expr)
        }
        _ => false,
    }
}

/// Statements right before the END DO of a DO loop (by position in the parsed text).
fn last_body_statements(u: &Unit) -> HashSet<usize> {
    let mut out = HashSet::new();
    for l in &u.loops {
        // Labelled DOs end on their terminal statement, which is excluded by its label.
        if l.kind == LoopKind::ArrayElements || l.label.is_some() {
            continue;
        }
        let end = (l.end_text.line, l.end_text.col);
        let last = u
            .stmts
            .iter()
            .enumerate()
            .filter(|(_, s)| (s.text.line, s.text.col) < end)
            .max_by_key(|(_, s)| (s.text.line, s.text.col));
        if let Some((i, _)) = last {
            out.insert(i);
        }
    }
    out
}

/// Whether the next line of code after the statement (skipping blank lines, comments
/// and preprocessor lines) is an END DO or END SELECT.
fn followed_by_construct_end(program: &Program, s: &augur_ir::Stmt) -> bool {
    let Some(f) = program.files.files.get(s.span.start.file.0 as usize) else {
        return false;
    };
    let fixed = augur_source::SourceForm::from_path(&f.path) == augur_source::SourceForm::Fixed;
    let last = s.span.end_line.max(s.span.start.line);
    for line in last + 1..=f.lines {
        let raw = f.line_text(line);
        if fixed && raw.starts_with(['c', 'C', '*', '!', 'd', 'D']) {
            continue;
        }
        let code = crate::instrument::squeezed_code(raw);
        if code.is_empty() || code.starts_with('#') {
            continue;
        }
        return code.starts_with("enddo") || code.starts_with("endselect");
    }
    false
}

/// Whether another unit has this one as its host (it has a CONTAINS part).
fn has_internal_procedures(program: &Program, ui: usize) -> bool {
    program.units.iter().any(|u| u.host == Some(ui))
}
