//! `augur bench accuracy --by-loop`: where each program's time went, measured by sampling
//! one run ([`augur_validate::sampled`]), against the prediction, innermost loop by
//! innermost loop over the whole set: which loops the model misjudges, by how much, and
//! what the compiler made of each (the prediction's note on its compiled code).

use crate::validation::{MeasuredPart, MeasuredParts};
use augur_model::Prediction;
use augur_validate::sampled::{file_name, LineSamples};

/// A loop is listed when it holds at least this share of its program's measured or
/// predicted time.
const LISTED_SHARE: f64 = 0.02;

/// One program of the set, with its samples when it was sampled.
pub struct Sampled<'a> {
    /// Its name.
    pub program: &'a str,
    /// Its prediction.
    pub prediction: &'a Prediction,
    /// Its measured time (the timed runs' median), seconds.
    pub measured_seconds: f64,
    /// Its samples by line.
    pub lines: Option<&'a LineSamples>,
}

/// What a listed row is.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// A loop nest with a memory term: predicted its operations and memory combined.
    Nest,
    /// An innermost loop of a listed nest: predicted its operations alone.
    Inside,
    /// An innermost loop outside every nest with a memory term.
    Loop,
    /// The samples outside the program's sources (libraries it calls, the system):
    /// measured only.
    Libraries,
}

/// One listed nest or loop.
struct Listed {
    kind: Kind,
    program: String,
    place: String,
    measured: f64,
    predicted: f64,
    share: f64,
    note: String,
}

/// Prints the loop nests and innermost loops of every sampled program that hold at least
/// [`LISTED_SHARE`] of its time, then how close they are, by count and by time.
pub fn print(programs: &[Sampled]) {
    let sampled: Vec<&Sampled> = programs.iter().filter(|p| p.lines.is_some()).collect();
    println!(
        "\nwhere the time went, loop by loop: {} of {} programs sampled (perf record, one run \
         each); the nests and innermost loops holding {:.0}% or more of their program's \
         measured or predicted time (a nest's prediction: its operations and memory \
         combined; an innermost loop's inside it (indented): its operations alone)",
        sampled.len(),
        programs.len(),
        100.0 * LISTED_SHARE
    );
    if sampled.len() < programs.len() {
        println!(
            "(the programs not sampled have no samples kept with their runs: keep them with \
             `--by-loop --save`, or sample a run now with `--replay ... --recount --by-loop`)"
        );
    }
    let listed: Vec<Listed> = sampled.iter().flat_map(|p| listed(p)).collect();
    println!(
        "{:<14} {:<32} {:>10} {:>10} {:>7} {:>6}  what the compiler did",
        "program", "loop", "measured", "predicted", "error", "share"
    );
    for l in &listed {
        print_row(l);
    }
    print_summary(&listed, &sampled);
}

/// One row of the table: an innermost loop inside a nest indented under it.
fn print_row(l: &Listed) {
    let place = match l.kind {
        Kind::Inside => format!("  {}", l.place),
        _ => l.place.clone(),
    };
    let (predicted, e) = if l.predicted.is_finite() && l.measured > 0.0 {
        (
            format!("{:.4}", l.predicted),
            format!("{:+.0}%", 100.0 * error(l)),
        )
    } else if l.predicted.is_finite() {
        (format!("{:.4}", l.predicted), "-".to_string())
    } else {
        ("-".to_string(), "-".to_string())
    };
    println!(
        "{:<14} {:<32} {:>10.4} {:>10} {:>7} {:>5.1}%  {}",
        l.program,
        place,
        l.measured,
        predicted,
        e,
        100.0 * l.share,
        l.note
    );
}

/// The listed nests and loops of one sampled program: each nest with the innermost loops
/// inside it, then the innermost loops outside every nest, most measured time first.
fn listed(p: &Sampled) -> Vec<Listed> {
    let Some(lines) = p.lines else {
        return vec![];
    };
    let parts = MeasuredParts::from_lines(lines.clone(), p.prediction, p.measured_seconds);
    let (predicted_total, measured_total) = (
        p.prediction.total.seconds.max(f64::MIN_POSITIVE),
        p.measured_seconds.max(f64::MIN_POSITIVE),
    );
    let large = |measured: f64, predicted: f64| {
        measured >= LISTED_SHARE * measured_total || predicted >= LISTED_SHARE * predicted_total
    };
    let row = |kind, l: &MeasuredPart, predicted: f64, note: String| Listed {
        kind,
        program: clip(p.program, 14),
        place: clip(
            &format!("{}:{}-{}", file_name(&l.file), l.first_line, l.last_line),
            30,
        ),
        measured: l.measured_seconds,
        predicted,
        share: l.measured_seconds / measured_total,
        note,
    };
    let mut out = vec![];
    let nests = nest_rows(p, &parts, &large, &row, &mut out);
    for l in parts.loops.iter().filter(|l| l.innermost) {
        if !nests.iter().any(|n| l.within(n)) && large(l.measured_seconds, l.predicted_seconds) {
            let note = compiled_note(p.prediction, l);
            out.push(row(Kind::Loop, l, l.predicted_seconds, note));
        }
    }
    if parts.outside_sources >= LISTED_SHARE {
        out.push(Listed {
            kind: Kind::Libraries,
            program: clip(p.program, 14),
            place: "(outside its sources)".to_string(),
            measured: parts.outside_sources * measured_total,
            predicted: f64::NAN,
            share: parts.outside_sources,
            note: library_note(&parts.libraries),
        });
    }
    out
}

/// The rows of the program's large nests, each followed by its large innermost loops,
/// pushed to `out`; the nests listed.
fn nest_rows<'a>(
    p: &Sampled,
    parts: &'a MeasuredParts,
    large: &dyn Fn(f64, f64) -> bool,
    row: &dyn Fn(Kind, &MeasuredPart, f64, String) -> Listed,
    out: &mut Vec<Listed>,
) -> Vec<&'a MeasuredPart> {
    let mut nests: Vec<&MeasuredPart> = vec![];
    for n in &p.prediction.memory {
        let Some(l) = parts.loops.iter().find(|l| l.name == n.name) else {
            continue;
        };
        if nests.iter().any(|o| l.within(o)) || !large(l.measured_seconds, n.combined_seconds) {
            continue;
        }
        nests.push(l);
        let note = format!(
            "nest: operations {:.4} s, memory {:.4} s",
            n.operations_seconds, n.memory_seconds
        );
        out.push(row(Kind::Nest, l, n.combined_seconds, note));
        for i in parts.loops.iter().filter(|i| i.innermost && i.within(l)) {
            if large(i.measured_seconds, i.predicted_seconds) {
                let note = compiled_note(p.prediction, i);
                out.push(row(Kind::Inside, i, i.predicted_seconds, note));
            }
        }
    }
    nests
}

/// The prediction's note on the compiled loop of innermost loop `l`.
fn compiled_note(prediction: &Prediction, l: &MeasuredPart) -> String {
    prediction
        .compiled
        .iter()
        .find(|c| c.file == l.file && (l.first_line..=l.last_line).contains(&c.line))
        .map_or("not mapped: priced by AbOps".to_string(), |c| {
            clip(&c.text, 150)
        })
}

fn error(l: &Listed) -> f64 {
    if l.measured > 0.0 {
        l.predicted / l.measured - 1.0
    } else {
        f64::INFINITY
    }
}

/// How close the listed loops are: by count, by measured time, and the share of the
/// sampled programs' time they hold.
fn print_summary(listed: &[Listed], sampled: &[&Sampled]) {
    let (measured, predicted_only): (Vec<&Listed>, Vec<&Listed>) = listed
        .iter()
        .filter(|l| matches!(l.kind, Kind::Nest | Kind::Loop))
        .partition(|l| l.share >= LISTED_SHARE);
    if measured.is_empty() {
        println!("no loop listed");
        return;
    }
    let time: f64 = measured.iter().map(|l| l.measured).sum();
    let total: f64 = sampled.iter().map(|p| p.measured_seconds).sum();
    let within = |x: f64| {
        let close: Vec<&&Listed> = measured.iter().filter(|l| error(l).abs() <= x).collect();
        let t: f64 = close.iter().map(|l| l.measured).sum();
        format!(
            "{:.0}% of them, {:.0}% of their time",
            100.0 * close.len() as f64 / measured.len() as f64,
            100.0 * t / time.max(f64::MIN_POSITIVE)
        )
    };
    let weighted = |f: &dyn Fn(f64) -> f64| {
        measured
            .iter()
            .filter(|l| l.predicted > 0.0)
            .map(|l| f((l.predicted / l.measured).ln()) * l.measured)
            .sum::<f64>()
            / time.max(f64::MIN_POSITIVE)
    };
    println!(
        "\n{} nests and loops outside nests hold {:.0}% or more of their program's measured \
         time, {:.0}% of the sampled programs' time in all; within 10%: {}; within 25%: {}; \
         weighted by time, ln(predicted/measured) has mean {:+.3} and RMS {:.3}",
        measured.len(),
        100.0 * LISTED_SHARE,
        100.0 * time / total.max(f64::MIN_POSITIVE),
        within(0.10),
        within(0.25),
        weighted(&|e| e),
        weighted(&|e| e * e).sqrt()
    );
    println!(
        "{} more are listed for their predicted time alone (the program spends less there: \
         the compiler merged the loop into another, or its lines' samples went elsewhere)",
        predicted_only.len()
    );
}

fn clip(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        s.to_string()
    } else {
        let kept: String = s.chars().take(width - 1).collect();
        format!("{kept}…")
    }
}

/// What the time outside the program's sources went to, its functions named when known.
fn library_note(libraries: &[(String, f64)]) -> String {
    let what = "libraries it calls (not traced back to the calling loop), the system";
    if libraries.is_empty() {
        what.to_string()
    } else {
        format!(
            "{what}: {}",
            augur_validate::sampled::describe_functions(libraries, 3)
        )
    }
}
