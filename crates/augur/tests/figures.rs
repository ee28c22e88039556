//! The SVG figures of `augur compare machines` open in a browser: headless Chromium
//! screenshots each at the figure's own size, and the screenshot must have that size and
//! hold a drawing (a PNG several times larger than the screenshot of an empty page of the
//! same size, which compresses to almost nothing). Needs Chromium: scripts/setup.sh
//! installs it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> String {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if Command::new(name)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
        {
            return name.to_string();
        }
    }
    panic!("chromium not found: these tests need a headless browser (run scripts/setup.sh, or apt-get install -y chromium)");
}

/// The `width` and `height` attributes of an SVG's root element.
fn svg_size(svg: &Path) -> (u32, u32) {
    let text = std::fs::read_to_string(svg).unwrap();
    let attr = |name: &str| -> u32 {
        let start = text.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        let end = start + text[start..].find('"').unwrap();
        text[start..end].parse::<f64>().unwrap().ceil() as u32
    };
    (attr("width"), attr("height"))
}

/// Screenshots `page` at `size`; returns the PNG's bytes.
fn screenshot(browser: &str, page: &Path, size: (u32, u32), dir: &Path) -> Vec<u8> {
    let png = dir.join(format!(
        "{}.png",
        page.file_stem().unwrap().to_str().unwrap()
    ));
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("--window-size={},{}", size.0, size.1))
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(
        png.is_file(),
        "no screenshot of {}: {}",
        page.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read(png).unwrap()
}

/// A PNG's width and height (its IHDR chunk).
fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[1..4], b"PNG", "not a PNG");
    let be = |i: usize| u32::from_be_bytes([png[i], png[i + 1], png[i + 2], png[i + 3]]);
    (be(16), be(20))
}

/// Runs augur with these arguments; asserts it succeeds when `ok`.
fn augur(args: &[&std::ffi::OsStr], ok: bool) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_augur"))
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.success(), ok, "{err}");
    out
}

fn os<'a>(args: &[&'a str]) -> Vec<&'a std::ffi::OsStr> {
    args.iter().map(|s| std::ffi::OsStr::new(*s)).collect()
}

#[test]
fn compare_machines_figures_render_in_chromium() {
    let browser = chromium();
    let dir = tempfile::tempdir().unwrap();
    let (kiviat, graph, per_machine) = (
        dir.path().join("kiviat.svg"),
        dir.path().join("clusters.svg"),
        dir.path().join("each"),
    );
    let machines = [
        "compare",
        "machines",
        "cray-y-mp-832",
        "vax-11-780",
        "sun-3-50",
        "gfortran12-O2-epyc-2core",
        "flang19-O2-epyc-2core",
        "--reference",
        "vax-11-780",
    ];
    for target in [&kiviat, &per_machine] {
        let mut args = os(&machines);
        args.extend([
            "--clusters".as_ref(),
            graph.as_os_str(),
            "--kiviat".as_ref(),
            target.as_os_str(),
        ]);
        augur(&args, true);
    }
    let mut pages: Vec<PathBuf> = vec![kiviat, graph, per_machine.join("cray-y-mp-832.svg")];
    pages.push(per_machine.join("grid.svg"));
    for page in pages {
        let size = svg_size(&page);
        let blank = dir.path().join(format!(
            "blank-{}.svg",
            page.file_stem().unwrap().to_str().unwrap()
        ));
        std::fs::write(&blank, format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\"><rect width=\"100%\" height=\"100%\" fill=\"white\"/></svg>", size.0, size.1)).unwrap();
        let shot = screenshot(&browser, &page, size, dir.path());
        let empty = screenshot(&browser, &blank, size, dir.path());
        assert_eq!(png_size(&shot), size, "{}", page.display());
        assert!(
            shot.len() > 3 * empty.len(),
            "{}: the screenshot ({} bytes) is hardly more than an empty page's ({} bytes)",
            page.display(),
            shot.len(),
            empty.len()
        );
    }
}

#[test]
fn historical_machines_are_listed_apart_and_compared_as_json() {
    let out = augur(&os(&["machines"]), true);
    let text = String::from_utf8_lossy(&out.stdout);
    let (measured, historical) = text.split_once("historical").expect("a historical section");
    assert!(measured.contains("gfortran12-O2-epyc-2core"), "{text}");
    assert!(
        historical.contains("cray-y-mp-832") && !historical.contains("epyc"),
        "{text}"
    );
    let json = [
        "compare",
        "machines",
        "cray-y-mp-832",
        "cray-x-mp-432",
        "--json",
    ];
    let out = augur(&os(&json), true);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = doc["comparison"]["distances"][0][1]["value"]
        .as_f64()
        .unwrap();
    assert!((d - 0.454).abs() < 0.002, "Table 2.6 gives 0.454, got {d}");
    let bad = [
        "compare",
        "machines",
        "cray-y-mp-832",
        "cray-2",
        "--reference",
        "vax-8600",
    ];
    let out = augur(&os(&bad), false);
    assert!(String::from_utf8_lossy(&out.stderr).contains("not one of the machines compared"));
}
