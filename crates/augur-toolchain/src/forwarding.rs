//! Failed store forwardings in compiled code: a load wider than the stores that just
//! wrote its bytes. gcc -O2 stores a small array element by element (`rij(:) = r(:,i) -
//! r(:,j)`, a loop or its unrolled copy) and reads it back as one vector for the next
//! statement (`SUM(rij**2)`: `movapd 304(%rsp), %xmm4`); the store buffer cannot hand
//! two 8-byte stores to one 16-byte load, so the load waits until they reach the cache
//! (`[incore.class.forward_wide]`, about 21 cycles on a Xeon).
//!
//! The scan is linear over each function's x86-64 AT&T assembly: addresses relative to
//! the frame (`%rsp`, `%rbp`), and pointers into it that a `lea` sets, a `mov` copies and
//! an `add` steps; a store through a pointer with an index or after a step is taken to
//! cover a line from where it starts (a small array walked by a loop). A wide load from
//! the frame whose bytes the latest overlapping store within [`STORE_WINDOW`]
//! instructions wrote narrower is a failure, at the load's source line.

use crate::optreport::{source_line, walk_assembly, AsmItem};
use augur_program_profile::optreport::SourceLine;
use std::collections::HashMap;

/// Instructions back a store may lie and still be in the store buffer when a later load
/// reads its bytes (a core retires a few instructions a cycle; its store buffer holds
/// several dozen stores that wait a few cycles each to reach the cache).
pub const STORE_WINDOW: usize = 64;

/// The registers a call may change (System V x86-64).
const CALLER_SAVED: [&str; 9] = ["rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"];

/// Bytes a store through a stepped or indexed pointer is taken to cover.
const WALKED_BYTES: i64 = 64;

/// A pointer into the frame: the frame register and the offset it points at.
#[derive(Debug, Clone, Copy, PartialEq)]
struct FramePointer {
    frame: &'static str,
    offset: i64,
    /// Stepped since it was set (an `add`): a loop's walk over an array.
    walked: bool,
}

/// A store to the frame: where, how wide, and the instruction's position.
#[derive(Debug, Clone, Copy)]
struct FrameStore {
    at: usize,
    frame: &'static str,
    lo: i64,
    hi: i64,
    width: i64,
}

/// A memory operand `disp(%base,%index,scale)`.
#[derive(Debug, Clone, PartialEq)]
struct Memory {
    disp: i64,
    base: String,
    indexed: bool,
}

/// The source lines of `asm` (in the files of `names`) holding a load that a failed
/// store forwarding delays, one entry per such load of a line. A procedure inlined into
/// several callers has a copy of its loads in each, whose executions the line's count
/// shares: a line takes the most loads any one function has on it.
///
/// With `optimized` (code built with optimization), an 8-byte load into a vector register
/// counts too ([`wide_load_width`]); -O0 code makes such loads for much else, and hides
/// their waits behind its own chains through memory (read so, a development-set program
/// at -O0 moved by +22..+26 points on four hosts).
pub fn forwarding_failures(asm: &str, names: &[String], optimized: bool) -> Vec<SourceLine> {
    let mut per_function: std::collections::BTreeMap<(usize, SourceLine), usize> =
        Default::default();
    for (function, site) in sites(asm, names, optimized) {
        *per_function.entry((function, site)).or_default() += 1;
    }
    let mut most: std::collections::BTreeMap<SourceLine, usize> = Default::default();
    for ((_, site), n) in per_function {
        let m = most.entry(site).or_default();
        *m = (*m).max(n);
    }
    most.into_iter()
        .flat_map(|(site, n)| std::iter::repeat(site).take(n))
        .collect()
}

/// Each failed forwarding's function (its order in the assembly) and source line.
fn sites(asm: &str, names: &[String], optimized: bool) -> Vec<(usize, SourceLine)> {
    let fresh = || Scan {
        eight_byte: optimized,
        ..Scan::default()
    };
    let mut scan = fresh();
    let mut function = 0;
    let mut found = vec![];
    let files = walk_assembly(asm, names, |item| match item {
        AsmItem::FunctionStart => {
            scan = fresh();
            function += 1;
        }
        AsmItem::Instruction { text, at } => {
            if scan.instruction(text) {
                found.extend(at.map(|key| (function, key)));
            }
        }
    });
    found
        .into_iter()
        .filter_map(|(function, key)| Some((function, source_line(&files, key)?)))
        .collect()
}

/// What the scan knows inside one function.
#[derive(Debug, Default)]
struct Scan {
    /// Whether an 8-byte load into a vector register counts ([`wide_load_width`]).
    eight_byte: bool,
    count: usize,
    pointers: HashMap<String, FramePointer>,
    stores: Vec<FrameStore>,
}

impl Scan {
    /// Takes one instruction; true when it is a wide load a failed forwarding delays.
    fn instruction(&mut self, text: &str) -> bool {
        self.count += 1;
        let count = self.count;
        self.stores.retain(|s| s.at + STORE_WINDOW >= count);
        let (mnemonic, ops) = split_instruction(text);
        let failed = self.wide_load(mnemonic, &ops);
        self.track_store(mnemonic, &ops);
        self.track_pointers(mnemonic, &ops);
        failed
    }

    /// Where a memory operand lies in the frame: frame register, first byte, whether
    /// it is a walk (a stepped or indexed pointer).
    fn in_frame(&self, m: &Memory) -> Option<(&'static str, i64, bool)> {
        match m.base.as_str() {
            "rsp" => Some(("rsp", m.disp, m.indexed)),
            "rbp" => Some(("rbp", m.disp, m.indexed)),
            r => self
                .pointers
                .get(r)
                .map(|p| (p.frame, p.offset + m.disp, p.walked || m.indexed)),
        }
    }

    fn wide_load(&self, mnemonic: &str, ops: &[&str]) -> bool {
        let Some(width) = wide_load_width(mnemonic, ops, self.eight_byte) else {
            return false;
        };
        let Some(m) = ops.first().and_then(|o| memory(o)) else {
            return false;
        };
        let Some((frame, lo, walked)) = self.in_frame(&m) else {
            return false;
        };
        if walked {
            return false;
        }
        let hi = lo + width;
        self.stores
            .iter()
            .rev()
            .find(|s| s.frame == frame && s.lo < hi && lo < s.hi)
            .is_some_and(|s| s.width < width || s.lo > lo || s.hi < hi)
    }

    fn track_store(&mut self, mnemonic: &str, ops: &[&str]) {
        let Some(width) = store_width(mnemonic, ops) else {
            return;
        };
        let Some(m) = ops.last().and_then(|o| memory(o)) else {
            return;
        };
        let Some((frame, lo, walked)) = self.in_frame(&m) else {
            return;
        };
        let hi = lo + if walked { WALKED_BYTES } else { width };
        self.stores.push(FrameStore {
            at: self.count,
            frame,
            lo,
            hi,
            width,
        });
    }

    fn track_pointers(&mut self, mnemonic: &str, ops: &[&str]) {
        if mnemonic.starts_with("call") {
            // The callee may change every caller-saved register.
            for r in CALLER_SAVED {
                self.pointers.remove(r);
            }
            return;
        }
        let reads_only = ["cmp", "test", "ucomis", "comis", "bt", "push", "j"];
        if reads_only.iter().any(|p| mnemonic.starts_with(p)) {
            return;
        }
        let Some(dest) = ops.last().and_then(|o| register(o)) else {
            return;
        };
        let base = mnemonic.trim_end_matches('q');
        let source = ops.first().copied().unwrap_or("");
        let set = match base {
            "lea" => memory(source).and_then(|m| match m.base.as_str() {
                "rsp" | "rbp" if !m.indexed => Some(FramePointer {
                    frame: if m.base == "rsp" { "rsp" } else { "rbp" },
                    offset: m.disp,
                    walked: false,
                }),
                _ => None,
            }),
            "mov" => register(source).and_then(|r| self.pointers.get(&r).copied()),
            "add" | "sub" => {
                let step = source.strip_prefix('$').and_then(|v| v.parse::<i64>().ok());
                match (step, self.pointers.get(&dest)) {
                    (Some(k), Some(p)) => Some(FramePointer {
                        offset: p.offset + if base == "add" { k } else { -k },
                        walked: true,
                        ..*p
                    }),
                    _ => None,
                }
            }
            _ => None,
        };
        match set {
            Some(p) => {
                self.pointers.insert(dest, p);
            }
            None => {
                self.pointers.remove(&dest);
            }
        }
    }
}

/// The mnemonic and the operands (split at the commas outside parentheses).
fn split_instruction(text: &str) -> (&str, Vec<&str>) {
    let text = text.split('#').next().unwrap_or("").trim();
    let (mnemonic, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let mut ops = vec![];
    let (mut depth, mut start) = (0, 0);
    for (i, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                ops.push(rest[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !rest.trim().is_empty() {
        ops.push(rest[start..].trim());
    }
    (mnemonic, ops)
}

/// `disp(%base)` or `disp(%base,%index,scale)`; `None` for a register, an immediate or
/// a RIP-relative address.
fn memory(op: &str) -> Option<Memory> {
    let open = op.find('(')?;
    let inside = op[open + 1..].strip_suffix(')')?;
    let mut parts = inside.split(',').map(str::trim);
    let base = parts.next()?.strip_prefix('%')?.to_string();
    if base == "rip" {
        return None;
    }
    let indexed = parts.next().is_some_and(|p| !p.is_empty());
    let disp = match op[..open].trim() {
        "" => 0,
        d => d.parse().ok()?,
    };
    Some(Memory {
        disp,
        base,
        indexed,
    })
}

/// The 64-bit name of a general-purpose register operand (`%r14d` and `%r14` are
/// `r14`, `%eax` is `rax`); `None` for anything else.
fn register(op: &str) -> Option<String> {
    let r = op.strip_prefix('%')?;
    if r.starts_with("xmm") || r.starts_with("ymm") || r.starts_with("zmm") {
        return None;
    }
    let r = r.trim_end_matches(['d', 'w', 'b']);
    Some(match r.strip_prefix('e') {
        Some(rest) if rest.len() == 2 => format!("r{rest}"),
        _ => r.to_string(),
    })
}

/// The bytes a vector register operand holds.
fn vector_bytes(op: &str) -> Option<i64> {
    let r = op.strip_prefix('%')?;
    if r.starts_with("xmm") {
        Some(16)
    } else if r.starts_with("ymm") {
        Some(32)
    } else if r.starts_with("zmm") {
        Some(64)
    } else {
        None
    }
}

/// The width of a vector load from memory into a register (a move, or packed
/// arithmetic with a memory operand), or of an 8-byte load into one (`movq`, `movsd`:
/// a single-precision complex passed by value to the library, `cabsf(z)`, read as one
/// from its two halves just stored, into a vector register); `None` for anything else.
fn wide_load_width(mnemonic: &str, ops: &[&str], eight_byte: bool) -> Option<i64> {
    let m = mnemonic.strip_prefix('v').unwrap_or(mnemonic);
    if ["movq", "movsd", "movlps", "movlpd"].contains(&m) {
        if !eight_byte {
            return None;
        }
        ops.first().and_then(|o| memory(o))?;
        // Into a vector register only (-O0 code makes the same load into a general one,
        // `movq -40(%rbp), %rax`, and is not read for these at all: `eight_byte`).
        return ops.last().and_then(|o| vector_bytes(o)).map(|_| 8);
    }
    let moves = [
        "movaps", "movups", "movapd", "movupd", "movdqa", "movdqu", "lddqu",
    ];
    let packed = (m.ends_with("pd") || m.ends_with("ps"))
        && ["add", "sub", "mul", "div", "min", "max", "and", "or", "xor"]
            .iter()
            .any(|p| m.starts_with(p));
    if !(moves.contains(&m) || packed) {
        return None;
    }
    ops.first().and_then(|o| memory(o))?;
    ops.last().and_then(|o| vector_bytes(o))
}

/// The width of a store to memory (the last operand); `None` for anything else.
fn store_width(mnemonic: &str, ops: &[&str]) -> Option<i64> {
    ops.last().and_then(|o| memory(o))?;
    let source = ops.first().copied().unwrap_or("");
    let m = mnemonic.strip_prefix('v').unwrap_or(mnemonic);
    match m {
        "movsd" | "movq" | "movlpd" | "movlps" | "movhpd" | "movhps" => Some(8),
        "movss" | "movd" | "movl" => Some(4),
        "movw" => Some(2),
        "movb" => Some(1),
        "movaps" | "movups" | "movapd" | "movupd" | "movdqa" | "movdqu" => vector_bytes(source),
        "mov" => register(source).map(|_| {
            let long = source.starts_with("%r") && !source.ends_with(['d', 'w', 'b']);
            if long {
                8
            } else {
                4
            }
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 1] = ["md.f90"];

    fn lines(body: &str) -> Vec<u32> {
        let asm = format!("\t.file 1 \"md.f90\"\n\t.cfi_startproc\n{body}");
        let names: Vec<String> = NAMES.iter().map(|s| s.to_string()).collect();
        forwarding_failures(&asm, &names, true)
            .into_iter()
            .map(|s| s.line)
            .collect()
    }

    #[test]
    fn a_vector_load_of_elements_a_loop_just_stored_fails_to_forward() {
        // gcc -O2 on `rij(:) = rij(:) - ANINT(rij(:))` then `SUM(rij**2)`: the loop
        // stores through a pointer into the frame, the sum loads two elements at once.
        let body = "\t.loc 1 158 0\n\
                    \tleaq\t304(%rsp), %r14\n\
                    \tmovq\t%r14, %r13\n\
                    .L46:\n\
                    \taddq\t$8, %r13\n\
                    \tcall\tround@PLT\n\
                    \tmovsd\t%xmm1, -8(%r13)\n\
                    \tcmpq\t%r13, %rbp\n\
                    \tjne\t.L46\n\
                    \t.loc 1 159 0\n\
                    \tmovapd\t304(%rsp), %xmm4\n\
                    \tmovsd\t320(%rsp), %xmm2\n";
        assert_eq!(lines(body), [159]);
    }

    #[test]
    fn two_scalar_stores_read_as_one_vector_fail_and_a_vector_store_forwards() {
        let body = "\t.loc 1 10 0\n\
                    \tmovsd\t%xmm0, 48(%rsp)\n\
                    \tmovsd\t%xmm1, 56(%rsp)\n\
                    \t.loc 1 11 0\n\
                    \tmulpd\t48(%rsp), %xmm2\n\
                    \t.loc 1 12 0\n\
                    \tmovaps\t%xmm3, 64(%rsp)\n\
                    \tmovupd\t64(%rsp), %xmm5\n\
                    \tmovupd\t96(%rsp), %xmm6\n";
        assert_eq!(lines(body), [11]);
    }

    #[test]
    fn a_complex_passed_by_value_from_its_two_stored_halves_fails() {
        // gcc -O2 on `s = s + cabs(z)`, z single-precision complex: its parts stored
        // apart, read as one 8-byte argument; an 8-byte load of an 8-byte store forwards.
        let body = "\t.loc 1 40 0\n\
                    \tmovss\t%xmm1, 24(%rsp)\n\
                    \tmovss\t%xmm2, 28(%rsp)\n\
                    \tmovq\t24(%rsp), %xmm0\n\
                    \tcall\tcabsf@PLT\n\
                    \t.loc 1 41 0\n\
                    \tmovsd\t%xmm3, 32(%rsp)\n\
                    \tmovsd\t32(%rsp), %xmm4\n\
                    \tmovq\t%xmm4, 40(%rsp)\n\
                    \tmovq\t40(%rsp), %rax\n\
                    \t.loc 1 42 0\n\
                    \tmovss\t%xmm1, -40(%rbp)\n\
                    \tmovss\t%xmm0, -36(%rbp)\n\
                    \tmovq\t-40(%rbp), %rax\n\
                    \tmovq\t%rax, %xmm0\n\
                    \tmovl\t-36(%rbp), %eax\n";
        // Not the same load into a general register (-O0's).
        assert_eq!(lines(body), [40]);
        // Nor any 8-byte load in code built without optimization.
        let asm = format!("\t.file 1 \"md.f90\"\n\t.cfi_startproc\n{body}");
        assert!(forwarding_failures(&asm, &["md.f90".to_string()], false).is_empty());
    }

    #[test]
    fn stores_long_before_or_through_other_pointers_are_not_failures() {
        let mut body = String::from("\t.loc 1 20 0\n\tmovsd\t%xmm0, 48(%rsp)\n");
        for _ in 0..STORE_WINDOW {
            body.push_str("\taddl\t$1, %eax\n");
        }
        body.push_str("\t.loc 1 21 0\n\tmovupd\t48(%rsp), %xmm1\n");
        // A store through a pointer the scan cannot place (a heap array).
        body.push_str("\tmovsd\t%xmm0, 8(%rdi)\n\tmovupd\t8(%rdi), %xmm2\n");
        assert!(lines(&body).is_empty());
    }

    #[test]
    fn an_inlined_copy_does_not_count_its_line_twice() {
        let one = "\t.loc 1 30 0\n\tmovsd\t%xmm0, 48(%rsp)\n\tmovsd\t%xmm1, 56(%rsp)\n\tmovupd\t48(%rsp), %xmm2\n";
        let body = format!("{one}\t.cfi_endproc\n\t.cfi_startproc\n{one}");
        assert_eq!(lines(&body), [30]);
    }

    #[test]
    fn operands_and_registers_are_read_as_written() {
        assert_eq!(
            split_instruction("movsd\t%xmm1, -8(%r14,%rax,8)"),
            ("movsd", vec!["%xmm1", "-8(%r14,%rax,8)"])
        );
        assert_eq!(
            memory("-8(%r14,%rax,8)"),
            Some(Memory {
                disp: -8,
                base: "r14".into(),
                indexed: true
            })
        );
        assert_eq!(memory(".LC1(%rip)"), None);
        assert_eq!(register("%r14d").as_deref(), Some("r14"));
        assert_eq!(register("%eax").as_deref(), Some("rax"));
        assert_eq!(register("%xmm0"), None);
    }
}
