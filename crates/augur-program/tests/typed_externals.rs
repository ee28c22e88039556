//! An external function whose type the calling unit declares (`real(8) ggl`, no
//! EXTERNAL), called in a loop whose counters augur would keep in a BLOCK: gfortran 12
//! refuses the reference inside a BLOCK, so the instrumented copy must not put one
//! there. Seen in a real FFT program (`burkardt_fft_serial` of bench/real).
//!
//! Needs gfortran and gcc; without them it fails saying so.

use augur_program::AnalyzeOptions;
use augur_toolchain::Toolchain;

const SOURCE: &str = "program t
  implicit none
  real(8) ggl, s, seed
  integer i
  seed = 1.0d0
  s = 0.0d0
  do i = 1, 100
    if (mod(i, 3) == 0) then
      s = s + ggl(seed)
    else
      s = s - 1.0d-3
    end if
  end do
  print '(f12.6)', s
end program t

function ggl(seed)
  implicit none
  real(8) ggl, seed
  seed = mod(16807.0d0 * seed, 2147483647.0d0)
  ggl = seed / 2147483647.0d0
end function ggl
";

#[test]
fn typed_external_functions_in_counted_loops_compile() {
    let tc = Toolchain::detect("gfortran", "-O2")
        .unwrap_or_else(|e| panic!("this test needs gfortran and gcc: {e}"));
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("t.f90");
    std::fs::write(&src, SOURCE).unwrap();
    let opts = AnalyzeOptions::new(tc, dir.path());
    let analysis = augur_program::analyze(std::slice::from_ref(&src), &opts)
        .unwrap_or_else(|e| panic!("the instrumented copy must compile and run: {e}"));
    let printed = String::from_utf8_lossy(&analysis.run.stdout);
    assert!(printed.trim().parse::<f64>().is_ok(), "{printed}");
    let calls: f64 = analysis
        .profile
        .units
        .iter()
        .filter(|u| u.name == "ggl")
        .map(|u| u.blocks.first().and_then(|b| b.executions).unwrap_or(0.0))
        .sum();
    assert_eq!(calls, 33.0, "ggl runs once every third iteration");
}
