//! The data other nests touch between two executions of a nest, and the misses of its
//! later executions that follow from it (`augur_locality::profile`).

use augur_locality::profile::{misses, touched_between, Granule};
use augur_locality::CacheGeometry;
use augur_program_profile::locality::{
    ArrayLocality, CompactHistogram, LocalityProfile, NestLocality,
};

/// One array swept once per execution: every line enters cold.
fn swept(name: &str, lines: u64) -> ArrayLocality {
    let cold = CompactHistogram {
        cold: lines,
        bins: vec![],
    };
    ArrayLocality {
        name: name.into(),
        elem_bytes: 8,
        accesses: lines * 8,
        footprint_lines: lines,
        histogram: CompactHistogram {
            cold: lines,
            bins: vec![[0, lines * 7]],
        },
        entering: cold.clone(),
        pages: cold.clone(),
        entering_pages: cold,
        footprint_pages: lines / 64,
        inner_stride_bytes: 8,
        written: false,
        sequential_accesses: Some(lines * 8),
        writebacks: CompactHistogram::default(),
        stores: CompactHistogram::default(),
        class_histogram: CompactHistogram::default(),
    }
}

fn nest(unit: &str, loop_id: u32, executions: f64, arrays: Vec<ArrayLocality>) -> NestLocality {
    let lines = arrays.iter().map(|a| a.footprint_lines).sum();
    NestLocality {
        unit: unit.into(),
        loop_id,
        file: "t.f90".into(),
        line: 10 + loop_id,
        executions,
        approximate: false,
        accesses: arrays.iter().map(|a| a.accesses).sum(),
        footprint_lines: lines,
        footprint_pages: lines / 64,
        streamed_accesses: arrays.iter().map(|a| a.accesses).sum(),
        sample_rate: 1.0,
        kind: "affine".into(),
        arrays,
        phases: vec![],
    }
}

/// A time step: a sweep over `u, v, f` and a copy of `v` into `u`, each run 100 times,
/// and a set-up nest over `w` run once.
fn time_step(lines: u64) -> LocalityProfile {
    LocalityProfile {
        line_bytes: 64,
        nests: vec![
            nest(
                "step",
                0,
                100.0,
                vec![swept("u", lines), swept("v", lines), swept("f", lines)],
            ),
            nest("step", 1, 100.0, vec![swept("u", lines), swept("v", lines)]),
            nest("setup", 0, 1.0, vec![swept("w", 4 * lines)]),
        ],
        ..Default::default()
    }
}

#[test]
fn nests_of_a_time_step_touch_what_the_others_leave_between_their_executions() {
    let loc = time_step(1000);
    // The copy's arrays are the sweep's own; the sweep's `f` runs between two copies;
    // the set-up ran once, so between a share 1/100 of them; it has no repeat.
    assert_eq!(
        touched_between(&loc, Granule::Line, None),
        vec![40, 1040, 0]
    );
}

#[test]
fn a_copy_that_fits_alone_misses_when_the_sweep_between_its_executions_does_not() {
    // 2,000 lines of the copy, a cache of 2,048 lines: the copy alone fits, the copy
    // with the sweep's `f` between two of its executions does not.
    let loc = time_step(1000);
    let g = CacheGeometry {
        size_bytes: 2048 * 64,
        line_bytes: 64,
        ways: 2048,
    };
    let copy = &misses(&loc, &g, None)[1];
    // The first execution misses its 2,000 cold lines, and so does every later one.
    assert_eq!(copy.misses, 2000.0 * 100.0);
    let alone = LocalityProfile {
        nests: vec![loc.nests[1].clone()],
        ..loc.clone()
    };
    assert_eq!(misses(&alone, &g, None)[0].misses, 2000.0);
}

#[test]
fn what_is_touched_between_is_at_most_what_the_whole_program_touches() {
    // The program touched 2,500 lines in all (a name in another unit may be the same
    // array): the sweep's 3,000 already exceed it, the copy's 2,000 leave 500.
    let loc = time_step(1000);
    assert_eq!(
        touched_between(&loc, Granule::Line, Some(2500 * 64)),
        vec![0, 500, 0]
    );
}
