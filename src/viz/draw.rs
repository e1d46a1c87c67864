//! Drawing support shared by plots and maps: image formats, the embedded font, the
//! colour scales, and rendering one figure to SVG, PNG or PDF bytes.
//!
//! Text is drawn with a font compiled into the binary (DejaVu Sans, Bitstream Vera
//! license, see `assets/`), so images come out the same on a machine without fontconfig
//! or any installed font.

use crate::viz::bitmap_text::BitmapText;
use crate::viz::error::VizError;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use std::fmt;
use std::sync::Once;

/// The family name figures use for all text; it resolves to the embedded font.
pub(crate) const FONT: &str = "sans-serif";

/// The embedded font's bytes.
pub(crate) static FONT_BYTES: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");

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
    /// Portable document format: the SVG drawing as vector graphics, its text as text in
    /// the embedded font (a subset of it), one page the size of the picture.
    Pdf,
}

impl ImageFormat {
    /// The format a file name asks for (`.svg`, `.png` or `.pdf`, any case; also
    /// `.svg.gz`, which the output writer compresses), if any.
    pub fn from_path(path: &str) -> Option<Self> {
        let lower = path.to_ascii_lowercase();
        if lower.ends_with(".svg") || lower.ends_with(".svg.gz") {
            Some(ImageFormat::Svg)
        } else if lower.ends_with(".png") {
            Some(ImageFormat::Png)
        } else if lower.ends_with(".pdf") {
            Some(ImageFormat::Pdf)
        } else {
            None
        }
    }
}

/// A colour scale for values in [0, 1], as maps colour their cables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorScale {
    /// matplotlib's viridis, dark purple (0) through teal and green to yellow (1):
    /// perceptually uniform, its lightness rising all along, so it reads the same in grey
    /// and to colour-blind readers. The default.
    #[default]
    Viridis,
    /// cividis, dark blue (0) through grey to yellow (1): viridis's properties, and
    /// nearly the same colours for readers with red-green colour blindness as for others.
    Cividis,
    /// ORCS's `get_cable_cong` colours, green (0) to red (1) by HSV hue 0.4·(1 − c):
    /// the colours of ORCS's dot maps, but red and green look alike to one reader in
    /// twelve.
    Orcs,
}

impl ColorScale {
    /// The scales' names, as `--colors` takes them.
    pub const NAMES: [&'static str; 3] = ["viridis", "cividis", "orcs"];

    /// The scale called `name` (see [`ColorScale::NAMES`]).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "viridis" => Some(ColorScale::Viridis),
            "cividis" => Some(ColorScale::Cividis),
            "orcs" => Some(ColorScale::Orcs),
            _ => None,
        }
    }

    /// The colours at 0 and at 1, in words, for captions.
    pub fn ends(self) -> (&'static str, &'static str) {
        match self {
            ColorScale::Viridis => ("dark purple", "yellow"),
            ColorScale::Cividis => ("dark blue", "yellow"),
            ColorScale::Orcs => ("green", "red"),
        }
    }

    /// The colour of `c` ∈ [0, 1] (clamped; NaN is 0).
    pub fn rgb(self, c: f32) -> RGBColor {
        let c = if c.is_nan() { 0.0 } else { c.clamp(0.0, 1.0) };
        let gradient = match self {
            ColorScale::Viridis => colorous::VIRIDIS,
            ColorScale::Cividis => colorous::CIVIDIS,
            ColorScale::Orcs => return congestion_rgb(c),
        };
        let colorous::Color { r, g, b } = gradient.eval_continuous(f64::from(c));
        RGBColor(r, g, b)
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

/// A figure with a title and a size of its own: a plot, whose title and size a user may
/// change (`--title`, `--size`).
pub trait Chart: Figure {
    /// The title drawn above the chart.
    fn title_mut(&mut self) -> &mut String;
    /// The size the chart is drawn at unless asked otherwise, in pixels.
    fn natural_size(&self) -> (u32, u32);
}

/// What a user changes in a chart: its title and its size in pixels (points for PDF).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChartStyle {
    /// The title instead of the chart's own.
    pub title: Option<String>,
    /// The size instead of [`Chart::natural_size`].
    pub size: Option<(u32, u32)>,
}

/// Renders `chart` as `format` bytes, with the title and size `style` asks for.
pub fn render_chart<C: Chart>(
    chart: &mut C,
    format: ImageFormat,
    style: &ChartStyle,
) -> Result<Vec<u8>, VizError> {
    if let Some(title) = &style.title {
        title.clone_into(chart.title_mut());
    }
    let (width, height) = style.size.unwrap_or_else(|| chart.natural_size());
    render(chart, format, width, height)
}

/// Renders `figure` as `format` bytes of `width` × `height` pixels (for PDF, a page of
/// `width` × `height` points).
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
                let root = BitmapText::with_buffer(&mut rgb, (width, height)).into_drawing_area();
                root.fill(&WHITE).map_err(draw_err)?;
                figure.draw(&root)?;
                root.present().map_err(draw_err)?;
            }
            encode_png(&rgb, width, height)
        }
        ImageFormat::Pdf => svg_to_pdf(&render(figure, ImageFormat::Svg, width, height)?),
    }
}

/// A one-page PDF of the picture an SVG document draws: shapes as vector graphics, text
/// as text set in the embedded font, whatever family the SVG names (Graphviz asks for
/// Times). No system font is read, so the bytes depend on the SVG only.
pub fn svg_to_pdf(svg: &[u8]) -> Result<Vec<u8>, VizError> {
    use svg2pdf::usvg;
    let mut options = usvg::Options::default();
    let fonts = options.fontdb_mut();
    fonts.load_font_data(FONT_BYTES.to_vec());
    // The one font loaded serves every generic family an SVG may ask for.
    let family = fonts
        .faces()
        .find_map(|face| face.families.first().map(|(name, _)| name.clone()))
        .unwrap_or_default();
    fonts.set_sans_serif_family(family.clone());
    fonts.set_serif_family(family.clone());
    fonts.set_monospace_family(family);
    options.font_family = "sans-serif".to_string();
    let tree = usvg::Tree::from_data(svg, &options).map_err(|e| VizError::Draw {
        detail: format!("the SVG drawing cannot be read back for PDF: {e}"),
    })?;
    svg2pdf::to_pdf(
        &tree,
        svg2pdf::ConversionOptions::default(),
        svg2pdf::PageOptions::default(),
    )
    .map_err(|e| VizError::Draw {
        detail: format!("cannot convert the drawing to PDF: {e}"),
    })
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

/// Colour as readers with deuteranopia see it, and the CIELAB distance between colours:
/// the check that a scale separates what it should for every reader.
#[cfg(test)]
pub(crate) mod vision {
    use plotters::style::RGBColor;

    /// An 8-bit sRGB channel in linear light.
    fn linear(c: u8) -> f64 {
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    }

    /// Linear RGB of `c` as seen with deuteranopia: Machado, Oliveira and Fernandes (2009),
    /// severity 1.
    pub fn deuteranopia(c: RGBColor) -> [f64; 3] {
        const M: [[f64; 3]; 3] = [
            [0.367322, 0.860646, -0.227968],
            [0.280085, 0.672501, 0.047413],
            [-0.011820, 0.042940, 0.968881],
        ];
        let l = [linear(c.0), linear(c.1), linear(c.2)];
        M.map(|row| (row[0] * l[0] + row[1] * l[1] + row[2] * l[2]).clamp(0.0, 1.0))
    }

    /// Things that have a linear RGB value.
    pub trait Linear {
        /// Linear-light RGB in [0, 1].
        fn linear_rgb(self) -> [f64; 3];
    }
    impl Linear for RGBColor {
        fn linear_rgb(self) -> [f64; 3] {
            [linear(self.0), linear(self.1), linear(self.2)]
        }
    }
    impl Linear for [f64; 3] {
        fn linear_rgb(self) -> [f64; 3] {
            self
        }
    }

    /// CIELAB (D65) of a colour.
    pub fn lab(c: impl Linear) -> [f64; 3] {
        let [r, g, b] = c.linear_rgb();
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
        let f = |t: f64| {
            if t > 216.0 / 24389.0 {
                t.cbrt()
            } else {
                (24389.0 / 27.0 * t + 16.0) / 116.0
            }
        };
        [
            116.0 * f(y) - 16.0,
            500.0 * (f(x) - f(y)),
            200.0 * (f(y) - f(z)),
        ]
    }

    /// The CIE76 colour difference.
    pub fn delta_e(a: [f64; 3], b: [f64; 3]) -> f64 {
        ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
    }
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
        assert_eq!(ImageFormat::from_path("map.PDF"), Some(ImageFormat::Pdf));
        assert_eq!(ImageFormat::from_path("map.jpg"), None);
        assert_eq!(ImageFormat::from_path("map.svg.GZ"), Some(ImageFormat::Svg));
        // Formats that compress themselves are not compressed again.
        assert_eq!(ImageFormat::from_path("map.png.gz"), None);
    }

    #[test]
    fn pdf_keeps_the_text_and_is_the_same_every_time() {
        let pdf = render(&Text, ImageFormat::Pdf, 120, 40).unwrap();
        assert!(pdf.starts_with(b"%PDF-"), "{:?}", &pdf[..16]);
        assert!(pdf.trim_ascii_end().ends_with(b"%%EOF"));
        // The embedded font, subset, travels in the file.
        assert!(pdf.windows(8).any(|w| w == b"FontFile"));
        assert_eq!(pdf, render(&Text, ImageFormat::Pdf, 120, 40).unwrap());
        // A page of 120 × 40 points.
        let text = String::from_utf8_lossy(&pdf);
        assert!(text.contains("/MediaBox [0 0 120 40]"), "{text}");
    }

    #[test]
    fn viridis_and_cividis_end_where_matplotlib_ends() {
        // matplotlib's viridis: #440154 at 0, #21918c at 0.5, #fde725 at 1 (to the
        // nearest 8-bit value); cividis runs from dark blue to yellow.
        let close = |c: RGBColor, (r, g, b): (u8, u8, u8)| {
            c.0.abs_diff(r) <= 1 && c.1.abs_diff(g) <= 1 && c.2.abs_diff(b) <= 1
        };
        assert!(close(ColorScale::Viridis.rgb(0.0), (0x44, 0x01, 0x54)));
        assert!(close(ColorScale::Viridis.rgb(1.0), (0xfd, 0xe7, 0x25)));
        assert!(close(ColorScale::Viridis.rgb(0.5), (0x21, 0x91, 0x8c)));
        let (blue, yellow) = (ColorScale::Cividis.rgb(0.0), ColorScale::Cividis.rgb(1.0));
        assert!(blue.2 > 60 && blue.0 < 20 && blue.1 < 60, "{blue:?}");
        assert!(
            yellow.0 > 240 && yellow.1 > 200 && yellow.2 < 100,
            "{yellow:?}"
        );
        assert_eq!(ColorScale::Orcs.rgb(1.0), congestion_rgb(1.0));
        assert_eq!(
            ColorScale::Viridis.rgb(f32::NAN),
            ColorScale::Viridis.rgb(0.0)
        );
        assert_eq!(ColorScale::Viridis.rgb(7.0), ColorScale::Viridis.rgb(1.0));
        for name in ColorScale::NAMES {
            assert_eq!(ColorScale::from_name(name).map(|_| ()), Some(()), "{name}");
        }
        assert_eq!(ColorScale::from_name("jet"), None);
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
