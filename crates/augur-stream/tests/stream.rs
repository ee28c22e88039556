//! The stream characterizer: generator, counts, fit, and a quick real run with gfortran.

use augur_ir::{AbOp, AbOpCounts};
use augur_stream::{characterize_stream, counts, fit, gen, StreamSettings};
use augur_toolchain::Toolchain;

/// The generator is deterministic and every kernel parses with augur's front end with
/// nonzero counts, a store and the loop overhead.
#[test]
fn generated_kernels_parse_and_count() {
    let a = gen::generate_kernels(90, 11);
    assert_eq!(a, gen::generate_kernels(90, 11));
    assert_ne!(a, gen::generate_kernels(90, 12));
    let src = gen::program(&a);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("augkern.f90");
    std::fs::write(&path, &src.kernels).unwrap();
    let c = counts::kernel_counts(&path, &a, &src.lines);
    let stores = [
        AbOp::SRDL,
        AbOp::SRDG,
        AbOp::SRSL,
        AbOp::SRSG,
        AbOp::SISL,
        AbOp::SISG,
        AbOp::SCDL,
        AbOp::SCDG,
    ];
    let mut seen: std::collections::BTreeSet<AbOp> = Default::default();
    let mut whole_array = 0;
    for (k, c) in a.iter().zip(&c) {
        let c = c.as_ref().unwrap_or_else(|e| panic!("{e}\n{}", k.source));
        // A DO loop's overhead once per element, or a whole-array statement's per-element
        // overhead once per statement.
        let overhead = if k.array_lines.is_some() {
            whole_array += 1;
            assert!(!k.source.contains("do i ="), "{}", k.source);
            AbOp::ALOV
        } else {
            AbOp::LOOV
        };
        assert!(
            c.get(overhead) >= 1.0 && c.get(AbOp::ALIN) == 0.0,
            "{}: {c:?}\n{}",
            k.name(),
            k.source
        );
        let s: f64 = stores.iter().map(|&op| c.get(op)).sum();
        assert!(s > 0.0, "{}: no store: {c:?}\n{}", k.name(), k.source);
        if k.then_fraction.is_some() {
            assert!(c.get(AbOp::GOTO) > 0.0, "{}: {c:?}", k.name());
        }
        seen.extend(c.iter().map(|(op, _)| op));
    }
    for op in [
        AbOp::ARDL,
        AbOp::ARDG,
        AbOp::MRSL,
        AbOp::DRDL,
        AbOp::AISG,
        AbOp::MCDL,
        AbOp::ARR1,
        AbOp::ARR2,
        AbOp::IADD,
        AbOp::SQRD,
        AbOp::EXPD,
        AbOp::MODI,
        AbOp::CVIR,
        AbOp::CRDL,
        AbOp::LOGD,
        AbOp::ATND,
        AbOp::ERDL,
        AbOp::SINS,
    ] {
        assert!(seen.contains(&op), "no kernel has {op}");
    }
    assert!(whole_array >= 10, "{whole_array} whole-array kernels");
    // Half the kernels run to a trip count known only at run time.
    let runtime = a.iter().filter(|k| k.source.contains("augn")).count();
    assert!(
        runtime >= a.len() / 3,
        "{runtime} of {} at run time",
        a.len()
    );
}

fn synthetic(n: usize, truth: &[(AbOp, f64)], seed: u64) -> (Vec<AbOpCounts>, Vec<f64>) {
    let mut rng = gen::Rng::new(seed);
    let mut counts = vec![];
    let mut times = vec![];
    for _ in 0..n {
        let mut c = AbOpCounts::new();
        c.add(truth[0].0, 1.0);
        for &(op, _) in &truth[1..] {
            if rng.chance(0.5) {
                c.add(op, rng.range(1, 4) as f64);
            }
        }
        let t: f64 = truth.iter().map(|&(op, p)| c.get(op) * p).sum();
        counts.push(c);
        times.push(t);
    }
    (counts, times)
}

const TRUTH: [(AbOp, f64); 6] = [
    (AbOp::LOOV, 0.3),
    (AbOp::ARDL, 0.25),
    (AbOp::MRDL, 0.4),
    (AbOp::DRDL, 2.0),
    (AbOp::SRDL, 0.5),
    (AbOp::SQRD, 3.0),
];

/// Noise-free synthetic data: the fit recovers the parameters exactly.
#[test]
fn fit_recovers_known_parameters_exactly() {
    let (counts, times) = synthetic(40, &TRUTH, 3);
    let f = fit::fit(&counts, &times, 4).unwrap();
    assert_eq!(f.columns.len(), TRUTH.len());
    for &(op, p) in &TRUTH {
        let j = f.columns.iter().position(|&c| c == op).unwrap();
        assert!(
            (f.params[j] - p).abs() < 1e-9,
            "{op}: {} vs {p}",
            f.params[j]
        );
    }
    assert!(f.r2 > 0.999_999);
    assert!(f.loo_p90 < 1e-9);
}

/// With 5% multiplicative noise, the fit is within a few standard errors and the
/// 90% intervals mostly cover the truth.
#[test]
fn fit_with_noise_is_within_tolerance() {
    let (counts, mut times) = synthetic(80, &TRUTH, 5);
    let mut rng = gen::Rng::new(99);
    for t in &mut times {
        // Uniform noise of +-5% (sd about 2.9%).
        *t *= 1.0 + 0.1 * (rng.unit() - 0.5);
    }
    let f = fit::fit(&counts, &times, 4).unwrap();
    let mut covered = 0;
    for &(op, p) in &TRUTH {
        let j = f.columns.iter().position(|&c| c == op).unwrap();
        assert!(
            (f.params[j] - p).abs() <= 0.15 * p + 4.0 * f.se[j],
            "{op}: {} +- {} vs {p}",
            f.params[j],
            f.se[j]
        );
        if (f.params[j] - p).abs() <= f.ci90[j] {
            covered += 1;
        }
    }
    assert!(
        covered >= 4,
        "only {covered} of 6 intervals cover the truth"
    );
    assert!(f.loo_median < 0.05, "{}", f.loo_median);
}

/// A prior draws a cost towards it by one pseudo-observation: a prior that agrees
/// with noise-free data changes nothing, and a wrong one moves a cost that 40 kernels
/// determine only a little (and towards it).
#[test]
fn prior_moves_well_determined_costs_little() {
    let (counts, times) = synthetic(40, &TRUTH, 3);
    let agree = fit::fit_with_prior(&counts, &times, 4, &|op| {
        TRUTH.iter().find(|t| t.0 == op).map(|t| t.1)
    })
    .unwrap();
    let wrong =
        fit::fit_with_prior(&counts, &times, 4, &|op| (op == AbOp::DRDL).then_some(20.0)).unwrap();
    for &(op, p) in &TRUTH {
        let j = agree.columns.iter().position(|&c| c == op).unwrap();
        assert!(
            (agree.params[j] - p).abs() < 1e-6,
            "{op}: {}",
            agree.params[j]
        );
    }
    let j = wrong.columns.iter().position(|&c| c == AbOp::DRDL).unwrap();
    let d = wrong.params[j];
    assert!(d > 2.0 && d < 2.0 * 1.1, "DRDL {d} (truth 2.0, prior 20)");
}

/// Collinear and rare AbOps get no parameter.
#[test]
fn fit_leaves_out_collinear_and_rare() {
    let (mut counts, times) = synthetic(30, &TRUTH, 8);
    for c in &mut counts {
        // ABSD always twice SQRD: collinear.
        let s = c.get(AbOp::SQRD);
        c.add(AbOp::ABSD, 2.0 * s);
    }
    counts[0].add(AbOp::EXPD, 1.0);
    let f = fit::fit(&counts, &times, 4).unwrap();
    assert!(!f.columns.contains(&AbOp::EXPD));
    assert!(f.dropped.iter().any(|(k, _)| *k == 0));
    assert_eq!(
        f.columns.contains(&AbOp::SQRD) as u32 + f.columns.contains(&AbOp::ABSD) as u32,
        1
    );
    assert!(f
        .unfitted
        .iter()
        .any(|(op, _)| *op == AbOp::ABSD || *op == AbOp::SQRD));
}

/// Each library call's own kernels (to a known trip count and to one known at run time)
/// count exactly one execution of its AbOp per element, beside a store, the loop and
/// the addresses: its time less those is the call's cost.
#[test]
fn call_kernels_count_one_call_each() {
    let k = gen::call_kernels(5);
    assert_eq!(k.len(), 2 * gen::CALLS.len());
    assert_eq!(k[0].id, 5);
    let n = gen::CALLS.len();
    assert!(k[..n].iter().all(|k| !k.source.contains("augn")));
    assert!(k[n..].iter().all(|k| k.source.contains("do i = 1, augn")));
    let src = gen::program(&k);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("augkern.f90");
    std::fs::write(&path, &src.kernels).unwrap();
    let counts = counts::kernel_counts(&path, &k, &src.lines);
    for ((kernel, c), call) in k.iter().zip(&counts).zip(gen::CALLS.iter().cycle()) {
        let c = c
            .as_ref()
            .unwrap_or_else(|e| panic!("{e}\n{}", kernel.source));
        let op = AbOp::from_mnemonic(call.3).unwrap();
        assert_eq!(
            c.get(op),
            1.0,
            "{}: {c:?}\n{}",
            kernel.name(),
            kernel.source
        );
        assert_eq!(c.get(AbOp::LOOV), 1.0, "{c:?}");
        let others: Vec<_> = c
            .iter()
            .filter(|(o, _)| *o != op && !matches!(*o, AbOp::LOOV | AbOp::ARR1))
            .collect();
        assert_eq!(others.len(), 1, "one store beside the call: {others:?}");
    }
}

/// Each divider kernel counts one execution of its operation per element, beside a
/// store, the loop and the addresses, and runs to a count known at run time.
#[test]
fn divider_kernels_count_two_operations_each() {
    let k = gen::divider_kernels(3);
    assert_eq!(k.len(), gen::DIVIDERS.len());
    let src = gen::program(&k);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("augkern.f90");
    std::fs::write(&path, &src.kernels).unwrap();
    let counts = counts::kernel_counts(&path, &k, &src.lines);
    for ((kernel, c), d) in k.iter().zip(&counts).zip(gen::DIVIDERS.iter()) {
        let c = c
            .as_ref()
            .unwrap_or_else(|e| panic!("{e}\n{}", kernel.source));
        let op = AbOp::from_mnemonic(d.2).unwrap();
        assert_eq!(c.get(op), 1.0, "{c:?}\n{}", kernel.source);
        assert!(
            kernel.source.contains("do i = 1, augn"),
            "{}",
            kernel.source
        );
        assert_eq!(c.get(AbOp::LOOV), 1.0, "{c:?}");
    }
}

/// A quick real run with gfortran -O2 (all 90 kernels, 3 observations of 3 ms, a few
/// seconds): finite positive kernel times and a model that reproduces them.
#[test]
fn quick_run_with_gfortran() {
    let tc = Toolchain::detect("gfortran", "-O2")
        .unwrap_or_else(|e| panic!("this test needs gfortran (scripts/setup.sh installs it): {e}"));
    let settings = StreamSettings {
        window_ms: 3.0,
        observations: 3,
        kernels: 90,
        ..StreamSettings::default()
    };
    let mut lines = vec![];
    let r = characterize_stream(&tc, settings, &mut |s| lines.push(s.to_string())).unwrap();
    let timed: Vec<_> = r.kernels.iter().filter(|k| k.observations > 0).collect();
    assert!(timed.len() >= 80, "{:?}", r.notes);
    for k in &timed {
        assert!(k.measured_ns.is_finite() && k.measured_ns > 0.0, "{k:?}");
    }
    assert!(!r.entries.is_empty());
    for e in r.entries.values() {
        assert!(e.mean_ns.unwrap() >= 0.0);
        assert!(e.context.contains("stream context"));
    }
    // The complex library calls (not vectorized by gfortran) are measured directly: a
    // `cexp` in a loop costs nanoseconds, never the near-zero a least squares can give.
    for op in [AbOp::EXPC, AbOp::ABSC] {
        let e = r
            .entries
            .get(&op)
            .unwrap_or_else(|| panic!("no direct {op}: {:?}", r.notes));
        assert!(e.context.contains("direct"), "{}", e.context);
        let ns = e.mean_ns.unwrap();
        assert!((0.5..200.0).contains(&ns), "{op} {ns} ns");
    }
    // The divider's occupancies, measured directly: a scalar divide holds it for some
    // cycles (1.3 ns on a Zen 4), a square root longer than a divide; an integer divide
    // or remainder by a value read at run time holds the integer divider (1.7 ns).
    for op in [
        AbOp::DRDL,
        AbOp::SQRD,
        AbOp::DRSL,
        AbOp::SQRS,
        AbOp::DISL,
        AbOp::MODI,
    ] {
        let e = r
            .divider_entries
            .get(&op)
            .unwrap_or_else(|| panic!("no divider {op}: {:?}", r.notes));
        let ns = e.mean_ns.unwrap();
        assert!((0.2..20.0).contains(&ns), "{op} {ns} ns");
    }
    // In-sample: the median kernel within 30% (a linear model of a superscalar CPU, short
    // observations on a possibly busy machine; the default run reaches about 15%).
    assert!(r.stats.fit_median < 0.30, "{:?}", r.stats);
    // Most fitted kernels within 50%. (Not R²: on absolute times it is decided by the few
    // longest kernels, and one disturbed observation of one of them drove it to 0.15 in a
    // CI run while the median error was 13%.)
    let fitted: Vec<_> = timed.iter().filter(|k| k.fitted_ns.is_finite()).collect();
    let close = fitted
        .iter()
        .filter(|k| (k.fitted_ns - k.measured_ns).abs() <= 0.5 * k.measured_ns)
        .count();
    assert!(
        close * 10 >= fitted.len() * 7,
        "{close} of {} fitted kernels within 50%: {:?}",
        fitted.len(),
        r.stats
    );
}

/// Two costs that always come together in the kernels (ARDL and MRDL in the same
/// kernels, in equal numbers but for a few) are told apart poorly: the fit says so by a
/// strongly negative correlation, while independent ones are nearly uncorrelated.
#[test]
fn costs_the_kernels_cannot_tell_apart_are_negatively_correlated() {
    let (mut counts, mut times) = synthetic(60, &TRUTH, 7);
    let mut rng = gen::Rng::new(5);
    for (c, t) in counts.iter_mut().zip(times.iter_mut()) {
        let a = c.get(AbOp::ARDL);
        let extra = if rng.chance(0.1) { 1.0 } else { 0.0 };
        let m = a + extra;
        *t += (m - c.get(AbOp::MRDL)) * 0.4;
        c.add(AbOp::MRDL, m - c.get(AbOp::MRDL));
        *t *= 1.0 + 0.1 * (rng.unit() - 0.5);
    }
    let f = fit::fit(&counts, &times, 4).unwrap();
    let at = |op: AbOp| f.columns.iter().position(|&c| c == op).unwrap();
    let r = |a: AbOp, b: AbOp| f.correlation[at(a)][at(b)];
    assert!(
        r(AbOp::ARDL, AbOp::MRDL) < -0.8,
        "{}",
        r(AbOp::ARDL, AbOp::MRDL)
    );
    assert!((r(AbOp::ARDL, AbOp::ARDL) - 1.0).abs() < 1e-9);
    assert!(
        r(AbOp::DRDL, AbOp::SQRD).abs() < 0.5,
        "{}",
        r(AbOp::DRDL, AbOp::SQRD)
    );
}
