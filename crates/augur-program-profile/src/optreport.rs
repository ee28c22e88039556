//! The compiler's optimization report as the program profile keeps it: which loops the
//! compiler vectorized or unrolled, which calls it inlined, which lines branch, per
//! source line (made by `augur_toolchain::optreport`). It belongs to one compiler and
//! one set of flags: the predictor uses it only for a machine profile built with the
//! same ones.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// What the compiler said it did to the program.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OptReport {
    /// The compiler the report is from.
    pub compiler: String,
    /// Its version line.
    #[serde(default)]
    pub compiler_version: String,
    /// The user's flags (the report flags are not included).
    pub fflags: Vec<String>,
    /// Loops the compiler vectorized, at the line of the loop (or of the array statement).
    pub vectorized: Vec<VectorizedLoop>,
    /// Call sites the compiler inlined, one entry per site (a line with three inlined
    /// calls has three entries).
    pub inlined: Vec<InlinedCall>,
    /// Loops the compiler unrolled completely (their loop control is gone), at the line
    /// of the loop or of the array statement.
    #[serde(default)]
    pub unrolled: Vec<UnrolledLoop>,
    /// Other loop transformations the compiler reported, which the predictor does not
    /// model: partial unrolling, interchange, distribution into several loops,
    /// unswitching. Empty in profiles made before the field.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transformed: Vec<TransformedLoop>,
    /// Source lines whose machine code selects without branching: conditional moves,
    /// sets or min/max and no conditional jump (an IF the compiler if-converted; its
    /// outcomes cannot be mispredicted). Read from the assembly of the same compile.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub branchless: Vec<SourceLine>,
    /// Source lines whose machine code holds a conditional jump (a branch the compiler
    /// kept, whatever the shape of its arms).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub branching: Vec<SourceLine>,
    /// Source lines holding a load wider than the stores that just wrote its bytes (a
    /// vector read of a small array stored element by element): the store forwarding
    /// fails and the load waits for the stores to reach the cache. One entry per load.
    /// Empty in profiles made before the field.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forwarding_failures: Vec<SourceLine>,
    /// Source lines whose machine code calls the C library's `memcpy`, `memmove` or
    /// `memset`: an array assignment the compiler emitted as one block move (a
    /// contiguous copy `u = w`, a fill `a = 0`), at every optimization level. Empty in
    /// profiles made before the field: such statements are priced as element loops.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub library_moves: Vec<SourceLine>,
    /// The innermost loops of the compiled code, read from the assembly of the same
    /// compile and mapped to their source loops (`crate::compiled`). Empty in profiles
    /// made before them: those loops are priced by their AbOps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compiled_loops: Vec<crate::compiled::CompiledLoop>,
    /// The straight-line procedures of the same assembly (no loop, jump or call), each
    /// recorded as the body of a loop run once a call, on the first source line of its
    /// code (`augur_toolchain::compiled::compiled_bodies`). Empty in profiles made
    /// before them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compiled_bodies: Vec<crate::compiled::CompiledLoop>,
    /// Compiled loops that could not be mapped to a source loop or read, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmapped_loops: Vec<crate::compiled::UnmappedLoop>,
    /// Problems in getting the report (a file that did not compile alone, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// True once [`OptReport::sort_by_line`] has ordered `compiled_loops`,
    /// `compiled_bodies` and `vectorized` by line: their lookups by line then search
    /// instead of scanning (a prediction looks up each of a program's loops). Not in the
    /// file; a report changed afterwards must be sorted again.
    #[serde(skip)]
    pub sorted_by_line: bool,
}

/// A source line.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SourceLine {
    /// The source file, as in the profile's `sources`.
    pub file: String,
    /// 1-based line.
    pub line: u32,
}

/// A loop the compiler vectorized.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VectorizedLoop {
    /// The source file, as in the profile's `sources`.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// What the compiler said about it (vector width).
    pub how: String,
}

/// A loop the compiler unrolled completely.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnrolledLoop {
    /// The source file, as in the profile's `sources`.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// Its trip count, when the compiler said.
    pub iterations: Option<u32>,
}

/// A loop the compiler transformed in a way the predictor does not model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TransformedLoop {
    /// The source file, as in the profile's `sources`.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// What the compiler said it did (`unrolled 4 times`, `interchanged`, ...).
    pub what: String,
}

/// A call site the compiler inlined.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InlinedCall {
    /// The source file, as in the profile's `sources`.
    pub file: String,
    /// 1-based line of the call.
    pub line: u32,
    /// The procedure inlined.
    pub callee: String,
    /// The procedure it was inlined into.
    pub caller: String,
}

impl OptReport {
    /// Orders the lists looked up by line (stably: entries of one line keep their order)
    /// and says so ([`OptReport::sorted_by_line`]).
    pub fn sort_by_line(&mut self) {
        self.compiled_loops.sort_by_key(|c| c.line);
        self.compiled_bodies.sort_by_key(|c| c.line);
        self.vectorized.sort_by_key(|v| v.line);
        self.sorted_by_line = true;
    }

    /// The compiled loop mapped to the source loop on `file:line`, if any.
    pub fn compiled_loop(&self, file: &str, line: u32) -> Option<&crate::compiled::CompiledLoop> {
        within(&self.compiled_loops, self.sorted_by_line, line, line, |c| {
            c.line
        })
        .iter()
        .find(|c| c.line == line && same_file(&c.file, file))
    }

    /// The compiled straight-line body of the procedure whose source runs from `first`
    /// to `last` in `file`, if one was recorded.
    pub fn compiled_body(
        &self,
        file: &str,
        first: u32,
        last: u32,
    ) -> Option<&crate::compiled::CompiledLoop> {
        within(
            &self.compiled_bodies,
            self.sorted_by_line,
            first,
            last,
            |c| c.line,
        )
        .iter()
        .find(|c| (first..=last).contains(&c.line) && same_file(&c.file, file))
    }

    /// Whether the compiler vectorized a loop reported at `file:line`.
    pub fn is_vectorized(&self, file: &str, line: u32) -> bool {
        self.vectorized_within(file, line, line)
    }

    /// Whether a vectorized loop is reported anywhere in `file:first..=last`.
    pub fn vectorized_within(&self, file: &str, first: u32, last: u32) -> bool {
        within(&self.vectorized, self.sorted_by_line, first, last, |v| {
            v.line
        })
        .iter()
        .any(|v| (first..=last).contains(&v.line) && same_file(&v.file, file))
    }

    /// Whether a complete unroll is reported at `file:line`.
    pub fn is_unrolled(&self, file: &str, line: u32) -> bool {
        self.unrolled
            .iter()
            .any(|u| u.line == line && same_file(&u.file, file))
    }

    /// Whether a complete unroll is reported anywhere in `file:first..=last`.
    pub fn unrolled_within(&self, file: &str, first: u32, last: u32) -> bool {
        self.unrolled
            .iter()
            .any(|u| (first..=last).contains(&u.line) && same_file(&u.file, file))
    }

    /// How many inlined call sites are reported in `file:first..=last`.
    pub fn inlined_within(&self, file: &str, first: u32, last: u32) -> usize {
        self.inlined
            .iter()
            .filter(|c| (first..=last).contains(&c.line) && same_file(&c.file, file))
            .count()
    }

    /// How many lines of `file:first..=last` compiled without a conditional jump.
    pub fn branchless_within(&self, file: &str, first: u32, last: u32) -> usize {
        self.branchless
            .iter()
            .filter(|s| (first..=last).contains(&s.line) && same_file(&s.file, file))
            .count()
    }

    /// The transformations the predictor does not model reported at `file:line`.
    pub fn transformed_at(&self, file: &str, line: u32) -> Vec<&TransformedLoop> {
        self.transformed
            .iter()
            .filter(|t| t.line == line && same_file(&t.file, file))
            .collect()
    }

    /// Whether the code of `file:line` selects without a conditional jump.
    pub fn is_branchless(&self, file: &str, line: u32) -> bool {
        holds_line(&self.branchless, file, line)
    }

    /// Whether the code of `file:line` holds a conditional jump.
    pub fn is_branching(&self, file: &str, line: u32) -> bool {
        holds_line(&self.branching, file, line)
    }

    /// Puts the line lists in the order [`holds_line`] searches (file, then line), as
    /// `augur analyze` writes them; a profile edited by hand may not hold them so.
    pub fn sort_lines(&mut self) {
        for v in [
            &mut self.branchless,
            &mut self.branching,
            &mut self.library_moves,
        ] {
            if !v.windows(2).all(|w| w[0] <= w[1]) {
                v.sort();
            }
        }
    }
}

/// Whether `lines` (sorted by file, then line: [`OptReport::sort_lines`]) hold `file:line`:
/// by bisection where the file is spelled as in `lines` (a large program's 4,000 blocks
/// each asked a list of 1,800 lines one by one took 6% of its prediction), one by one by
/// file name otherwise ([`same_file`]).
fn holds_line(lines: &[SourceLine], file: &str, line: u32) -> bool {
    let first = lines.partition_point(|s| s.file.as_str() < file);
    if lines.get(first).is_some_and(|s| s.file == file) {
        return lines
            .binary_search_by(|s| (s.file.as_str(), s.line).cmp(&(file, line)))
            .is_ok();
    }
    lines
        .iter()
        .any(|b| b.line == line && same_file(&b.file, file))
}

/// The entries of `items` whose line may lie in `first..=last`: the run of them there when
/// `sorted` by `line_of`, all of them otherwise.
fn within<T>(
    items: &[T],
    sorted: bool,
    first: u32,
    last: u32,
    line_of: impl Fn(&T) -> u32,
) -> &[T] {
    if !sorted {
        return items;
    }
    let from = items.partition_point(|x| line_of(x) < first);
    let to = from + items[from..].partition_point(|x| line_of(x) <= last);
    &items[from..to]
}

/// Compiler names compared by their command's base name, so `/usr/bin/gfortran` and
/// `gfortran` are the same, and `flang-19` is `flang-new-19`.
pub fn same_compiler(a: &str, b: &str) -> bool {
    let norm = |s: &str| {
        let base = Path::new(s)
            .file_name()
            .map(|f| f.to_string_lossy().to_string())
            .unwrap_or_else(|| s.to_string());
        base.replace("flang-new", "flang")
    };
    norm(a) == norm(b)
}

/// Whether two names of a source file name the same file (the report names files as
/// given to the compiler, the profile as given to augur: compared by file name).
pub fn same_file(a: &str, b: &str) -> bool {
    a == b || Path::new(a).file_name() == Path::new(b).file_name()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compilers_compare_by_base_name() {
        assert!(same_compiler("/usr/bin/gfortran", "gfortran"));
        assert!(same_compiler("flang-19", "flang-new-19"));
        assert!(!same_compiler("gfortran", "flang-new-19"));
    }

    #[test]
    fn a_line_is_found_by_its_file_as_spelled_or_by_the_file_name() {
        let at = |file: &str, line| SourceLine {
            file: file.to_string(),
            line,
        };
        let mut r = OptReport {
            branching: vec![
                at("/src/b.f90", 7),
                at("/src/a.f90", 9),
                at("/src/a.f90", 3),
            ],
            ..OptReport::default()
        };
        r.sort_lines();
        assert!(r.is_branching("/src/a.f90", 3) && r.is_branching("/src/a.f90", 9));
        assert!(!r.is_branching("/src/a.f90", 7) && r.is_branching("/src/b.f90", 7));
        // Another spelling of the same file: by its name.
        assert!(r.is_branching("a.f90", 9) && !r.is_branching("a.f90", 7));
        assert!(!r.is_branching("/src/c.f90", 7));
    }

    /// A report sorted by line finds every compiled loop, body and vectorized loop the
    /// same report finds unsorted, and nothing more.
    #[test]
    fn a_report_sorted_by_line_finds_what_it_found_unsorted() {
        let cl = |file: &str, line| crate::compiled::CompiledLoop {
            file: file.to_string(),
            line,
            ..serde_json::from_str(
                r#"{"file": "", "line": 0, "function": "f", "instructions": [],
                    "source_iterations": 1, "lanes": 1, "source_iterations_from": "",
                    "chains": [], "span": [], "issued": 1}"#,
            )
            .unwrap()
        };
        let vl = |file: &str, line| VectorizedLoop {
            file: file.to_string(),
            line,
            how: String::new(),
        };
        let mut r = OptReport {
            compiled_loops: vec![cl("/s/b.f90", 40), cl("/s/a.f90", 12), cl("/s/a.f90", 40)],
            compiled_bodies: vec![cl("/s/a.f90", 30), cl("/s/b.f90", 5)],
            vectorized: vec![vl("/s/b.f90", 17), vl("/s/a.f90", 12)],
            ..OptReport::default()
        };
        let ask = |r: &OptReport| {
            let mut seen = vec![];
            for f in ["/s/a.f90", "b.f90", "/s/c.f90"] {
                for line in [5, 12, 17, 30, 40, 41] {
                    seen.push((
                        r.compiled_loop(f, line).map(|c| (c.file.clone(), c.line)),
                        r.compiled_body(f, line, line + 10).map(|c| c.line),
                        r.is_vectorized(f, line),
                        r.vectorized_within(f, 1, line),
                    ));
                }
            }
            seen
        };
        let unsorted = ask(&r);
        r.sort_by_line();
        assert!(r.sorted_by_line);
        assert_eq!(ask(&r), unsorted);
        assert_eq!(
            r.compiled_loop("b.f90", 40).map(|c| c.file.as_str()),
            Some("/s/b.f90")
        );
        assert!(r.compiled_loop("/s/c.f90", 40).is_none());
    }
}
