//! Data distributions (P^3T+, Parashar & Hariri): what a sequential program would cost
//! with its arrays distributed over P processors under owner-computes, before anyone
//! writes the MPI code.
//!
//! [`analyze`] reads the program (its IR) and its profile (the block executions and the
//! values its nests ran with) with the distributions of some arrays ([`spec`]: from the
//! command line or `!HPF$` directives, [`hpf`]) and finds, for every loop nest that
//! assigns a distributed array, the loops the owner-computes rule splits over the
//! processors ([`work`]: each processor's share of them, exact where the bounds and
//! subscripts are affine) and the messages its non-local references need ([`comm`]:
//! halos of shifted references, broadcasts of a line at a fixed index, gathers,
//! reductions), hoisted out of the nest as HPF compilers vectorize them. [`traces`]
//! turns that into the per-rank traces an MPI profile holds, so the MPI predictor
//! (SimGrid's replay) prices them on a machine as it prices a traced MPI program.
//!
//! Pure analysis: never builds, runs or reads files.

pub mod comm;
pub mod hpf;
pub mod owner;
pub mod spec;
pub mod traces;
pub mod work;

use augur_ir::Program;
use augur_program_profile::ProgramProfile;
use owner::DimLayout;
use serde::Serialize;
use spec::{ArrayDistribution, Format, Grid, Rule};
use std::collections::BTreeMap;

/// A distributed array as laid out on the grid.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArrayLayout {
    /// The array (lower case).
    pub array: String,
    /// Each dimension's layout (collapsed dimensions over one processor).
    #[serde(skip)]
    pub dims: Vec<DimLayout>,
    /// The formats as resolved (an aligned array's are its target's).
    pub formats: Vec<Format>,
    /// The grid axis of each dimension (`None`: collapsed).
    pub axes: Vec<Option<usize>>,
    /// Bytes per element.
    pub element_bytes: u32,
    /// Where the bounds came from (`run`: the counting run recorded them; `declared`;
    /// `loops`: the ranges of the loops that index it).
    pub bounds_from: String,
}

impl ArrayLayout {
    /// The processors' grid coordinates along the axis of dimension `d` for `coords`.
    pub fn coord(&self, d: usize, coords: &[u32]) -> u32 {
        self.axes[d].map_or(0, |a| coords.get(a).copied().unwrap_or(0))
    }

    /// Elements a processor at `coords` holds of a cross-section across dimension `d`
    /// (every other dimension's local extent).
    pub fn cross_section(&self, d: usize, coords: &[u32]) -> i64 {
        (0..self.dims.len())
            .filter(|&k| k != d)
            .map(|k| self.dims[k].local_extent(self.coord(k, coords)))
            .product()
    }

    /// Elements a processor at `coords` holds.
    pub fn local_elements(&self, coords: &[u32]) -> i64 {
        (0..self.dims.len())
            .map(|k| self.dims[k].local_extent(self.coord(k, coords)))
            .product()
    }
}

/// A program's distribution analyzed: the layouts, the grid, every distributed nest.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    /// The processor grid.
    pub grid: Grid,
    /// The distributed arrays.
    pub layouts: BTreeMap<String, ArrayLayout>,
    /// The loop nests split over the processors, in program order.
    pub nests: Vec<work::Nest>,
    /// What was assumed or left out, for the user.
    pub notes: Vec<String>,
}

/// Analyzes `program` (profiled by `profile`) with `distributions` on a grid of
/// `processors` (one count: a grid as even as the arrays' distributed dimensions allow);
/// `templates` are HPF templates, distributed for their aligned arrays to follow.
/// Errors name what cannot apply: an array unknown, a format list that does not match
/// the array's rank, an alignment with no target, a BLOCK(m) too small.
pub fn analyze(
    program: &Program,
    profile: &ProgramProfile,
    distributions: &[ArrayDistribution],
    processors: &Grid,
    templates: &[String],
) -> Result<Analysis, String> {
    let formats = resolve(distributions)?;
    let axes_needed = formats
        .values()
        .map(|f| f.iter().filter(|x| **x != Format::Collapsed).count())
        .max()
        .unwrap_or(0);
    if axes_needed == 0 {
        return Err("no array is distributed: give a format other than `*` (`u(*,BLOCK)`)".into());
    }
    let grid = match processors.0.len() {
        1 if axes_needed > 1 => Grid::even(processors.0[0], axes_needed),
        n if n == axes_needed => processors.clone(),
        n => {
            return Err(format!(
                "the grid {processors} has {n} axes but the arrays are distributed over {axes_needed}: give one processor count (--procs {}) or a grid of {axes_needed} axes",
                processors.processors()
            ))
        }
    };
    let mut notes = vec![];
    let ranges = work::index_ranges(program, profile, &formats);
    let mut layouts = BTreeMap::new();
    for (array, f) in formats.iter().filter(|(a, _)| !templates.contains(a)) {
        let layout = work::layout(program, profile, array, f, &grid, ranges.get(array))?;
        layouts.insert(array.clone(), layout);
    }
    for l in layouts.values() {
        for (k, d) in l.dims.iter().enumerate() {
            let empty = (0..d.procs).filter(|&c| d.local_extent(c) == 0).count();
            if empty > 0 {
                notes.push(format!(
                    "at {} processors, {empty} of the {} along {}'s dimension {} own none of its {} indices: they have no work there, only the messages",
                    grid.processors(),
                    d.procs,
                    l.array,
                    k + 1,
                    d.extent
                ));
            }
        }
    }
    let nests = work::nests(program, profile, &layouts, &grid, &mut notes)?;
    Ok(Analysis {
        grid,
        layouts,
        nests,
        notes,
    })
}

/// Each array's formats, alignments followed to the array they end at (a permuted one
/// takes the target's format of the dimension each of its own follows; `*` where it
/// follows none).
fn resolve(distributions: &[ArrayDistribution]) -> Result<BTreeMap<String, Vec<Format>>, String> {
    let by_name: BTreeMap<&str, &ArrayDistribution> = distributions
        .iter()
        .map(|d| (d.array.as_str(), d))
        .collect();
    let mut out = BTreeMap::new();
    for d in distributions {
        out.insert(d.array.clone(), formats_of(d, &by_name, 0)?);
    }
    Ok(out)
}

/// The formats of `d`, following its alignment `hops` deep.
fn formats_of(
    d: &ArrayDistribution,
    by_name: &BTreeMap<&str, &ArrayDistribution>,
    hops: usize,
) -> Result<Vec<Format>, String> {
    if hops > by_name.len() {
        return Err(format!("`{d}`: the alignments go round in a circle"));
    }
    let Some(t) = d.rule.target() else {
        return Ok(match &d.rule {
            Rule::Formats(f) => f.clone(),
            _ => vec![],
        });
    };
    let target = by_name.get(t).ok_or_else(|| {
        format!("`{d}`: {t} is not distributed; distribute it too (`{t}(BLOCK)`)")
    })?;
    let formats = formats_of(target, by_name, hops + 1)?;
    Ok(match &d.rule {
        Rule::Permuted { dims, .. } => {
            let followed: Vec<usize> = dims.iter().flatten().copied().collect();
            if let Some(k) = (0..formats.len())
                .find(|k| !followed.contains(k) && formats[*k] != Format::Collapsed)
            {
                return Err(format!(
                    "`{d}`: no dimension of {} follows {t}'s distributed dimension {}, which would replicate it over that axis (not modelled yet): give {} its own DISTRIBUTE",
                    d.array,
                    k + 1,
                    d.array
                ));
            }
            dims.iter()
                .map(|k| {
                    k.and_then(|k| formats.get(k).copied())
                        .unwrap_or(Format::Collapsed)
                })
                .collect()
        }
        _ => formats,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(list: &[&str]) -> Vec<ArrayDistribution> {
        list.iter()
            .map(|t| ArrayDistribution::parse(t).unwrap())
            .collect()
    }

    #[test]
    fn a_permuted_alignment_takes_the_target_formats_of_the_dimensions_it_follows() {
        let d = parsed(&["u(*,BLOCK)", "v(i,j) WITH u(j,i)"]);
        let f = resolve(&d).unwrap();
        assert_eq!(f["v"], vec![Format::Block(None), Format::Collapsed]);
        // No dimension of x follows u's BLOCK one: x would be replicated over that axis,
        // which is refused with what to do.
        let d = parsed(&["u(*,BLOCK)", "x(i) WITH u(i,:)"]);
        let e = resolve(&d).unwrap_err();
        assert!(e.contains("replicate") && e.contains("DISTRIBUTE"), "{e}");
        let ok = parsed(&["u(*,BLOCK)", "x(i,k) WITH u(i,k)", "y(k) WITH u(:,k)"]);
        let f = resolve(&ok).unwrap();
        assert_eq!(f["x"], vec![Format::Collapsed, Format::Block(None)]);
        assert_eq!(f["y"], vec![Format::Block(None)]);
        // Aligned through a permuted array: the permutation carries on.
        let chain = parsed(&["u(*,BLOCK)", "v(i,j) WITH u(j,i)", "w WITH v"]);
        assert_eq!(
            resolve(&chain).unwrap()["w"],
            vec![Format::Block(None), Format::Collapsed]
        );
        let circle = parsed(&["a WITH b", "b(i,j) WITH a(j,i)"]);
        assert!(resolve(&circle).unwrap_err().contains("circle"));
    }
}
