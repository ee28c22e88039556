//! What the end-to-end tests of the optimization features share: the binary, the
//! repository, a successful command's output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `augur` binary under test.
pub fn augur() -> Command {
    Command::new(env!("CARGO_BIN_EXE_augur"))
}

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The standard output of a command that must have succeeded (its error output shown
/// when it did not).
pub fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// A program with a hoistable invariant (`(s / t)` and `sqrt(t)` in the loop at line 10,
/// unit `risky`, loop 2) and a nest walking rows (the loop at line 15 inside line 14).
pub const PROGRAM: &str = "\
program risky
  implicit none
  integer, parameter :: n = 300
  real(8) :: a(n, n), b(n, n), x(n), s, t
  integer :: i, j, k
  call random_number(b)
  call random_number(s)
  t = 1.0d0 + s
  do k = 1, 20
    do i = 1, n
      x(i) = b(i, k) * (s / t) + sqrt(t)
    end do
  end do
  do i = 1, n
    do j = 1, n
      a(i, j) = b(i, j) * 2.0d0
    end do
  end do
  print *, sum(x), sum(a)
end program risky
";
