//! The built-in renderer of congestion maps: a laid-out [`CongestionGraph`] drawn with
//! plotters as SVG or PNG, with no program to install. Every cable is colored and sized
//! by its congestion, the hottest drawn last and labelled, with a color bar for the scale.

use crate::viz::draw::{self, congestion_rgb, draw_err, Figure, ImageFormat, FONT};
use crate::viz::error::VizError;
use crate::viz::map::{
    hottest, layout, visible_cables, Cable, CongestionGraph, MapOptions, Positions,
};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontTransform;

/// Color of cables that carry no traffic.
pub(crate) const UNUSED: RGBColor = RGBColor(205, 205, 205);
/// Fill of switch markers.
const SWITCH: RGBColor = RGBColor(60, 60, 90);
/// Fill of host markers.
const HOST: RGBColor = RGBColor(110, 130, 160);

/// A congestion map ready to draw: the graph, the options and the computed layout.
pub(crate) struct MapFigure<'a> {
    graph: &'a CongestionGraph,
    options: &'a MapOptions,
    positions: Positions,
}

/// Where the parts of a map go on the canvas: the marker sizes and the plot rectangle,
/// which shrink as more nodes are shown and leave room for the title and the legend.
struct Frame {
    /// Canvas width and height in pixels.
    w: i32,
    h: i32,
    /// Side of a switch square.
    side: i32,
    /// Radius of a host dot.
    dot: i32,
    /// Margin around the plot.
    pad: i32,
    /// Top edge of the plot (below the title).
    top: i32,
    /// Width and height of the plot.
    pw: i32,
    ph: i32,
}

impl Frame {
    /// The frame of a `(w, h)` canvas showing `shown` nodes.
    fn new((w, h): (u32, u32), shown: usize, options: &MapOptions) -> Frame {
        let (w, h) = (w as i32, h as i32);
        let side = ((w.min(h) as f64 / (shown.max(1) as f64).sqrt() * 0.2) as i32).clamp(3, 14);
        let dot = (side / 3).clamp(1, 4);
        let pad = side + 6;
        let top = pad + if options.title.is_some() { 30 } else { 0 };
        let right = pad + if options.legend { 110 } else { 0 };
        let (pw, ph) = ((w - pad - right).max(1), (h - top - pad - 12).max(1));
        Frame {
            w,
            h,
            side,
            dot,
            pad,
            top,
            pw,
            ph,
        }
    }

    /// The pixel of a point of the unit square (y grows upward); no point is the centre.
    fn at(&self, point: Option<(f64, f64)>) -> (i32, i32) {
        let (x, y) = point.unwrap_or((0.5, 0.5));
        (
            self.pad + (x * self.pw as f64).round() as i32,
            self.top + ((1.0 - y) * self.ph as f64).round() as i32,
        )
    }
}

/// The style of switch names, cable labels and notes: small, centered on their point.
fn centered_text() -> TextStyle<'static> {
    TextStyle::from((FONT, 11).into_font())
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Center))
}

impl<'a> MapFigure<'a> {
    /// Lays out `graph` (see [`layout`](fn@layout)).
    pub fn new(graph: &'a CongestionGraph, options: &'a MapOptions) -> Self {
        MapFigure {
            graph,
            options,
            positions: layout(graph, options),
        }
    }

    /// The pixel of node `v`.
    fn at(&self, frame: &Frame, v: u32) -> (i32, i32) {
        frame.at(self.positions.points[v as usize])
    }

    /// The cables in list order (coolest first, so the hottest lie on top): unused ones
    /// thin and light grey, the others colored by [`congestion_rgb`] and wider when
    /// hotter, the widest stroke narrowing on maps with many cables. Self-loops are not
    /// drawn.
    fn draw_cables<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        frame: &Frame,
        cables: &[Cable],
    ) -> Result<(), VizError> {
        let widest =
            [7.0, 5.0, 3.0][usize::from(cables.len() > 100) + usize::from(cables.len() > 1000)];
        for c in cables.iter().filter(|c| c.a != c.b) {
            let (color, width) = if c.count == 0 {
                (UNUSED, 1)
            } else {
                (
                    congestion_rgb(c.value),
                    1 + (c.value as f64 * (widest - 1.0)).round() as u32,
                )
            };
            area.draw(&PathElement::new(
                vec![self.at(frame, c.a), self.at(frame, c.b)],
                color.stroke_width(width),
            ))
            .map_err(draw_err)?;
        }
        Ok(())
    }

    /// The shown nodes: hosts as dots, switches as squares, named below when there are
    /// at most 32 switches.
    fn draw_nodes<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        frame: &Frame,
    ) -> Result<(), VizError> {
        let points = &self.positions.points;
        let switches = (points.iter().enumerate())
            .filter(|(v, p)| p.is_some() && !self.graph.host(*v as u32))
            .count();
        let grey = centered_text().color(&RGBColor(70, 70, 70));
        for (v, p) in points.iter().enumerate() {
            let (x, y) = self.at(frame, v as u32);
            if p.is_none() {
                continue;
            } else if self.graph.host(v as u32) {
                area.draw(&Circle::new((x, y), frame.dot, HOST.filled()))
                    .map_err(draw_err)?;
                continue;
            }
            let s = frame.side / 2;
            area.draw(&Rectangle::new(
                [(x - s, y - s), (x + s, y + s)],
                SWITCH.filled(),
            ))
            .map_err(draw_err)?;
            if switches <= 32 {
                boxed(area, &self.graph.names[v], &grey, (x, y + s + 8))?;
            }
        }
        Ok(())
    }
}

impl Figure for MapFigure<'_> {
    /// Cables (see [`MapFigure::draw_cables`]), switches as squares, hosts as dots,
    /// switch names when there are at most 32, the top-N labels, the title and the
    /// legend. O(nodes + cables log cables).
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), VizError> {
        let points = &self.positions.points;
        let shown = points.iter().filter(|p| p.is_some()).count();
        let frame = Frame::new(area.dim_in_pixel(), shown, self.options);
        let cables = visible_cables(self.graph, points);
        self.draw_cables(area, &frame, &cables)?;
        self.draw_nodes(area, &frame)?;
        let centered = centered_text();
        for i in hottest(&cables, self.options.top_labels) {
            let (a, b) = (self.at(&frame, cables[i].a), self.at(&frame, cables[i].b));
            let text = format!("{:.3}", cables[i].value);
            boxed(area, &text, &centered, ((a.0 + b.0) / 2, (a.1 + b.1) / 2))?;
        }
        if shown == 0 {
            area.draw_text("no nodes to draw", &centered, (frame.w / 2, frame.h / 2))
                .map_err(draw_err)?;
        }
        if let Some(title) = &self.options.title {
            let style = TextStyle::from((FONT, 18).into_font())
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Top));
            area.draw_text(title, &style, (frame.w / 2, 8))
                .map_err(draw_err)?;
        }
        if self.options.legend {
            let max = self.graph.edges.iter().map(|e| e.count).max().unwrap_or(0);
            let bar = (frame.w - 100, frame.top, frame.h - frame.pad - 12);
            legend(area, bar, max)?;
        }
        Ok(())
    }
}

/// Text centered at `at` on a translucent white box.
fn boxed<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    style: &TextStyle,
    (x, y): (i32, i32),
) -> Result<(), VizError> {
    let (w, h) = area.estimate_text_size(text, style).map_err(draw_err)?;
    let (w, h) = (w as i32 / 2 + 2, h as i32 / 2 + 1);
    let frame = WHITE.mix(0.8).filled();
    area.draw(&Rectangle::new([(x - w, y - h), (x + w, y + h)], frame))
        .map_err(draw_err)?;
    area.draw_text(text, style, (x, y)).map_err(draw_err)
}

/// The color bar at `x` from `y0` (1) to `y1` (0), ticks, caption and the max count.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (x, y0, y1): (i32, i32, i32),
    max: u64,
) -> Result<(), VizError> {
    let (y0, y1) = (y0 + 10, (y1 - 24).max(y0 + 30));
    let steps = 64;
    let span = (y1 - y0) as f64;
    for s in 0..steps {
        let (a, b) = (s as f64 / steps as f64, (s + 1) as f64 / steps as f64);
        let c = congestion_rgb(s as f32 / (steps - 1) as f32);
        let (top, bottom) = (
            y1 - (b * span).round() as i32,
            y1 - (a * span).round() as i32,
        );
        area.draw(&Rectangle::new(
            [(x + 24, top), (x + 40, bottom)],
            c.filled(),
        ))
        .map_err(draw_err)?;
    }
    let tick = TextStyle::from((FONT, 11).into_font())
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    for t in 0..=4 {
        let y = y1 - (t as f64 / 4.0 * span).round() as i32;
        area.draw(&PathElement::new(vec![(x + 40, y), (x + 44, y)], BLACK))
            .map_err(draw_err)?;
        area.draw_text(&format!("{:.2}", t as f64 / 4.0), &tick, (x + 47, y))
            .map_err(draw_err)?;
    }
    let caption = TextStyle::from((FONT, 12).into_font().transform(FontTransform::Rotate270))
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Center));
    area.draw_text("scaled congestion", &caption, (x + 10, (y0 + y1) / 2))
        .map_err(draw_err)?;
    let below = tick.pos(Pos::new(HPos::Left, VPos::Top));
    area.draw_text(&format!("max count: {max}"), &below, (x, y1 + 8))
        .map_err(draw_err)
}

/// Renders the map of `graph` as `format` bytes of `width` × `height` pixels (see
/// [`MapFigure`]).
pub fn render_map(
    graph: &CongestionGraph,
    options: &MapOptions,
    format: ImageFormat,
    width: u32,
    height: u32,
) -> Result<Vec<u8>, VizError> {
    draw::render(&MapFigure::new(graph, options), format, width, height)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viz::map::fixtures::{ring, svg, tree, with};

    fn stroke(c: RGBColor) -> String {
        format!("stroke=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2)
    }

    /// How the SVG backend writes a text element's content.
    fn txt(s: &str) -> String {
        format!(">\n{s}\n</text>")
    }

    #[test]
    fn svg_shows_cables_labels_and_legend() {
        let (g, bare) = (
            tree(),
            MapOptions {
                top_labels: 2,
                legend: false,
                ..Default::default()
            },
        );
        let s = svg(&g, &bare);
        assert_eq!(s.matches("<polyline").count(), 8, "{s}");
        for (value, cables) in [(1.0, 1), (0.5, 1), (0.25, 1)] {
            assert_eq!(
                s.matches(&stroke(congestion_rgb(value))).count(),
                cables,
                "{value}"
            );
        }
        assert_eq!(s.matches(&stroke(UNUSED)).count(), 5);
        // Drawn last: the hottest cable lies on top of the others.
        assert!(s.rfind("<polyline").unwrap() <= s.find(&stroke(congestion_rgb(1.0))).unwrap());
        assert!(s.contains(&txt("1.000")) && s.contains(&txt("0.500")));
        assert!(!s.contains(&txt("0.250")) && !s.contains("scaled congestion"));
        assert_eq!(s.matches("<circle").count(), 4);
        let titled = svg(&g, &with(&bare, |o| o.title = Some("fat tree".into())));
        assert!(titled.contains(&txt("fat tree")));
        let legend = svg(&g, &with(&bare, |o| o.legend = true));
        assert!(legend.contains("scaled congestion") && legend.contains("max count: 4"));
        let fill = |c: f32| stroke(congestion_rgb(c)).replace("stroke", "fill");
        assert!(legend.contains(&fill(0.0)) && legend.contains(&fill(1.0)));
        assert!(!s.contains(&fill(0.0)));
        let switches = svg(&g, &with(&bare, |o| o.switches_only = true));
        assert_eq!(switches.matches("<circle").count(), 0);
        assert_eq!(switches.matches("<polyline").count(), 4);
        assert!(!switches.contains(&txt("1.000")) && switches.contains(&txt("0.500")));
    }

    #[test]
    fn png_is_a_drawn_image() {
        let (w, h) = (300u32, 200u32);
        let png = render_map(&ring(), &MapOptions::default(), ImageFormat::Png, w, h).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
        let mut blank = Vec::new();
        let mut encoder = png::Encoder::new(&mut blank, w, h);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        writer
            .write_image_data(&vec![255; (w * h * 3) as usize])
            .unwrap();
        writer.finish().unwrap();
        assert_ne!(png, blank);
    }
}
