//! HPF directives read from the sources (`!HPF$`, and in fixed form `CHPF$`, `*HPF$`):
//! PROCESSORS, TEMPLATE, DISTRIBUTE, ALIGN; INDEPENDENT, NEW, REDUCTION and ON HOME are
//! recognized and need nothing (owner-computes follows the assignments). gfortran
//! reads them as comments, so the program builds and counts as it does without them.

use crate::spec::{ArrayDistribution, Grid};

/// The distributions a program's directives give.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Directives {
    /// Every distributed or aligned array (and template).
    pub distributions: Vec<ArrayDistribution>,
    /// The grid a PROCESSORS directive gives with constant sizes.
    pub grid: Option<Grid>,
    /// Templates declared (not arrays of the program).
    pub templates: Vec<String>,
    /// Lines read, for the report: `file:line: directive`.
    pub read: Vec<String>,
}

/// Reads the directives of the sources `(path, text)`; an HPF line augur cannot read is
/// an error naming its file and line.
pub fn read(sources: &[(String, String)]) -> Result<Directives, String> {
    let mut out = Directives::default();
    for (path, text) in sources {
        for (i, line) in text.lines().enumerate() {
            let Some(body) = directive(line) else {
                continue;
            };
            let at = format!("{path}:{}", i + 1);
            one(&body, &mut out).map_err(|e| format!("{at}: {e}"))?;
            out.read.push(format!("{at}: {}", body.trim()));
        }
    }
    Ok(out)
}

/// The text after the sentinel of an HPF directive line, lower case.
fn directive(line: &str) -> Option<String> {
    let lower = line.to_ascii_lowercase();
    let t = lower.trim_start();
    for s in ["!hpf$", "chpf$", "*hpf$"] {
        if let Some(rest) = t.strip_prefix(s) {
            let fixed_col1 = s != "!hpf$" && !line.starts_with(char::is_whitespace);
            if s == "!hpf$" || fixed_col1 {
                return Some(rest.trim().to_string());
            }
        }
    }
    None
}

fn one(body: &str, out: &mut Directives) -> Result<(), String> {
    let (word, rest) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
    let rest = rest.trim();
    match word {
        "processors" => {
            let decl = rest.trim_start_matches("::").trim();
            if let Some((_, dims)) = decl.split_once('(') {
                let dims = dims.trim_end().trim_end_matches(')');
                let sizes: Option<Vec<u32>> = dims.split(',').map(|d| d.trim().parse().ok()).collect();
                out.grid = sizes.map(Grid);
            }
            Ok(())
        }
        "template" => {
            let decl = rest.trim_start_matches("::").trim();
            for name in split_names(decl) {
                out.templates.push(name);
            }
            Ok(())
        }
        "distribute" => distribute(rest, out),
        "align" => align(rest, out),
        "independent" | "new" | "reduction" | "on" | "dynamic" | "inherit" => Ok(()),
        _ if body.starts_with("independent") => Ok(()),
        _ => Err(format!(
            "`{body}`: not an HPF directive augur reads (PROCESSORS, TEMPLATE, DISTRIBUTE, ALIGN, INDEPENDENT)"
        )),
    }
}

/// Names of a declaration list, their shapes dropped: `t(n,n), s(m)` → `t`, `s`.
fn split_names(list: &str) -> Vec<String> {
    crate::spec::split_top(list)
        .iter()
        .map(|s| s.split('(').next().unwrap_or("").trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// `u(BLOCK,*) [ONTO p]` or `(BLOCK,*) [ONTO p] :: u, v`.
fn distribute(rest: &str, out: &mut Directives) -> Result<(), String> {
    let drop_onto = |s: &str| s.split(" onto ").next().unwrap_or(s).trim().to_string();
    if let Some((formats, names)) = rest.split_once("::") {
        let formats = drop_onto(formats);
        for name in split_names(names) {
            let d = ArrayDistribution::parse(&format!("{name}{formats}"))?;
            out.distributions.push(d);
        }
        return Ok(());
    }
    let d = ArrayDistribution::parse(&drop_onto(rest))?;
    out.distributions.push(d);
    Ok(())
}

/// `v(i,j) WITH u(i,j)`, `(:,:) WITH u(:,:) :: v, w`, `WITH u :: v`, and permutations
/// (`v(i,j) WITH u(j,i)`; [`crate::spec::alignment`]).
fn align(rest: &str, out: &mut Directives) -> Result<(), String> {
    let (spec, names) = match rest.split_once("::") {
        Some((s, n)) => (s.trim(), Some(n)),
        None => (rest, None),
    };
    let (left, target) = spec
        .split_once("with")
        .ok_or_else(|| format!("`align {rest}`: no WITH"))?;
    if target
        .trim()
        .split('(')
        .next()
        .unwrap_or("")
        .trim()
        .is_empty()
    {
        return Err(format!("`align {rest}`: no target after WITH"));
    }
    let aligned: Vec<String> = match names {
        Some(n) => split_names(n),
        None => split_names(left.trim()),
    };
    if aligned.is_empty() {
        return Err(format!("`align {rest}`: no array to align"));
    }
    let whole = format!("align {}", rest.trim());
    for a in aligned {
        out.distributions.push(ArrayDistribution {
            rule: crate::spec::alignment(left.trim(), target.trim(), &whole)?,
            array: a,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{Format, Rule};

    #[test]
    fn directives_of_both_forms_are_read() {
        let free = "program p\n!HPF$ PROCESSORS procs(4)\n!hpf$ distribute u(*, block) onto procs\n!HPF$ ALIGN v(i,j) WITH u(i,j)\n!HPF$ INDEPENDENT, NEW(t)\nend\n";
        let fixed = "      program q\nCHPF$ TEMPLATE t(100,100)\nCHPF$ DISTRIBUTE (BLOCK,BLOCK) :: t\nCHPF$ ALIGN (:,:) WITH t(:,:) :: a, b\n      end\n";
        let d = read(&[("p.f90".into(), free.into()), ("q.f".into(), fixed.into())]).unwrap();
        assert_eq!(d.grid, Some(Grid(vec![4])));
        assert_eq!(d.templates, vec!["t".to_string()]);
        let shown: Vec<String> = d.distributions.iter().map(|x| x.to_string()).collect();
        assert_eq!(
            shown,
            vec![
                "u(*,BLOCK)",
                "v WITH u",
                "t(BLOCK,BLOCK)",
                "a WITH t",
                "b WITH t"
            ]
        );
        assert_eq!(
            d.distributions[0].rule,
            Rule::Formats(vec![Format::Collapsed, Format::Block(None)])
        );
    }

    #[test]
    fn a_transposed_alignment_is_read_as_a_permutation() {
        let src = "!HPF$ DISTRIBUTE u(*, BLOCK)\n!HPF$ ALIGN v(i,j) WITH u(j,i)\n!HPF$ ALIGN w(i,k) WITH u(i,k)\n";
        let d = read(&[("p.f90".into(), src.into())]).unwrap();
        assert_eq!(
            d.distributions[1].rule,
            Rule::Permuted {
                target: "u".into(),
                dims: vec![Some(1), Some(0)]
            }
        );
        assert_eq!(d.distributions[1].to_string(), "v(i,j) WITH u(j,i)");
        assert_eq!(d.distributions[2].rule, Rule::AlignedWith("u".into()));
        let e = read(&[("o.f90".into(), "\n!HPF$ ALIGN a(i) WITH t(i+1)\n".into())]).unwrap_err();
        assert!(e.starts_with("o.f90:2:") && e.contains("offset"), "{e}");
        let e = read(&[("r.f90".into(), "!HPF$ ALIGN a(i) WITH t(i,*)\n".into())]).unwrap_err();
        assert!(e.contains("replicates"), "{e}");
    }

    #[test]
    fn an_unreadable_directive_names_its_line() {
        let e = read(&[("x.f90".into(), "\n!HPF$ REDISTRIBUTE u(CYCLIC)\n".into())]).unwrap_err();
        assert!(e.starts_with("x.f90:2:"), "{e}");
        let e = read(&[("y.f90".into(), "!HPF$ DISTRIBUTE u(BLOK)\n".into())]).unwrap_err();
        assert!(e.contains("y.f90:1") && e.contains("blok"), "{e}");
    }
}
