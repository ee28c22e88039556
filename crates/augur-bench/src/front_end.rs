//! `augur bench front-end`: throughput and peak memory of the front end.

use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

/// A generated Fortran unit of about 40 lines exercising the
/// common statement kinds (declarations, loops, IFs, calls, COMMON, intrinsics).
fn generated_unit(i: usize, out: &mut String) {
    let _ = write!(
        out,
        r#"subroutine gen{i}(a, b, n, m)
  implicit none
  integer, intent(in) :: n, m
  real(8), intent(inout) :: a(n, m), b(n)
  real(8) :: s, t
  integer :: i, j, k
  common /gcom{i}/ t
  s = 0.0d0
  do j = 1, m
    do i = 2, n - 1
      a(i, j) = a(i - 1, j) * 0.5d0 + b(i + 1) * 0.25d0 + sqrt(abs(a(i, j)))
      if (a(i, j) > 1.0d3) then
        a(i, j) = a(i, j) / 2.0d0
      else if (a(i, j) < -1.0d3) then
        a(i, j) = -a(i, j)
      else
        s = s + a(i, j) * t
      end if
    end do
  end do
  k = 0
  do while (k < n .and. s > 0.0d0)
    k = k + 1
    s = s - exp(-real(k, 8))
    if (mod(k, 7) == 0) cycle
    b(k) = max(b(k), s)
  end do
  select case (m)
  case (1)
    call helper{i}(a, n)
  case (2:4)
    b(1:n) = b(1:n) + 1.0d0
  case default
    t = sum(b) / n
  end select
  write (*, '(a, f10.3)') 'checksum ', s + t
end subroutine gen{i}

"#
    );
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

/// Runs the benchmark and prints its table.
pub fn run(lines: usize, from: &[PathBuf], repeat: usize) -> Result<()> {
    let dir = augur_toolchain::interrupt::temp_dir(".tmp")
        .context("cannot create a temporary directory")?;
    let mut text = String::new();
    let (name, path) = if from.is_empty() {
        let (mut i, mut n) = (0, 0);
        while n < lines {
            let before = text.len();
            generated_unit(i, &mut text);
            n += text[before..].lines().count();
            i += 1;
        }
        (
            "generated free-form units",
            dir.path().join("generated.f90"),
        )
    } else {
        // Replicate the given sources (all of one source form; units may repeat).
        let mut parts = vec![];
        for f in from {
            parts.push(
                std::fs::read_to_string(f)
                    .with_context(|| format!("cannot read {}", f.display()))?,
            );
        }
        let part_lines: usize = parts.iter().map(|p| p.lines().count() + 1).sum();
        let mut n = 0;
        while n < lines {
            for p in &parts {
                text.push_str(p);
                text.push('\n');
            }
            n += part_lines.max(1);
        }
        // The replicated file takes the extension (and so the source form) of the first input.
        let ext = from[0]
            .extension()
            .map(|e| e.to_string_lossy().to_string())
            .unwrap_or_else(|| "f90".into());
        (
            "replicated sources",
            dir.path().join(format!("replicated.{ext}")),
        )
    };
    std::fs::write(&path, &text)?;
    let n_lines = text.lines().count();
    drop(text);
    let rss_before = peak_rss_kib();
    let mut best = f64::INFINITY;
    let mut stmts = 0;
    let mut lowered = 0;
    let mut blocks = 0;
    for _ in 0..repeat {
        let t = Instant::now();
        let program = augur_fortran::analyze(std::slice::from_ref(&path), &Default::default());
        let dt = t.elapsed().as_secs_f64();
        best = best.min(dt);
        stmts = program.coverage.statements;
        lowered = program.coverage.lowered;
        blocks = program.units.iter().map(|u| u.blocks.len()).sum::<usize>();
        drop(program);
    }
    let peak = peak_rss_kib();
    println!("augur front-end benchmark ({name}, one core)");
    println!("{:<28} {:>14}", "input lines", n_lines);
    println!(
        "{:<28} {:>14}",
        "statements seen / lowered",
        format!("{stmts} / {lowered}")
    );
    println!("{:<28} {:>14}", "basic blocks", blocks);
    println!("{:<28} {:>14.3}", "best time of runs (s)", best);
    println!(
        "{:<28} {:>14.0}",
        "throughput (lines/s)",
        n_lines as f64 / best
    );
    if let (Some(b), Some(p)) = (rss_before, peak) {
        println!("{:<28} {:>14.1}", "peak memory (MB)", p as f64 / 1024.0);
        println!(
            "{:<28} {:>14.1}",
            "  of which before analysis",
            b as f64 / 1024.0
        );
    }
    println!("{:<28} {:>14}", "targets", ">= 50000 lines/s, < 200 MB");
    Ok(())
}
