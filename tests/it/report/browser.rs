//! `orcs report` in a real browser: headless Chromium loads the page from disk with the
//! network off and takes a screenshot, which must show the charts' colors.
//!
//! Skipped when Chromium is missing, unless `ORCS_REQUIRE_CHROMIUM` is set (CI sets it
//! and installs Debian's `chromium`).

use crate::support::*;

use std::path::Path;
use std::process::Command;

/// RGB pixels of a PNG file, with its width and height.
fn pixels(path: &Path) -> (Vec<[u8; 3]>, u32, u32) {
    let decoder = png::Decoder::new(std::fs::File::open(path).expect("screenshot"));
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("png data");
    let channels = info.color_type.samples();
    let px = buf[..info.buffer_size()]
        .chunks_exact(channels)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    (px, info.width, info.height)
}

/// Pixels within 40 (per channel) of `color`.
fn count_near(px: &[[u8; 3]], color: [u8; 3]) -> usize {
    px.iter()
        .filter(|p| {
            p.iter()
                .zip(color)
                .all(|(&a, b)| (a as i32 - b as i32).abs() <= 40)
        })
        .count()
}

#[test]
fn report_renders_its_charts_in_headless_chromium() {
    let Some(browser) = any_program(
        &["chromium", "chromium-browser", "google-chrome"],
        "ORCS_REQUIRE_CHROMIUM",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let cable = path("cable.json");
    orcs(&[
        "-i",
        FT4,
        "-p",
        "bruck",
        "-n",
        "200",
        "--seed",
        "4",
        "--metric",
        "get_cable_cong",
        "--format",
        "json",
        "-o",
        &cable,
    ])
    .ok();
    let band = path("band.json");
    orcs(&[
        "-i",
        FT4,
        "-p",
        "bisect",
        "-n",
        "300",
        "--seed",
        "4",
        "--metric",
        "hist_acc_band",
        "--format",
        "json",
        "-o",
        &band,
    ])
    .ok();
    let html = path("report.html");
    orcs(&["report", &cable, &band, "-o", &html]).ok();
    let page = std::fs::read_to_string(&html).unwrap();
    // Self-contained: no scripts, no external resources.
    assert!(!page.contains("<script"), "scripts in the page");
    assert!(!page.contains("src=\"http") && !page.contains("href=\"http"));
    assert!(page.contains("data-chart=\"map-0\""));
    assert!(page.contains("data-chart=\"compare-hist_acc_band\""));

    let shot = dir.path().join("shot.png");
    let out = Command::new(&browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--hide-scrollbars",
            "--window-size=1200,6000",
            &format!("--user-data-dir={}", dir.path().join("profile").display()),
            &format!("--screenshot={}", shot.display()),
            &format!("file://{html}"),
        ])
        .output()
        .expect("chromium runs");
    assert!(
        shot.exists(),
        "no screenshot; chromium said: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (px, w, h) = pixels(&shot);
    assert_eq!((w, h), (1200, 6000));
    // The histogram bars (the first series' blue at 80 % opacity on white) and the
    // congestion map's hottest cable (the top of viridis, yellow) and coolest used cables
    // (its bottom, dark purple) are on screen.
    let rgb = |c: f32| {
        let c = orcs::viz::draw::ColorScale::Viridis.rgb(c);
        [c.0, c.1, c.2]
    };
    let blue = count_near(&px, [51, 142, 193]);
    let yellow = count_near(&px, rgb(1.0));
    let purple = count_near(&px, rgb(0.0));
    assert!(blue > 5_000, "histogram bars: {blue} blue pixels");
    assert!(yellow > 50, "hottest cables: {yellow} yellow pixels");
    assert!(
        purple + yellow > 200,
        "congestion map: {purple} purple, {yellow} yellow pixels"
    );
}
