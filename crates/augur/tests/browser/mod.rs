//! Headless Chromium for the figure tests: an SVG opens in a browser when a screenshot at
//! its own size has that size and holds a drawing (a PNG several times larger than the
//! screenshot of an empty page of the same size, which compresses to almost nothing).
//! Needs Chromium: scripts/setup.sh installs it.

// Each test binary that includes this module uses a part of it.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// The browser found on PATH (a test without one fails: never a silent skip).
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

/// Asserts that `page` (an SVG) renders in headless Chromium (screenshots in `dir`).
pub fn assert_renders(page: &Path, dir: &Path) {
    let browser = chromium();
    let size = svg_size(page);
    let blank = dir.join(format!(
        "blank-{}.svg",
        page.file_stem().unwrap().to_str().unwrap()
    ));
    std::fs::write(&blank, format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\"><rect width=\"100%\" height=\"100%\" fill=\"white\"/></svg>", size.0, size.1)).unwrap();
    assert_not_blank(&browser, page, &blank, size, dir);
}

/// Asserts that `page`'s screenshot at `size` has that size and is several times larger
/// than the screenshot of `blank` (an empty page of the same kind).
fn assert_not_blank(browser: &str, page: &Path, blank: &Path, size: (u32, u32), dir: &Path) {
    let shot = screenshot(browser, page, size, dir);
    let empty = screenshot(browser, blank, size, dir);
    assert_eq!(png_size(&shot), size, "{}", page.display());
    assert!(
        shot.len() > 3 * empty.len(),
        "{}: the screenshot ({} bytes) is hardly more than an empty page's ({} bytes)",
        page.display(),
        shot.len(),
        empty.len()
    );
}

/// Asserts that an HTML `page` renders in headless Chromium at `size` (a screenshot
/// several times larger than a blank page's), and returns its DOM after its scripts ran
/// with `fragment` (`#selftest`) in its address, with what the browser logged: a
/// script's uncaught error shows there.
pub fn render_html(page: &Path, dir: &Path, size: (u32, u32), fragment: &str) -> (String, String) {
    let browser = chromium();
    let blank = dir.join("blank-page.html");
    std::fs::write(&blank, "<!DOCTYPE html><html><body></body></html>").unwrap();
    assert_not_blank(&browser, page, &blank, size, dir);
    let out = Command::new(&browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("file://{}{fragment}", page.display()))
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
