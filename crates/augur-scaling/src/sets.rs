//! The values a nest ran with, across runs: matched set by set (each run's sets in
//! ascending order of their values) and each value and each set's entries extrapolated
//! as an exact polynomial in the scale variable.

use crate::fit::exact_polynomial;
use crate::nest::Env;
use crate::poly::{q, Poly, Q};
use augur_program_profile::locality::NestValues;
use num_traits::ToPrimitive;

/// The sets of one run as name → value environments with their entries.
pub fn as_env(v: &NestValues) -> Vec<(Env, i128)> {
    v.sets
        .iter()
        .map(|s| {
            let env = v
                .vars
                .iter()
                .zip(&s.values)
                .map(|(n, x)| (n.clone(), i128::from(*x)))
                .collect();
            (env, i128::from(s.count))
        })
        .collect()
}

/// Each run's sets sorted by their values.
fn sorted(v: &NestValues) -> Vec<(Vec<i64>, u64)> {
    let mut s: Vec<(Vec<i64>, u64)> = v.sets.iter().map(|s| (s.values.clone(), s.count)).collect();
    s.sort();
    s
}

/// The polynomials of every value and every entry count, set by set: `None` when the runs
/// differ in their variables or number of sets, lost sets, or a quantity is no polynomial
/// checked on a spare run.
fn models(xs: &[i64], runs: &[&NestValues], symbol: &str) -> Option<Vec<(Vec<Poly>, Poly)>> {
    let first = runs.first()?;
    if runs
        .iter()
        .any(|r| r.vars != first.vars || r.other > 0 || r.sets.len() != first.sets.len())
    {
        return None;
    }
    let per_run: Vec<Vec<(Vec<i64>, u64)>> = runs.iter().map(|r| sorted(r)).collect();
    let fit = |ys: Vec<i64>| -> Option<Poly> {
        let yq: Vec<Q> = ys.into_iter().map(q).collect();
        exact_polynomial(xs, &yq, symbol)
    };
    (0..first.sets.len())
        .map(|s| {
            let values = (0..first.vars.len())
                .map(|k| fit(per_run.iter().map(|r| r[s].0[k]).collect()))
                .collect::<Option<Vec<Poly>>>()?;
            let count = fit(per_run.iter().map(|r| r[s].1 as i64).collect())?;
            Some((values, count))
        })
        .collect()
}

/// The nest's sets at `x` (see [`models`]); `None` also when a value is not an integer
/// or an entry count is negative there.
pub fn extrapolate(xs: &[i64], runs: &[&NestValues], x: i64) -> Option<Vec<(Env, i128)>> {
    let vars = &runs.first()?.vars;
    let at = |p: &Poly| -> Option<i128> {
        let m = [("n".to_string(), q(x))].into_iter().collect();
        let v = p.eval(&m)?;
        v.is_integer().then(|| v.to_integer().to_i128()).flatten()
    };
    models(xs, runs, "n")?
        .iter()
        .map(|(values, count)| {
            let env = vars
                .iter()
                .zip(values)
                .map(|(n, p)| Some((n.clone(), at(p)?)))
                .collect::<Option<Env>>()?;
            Some((env, at(count).filter(|c| *c >= 0)?))
        })
        .collect()
}

/// How each recorded name depends on the scale variable, for the profile: `nx = n + 2`
/// (one set), `nx = [n, n/2]` (several).
pub fn describe(xs: &[i64], runs: &[&NestValues], symbol: &str) -> Vec<String> {
    let Some(models) = models(xs, runs, symbol) else {
        return vec![];
    };
    let Some(first) = runs.first() else {
        return vec![];
    };
    let mut out: Vec<String> = first
        .vars
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let forms: Vec<String> = models.iter().map(|(v, _)| v[k].to_string()).collect();
            match forms.len() {
                1 => format!("{name} = {}", forms[0]),
                _ => format!("{name} = [{}]", forms.join(", ")),
            }
        })
        .collect();
    let entries: Vec<String> = models.iter().map(|(_, c)| c.to_string()).collect();
    out.push(format!("entries = [{}]", entries.join(", ")));
    out
}

/// The exact polynomial through `(xs, ys)` (checked on a spare point) at `x`, when it is
/// an integer there.
pub fn polynomial_at(xs: &[i64], ys: &[i64], x: i64) -> Option<i64> {
    let yq: Vec<Q> = ys.iter().map(|y| q(*y)).collect();
    let p = exact_polynomial(xs, &yq, "n")?;
    let m = [("n".to_string(), q(x))].into_iter().collect();
    let v = p.eval(&m)?;
    v.is_integer().then(|| v.to_integer().to_i64()).flatten()
}
