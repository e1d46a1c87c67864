//! The built-in renderer of congestion maps: a laid-out [`CongestionGraph`] drawn with
//! plotters as SVG or PNG, with no program to install. Every cable is colored and sized
//! by its congestion, the hottest drawn last and labelled, with a color bar for the scale.

use crate::escape::xml as xml_escape;
use crate::viz::draw::{self, draw_err, ColorScale, Figure, ImageFormat, FONT};
use crate::viz::error::VizError;
use crate::viz::map::{
    hottest, layout, visible_cables, Cable, CongestionGraph, MapOptions, Positions,
};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontTransform;
use std::fmt::Write as _;

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
    /// thin and light grey, the others coloured by the options' scale and wider when
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
                    self.options.colors.rgb(c.value),
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

    /// The shown nodes: hosts as dots, switches as squares.
    fn draw_nodes<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        frame: &Frame,
    ) -> Result<(), VizError> {
        let points = &self.positions.points;
        for (v, p) in points.iter().enumerate() {
            let (x, y) = self.at(frame, v as u32);
            if p.is_none() {
                continue;
            } else if self.graph.drawn_as_point(v as u32) {
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
        }
        Ok(())
    }

    /// The labels: the values of the top-N hottest cables at their middles, hottest
    /// first, then the switch names below the switches when there are at most 32. Each
    /// is placed by [`place_labels`] so that no two overlap (nor the title or the legend);
    /// one that finds no free place is left out, the least important first.
    fn draw_labels<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        frame: &Frame,
        cables: &[Cable],
    ) -> Result<(), VizError> {
        let centered = centered_text();
        let grey = centered_text().color(&RGBColor(70, 70, 70));
        let mut labels: Vec<(String, &TextStyle, (i32, i32))> = Vec::new();
        for i in hottest(cables, self.options.top_labels) {
            let (a, b) = (self.at(frame, cables[i].a), self.at(frame, cables[i].b));
            let text = format!("{:.3}", cables[i].value);
            labels.push((text, &centered, ((a.0 + b.0) / 2, (a.1 + b.1) / 2)));
        }
        let points = &self.positions.points;
        let switches: Vec<usize> = (0..points.len())
            .filter(|&v| points[v].is_some() && !self.graph.drawn_as_point(v as u32))
            .collect();
        if switches.len() <= 32 {
            for v in switches {
                let (x, y) = self.at(frame, v as u32);
                let name = self.graph.names[v].clone();
                labels.push((name, &grey, (x, y + frame.side / 2 + 8)));
            }
        }
        let mut wanted = Vec::with_capacity(labels.len());
        for (text, style, at) in &labels {
            let (w, h) = area.estimate_text_size(text, style).map_err(draw_err)?;
            wanted.push((*at, (w as i32 / 2 + 2, h as i32 / 2 + 1)));
        }
        let mut taken = Vec::new();
        if self.options.title.is_some() {
            taken.push([0, 0, frame.w, frame.top - frame.pad]);
        }
        if self.options.legend {
            taken.push([frame.w - 100, 0, frame.w, frame.h]);
        }
        let placed = place_labels(&wanted, (frame.w, frame.h), taken);
        for ((text, style, _), at) in labels.iter().zip(placed) {
            if let Some(at) = at {
                boxed(area, text, style, at)?;
            }
        }
        Ok(())
    }
}

/// A box of pixels, `[x0, y0, x1, y1]`, the far edges excluded.
type PixelBox = [i32; 4];

/// A label to place: the point it wants as its centre, and its half width and height.
type WantedLabel = ((i32, i32), (i32, i32));

/// Where the labels go: label `i` wants to be centred at `wanted[i].0` and has half
/// width and half height `wanted[i].1`. In order (the most important first), each takes
/// the first of five places, at its point or one box-height above or below or one
/// box-width left or right of it, where its box lies on the `(width, height)` canvas and
/// overlaps neither a label placed before nor a box of `taken`; a label with no such
/// place gets `None`. O(n² ) box comparisons for n labels.
fn place_labels(
    wanted: &[WantedLabel],
    (width, height): (i32, i32),
    mut taken: Vec<PixelBox>,
) -> Vec<Option<(i32, i32)>> {
    let overlaps =
        |a: &PixelBox, b: &PixelBox| a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
    wanted
        .iter()
        .map(|&((x, y), (hw, hh))| {
            let (dx, dy) = (2 * hw + 2, 2 * hh + 2);
            let place = [(0, 0), (0, -dy), (0, dy), (-dx, 0), (dx, 0)]
                .into_iter()
                .map(|(ox, oy)| (x + ox, y + oy))
                .find(|&(cx, cy)| {
                    let b = [cx - hw, cy - hh, cx + hw, cy + hh];
                    b[0] >= 0
                        && b[1] >= 0
                        && b[2] <= width
                        && b[3] <= height
                        && !taken.iter().any(|t| overlaps(t, &b))
                })?;
            taken.push([place.0 - hw, place.1 - hh, place.0 + hw, place.1 + hh]);
            Some(place)
        })
        .collect()
}

impl Figure for MapFigure<'_> {
    /// Cables (see [`MapFigure::draw_cables`]), switches as squares, hosts as dots,
    /// the labels (see [`MapFigure::draw_labels`]), the title and the legend.
    /// O(nodes + cables log cables + labels²).
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), VizError> {
        let points = &self.positions.points;
        let shown = points.iter().filter(|p| p.is_some()).count();
        let frame = Frame::new(area.dim_in_pixel(), shown, self.options);
        let cables = visible_cables(self.graph, points);
        self.draw_cables(area, &frame, &cables)?;
        self.draw_nodes(area, &frame)?;
        self.draw_labels(area, &frame, &cables)?;
        let centered = centered_text();
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
            legend(area, bar, max, self.options.colors)?;
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
    colors: ColorScale,
) -> Result<(), VizError> {
    let (y0, y1) = (y0 + 10, (y1 - 24).max(y0 + 30));
    let steps = 64;
    let span = (y1 - y0) as f64;
    for s in 0..steps {
        let (a, b) = (s as f64 / steps as f64, (s + 1) as f64 / steps as f64);
        let c = colors.rgb(s as f32 / (steps - 1) as f32);
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

impl MapFigure<'_> {
    /// What an SVG map shows on hover: over the drawing, an invisible wide stroke along
    /// every drawn cable and an invisible square on every shown node, each with a
    /// `<title>` (which browsers show as a tooltip). A cable names its ends, its scaled
    /// congestion and the count of each direction; a node its name, kind, cables and the
    /// hottest of them. O(nodes + cables).
    fn tooltips(&self, size: (u32, u32)) -> String {
        let points = &self.positions.points;
        let shown = points.iter().filter(|p| p.is_some()).count();
        let frame = Frame::new(size, shown, self.options);
        let cables = visible_cables(self.graph, points);
        let names = &self.graph.names;
        let count = |e: Option<usize>| e.map_or(0, |e| self.graph.edges[e].count);
        let mut out = String::from(
            "<g class=\"tooltips\" fill=\"#000000\" fill-opacity=\"0\" stroke=\"#000000\" stroke-opacity=\"0\">\n",
        );
        // Per node: cables drawn and the hottest value.
        let mut degree = vec![(0usize, 0f32); names.len()];
        for c in cables.iter().filter(|c| c.a != c.b) {
            let ((xa, ya), (xb, yb)) = (self.at(&frame, c.a), self.at(&frame, c.b));
            let (na, nb) = (&names[c.a as usize], &names[c.b as usize]);
            let text = format!(
                "{na} \u{2014} {nb}: scaled congestion {:.3}\ncount {na} \u{2192} {nb}: {}, {nb} \u{2192} {na}: {}",
                c.value,
                count(c.edges[0]),
                count(c.edges[1]),
            );
            let _ = writeln!(
                out,
                "<line x1=\"{xa}\" y1=\"{ya}\" x2=\"{xb}\" y2=\"{yb}\" stroke-width=\"8\"><title>{}</title></line>",
                xml_escape(&text)
            );
            for v in [c.a, c.b] {
                let (n, hottest) = &mut degree[v as usize];
                *n += 1;
                *hottest = hottest.max(c.value);
            }
        }
        for (v, p) in points.iter().enumerate() {
            if p.is_none() {
                continue;
            }
            let (x, y) = self.at(&frame, v as u32);
            let half = (frame.side / 2).max(frame.dot) + 2;
            let kind = if self.graph.grouped {
                "level"
            } else if self.graph.host(v as u32) {
                "host"
            } else {
                "switch"
            };
            let (n, hottest) = degree[v];
            let text = format!(
                "{} ({kind}): {n} cables drawn, the hottest at {hottest:.3}",
                names[v]
            );
            let _ = writeln!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" stroke-width=\"0\"><title>{}</title></rect>",
                x - half,
                y - half,
                2 * half,
                2 * half,
                xml_escape(&text)
            );
        }
        out.push_str("</g>\n");
        out
    }
}

/// Renders the map of `graph` as `format` bytes of `width` × `height` pixels (see
/// [`MapFigure`]); an SVG map also gets [`MapFigure::tooltips`].
pub fn render_map(
    graph: &CongestionGraph,
    options: &MapOptions,
    format: ImageFormat,
    width: u32,
    height: u32,
) -> Result<Vec<u8>, VizError> {
    let figure = MapFigure::new(graph, options);
    let mut bytes = draw::render(&figure, format, width, height)?;
    if format == ImageFormat::Svg {
        let end = bytes
            .windows(6)
            .rposition(|w| w == b"</svg>")
            .unwrap_or(bytes.len());
        bytes.splice(end..end, figure.tooltips((width, height)).into_bytes());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viz::map::fixtures::{graph, ring, svg, tree, with};

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
                s.matches(&stroke(bare.colors.rgb(value))).count(),
                cables,
                "{value}"
            );
        }
        assert_eq!(s.matches(&stroke(UNUSED)).count(), 5);
        // Drawn last: the hottest cable lies on top of the others.
        assert!(s.rfind("<polyline").unwrap() <= s.find(&stroke(bare.colors.rgb(1.0))).unwrap());
        assert!(s.contains(&txt("1.000")) && s.contains(&txt("0.500")));
        assert!(!s.contains(&txt("0.250")) && !s.contains(&txt("scaled congestion")));
        assert_eq!(s.matches("<circle").count(), 4);
        let titled = svg(&g, &with(&bare, |o| o.title = Some("fat tree".into())));
        assert!(titled.contains(&txt("fat tree")));
        let legend = svg(&g, &with(&bare, |o| o.legend = true));
        assert!(legend.contains(&txt("scaled congestion")) && legend.contains("max count: 4"));
        let fill = |c: f32| stroke(bare.colors.rgb(c)).replace("stroke", "fill");
        assert!(legend.contains(&fill(0.0)) && legend.contains(&fill(1.0)));
        assert!(!s.contains(&fill(0.0)));
        let switches = svg(&g, &with(&bare, |o| o.switches_only = true));
        assert_eq!(switches.matches("<circle").count(), 0);
        assert_eq!(switches.matches("<polyline").count(), 4);
        assert!(!switches.contains(&txt("1.000")) && switches.contains(&txt("0.500")));
    }

    /// The colours of the used cables of a map, read from its SVG, in the order of their
    /// values (the tree fixture's cables carry 0.25, 0.5 and 1.0).
    fn cable_colors(colors: ColorScale) -> Vec<RGBColor> {
        let s = svg(
            &tree(),
            &with(&MapOptions::default(), |o| o.colors = colors),
        );
        let mut found: Vec<(usize, RGBColor)> = [0.25, 0.5, 1.0]
            .iter()
            .map(|&v| {
                let c = colors.rgb(v);
                (s.find(&stroke(c)).expect("the cable is drawn"), c)
            })
            .collect();
        // Cables are drawn coolest first.
        found.sort_by_key(|&(at, _)| at);
        found.into_iter().map(|(_, c)| c).collect()
    }

    #[test]
    fn a_map_seen_with_deuteranopia_still_orders_low_to_high_load() {
        use crate::viz::draw::vision::{delta_e, deuteranopia, lab};
        for scale in [ColorScale::Viridis, ColorScale::Cividis] {
            let seen: Vec<[f64; 3]> = cable_colors(scale)
                .into_iter()
                .map(|c| lab(deuteranopia(c)))
                .collect();
            // Lightness rises with the load as the reader sees it, and the coolest and the
            // hottest cable stay far apart (a ΔE of 2.3 is just noticeable).
            assert!(
                seen[0][0] < seen[1][0] && seen[1][0] < seen[2][0],
                "{scale:?}: {seen:?}"
            );
            assert!(delta_e(seen[0], seen[2]) > 50.0, "{scale:?}: {seen:?}");
        }
        // ORCS's green-to-red scale fails the same check: the hot red is seen darker than
        // the cool green, and the two differ far less than for other readers.
        let orcs: Vec<RGBColor> = cable_colors(ColorScale::Orcs);
        let seen: Vec<[f64; 3]> = orcs.iter().map(|&c| lab(deuteranopia(c))).collect();
        assert!(seen[2][0] < seen[0][0], "{seen:?}");
        let normal = delta_e(lab(orcs[0]), lab(orcs[2]));
        assert!(delta_e(seen[0], seen[2]) < normal / 3.0, "{seen:?}");
    }

    #[test]
    fn labels_keep_their_point_when_free_and_move_or_go_when_not() {
        let one = ((50, 50), (10, 5));
        // Alone: at its point. Twice: the second goes one box-height up.
        assert_eq!(place_labels(&[one], (200, 200), vec![]), [Some((50, 50))]);
        assert_eq!(
            place_labels(&[one, one], (200, 200), vec![]),
            [Some((50, 50)), Some((50, 38))]
        );
        // Six at one point: the five places fill (point, above, below, left, right),
        // the sixth is left out.
        assert_eq!(
            place_labels(&[one; 6], (200, 200), vec![]),
            [
                Some((50, 50)),
                Some((50, 38)),
                Some((50, 62)),
                Some((28, 50)),
                Some((72, 50)),
                None
            ]
        );
        // A box already taken, or the canvas edge, moves it too.
        assert_eq!(
            place_labels(&[one], (200, 200), vec![[0, 44, 200, 56]]),
            [Some((50, 38))]
        );
        assert_eq!(
            place_labels(&[one], (200, 200), vec![[0, 30, 200, 70]]),
            [None]
        );
        assert_eq!(
            place_labels(&[((5, 50), (10, 5))], (200, 200), vec![]),
            [Some((27, 50))]
        );
    }

    proptest::proptest! {
        #[test]
        fn placed_labels_never_overlap_and_stay_on_the_canvas(
            wanted in proptest::collection::vec(((0..300i32, 0..200i32), (1..40i32, 1..12i32)), 0..60),
        ) {
            let taken = vec![[250, 0, 300, 200]];
            let placed = place_labels(&wanted, (300, 200), taken.clone());
            proptest::prop_assert_eq!(placed.len(), wanted.len());
            let mut boxes: Vec<PixelBox> = taken;
            for (&(_, (hw, hh)), at) in wanted.iter().zip(&placed) {
                let Some((x, y)) = *at else { continue };
                let b = [x - hw, y - hh, x + hw, y + hh];
                proptest::prop_assert!(b[0] >= 0 && b[1] >= 0 && b[2] <= 300 && b[3] <= 200);
                for o in &boxes {
                    proptest::prop_assert!(
                        !(o[0] < b[2] && b[0] < o[2] && o[1] < b[3] && b[1] < o[3]),
                        "{:?} overlaps {:?}", b, o
                    );
                }
                boxes.push(b);
            }
        }
    }

    /// The label boxes of an SVG map: the translucent white rectangles behind labels.
    fn label_boxes(svg: &str) -> Vec<[f64; 4]> {
        svg.lines()
            .filter(|l| l.starts_with("<rect") && l.contains("opacity=\"0.8\" fill=\"#FFFFFF\""))
            .map(|l| {
                let attr = |name: &str| -> f64 {
                    let at = l.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
                    l[at..at + l[at..].find('"').unwrap()].parse().unwrap()
                };
                let (x, y) = (attr("x"), attr("y"));
                [x, y, x + attr("width"), y + attr("height")]
            })
            .collect()
    }

    #[test]
    fn no_two_labels_of_a_crowded_map_overlap() {
        // 24 switches in a ring, every cable labelled, on a small canvas: labels and
        // switch names crowd each other.
        let names: Vec<String> = (0..24).map(|i| format!("switch-{i}")).collect();
        let names: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
        let links: Vec<_> = (0..24u32)
            .map(|i| (i, (i + 1) % 24, 1 + u64::from(i), 1))
            .collect();
        let g = graph(&names, &links);
        let options = MapOptions {
            top_labels: 24,
            title: Some("a crowded ring".into()),
            ..Default::default()
        };
        let s = String::from_utf8(render_map(&g, &options, ImageFormat::Svg, 320, 240).unwrap())
            .unwrap();
        let boxes = label_boxes(&s);
        assert!(boxes.len() >= 12, "{} labels drawn:\n{s}", boxes.len());
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[..i] {
                let overlap = a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
                assert!(!overlap, "label boxes {a:?} and {b:?} overlap");
            }
        }
        // The hottest cable's value is always shown.
        assert!(s.contains(&txt("1.000")));
    }

    #[test]
    fn svg_maps_say_what_a_cable_and_a_node_carry_on_hover() {
        let s = svg(&tree(), &MapOptions::default());
        let doc = roxmltree::Document::parse(&s).expect("the map is well-formed XML");
        let titles: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("title"))
            .filter_map(|n| n.text())
            .collect();
        // 8 cables and 8 nodes.
        assert_eq!(titles.len(), 16, "{titles:#?}");
        for expected in [
            "H0 \u{2014} L0: scaled congestion 1.000\ncount H0 \u{2192} L0: 4, L0 \u{2192} H0: 0",
            "L0 \u{2014} S0: scaled congestion 0.500\ncount L0 \u{2192} S0: 2, S0 \u{2192} L0: 1",
            "L1 \u{2014} S1: scaled congestion 0.250\ncount L1 \u{2192} S1: 0, S1 \u{2192} L1: 1",
            "L0 (switch): 4 cables drawn, the hottest at 1.000",
            "H1 (host): 1 cables drawn, the hottest at 0.000",
        ] {
            assert!(
                titles.contains(&expected),
                "{expected:?} not in {titles:#?}"
            );
        }
        // Names are escaped; without hosts, their cables and titles go too.
        let names = ["H<0>", "H1", "H2", "H3", "L&0", "L1", "S0", "S1"];
        let mut g = tree();
        g.names = names.iter().map(|n| n.to_string()).collect();
        let s = svg(
            &g,
            &with(&MapOptions::default(), |o| o.switches_only = true),
        );
        let doc = roxmltree::Document::parse(&s).expect("escaped names stay well-formed");
        let titles = doc
            .descendants()
            .filter(|n| n.has_tag_name("title"))
            .count();
        assert_eq!(titles, 4 + 4);
        assert!(s.contains("L&amp;0 (switch)"));
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
