//! The historical profiles (`machines/historical/`) against the numbers the thesis
//! publishes from them: Appendix 2.C's reduced parameters, Table 2.6's distances and
//! Table 4.2's reduced parameters of the optimized machines.
//!
//! **Precision.** Tables 2.10-2.14 print whole nanoseconds (the true mean lies within
//! ±0.5 ns; a `1<` within [0, 1) ns), so a reduced parameter computed from them is known
//! to within Σ wᵢ·0.5 ns; Appendix 2.C prints 1 decimal or whole ns (values of seven
//! digits to 6 significant figures: 1372598.9 is printed 1372600). A value is reproduced
//! when the two intervals meet. For a distance the same bounds propagate exactly: the
//! centred log-ratio vector moves by at most the norm of the per-parameter log
//! uncertainties, so |Δd| ≤ sqrt(Σ(εₓ+ε_y)²/(n−1)), plus half a unit of the printed third
//! decimal. Nothing else is tolerated: every value outside is listed below with its
//! reason, and a listed value that is reproduced fails the test (the list stays exact).

use augur_ir::AbOp;
use augur_machine_profile::{MachineProfile, MEASURED};
use augur_pershape::reduced::{reduce_one, ReducedParameter, PARAMETERS};
use augur_pershape::thesis::{self, PublishedDistance, PublishedReduced};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../machines/historical")
}

fn profiles() -> BTreeMap<String, MachineProfile> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir()).expect("machines/historical exists") {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            let name = p.file_stem().unwrap().to_str().unwrap().to_string();
            out.insert(name, MachineProfile::read(&p).expect("a valid profile"));
        }
    }
    out
}

/// Why Appendix 2.C's VAX-11/780 and VAX-11/785 (f77) rows are not Table 2.B's.
const OTHER_RUN: &str = "the appendix row comes from another characterization than Tables 2.10-2.14: all 17 parameters differ (−10% to +7%, both signs, e.g. memory bandwidth 990.8 printed against 888.0 from the tables for the 11/780), so no typo explains it; parameter 15's row is labelled `Vax-780.f77`";
/// Why parameters 9 and 10 are not reproduced.
const COMPLEX_DOUBLE_WEIGHTS: &str = "Table 2.5's weights (.325 .125 .040 .008 .002) give 0.5-16% more than printed for every machine; a least-squares fit of five weights to the printed column leaves 1.5-2% residuals, so no fixed weights over Tables 2.10-2.14 reproduce it: the appendix used other values for the complex and double operations";
/// Why two procedure-call values differ.
const PROC_VALUE: &str = "0.75·PROC + 0.25·ARGU of Table 2.13 misses the printed value; the printed one implies another PROC (Sun 4/260: 906 ns, not 918; VAX-11/785 fort: 11182 ns, not 11678), a different run or a typo in Table 2.13";

/// Appendix 2.C values Tables 2.10-2.14 do not reproduce: machine, parameters, reason.
const REDUCED_EXCEPTIONS: [(&str, &[usize], &str); 17] = [
    (
        "vax-11-780",
        &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17],
        OTHER_RUN,
    ),
    (
        "vax-11-785-f77",
        &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17],
        OTHER_RUN,
    ),
    ("cray-y-mp-832", &[9, 10], COMPLEX_DOUBLE_WEIGHTS),
    ("cray-2", &[9, 10], COMPLEX_DOUBLE_WEIGHTS),
    ("cray-x-mp-432", &[9, 10], COMPLEX_DOUBLE_WEIGHTS),
    ("ibm-3090-200", &[9, 10], COMPLEX_DOUBLE_WEIGHTS),
    ("mips-1000", &[9, 10], COMPLEX_DOUBLE_WEIGHTS),
    ("sun-4-260", &[9, 10], COMPLEX_DOUBLE_WEIGHTS),
    ("sun-4-260", &[15], PROC_VALUE),
    ("vax-8600", &[9, 10], COMPLEX_DOUBLE_WEIGHTS),
    ("vax-3200", &[9, 10], COMPLEX_DOUBLE_WEIGHTS),
    ("vax-11-785-fort", &[9, 10], COMPLEX_DOUBLE_WEIGHTS),
    ("vax-11-785-fort", &[15], PROC_VALUE),
    ("sun-3-260-f", &[9, 10], COMPLEX_DOUBLE_WEIGHTS),
    ("sun-3-260", &[9, 10], COMPLEX_DOUBLE_WEIGHTS),
    ("sun-3-50", &[9, 10], COMPLEX_DOUBLE_WEIGHTS),
    ("ibm-rt-pc-125", &[9, 10], COMPLEX_DOUBLE_WEIGHTS),
];

fn excepted(machine: &str, parameter: usize) -> bool {
    REDUCED_EXCEPTIONS
        .iter()
        .any(|(m, ps, _)| *m == machine && ps.contains(&parameter))
}

/// Half a unit of the last printed digit (six significant figures for seven digits).
fn printed_half_unit(s: &str) -> f64 {
    match s.split_once('.') {
        Some((_, decimals)) => 0.5 * 10f64.powi(-(decimals.len() as i32)),
        None => 0.5 * 10f64.powi((s.trim_start_matches('-').len() as i32 - 6).max(0)),
    }
}

/// How far the true value of a reduced parameter can be from the one computed from the
/// tables' whole nanoseconds.
fn rounding(p: &MachineProfile, param: &ReducedParameter) -> f64 {
    let (mut spread, mut present) = (0.0, 0.0);
    for &(op, w) in param.components {
        match p.abop[&op].status.as_str() {
            MEASURED => (spread, present) = (spread + 0.5 * w, present + w),
            _ if !param.memory => (spread, present) = (spread + w, present + w),
            _ => {}
        }
    }
    let scale = if param.memory { 0.5 } else { 1.0 };
    scale * spread / present
}

fn published_reduced() -> Vec<PublishedReduced> {
    thesis::read_published_reduced(&dir().join(thesis::APPENDIX_2C_FILE)).unwrap()
}

#[test]
fn appendix_2c_reduced_parameters() {
    let profiles = profiles();
    let published = published_reduced();
    assert_eq!(published.len(), 15 * 17, "15 machines, 17 parameters");
    let mut failures = vec![];
    for r in &published {
        let p = &profiles[&r.machine];
        let k = r.parameter - 1;
        let computed = reduce_one(p, &PARAMETERS[k]).0.unwrap();
        let printed: f64 = r.value.parse().unwrap();
        let tolerance = rounding(p, &PARAMETERS[k]) + printed_half_unit(&r.value);
        let reproduced = (computed - printed).abs() <= tolerance;
        match (reproduced, excepted(&r.machine, r.parameter)) {
            (true, true) => failures.push(format!("{} parameter {}: listed as an exception but reproduced ({computed:.2} vs {printed})", r.machine, r.parameter)),
            (false, false) => failures.push(format!("{} parameter {} (seed line {}): {computed:.2} from the tables, {printed} printed, ±{tolerance:.2}", r.machine, r.parameter, r.line)),
            _ => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn published_distances() -> Vec<PublishedDistance> {
    thesis::read_published_distances(&dir().join(thesis::TABLE_2_6_FILE)).unwrap()
}

/// Each machine's reduced parameters and their log uncertainties: computed from the
/// profile, except where Appendix 2.C is listed as not derived from the tables, where
/// the appendix's printed value (what Table 2.6 was computed from) stands.
fn shapes() -> BTreeMap<String, (Vec<f64>, Vec<f64>)> {
    let profiles = profiles();
    let mut out: BTreeMap<String, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for r in published_reduced() {
        let p = &profiles[&r.machine];
        let k = r.parameter - 1;
        let (value, spread) = if excepted(&r.machine, r.parameter) {
            (r.value.parse().unwrap(), printed_half_unit(&r.value))
        } else {
            (
                reduce_one(p, &PARAMETERS[k]).0.unwrap(),
                rounding(p, &PARAMETERS[k]),
            )
        };
        let e = out
            .entry(r.machine.clone())
            .or_insert_with(|| (vec![0.0; 17], vec![0.0; 17]));
        e.0[k] = value;
        e.1[k] = ((value + spread) / value).ln();
    }
    out
}

fn bound(a: &[f64], b: &[f64]) -> f64 {
    let s: f64 = a.iter().zip(b).map(|(x, y)| (x + y).powi(2)).sum();
    (s / (a.len() - 1) as f64).sqrt() + 0.0005
}

/// Row 85 names the Sun 3/260; its distance is the one to the Sun 3/260 (f).
const MISLABELLED: (usize, &str) = (85, "sun-3-260-f");

/// Why the CRAY-2's pairs against distant machines are off.
const CRAY2_COMPLEX: &str = "Table 2.6 disagrees with Appendix 2.C's own values by 0.015-0.02 on these pairs; with the CRAY-2's complex arithmetic at 210 ns (appendix: 242) all of them are reproduced (checked below): Table 2.6 was computed with another CRAY-2 complex value";
/// Why the other pairs are off.
const UNROUNDED: &str = "the distance from Appendix 2.C's own printed values misses Table 2.6 by the same 0.001-0.006: Table 2.6 was computed from parameter values other than those printed (no single parameter explains it)";

/// Table 2.6 rows not reproduced: rank and reason.
const DISTANCE_EXCEPTIONS: [(usize, &str); 17] = [
    (105, CRAY2_COMPLEX),
    (101, CRAY2_COMPLEX),
    (93, CRAY2_COMPLEX),
    (87, CRAY2_COMPLEX),
    (2, UNROUNDED),
    (6, UNROUNDED),
    (14, UNROUNDED),
    (90, UNROUNDED),
    (83, UNROUNDED),
    (24, UNROUNDED),
    (98, UNROUNDED),
    (96, UNROUNDED),
    (11, UNROUNDED),
    (18, UNROUNDED),
    (19, UNROUNDED),
    (103, UNROUNDED),
    (94, UNROUNDED),
];

fn distance(shapes: &BTreeMap<String, (Vec<f64>, Vec<f64>)>, a: &str, b: &str) -> (f64, f64) {
    let (x, ex) = &shapes[a];
    let (y, ey) = &shapes[b];
    let opt = |v: &[f64]| v.iter().map(|&a| Some(a)).collect::<Vec<_>>();
    let d = augur_pershape::distance(&opt(x), &opt(y)).unwrap();
    assert_eq!(d.dimensions, 17);
    (d.value, bound(ex, ey))
}

#[test]
fn table_2_6_distances() {
    let shapes = shapes();
    let published = published_distances();
    assert_eq!(published.len(), 50);
    let mut failures = vec![];
    for row in &published {
        let b = if row.rank == MISLABELLED.0 {
            MISLABELLED.1
        } else {
            &row.b
        };
        let (d, tolerance) = distance(&shapes, &row.a, b);
        let printed: f64 = row.value.parse().unwrap();
        let reproduced = (d - printed).abs() <= tolerance;
        let listed = DISTANCE_EXCEPTIONS.iter().any(|e| e.0 == row.rank);
        match (reproduced, listed) {
            (true, true) => failures.push(format!("#{} listed but reproduced: {d:.4}", row.rank)),
            (false, false) => failures.push(format!(
                "#{} {} - {b}: {d:.4}, printed {printed}, ±{tolerance:.4}",
                row.rank, row.a
            )),
            _ => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn cray2_complex_value_explains_its_pairs() {
    let mut shapes = shapes();
    shapes.get_mut("cray-2").unwrap().0[8] = 210.0;
    for row in published_distances() {
        if DISTANCE_EXCEPTIONS
            .iter()
            .any(|e| e.0 == row.rank && e.1 == CRAY2_COMPLEX)
        {
            let (d, tolerance) = distance(&shapes, &row.a, &row.b);
            let printed: f64 = row.value.parse().unwrap();
            assert!(
                (d - printed).abs() <= tolerance,
                "#{}: {d:.4} vs {printed}",
                row.rank
            );
        }
    }
}

#[test]
fn figure_2_7_clusters_at_0_7() {
    // The thesis: three groups (supercomputers; workstations without floating-point
    // hardware; VAXes with f77 and fast workstations, bridged by the 785 with FORT).
    let shapes = shapes();
    let names: Vec<&String> = shapes.keys().collect();
    let vectors: Vec<Vec<Option<f64>>> = names
        .iter()
        .map(|n| shapes[*n].0.iter().map(|&v| Some(v)).collect())
        .collect();
    let c = augur_pershape::clusters(&augur_pershape::distance::matrix(&vectors), 0.7);
    let groups: Vec<Vec<&str>> = c
        .components
        .iter()
        .map(|g| g.iter().map(|&i| names[i].as_str()).collect())
        .collect();
    assert!(
        groups.contains(&vec![
            "cray-2",
            "cray-x-mp-432",
            "cray-y-mp-832",
            "ibm-3090-200"
        ]),
        "{groups:?}"
    );
    assert!(
        groups.contains(&vec!["sun-3-260", "sun-3-50"]),
        "{groups:?}"
    );
    assert_eq!(groups.len(), 3, "{groups:?}");
}

/// Table 4.2's columns: HP 720 at -O0, -O1, -O2, MIPS M/2000 and Sparcstation 1+ at
/// three levels each. Table 4.2 heads the MIPS columns -O0, -O2, -O3 where Appendix 4.A
/// (Tables 4.16-4.20) labels the rows -O0, -O1, -O2; the values are those rows' in that
/// order (integer add 165, 89, 69: AISL and AISG of Table 4.17's -O0, -O1, -O2 rows).
const TABLE_4_2_MACHINES: [&str; 9] = [
    "hp-720-o0",
    "hp-720-o1",
    "hp-720-o2",
    "mips-m-2000-o0",
    "mips-m-2000-o1",
    "mips-m-2000-o2",
    "sparcstation-1plus-o0",
    "sparcstation-1plus-o2",
    "sparcstation-1plus-o3",
];

/// A Table 4.2 parameter that is none of Table 2.5's.
const fn own(name: &'static str, components: &'static [(AbOp, f64)]) -> ReducedParameter {
    ReducedParameter {
        number: 0,
        name,
        short: name,
        components,
        memory: false,
    }
}

/// Table 4.2 (seed lines 3790-3806): each row's parameter and its printed values (ns).
/// The thesis does not list the AbOps of these 13 parameters; they are inferred from the
/// printed values: nine rows are Table 2.5's parameters (memory bandwidth is its double
/// one, intrinsic functions its single one), double add and multiply the mean of the
/// local and global operation, division the mean of the four real divisions (a least-
/// squares fit gives integer division weight 0.00), and branches & iteration the mean
/// of parameters 14 and 17.
#[rustfmt::skip]
fn table_4_2() -> Vec<(ReducedParameter, [f64; 9])> {
    use AbOp::*;
    const BRANCHES: [(AbOp, f64); 6] = [(GOTO, 0.45), (GCOM, 0.05), (LOIN, 0.03), (LOIX, 0.015), (LOOV, 0.3025), (LOOX, 0.1525)];
    vec![
        (PARAMETERS[1], [108., 104., 61., 173., 135., 52., 545., 511., 269.]),
        (PARAMETERS[2], [95., 60., 29., 165., 89., 69., 247., 188., 41.]),
        (PARAMETERS[3], [442., 419., 170., 574., 463., 489., 1132., 1265., 950.]),
        (PARAMETERS[12], [193., 139., 95., 229., 245., 144., 586., 598., 383.]),
        (PARAMETERS[5], [99., 53., 45., 175., 139., 95., 319., 299., 233.]),
        (PARAMETERS[6], [128., 96., 35., 260., 201., 200., 406., 343., 133.]),
        (own("double prec. add", &[(ARDL, 0.5), (ARDG, 0.5)]), [100., 73., 45., 223., 167., 117., 488., 427., 233.]),
        (own("double prec. multiply", &[(MRDL, 0.5), (MRDG, 0.5)]), [129., 117., 35., 348., 279., 276., 799., 598., 254.]),
        (own("division", &[(DRSL, 0.25), (DRSG, 0.25), (DRDL, 0.25), (DRDG, 0.25)]), [300., 234., 188., 780., 669., 575., 2648., 2592., 1933.]),
        (PARAMETERS[14], [99., 96., 72., 328., 238., 161., 215., 76., 77.]),
        (PARAMETERS[15], [136., 76., 42., 462., 262., 147., 426., 267., 166.]),
        (own("branches & iteration", &BRANCHES), [151., 97., 41., 286., 164., 95., 318., 135., 105.]),
        (PARAMETERS[10], [2561., 2490., 2477., 3306., 3246., 3405., 7442., 7747., 8568.]),
    ]
}

/// Table 4.2 values the profiles do not reproduce: parameter name, machines, reason.
const TABLE_4_2_EXCEPTIONS: [(&str, &[&str], &str); 3] = [
    (
        "memory bandwidth (double)",
        &["hp-720-o0"],
        "3.9 ns above the printed 108 from Table 4.16's transfers (276, 180, 272, 167 ns); with TCSG at 241 ns, the -O1 row's value, the mean is exactly 108: Table 4.2 was computed with another value of one transfer",
    ),
    (
        "procedure calls",
        &["hp-720-o1", "mips-m-2000-o0", "mips-m-2000-o1", "mips-m-2000-o2", "sparcstation-1plus-o0", "sparcstation-1plus-o3"],
        "0.75·PROC + 0.25·ARGU of Table 4.18 misses by 1.8-14 ns, both signs, and no fixed weights do better (a least-squares fit over the nine columns leaves residuals of up to 14 ns): the printed row comes from other PROC and ARGU values than those the appendix prints",
    ),
    (
        "branches & iteration",
        &["sparcstation-1plus-o2"],
        "1.6 ns below the printed 135, beyond the 1.2 ns the rounding allows; the other eight columns, GOTO not detected on four of them, are reproduced: the printed value needs e.g. a GOTO of 3.5 ns where Table 4.18 says not detected, or a LOOV 5 ns longer; nothing printed tells which",
    ),
];

#[test]
fn table_4_2_reduced_parameters_of_the_optimized_machines() {
    let profiles = profiles();
    let mut failures = vec![];
    for (param, printed) in table_4_2() {
        for (machine, printed) in TABLE_4_2_MACHINES.iter().zip(printed) {
            let p = &profiles[*machine];
            let computed = reduce_one(p, &param).0.unwrap();
            let tolerance = rounding(p, &param) + 0.5;
            let reproduced = (computed - printed).abs() <= tolerance;
            let listed = TABLE_4_2_EXCEPTIONS
                .iter()
                .any(|(n, ms, _)| *n == param.name && ms.contains(machine));
            match (reproduced, listed) {
                (true, true) => failures.push(format!("{machine} {}: listed as an exception but reproduced ({computed:.2} vs {printed})", param.name)),
                (false, false) => failures.push(format!("{machine} {}: {computed:.2} from Appendix 4.A, {printed} printed, ±{tolerance:.2}", param.name)),
                _ => {}
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The seed of the dissertation's text, where this project keeps it.
fn seed() -> Option<PathBuf> {
    let p = std::env::var_os("AUGUR_THESIS_SEED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/seeds/001_a91d94e46a5fcf6e.txt"));
    p.is_file().then_some(p)
}

/// The seed's path and text; a test that needs them fails without them.
fn seed_text() -> (PathBuf, String) {
    let Some(seed) = seed() else {
        panic!("the dissertation's text is not here: set AUGUR_THESIS_SEED to seed 001 to check machines/historical against it");
    };
    let text = std::fs::read_to_string(&seed).unwrap();
    (seed, text)
}

/// Needs the dissertation's text, which is not in the repository: `scripts/test.sh` runs
/// it with `--ignored` where the text is (`AUGUR_THESIS_SEED`, or the workplace's seeds).
#[test]
#[ignore = "needs the dissertation's text (AUGUR_THESIS_SEED); scripts/test.sh runs it"]
fn committed_profiles_are_the_import_of_the_seed() {
    let (seed, text) = seed_text();
    let parsed = thesis::parse(&text, &seed.display().to_string()).unwrap();
    assert_eq!(parsed.machines.len(), 15 + 9);
    let tmp = tempfile::tempdir().unwrap();
    for written in thesis::write(&parsed, tmp.path()).unwrap() {
        let name = written.file_name().unwrap();
        let committed = std::fs::read_to_string(dir().join(name)).unwrap_or_default();
        let fresh = std::fs::read_to_string(&written).unwrap();
        // augur's version is the one field that may differ.
        let strip = |s: &str| {
            s.lines()
                .filter(|l| !l.starts_with("augur_version"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert!(
            strip(&committed) == strip(&fresh),
            "{name:?} differs from a fresh import: run `augur machines --import-thesis {}`",
            seed.display()
        );
    }
}

/// Table 4.2 as the seed prints it: each row's values, in order.
fn seed_table_4_2(text: &str) -> Vec<Vec<f64>> {
    text.lines()
        .skip_while(|l| !l.starts_with("reduced parameters\tHP 720"))
        .skip(2)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.split('\t').skip(1).map(|v| v.parse().unwrap()).collect())
        .collect()
}

/// Needs the dissertation's text, like the test above.
#[test]
#[ignore = "needs the dissertation's text (AUGUR_THESIS_SEED); scripts/test.sh runs it"]
fn table_4_2_is_the_seeds() {
    let (_, text) = seed_text();
    let printed: Vec<Vec<f64>> = table_4_2().iter().map(|r| r.1.to_vec()).collect();
    assert_eq!(seed_table_4_2(&text), printed);
}

#[test]
fn hp_720_memory_bandwidth_with_the_o1_tcsg() {
    let mut p = profiles()["hp-720-o0"].clone();
    p.abop.get_mut(&AbOp::TCSG).unwrap().mean_ns = Some(241.0);
    let v = reduce_one(&p, &PARAMETERS[1]).0.unwrap();
    assert!((v - 108.0).abs() < 1e-9, "{v}");
}
