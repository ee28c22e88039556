//! The inference on real curves: raw curves of `augur characterize --memory` runs on
//! 2-vCPU AMD EPYC KVM guests, saved with the OS's values (`tests/fixtures/*.toml`):
//! `epyc-kvm-*` on a Zen 4 host (measured while other agents built on the same machine),
//! `epyc-zen5-*` on a Zen 5 host (quiet). Deterministic: the curves are data. On the Zen 4
//! runs the inference must read the OS's L1 and L2 sizes and lines; on the Zen 5 runs the
//! L1 exactly and the L2 and L3 sizes within a factor of two: its L2 keeps much of a
//! cyclic working set beyond its capacity (25% misses at 1 MiB, 61% at 1.5 MiB, where a
//! random-placement LRU cache misses 55% and 91%), so the capacity rule, made on Zen 4,
//! reads 1.5 or 2 MiB for its 1 MiB.

use augur_machine::memory_profile::{MemoryProfile, FROM_OS, MEASURED};
use augur_memory::infer::infer;
use augur_memory::os::{OsCache, OsInfo};
fn fixtures(prefix: &str) -> Vec<(String, OsInfo, MemoryProfile)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
        })
        .collect();
    names.sort();
    assert!(names.len() >= 3, "fixtures in {}", dir.display());
    names
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let v: toml::Value =
                toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let num = |t: &toml::Value, k: &str| t.get(k).and_then(|x| x.as_integer());
            let o = &v["os"];
            let caches = o["caches"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| OsCache {
                    level: num(c, "level").unwrap() as u32,
                    name: c["name"].as_str().unwrap().to_string(),
                    size: num(c, "size").unwrap() as u64,
                    line: num(c, "line").unwrap() as u64,
                    ways: num(c, "ways").map(|w| w as u32),
                })
                .collect();
            let os = OsInfo {
                caches,
                page: num(o, "page").unwrap() as u64,
                tlb_entries: num(o, "tlb_entries").map(|t| t as u64),
            };
            let m: MemoryProfile = v["memory"].clone().try_into().unwrap();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, os, m)
        })
        .collect()
}

#[test]
fn every_real_run_reads_the_os_geometry() {
    for (name, os, mut m) in fixtures("epyc-kvm-") {
        infer(&mut m, &os);
        let report = augur_memory::report(&m);
        eprintln!("{name}\n{report}");
        for l in &m.levels[..2] {
            assert_eq!(l.size_source, MEASURED, "{name} {}\n{report}", l.name);
            assert_eq!(
                Some(l.size_bytes),
                l.os_size_bytes,
                "{name} {}\n{report}",
                l.name
            );
            assert_eq!(l.line_source, MEASURED, "{name} {}\n{report}", l.name);
            assert_eq!(
                Some(l.line_bytes),
                l.os_line_bytes,
                "{name} {}\n{report}",
                l.name
            );
        }
        assert!(m.levels[0].latency_ns < m.levels[1].latency_ns);
        assert_eq!(
            m.tlb.first().map(|t| t.page_bytes),
            Some(os.page),
            "{name}\n{report}"
        );
        assert_eq!(m.tlb[0].page_source, MEASURED);
        for t in &m.tlb {
            assert!(t.entries >= 16 && t.entries <= 16384, "{name}\n{report}");
            assert!(t.miss_penalty_ns > 0.0, "{name}\n{report}");
        }
        assert_ne!(m.levels[0].line_source, FROM_OS);
    }
}

#[test]
fn zen5_runs_read_the_l1_and_the_outer_levels_within_a_factor_of_two() {
    for (name, os, mut m) in fixtures("epyc-zen5-") {
        infer(&mut m, &os);
        let report = augur_memory::report(&m);
        eprintln!("{name}\n{report}");
        let l1 = &m.levels[0];
        assert_eq!(Some(l1.size_bytes), l1.os_size_bytes, "{name}\n{report}");
        assert_eq!(l1.line_source, MEASURED, "{name}\n{report}");
        assert_eq!(Some(l1.line_bytes), l1.os_line_bytes, "{name}\n{report}");
        for l in &m.levels[1..] {
            let os_size = l.os_size_bytes.unwrap() as f64;
            let ratio = l.size_bytes as f64 / os_size;
            assert!((0.5..=2.0).contains(&ratio), "{name} {}\n{report}", l.name);
        }
        assert!(m.levels[0].latency_ns < m.levels[1].latency_ns);
        assert_eq!(
            m.tlb.first().map(|t| t.entries),
            Some(96),
            "{name}\n{report}"
        );
    }
}
