//! What the OS reports: data caches (`/sys/devices/system/cpu/cpu0/cache/index*`), the
//! page size (`KernelPageSize` of `/proc/self/smaps`) and the TLB size of
//! `/proc/cpuinfo` (AMD's `TLB size: N 4K pages`), and the host's provenance for a machine
//! profile.

use augur_machine_profile::{utc_now, Provenance};

/// One data or unified cache level as the OS reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct OsCache {
    /// Level number.
    pub level: u32,
    /// `L1d`, `L2`, `L3`.
    pub name: String,
    /// Size, bytes.
    pub size: u64,
    /// `coherency_line_size`, bytes.
    pub line: u64,
    /// `ways_of_associativity` (absent when 0 or missing).
    pub ways: Option<u32>,
    /// The number of CPUs sharing the cache (`shared_cpu_list`), when known: 1 for a
    /// cache private to a core.
    pub shared_cpus: Option<u32>,
}

/// The OS's view of the memory hierarchy.
#[derive(Debug, Clone, PartialEq)]
pub struct OsInfo {
    /// Data and unified caches, innermost first.
    pub caches: Vec<OsCache>,
    /// Page size, bytes.
    pub page: u64,
    /// `TLB size` of /proc/cpuinfo, in 4 KiB pages, where reported.
    pub tlb_entries: Option<u64>,
}

impl OsInfo {
    /// The line size to lay chases out with: the L1's, else 64.
    pub fn line(&self) -> u64 {
        self.caches.first().map(|c| c.line).unwrap_or(64).max(8)
    }

    /// The last level's size (32 MiB when the OS reports none).
    pub fn llc(&self) -> u64 {
        self.caches.last().map(|c| c.size).unwrap_or(32 << 20)
    }
}

/// The most memory an experiment spans to read main memory past every cache, bytes.
/// The experiments go to a few times the last level the OS reports, at most this: a
/// guest given a share of a socket's last level sees the whole socket's (480 MiB on a
/// 2-vCPU Xeon guest whose own characterization read an effective last level of 8 to 128
/// MiB), and four times that, 2 GiB, cost the memory experiments 84 of a 230 s
/// characterization (2026-12-04) and the OpenMP triads a 3.8 GB working set.
pub const PAST_CACHES_MAX_BYTES: u64 = 512 << 20;

/// Parses a sysfs size: `32K`, `1024K`, `32M`, `512`.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mul) = match s.chars().last()? {
        'K' | 'k' => (&s[..s.len() - 1], 1u64 << 10),
        'M' | 'm' => (&s[..s.len() - 1], 1 << 20),
        'G' | 'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.trim().parse::<u64>().ok().map(|n| n * mul)
}

/// One cache of `/sys/devices/system/cpu/cpu0/cache/index*` as the OS reports it.
struct SysCache {
    dir: String,
    level: String,
    kind: String,
    size: String,
}

impl SysCache {
    /// One more attribute of the cache (`coherency_line_size`, ...), trimmed.
    fn read(&self, attribute: &str) -> Option<String> {
        read_trimmed(&format!("{}/{attribute}", self.dir))
    }
}

fn read_trimmed(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}

/// Every cache the OS reports for CPU 0 (instruction caches included), in index order.
fn sys_caches() -> Vec<SysCache> {
    (0..16)
        .filter_map(|i| {
            let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
            Some(SysCache {
                level: read_trimmed(&format!("{dir}/level"))?,
                kind: read_trimmed(&format!("{dir}/type"))?,
                size: read_trimmed(&format!("{dir}/size"))?,
                dir,
            })
        })
        .collect()
}

/// The caches as a machine profile's provenance names them: `L1d`, `L1i`, `L2` ... with
/// the OS's size text (`32K`).
pub fn cache_sizes() -> std::collections::BTreeMap<String, String> {
    sys_caches()
        .into_iter()
        .map(|c| {
            let suffix = match c.kind.as_str() {
                "Data" => "d",
                "Instruction" => "i",
                _ => "",
            };
            (format!("L{}{suffix}", c.level), c.size)
        })
        .collect()
}

/// Reads the OS's values on this machine.
pub fn detect() -> OsInfo {
    let mut caches = Vec::new();
    for c in sys_caches() {
        if c.kind == "Instruction" {
            continue;
        }
        let (Ok(level), Some(size)) = (c.level.parse::<u32>(), parse_size(&c.size)) else {
            continue;
        };
        let line = c
            .read("coherency_line_size")
            .and_then(|s| s.parse().ok())
            .unwrap_or(64);
        let ways = c
            .read("ways_of_associativity")
            .and_then(|s| s.parse().ok())
            .filter(|&w| w > 0);
        let shared_cpus = c.read("shared_cpu_list").map(|l| cpu_count(&l));
        let name = if c.kind == "Data" {
            format!("L{level}d")
        } else {
            format!("L{level}")
        };
        caches.push(OsCache {
            level,
            name,
            size,
            line,
            ways,
            shared_cpus,
        });
    }
    caches.sort_by_key(|c| c.level);
    let page = std::fs::read_to_string("/proc/self/smaps")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("KernelPageSize:"))
                .and_then(|v| v.trim().strip_suffix("kB"))
                .and_then(|v| v.trim().parse::<u64>().ok())
        })
        .map(|k| k * 1024)
        .unwrap_or(4096);
    let tlb_entries = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|s| {
        s.lines()
            .find(|l| l.starts_with("TLB size"))
            .and_then(|l| l.split_once(':'))
            .and_then(|(_, v)| v.split_whitespace().next()?.parse().ok())
    });
    OsInfo {
        caches,
        page,
        tlb_entries,
    }
}

/// The number of CPUs in a list like `0-3,8,10-11`.
pub fn cpu_count(list: &str) -> u32 {
    list.trim()
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('-') {
            Some((a, b)) => match (a.trim().parse::<u32>(), b.trim().parse::<u32>()) {
                (Ok(a), Ok(b)) if b >= a => b - a + 1,
                _ => 1,
            },
            None => 1,
        })
        .sum()
}

/// The provenance of a profile measured with `tc` on this host: the host's facts, the
/// compiler, its version and flags, augur's version (`augur_version`) and the mode.
pub fn toolchain_provenance(tc: &crate::Toolchain, augur_version: &str, mode: &str) -> Provenance {
    let mut prov = host_provenance();
    prov.compiler = tc.fc.clone();
    prov.compiler_version = tc.version.clone();
    prov.fflags = tc.fflags.join(" ");
    prov.augur_version = augur_version.to_string();
    prov.mode = mode.to_string();
    prov
}

/// The provenance of this machine as the OS reports it (compiler fields left empty).
pub fn host_provenance() -> Provenance {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu_model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_else(|| "unknown".to_string());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let caches = cache_sizes();
    let os_release = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    let pretty = os_release
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|s| s.trim_matches('"').to_string())
        .unwrap_or_else(|| std::env::consts::OS.to_string());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| format!(", Linux {}", s.trim()))
        .unwrap_or_default();
    let family_model = cpu_family_model();
    Provenance {
        cpu_model,
        cores,
        os: format!("{pretty}{kernel}"),
        date: utc_now(),
        caches,
        cpu_family: family_model.map(|f| f.0),
        cpu_model_number: family_model.map(|f| f.1),
        ..Default::default()
    }
}

/// The `cpu family` and `model` of the first processor in /proc/cpuinfo (x86), or
/// `None`.
pub fn cpu_family_model() -> Option<(u32, u32)> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let field = |name: &str| -> Option<u32> {
        text.lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == name))?
            .split(':')
            .nth(1)?
            .trim()
            .parse()
            .ok()
    };
    Some((field("cpu family")?, field("model")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("32K"), Some(32768));
        assert_eq!(parse_size("32768K"), Some(32 << 20));
        assert_eq!(parse_size("2M"), Some(2 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("x"), None);
    }

    #[test]
    fn cpu_lists() {
        assert_eq!(cpu_count("0"), 1);
        assert_eq!(cpu_count("0-1\n"), 2);
        assert_eq!(cpu_count("0-3,8,10-11"), 7);
    }
}
