//! What the OS reports: data caches (`/sys/devices/system/cpu/cpu0/cache/index*`), the
//! page size (`KernelPageSize` of `/proc/self/smaps`) and the TLB size of
//! `/proc/cpuinfo` (AMD's `TLB size: N 4K pages`).

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

/// Reads the OS's values on this machine.
pub fn detect() -> OsInfo {
    let mut caches = Vec::new();
    for i in 0..16 {
        let d = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
        let read = |f: &str| {
            std::fs::read_to_string(format!("{d}/{f}"))
                .ok()
                .map(|s| s.trim().to_string())
        };
        let (Some(level), Some(ty), Some(size)) = (read("level"), read("type"), read("size"))
        else {
            continue;
        };
        if ty == "Instruction" {
            continue;
        }
        let (Ok(level), Some(size)) = (level.parse::<u32>(), parse_size(&size)) else {
            continue;
        };
        let line = read("coherency_line_size")
            .and_then(|s| s.parse().ok())
            .unwrap_or(64);
        let ways = read("ways_of_associativity")
            .and_then(|s| s.parse().ok())
            .filter(|&w| w > 0);
        let shared_cpus = read("shared_cpu_list").map(|l| cpu_count(&l));
        let name = if ty == "Data" {
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
