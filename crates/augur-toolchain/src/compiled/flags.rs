//! Flags a loop sets once. A block's conditional jump tests a register or a stack slot
//! that the loop writes nowhere but on the arm the jump goes to while the flag is zero,
//! and only with one nonzero constant: that arm runs until it sets the flag, then never
//! again in that entry into the loop. gfortran keeps such a flag for the first element
//! of MAXVAL and MINVAL (`testl %edx, %edx; je` to the arm that starts the maximum
//! and does `movl $1, %edx`); its odds are no source condition's.

use super::cfg::{Cfg, NaturalLoop};
use super::{register, slot, Function, Instr, Loc};

/// The arm (an index into `l.blocks`) that the conditional jump ending loop block `k`
/// goes to only until that arm sets the flag the jump tests; `None` when the jump tests
/// no such flag.
pub(super) fn set_once_arm(f: &Function, g: &Cfg, l: &NaturalLoop, k: usize) -> Option<usize> {
    let block = g.blocks[l.blocks[k]];
    if block.end == block.start {
        return None;
    }
    let jump = &f.instrs[block.end];
    let flag = tested_flag(&f.instrs[block.end - 1])?;
    let index = |b: Option<usize>| b.and_then(|b| l.blocks.iter().position(|&x| x == b));
    let s = g.succ[l.blocks[k]];
    let (zero, other) = match jump.mnemonic.as_str() {
        "je" | "jz" => (index(s.taken)?, index(s.next)?),
        "jne" | "jnz" => (index(s.next)?, index(s.taken)?),
        _ => return None,
    };
    if zero == 0 || other == zero {
        return None;
    }
    let loop_instrs = |b: usize| {
        let blk = g.blocks[l.blocks[b]];
        &f.instrs[blk.start..=blk.end]
    };
    if matches!(flag, Loc::Reg(_))
        && (0..l.blocks.len()).any(|b| loop_instrs(b).iter().any(clobbers))
    {
        return None;
    }
    let mut constant = None;
    let mut writers = vec![];
    for b in 0..l.blocks.len() {
        for i in loop_instrs(b).iter().filter(|i| writes(i, &flag)) {
            let k = set_constant(i)?;
            if k == 0 || constant.is_some_and(|c| c != k) {
                return None;
            }
            constant = Some(k);
            writers.push(b);
        }
    }
    let (on_zero, on_other) = (g.reached_within(l, zero), g.reached_within(l, other));
    let set_only_there = !writers.is_empty()
        && writers
            .iter()
            .all(|w| on_zero.contains(w) && !on_other.contains(w));
    set_only_there.then_some(zero)
}

/// The flag `i` tests against zero: `test %r, %r` or `cmp $0, place`.
fn tested_flag(i: &Instr) -> Option<Loc> {
    let [a, b] = i.operands.as_slice() else {
        return None;
    };
    if i.mnemonic.starts_with("test") && a == b {
        return register(a).map(Loc::Reg);
    }
    if i.mnemonic.starts_with("cmp") && a == "$0" {
        return register(b).map(Loc::Reg).or_else(|| slot(b).map(Loc::Slot));
    }
    None
}

/// Whether `i` writes `flag` as its destination (its last operand).
fn writes(i: &Instr, flag: &Loc) -> bool {
    let m = i.mnemonic.as_str();
    if m.starts_with("cmp") || m.starts_with("test") || super::is_jump(m) || i.operands.len() < 2 {
        return false;
    }
    let Some(dest) = i.operands.last() else {
        return false;
    };
    match flag {
        Loc::Reg(r) => register(dest).as_ref() == Some(r),
        Loc::Slot(s) => slot(dest).as_ref() == Some(s),
    }
}

/// The constant a move of an immediate writes (`movl $1, %edx` → 1); `None` for any
/// other instruction.
fn set_constant(i: &Instr) -> Option<i64> {
    let [src, _] = i.operands.as_slice() else {
        return None;
    };
    if !i.mnemonic.starts_with("mov") {
        return None;
    }
    src.strip_prefix('$')?.parse().ok()
}

/// Whether `i` may write registers it does not name as its destination (a call, a
/// division, a sign extension into `%edx`), so that a register flag may change.
fn clobbers(i: &Instr) -> bool {
    let m = i.mnemonic.as_str();
    m.starts_with("call")
        || matches!(
            m,
            "cltd" | "cqto" | "cltq" | "cwtl" | "cpuid" | "rdtsc" | "syscall"
        )
        || m.starts_with("div")
        || m.starts_with("idiv")
        || m.starts_with("xchg")
        || m.starts_with("cmpxchg")
        || (i.operands.len() == 1 && (m.starts_with("mul") || m.starts_with("imul")))
}

#[cfg(test)]
mod tests {
    use super::super::compiled_loops;
    use augur_program_profile::compiled::{BlockEnd, CompiledLoop};

    fn loops(body: &str) -> Vec<CompiledLoop> {
        let asm = format!("\t.file\t\"k.f90\"\n\t.text\n\t.file 1 \"k.f90\"\nk_:\n{body}");
        compiled_loops(&asm, &["k.f90".to_string()])
    }

    /// gfortran -O2 on `d = maxval(abs(u - w))`: `%edx` flags the first element.
    const MAXVAL: &str = "\t.loc 1 5 1\n\txorl\t%edx, %edx\n\tjmp\t.L36\n\
         .L70:\n\tcomisd\t%xmm1, %xmm0\n\tjb\t.L33\n\tmovapd\t%xmm0, %xmm1\n\tmovl\t$1, %edx\n\
         .L33:\n\taddq\t$8, %rax\n\tcmpq\t$4000, %rax\n\tje\t.L69\n\
         .L36:\n\t.loc 1 5 2\n\tmovsd\t(%rcx,%rax), %xmm0\n\tsubsd\t(%rsi,%rax), %xmm0\n\
         \tandpd\t%xmm2, %xmm0\n\ttestl\t%edx, %edx\n\tje\t.L70\n\tmaxsd\t%xmm1, %xmm0\n\
         \taddq\t$8, %rax\n\tmovapd\t%xmm0, %xmm1\n\tcmpq\t$4000, %rax\n\tjne\t.L36\n.L69:\n\tret\n";

    fn header_end(l: &CompiledLoop) -> &BlockEnd {
        &l.blocks[0].end
    }

    #[test]
    fn the_first_element_flag_of_maxval_is_set_once() {
        let l = loops(MAXVAL);
        assert_eq!(l.len(), 1, "{l:#?}");
        let BlockEnd::Branches {
            taken, until_set, ..
        } = header_end(&l[0])
        else {
            panic!("the header branches: {:#?}", l[0].blocks);
        };
        assert!(
            until_set.is_some() && until_set == taken,
            "{:#?}",
            l[0].blocks
        );
    }

    #[test]
    fn a_flag_set_on_both_arms_or_cleared_is_no_once_flag() {
        // The flag also set where it is already nonzero: the jump's odds are the data's.
        let both = MAXVAL.replace(
            "\tmaxsd\t%xmm1, %xmm0\n",
            "\tmaxsd\t%xmm1, %xmm0\n\tmovl\t$1, %edx\n",
        );
        // The flag cleared inside the loop: it may be zero again.
        let cleared = MAXVAL.replace("\tmovl\t$1, %edx\n", "\txorl\t%edx, %edx\n");
        for asm in [both, cleared] {
            let l = loops(&asm);
            assert!(
                matches!(
                    header_end(&l[0]),
                    BlockEnd::Branches {
                        until_set: None,
                        ..
                    }
                ),
                "{:#?}",
                l[0].blocks
            );
        }
    }
}
