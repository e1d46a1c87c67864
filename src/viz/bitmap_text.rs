//! Text on PNG pictures: the bitmap backend of plotters with its text drawing replaced,
//! each glyph set at its pen position plus its own left bearing, on one baseline.
//!
//! plotters' `ab_glyph` text drawing puts every glyph's left edge at the pen position,
//! ignoring the bearing, so narrow glyphs drift left of their place: "16" read as "1 6"
//! and the decimal point stuck to the digit before it. Everything else (lines, shapes,
//! bitmaps, and the text's measured size, which label placement relies on) is the
//! bitmap backend's own.

use ab_glyph::{point, Font, FontRef, PxScale, ScaleFont};
use plotters::backend::BitMapBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};
use std::sync::LazyLock;

/// The embedded font, parsed once (the bytes are fixed at build time and a test reads
/// them; a font that does not parse draws no text).
static FONT: LazyLock<Option<FontRef<'static>>> =
    LazyLock::new(|| FontRef::try_from_slice(super::draw::FONT_BYTES).ok());

/// The bitmap backend with text set glyph by glyph (see the module documentation).
pub struct BitmapText<'a> {
    inner: BitMapBackend<'a>,
}

impl<'a> BitmapText<'a> {
    /// Draws into `rgb` (`width` × `height` pixels, 3 bytes each).
    pub fn with_buffer(rgb: &'a mut [u8], (width, height): (u32, u32)) -> Self {
        BitmapText {
            inner: BitMapBackend::with_buffer(rgb, (width, height)),
        }
    }
}

type Error<'a> = DrawingErrorKind<<BitMapBackend<'a> as DrawingBackend>::ErrorType>;

impl<'a> DrawingBackend for BitmapText<'a> {
    type ErrorType = <BitMapBackend<'a> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), Error<'a>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), Error<'a>> {
        self.inner.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), Error<'a>> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), Error<'a>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), Error<'a>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), Error<'a>> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), Error<'a>> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), Error<'a>> {
        self.inner.fill_polygon(vert, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), Error<'a>> {
        self.inner.blit_bitmap(pos, size, src)
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), Error<'a>> {
        self.inner.estimate_text_size(text, style)
    }

    /// The text in the box plotters measures for it (advances and kerning across, the
    /// font's size over 1.24 down), placed by the style's anchor and turned by its
    /// transform as plotters does; the baseline divides the box's height as the font's
    /// ascent and descent divide its line.
    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), Error<'a>> {
        let color = style.color();
        let Some(font) = FONT.as_ref() else {
            return Ok(());
        };
        if color.alpha == 0.0 {
            return Ok(());
        }
        let ((min_x, min_y), (max_x, max_y)) = style
            .layout_box(text)
            .map_err(|e| DrawingErrorKind::FontError(Box::new(e)))?;
        let (width, height) = (max_x - min_x, max_y - min_y);
        let dx = match style.anchor().h_pos {
            HPos::Left => 0,
            HPos::Right => -width,
            HPos::Center => -width / 2,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0,
            VPos::Center => -height / 2,
            VPos::Bottom => -height,
        };
        let transform = style.transform();
        let (canvas_w, canvas_h) = self.get_size();
        let scale = PxScale::from(style.size() as f32);
        let scaled = font.as_scaled(scale);
        let line = scaled.ascent() - scaled.descent();
        let baseline = if line > 0.0 {
            height as f32 * scaled.ascent() / line
        } else {
            height as f32
        };
        let mut pen = 0.0f32;
        let mut previous = None;
        let mut result = Ok(());
        for c in text.chars() {
            let id = scaled.glyph_id(c);
            if let Some(previous) = previous {
                pen += scaled.kern(previous, id);
            }
            previous = Some(id);
            let glyph = id.with_scale_and_position(scale, point(pen, baseline));
            pen += scaled.h_advance(id);
            let Some(outline) = font.outline_glyph(glyph) else {
                continue;
            };
            let bounds = outline.px_bounds();
            let (left, top) = (bounds.min.x as i32, bounds.min.y as i32);
            outline.draw(|x, y, coverage| {
                let (x, y) =
                    transform.transform(left + x as i32 + dx - min_x, top + y as i32 + dy - min_y);
                let (x, y) = (pos.0 + x, pos.1 + y);
                let inside = x >= 0 && y >= 0 && (x as u32) < canvas_w && (y as u32) < canvas_h;
                if inside && result.is_ok() {
                    result = self
                        .inner
                        .draw_pixel((x, y), color.mix(f64::from(coverage)));
                }
            });
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::prelude::*;

    /// The first column with ink in an RGB canvas of `width` pixels, white elsewhere.
    fn first_inked_column(rgb: &[u8], width: u32) -> Option<u32> {
        let height = rgb.len() as u32 / (3 * width);
        (0..width).find(|&x| (0..height).any(|y| rgb[((y * width + x) * 3) as usize] < 128))
    }

    #[test]
    fn a_narrow_glyph_keeps_its_left_bearing() {
        super::super::draw::register_embedded_font();
        let font = FONT.as_ref().expect("the embedded font parses");
        let scaled = font.as_scaled(PxScale::from(40.0));
        // The font puts the ink of a '1' a fifth of its advance right of the pen.
        let bearing = scaled.h_side_bearing(scaled.glyph_id('1'));
        assert!(bearing > 3.0, "{bearing}");
        let (width, height) = (100, 60);
        let mut rgb = vec![255u8; (width * height * 3) as usize];
        {
            let root = BitmapText::with_buffer(&mut rgb, (width, height)).into_drawing_area();
            let style = (super::super::draw::FONT, 40.0).into_font().color(&BLACK);
            root.draw(&Text::new("1", (10, 5), style)).unwrap();
            root.present().unwrap();
        }
        let first = first_inked_column(&rgb, width).expect("the text is drawn");
        assert!(
            (first as f32 - (10.0 + bearing)).abs() <= 1.0,
            "ink from column {first}, the pen at 10 and the bearing {bearing}"
        );
    }
}
