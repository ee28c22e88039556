//! Saavedra-Barrera's published machine characterizations, transcribed from the
//! dissertation's text into augur machine profiles (`augur machines --import-thesis`).
//!
//! Read from the text: Appendix 2.B (Tables 2.10-2.14, the 15 machines of chapter 2,
//! unoptimized), Appendix 4.A (Tables 4.16-4.20, three workstations at several
//! optimization levels), and for checking: Appendix 2.C (Tables 2.15-2.17, the reduced
//! parameters) and Table 2.6 (the 25 closest and 25 farthest pairs). Every value is
//! nanoseconds per operation, a mean without an interval. `1<` (or `< 1`) is "not
//! detected" and stays so; the AbOps the tables do not give are `not published`.
//!
//! The text is an OCR extraction; a few column headers are misspelt. They are corrected
//! here, each in [`HEADER_FIXES`], and nothing else: a value that is not a whole number,
//! or a row with the wrong number of fields, is an error naming the file and line.

use augur_ir::AbOp;
use augur_machine_profile::{
    AbOpEntry, MachineProfile, Provenance, MEASURED, NOT_DETECTED, NOT_PUBLISHED_PREFIX,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The publication.
pub const CITATION: &str = "R. H. Saavedra-Barrera, CPU Performance Evaluation and Execution Time Prediction Using Narrow Spectrum Benchmarking, PhD dissertation, UC Berkeley, 1992";

/// OCR misspellings of column headers and Saavedra's names the catalogue spells
/// otherwise: `(printed, AbOp)`.
pub const HEADER_FIXES: [(&str, &str); 6] = [
    ("MRSRSL", "MRSL"), // Table 2.10, group 1: the OCR doubled a syllable
    ("XRSRSL", "XRSL"), // Table 2.10, group 1: the same
    ("SRL", "SRSL"),    // Table 4.16, group 1: a letter lost
    ("SJNS", "SINS"),   // Table 4.19, group 15: I read as J
    ("CPLX", "CLPX"),   // Table 4.20, group 19: letters swapped
    ("ARGU", "ARGL"),   // Saavedra's name for an argument (catalogue: ARGL)
];

/// Machine names of Appendix 2.C and Table 2.6 that differ from Appendix 2.B's.
pub const NAME_ALIASES: [(&str, &str); 6] = [
    ("CRAY X-MP/48", "CRAY X-MP/432"),
    ("VAX-11/785 (fort)", "VAX-11/785 fort"),
    ("VAX-11/785 (f77)", "VAX-11/785 f77"),
    ("Vax-11/780", "VAX-11/780"),
    ("Vax-780.f77", "VAX-11/780"),
    ("Sun 3/260 (F)", "Sun 3/260 (f)"),
];

/// A line of the seed text that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ThesisError {
    /// The text is not what the tables look like.
    #[error("{file}:{line}: {message}")]
    Format {
        /// The seed file.
        file: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A section is missing.
    #[error("{file}: no `{marker}` line: is this Saavedra-Barrera's dissertation (seed 001)?")]
    Missing {
        /// The seed file.
        file: String,
        /// The line looked for.
        marker: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A profile could not be written.
    #[error(transparent)]
    Profile(#[from] augur_machine_profile::ProfileError),
}

/// One published value: ns (`None`: not detected), its table, group and line.
#[derive(Debug, Clone, PartialEq)]
pub struct Published {
    /// Nanoseconds; `None` for `1<` (not detected).
    pub ns: Option<f64>,
    /// `Table 2.10, Group 1: ...`.
    pub table: String,
    /// 1-based line in the seed.
    pub line: usize,
}

/// One machine of the tables.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoricalMachine {
    /// The name as the tables print it, with the optimization level if any.
    pub name: String,
    /// The optimization level of Tables 4.16-4.20 (`-O2`); empty for Appendix 2.B.
    pub optim: String,
    /// The file stem: `cray-y-mp-832`, `hp-720-o2`.
    pub slug: String,
    /// Which appendix: `Appendix 2.B (Tables 2.10-2.14)`.
    pub appendix: &'static str,
    /// Its values.
    pub values: BTreeMap<AbOp, Published>,
}

/// Appendix 2.C's value of one reduced parameter of one machine, as printed.
#[derive(Debug, Clone, PartialEq)]
pub struct PublishedReduced {
    /// The machine's slug.
    pub machine: String,
    /// 1-17.
    pub parameter: usize,
    /// The value as printed (its digits give its precision).
    pub value: String,
    /// 1-based line in the seed.
    pub line: usize,
}

/// One row of Table 2.6, as printed.
#[derive(Debug, Clone, PartialEq)]
pub struct PublishedDistance {
    /// Its rank, 1 (closest) to 105 (farthest).
    pub rank: usize,
    /// The two machines' slugs, as the table names them.
    pub a: String,
    /// The second machine.
    pub b: String,
    /// The distance as printed.
    pub value: String,
    /// 1-based line in the seed.
    pub line: usize,
}

/// Everything read from the seed.
#[derive(Debug, Clone, PartialEq)]
pub struct Thesis {
    /// The seed's file name (for provenance).
    pub file: String,
    /// Appendix 2.B's and 4.A's machines.
    pub machines: Vec<HistoricalMachine>,
    /// Appendix 2.C.
    pub reduced: Vec<PublishedReduced>,
    /// Table 2.6.
    pub distances: Vec<PublishedDistance>,
}

/// The file stem of a machine: lower case, runs of other characters as one `-`.
pub fn slug(name: &str) -> String {
    let mut s = String::new();
    for c in name.replace('+', "plus").chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if !s.ends_with('-') {
            s.push('-');
        }
    }
    s.trim_matches('-').to_string()
}

/// The slug of a machine as Appendix 2.C or Table 2.6 names it.
pub fn alias_slug(name: &str) -> String {
    let name = name.trim();
    let canonical = NAME_ALIASES
        .iter()
        .find(|(a, _)| *a == name)
        .map_or(name, |(_, c)| c);
    slug(canonical)
}

struct Lines<'a> {
    file: &'a str,
    lines: Vec<&'a str>,
}

impl<'a> Lines<'a> {
    fn err(&self, i: usize, message: impl Into<String>) -> ThesisError {
        ThesisError::Format {
            file: self.file.to_string(),
            line: i + 1,
            message: message.into(),
        }
    }

    /// The index of the first line equal to (or, `prefix`, starting with) `marker` at or
    /// after `from`.
    fn find(&self, marker: &str, from: usize, prefix: bool) -> Result<usize, ThesisError> {
        (from..self.lines.len())
            .find(|&i| {
                let l = self.lines[i].trim_end();
                if prefix {
                    l.starts_with(marker)
                } else {
                    l == marker
                }
            })
            .ok_or_else(|| ThesisError::Missing {
                file: self.file.to_string(),
                marker: marker.to_string(),
            })
    }
}

/// Reads the seed text; `file` names it in errors and provenance.
pub fn parse(text: &str, file: &str) -> Result<Thesis, ThesisError> {
    let l = Lines {
        file,
        lines: text.lines().collect(),
    };
    let b = l.find("Appendix 2.B", 0, false)?;
    let c = l.find("Appendix 2.C", b, false)?;
    let c_end = l.find("Table 2.17:", c, true)?;
    let a4 = l.find("Appendix 4.A", c, false)?;
    let b4 = l.find("Appendix 4.B", a4, false)?;
    let mut machines = read_tables(&l, b, c, false, "Appendix 2.B (Tables 2.10-2.14)")?;
    machines.extend(read_tables(
        &l,
        a4,
        b4,
        true,
        "Appendix 4.A (Tables 4.16-4.20)",
    )?);
    let t6 = l.find("Most Similar Machines", 0, true)?;
    let t6_end = l.find("Table 2.6:", t6, true)?;
    Ok(Thesis {
        file: Path::new(file)
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or(file)
            .to_string(),
        machines,
        reduced: read_appendix_2c(&l, c, c_end)?,
        distances: read_table_2_6(&l, t6, t6_end)?,
    })
}

/// A value cell: ns, or `None` for not detected.
fn cell(l: &Lines, i: usize, s: &str) -> Result<Option<f64>, ThesisError> {
    let s = s.trim();
    if s == "1<" || s == "< 1" {
        return Ok(None);
    }
    s.parse::<u64>()
        .map(|v| Some(v as f64))
        .map_err(|_| l.err(i, format!("`{s}` is neither a whole number of ns nor `1<`")))
}

/// A column header as an AbOp.
fn header(l: &Lines, i: usize, h: &str) -> Result<AbOp, ThesisError> {
    let h = h.trim();
    let fixed = HEADER_FIXES
        .iter()
        .find(|(p, _)| *p == h)
        .map_or(h, |(_, f)| f);
    AbOp::from_mnemonic(fixed)
        .ok_or_else(|| l.err(i, format!("column `{h}` is not an abstract operation")))
}

/// The per-group tables between `from` and `to`: a `machine` header line, then one row
/// per machine until a blank line; the caption `Table N:` after the groups names their
/// table.
fn read_tables(
    l: &Lines,
    from: usize,
    to: usize,
    optim: bool,
    appendix: &'static str,
) -> Result<Vec<HistoricalMachine>, ThesisError> {
    let mut machines: Vec<HistoricalMachine> = vec![];
    let mut pending: Vec<(usize, AbOp, Option<f64>, usize, String)> = vec![];
    let mut group = String::new();
    let mut columns: Option<Vec<AbOp>> = None;
    let skip = if optim { 2 } else { 1 };
    for i in from + 1..to {
        let line = l.lines[i].trim_end();
        if line.starts_with("Group") {
            group = line.to_string();
        } else if line.starts_with("machine\t") {
            let heads: Vec<&str> = line
                .split('\t')
                .skip(skip)
                .filter(|h| !h.is_empty())
                .collect();
            columns = Some(
                heads
                    .iter()
                    .map(|h| header(l, i, h))
                    .collect::<Result<_, _>>()?,
            );
        } else if line.is_empty() {
            columns = None;
        } else if let Some(table) = line.strip_prefix("Table ") {
            let table = table.split(':').next().unwrap_or(table);
            for (m, op, ns, line, group) in pending.drain(..) {
                let table = format!("Table {table}, {group}");
                machines[m].values.insert(op, Published { ns, table, line });
            }
        } else if let Some(cols) = &columns {
            let fields: Vec<&str> = line.split('\t').collect();
            let values: Vec<&str> = fields[skip.min(fields.len())..]
                .iter()
                .copied()
                .filter(|f| !f.trim().is_empty())
                .collect();
            if fields.len() < skip || values.len() != cols.len() {
                return Err(l.err(
                    i,
                    format!("{} values for {} columns", values.len(), cols.len()),
                ));
            }
            let name = fields[0].trim().to_string();
            let level = if optim {
                fields[1].trim().to_string()
            } else {
                String::new()
            };
            let m = machine_index(&mut machines, &name, &level, appendix);
            for (op, v) in cols.iter().zip(values) {
                pending.push((m, *op, cell(l, i, v)?, i + 1, group.clone()));
            }
        } else {
            return Err(l.err(i, format!("unexpected line `{line}` in {appendix}")));
        }
    }
    if let Some(&(_, _, _, line, _)) = pending.first() {
        return Err(l.err(line - 1, "a group without its `Table N:` caption"));
    }
    Ok(machines)
}

/// The index of a machine in the list, added when new.
fn machine_index(
    machines: &mut Vec<HistoricalMachine>,
    name: &str,
    optim: &str,
    appendix: &'static str,
) -> usize {
    if let Some(i) = machines
        .iter()
        .position(|m| m.name == name && m.optim == optim)
    {
        return i;
    }
    machines.push(HistoricalMachine {
        name: name.to_string(),
        optim: optim.to_string(),
        slug: slug(&format!("{name} {optim}")),
        appendix,
        values: BTreeMap::new(),
    });
    machines.len() - 1
}

/// Appendix 2.C: `Parameter N: title`, a `Machine` header, one row per machine.
fn read_appendix_2c(
    l: &Lines,
    from: usize,
    to: usize,
) -> Result<Vec<PublishedReduced>, ThesisError> {
    let mut out = vec![];
    let mut parameter = None;
    for i in from + 1..to {
        let line = l.lines[i].trim_end();
        if let Some(rest) = line.strip_prefix("Parameter ") {
            let n = rest.split(':').next().unwrap_or("");
            parameter = Some(
                n.parse::<usize>()
                    .map_err(|_| l.err(i, format!("`{n}` is not a parameter number")))?,
            );
        } else if line.is_empty() || line.starts_with("Machine\t") || line.starts_with("Table ") {
            continue;
        } else {
            let fields: Vec<&str> = line.split('\t').collect();
            let (Some(p), [name, value, _, _, _]) = (parameter, fields.as_slice()) else {
                return Err(l.err(
                    i,
                    "expected `machine, value, m/f, m/cray, v780/m` under a `Parameter N:` line",
                ));
            };
            value
                .trim()
                .parse::<f64>()
                .map_err(|_| l.err(i, format!("`{value}` is not a number")))?;
            out.push(PublishedReduced {
                machine: alias_slug(name),
                parameter: p,
                value: value.trim().to_string(),
                line: i + 1,
            });
        }
    }
    Ok(out)
}

/// Table 2.6: rows `rank, machine, machine, distance` twice (closest, farthest).
fn read_table_2_6(
    l: &Lines,
    from: usize,
    to: usize,
) -> Result<Vec<PublishedDistance>, ThesisError> {
    let mut out = vec![];
    for i in from + 2..to {
        let line = l.lines[i].trim_end();
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').filter(|f| !f.is_empty()).collect();
        if fields.len() != 8 {
            return Err(l.err(i, "expected two `rank, machine, machine, distance` groups"));
        }
        for half in fields.chunks(4) {
            let rank = half[0]
                .parse::<usize>()
                .map_err(|_| l.err(i, format!("`{}` is not a rank", half[0])))?;
            half[3]
                .parse::<f64>()
                .map_err(|_| l.err(i, format!("`{}` is not a distance", half[3])))?;
            out.push(PublishedDistance {
                rank,
                a: alias_slug(half[1]),
                b: alias_slug(half[2]),
                value: half[3].to_string(),
                line: i + 1,
            });
        }
    }
    out.sort_by_key(|d| d.rank);
    Ok(out)
}

/// The compiler of a machine of the tables and its description: the VAX-11/785 was
/// measured with both VMS FORTRAN and BSD f77; the others with their vendor's f77.
fn compiler(name: &str) -> (&'static str, &'static str) {
    if name.ends_with("fort") {
        ("fort", "VMS FORTRAN v4.7")
    } else if name.ends_with("f77") {
        ("f77", "BSD f77 v1.1")
    } else {
        ("f77", "the machine's Fortran compiler (thesis Table 2.3)")
    }
}

/// The profile of one machine: published costs `measured` without an interval, `1<` as
/// `not detected`, the rest `not published`.
pub fn profile(m: &HistoricalMachine, file: &str) -> MachineProfile {
    let mut p = MachineProfile::new(Provenance {
        cpu_model: m.name.clone(),
        cores: 1,
        compiler: compiler(&m.name).0.to_string(),
        compiler_version: compiler(&m.name).1.to_string(),
        // Chapter 2's machines ran unoptimized code.
        fflags: if m.optim.is_empty() { "-O0".to_string() } else { m.optim.clone() },
        date: "1992".to_string(),
        augur_version: env!("CARGO_PKG_VERSION").to_string(),
        mode: "historical".to_string(),
        source: format!(
            "{CITATION}, {}: published means in ns, without intervals; transcribed by `augur machines --import-thesis` from {file}",
            m.appendix
        ),
        ..Default::default()
    });
    let unpublished = format!("{NOT_PUBLISHED_PREFIX}{} gives no value for it", m.appendix);
    for op in augur_ir::abop::ALL {
        let entry = match m.values.get(op) {
            Some(v) => published_entry(v, file),
            None => AbOpEntry::status(unpublished.clone()),
        };
        p.abop.insert(*op, entry);
    }
    p
}

fn published_entry(v: &Published, file: &str) -> AbOpEntry {
    let (status, what) = match v.ns {
        Some(_) => (MEASURED, "published mean; the thesis gives no interval"),
        None => (NOT_DETECTED, "printed `1<`: not detected by the experiment"),
    };
    AbOpEntry {
        status: status.to_string(),
        mean_ns: v.ns,
        context: format!("{} ({file} line {}): {what}", v.table, v.line),
        ..AbOpEntry::status(status)
    }
}

/// The file of Appendix 2.C's values in the output directory.
pub const APPENDIX_2C_FILE: &str = "thesis-appendix-2c.tsv";
/// The file of Table 2.6's distances in the output directory.
pub const TABLE_2_6_FILE: &str = "thesis-table-2.6.tsv";

/// Writes one profile per machine (`SLUG.toml`) and the published reduced parameters and
/// distances (two TSV files) into `dir`; returns the files written.
pub fn write(thesis: &Thesis, dir: &Path) -> Result<Vec<PathBuf>, ThesisError> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| ThesisError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let mut written = vec![];
    for m in &thesis.machines {
        let path = dir.join(format!("{}.toml", m.slug));
        profile(m, &thesis.file).write(&path)?;
        written.push(path);
    }
    let reduced: String = thesis
        .reduced
        .iter()
        .map(|r| format!("{}\t{}\t{}\t{}\n", r.machine, r.parameter, r.value, r.line))
        .collect();
    let distances: String = thesis
        .distances
        .iter()
        .map(|d| format!("{}\t{}\t{}\t{}\t{}\n", d.rank, d.a, d.b, d.value, d.line))
        .collect();
    let header = |what: &str, cols: &str| {
        format!("# {what}, {CITATION}; transcribed by `augur machines --import-thesis` from {} (line = its line)\n# {cols}\n", thesis.file)
    };
    for (name, head, body) in [
        (
            APPENDIX_2C_FILE,
            header(
                "Appendix 2.C (Tables 2.15-2.17)",
                "machine\tparameter\tvalue_ns\tline",
            ),
            reduced,
        ),
        (
            TABLE_2_6_FILE,
            header("Table 2.6", "rank\tmachine_a\tmachine_b\tdistance\tline"),
            distances,
        ),
    ] {
        let path = dir.join(name);
        let tmp = dir.join(format!(".{name}.tmp"));
        std::fs::write(&tmp, head + &body).map_err(io(&tmp))?;
        std::fs::rename(&tmp, &path).map_err(io(&path))?;
        written.push(path);
    }
    Ok(written)
}

/// The rows of one of the TSV files [`write`] makes: fields of each non-comment line.
fn read_tsv(path: &Path, columns: usize) -> Result<Vec<(usize, Vec<String>)>, ThesisError> {
    let text = std::fs::read_to_string(path).map_err(|source| ThesisError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let mut rows = vec![];
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<String> = line.split('\t').map(str::to_string).collect();
        if fields.len() != columns {
            return Err(ThesisError::Format {
                file: path.display().to_string(),
                line: i + 1,
                message: format!("{} fields, expected {columns}", fields.len()),
            });
        }
        rows.push((i + 1, fields));
    }
    Ok(rows)
}

fn number<T: std::str::FromStr>(path: &Path, line: usize, s: &str) -> Result<T, ThesisError> {
    s.parse().map_err(|_| ThesisError::Format {
        file: path.display().to_string(),
        line,
        message: format!("`{s}` is not a number"),
    })
}

/// Reads [`APPENDIX_2C_FILE`].
pub fn read_published_reduced(path: &Path) -> Result<Vec<PublishedReduced>, ThesisError> {
    read_tsv(path, 4)?
        .into_iter()
        .map(|(i, f)| {
            number::<f64>(path, i, &f[2])?;
            Ok(PublishedReduced {
                machine: f[0].clone(),
                parameter: number(path, i, &f[1])?,
                value: f[2].clone(),
                line: number(path, i, &f[3])?,
            })
        })
        .collect()
}

/// Reads [`TABLE_2_6_FILE`].
pub fn read_published_distances(path: &Path) -> Result<Vec<PublishedDistance>, ThesisError> {
    read_tsv(path, 5)?
        .into_iter()
        .map(|(i, f)| {
            number::<f64>(path, i, &f[3])?;
            Ok(PublishedDistance {
                rank: number(path, i, &f[0])?,
                a: f[1].clone(),
                b: f[2].clone(),
                value: f[3].clone(),
                line: number(path, i, &f[4])?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "intro\nAppendix 2.B\n\nGroup 1: Floating-Point\n\nmachine\tSRSL\tMRSRSL\nCRAY Y-MP/832\t13\t1<\n\nTable 2.10: results\n\nAppendix 2.C\n\nParameter 1: Memory\n\nMachine\tvalue\tm/f\tm/cray\tv780/m\nCRAY Y-MP/832\t44.5\t1.30\t1.00\t22.27\n\nTable 2.17: values\nAppendix 4.A\n\nGroup 1: x\n\nmachine\toptim\tSRL\nHP 720\t-O0\t< 1\n\nTable 4.16: x\n\nAppendix 4.B\n";

    fn with_table_2_6(s: &str) -> String {
        format!("Most Similar Machines\t\t\tLeast\n\tmachine\tmachine\tdistance\n001\tVAX 8600\tCRAY X-MP/48\t0.187\t105\tCRAY-2\tSun 3/260\t1.753\n\nTable 2.6: pairs\n{s}")
    }

    #[test]
    fn reads_tables_with_fixed_headers_and_not_detected() {
        let t = parse(&with_table_2_6(SAMPLE), "seed.txt").unwrap();
        assert_eq!(t.machines.len(), 2);
        let cray = &t.machines[0];
        assert_eq!(cray.slug, "cray-y-mp-832");
        assert_eq!(cray.values[&AbOp::SRSL].ns, Some(13.0));
        assert_eq!(cray.values[&AbOp::MRSL].ns, None);
        assert!(cray.values[&AbOp::SRSL]
            .table
            .starts_with("Table 2.10, Group 1"));
        assert_eq!(t.machines[1].slug, "hp-720-o0");
        assert_eq!(t.reduced[0].value, "44.5");
        assert_eq!(t.distances[0].b, "cray-x-mp-432");
        assert_eq!(t.distances[1].rank, 105);
        let p = profile(cray, "seed.txt");
        assert_eq!(p.abop[&AbOp::MRSL].status, NOT_DETECTED);
        assert!(p.abop[&AbOp::ARR4].status.starts_with(NOT_PUBLISHED_PREFIX));
        assert!(p.inconsistency().is_none());
    }

    #[test]
    fn a_corrupt_value_names_its_line() {
        let bad = with_table_2_6(&SAMPLE.replace("\t13\t", "\t1e3\t"));
        let e = parse(&bad, "seed.txt").unwrap_err().to_string();
        assert!(e.starts_with("seed.txt:12:") && e.contains("`1e3`"), "{e}");
        let bad = with_table_2_6(&SAMPLE.replace("\tSRSL\t", "\tQQQQ\t"));
        let e = parse(&bad, "seed.txt").unwrap_err().to_string();
        assert!(e.contains("seed.txt:11:") && e.contains("QQQQ"), "{e}");
        let e = parse("nothing", "seed.txt").unwrap_err().to_string();
        assert!(e.contains("Appendix 2.B"), "{e}");
    }
}
