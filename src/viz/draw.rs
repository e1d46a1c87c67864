//! Drawing support shared by plots and maps: image formats, the embedded font, the
//! congestion color scale, and rendering one figure to SVG or PNG bytes.
//!
//! Text is drawn with a font compiled into the binary (DejaVu Sans, Bitstream Vera
//! license, see `assets/`), so images come out the same on a machine without fontconfig
//! or any installed font.

use crate::viz::error::VizError;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use std::fmt;
use std::sync::Once;

/// The family name figures use for all text; it resolves to the embedded font.
pub(crate) const FONT: &str = "sans-serif";

/// The embedded font's bytes.
static FONT_BYTES: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");

/// Makes the embedded font available to plotters (idempotent).
pub(crate) fn register_embedded_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The only failure is a font that does not parse; the bytes are fixed at build
        // time and checked by a test, so a failure here cannot depend on the input.
        let _ = register_font(FONT, FontStyle::Normal, FONT_BYTES);
    });
}

/// An image file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// Scalable vector graphics (text as text).
    Svg,
    /// Portable network graphics (RGB).
    Png,
}

impl ImageFormat {
    /// The format a file name asks for (`.svg` or `.png`, any case), if any.
    pub fn from_path(path: &str) -> Option<Self> {
        let lower = path.to_ascii_lowercase();
        if lower.ends_with(".svg") {
            Some(ImageFormat::Svg)
        } else if lower.ends_with(".png") {
            Some(ImageFormat::Png)
        } else {
            None
        }
    }
}

/// Turns a plotters error into [`VizError::Draw`], keeping its report.
pub(crate) fn draw_err<E: fmt::Debug>(e: E) -> VizError {
    VizError::Draw {
        detail: format!("{e:?}"),
    }
}

/// Something that draws itself on any plotters backend.
pub trait Figure {
    /// Draws the whole figure on `area` (already cleared to white).
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), VizError>;
}

/// Renders `figure` as `format` bytes of `width` × `height` pixels.
pub fn render<F: Figure>(
    figure: &F,
    format: ImageFormat,
    width: u32,
    height: u32,
) -> Result<Vec<u8>, VizError> {
    register_embedded_font();
    match format {
        ImageFormat::Svg => {
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
                root.fill(&WHITE).map_err(draw_err)?;
                figure.draw(&root)?;
                root.present().map_err(draw_err)?;
            }
            Ok(svg.into_bytes())
        }
        ImageFormat::Png => {
            let mut rgb = vec![0u8; width as usize * height as usize * 3];
            {
                let root =
                    BitMapBackend::with_buffer(&mut rgb, (width, height)).into_drawing_area();
                root.fill(&WHITE).map_err(draw_err)?;
                figure.draw(&root)?;
                root.present().map_err(draw_err)?;
            }
            encode_png(&rgb, width, height)
        }
    }
}

/// PNG bytes of an RGB buffer.
fn encode_png(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, VizError> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().map_err(VizError::EncodePng)?;
        writer.write_image_data(rgb).map_err(VizError::EncodePng)?;
    }
    Ok(out)
}

/// The color of scaled congestion `c` ∈ [0, 1]: the HSV hue 0.4·(1 − c) at saturation and
/// value 0.9, as in the `get_cable_cong` dot output (green for the least congested, red
/// for the most), converted to RGB.
pub fn congestion_rgb(c: f32) -> RGBColor {
    let c = if c.is_nan() { 0.0 } else { c.clamp(0.0, 1.0) };
    let (h, s, v) = congestion_hsv(c);
    let (r, g, b) = hsv_to_rgb(h, s, v);
    RGBColor(r, g, b)
}

/// The HSV color (hue, saturation, value) of scaled congestion `c`, computed in single
/// precision as ORCS does: hue 0.4·(1 − c), saturation and value 0.9.
pub(crate) fn congestion_hsv(c: f32) -> (f32, f32, f32) {
    (0.4 * (1.0 - c), 0.9, 0.9)
}

/// HSV (all in [0, 1]) to 8-bit RGB, the conversion Graphviz applies to `"h s v"` colors.
pub(crate) fn hsv_to_rgb(h: f32, s: f32, v: f32) -> (u8, u8, u8) {
    let h6 = (h.rem_euclid(1.0)) * 6.0;
    let sector = h6.floor();
    let f = h6 - sector;
    let p = v * (1.0 - s);
    let q = v * (1.0 - s * f);
    let t = v * (1.0 - s * (1.0 - f));
    let (r, g, b) = match sector as u32 % 6 {
        0 => (v, t, p),
        1 => (q, v, p),
        2 => (p, v, t),
        3 => (p, q, v),
        4 => (t, p, v),
        _ => (v, p, q),
    };
    let byte = |x: f32| (x * 255.0).round().clamp(0.0, 255.0) as u8;
    (byte(r), byte(g), byte(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Text;
    impl Figure for Text {
        fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), VizError> {
            area.draw_text("orcs 0.25", &(FONT, 20).into_font().color(&BLACK), (5, 5))
                .map_err(draw_err)
        }
    }

    #[test]
    fn embedded_font_draws_text_in_both_formats() {
        let svg = String::from_utf8(render(&Text, ImageFormat::Svg, 120, 40).unwrap()).unwrap();
        assert!(svg.contains("orcs 0.25"), "{svg}");
        let png = render(&Text, ImageFormat::Png, 120, 40).unwrap();
        assert!(png.starts_with(b"\x89PNG"));
        // Text was rasterised: the image is not a blank white PNG of the same size.
        let blank = encode_png(&vec![255; 120 * 40 * 3], 120, 40).unwrap();
        assert_ne!(png, blank);
    }

    #[test]
    fn formats_follow_the_extension() {
        assert_eq!(ImageFormat::from_path("a/map.SVG"), Some(ImageFormat::Svg));
        assert_eq!(ImageFormat::from_path("map.png"), Some(ImageFormat::Png));
        assert_eq!(ImageFormat::from_path("map.pdf"), None);
    }

    #[test]
    fn congestion_colors_go_from_green_to_red_monotonically() {
        assert_eq!(hsv_to_rgb(0.0, 0.9, 0.9), (230, 23, 23));
        let green = congestion_rgb(0.0);
        assert!(green.1 > green.0 && green.1 > green.2, "{green:?}");
        // Along the scale the red share rises and the green share falls.
        let mut last = congestion_rgb(0.0);
        for i in 1..=100 {
            let c = congestion_rgb(i as f32 / 100.0);
            assert!(c.0 >= last.0 && c.1 <= last.1, "{i}: {c:?} after {last:?}");
            last = c;
        }
        assert_eq!(congestion_rgb(1.0), RGBColor(230, 23, 23));
    }
}
