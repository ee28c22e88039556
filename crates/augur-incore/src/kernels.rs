//! The kernels: x86-64 assembly (AT&T syntax, as gcc assembles it), one function
//! `augur_k_<i>(long n)` per kernel, each a counted loop of `n` iterations whose body is
//! [`BODY`] instructions of one kind.
//!
//! * A **latency** kernel is one dependent chain: every instruction reads the result of
//!   the one before it (`addsd %xmm15, %xmm0` again and again), so an iteration lasts
//!   the chain's latency and the loop's own counter, independent of it, hides in its
//!   shadow. The values stay put: adds of zero, multiplies by one, divides by
//!   0.99999999 (a full mantissa: no divider takes a short cut on it), square roots that
//!   settle at one; integers add, multiply by one, divide by 7 and add 1000 back.
//! * A **throughput** kernel is the same instruction over [`STREAMS`] independent
//!   registers (each register's chain is 12 instructions apart, longer than any
//!   latency-to-throughput ratio of today's cores), so the execution ports bind it.
//!
//! A few classes need a partner instruction on their chain; the driver then counts the
//! pairs (or both instructions) as [`Kernel::counted`] says and `lib.rs` takes the
//! partner off: an integer divide's chain adds 1000 back (one cycle), a forwarded load's
//! chain is store, load and a floating-point add (`fp_add`'s latency), a conversion goes there and back (both
//! counted: the mean of the two directions), a scalar register move goes back and forth
//! between two registers (both counted).

use augur_ir::incore::{ClassWidth, InstrClass, Width};
use std::fmt::Write as _;

/// Instructions of the measured kind in a loop body: long enough that the loop's counter
/// and branch cost under 2% of an iteration, short enough for any core's op cache.
pub const BODY: usize = 48;

/// Independent registers of a throughput kernel.
pub const STREAMS: usize = 12;

/// The general-purpose registers a kernel may use freely besides `%rsi` (an operand or
/// the buffer's address), `%rdi` (the counter), `%rbp` and `%rsp` (the frame).
const GPR: [&str; STREAMS] = [
    "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
];

/// Their 32-bit halves (the zeroing idiom `xor %eax, %eax`).
const GPR32: [&str; STREAMS] = [
    "eax", "ebx", "ecx", "edx", "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d",
];

/// The instruction-set extensions the host's kernels may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Features {
    /// AVX: 256-bit floating point (`vaddpd %ymm`).
    pub avx: bool,
    /// AVX2: 256-bit integer (`vpaddd %ymm`).
    pub avx2: bool,
    /// FMA3 (`vfmadd231sd`).
    pub fma: bool,
    /// AVX-512 Foundation: 512-bit registers (`vaddpd %zmm`).
    pub avx512f: bool,
}

impl Features {
    /// What this process may use, as the CPU and the operating system say (the standard
    /// library's run-time detection, which checks that the OS saves the wide registers);
    /// `None` on a host that is not x86-64.
    pub fn host() -> Option<Features> {
        #[cfg(target_arch = "x86_64")]
        {
            Some(Features {
                avx: std::arch::is_x86_feature_detected!("avx"),
                avx2: std::arch::is_x86_feature_detected!("avx2"),
                fma: std::arch::is_x86_feature_detected!("fma"),
                avx512f: std::arch::is_x86_feature_detected!("avx512f"),
            })
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            None
        }
    }

    /// Whether floating-point instructions of width `w` can run.
    fn has_width(self, w: Width) -> bool {
        match w {
            Width::Scalar | Width::V128 => true,
            Width::V256 => self.avx,
            Width::V512 => self.avx512f,
        }
    }

    /// Every extension: the kernels of the widest host.
    pub const ALL: Features = Features {
        avx: true,
        avx2: true,
        fma: true,
        avx512f: true,
    };
}

/// What a kernel's time per counted instruction is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// The latency of the class (before the partner's is taken off).
    Latency(ClassWidth),
    /// The reciprocal throughput of the class.
    Throughput(ClassWidth),
    /// Independent one-cycle integer instructions, half of them zeroing idioms no
    /// execution port sees: the sustained issue width.
    Issue,
    /// A chain of taken jumps.
    TakenBranch,
    /// Independent loads and stores, one after the other: the address pipes they share.
    LoadStore,
    /// Independent floating-point adds, multiplies and shuffles in turn: the vector pipes
    /// they share.
    VectorPipes,
    /// The issue kernel's instructions with every sixth a read-modify-write of a slot of
    /// its own: the issue slots such an instruction takes.
    RmwIssue,
    /// A chain of the class with one independent floating-point add of the same width
    /// (not on the chain, reading constant registers) beside each link: the chain's
    /// latency when adds compete for the pipe it waits for.
    BesideAdd(ClassWidth),
    /// Two independent chains of [`WINDOW_CHAIN`] dependent square roots, each followed by
    /// this many independent fillers of one kind, per iteration: the two chains overlap
    /// while the core holds a chain and the fillers after it in flight, and run one after
    /// the other beyond (the resource of the core the fillers take runs out).
    Window(Filler, u32),
    /// A chain of scalar adds and multiplies in turn (`addsd` of zero, `mulsd` by one),
    /// per pair: less the two classes' latencies, the bypass delays of a value passed
    /// between the adders and the multipliers, two a pair.
    Crossing,
    /// A chain of scalar multiplies by one of a subnormal number (`mulsd`, its operand
    /// and its result subnormal), per multiply: less the multiply's latency, what an
    /// operation on a subnormal number costs beyond a normal one (a microcode assist on
    /// Intel cores).
    Subnormal,
    /// This many loads, each reading back an integer the load's own group just stored
    /// through a pointer loaded again from the frame (the -O0 form of a dummy argument),
    /// per iteration: renamed at no latency while the core's store-to-load pair
    /// predictor holds every pair of the loop, forwarded beyond. Per load.
    ForwardingPairs(u32),
}

/// The counts of [`Measure::ForwardingPairs`] kernels: 8 to 96 (a Zen 5 holds 40-44).
pub fn forwarding_pair_counts() -> impl Iterator<Item = u32> {
    (2..=24).map(|k| 4 * k)
}

/// The pairs of the [`InstrClass::ForwardReloaded`] latency kernel: beyond every
/// predictor's capacity.
const RELOADED_PAIRS: usize = 128;

/// One pair of [`Measure::ForwardingPairs`] and the reloaded-forwarding kernel.
const RELOADED_GROUP: [&str; 5] = [
    "movq -56(%rbp), %rax",
    "movl (%rax), %edx",
    "addl $1, %edx",
    "movq -56(%rbp), %rax",
    "movl %edx, (%rax)",
];

/// The frame slot at -48(%rbp) zeroed, its address kept at -56(%rbp).
const RELOADED_SETUP: [&str; 3] = [
    "movq $0, -48(%rbp)",
    "lea -48(%rbp), %rcx",
    "movq %rcx, -56(%rbp)",
];

/// A [`Measure::ForwardingPairs`] kernel of `n` pairs.
fn forwarding_pairs_kernel(n: u32) -> Kernel {
    Kernel {
        measure: Measure::ForwardingPairs(n),
        setup: strings(&RELOADED_SETUP),
        body: (0..n).flat_map(|_| strings(&RELOADED_GROUP)).collect(),
        counted: n,
    }
}

/// What the fillers of a [`Measure::Window`] kernel take from the core while in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Filler {
    /// An integer register each (`mov $1, %eax`): the integer register file, or the
    /// reorder buffer when it is smaller.
    Integer,
    /// A vector register each (`vaddsd` of two constant registers): the floating-point
    /// register file.
    Vector,
    /// A store-queue entry each (`mov %eax, augur_incore_buf+8(%rip)`).
    Store,
    /// A floating-point scheduler entry each: `vaddsd` of the chain's result, waiting
    /// for it (the instructions of a long dependent path wait there).
    Waiting,
    /// An integer scheduler entry each: `lea 1(%rax)` of the chain's result, moved to
    /// `%rax` (`vmovq`) after the chain, waiting for it (an unoptimized loop's dependent
    /// path through its stack slots waits there).
    WaitingInteger,
}

impl Filler {
    /// Every kind, in the order the kernels are measured.
    pub const ALL: [Filler; 5] = [
        Filler::Integer,
        Filler::Vector,
        Filler::Store,
        Filler::Waiting,
        Filler::WaitingInteger,
    ];

    /// The `k`-th filler instruction after the chain whose result is in `%xmm{chain}`.
    fn instruction(self, k: usize, chain: u32) -> String {
        match self {
            Filler::Integer => format!("mov $1, %{}", GPR32[k % 8]),
            Filler::Vector => format!("vaddsd %xmm14, %xmm15, %xmm{}", 2 + k % 12),
            Filler::Store => format!("mov %eax, augur_incore_buf+{}(%rip)", 8 * (k % 8)),
            Filler::Waiting => format!("vaddsd %xmm{chain}, %xmm15, %xmm{}", 2 + k % 12),
            Filler::WaitingInteger => format!("lea 1(%rax), %{}", GPR32[1 + k % 8]),
        }
    }

    /// Whether the host with `f` can run its kernels (the `v` encodings need AVX).
    fn runs_on(self, f: Features) -> bool {
        f.avx
            || !matches!(
                self,
                Filler::Vector | Filler::Waiting | Filler::WaitingInteger
            )
    }

    /// The numbers of fillers of its kernels: integer and vector fillers 32 to 704, beyond
    /// every x86-64 core's reorder buffer of today (Zen 5: 448 entries); stores and
    /// waiting instructions 8 to 176 (store queues hold 48 to 114, schedulers fewer).
    pub fn counts(self) -> impl Iterator<Item = u32> {
        let step = if matches!(
            self,
            Filler::Store | Filler::Waiting | Filler::WaitingInteger
        ) {
            8
        } else {
            32
        };
        (1..=22).map(move |k| step * k)
    }

    /// The chain's own instructions that take the same resource (the square roots write
    /// vector registers).
    pub fn in_chain(self) -> u32 {
        if matches!(self, Filler::Vector | Filler::Waiting) {
            WINDOW_CHAIN
        } else {
            0
        }
    }
}

/// The dependent square roots of each chain of a [`Measure::Window`] kernel (about 330
/// cycles: longer than the fillers take to issue).
pub const WINDOW_CHAIN: u32 = 16;

/// One generated kernel.
#[derive(Debug, Clone, PartialEq)]
pub struct Kernel {
    /// What its time says.
    pub measure: Measure,
    /// The instructions before the loop (registers and memory set up).
    pub setup: Vec<String>,
    /// The loop body.
    pub body: Vec<String>,
    /// The instructions counted per iteration: the time of an iteration divided by it is
    /// the time of one.
    pub counted: u32,
}

/// The [`Measure::Crossing`] kernel: `%xmm0` (one) added zero (`%xmm15`) and
/// multiplied by one (`%xmm14`) in turn, each pair counted.
fn crossing_kernel() -> Kernel {
    Kernel {
        measure: Measure::Crossing,
        setup: strings(&[
            "movsd .Lone(%rip), %xmm0",
            "movsd .Lone(%rip), %xmm14",
            "movsd .Lzero(%rip), %xmm15",
        ]),
        body: groups(2, |_| {
            strings(&["addsd %xmm15, %xmm0", "mulsd %xmm14, %xmm0"])
        }),
        counted: (BODY / 2) as u32,
    }
}

/// The [`Measure::Subnormal`] kernel: `%xmm0` (a subnormal number) multiplied by one
/// (`%xmm14`) again and again, each multiply counted.
fn subnormal_kernel() -> Kernel {
    Kernel {
        measure: Measure::Subnormal,
        setup: strings(&[
            "movsd .Lsubnormal(%rip), %xmm0",
            "movsd .Lone(%rip), %xmm14",
        ]),
        body: groups(1, |_| strings(&["mulsd %xmm14, %xmm0"])),
        counted: BODY as u32,
    }
}

/// The floating-point and vector classes, measured at every width the host has.
fn vector_classes() -> impl Iterator<Item = InstrClass> {
    InstrClass::ALL
        .into_iter()
        .filter(|c| c.is_floating() || matches!(c, InstrClass::VecMove | InstrClass::VecInt))
}

const WIDTHS: [Width; 4] = [Width::Scalar, Width::V128, Width::V256, Width::V512];

/// The kernels the host with `f` runs, in the order they are measured: the integer
/// chain first (the cycle; the driver warms the core up with it), then the integer
/// classes, memory, issue and branches, then each floating-point and vector class at
/// each width `f` has.
pub fn kernels(f: Features) -> Vec<Kernel> {
    let mut v = integer_kernels();
    v.extend(memory_kernels());
    v.push(issue_kernel());
    v.push(rmw_issue_kernel());
    if f.avx {
        v.push(vector_pipes_kernel());
    }
    v.push(branch_kernel());
    v.extend(vector_load_kernels(f));
    for filler in Filler::ALL.into_iter().filter(|k| k.runs_on(f)) {
        v.extend(filler.counts().map(|n| window_kernel(filler, n)));
    }
    v.extend(forwarding_pair_counts().map(forwarding_pairs_kernel));
    v.push(crossing_kernel());
    v.push(subnormal_kernel());
    for class in vector_classes() {
        for width in WIDTHS {
            if let Some((lat, tput)) = vector_kernels(class, width, f) {
                if CHAINS_BESIDE_ADDS.contains(&class) {
                    v.push(beside_add_kernel(&lat, width));
                }
                v.push(lat);
                v.push(tput);
            }
        }
    }
    v
}

/// The classes whose chains are measured beside independent adds
/// ([`Measure::BesideAdd`]): the pipelined floating-point arithmetic a reduction chains.
pub const CHAINS_BESIDE_ADDS: [InstrClass; 4] = [
    InstrClass::FpAdd,
    InstrClass::FpMinMax,
    InstrClass::FpMul,
    InstrClass::FpFma,
];

/// The latency kernel `lat` (a chain through register 0) with an add of two constant
/// registers into one of the ten registers 2..11 after each link (`addsd %xmm15,
/// %xmm2`: each of those chains comes back every tenth link, never the binding one).
fn beside_add_kernel(lat: &Kernel, w: Width) -> Kernel {
    let Measure::Latency(c) = lat.measure else {
        unreachable!("a latency kernel")
    };
    let body = lat
        .body
        .iter()
        .enumerate()
        .flat_map(|(k, link)| [link.clone(), two_op(w, "addsd", "addpd", 2 + k % 10, 15)])
        .collect();
    Kernel {
        measure: Measure::BesideAdd(c),
        setup: lat.setup.clone(),
        body,
        counted: lat.counted,
    }
}

fn cw(class: InstrClass, width: Width) -> ClassWidth {
    ClassWidth::new(class, width)
}

/// `BODY` instructions, `f(k)` the `k`-th.
fn body(f: impl Fn(usize) -> String) -> Vec<String> {
    (0..BODY).map(f).collect()
}

/// `BODY / group.len()` copies of a group of instructions, `f(k)` the `k`-th copy.
fn groups(size: usize, f: impl Fn(usize) -> Vec<String>) -> Vec<String> {
    (0..BODY / size).flat_map(f).collect()
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// A chain of divides of `class`: each quotient, plus 1000 (`ops[1]`), divided again
/// (`ops[0]`).
fn divide_chain(class: InstrClass, setup: &[String], ops: [&str; 2]) -> Kernel {
    Kernel {
        measure: Measure::Latency(cw(class, Width::Scalar)),
        setup: setup.to_vec(),
        body: groups(3, |_| strings(&["xor %edx, %edx", ops[0], ops[1]])),
        counted: (BODY / 3) as u32,
    }
}

/// Independent divides of `class`: each from the same dividend (`ops[0]` moves it in,
/// `ops[1]` divides).
fn divide_streams(class: InstrClass, setup: &[String], ops: [&str; 2]) -> Kernel {
    Kernel {
        measure: Measure::Throughput(cw(class, Width::Scalar)),
        setup: setup.to_vec(),
        body: groups(3, |_| strings(&[ops[0], "xor %edx, %edx", ops[1]])),
        counted: (BODY / 3) as u32,
    }
}

fn integer_kernels() -> Vec<Kernel> {
    let one = strings(&["mov $1, %esi"]);
    let chain = |class, op: &str| Kernel {
        measure: Measure::Latency(cw(class, Width::Scalar)),
        setup: one.clone(),
        body: body(|_| format!("{op} %rsi, %rax")),
        counted: BODY as u32,
    };
    let streams = |class, op: &str| Kernel {
        measure: Measure::Throughput(cw(class, Width::Scalar)),
        setup: one.clone(),
        body: body(|k| format!("{op} %rsi, %{}", GPR[k % STREAMS])),
        counted: BODY as u32,
    };
    let divide = strings(&["mov $7, %esi", "mov $1000, %r8d", "mov $1000, %eax"]);
    vec![
        chain(InstrClass::IntAlu, "add"),
        streams(InstrClass::IntAlu, "add"),
        chain(InstrClass::IntMul, "imul"),
        streams(InstrClass::IntMul, "imul"),
        // rax = rax / 7 + 1000 settles near 1166: small operands, as a program's; the
        // 32-bit divide of a default integer and the 64-bit one of an `integer(8)`.
        divide_chain(
            InstrClass::IntDiv,
            &divide,
            ["idivl %esi", "add %r8d, %eax"],
        ),
        divide_chain(
            InstrClass::IntDiv64,
            &divide,
            ["idivq %rsi", "add %r8, %rax"],
        ),
        // Each divide starts from 1000 afresh (the move breaks the chain).
        divide_streams(
            InstrClass::IntDiv,
            &divide,
            ["mov %r8d, %eax", "idivl %esi"],
        ),
        divide_streams(
            InstrClass::IntDiv64,
            &divide,
            ["mov %r8, %rax", "idivq %rsi"],
        ),
        // An integer variable kept in the frame (`i = i + 1` at -O0, `addl $1,
        // -36(%rbp)`): a read-modify-write of the slot, a chain through memory.
        Kernel {
            measure: Measure::Latency(cw(InstrClass::ForwardInt, Width::Scalar)),
            setup: strings(&["movq $0, -48(%rbp)"]),
            body: body(|_| "addq $1, -48(%rbp)".to_string()),
            counted: BODY as u32,
        },
        // A default integer in memory read back with a sign extension, as gfortran -O2
        // reads one it indexes with (`movslq 256(%rcx), %rax`, a stack pointer kept in
        // a derived type): a Zen 4 renames the `movl` reload of a `movl` store (1.3
        // cycles a link) but not this one (9 cycles).
        Kernel {
            measure: Measure::Latency(cw(InstrClass::ForwardExt, Width::Scalar)),
            setup: strings(&["movq $0, -48(%rbp)"]),
            body: groups(3, |_| {
                strings(&[
                    "movslq -48(%rbp), %rax",
                    "addl $1, %eax",
                    "movl %eax, -48(%rbp)",
                ])
            }),
            counted: (BODY / 3) as u32,
        },
        // An integer reached through a pointer kept in the frame and loaded again before
        // each access, as -O0 code reaches a dummy argument (`movq -72(%rbp), %rax`,
        // `movl 292(%rax), %eax`): memory renaming matches a load to a store by their
        // address registers, and `%rax` changed between them, or by a predictor of the
        // loop's store-load pairs that holds a few dozen (a Zen 5: 8 cycles a link in a
        // loop of more than 44, 1 with the pointer kept in a register).
        // More pairs than the core's predictor holds (a Zen 5 renames a loop of 40).
        Kernel {
            measure: Measure::Latency(cw(InstrClass::ForwardReloaded, Width::Scalar)),
            setup: strings(&RELOADED_SETUP),
            body: (0..RELOADED_PAIRS)
                .flat_map(|_| strings(&RELOADED_GROUP))
                .collect(),
            counted: RELOADED_PAIRS as u32,
        },
        // The slot read between its read-modify-writes, as -O0 code reads a loop's
        // counter (`addl $1, -4(%rbp)` closing each iteration, `movl -4(%rbp), %eax`
        // for each subscript): every access of a slot that a store in flight wrote
        // takes its turn (a Zen 4: about 0.8 cycle each, where other loads go three a
        // cycle). Per access.
        Kernel {
            measure: Measure::Throughput(cw(InstrClass::ForwardInt, Width::Scalar)),
            setup: strings(&["movq $0, -48(%rbp)"]),
            body: groups(3, |_| {
                strings(&[
                    "addq $1, -48(%rbp)",
                    "movq -48(%rbp), %rax",
                    "movq -48(%rbp), %rcx",
                ])
            }),
            counted: BODY as u32,
        },
    ]
}

/// The scratch buffer (4 KiB in `.bss`, 64-byte aligned) in `%rsi`.
const BUFFER: &str = "lea augur_incore_buf(%rip), %rsi";

/// Independent loads into vector registers, a line apart, at each width the host runs: a
/// core may bring fewer of them a cycle than integer loads (their data goes to the
/// floating-point side), and a vectorized stencil's loads can set its pace. Their
/// latency is the integer load's ([`crate::profile`]).
fn vector_load_kernels(f: Features) -> Vec<Kernel> {
    [Width::V128, Width::V256, Width::V512]
        .into_iter()
        .filter(|w| f.has_width(*w))
        .map(|w| {
            let (mnemonic, register) = match w {
                Width::V256 => ("vmovupd", "ymm"),
                Width::V512 => ("vmovupd", "zmm"),
                _ if f.avx => ("vmovupd", "xmm"),
                _ => ("movupd", "xmm"),
            };
            Kernel {
                measure: Measure::Throughput(cw(InstrClass::Load, w)),
                setup: vec![BUFFER.to_string()],
                body: body(|k| {
                    format!("{mnemonic} {}(%rsi), %{register}{}", 64 * (k % 32), k % 16)
                }),
                counted: BODY as u32,
            }
        })
        .collect()
}

fn memory_kernels() -> Vec<Kernel> {
    // A ring of 8 pointers a line apart in the buffer.
    let mut ring = vec![BUFFER.to_string()];
    for k in 0..8 {
        ring.push(format!("lea {}(%rsi), %rax", 64 * ((k + 1) % 8)));
        ring.push(format!("mov %rax, {}(%rsi)", 64 * k));
    }
    ring.push("mov %rsi, %rax".to_string());
    let scalar = |c| cw(c, Width::Scalar);
    vec![
        Kernel {
            measure: Measure::Latency(scalar(InstrClass::Load)),
            setup: ring,
            body: body(|_| "mov (%rax), %rax".to_string()),
            counted: BODY as u32,
        },
        Kernel {
            measure: Measure::Throughput(scalar(InstrClass::Load)),
            setup: vec![BUFFER.to_string()],
            body: body(|k| format!("mov {}(%rsi), %{}", 8 * k, GPR[k % STREAMS])),
            counted: BODY as u32,
        },
        Kernel {
            measure: Measure::Throughput(scalar(InstrClass::Store)),
            setup: vec![BUFFER.to_string()],
            body: body(|k| format!("mov %{}, {}(%rsi)", GPR[k % STREAMS], 8 * k)),
            counted: BODY as u32,
        },
        Kernel {
            measure: Measure::LoadStore,
            setup: vec![BUFFER.to_string()],
            body: body(|k| {
                if k % 2 == 0 {
                    format!("mov {}(%rsi), %{}", 8 * k, GPR[k % STREAMS])
                } else {
                    format!("mov %rsi, {}(%rsi)", 2048 + 8 * k)
                }
            }),
            counted: BODY as u32,
        },
        // A real variable kept in the frame, as unoptimized code keeps every variable
        // (`s = s + x` at -O0). A floating-point one: a Zen 4 renames an integer
        // register's store and reload (the chain `mov %rax, -48(%rbp)`, `mov -48(%rbp),
        // %rax`, `add` takes 1 cycle, whatever the address) but forwards a `movsd`'s in
        // 9 cycles, and a program's chains through memory are its real variables'.
        frame_chain(
            InstrClass::Forward,
            &[
                "movsd %xmm0, -48(%rbp)",
                "movsd -48(%rbp), %xmm0",
                "addsd %xmm1, %xmm0",
            ],
        ),
        // Two 8-byte stores read back at once by a 16-byte load (a small array stored
        // element by element, then read by vectorized code): the forwarding fails and the
        // chain waits for the stores to reach the cache.
        frame_chain(
            InstrClass::ForwardWide,
            &[
                "movsd %xmm0, -64(%rbp)",
                "movsd %xmm0, -56(%rbp)",
                "movupd -64(%rbp), %xmm0",
                "addsd %xmm1, %xmm0",
            ],
        ),
    ]
}

/// The latency of a chain through the frame: `group` repeated, `%xmm0` carried from one
/// group to the next, `%xmm1` holding zero for the add that closes each group.
fn frame_chain(class: InstrClass, group: &[&str]) -> Kernel {
    Kernel {
        measure: Measure::Latency(cw(class, Width::Scalar)),
        setup: [
            broadcast(Width::Scalar, ".Lone", 0),
            broadcast(Width::Scalar, ".Lzero", 1),
        ]
        .concat(),
        body: groups(group.len(), |_| strings(group)),
        counted: (BODY / group.len()) as u32,
    }
}

/// Two independent adds and a zeroing `xor` (which the renamer completes: no port), over
/// the twelve registers: as many instructions per cycle as the core issues.
fn issue_kernel() -> Kernel {
    Kernel {
        measure: Measure::Issue,
        setup: strings(&["mov $1, %esi"]),
        body: body(|k| {
            let r = k % STREAMS;
            if k % 3 == 2 {
                format!("xor %{0}, %{0}", GPR32[r])
            } else {
                format!("add %rsi, %{}", GPR[r])
            }
        }),
        counted: BODY as u32,
    }
}

/// [`RMW_SHARE`] read-modify-writes of memory (`addq $1` to eight slots a line apart,
/// each updated once an iteration: no chain the forwarding cannot keep up with) among
/// the issue kernel's adds and zeroing `xor`s.
fn rmw_issue_kernel() -> Kernel {
    Kernel {
        measure: Measure::RmwIssue,
        setup: vec![BUFFER.to_string()],
        body: body(|k| {
            let r = k % STREAMS;
            if k % RMW_SHARE == 0 {
                format!("addq $1, {}(%rsi)", 64 * (k / RMW_SHARE))
            } else if k % 3 == 2 {
                format!("xor %{0}, %{0}", GPR32[r])
            } else {
                format!("add $1, %{}", GPR[r])
            }
        }),
        counted: BODY as u32,
    }
}

/// One instruction in this many of the read-modify-write kernel is one.
pub const RMW_SHARE: usize = 6;

/// An add, a multiply and a shuffle of two constant registers in turn, each writing one
/// of twelve registers it does not read (the three-operand AVX forms: no chain), as many
/// per cycle as the pipes the three classes share start.
fn vector_pipes_kernel() -> Kernel {
    Kernel {
        measure: Measure::VectorPipes,
        setup: strings(&[
            "vxorps %xmm14, %xmm14, %xmm14",
            "vxorps %xmm15, %xmm15, %xmm15",
        ]),
        body: body(|k| {
            let op = ["vaddsd", "vmulsd", "vunpcklpd"][k % 3];
            format!("{op} %xmm14, %xmm15, %xmm{}", k % STREAMS)
        }),
        counted: BODY as u32,
    }
}

/// A chain of jumps, each to the next 32-byte boundary (as far apart as a loop's
/// branches are: jumps two bytes apart take 7 cycles each on a Zen 4, whose branch
/// target buffer keeps few branches per line), then the loop's own taken branch.
fn branch_kernel() -> Kernel {
    Kernel {
        measure: Measure::TakenBranch,
        setup: vec![],
        body: (0..BODY)
            .flat_map(|_| strings(&["jmp 3f", ".p2align 5", "3:"]))
            .collect(),
        counted: BODY as u32 + 1,
    }
}

/// A [`Measure::Window`] kernel with `n` independent fillers after each chain of square
/// roots (no-ops would not do: a Zen 4 keeps none of them in its window).
fn window_kernel(filler: Filler, n: u32) -> Kernel {
    let chain = |r: u32| (0..WINDOW_CHAIN).map(move |_| format!("sqrtsd %xmm{r}, %xmm{r}"));
    let fillers = |r: u32| {
        let moved = (filler == Filler::WaitingInteger).then(|| format!("vmovq %xmm{r}, %rax"));
        moved
            .into_iter()
            .chain((0..n as usize).map(move |k| filler.instruction(k, r)))
    };
    let mut body: Vec<String> = chain(0).collect();
    body.extend(fillers(0));
    body.extend(chain(1));
    body.extend(fillers(1));
    let mut setup = strings(&["movsd .Ltwo(%rip), %xmm0", "movsd .Ltwo(%rip), %xmm1"]);
    if matches!(filler, Filler::Vector | Filler::Waiting) {
        setup.extend(strings(&[
            "vxorps %xmm14, %xmm14, %xmm14",
            "vxorps %xmm15, %xmm15, %xmm15",
        ]));
    }
    Kernel {
        measure: Measure::Window(filler, n),
        setup,
        body,
        counted: 1,
    }
}

/// `%xmm3`, `%ymm3` or `%zmm3`.
fn reg(w: Width, n: usize) -> String {
    match w {
        Width::Scalar | Width::V128 => format!("%xmm{n}"),
        Width::V256 => format!("%ymm{n}"),
        Width::V512 => format!("%zmm{n}"),
    }
}

/// A register of half the width (the integer side of a packed conversion).
fn half(w: Width, n: usize) -> String {
    match w {
        Width::V512 => format!("%ymm{n}"),
        _ => format!("%xmm{n}"),
    }
}

/// The double at `label` in every lane of register `n`.
fn broadcast(w: Width, label: &str, n: usize) -> Vec<String> {
    match w {
        Width::Scalar | Width::V128 => vec![
            format!("movsd {label}(%rip), %xmm{n}"),
            format!("unpcklpd %xmm{n}, %xmm{n}"),
        ],
        _ => vec![format!("vbroadcastsd {label}(%rip), {}", reg(w, n))],
    }
}

/// `op %s, %d` (scalar and packed SSE) or `vop %s, %d, %d` (AVX, AVX-512).
fn two_op(w: Width, scalar: &str, packed: &str, d: usize, s: usize) -> String {
    match w {
        Width::Scalar => format!("{scalar} %xmm{s}, %xmm{d}"),
        Width::V128 => format!("{packed} %xmm{s}, %xmm{d}"),
        _ => format!("v{packed} {}, {1}, {1}", reg(w, s), reg(w, d)),
    }
}

/// The square root of register `s` into register `d` at width `w` (no chain).
fn sqrt_of(w: Width, s: usize, d: usize) -> String {
    match w {
        Width::Scalar => format!("sqrtsd %xmm{s}, %xmm{d}"),
        Width::V128 => format!("sqrtpd %xmm{s}, %xmm{d}"),
        _ => format!("vsqrtpd {}, {}", reg(w, s), reg(w, d)),
    }
}

/// Register `d` multiplied by register `s` at width `w`.
fn scale_by(w: Width, s: usize, d: usize) -> Vec<String> {
    vec![two_op(w, "mulsd", "mulpd", d, s)]
}

/// The latency and throughput kernels of `class` at `w`, or `None` when the host lacks
/// what they need (or the class has no such width: integer vector arithmetic has no
/// scalar form).
fn vector_kernels(class: InstrClass, w: Width, f: Features) -> Option<(Kernel, Kernel)> {
    let supported = f.has_width(w)
        && match class {
            InstrClass::FpFma => f.fma,
            InstrClass::VecInt => w != Width::Scalar && (w != Width::V256 || f.avx2),
            _ => true,
        };
    if !supported {
        return None;
    }
    // (accumulators' value, operands' value)
    let (start, operand) = match class {
        InstrClass::FpAdd | InstrClass::FpMinMax | InstrClass::FpFma => (".Lone", ".Lzero"),
        InstrClass::FpMul | InstrClass::VecMove => (".Lone", ".Lone"),
        InstrClass::FpDiv => (".Lone", ".Lnear_one"),
        // A square root of 2.0 (or of 1.0, where a chain of roots of 2.0 ends) finishes
        // early: its mantissa is one bit (the Xeon guest of 2026-11-29: `sqrtpd` 4.7
        // cycles apart on 1.0, 6.3 on 1.2345, and a loop of real data's roots 6.3).
        InstrClass::FpSqrt => (".Lsqrt_scale", ".Lsqrt_scale"),
        _ => (".Lzero", ".Lzero"),
    };
    let mut setup = strings(&["mov $3, %esi", "mov $3, %eax"]);
    for n in 0..STREAMS {
        setup.extend(broadcast(w, start, n));
    }
    for n in [14, 15] {
        setup.extend(broadcast(w, operand, n));
    }
    // One instruction on register d with operands s (and t), or the group of a chain.
    let op = |d: usize, s: usize| -> Vec<String> {
        match class {
            InstrClass::FpAdd => vec![two_op(w, "addsd", "addpd", d, s)],
            InstrClass::FpMinMax => vec![two_op(w, "maxsd", "maxpd", d, s)],
            InstrClass::FpMul => vec![two_op(w, "mulsd", "mulpd", d, s)],
            InstrClass::FpDiv => vec![two_op(w, "divsd", "divpd", d, s)],
            InstrClass::VecInt => vec![two_op(w, "", "paddd", d, s)],
            InstrClass::FpFma => {
                let m = if w == Width::Scalar { "sd" } else { "pd" };
                vec![format!(
                    "vfmadd231{m} {}, {}, {}",
                    reg(w, s),
                    reg(w, 14),
                    reg(w, d)
                )]
            }
            InstrClass::FpSqrt => vec![match w {
                Width::Scalar => format!("sqrtsd %xmm{d}, %xmm{d}"),
                Width::V128 => format!("sqrtpd %xmm{d}, %xmm{d}"),
                _ => format!("vsqrtpd {0}, {0}", reg(w, d)),
            }],
            // The interleave gfortran emits for most of its shuffles (`unpcklpd`,
            // `unpckhpd`: four in five of those in the development set's assembly at
            // -O2), not `shufpd`: an Intel core since Golden Cove starts `shufpd` on
            // two ports and the interleaves on one (the Emerald Rapids guest of
            // 2026-12-03: 0.50 and 1.00 cycles apart, xmm and ymm alike).
            InstrClass::VecMove => vec![match w {
                Width::Scalar => format!("movapd %xmm{s}, %xmm{d}"),
                Width::V128 => format!("unpcklpd %xmm{s}, %xmm{d}"),
                _ => format!("vunpcklpd {}, {1}, {1}", reg(w, s), reg(w, d)),
            }],
            _ => unreachable!("conversions are pairs"),
        }
    };
    let (lat_body, lat_counted, tput_body) = match (class, w) {
        // Integer to double and back: both counted.
        (InstrClass::FpConvert, Width::Scalar) => (
            groups(2, |_| {
                strings(&["cvtsi2sdq %rax, %xmm0", "cvttsd2si %xmm0, %rax"])
            }),
            BODY,
            groups(2, |k| {
                let r = k % STREAMS;
                vec![
                    format!("cvtsi2sdq %rsi, %xmm{r}"),
                    format!("cvttsd2si %xmm15, %{}", GPR[r]),
                ]
            }),
        ),
        (InstrClass::FpConvert, _) => {
            let (to, back) = match w {
                Width::V128 => ("cvtdq2pd", "cvttpd2dq"),
                _ => ("vcvtdq2pd", "vcvttpd2dq"),
            };
            (
                groups(2, |_| {
                    vec![
                        format!("{to} {}, {}", half(w, 0), reg(w, 0)),
                        format!("{back} {}, {}", reg(w, 0), half(w, 0)),
                    ]
                }),
                BODY,
                groups(2, |k| {
                    let r = k % STREAMS;
                    vec![
                        format!("{to} {}, {}", half(w, 15), reg(w, r)),
                        format!("{back} {}, {}", reg(w, 14), half(w, r)),
                    ]
                }),
            )
        }
        // A register move back and forth (a move onto itself is no move).
        (InstrClass::VecMove, Width::Scalar) => (
            groups(2, |_| {
                strings(&["movapd %xmm0, %xmm1", "movapd %xmm1, %xmm0"])
            }),
            BODY,
            body(|k| op(k % STREAMS, 15).concat()),
        ),
        // The chain's root is scaled back by a multiply (its latency taken off): `x =
        // 1.9*sqrt(x)` stays at 3.61, a full mantissa, where roots alone would reach 1.0.
        // Independent roots of one full-mantissa register for the throughput.
        (InstrClass::FpSqrt, _) => (
            groups(2, |_| [op(0, 0), scale_by(w, 14, 0)].concat()),
            BODY / 2,
            body(|k| sqrt_of(w, 14, k % STREAMS)),
        ),
        (InstrClass::VecMove, _) => (
            body(|_| op(0, 0).concat()),
            BODY,
            body(|k| op(k % STREAMS, 15).concat()),
        ),
        _ => (
            body(|_| op(0, 15).concat()),
            BODY,
            body(|k| op(k % STREAMS, 15).concat()),
        ),
    };
    let c = cw(class, w);
    Some((
        Kernel {
            measure: Measure::Latency(c),
            setup: setup.clone(),
            body: lat_body,
            counted: lat_counted as u32,
        },
        Kernel {
            measure: Measure::Throughput(c),
            setup,
            body: tput_body,
            counted: BODY as u32,
        },
    ))
}

/// The assembly file of `kernels`: `augur_k_<i>` is `kernels[i]`. `vzeroupper` ends
/// every kernel when the host has AVX (no SSE instruction after it pays for dirty upper
/// halves).
pub fn assembly(kernels: &[Kernel], f: Features) -> String {
    let mut s = String::from(
        "# Generated by augur-incore: in-core kernels, one counted loop each.\n\
         \t.section .rodata\n\t.p2align 3\n\
         .Lzero:\t.double 0.0\n.Lone:\t.double 1.0\n.Ltwo:\t.double 2.0\n\
         .Lnear_one:\t.double 0.99999999\n.Lsqrt_scale:\t.double 1.9\n\
         .Lsubnormal:\t.double 1.0e-310\n\
         \t.bss\n\t.p2align 6\naugur_incore_buf:\n\t.zero 4096\n\t.text\n",
    );
    for (i, k) in kernels.iter().enumerate() {
        let name = format!("augur_k_{i}");
        let _ = writeln!(s, "\n# {:?}", k.measure);
        let _ = writeln!(
            s,
            "\t.globl {name}\n\t.type {name}, @function\n\t.p2align 6\n{name}:"
        );
        for line in [
            "push %rbp",
            "mov %rsp, %rbp",
            "push %rbx",
            "push %r12",
            "push %r13",
            "push %r14",
            "push %r15",
            "sub $72, %rsp",
        ]
        .iter()
        .map(|l| l.to_string())
        .chain(k.setup.iter().cloned())
        {
            let _ = writeln!(s, "\t{line}");
        }
        s.push_str("\ttest %rdi, %rdi\n\tjle 2f\n\t.p2align 5\n1:\n");
        for line in &k.body {
            if line.ends_with(':') || line.starts_with('.') {
                let _ = writeln!(s, "{line}");
            } else {
                let _ = writeln!(s, "\t{line}");
            }
        }
        s.push_str("\tdec %rdi\n\tjnz 1b\n2:\n");
        if f.avx {
            s.push_str("\tvzeroupper\n");
        }
        s.push_str(
            "\tadd $72, %rsp\n\tpop %r15\n\tpop %r14\n\tpop %r13\n\tpop %r12\n\tpop %rbx\n\tpop %rbp\n\tret\n",
        );
        let _ = writeln!(s, "\t.size {name}, .-{name}");
    }
    s.push_str("\t.section .note.GNU-stack,\"\",@progbits\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_measure_once_and_widths_follow_the_features() {
        let all = kernels(Features::ALL);
        for (i, a) in all.iter().enumerate() {
            assert!(
                all[i + 1..].iter().all(|b| b.measure != a.measure),
                "{:?} twice",
                a.measure
            );
            assert!(a.counted > 0 && !a.body.is_empty());
        }
        let has = |v: &[Kernel], key: &str| {
            v.iter().any(|k| {
                matches!(k.measure, Measure::Latency(c) | Measure::Throughput(c) if c.key() == key)
            })
        };
        assert!(has(&all, "fp_fma.v512") && has(&all, "vec_int.v256"));
        assert!(!has(&all, "vec_int"), "no scalar vector integer");
        let sse = kernels(Features::default());
        assert!(has(&sse, "fp_add.v128") && has(&sse, "fp_div"));
        assert!(!has(&sse, "fp_add.v256") && !has(&sse, "fp_fma") && !has(&sse, "fp_add.v512"));
        // Loads into vector registers at each width the host runs.
        assert!(has(&all, "load.v512") && has(&sse, "load.v128") && !has(&sse, "load.v256"));
        // The cycle's chain comes first: the driver warms up with it.
        assert_eq!(
            all[0].measure,
            Measure::Latency(cw(InstrClass::IntAlu, Width::Scalar))
        );
    }

    #[test]
    fn square_roots_are_of_full_mantissas() {
        // A root of 2.0 or of 1.0 (where a chain of roots ends) finishes early.
        let ks = kernels(Features::default());
        let sqrt = |m: Measure| ks.iter().find(|k| k.measure == m).expect("a sqrt kernel");
        let c = cw(InstrClass::FpSqrt, Width::Scalar);
        let latency = sqrt(Measure::Latency(c));
        assert!(latency.setup.iter().any(|l| l.contains(".Lsqrt_scale")));
        assert!(latency.body.iter().any(|l| l.starts_with("mulsd")));
        assert_eq!(latency.counted as usize * 2, latency.body.len());
        let throughput = sqrt(Measure::Throughput(c));
        assert!(throughput
            .body
            .iter()
            .all(|l| l.starts_with("sqrtsd %xmm14,")));
        assert!(assembly(&ks, Features::default()).contains(".Lsqrt_scale:\t.double 1.9"));
    }

    #[test]
    fn kernels_keep_the_counter_and_the_frame() {
        for k in kernels(Features::ALL) {
            for line in k.setup.iter().chain(&k.body) {
                for reserved in ["%rdi", "%edi", "%rsp", "%rbp)", "1:", "2:"] {
                    // The frame's own slots lie below the five saved registers
                    // (-8 to -40) in the 72 bytes the prologue reserves.
                    let frame_slot = reserved == "%rbp)"
                        && ["-48(%rbp)", "-56(%rbp)", "-64(%rbp)"]
                            .iter()
                            .any(|slot| line.contains(slot));
                    assert!(
                        frame_slot || !line.contains(reserved),
                        "{:?}: `{line}` touches {reserved}",
                        k.measure
                    );
                }
            }
        }
    }

    #[test]
    fn assembly_names_every_kernel_and_ends_wide_ones_cleanly() {
        let ks = kernels(Features::ALL);
        let text = assembly(&ks, Features::ALL);
        for i in 0..ks.len() {
            assert!(text.contains(&format!("augur_k_{i}:\n")));
        }
        assert_eq!(text.matches("vzeroupper").count(), ks.len());
        assert!(!assembly(&ks[..1], Features::default()).contains("vzeroupper"));
    }
}
