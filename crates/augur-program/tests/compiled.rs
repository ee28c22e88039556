//! Compiled loops, with the real gfortran: `augur analyze` reads the innermost loops of
//! the assembly of its optimization-report compile and maps them to the source loops,
//! at -O2 (a reduction's add chain in a register, a loop around a continued statement)
//! and at -O0 (the accumulator's chain through the stack).
//!
//! These tests need gfortran and gcc; without them they fail saying so.

use augur_program::AnalyzeOptions;
use augur_program_profile::compiled::{CompiledLoop, InstrClass, WalkedElement};
use augur_toolchain::Toolchain;
use std::collections::HashMap;

fn analyze(flags: &str, text: &str) -> augur_program_profile::ProgramProfile {
    analyze_with(flags, text, false)
}

fn analyze_with(
    flags: &str,
    text: &str,
    branch_run: bool,
) -> augur_program_profile::ProgramProfile {
    let tc = Toolchain::detect("gfortran", flags).unwrap_or_else(|e| {
        panic!("these tests need gfortran and gcc: {e}\ninstall them: apt-get install gfortran gcc")
    });
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("loops.f90");
    std::fs::write(&src, text).unwrap();
    let mut opts = AnalyzeOptions::new(tc, dir.path());
    opts.branch_run = branch_run;
    augur_program::analyze(std::slice::from_ref(&src), &opts)
        .unwrap_or_else(|e| panic!("analyze failed: {e}"))
        .profile
}

const PROGRAM: &str = "program loops
  implicit none
  integer, parameter :: n = 100000
  double precision :: a(n), b(n), s
  integer :: i
  do i = 1, n
    a(i) = 1.0d0 / i
    b(i) = &
      2.0d0 * a(i) + &
      1.0d0
  end do
  s = 0
  do i = 1, n
    s = s + a(i) * b(i)
  end do
  print *, s
end program
";

fn compiled(p: &augur_program_profile::ProgramProfile, line: u32) -> &CompiledLoop {
    let r = p.optimization.as_ref().expect("an optimization report");
    r.compiled_loops
        .iter()
        .find(|c| c.line == line)
        .unwrap_or_else(|| panic!("no compiled loop at line {line}: {:#?}", r.compiled_loops))
}

fn chain_classes(c: &CompiledLoop) -> Vec<InstrClass> {
    c.chains[0].path.iter().map(|p| p.class.class).collect()
}

#[test]
fn a_reduction_at_o2_carries_one_add_in_a_register() {
    let p = analyze("-O2", PROGRAM);
    let dot = compiled(&p, 13);
    assert_eq!(chain_classes(dot), vec![InstrClass::FpAdd], "{dot:#?}");
    assert!(dot.chains[0].carried_by.starts_with("%v"), "{dot:#?}");
    // The loop around the continued statement is found by its lines.
    let fill = compiled(&p, 6);
    assert!(
        fill.instructions
            .iter()
            .any(|c| c.class.class == InstrClass::FpDiv),
        "{fill:#?}"
    );
}

#[test]
fn a_default_integers_remainder_and_an_integer_8s_are_two_classes_of_divide() {
    let p = analyze(
        "-O2",
        "program divides
  implicit none
  integer :: i, j, k, n
  integer(8) :: l, m
  n = command_argument_count() + 100000
  k = 0
  do i = 1, n
    k = k + mod(n, i)
  end do
  m = 0
  do l = 1, n
    m = m + mod(int(n, 8) * 3000000000_8, l)
  end do
  j = k + int(m)
  print *, j
end program
",
    );
    let classes = |line: u32| -> Vec<InstrClass> {
        compiled(&p, line)
            .instructions
            .iter()
            .map(|c| c.class.class)
            .collect()
    };
    let narrow = classes(7);
    assert!(narrow.contains(&InstrClass::IntDiv), "{narrow:?}");
    assert!(!narrow.contains(&InstrClass::IntDiv64), "{narrow:?}");
    let wide = classes(11);
    assert!(wide.contains(&InstrClass::IntDiv64), "{wide:?}");
}

#[test]
fn a_reduction_at_o0_carries_its_add_through_the_stack() {
    let p = analyze("-O0", PROGRAM);
    let dot = compiled(&p, 13);
    let forwarded = dot.chains.iter().any(|c| {
        c.path.iter().any(|x| x.class.class == InstrClass::Forward)
            && c.path.iter().any(|x| x.class.class == InstrClass::FpAdd)
    });
    assert!(forwarded, "{dot:#?}");
    assert_eq!(dot.source_iterations, 1);
}

const ARMS: &str = "program arms
  implicit none
  integer, parameter :: n = 100000
  double precision :: x(n), y(n), r
  integer :: i, it
  x = 1.0d0
  r = 0
  do it = 1, 20
    do i = 1, n
      y(i) = x(i)
      if (1 < i) then
        y(i) = y(i) + x(i-1)
      end if
      if (i < n) then
        y(i) = y(i) + x(i+1)
      end if
      r = r + y(i) * y(i)
    end do
    x(1) = r * 1.0d-12
  end do
  print *, r, y(n/2)
end program
";

#[test]
fn a_loop_with_ifs_at_o2_weighs_its_blocks_by_the_counted_outcomes() {
    let p = analyze_with("-O2", ARMS, true);
    let l = compiled(&p, 9);
    assert!(l.inner_branches > 0 && !l.blocks.is_empty(), "{l:#?}");
    let f: Vec<f64> = l
        .blocks
        .iter()
        .map(|b| b.frequency.expect("a frequency"))
        .collect();
    assert_eq!(f[0], 1.0, "the header runs every iteration: {l:#?}");
    assert!(f.iter().all(|&x| (0.0..=1.0 + 1e-9).contains(&x)), "{f:?}");
    // The arms for i = 1 and i = n run once in 100,000 iterations.
    assert!(f.iter().any(|&x| x < 1e-3), "{f:?}");
    // Each path carries the accumulation's one add, not one per arm.
    assert!(!l.paths.is_empty(), "{l:#?}");
    for path in &l.paths {
        let adds: u32 = path.chains[0]
            .path
            .iter()
            .filter(|c| c.class.class == InstrClass::FpAdd)
            .map(|c| c.count)
            .sum();
        assert_eq!(adds, 1, "{path:#?}");
    }
}

#[test]
fn pairs_of_elements_are_one_source_iteration() {
    // A complex number kept as two reals, `x(2*k+1)` and `x(2*k+2)`: gfortran -O2 moves
    // the pair in one 128-bit register; the iteration still covers one source iteration.
    let p = analyze(
        "-O2",
        "program pairs
  implicit none
  integer, parameter :: n = 50000
  double precision :: a(2*n), b(2*n), c(2*n)
  integer :: k
  a = 1.0d0
  b = 2.0d0
  do k = 0, n - 1
    c(2*k+1) = a(2*k+1) + b(2*k+1)
    c(2*k+2) = a(2*k+2) - b(2*k+2)
  end do
  print *, c(7)
end program
",
    );
    let l = compiled(&p, 8);
    assert_eq!(l.source_iterations, 1, "{l:#?}");
}

#[test]
fn columns_of_a_short_leading_dimension_are_one_source_iteration_each() {
    // `du(1,k)`, `du(2,k)` of `du(4,n)` and `s(1,k)` of `s(2,n)`: a source iteration
    // moves a column. gfortran 12 -O2 does two at once in 128-bit registers, its
    // pointers stepping 64 and 32 bytes: two source iterations, not the four that 32
    // bytes of 8-byte elements would say.
    let p = analyze(
        "-O2",
        "program cols
  implicit none
  integer, parameter :: n = 50000
  double precision :: du(4,n), s(2,n)
  integer :: k
  du = 1.0d0
  do k = 1, n
    s(1,k) = sqrt(du(1,k)*du(1,k) + du(2,k)*du(2,k))
    s(2,k) = du(3,k) / max(du(4,k), 1.0d-9)
  end do
  print *, s(1,7)
end program
",
    );
    let l = compiled(&p, 7);
    assert_eq!(l.source_iterations, 2, "{l:#?}");
}

#[test]
fn fills_of_doubles_count_doubles_not_the_moves_encoding() {
    // gfortran 12 -O2 fills doubles with `movaps` (the single-precision encoding) and
    // no arithmetic, in an array statement and a DO loop: 16 bytes a compiled iteration
    // are two of the source arrays' elements, not four.
    let p = analyze(
        "-O2",
        "program fills
  implicit none
  integer, parameter :: n = 40000
  double precision :: v(n), w(n)
  integer :: i, r
  w = 2.0d0
  do r = 1, 50
    do i = 1, n
      v(i) = 3.0d0
    end do
    w(r) = w(r) + v(n - r)
  end do
  print *, v(7), w(3)
end program
",
    );
    for line in [6, 8] {
        let l = compiled(&p, line);
        assert_eq!(l.source_iterations, 2, "line {line}: {l:#?}");
    }
}

#[test]
fn a_loop_the_compiler_made_inside_a_source_loop_does_not_stand_for_it() {
    // The concatenation pads `name` with blanks in a loop of its own; the source loop
    // around it (with its WRITE) is not that loop.
    let p = analyze(
        "-O2",
        "program strs
  implicit none
  character(len=40) :: name
  character(len=60) :: rec(1000)
  character(len=8) :: syl(8)
  integer :: i
  syl = ['alpha   ', 'beta    ', 'gamma   ', 'delta   ', 'eps     ', 'zeta    ', 'eta     ', 'theta   ']
  do i = 1, 1000
    name = syl(mod(i, 8) + 1)(1:len_trim(syl(mod(i, 8) + 1))) // syl(mod(i * 3, 8) + 1)
    write (rec(i), '(i6,1x,a)') i, name
  end do
  print *, rec(7)
end program
",
    );
    let r = p.optimization.as_ref().expect("an optimization report");
    assert!(
        r.compiled_loops.iter().all(|c| c.line != 8),
        "{:#?}",
        r.compiled_loops
    );
    assert!(
        r.unmapped_loops
            .iter()
            .any(|u| u.line == 8 && u.reason.contains("the compiler made inside")),
        "{:#?}",
        r.unmapped_loops
    );
}

#[test]
fn a_nest_whose_short_inner_loops_were_unrolled_is_one_compiled_loop() {
    // `sum(r(:,m)**2)` over the three rows of `r(3,n)`: gfortran -O2 unrolls the
    // element loop completely; the compiled loop is the loop over `m`, one `m` an
    // iteration (its stores of doubles step 8 bytes beside single-precision divides).
    let p = analyze(
        "-O2",
        "program nest
  implicit none
  integer, parameter :: n = 10
  double precision :: r(3,n), mag(n), d2
  integer :: m, it
  call random_number(r)
  do it = 1, 1000
    do m = 1, n
      d2 = sum(r(:,m)**2)
      mag(m) = 1 / sqrt(real(d2))
    end do
    r(1,1) = r(1,1) + mag(it / 100 + 1)
  end do
  print *, mag(3)
end program
",
    );
    let l = compiled(&p, 8);
    assert_eq!(l.source_iterations, 1, "{l:#?}");
    assert!(
        l.source_iterations_from.contains("unrolled completely"),
        "{l:#?}"
    );
}

const STENCIL: &str = "program st
  implicit none
  integer, parameter :: n = 200, r = 2
  double precision :: a(n,n), b(n,n), w(-r:r,-r:r)
  integer :: i, j, ii, jj
  call random_number(a)
  call random_number(w)
  b = 0
  do j = r+1, n-r
    do i = r+1, n-r
      do jj = -r, r
        do ii = -r, r
          b(i,j) = b(i,j) + w(ii,jj) * a(i+ii,j+jj)
        end do
      end do
    end do
  end do
  print *, sum(b)
end program
";

#[test]
fn a_sum_over_short_inner_loops_is_restarted_by_the_loop_that_moves_its_element() {
    // At -O2 b(i,j) is summed in a register across the jj and ii loops and loaded
    // afresh for each i; at -O0 it is summed in memory, at an address moved by i.
    for flags in ["-O2", "-O0"] {
        let p = analyze(flags, STENCIL);
        let c = compiled(&p, 12);
        let top = &c.chains[0];
        assert!(
            chain_classes(c).contains(&InstrClass::FpAdd),
            "{flags}: {:?}",
            c.chains
        );
        assert_eq!(top.restarted_by, Some(10), "{flags}: {:?}", c.chains);
    }
}

const PAIRS: &str = "program pairs
  implicit none
  integer, parameter :: n = 60
  double precision :: x(3,n), body(n), f(3,n), a(3), rij2, a8
  integer :: i, j, k
  call random_number(x)
  call random_number(body)
  f = 0
  do i = 1, n
    do j = 1, n
      if (j == i) cycle
      do k = 1, 3
        a(k) = x(k,j) - x(k,i)
      end do
      rij2 = a(1)*a(1) + a(2)*a(2) + a(3)*a(3) + 0.01d0
      a8 = body(j)/(rij2*sqrt(rij2))
      do k = 1, 3
        f(k,i) = f(k,i) + a(k)*a8
      end do
    end do
  end do
  print *, sum(f)
end program
";

#[test]
fn an_unoptimized_pair_iteration_is_one_path_through_its_inner_loops() {
    // At -O0 the separation goes through memory into the square root and the divide,
    // whose result goes through memory into the forces: one path through the iteration
    // over j and both of its inner loops.
    let p = analyze("-O0", PAIRS);
    for line in [12, 17] {
        let o = compiled(&p, line)
            .outer
            .as_ref()
            .unwrap_or_else(|| panic!("no outer iteration at {line}"));
        assert_eq!((o.line, o.inner_loops), (10, 2), "{o:?}");
        let on_path = |c: InstrClass| o.span.iter().any(|x| x.class.class == c);
        for c in [InstrClass::FpSqrt, InstrClass::FpDiv, InstrClass::Forward] {
            assert!(on_path(c), "{c:?} not on {:?}", o.span);
        }
        assert!(o.issued > 10, "{o:?}");
    }
    // Its instructions in order for the replay, recorded once (with its first inner
    // loop): each inner loop's marked by its line, three backward jumps (two inner loops
    // and its own), the square root reading a value an earlier instruction writes.
    let outers: Vec<_> = [12, 17]
        .iter()
        .filter_map(|&l| compiled(&p, l).outer.as_ref())
        .filter(|o| !o.schedule.is_empty())
        .collect();
    assert_eq!(outers.len(), 1);
    {
        let o = outers[0];
        let inner = |l: u32| o.schedule.iter().filter(|op| op.inner == l).count();
        assert!(inner(12) > 3 && inner(17) > 3, "{:?}", o.schedule);
        assert!(inner(0) > 10, "{:?}", o.schedule);
        assert_eq!(o.schedule.iter().filter(|op| op.back_jump).count(), 3);
        let sqrt = o
            .schedule
            .iter()
            .position(|op| op.classes.iter().any(|c| c.class == InstrClass::FpSqrt))
            .expect("a square root");
        let written = |v: u32| o.schedule[..sqrt].iter().any(|op| op.writes.contains(&v));
        assert!(o.schedule[sqrt].reads.iter().any(|r| written(r.value)));
    }
}

/// The elements the inner loops of PAIRS' iteration over j name in its schedule at
/// `flags`, per inner loop line (0: the iteration's own instructions), each with whether
/// a store names it.
fn pair_elements(flags: &str) -> HashMap<u32, Vec<(bool, WalkedElement)>> {
    let p = analyze(flags, PAIRS);
    let o = [12, 17]
        .iter()
        .filter_map(|&l| compiled(&p, l).outer.as_ref())
        .find(|o| !o.schedule.is_empty())
        .expect("the iteration over j recorded whole");
    let mut out: HashMap<u32, Vec<(bool, WalkedElement)>> = HashMap::new();
    for op in &o.schedule {
        let store = op.classes.iter().any(|c| c.class == InstrClass::Store);
        for e in &op.elements {
            out.entry(op.inner).or_default().push((store, *e));
        }
    }
    out
}

/// Asserts that the statements after PAIRS' first inner loop read `a(1)`, `a(2)`,
/// `a(3)` at the offsets its trips store.
fn separations_read_after(flags: &str, elements: &HashMap<u32, Vec<(bool, WalkedElement)>>) {
    let separations: Vec<WalkedElement> = elements
        .get(&12)
        .into_iter()
        .flatten()
        .filter(|(s, _)| *s)
        .map(|(_, e)| *e)
        .collect();
    let read_after: Vec<WalkedElement> = elements
        .get(&0)
        .into_iter()
        .flatten()
        .map(|(_, e)| *e)
        .collect();
    for trip in 0..3 {
        assert!(
            separations.iter().any(|s| s.stride != 0
                && read_after.iter().any(|r| r.base == s.base
                    && r.stride == 0
                    && r.offset == s.offset + trip * s.stride)),
            "{flags}: a({}) read by the statements after the loop: {separations:?} {read_after:?}",
            trip + 1
        );
    }
}

#[test]
fn an_optimized_pair_iteration_names_the_elements_its_inner_loops_walk() {
    // At -O2 the inner loops step a register over `a(k)` and `f(k,i)`: in the schedule
    // of the iteration over j each access names its element by base, offset and stride,
    // so the replay tells the trips apart. The force loop loads and stores the same
    // element of `f` (a chain the next j continues through store forwarding), and the
    // statements after the first loop read `a(1)`, `a(2)`, `a(3)` at the offsets the
    // first loop's trips store.
    let elements = pair_elements("-O2");
    let forces = elements.get(&17).cloned().unwrap_or_default();
    let stored: Vec<_> = forces.iter().filter(|(s, _)| *s).map(|(_, e)| e).collect();
    assert!(!stored.is_empty(), "{elements:?}");
    for e in &stored {
        assert_eq!(e.stride, 8, "{e:?}");
        assert!(
            forces.iter().any(|(s, l)| !s && l == *e),
            "the force loop loads what it stores: {forces:?}"
        );
    }
    separations_read_after("-O2", &elements);
}

#[test]
fn an_unoptimized_pair_iteration_names_the_elements_its_counter_in_memory_walks() {
    // At -O0 the first inner loop keeps k in a stack slot and recomputes the index of
    // `a(k)` from it each trip; its trips still store `a(1)`, `a(2)`, `a(3)`, which the
    // statements after it read at fixed offsets of the frame: the separations, the
    // square root and the divide are one path from the loop's stores (nemo_firstn's
    // force loop at -O0: 64.8 cycles an iteration over j replayed without the path, 72.0
    // with it, 79 measured on a Zen 4 guest).
    separations_read_after("-O0", &pair_elements("-O0"));
}

const PRODUCT: &str = "program product
  implicit none
  integer, parameter :: n = 40
  double precision :: a(n,n), b(n,n), c(n,n)
  call random_number(a)
  call random_number(b)
  c = 0
  call mm(a, b, c, n)
  print *, sum(c)
end program

subroutine mm(a, b, c, n)
  implicit none
  integer :: n, i, j, k
  double precision :: a(n,n), b(n,n), c(n,n)
  do j = 1, n
    do i = 1, n
      do k = 1, n
        c(i,j) = c(i,j) + a(i,k)*b(k,j)
      end do
    end do
  end do
end subroutine
";

#[test]
fn an_element_carried_through_an_inner_loop_starts_afresh_as_the_loop_around_it_moves_it() {
    // At -O0 `c(i,j)` is reloaded from its recomputed address each iteration over k:
    // a chain there, a new element at each iteration over i. In the schedule of the
    // iteration over i, the inner loop's reload of c(i,j) is marked local to it.
    let p = analyze("-O0", PRODUCT);
    let k_loop = compiled(&p, 18);
    let o = k_loop.outer.as_ref().expect("the loop over i around it");
    assert_eq!((o.line, o.inner_loops), (17, 1), "{o:?}");
    let local: Vec<_> = o
        .schedule
        .iter()
        .filter(|op| op.inner == 18 && !op.local.is_empty())
        .collect();
    assert!(!local.is_empty(), "{:?}", o.schedule);
    assert!(o
        .schedule
        .iter()
        .all(|op| op.inner == 18 || op.local.is_empty()));
    // The innermost loop's own schedule sees the chain through that element.
    assert!(
        k_loop
            .chains
            .iter()
            .any(|c| c.path.iter().any(|x| x.class.class == InstrClass::Forward)),
        "{:?}",
        k_loop.chains
    );
}

const COPIES: &str = "program copies
  implicit none
  integer, parameter :: n = 200
  double precision :: u(n,n), w(n,n)
  integer :: k
  w = 0.0d0
  w(1,:) = 1.0d0
  do k = 1, 10
    u = w
    w(2:n-1,2:n-1) = 0.5d0 * u(2:n-1,2:n-1)
  end do
  print *, u(2,2), w(3,3)
end program
";

/// gfortran emits the whole-array fill `w = 0` and copy `u = w` of fixed-size arrays as
/// calls to the C library's `memset` and `memcpy`, at -O0 as at -O2: the report names
/// their lines, and not the sections' element loops.
#[test]
fn array_copies_and_fills_the_library_makes_are_reported() {
    for flags in ["-O0", "-O2"] {
        let p = analyze(flags, COPIES);
        let r = p.optimization.as_ref().expect("an optimization report");
        let lines: Vec<u32> = r.library_moves.iter().map(|s| s.line).collect();
        assert!(
            lines.contains(&6) && lines.contains(&9),
            "{flags}: {lines:?}"
        );
        assert!(
            !lines.contains(&7) && !lines.contains(&10),
            "{flags}: {lines:?}"
        );
    }
}

/// The arms of a SELECT CASE that gfortran compiles to a jump table (`jmp *...`): the
/// loops in them are read from the assembly as any other (each arm reached by no
/// instruction that names it).
#[test]
fn the_loops_in_the_arms_of_a_jump_table_are_compiled_loops() {
    let p = analyze(
        "-O2",
        "program cases
  implicit none
  integer, parameter :: n = 2000
  double precision :: a(n), s
  integer :: i, k, r
  do i = 1, n
    a(i) = 1.0d0 / i
  end do
  s = 0
  do r = 1, 400
    k = mod(r, 6)
    select case (k)
    case (0)
      do i = 1, n
        s = s + a(i)
      end do
    case (1)
      do i = 1, n
        s = s + 2.0d0 * a(i)
      end do
    case (2)
      do i = 1, n
        s = s - a(i) * a(i)
      end do
    case (3)
      do i = 1, n
        s = s + a(i) / 3.0d0
      end do
    case (4)
      do i = 1, n
        s = s * 0.5d0 + a(i)
      end do
    case default
      do i = 1, n
        s = max(s, a(i))
      end do
    end select
  end do
  print *, s
end program
",
    );
    for line in [14, 18, 22, 26, 30, 34] {
        let c = compiled(&p, line);
        assert!(
            c.chains.iter().any(|ch| ch.carried_by.starts_with("%v")),
            "line {line}: {c:?}"
        );
    }
}

/// A dispatch loop (`select case` on an opcode read each iteration, a stack pointer in a
/// derived type): gfortran -O2 compiles it to a jump table, whose arms jump back to the
/// loop's top. The loop is read with its arms, each taken as often as its first line ran
/// (a push and a pop a quarter of the iterations each, the arm of opcode 3 half), and the stack pointer's chain through memory is a
/// forwarding that a core does not rename (read back with a sign extension).
#[test]
fn a_dispatch_loop_through_a_jump_table_is_read_with_its_arms_odds() {
    let p = analyze(
        "-O2",
        "module vm
  implicit none
  type machine
    integer :: stack(64), sp
  end type
contains
  subroutine run(code, n, m, acc)
    integer, intent(in) :: n, code(n)
    type(machine), intent(inout) :: m
    integer, intent(inout) :: acc
    integer :: pc
    do pc = 1, n
      select case (code(pc))
      case (1)
        m%sp = m%sp + 1
        m%stack(m%sp) = pc
      case (2)
        acc = acc + m%stack(m%sp)
        m%sp = m%sp - 1
      case (3)
        acc = acc * 3
      case (4)
        acc = acc - 7
      case (5)
        acc = acc + 11
      case (6)
        acc = ieor(acc, 5)
      case (7)
        acc = acc / 2
      case (8)
        acc = acc + pc
      case default
        acc = 0
      end select
    end do
  end subroutine
end module
program dispatch
  use vm
  implicit none
  integer :: code(3000), i, acc
  type(machine) :: m
  do i = 1, 3000
    code(i) = merge(3, mod(i, 4), mod(i, 4) == 0 .or. mod(i, 4) == 3)
  end do
  m%sp = 0
  acc = 0
  do i = 1, 200
    m%sp = 0
    call run(code, 3000, m, acc)
  end do
  print *, acc, m%sp
end program
",
    );
    let r = p.optimization.as_ref().expect("an optimization report");
    let c = r
        .compiled_loops
        .iter()
        .find(|c| c.line >= 12 && c.line <= 33)
        .unwrap_or_else(|| panic!("the dispatch loop is read: {:#?}", r.unmapped_loops));
    let table = c
        .blocks
        .iter()
        .find(|b| {
            matches!(
                b.end,
                augur_program_profile::compiled::BlockEnd::Table { .. }
            )
        })
        .unwrap_or_else(|| panic!("a block jumps through the table: {:#?}", c.blocks));
    let largest = table.arm_shares.iter().cloned().fold(0.0, f64::max);
    assert!((largest - 0.5).abs() < 0.01, "{:?}", table.arm_shares);
    assert!(
        c.chains
            .iter()
            .chain(c.paths.iter().flat_map(|p| &p.chains))
            .any(|ch| {
                ch.path.first().map(|x| x.class.class)
                    == Some(augur_ir::incore::InstrClass::ForwardExt)
            }),
        "{:#?}",
        c.chains
    );
}

/// An integer dummy argument counted up in a loop at -O0: each access loads the
/// argument's address from the frame again (`movq -40(%rbp), %rax`, `movl (%rax)`), so a
/// core that renames memory by the address registers cannot match its load to the last
/// iteration's store ([`InstrClass::ForwardReloaded`]); the loop's own counter, a frame
/// slot, it can ([`InstrClass::ForwardInt`]).
#[test]
fn an_unoptimized_dummy_argument_is_reached_through_a_reloaded_pointer() {
    let p = analyze(
        "-O0",
        "subroutine count(n, hits)
  implicit none
  integer, intent(in) :: n
  integer, intent(inout) :: hits
  integer :: i
  do i = 1, n
    hits = hits + mod(i, 3)
  end do
end subroutine
program main
  implicit none
  integer :: hits
  hits = 0
  call count(3000000, hits)
  print *, hits
end program
",
    );
    let c = compiled(&p, 6);
    let firsts: Vec<InstrClass> = c
        .chains
        .iter()
        .filter_map(|ch| ch.path.first().map(|x| x.class.class))
        .collect();
    assert!(firsts.contains(&InstrClass::ForwardReloaded), "{c:#?}");
    assert!(firsts.contains(&InstrClass::ForwardInt), "{c:#?}");
}

#[test]
fn a_where_construct_of_several_passes_is_priced_by_its_abops() {
    // gfortran evaluates each mask into a temporary and runs each assignment as a loop
    // of its own over every element, all at the WHERE's line: five compiled loops here,
    // not five versions of one. The mask's line counts the assignments' passes.
    let p = analyze(
        "-O2",
        "program wh
  implicit none
  integer, parameter :: n = 50000
  double precision :: u(n), v(n)
  integer :: i, s
  do i = 1, n
    v(i) = sin(0.37d0 * i)
  end do
  u = 0.0d0
  do s = 1, 20
    where (v > 0.3d0)
      u = u - 0.1d0 * v
    elsewhere (v < -0.3d0)
      u = u + 0.1d0 * v**2
    elsewhere
      u = 0.99d0 * u
    end where
  end do
  print *, u(7)
end program
",
    );
    let r = p.optimization.as_ref().expect("an optimization report");
    assert!(
        r.compiled_loops.iter().all(|c| c.line != 11),
        "{:#?}",
        r.compiled_loops
    );
    assert!(
        r.unmapped_loops
            .iter()
            .any(|u| u.line == 11 && u.reason.contains("WHERE construct")),
        "{:#?}",
        r.unmapped_loops
    );
    let mask = p.lines.iter().find(|l| l.line == 11).expect("line 11");
    let elements = 20.0 * 50000.0;
    // The element loop's overhead of the mask and of the three passes.
    let alov = mask.abops.get(augur_ir::AbOp::ALOV);
    assert!(alov >= 4.0 * elements, "{alov} {:?}", mask.abops);
}

#[test]
fn the_next_statements_loop_at_an_intrinsics_line_is_not_its_version() {
    // gfortran -O2 gives the loop of `count(u > 0)` (line 10) the line of `minval(v)`
    // (line 9), beside minval's own loop and its NaN scan: the loop kept for line 9 is the
    // one that takes the minimum, and count's is another statement's.
    let p = analyze(
        "-O2",
        "program mv
  implicit none
  integer, parameter :: n = 200000
  double precision :: u(n), v(n), mn
  integer :: i, s, cnt
  mn = 1d300; cnt = 0
  do s = 1, 20
    u = sin(0.37d0 * [(i, i = 1, n)] + s); v = cos(0.11d0 * [(i, i = 1, n)] - s)
    mn = min(mn, minval(v))
    cnt = cnt + count(u > 0.0d0)
  end do
  print *, mn, cnt
end program
",
    );
    let c = compiled(&p, 9);
    assert!(
        c.instructions
            .iter()
            .any(|i| i.class.class == InstrClass::FpMinMax),
        "{c:#?}"
    );
    let r = p.optimization.as_ref().expect("an optimization report");
    assert!(
        r.unmapped_loops
            .iter()
            .any(|u| u.line == 9 && u.reason.contains("another statement's loop")),
        "{:#?}",
        r.unmapped_loops
    );
}

#[test]
fn a_straight_line_procedure_is_recorded_as_a_compiled_body() {
    // A 2x2 block operation written out (no loop, jump or call) is recorded on the
    // first line of its code; the procedure with a loop and the main program are not.
    let p = analyze(
        "-O2",
        "subroutine mmsub(a, c, b)
  implicit none
  double precision a(2,2), c(2,2), b(2,2)
  b(1,1) = b(1,1) - a(1,1)*c(1,1) - a(1,2)*c(2,1)
  b(2,1) = b(2,1) - a(2,1)*c(1,1) - a(2,2)*c(2,1)
  b(1,2) = b(1,2) - a(1,1)*c(1,2) - a(1,2)*c(2,2)
  b(2,2) = b(2,2) - a(2,1)*c(1,2) - a(2,2)*c(2,2)
end subroutine
subroutine scale(x, n)
  implicit none
  integer n, i
  double precision x(n)
  do i = 1, n
    x(i) = 0.5d0 * x(i)
  end do
end subroutine
program blocks
  implicit none
  double precision a(2,2,1000), c(2,2), b(2,2)
  integer i
  a = 0.01d0
  c = 1.0d0
  b = 1.0d0
  do i = 1, 1000
    call mmsub(a(1,1,i), c, b)
    call scale(c, 4)
  end do
  print *, b
end program
",
    );
    let r = p.optimization.as_ref().expect("an optimization report");
    let names: Vec<&str> = r
        .compiled_bodies
        .iter()
        .map(|c| c.function.as_str())
        .collect();
    assert_eq!(names, ["mmsub_"], "{:#?}", r.compiled_bodies);
    let body = r.compiled_body("loops.f90", 1, 8).expect("mmsub's body");
    assert!((1..=8).contains(&body.line), "{}", body.line);
    assert!(body.chains.is_empty() && body.source_iterations == 1);
    let multiplies: u32 = body
        .instructions
        .iter()
        .filter(|c| c.class.class == InstrClass::FpMul)
        .map(|c| c.count)
        .sum();
    assert!(multiplies >= 4, "{:#?}", body.instructions);
    assert!(r.compiled_body("loops.f90", 9, 16).is_none());
}
