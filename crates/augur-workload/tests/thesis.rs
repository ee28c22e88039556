//! The thesis's worked numbers that can be recomputed from numbers it also prints
//! (Saavedra-Barrera 1992, chapter 3), from fixtures transcribed by
//! `scripts/saavedra-ch3-tables.py`. Each mismatch is asserted as it is, with its
//! explanation.

use augur_workload::concentration::{
    concentration, geometric_fit, mean_cumulative, ordered_fractions, skewness, ABOP_BANDS,
};
use augur_workload::ranking::{geometric_mean, spearman};
use augur_workload::similarity::time_similarity;
use std::collections::BTreeMap;

fn fixture(name: &str) -> Vec<Vec<String>> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// Appendix 3.A: per program, its printed fractions (`< 0.0001` as 0) and the
/// half-width of each one's rounding interval.
fn distributions() -> BTreeMap<String, Vec<(f64, f64)>> {
    let mut out: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for row in fixture("saavedra-appendix-3a.tsv") {
        let v = &row[3];
        let cell = if v.starts_with('<') {
            (0.0, 1e-4)
        } else {
            (v.parse::<f64>().unwrap(), 5e-5)
        };
        out.entry(row[0].clone()).or_default().push(cell);
    }
    out
}

/// Table 3.9 (skewness of the ordered AbOp distributions) recomputed from Appendix 3.A.
/// The tolerance is what the printed precision allows: each fraction is rounded to
/// 0.0001, which moves the mean rank E by up to Σ k·h_k and the index by that over E².
#[test]
fn table_3_9_abop_skewness_from_appendix_3a() {
    let printed = [
        ("MATRIX300", 0.405),
        ("ALAMOS", 0.400),
        ("ERAS", 0.367),
        ("SHELL", 0.353),
        ("TOMCATV", 0.341),
        ("TRFD", 0.325),
        ("FPPPP", 0.315),
        ("DYFESM", 0.296),
        ("ARC2D", 0.286),
        ("BASKETT", 0.263),
        ("MDG", 0.256),
        ("MG3D", 0.255),
        ("BDNA", 0.251),
        ("GREYCODE", 0.248),
        ("FLO52", 0.243),
        ("OCEAN", 0.217),
        ("SPEC77", 0.215),
        ("LIVER", 0.213),
        ("ADM", 0.210),
        ("QCD", 0.200),
        ("TRACK", 0.180),
    ];
    let d = distributions();
    for (program, want) in printed {
        let cells = &d[program];
        let values: Vec<f64> = cells.iter().map(|c| c.0).collect();
        let got = skewness(&ordered_fractions(&values));
        let mut widths: Vec<f64> = cells
            .iter()
            .filter(|c| c.0 > 0.0 || c.1 > 5e-5)
            .map(|c| c.1)
            .collect();
        widths.sort_by(f64::total_cmp);
        let mean_rank = 1.0 / got;
        let shift: f64 = widths
            .iter()
            .enumerate()
            .map(|(k, h)| (k + 1) as f64 * h)
            .sum();
        let tolerance = shift / (mean_rank * mean_rank) + 0.0005;
        assert!(
            (got - want).abs() <= tolerance,
            "{program}: {got:.4}, printed {want} (tolerance {tolerance:.4})"
        );
    }
    // Two columns do not reproduce: LINPACK gives 0.315 (printed 0.309) and DODUC 0.144
    // (printed 0.139), beyond the printed precision although both columns sum to 1.000.
    // The thesis may have computed table 3.9 from runs other than those of Appendix 3.A;
    // nothing printed tells.
    for (program, printed, recomputed) in [("LINPACK", 0.309, 0.315), ("DODUC", 0.139, 0.144)] {
        let values: Vec<f64> = d[program].iter().map(|c| c.0).collect();
        let got = skewness(&ordered_fractions(&values));
        assert!((got - recomputed).abs() < 0.0015, "{program}: {got}");
        assert!(
            (got - printed).abs() > 0.004,
            "{program} now reproduces: {got}"
        );
    }
}

/// Table 3.35's times: `(machine, program) -> (real, predicted)`.
fn times() -> BTreeMap<(String, String), (Option<f64>, Option<f64>)> {
    let num = |s: &String| s.parse::<f64>().ok();
    fixture("saavedra-table-3-35.tsv")
        .into_iter()
        .map(|r| ((r[0].clone(), r[1].clone()), (num(&r[2]), num(&r[3]))))
        .collect()
}

const PROGRAMS: [&str; 9] = [
    "ALAMOS",
    "BASKETT",
    "ERATHOSTENES",
    "LINPACK",
    "LIVERMORE",
    "MANDELBROT",
    "SHELL",
    "SMITH",
    "WHETSTONE",
];

/// A machine's geometric means of table 3.35's times normalized by the VAX-11/780:
/// real over real, predicted over predicted, over the programs it has a real time for.
fn normalized_means(machine: &str) -> (f64, f64) {
    let t = times();
    let get = |m: &str, p: &str| t[&(m.to_string(), p.to_string())];
    let (mut real, mut pred) = (vec![], vec![]);
    for p in PROGRAMS {
        let (vax_real, vax_pred) = get("VAX-11/780", p);
        if let (Some(r), Some(q)) = get(machine, p) {
            real.push(vax_real.unwrap() / r);
            pred.push(vax_pred.unwrap() / q);
        }
    }
    let ones = vec![1.0; real.len()];
    (
        geometric_mean(&real, &ones).unwrap(),
        geometric_mean(&pred, &ones).unwrap(),
    )
}

/// Table 3.14 (geometric means of VAX-11/780-normalized results) recomputed from table
/// 3.35. For the Motorola 88k both printed numbers reproduce; for seven machines they
/// reproduce with the rows "actual mean" and "prediction" exchanged (the printed
/// difference, e.g. +0.69% for the X-MP, is then the sign it should have for the
/// exchanged rows only on the X-MP: the table mixes both readings). The RS/6000, the
/// MIPS M/2000 and the Sparcstation reproduce only one of their two numbers: they ran the
/// SPEC and Perfect programs too, with no VAX-11/780 time printed to normalize by, so the
/// other mean must include programs table 3.35 does not hold.
#[test]
fn table_3_14_geometric_means_from_table_3_35() {
    let cases = [
        // (machine, printed actual, printed prediction, exchanged)
        ("Motorola M88k", 14.24, 15.34, false),
        ("CRAY X-MP/48", 26.25, 26.07, true),
        ("IBM 3090/200", 33.79, 32.27, true),
        ("Amdahl 5840", 6.47, 6.71, true),
        ("Convex C-1", 7.36, 6.99, true),
        ("VAX 8600", 5.87, 5.63, true),
        ("VAX-11/785", 2.01, 2.12, true),
        ("Sun 3/50", 0.69, 0.72, true),
    ];
    let close = |a: f64, b: f64| (a - b).abs() <= 0.011;
    for (machine, actual, predicted, exchanged) in cases {
        let (real, pred) = normalized_means(machine);
        let (want_real, want_pred) = if exchanged {
            (predicted, actual)
        } else {
            (actual, predicted)
        };
        assert!(
            close(real, want_real) && close(pred, want_pred),
            "{machine}: {real:.2} / {pred:.2}"
        );
    }
    // One of two: the RS/6000's and the Sparcstation's actual means, the M/2000's
    // prediction (13.715 from the printed times: within 0.02 of 13.70).
    assert!(close(normalized_means("IBM RS/6000 530").0, 16.29));
    assert!(close(normalized_means("Sparstation I").0, 11.13));
    assert!((normalized_means("MIPS M/2000").1 - 13.70).abs() < 0.02);
    // The "Average" column is the arithmetic mean of the 12 machines' printed means.
    let actual = [
        26.25, 33.79, 6.47, 7.36, 16.29, 11.13, 14.24, 13.88, 9.01, 5.87, 2.01, 0.69,
    ];
    let prediction = [
        26.07, 32.27, 6.71, 6.99, 15.69, 10.58, 15.34, 13.70, 8.43, 5.63, 2.12, 0.72,
    ];
    let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len() as f64;
    assert!(close(mean(&actual), 12.25) && close(mean(&prediction), 12.02));
}

/// The machines' real times of one program, in table 3.35's machine order.
fn column(program: &str) -> Vec<Option<f64>> {
    let t = times();
    let mut machines: Vec<&String> = vec![];
    for (m, _) in t.keys() {
        if !machines.contains(&m) {
            machines.push(m);
        }
    }
    machines
        .iter()
        .map(|m| t[&((*m).clone(), program.to_string())].0)
        .collect()
}

/// Table 3.15 (execution-time similarity) recomputed from table 3.35's real times. The
/// printed numbers are the coefficient of variation of z = t_A/t_B divided by √n (the
/// relative standard error of its mean), not the coefficient of variation itself: for
/// ALAMOS-LINPACK the coefficient of variation is 0.133 over 11 machines, and
/// 0.133/√11 = 0.0400 as printed.
#[test]
fn table_3_15_time_similarity_from_table_3_35() {
    // (program, program, printed, recomputed where it differs). The pairs with SHELL are
    // 1-5% off: one of SHELL's printed times presumably differs from the one used for
    // table 3.15.
    let pairs = [
        ("ALAMOS", "LINPACK", 0.0400, None),
        ("ALAMOS", "LIVERMORE", 0.0608, None),
        ("LINPACK", "LIVERMORE", 0.0615, None),
        ("BASKETT", "SMITH", 0.0544, None),
        ("ERATHOSTENES", "SMITH", 0.0684, None),
        ("BASKETT", "ERATHOSTENES", 0.0739, None),
        ("ALAMOS", "MANDELBROT", 0.2634, None),
        ("BASKETT", "MANDELBROT", 0.2578, None),
        ("LIVERMORE", "MANDELBROT", 0.2559, None),
        ("LIVERMORE", "SMITH", 0.3832, None),
        ("MANDELBROT", "SMITH", 0.4239, None),
        ("ALAMOS", "ERATHOSTENES", 0.4480, None),
        ("ERATHOSTENES", "SHELL", 0.0577, Some(0.0595)),
        ("SHELL", "SMITH", 0.0699, Some(0.0736)),
        ("ALAMOS", "SHELL", 0.4371, Some(0.4380)),
    ];
    for (a, b, printed, differs) in pairs {
        let got = time_similarity(&column(a), &column(b)).unwrap();
        let want = differs.unwrap_or(printed);
        assert!(
            (got - want).abs() <= 0.0001,
            "{a}-{b}: {got:.4}, printed {printed}"
        );
        assert_eq!((got - printed).abs() > 0.0005, differs.is_some(), "{a}-{b}");
    }
}

/// §3.6.6 says ALAMOS, LINPACK and LIVERMORE "rate the machines in a similar way" and
/// gives one permutation for all three. From table 3.35's real times, over the 11
/// machines where both ran, ALAMOS and LINPACK order the machines alike but for the
/// RS/6000 and the MIPS M/2000, which exchange places (ranks 2 and 4): Σd² = 8,
/// ρ = 1 − 6·8/(11³ − 11) = 0.9636.
#[test]
fn spearman_of_alamos_and_linpack_machine_rankings() {
    let (a, b) = (column("ALAMOS"), column("LINPACK"));
    let both: Vec<(f64, f64)> = a
        .iter()
        .zip(&b)
        .filter_map(|(x, y)| Some(((*x)?, (*y)?)))
        .collect();
    assert_eq!(both.len(), 11);
    let (x, y): (Vec<f64>, Vec<f64>) = both.into_iter().unzip();
    let rho = spearman(&x, &y).unwrap();
    assert!((rho - (1.0 - 48.0 / 1320.0)).abs() < 1e-12, "{rho}");
}

/// Table 3.11's names as Appendix 3.A's columns spell them.
fn column_name(printed: &str) -> String {
    match printed {
        "Erathostenes" => "ERAS".to_string(),
        "Livermore" => "LIVER".to_string(),
        "Mandelbrot" => "MAND".to_string(),
        "Whetstone" => "WHETS".to_string(),
        "ARC2" => "ARC2D".to_string(),
        other => other.to_uppercase(),
    }
}

/// Equation 3.5 on the thesis's own distributions (Appendix 3.A, the 23 programs of
/// table 3.11 whose columns transcribe cleanly; each printed AbOp code is the catalogue's
/// for the reduced parameters, codes 80-109 being intrinsics either way). The thesis does
/// not list which AbOps form each parameter, and its average runs over 28 programs, so
/// its distances cannot be reproduced exactly: the normalized form gives the printed
/// magnitudes (TRFD-MATRIX300 0.014 against 0.0172, the mean over all pairs 1.85 against
/// 1.20) and orders the printed pairs alike (Spearman 0.84 over the 30 pairs computable).
#[test]
fn table_3_11_distances_from_appendix_3a() {
    use augur_ir::{AbOp, AbOpCounts};
    use augur_workload::characterize::reduced_parameters;
    use augur_workload::similarity::{average, distance};
    let mut counts: BTreeMap<String, AbOpCounts> = BTreeMap::new();
    for row in fixture("saavedra-appendix-3a.tsv") {
        let code: usize = row[1].parse().unwrap();
        let value = row[3].parse::<f64>().unwrap_or(0.0);
        let op = AbOp::from_index(code - 1).unwrap();
        counts.entry(row[0].clone()).or_default().add(op, value);
    }
    counts.remove("LOOPS"); // the Livermore kernels alone: not one of the 28.
    let names: Vec<String> = counts.keys().cloned().collect();
    assert_eq!(names.len(), 23);
    let vectors: Vec<Vec<f64>> = counts
        .values()
        .map(|c| reduced_parameters(c).0.iter().map(|r| r.1).collect())
        .collect();
    let w = average(&vectors);
    let d = |a: &str, b: &str| {
        let i = names.iter().position(|n| n == a).unwrap();
        let j = names.iter().position(|n| n == b).unwrap();
        distance(&vectors[i], &vectors[j], &w)
    };
    assert!((d("TRFD", "MATRIX300") - 0.0142).abs() < 0.0005);
    let mut all = vec![];
    for i in 0..names.len() {
        for j in i + 1..names.len() {
            all.push(d(&names[i], &names[j]));
        }
    }
    let mean = all.iter().sum::<f64>() / all.len() as f64;
    assert!((mean - 1.85).abs() < 0.01, "{mean}");
    let (mut ours, mut printed) = (vec![], vec![]);
    for row in fixture("saavedra-table-3-11.tsv") {
        let (a, b) = (column_name(&row[1]), column_name(&row[2]));
        if counts.contains_key(&a) && counts.contains_key(&b) {
            ours.push(d(&a, &b));
            printed.push(row[3].parse::<f64>().unwrap());
        }
    }
    assert_eq!(ours.len(), 30);
    let rho = spearman(&ours, &printed).unwrap();
    assert!((rho - 0.84).abs() < 0.01, "{rho}");
}

/// The average cumulative AbOp distribution of `programs` from Appendix 3.A (figure 3.10).
fn average_curve(d: &BTreeMap<String, Vec<(f64, f64)>>, programs: &[&str]) -> Vec<f64> {
    let curves: Vec<Vec<f64>> = programs
        .iter()
        .map(|p| {
            let values: Vec<f64> = d[*p].iter().map(|c| c.0).collect();
            concentration(&values, values.len(), ABOP_BANDS).cumulative
        })
        .collect();
    let slices: Vec<&[f64]> = curves.iter().map(Vec::as_slice).collect();
    mean_cumulative(&slices)
}

/// Figure 3.10 (§3.5.8.1) from Appendix 3.A: "on the average, three operations account
/// for 55-60% of all operations and five operations for almost 75%", and the geometric
/// law `1 - K(1 - α)^n` fits each average with a significant correlation.
#[test]
fn figure_3_10_geometric_law_from_appendix_3a() {
    let d = distributions();
    let all: Vec<&str> = d.keys().map(String::as_str).collect();
    // The Perfect Club's 12 programs that transcribe (its SPICE model does not).
    let perfect = [
        "ADM", "ARC2D", "BDNA", "DYFESM", "FLO52", "MDG", "MG3D", "OCEAN", "QCD", "SPEC77",
        "TRACK", "TRFD",
    ];
    for programs in [&all[..], &perfect[..]] {
        let f = average_curve(&d, programs);
        assert!((0.55..=0.60).contains(&f[2]), "top 3: {}", f[2]);
        let fit = geometric_fit(&f).unwrap();
        // Critical |r| at the .9995 level is below 0.6 for 20 or more degrees of freedom.
        assert!(
            fit.correlation < -0.99 && fit.degrees_of_freedom >= 20,
            "{fit:?}"
        );
        assert!((0.15..0.25).contains(&fit.alpha), "{fit:?}");
    }
    // Five operations: 75.4% for the Perfect Club, "almost 75%"; 79.1% over the 24
    // programs that transcribe. The thesis's average also counts five columns the text
    // garbles (NASA7, SPICE2G6's PERFECT model, MAND, SMITH, WHETS); nothing printed
    // tells how they move it.
    assert!((0.75..0.76).contains(&average_curve(&d, &perfect)[4]));
    assert!((0.785..0.795).contains(&average_curve(&d, &all)[4]));
}
