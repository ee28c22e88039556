//! augur-optimizations: which standard optimizations a compiler with its flags applies.
//!
//! Saavedra-Barrera treats a compiler with its flags as an optimized abstract machine and
//! detects the optimizations it performs with paired timing experiments (seed 001 §4.5,
//! tables 4.9-4.11); seed 000 (§6.2, appendices E.2 and F) does the same with Naive/Opt and
//! Naive/Cripple tests and a confidence-interval ratio rule. This crate does both:
//!
//! * [`catalogue`]: the tests, naive, hand-optimized and cripple kernels in Fortran;
//! * [`program`]: one generated program for all of them, built and run through the
//!   toolchain's experiment harness;
//! * [`verdict`]: Welch's test, effectiveness, the ratio rule and the ratings;
//! * [`table`]: the tables of one profile or of several side by side;
//! * [`detect`]: the whole run, with the compiler's own report beside the verdicts.

pub mod catalogue;
pub mod program;
pub mod table;
pub mod verdict;

use augur_machine_profile::optimizations::{
    OptimizationsProfile, Summary, TestResult, INCONCLUSIVE,
};
use augur_toolchain::experiment::without_outliers;
use augur_toolchain::Toolchain;
use catalogue::{ReportKind, Rule, Test};
use program::{Observed, Program};
use std::path::Path;
use verdict::Sample;

/// How long and how often to observe.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Target duration of one observation of one version, ns.
    pub window_ns: u64,
    /// Observations of each version.
    pub reps: u32,
    /// Runs of the whole detection (`--repeat`): the stability check.
    pub repeat: u32,
}

impl Settings {
    /// `--quick`: 2 ms windows, 8 observations.
    pub const QUICK: Settings = Settings {
        window_ns: 2_000_000,
        reps: 8,
        repeat: 1,
    };
    /// Default: 5 ms windows, 12 observations (well under a minute of measurement).
    pub const DEFAULT: Settings = Settings {
        window_ns: 5_000_000,
        reps: 12,
        repeat: 1,
    };
}

/// Tests run by one start of the program.
const CHUNK: usize = 8;

/// Runs the tests `tests` with `tc`: builds the program (tests that do not compile are
/// `inconclusive` with the compiler's message), reads the compiler's report, runs the
/// detection `settings.repeat` times and returns the section of the profile (the first
/// run's tests; each summary row lists every run's rating). `progress` gets a line per
/// test and run.
pub fn detect(
    tc: &Toolchain,
    tests: &[Test],
    settings: Settings,
    progress: &mut dyn FnMut(&str),
) -> Result<OptimizationsProfile, String> {
    let start = std::time::Instant::now();
    let dir = augur_toolchain::interrupt::temp_dir("augur-optimizations-")
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let mut failed: Vec<(usize, String)> = Vec::new();
    let prog = program::build(tc, tests, dir.path(), &mut |i, m| {
        progress(&format!("{} does not compile: {m}", tests[i].key()));
        failed.push((i, format!("does not compile: {m}")));
    })?;
    let report = compiler_report(tc, dir.path(), &prog, tests, progress);
    let mut runs: Vec<Vec<TestResult>> = Vec::new();
    for r in 0..settings.repeat.max(1) {
        let label = if settings.repeat > 1 {
            format!("run {}/{}: ", r + 1, settings.repeat)
        } else {
            String::new()
        };
        let obs = observe(&prog, dir.path(), settings, tests, &label, progress)?;
        runs.push(judge_all(tests, &obs, &failed));
    }
    let mut summaries = summarize(tests, &runs, &report);
    for s in &mut summaries {
        if settings.repeat <= 1 {
            s.repeats.clear();
        }
    }
    Ok(OptimizationsProfile {
        alpha: verdict::ALPHA,
        observations: settings.reps,
        window_ms: settings.window_ns as f64 / 1e6,
        elapsed_s: (start.elapsed().as_secs_f64() * 10.0).round() / 10.0,
        summaries,
        tests: runs.swap_remove(0),
    })
}

/// Per test (index into the list), its observations or why there are none.
type Observations = Vec<Result<Observed, String>>;

/// One run of every test built, in chunks; a chunk that stops early fails the test it
/// stopped in and goes on with the rest.
fn observe(
    prog: &Program,
    dir: &Path,
    settings: Settings,
    tests: &[Test],
    label: &str,
    progress: &mut dyn FnMut(&str),
) -> Result<Observations, String> {
    let mut obs: Observations = vec![Err("not built".to_string()); tests.len()];
    let mut queue: Vec<usize> = (1..=prog.active.len()).collect();
    let total = queue.len();
    let mut finished = 0;
    while !queue.is_empty() {
        augur_toolchain::interrupt::check_cancel()?;
        let chunk: Vec<usize> = queue.iter().take(CHUNK).copied().collect();
        let (out, failure) =
            program::run(&prog.exe, dir, settings.window_ns, settings.reps, &chunk)?;
        let mut ran = 0;
        for &id in &chunk {
            let i = prog.active[id - 1];
            let Some((_, o)) = out.done.iter().find(|d| d.0 == id) else {
                break;
            };
            obs[i] = Ok(o.clone());
            ran += 1;
            finished += 1;
            progress(&format!(
                "{label}{finished}/{total} {}: {}",
                tests[i].key(),
                brief(&tests[i], o)
            ));
        }
        if ran < chunk.len() {
            let i = prog.active[chunk[ran] - 1];
            let why = failure
                .clone()
                .unwrap_or_else(|| "the program stopped without its observations".into());
            progress(&format!("{label}{} failed: {why}", tests[i].key()));
            obs[i] = Err(why);
            ran += 1;
            finished += 1;
        }
        queue.drain(..ran);
    }
    Ok(obs)
}

/// `naive 1.23 ns, optimized 0.41 ns, cripple 1.20 ns: no`.
fn brief(t: &Test, o: &Observed) -> String {
    let r = judge(t, o);
    let mut s = format!("naive {:.3} ns", r.naive_ns);
    if let Some(x) = r.opt_ns {
        s.push_str(&format!(", optimized {x:.3} ns"));
    }
    if let Some(x) = r.cripple_ns {
        s.push_str(&format!(", cripple {x:.3} ns"));
    }
    format!("{s}: {}", r.verdict)
}

/// The results of one run, in test order.
fn judge_all(tests: &[Test], obs: &Observations, failed: &[(usize, String)]) -> Vec<TestResult> {
    tests
        .iter()
        .enumerate()
        .map(|(i, t)| match (&obs[i], failed.iter().find(|f| f.0 == i)) {
            (_, Some((_, why))) | (Err(why), None) => failed_result(t, why),
            (Ok(o), None) => judge(t, o),
        })
        .collect()
}

/// An inconclusive result for a test that failed.
fn failed_result(t: &Test, why: &str) -> TestResult {
    TestResult {
        key: t.key(),
        rule: t.rule.name().to_string(),
        naive_ns: 0.0,
        opt_ns: None,
        cripple_ns: None,
        effectiveness: None,
        ratio: None,
        ratio_low: None,
        ratio_high: None,
        ratio_threshold: None,
        p_value: None,
        verdict: INCONCLUSIVE.to_string(),
        note: format!("failed: {why}"),
    }
}

/// The verdict of one test from its observations (outliers removed per version).
pub fn judge(t: &Test, o: &Observed) -> TestResult {
    let sample = |v: usize| Sample::of(&without_outliers(&o.times[v]));
    let (n, op, cr) = (sample(0), sample(1), sample(2));
    let present = |v: usize, s: &Sample| (s.n > 0).then_some(round(s.mean)).filter(|_| v > 0);
    if !o.gone.is_empty() || n.n < 2 {
        let why = if o.gone.is_empty() {
            "fewer than two observations".to_string()
        } else {
            format!("the compiler removed the loop of version(s) {:?}", o.gone)
        };
        return failed_result(t, &why);
    }
    let v = match t.rule {
        Rule::Effectiveness => verdict::effectiveness(&n, &op, &cr),
        Rule::NaiveOpt(rp) => verdict::ratio_rule(&n, &op, rp),
        Rule::NaiveCripple(rp) => verdict::ratio_rule(&n, &cr, rp),
    };
    let threshold = match t.rule {
        Rule::NaiveOpt(rp) | Rule::NaiveCripple(rp) => Some(rp),
        Rule::Effectiveness => None,
    };
    let finite = |x: f64| x.is_finite().then(|| round(x));
    TestResult {
        key: t.key(),
        rule: t.rule.name().to_string(),
        naive_ns: round(n.mean),
        opt_ns: present(1, &op),
        cripple_ns: present(2, &cr),
        effectiveness: v.effectiveness.and_then(finite),
        ratio: v.ratio.and_then(|r| finite(r.0)),
        ratio_low: v.ratio.and_then(|r| finite(r.1)),
        ratio_high: v.ratio.and_then(|r| finite(r.2)),
        ratio_threshold: threshold,
        p_value: v.p_value.map(|p| (p * 1e6).round() / 1e6),
        verdict: v.verdict.to_string(),
        note: v.note,
    }
}

/// 5 significant digits.
fn round(v: f64) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let mag = 10f64.powi(4 - v.abs().log10().floor() as i32);
    (v * mag).round() / mag
}

/// What the compiler's report says of each test that it covers (`Some(true)`: it reports
/// the optimization at the test's marked line), or `None` for every test when there is
/// no report.
fn compiler_report(
    tc: &Toolchain,
    dir: &Path,
    prog: &Program,
    tests: &[Test],
    progress: &mut dyn FnMut(&str),
) -> Vec<Option<bool>> {
    let sources = [
        dir.join(program::SUPPORT_FILE),
        dir.join(program::TESTS_FILE),
    ];
    let names = [
        program::SUPPORT_FILE.to_string(),
        program::TESTS_FILE.to_string(),
    ];
    let mut said = vec![None; tests.len()];
    let rep = match augur_toolchain::optreport::report(tc, &sources, &names, &[]) {
        Ok(r) => r,
        Err(e) => {
            progress(&format!("no compiler report: {e}"));
            return said;
        }
    };
    for note in &rep.notes {
        progress(note);
    }
    if augur_toolchain::optreport::report_flags(tc).is_none() {
        return said;
    }
    for (j, &i) in prog.active.iter().enumerate() {
        let (Some(kind), Some(line)) = (tests[i].report, prog.generated.marked[j]) else {
            continue;
        };
        let at = |f: &str, l: u32| f == program::TESTS_FILE && l == line;
        said[i] = Some(match kind {
            ReportKind::Vectorized => rep.vectorized.iter().any(|v| at(&v.file, v.line)),
            ReportKind::Inlined => rep.inlined.iter().any(|v| at(&v.file, v.line)),
            ReportKind::Unrolled => rep.unrolled.iter().any(|v| at(&v.file, v.line)),
            ReportKind::Branchless => rep.branchless.iter().any(|v| at(&v.file, v.line)),
        });
    }
    said
}

/// One summary row per optimization and scope, in catalogue order: the first run's
/// rating, every run's rating, and the report beside it.
fn summarize(tests: &[Test], runs: &[Vec<TestResult>], report: &[Option<bool>]) -> Vec<Summary> {
    let mut rows: Vec<(&str, &str)> = Vec::new();
    for t in tests {
        let key = (t.optimization, t.scope.name());
        if !rows.contains(&key) {
            rows.push(key);
        }
    }
    rows.into_iter()
        .map(|(opt, scope)| {
            let members: Vec<usize> = (0..tests.len())
                .filter(|&i| tests[i].optimization == opt && tests[i].scope.name() == scope)
                .collect();
            let rate = |run: &Vec<TestResult>| {
                let v: Vec<&str> = members.iter().map(|&i| run[i].verdict.as_str()).collect();
                verdict::rating(&v)
            };
            let (rating, conclusive, detected) = rate(&runs[0]);
            let said: Vec<bool> = members.iter().filter_map(|&i| report[i]).collect();
            let (rep, contradiction) = report_words(rating, &said);
            Summary {
                optimization: opt.to_string(),
                scope: scope.to_string(),
                rating: rating.to_string(),
                conclusive,
                detected,
                report: rep,
                contradiction,
                repeats: runs.iter().map(|r| rate(r).0.to_string()).collect(),
            }
        })
        .collect()
}

/// The report's word for a row (`reported`, `not reported`, or empty when it does not
/// cover the optimization) and the contradiction with the rating, if any.
fn report_words(rating: &str, said: &[bool]) -> (String, String) {
    if said.is_empty() {
        return (String::new(), String::new());
    }
    let reported = said.iter().all(|s| *s);
    let word = if reported { "reported" } else { "not reported" };
    let timing = verdict::detected(rating);
    let contradiction = if rating == INCONCLUSIVE || rating == "marginal" || timing == reported {
        String::new()
    } else if timing {
        "the timing detects it, the compiler does not report it".to_string()
    } else {
        "the compiler reports it, the timing does not detect it".to_string()
    };
    (word.to_string(), contradiction)
}

/// The stability of repeated runs: per summary row whether every run gave the same
/// rating, and the share of rows that did.
pub fn stability(p: &OptimizationsProfile) -> (usize, usize) {
    let stable = p
        .summaries
        .iter()
        .filter(|s| s.repeats.windows(2).all(|w| w[0] == w[1]))
        .count();
    (stable, p.summaries.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_words_and_contradictions() {
        assert_eq!(report_words("yes", &[]), (String::new(), String::new()));
        assert_eq!(report_words("yes", &[true]).1, "");
        assert!(report_words("yes", &[false]).1.contains("does not report"));
        assert!(report_words("no", &[true]).1.contains("timing does not"));
        assert_eq!(report_words("marginal", &[true]).1, "");
        assert_eq!(report_words("no", &[false]).0, "not reported");
    }

    #[test]
    fn judge_reads_a_clear_detection() {
        let all = catalogue::catalogue();
        let t = all
            .iter()
            .find(|t| t.key() == "dead_code/local/fp")
            .unwrap();
        let mk = |m: f64| (0..8).map(|k| m + 0.001 * k as f64).collect::<Vec<f64>>();
        let o = Observed {
            times: [mk(1.0), mk(1.0), mk(3.0)],
            gone: vec![],
        };
        let r = judge(t, &o);
        assert_eq!(r.verdict, "yes", "{r:?}");
        assert_eq!(r.rule, "effectiveness");
        let gone = Observed { gone: vec![1], ..o };
        assert_eq!(judge(t, &gone).verdict, INCONCLUSIVE);
    }
}
