//! Distributions as written: `u(*,BLOCK)`, `a(CYCLIC(2),*)`, an alignment `v WITH u`,
//! and processor grids `4` or `4x4`, on the command line or in HPF directives.

use serde::Serialize;
use std::fmt;

/// How one dimension of an array is spread over its axis of the processor grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "format", content = "size")]
pub enum Format {
    /// `*`: every processor holds the whole dimension.
    Collapsed,
    /// `BLOCK` (`None`: blocks of ⌈n/p⌉) or `BLOCK(m)`.
    Block(Option<i64>),
    /// `CYCLIC` (1) or `CYCLIC(m)`: blocks of m dealt round the processors.
    Cyclic(i64),
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Format::Collapsed => write!(f, "*"),
            Format::Block(None) => write!(f, "BLOCK"),
            Format::Block(Some(m)) => write!(f, "BLOCK({m})"),
            Format::Cyclic(1) => write!(f, "CYCLIC"),
            Format::Cyclic(m) => write!(f, "CYCLIC({m})"),
        }
    }
}

/// One array's distribution: a format per dimension, or the distribution of another
/// array it is aligned with (identically: element `(i,j)` lives where the target's does).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArrayDistribution {
    /// The array (lower case).
    pub array: String,
    /// What it follows.
    pub rule: Rule,
}

/// How an array is distributed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// Formats per dimension, in order.
    Formats(Vec<Format>),
    /// Aligned with this array (lower case), element `(i,j)` where the target's is.
    AlignedWith(String),
    /// Aligned with this array (lower case) through a permutation of dimensions:
    /// per dimension of the aligned array, the target's dimension it follows, or `None`
    /// when the target has no dimension for it (`ALIGN v(i,j) WITH u(j,i)`: `[1, 0]`;
    /// `ALIGN x(i,k) WITH u(i)`: `[0, None]`, `k` held whole by every processor).
    Permuted {
        /// The target array.
        target: String,
        /// Per dimension of the aligned array, the target's dimension.
        dims: Vec<Option<usize>>,
    },
}

impl Rule {
    /// The array this rule follows, if it is an alignment.
    pub fn target(&self) -> Option<&str> {
        match self {
            Rule::Formats(_) => None,
            Rule::AlignedWith(t) | Rule::Permuted { target: t, .. } => Some(t),
        }
    }
}

/// The alignment written `left WITH right` (`v(i,j) WITH u(j,i)`, `(:,:) WITH
/// u(:,:)`, `v WITH u`): identical when the dummies appear in the target in their own
/// order (or there are none), else the permutation. A target subscript that is neither a
/// dummy nor `:` (an offset `i+1`, a constant, `*` replicating the array) is an error
/// saying what to write instead. `whole` is the text errors quote.
pub fn alignment(left: &str, right: &str, whole: &str) -> Result<Rule, String> {
    let target = name_of(right, whole)?;
    let subscripts = |part: &str| -> Vec<String> {
        part.split_once('(')
            .and_then(|(_, r)| r.trim_end().strip_suffix(')'))
            .map(|inner| {
                split_top(inner)
                    .iter()
                    .map(|x| x.trim().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let (dummies, subs) = (subscripts(left), subscripts(right));
    let positional = |v: &[String]| v.iter().all(|x| x == ":");
    if subs.is_empty() || (positional(&subs) && positional(&dummies)) {
        return Ok(Rule::AlignedWith(target));
    }
    for x in &subs {
        if x != ":" && !dummies.contains(x) {
            let what = if x == "*" {
                "replicates it over the target's dimension, which is not modelled yet: give the array `*` in that dimension of its own DISTRIBUTE instead"
            } else {
                "places it at an offset or a fixed index of the target, which is not modelled yet: align it identically, or give it its own DISTRIBUTE"
            };
            return Err(format!("`{whole}`: the target subscript `{x}` {what}"));
        }
    }
    let dims: Vec<Option<usize>> = dummies
        .iter()
        .map(|d| subs.iter().position(|x| x == d))
        .collect();
    let identity = dims.len() == subs.len() && dims.iter().enumerate().all(|(d, k)| *k == Some(d));
    Ok(if identity {
        Rule::AlignedWith(target)
    } else {
        Rule::Permuted { target, dims }
    })
}

impl fmt::Display for ArrayDistribution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.rule {
            Rule::Formats(v) => {
                let list: Vec<String> = v.iter().map(Format::to_string).collect();
                write!(f, "{}({})", self.array, list.join(","))
            }
            Rule::AlignedWith(t) => write!(f, "{} WITH {t}", self.array),
            Rule::Permuted { target, dims } => {
                let letters = ["i", "j", "k", "l", "m", "n", "o"];
                let dummy = |d: usize| letters.get(d).copied().unwrap_or("x").to_string();
                let left: Vec<String> = (0..dims.len()).map(dummy).collect();
                let rank = dims.iter().flatten().max().map_or(0, |m| m + 1);
                let right: Vec<String> = (0..rank)
                    .map(|k| {
                        dims.iter()
                            .position(|x| *x == Some(k))
                            .map_or(":".into(), dummy)
                    })
                    .collect();
                write!(
                    f,
                    "{}({}) WITH {target}({})",
                    self.array,
                    left.join(","),
                    right.join(",")
                )
            }
        }
    }
}

impl ArrayDistribution {
    /// Reads `u(*,BLOCK)`, `a(CYCLIC(4), *)`, `v WITH u` or `v(:,:) WITH u(:,:)` (case
    /// does not matter).
    pub fn parse(text: &str) -> Result<ArrayDistribution, String> {
        let t = text.trim().to_ascii_lowercase();
        if let Some((left, right)) = t.split_once(" with ") {
            let array = name_of(left, text)?;
            let rule = alignment(left, right, text)?;
            return Ok(ArrayDistribution { array, rule });
        }
        let (name, rest) = t.split_once('(').ok_or_else(|| {
            format!("`{text}`: a distribution is an array with a format per dimension, e.g. `u(*,BLOCK)`, or `v WITH u`")
        })?;
        let inner = rest
            .trim_end()
            .strip_suffix(')')
            .ok_or_else(|| format!("`{text}`: the formats' parenthesis is not closed"))?;
        let formats = split_top(inner)
            .iter()
            .map(|f| parse_format(f).map_err(|e| format!("`{text}`: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ArrayDistribution {
            array: name_of(name, text)?,
            rule: Rule::Formats(formats),
        })
    }
}

/// An array name, with a section such as `(:,:)` dropped.
fn name_of(part: &str, whole: &str) -> Result<String, String> {
    let name = part.split('(').next().unwrap_or("").trim();
    let ok = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(name.to_string())
    } else {
        Err(format!("`{whole}`: `{name}` is not an array name"))
    }
}

/// Splits at the commas outside parentheses.
pub(crate) fn split_top(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (vec![], String::new(), 0);
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out
}

fn parse_format(f: &str) -> Result<Format, String> {
    let f: String = f.chars().filter(|c| !c.is_whitespace()).collect();
    let size = |arg: &str| -> Result<i64, String> {
        match arg.parse::<i64>() {
            Ok(m) if m > 0 => Ok(m),
            _ => Err(format!("`{f}`: the block size must be a positive integer")),
        }
    };
    match f.as_str() {
        "*" | ":" => Ok(Format::Collapsed),
        "block" => Ok(Format::Block(None)),
        "cyclic" => Ok(Format::Cyclic(1)),
        _ => {
            if let Some(arg) = f.strip_prefix("block(").and_then(|a| a.strip_suffix(')')) {
                Ok(Format::Block(Some(size(arg)?)))
            } else if let Some(arg) = f.strip_prefix("cyclic(").and_then(|a| a.strip_suffix(')')) {
                Ok(Format::Cyclic(size(arg)?))
            } else {
                Err(format!(
                    "`{f}` is not a format: use *, BLOCK, BLOCK(m), CYCLIC or CYCLIC(m)"
                ))
            }
        }
    }
}

/// A processor grid: `8` (one axis) or `4x2` (axes in order, the last varying fastest
/// from rank to rank, as `MPI_Cart_create` numbers them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Grid(pub Vec<u32>);

impl Grid {
    /// Reads `8` or `4x4`.
    pub fn parse(text: &str) -> Result<Grid, String> {
        let axes = text
            .split(['x', 'X', '*'])
            .map(|a| match a.trim().parse::<u32>() {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(format!(
                    "`{text}`: a processor count is a positive integer, a grid `4x4`"
                )),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Grid(axes))
    }

    /// Processors.
    pub fn processors(&self) -> u32 {
        self.0.iter().product()
    }

    /// `p` processors as a grid of `axes` axes, as even as the factors allow (the larger
    /// axes first, as `MPI_Dims_create`).
    pub fn even(p: u32, axes: usize) -> Grid {
        let mut dims = vec![1u32; axes.max(1)];
        let mut rest = p.max(1);
        let mut f = 2;
        let mut factors = vec![];
        while rest > 1 {
            while rest % f == 0 {
                factors.push(f);
                rest /= f;
            }
            f += 1;
        }
        for f in factors.into_iter().rev() {
            let smallest = (0..dims.len()).min_by_key(|&i| dims[i]).unwrap_or(0);
            dims[smallest] *= f;
        }
        dims.sort_unstable_by(|a, b| b.cmp(a));
        Grid(dims)
    }

    /// The coordinates of `rank` (row-major: the last axis fastest).
    pub fn coords(&self, rank: u32) -> Vec<u32> {
        let mut out = vec![0; self.0.len()];
        let mut r = rank;
        for (i, &n) in self.0.iter().enumerate().rev() {
            out[i] = r % n;
            r /= n;
        }
        out
    }

    /// The rank at `coords`, `None` off the grid.
    pub fn rank(&self, coords: &[i64]) -> Option<u32> {
        let mut r: i64 = 0;
        for (&c, &n) in coords.iter().zip(&self.0) {
            if c < 0 || c >= i64::from(n) {
                return None;
            }
            r = r * i64::from(n) + c;
        }
        u32::try_from(r).ok()
    }
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let axes: Vec<String> = self.0.iter().map(u32::to_string).collect();
        write!(f, "{}", axes.join("x"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distributions_read_as_written() {
        let d = ArrayDistribution::parse("U(*, BLOCK)").unwrap();
        assert_eq!(d.array, "u");
        assert_eq!(
            d.rule,
            Rule::Formats(vec![Format::Collapsed, Format::Block(None)])
        );
        assert_eq!(d.to_string(), "u(*,BLOCK)");
        let c = ArrayDistribution::parse("a(cyclic(4),block(10))").unwrap();
        assert_eq!(
            c.rule,
            Rule::Formats(vec![Format::Cyclic(4), Format::Block(Some(10))])
        );
        let w = ArrayDistribution::parse("v(:,:) with u(:,:)").unwrap();
        assert_eq!(w.rule, Rule::AlignedWith("u".into()));
        for bad in ["u", "u(BLOK)", "u(BLOCK(0))", "(BLOCK)", "u(BLOCK"] {
            assert!(ArrayDistribution::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn grids_number_ranks_row_major() {
        let g = Grid::parse("2x3").unwrap();
        assert_eq!(g.processors(), 6);
        assert_eq!(g.coords(4), vec![1, 1]);
        assert_eq!(g.rank(&[1, 2]), Some(5));
        assert_eq!(g.rank(&[2, 0]), None);
        assert_eq!(Grid::even(16, 2).0, vec![4, 4]);
        assert_eq!(Grid::even(8, 2).0, vec![4, 2]);
        assert_eq!(Grid::even(7, 1).0, vec![7]);
        assert!(Grid::parse("0").is_err());
    }
}
