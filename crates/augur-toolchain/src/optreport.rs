//! The compiler's own optimization report: which loops it vectorized and which calls it
//! inlined, per source line.
//!
//! The narrow-spectrum and stream costs of a machine profile are per operation; whether
//! a loop runs vectorized or a call disappears into its caller is a decision of the
//! compiler about one loop or one call site, which no operation count can show. The
//! compiler reports these decisions itself when asked (gfortran `-fopt-info-vec-optimized
//! -fopt-info-inline-optimized`, LLVM flang `-Rpass='loop-vectorize|inline|loop-unroll'`), so
//! [`report`] compiles the original sources once more, without linking, with those flags
//! added to the user's, and [`parse`] reads the messages. The report belongs to one
//! compiler and one set of flags: the predictor uses it only for a machine profile built
//! with the same ones.

use crate as toolchain;
use crate::Toolchain;
use augur_program_profile::optreport::{
    InlinedCall, OptReport, SourceLine, TransformedLoop, UnrolledLoop, VectorizedLoop,
};
use std::path::{Path, PathBuf};
/// The flags that make `tc` print its vectorization and inlining decisions, or `None`
/// when augur does not know how to ask this compiler.
pub fn report_flags(tc: &Toolchain) -> Option<Vec<String>> {
    if tc.is_gfortran() {
        Some(vec![
            "-fopt-info-vec-optimized".into(),
            "-fopt-info-inline-optimized".into(),
            "-fopt-info-loop-optimized".into(),
        ])
    } else if tc.is_flang() {
        // One regular expression: a later -Rpass replaces an earlier one.
        Some(vec!["-Rpass=loop-vectorize|inline|loop-unroll".into()])
    } else {
        None
    }
}

/// Compiles `sources` (already in module order; `names` are the strings the profile uses
/// for them) with the report flags in a temporary directory and reads the report. A
/// compiler augur cannot ask gives an empty report with a note; a source that does not
/// compile gives an error.
pub fn report(
    tc: &Toolchain,
    sources: &[PathBuf],
    names: &[String],
    extra_fflags: &[String],
) -> Result<OptReport, String> {
    let mut out = OptReport {
        // The compiler an MPI wrapper runs: the report is its, and a machine profile of
        // that compiler uses it.
        compiler: crate::compiler::underlying_compiler(&tc.fc),
        compiler_version: tc.version.clone(),
        fflags: tc.fflags.clone(),
        ..OptReport::default()
    };
    let Some(flags) = report_flags(tc) else {
        out.notes.push(format!(
            "no optimization report: augur does not know how to ask `{}` for one",
            tc.fc
        ));
        return Ok(out);
    };
    let dir = crate::interrupt::temp_dir("augur-optreport-")
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let mut all = flags;
    // Assembly with line information instead of objects (`-g` does not change the code
    // GCC or LLVM generate), for the branch-free lines.
    all.extend(["-S".to_string(), "-g".to_string()]);
    all.extend(extra_fflags.iter().cloned());
    let printed = toolchain::compile_only(tc, sources, &all, dir.path())
        .map_err(|e| format!("the optimization report could not be made: {e}"))?;
    let text = printed.join("\n");
    let parsed = parse(&text, names);
    out.vectorized = parsed.vectorized;
    out.inlined = parsed.inlined;
    out.unrolled = parsed.unrolled;
    out.transformed = parsed.transformed;
    if let Ok(entries) = std::fs::read_dir(dir.path()) {
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().and_then(|x| x.to_str()) == Some("o") {
                if let Ok(asm) = std::fs::read_to_string(&p) {
                    let (free, jumps) = branch_lines(&asm, names);
                    out.compiled_loops
                        .extend(crate::compiled::compiled_loops(&asm, names));
                    out.compiled_bodies
                        .extend(crate::compiled::compiled_bodies(&asm, names));
                    out.branchless.extend(free);
                    out.branching.extend(jumps);
                    out.forwarding_failures
                        .extend(crate::forwarding::forwarding_failures(
                            &asm,
                            names,
                            tc.optimizes(),
                        ));
                    out.library_moves.extend(library_move_lines(&asm, names));
                }
            }
        }
    }
    for v in [
        &mut out.branchless,
        &mut out.branching,
        &mut out.library_moves,
    ] {
        v.sort();
        v.dedup();
    }
    Ok(out)
}

/// What the instructions attributed to one source line do to control flow.
#[derive(Debug, Default, Clone, Copy)]
struct LineCode {
    conditional_jumps: u32,
    selects: u32,
}

/// Whether `mnemonic` is a conditional jump (x86-64 `jcc`, AArch64 `b.cond`, `cbz`,
/// `cbnz`, `tbz`, `tbnz`).
fn is_conditional_jump(m: &str) -> bool {
    (m.starts_with('j') && m != "jmp" && m != "jmpq")
        || m.starts_with("b.")
        || matches!(m, "cbz" | "cbnz" | "tbz" | "tbnz")
}

/// Whether `mnemonic` chooses between values without a branch (conditional move or set,
/// borrow/carry arithmetic, min/max, blends, AArch64 conditional selects).
fn is_select(m: &str) -> bool {
    m.starts_with("cmov")
        || m.starts_with("set")
        || m.starts_with("sbb")
        || m.starts_with("adc")
        || m.contains("min")
        || m.contains("max")
        || m.contains("blend")
        || matches!(
            m,
            "csel" | "csinc" | "csinv" | "csneg" | "cset" | "csetm" | "fcsel"
        )
}

/// The lines of `asm` (GNU assembler text with `.file`/`.loc` directives) in the files
/// of `names` whose instructions include a select and no conditional jump, and those
/// with a conditional jump.
pub fn branch_lines(asm: &str, names: &[String]) -> (Vec<SourceLine>, Vec<SourceLine>) {
    let mut code: std::collections::BTreeMap<(u32, u32), LineCode> = Default::default();
    let files = walk_source_instructions(asm, names, |text, key| {
        let m = text.split_whitespace().next().unwrap_or("");
        let c = code.entry(key).or_default();
        if is_conditional_jump(m) {
            c.conditional_jumps += 1;
        } else if is_select(m) {
            c.selects += 1;
        }
    });
    let (mut free, mut jumps) = (vec![], vec![]);
    for (key, c) in code {
        let Some(at) = source_line(&files, key) else {
            continue;
        };
        if c.conditional_jumps > 0 {
            jumps.push(at);
        } else if c.selects > 0 {
            free.push(at);
        }
    }
    (free, jumps)
}

/// The C library's block moves a compiler calls for an array assignment.
const LIBRARY_MOVES: [&str; 3] = ["memcpy", "memmove", "memset"];

/// The lines of `asm` in the files of `names` whose instructions call (or jump to) the
/// C library's `memcpy`, `memmove` or `memset`: gfortran emits a contiguous array's
/// copy `u = w` or fill `a = 0` as one such call at every optimization level, so the
/// statement runs at the library's speed, not as an element loop of its flags.
pub fn library_move_lines(asm: &str, names: &[String]) -> Vec<SourceLine> {
    let mut keys: std::collections::BTreeSet<(u32, u32)> = Default::default();
    let files = walk_source_instructions(asm, names, |text, key| {
        let mut words = text.split_whitespace();
        let (Some(m), Some(target)) = (words.next(), words.next()) else {
            return;
        };
        let callee = target.split('@').next().unwrap_or("");
        if (m.starts_with("call") || m.starts_with("jmp")) && LIBRARY_MOVES.contains(&callee) {
            keys.insert(key);
        }
    });
    keys.into_iter()
        .filter_map(|key| source_line(&files, key))
        .collect()
}

/// Calls `each` on the instructions of `asm` that a `.loc` gives a source line, with
/// that line's `(file number, line)`; returns [`walk_assembly`]'s files.
fn walk_source_instructions<'a>(
    asm: &'a str,
    names: &[String],
    mut each: impl FnMut(&'a str, (u32, u32)),
) -> std::collections::HashMap<u32, Option<String>> {
    walk_assembly(asm, names, |item| {
        if let AsmItem::Instruction {
            text,
            at: Some(key),
        } = item
        {
            each(text, key);
        }
    })
}

/// The source line of a `(file number, line)` key, when the file is one of the
/// program's.
pub(crate) fn source_line(
    files: &std::collections::HashMap<u32, Option<String>>,
    (f, line): (u32, u32),
) -> Option<SourceLine> {
    let file = files.get(&f)?.clone()?;
    Some(SourceLine { file, line })
}

/// What [`walk_assembly`] meets in GNU assembler text.
pub(crate) enum AsmItem<'a> {
    /// A function's start (`.cfi_startproc`).
    FunctionStart,
    /// An instruction, trimmed, and the `(file number, line)` of the `.loc` before it
    /// (`None` for code of no source line).
    Instruction {
        text: &'a str,
        at: Option<(u32, u32)>,
    },
}

/// Calls `each` on the function starts and instructions of `asm` in order, and returns
/// the source files its `.file` directives number, matched against `names` (`None` for
/// a file not among them).
pub(crate) fn walk_assembly<'a>(
    asm: &'a str,
    names: &[String],
    mut each: impl FnMut(AsmItem<'a>),
) -> std::collections::HashMap<u32, Option<String>> {
    let mut files = std::collections::HashMap::new();
    let mut at: Option<(u32, u32)> = None;
    for raw in asm.lines() {
        let line = raw.trim();
        if let Some((n, name)) = file_directive(line) {
            files.insert(n, match_name(&name, names));
        } else if let Some(loc) = loc_directive(line) {
            at = loc;
        } else if line.starts_with(".cfi_startproc") {
            each(AsmItem::FunctionStart);
        } else if raw.starts_with('\t') && !line.starts_with('.') && !line.is_empty() {
            each(AsmItem::Instruction { text: line, at });
        }
    }
    files
}

/// A `.loc FILE LINE ...` directive: `Some(Some((file, line)))`, or `Some(None)` for
/// line 0 (code of no source line); `None` for any other line.
pub(crate) fn loc_directive(line: &str) -> Option<Option<(u32, u32)>> {
    let rest = line.strip_prefix(".loc")?;
    let mut it = rest.split_whitespace().map(|x| x.parse::<u32>().ok());
    Some(match (it.next().flatten(), it.next().flatten()) {
        (Some(f), Some(l)) if l > 0 => Some((f, l)),
        _ => None,
    })
}

/// A `.file N "name"` or `.file N "dir" "name"` (DWARF 5) directive: the number and
/// the file's path.
pub(crate) fn file_directive(line: &str) -> Option<(u32, String)> {
    let rest = line.strip_prefix(".file")?;
    let n = rest.split_whitespace().next()?.parse::<u32>().ok()?;
    let quoted: Vec<&str> = rest.split('"').skip(1).step_by(2).collect();
    let name = match quoted.as_slice() {
        [dir, name] if !name.starts_with('/') => format!("{dir}/{name}"),
        [.., name] => name.to_string(),
        [] => return None,
    };
    Some((n, name))
}

/// Adds a vectorized loop unless one is already reported at `file:line`.
fn add_vectorized(loops: &mut Vec<VectorizedLoop>, file: &str, line: u32, how: String) {
    if !loops.iter().any(|v| v.line == line && v.file == file) {
        loops.push(VectorizedLoop {
            file: file.to_string(),
            line,
            how,
        });
    }
}

/// A loop transformation the predictor does not model, in a few words: gfortran's
/// "loop unrolled 3 times" (partial unrolling, `-funroll-loops`), "loops interchanged
/// in loop nest", "Loop 2 distributed: split to 2 loops and 0 library calls.",
/// "Unswitching loop ..."; flang's "unrolled loop by a factor of 4 ...".
fn unmodeled_transform(message: &str) -> Option<String> {
    let m = message
        .strip_prefix("optimized:")
        .or_else(|| message.strip_prefix("remark:"))?
        .trim();
    let times = |s: &str| s.split_whitespace().next().map(str::to_string);
    if let Some(rest) = m.strip_prefix("loop unrolled ") {
        return Some(format!("unrolled {} times", times(rest)?));
    }
    if let Some(rest) = m.strip_prefix("unrolled loop by a factor of ") {
        return Some(format!("unrolled {} times", times(rest)?));
    }
    if m.starts_with("loops interchanged") {
        return Some("interchanged".into());
    }
    if m.to_ascii_lowercase().starts_with("unswitching loop") {
        return Some("unswitched".into());
    }
    let (_, tail) = m.split_once(" distributed: split to ")?;
    let loops: u32 = tail.split_whitespace().next()?.parse().ok()?;
    (loops > 1).then(|| format!("distributed into {loops} loops"))
}

/// The number of library calls a loop became when gfortran's loop distribution turned
/// all of it into calls ("optimized: Loop 4 distributed: split to 0 loops and 2 library
/// calls."); `None` for other messages and for loops that kept a loop beside the calls
/// (which statements became calls is not said).
fn whole_loop_library_calls(message: &str) -> Option<u32> {
    let rest = message.strip_prefix("optimized: Loop ")?;
    let (_, tail) = rest.split_once(" distributed: split to 0 loops and ")?;
    let calls: u32 = tail.split_whitespace().next()?.parse().ok()?;
    (calls > 0 && tail.contains("library call")).then_some(calls)
}

/// Reads gfortran's `-fopt-info` and flang's `-Rpass` messages. A message's file is
/// matched to one of `names` by its path, else by its file name (flang may print the
/// path without its leading `/`); messages about other files are ignored.
pub fn parse(text: &str, names: &[String]) -> Parsed {
    let mut vectorized = vec![];
    let mut inlined = vec![];
    let mut unrolled: Vec<UnrolledLoop> = vec![];
    let mut transformed: Vec<TransformedLoop> = vec![];
    // The first number after `with` in "loop with 3 iterations completely unrolled".
    let count_after_with = |m: &str| -> Option<u32> {
        m.split("with ")
            .nth(1)?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    };
    for line in text.lines() {
        let Some((file, lno, message)) = split_location(line) else {
            continue;
        };
        let Some(name) = match_name(file, names) else {
            continue;
        };
        if lno == 0 {
            continue;
        }
        if let Some(rest) = message
            .strip_prefix("optimized: loop vectorized")
            .or_else(|| message.strip_prefix("remark: vectorized loop"))
        {
            let how = rest.trim().trim_end_matches("[-Rpass=loop-vectorize]");
            add_vectorized(&mut vectorized, &name, lno, how.trim().to_string());
        } else if (message.starts_with("optimized: loop with")
            && message.contains("completely unrolled"))
            || message.starts_with("remark: completely unrolled loop")
        {
            if !unrolled.iter().any(|u| u.line == lno && u.file == name) {
                unrolled.push(UnrolledLoop {
                    file: name.clone(),
                    line: lno,
                    iterations: count_after_with(message),
                });
            }
        } else if let Some(calls) = whole_loop_library_calls(message) {
            // gfortran: "Loop 4 distributed: split to 0 loops and 2 library calls." The
            // loop became memcpy/memset/memmove calls, which run vectorized.
            let how = format!("replaced by {calls} library call(s) (memcpy, memset)");
            add_vectorized(&mut vectorized, &name, lno, how);
        } else if let Some(what) = unmodeled_transform(message) {
            transformed.push(TransformedLoop {
                file: name.clone(),
                line: lno,
                what,
            });
        } else if let Some(rest) = message.strip_prefix("optimized:") {
            // gfortran: "Inlining sqr/0 into f2/13." or "Inlined crot/35 into callh7/10 ...".
            let rest = rest.trim();
            let words: Vec<&str> = rest.split_whitespace().collect();
            if words.len() >= 4
                && (words[0] == "Inlining" || words[0] == "Inlined")
                && words[2] == "into"
            {
                let strip = |w: &str| {
                    w.trim_end_matches('.')
                        .split('/')
                        .next()
                        .unwrap_or("")
                        .to_string()
                };
                inlined.push(InlinedCall {
                    file: name.clone(),
                    line: lno,
                    callee: strip(words[1]),
                    caller: strip(words[3]),
                });
            }
        } else if let Some(rest) = message.strip_prefix("remark: ") {
            // flang: "'half_' inlined into 'fs_' with (cost=..) at callsite fs_:3:7; [-Rpass=inline]"
            if rest.contains(" inlined into ") && rest.contains("[-Rpass=inline]") {
                let mut quoted = rest.split('\'').skip(1).step_by(2);
                let callee = quoted
                    .next()
                    .unwrap_or("")
                    .trim_end_matches('_')
                    .to_string();
                let caller = quoted
                    .next()
                    .unwrap_or("")
                    .trim_end_matches('_')
                    .to_string();
                inlined.push(InlinedCall {
                    file: name.clone(),
                    line: lno,
                    callee,
                    caller,
                });
            }
        }
    }
    Parsed {
        vectorized,
        inlined,
        unrolled,
        transformed,
    }
}

/// What [`parse`] read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    /// Vectorized loops.
    pub vectorized: Vec<VectorizedLoop>,
    /// Inlined call sites.
    pub inlined: Vec<InlinedCall>,
    /// Completely unrolled loops.
    pub unrolled: Vec<UnrolledLoop>,
    /// Loop transformations the predictor does not model.
    pub transformed: Vec<TransformedLoop>,
}

/// `file:line:col: message` → `(file, line, message)`.
fn split_location(line: &str) -> Option<(&str, u32, &str)> {
    // The file may contain ':' only in odd paths; split from the left on ":<digits>:".
    let mut search = 0;
    while let Some(i) = line[search..].find(':') {
        let at = search + i;
        let rest = &line[at + 1..];
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        if !digits.is_empty() && rest[digits.len()..].starts_with(':') {
            let lno: u32 = digits.parse().ok()?;
            let after = &rest[digits.len() + 1..];
            // Optional column.
            let col: String = after.chars().take_while(|c| c.is_ascii_digit()).collect();
            let msg = if !col.is_empty() && after[col.len()..].starts_with(':') {
                &after[col.len() + 1..]
            } else {
                after
            };
            return Some((&line[..at], lno, msg.trim()));
        }
        search = at + 1;
    }
    None
}

pub(crate) fn match_name(file: &str, names: &[String]) -> Option<String> {
    if let Some(n) = names.iter().find(|n| n.as_str() == file) {
        return Some(n.clone());
    }
    let trimmed = file.trim_start_matches('/');
    if let Some(n) = names.iter().find(|n| {
        n.trim_start_matches('/').ends_with(trimmed)
            || trimmed.ends_with(n.trim_start_matches("./"))
    }) {
        return Some(n.clone());
    }
    let base = Path::new(file).file_name()?;
    let mut hits = names
        .iter()
        .filter(|n| Path::new(n).file_name() == Some(base));
    let first = hits.next()?;
    hits.next().is_none().then(|| first.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_free_lines_from_assembly() {
        let asm = "\t.file\t\"bits.f90\"\n\t.file 0 \"/w\" \"bits.f90\"\n\t.file 1 \"bits.f90\"\n\
\t.loc 1 37 10 view .LVU35\n\tmovl\t$15, %ecx\n.L6:\n\t.loc 1 38 10\n\tandl\t$1, %edx\n\
\tcmpl\t$1, %edx\n\t.loc 1 38 46\n\tcmove\t%r8d, %esi\n\t.loc 1 40 3\n\tcmpl\t$0, %eax\n\
\tjne\t.L6\n\tcmovl\t%eax, %ebx\n\t.loc 1 41 3\n\taddl\t$1, %eax\n";
        let names = vec!["corpus/bits.f90".to_string()];
        let (free, jumps) = branch_lines(asm, &names);
        // Line 38 selects without a jump; 40 has a jump; 37 and 41 select nothing.
        let at = |line| SourceLine {
            file: "corpus/bits.f90".into(),
            line,
        };
        assert_eq!(free, vec![at(38)]);
        assert_eq!(jumps, vec![at(40)]);
    }

    #[test]
    fn library_moves_from_assembly() {
        let asm = "\t.file 1 \"hp.f90\"\n\t.loc 1 202 5\n\tmovq\t%rax, %rdi\n\tcall\tmemcpy@PLT\n\
\t.loc 1 204 5\n\tcall\t_gfortran_os_error_at@PLT\n\t.loc 1 210 3\n\tjmp\tmemset\n\
\t.loc 1 211 3\n\tcall\tmemcpy_like_@PLT\n";
        let names = vec!["w/hp.f90".to_string()];
        let at = |line| SourceLine {
            file: "w/hp.f90".into(),
            line,
        };
        assert_eq!(library_move_lines(asm, &names), vec![at(202), at(210)]);
    }

    const GFORTRAN: &str = "\
/w/corpus/callheavy77.f:70:72: optimized:  Inlining sqr/0 into f2/13.
/w/corpus/callheavy77.f:70:72: optimized:  Inlining sqr/0 into f2/13.
/w/corpus/callheavy77.f:37:72: optimized:  Inlined crot/35 into callh7/10 which now has time 12219.5 and size 64, net change of +4.
/w/corpus/callheavy77.f:134:72: optimized: basic block part vectorized using 16 byte vectors
/w/corpus/callheavy77.f:24:15: optimized: loop vectorized using 16 byte vectors
/w/corpus/other.f90:3:1: optimized: loop vectorized using 16 byte vectors
/w/corpus/callheavy77.f:46:46: optimized: loop with 3 iterations completely unrolled (header execution count 33177416)
/w/corpus/callheavy77.f:90:10: optimized: Loop 4 distributed: split to 0 loops and 2 library calls.
/w/corpus/callheavy77.f:95:8: optimized: Loop 1 distributed: split to 1 loops and 1 library calls.
";

    const FLANG: &str = "\
work/corpus/heat3d.f90:29:7: remark: vectorized loop (vectorization width: 2, interleaved count: 2) [-Rpass=loop-vectorize]
work/corpus/heat3d.f90:89:7: remark: 'half_' inlined into 'fs_' with (cost=-25, threshold=337) at callsite fs_:3:7; [-Rpass=inline]
work/corpus/heat3d.f90:30:9: remark: completely unrolled loop with 3 iterations [-Rpass=loop-unroll]
work/corpus/heat3d.f90:0:0: remark: 'f1_' inlined into '_QQmain' with (cost=5, threshold=337) at callsite quad_:4294967254:0 @ _QQmain:8:7; [-Rpass=inline]
";

    #[test]
    fn gfortran_messages() {
        let names = vec!["corpus/callheavy77.f".to_string()];
        let Parsed {
            vectorized: v,
            inlined: i,
            unrolled: u,
            ..
        } = parse(GFORTRAN, &names);
        assert_eq!(u.len(), 1);
        assert_eq!((u[0].line, u[0].iterations), (46, Some(3)));
        assert_eq!(
            v.len(),
            2,
            "SLP, other files and loops split into a loop and calls are not vectorized loops \
             of this program"
        );
        assert_eq!(v[0].line, 24);
        assert_eq!(v[0].how, "using 16 byte vectors");
        assert_eq!(v[1].line, 90, "a loop turned into library calls entirely");
        assert!(v[1].how.contains("2 library call"), "{}", v[1].how);
        assert_eq!(i.len(), 3, "one entry per call site");
        assert_eq!(i[2].callee, "crot");
        assert_eq!(i[2].caller, "callh7");
        let r = OptReport {
            vectorized: v,
            inlined: i,
            ..OptReport::default()
        };
        assert!(r.is_vectorized("corpus/callheavy77.f", 24));
        assert!(!r.is_vectorized("corpus/callheavy77.f", 25));
        assert_eq!(r.inlined_within("corpus/callheavy77.f", 60, 80), 2);
    }

    #[test]
    fn transformations_not_modeled() {
        let names = vec!["t.f90".to_string()];
        let text = "\
t.f90:5:10: optimized: loop unrolled 3 times
t.f90:7:10: optimized: loops interchanged in loop nest
t.f90:9:10: optimized: Loop 2 distributed: split to 2 loops and 0 library calls.
t.f90:11:10: remark: unrolled loop by a factor of 4 with run-time trip count [-Rpass=loop-unroll]
t.f90:13:10: optimized: loop with 3 iterations completely unrolled (header execution count 9)
t.f90:15:10: optimized: Loop 4 distributed: split to 0 loops and 2 library calls.
";
        let t = parse(text, &names).transformed;
        let got: Vec<(u32, &str)> = t.iter().map(|t| (t.line, t.what.as_str())).collect();
        assert_eq!(
            got,
            [
                (5, "unrolled 3 times"),
                (7, "interchanged"),
                (9, "distributed into 2 loops"),
                (11, "unrolled 4 times"),
            ]
        );
    }

    #[test]
    fn flang_messages() {
        let names = vec!["/work/corpus/heat3d.f90".to_string()];
        let Parsed {
            vectorized: v,
            inlined: i,
            unrolled: u,
            ..
        } = parse(FLANG, &names);
        assert_eq!((u[0].line, u[0].iterations), (30, Some(3)));
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].line, 29);
        assert_eq!(v[0].file, "/work/corpus/heat3d.f90");
        assert_eq!(i.len(), 1, "line 0 (no location) is dropped");
        assert_eq!(i[0].callee, "half");
        assert_eq!(i[0].caller, "fs");
    }
}
