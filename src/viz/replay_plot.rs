//! The picture of `orcs trace classify --plot`: per interconnect family, one stacked
//! bar per configuration splitting its predicted run time into computation, load
//! imbalance, latency and bandwidth (on a fabric: wire time and contention).

use crate::trace::replay::Replay;
use crate::viz::draw::{draw_err, render, Chart, Figure, ImageFormat, FONT};
use crate::viz::error::VizError;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Width of the picture, and height of one family's panel, in pixels.
const WIDTH: u32 = 1100;
const PANEL_HEIGHT: u32 = 300;

/// The parts of a bar, bottom to top, with their colors (Okabe–Ito).
const PARTS: [(&str, RGBColor); 5] = [
    ("computation", RGBColor(0, 114, 178)),
    ("load imbalance", RGBColor(230, 159, 0)),
    ("latency", RGBColor(213, 94, 0)),
    ("bandwidth", RGBColor(0, 158, 115)),
    ("contention", RGBColor(204, 121, 167)),
];

/// The legend name of the bandwidth part when contention is drawn beside it.
const WIRE: &str = "bandwidth (wire)";

/// One bar: its label and its parts in seconds, in the order of [`PARTS`].
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// The configuration's name without its family.
    pub label: String,
    /// Computation, imbalance, latency, bandwidth at full speed (wire), contention, s.
    pub parts: [f64; 5],
}

/// The bars of one family.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// The family.
    pub family: String,
    /// Its configurations in replay order.
    pub bars: Vec<Bar>,
}

/// The whole picture.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayPlot {
    /// Title above the first panel.
    pub title: String,
    /// One panel per family, in order of first appearance.
    pub panels: Vec<Panel>,
    /// Whether the bars split bandwidth into wire and contention (a replay on a
    /// fabric).
    pub contention: bool,
}

/// The picture of `replay` of the trace `trace`.
pub fn replay_plot(trace: &str, replay: &Replay) -> ReplayPlot {
    let mut panels: Vec<Panel> = Vec::new();
    for (c, o) in replay.configs.iter().zip(&replay.outcomes) {
        let label = c
            .name
            .strip_prefix(c.family.as_str())
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .unwrap_or(if c.name == c.family {
                "nominal"
            } else {
                &c.name
            })
            .to_string();
        let bar = Bar {
            label,
            parts: [
                o.computation,
                o.imbalance,
                o.latency,
                o.wire(),
                o.contention,
            ],
        };
        match panels.iter_mut().find(|p| p.family == c.family) {
            Some(p) => p.bars.push(bar),
            None => panels.push(Panel {
                family: c.family.clone(),
                bars: vec![bar],
            }),
        }
    }
    let title = match &replay.fabric {
        Some(f) => format!("{trace} on {}: predicted run time by network", f.fabric),
        None => format!("{trace}: predicted run time by network"),
    };
    ReplayPlot {
        title,
        panels,
        contention: replay.fabric.is_some(),
    }
}

/// Renders `plot` as `format` bytes of its [`Chart::natural_size`].
pub fn render_replay_plot(plot: &ReplayPlot, format: ImageFormat) -> Result<Vec<u8>, VizError> {
    let (width, height) = plot.natural_size();
    render(plot, format, width, height)
}

impl Chart for ReplayPlot {
    fn title_mut(&mut self) -> &mut String {
        &mut self.title
    }
    /// 1,100 pixels wide; 40 for the title and 300 per family panel high.
    fn natural_size(&self) -> (u32, u32) {
        (WIDTH, 40 + PANEL_HEIGHT * self.panels.len().max(1) as u32)
    }
}

impl Figure for ReplayPlot {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), VizError> {
        let (title, body) = area.split_vertically(40);
        let centre = Pos::new(HPos::Center, VPos::Center);
        title
            .draw_text(
                &self.title,
                &TextStyle::from((FONT, 18)).pos(centre),
                (area.dim_in_pixel().0 as i32 / 2, 20),
            )
            .map_err(draw_err)?;
        let rows = body.split_evenly((self.panels.len().max(1), 1));
        for (i, (panel, row)) in self.panels.iter().zip(rows.iter()).enumerate() {
            panel.draw(row, i == 0, self.contention)?;
        }
        Ok(())
    }
}

impl Panel {
    fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        legend: bool,
        contention: bool,
    ) -> Result<(), VizError> {
        let n = self.bars.len();
        let top = self
            .bars
            .iter()
            .map(|b| b.parts.iter().sum::<f64>())
            .fold(0.0, f64::max);
        let top = if top > 0.0 { top * 1.08 } else { 1.0 };
        let mut chart = ChartBuilder::on(area)
            .caption(&self.family, (FONT, 15))
            .margin(10)
            .x_label_area_size(70)
            .y_label_area_size(70)
            .build_cartesian_2d(-0.5..n as f64 - 0.5, 0.0..top)
            .map_err(draw_err)?;
        let labels: Vec<String> = self.bars.iter().map(|b| b.label.clone()).collect();
        let x_format = move |x: &f64| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                labels.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n.max(1))
            .x_label_formatter(&x_format)
            .x_label_style(
                TextStyle::from((FONT, 11).into_font()).transform(FontTransform::Rotate90),
            )
            .y_desc("time (s)")
            .y_label_formatter(&|y| format!("{y:.3e}"))
            .label_style((FONT, 11))
            .axis_desc_style((FONT, 13))
            .bold_line_style(RGBColor(230, 230, 230))
            .light_line_style(WHITE)
            .draw()
            .map_err(draw_err)?;
        let parts = if contention { PARTS.len() } else { 4 };
        for (part, &(name, color)) in PARTS[..parts].iter().enumerate() {
            let name = if contention && name == "bandwidth" {
                WIRE
            } else {
                name
            };
            let rects = self.bars.iter().enumerate().map(move |(i, b)| {
                let base: f64 = b.parts[..part].iter().sum();
                let x = i as f64;
                Rectangle::new(
                    [(x - 0.38, base), (x + 0.38, base + b.parts[part])],
                    color.filled(),
                )
            });
            let drawn = chart.draw_series(rects).map_err(draw_err)?;
            if legend {
                drawn.label(name).legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                });
            }
        }
        if legend {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.85))
                .border_style(RGBColor(180, 180, 180))
                .label_font((FONT, 12))
                .draw()
                .map_err(draw_err)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::replay::classify::Rules;
    use crate::trace::replay::config::around;
    use crate::trace::replay::{Outcome, ReplayNotes};

    fn replay() -> Replay {
        let mut configs = around("QDR", 1.3e-6, 4e9);
        configs.truncate(3);
        configs.push(crate::trace::replay::config::Config {
            family: "grid".into(),
            name: "1us inf".into(),
            latency: 1e-6,
            bandwidth: f64::INFINITY,
        });
        let outcomes = (0..4)
            .map(|k| Outcome {
                time: 10.0 + k as f64,
                computation: 4.0,
                imbalance: 1.0,
                latency: 3.0 + k as f64,
                bandwidth: 2.0,
                contention: 0.0,
                rule: Some(0),
            })
            .collect();
        Replay {
            ranks: 2,
            configs,
            outcomes,
            rules: Rules::default(),
            eager_limit: 1,
            notes: ReplayNotes::default(),
            fabric: None,
        }
    }

    #[test]
    fn one_panel_per_family_and_one_bar_per_configuration() {
        let plot = replay_plot("t.meta", &replay());
        assert_eq!(plot.panels.len(), 2);
        assert_eq!(plot.panels[0].family, "QDR");
        let labels: Vec<&str> = plot.panels[0]
            .bars
            .iter()
            .map(|b| b.label.as_str())
            .collect();
        assert_eq!(labels, ["nominal", "lat×1/32", "lat×1/16"]);
        assert_eq!(plot.panels[0].bars[2].parts, [4.0, 1.0, 5.0, 2.0, 0.0]);
        assert!(!plot.contention);
        assert_eq!(plot.panels[1].bars[0].label, "1us inf");
    }

    #[test]
    fn the_svg_has_a_rectangle_per_part_of_every_bar_and_the_labels() {
        let plot = replay_plot("t.meta", &replay());
        let svg = String::from_utf8(render_replay_plot(&plot, ImageFormat::Svg).unwrap()).unwrap();
        for text in [
            "QDR",
            "grid",
            "lat×1/16",
            "1us inf",
            "load imbalance",
            "t.meta",
        ] {
            assert!(svg.contains(text), "{text}");
        }
        // 4 bars × 4 parts, filled with the parts' colours; no contention part.
        let fill = |c: RGBColor| format!("fill=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
        assert!(!svg.contains(&fill(PARTS[4].1)));
        assert!(!svg.contains(WIRE));
        for (_, c) in &PARTS[..4] {
            let fill = fill(*c);
            assert!(svg.matches(&fill).count() >= 4, "{fill}");
        }
        let png = render_replay_plot(&plot, ImageFormat::Png).unwrap();
        assert_eq!(&png[1..4], b"PNG");
    }

    #[test]
    fn on_a_fabric_bandwidth_splits_into_wire_and_contention() {
        let mut replay = replay();
        replay.outcomes[1].contention = 1.5;
        replay.fabric = Some(crate::trace::replay::FabricUse {
            fabric: "ft.dot".into(),
            placement: "linear_bfs".into(),
            hosts: vec!["H0".into(), "H1".into()],
        });
        let plot = replay_plot("t.meta", &replay);
        assert!(plot.contention);
        assert_eq!(
            plot.title,
            "t.meta on ft.dot: predicted run time by network"
        );
        assert_eq!(plot.panels[0].bars[1].parts, [4.0, 1.0, 4.0, 0.5, 1.5]);
        let svg = String::from_utf8(render_replay_plot(&plot, ImageFormat::Svg).unwrap()).unwrap();
        assert!(svg.contains(WIRE) && svg.contains("contention"));
        let c = PARTS[4].1;
        assert!(svg.contains(&format!("fill=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2)));
    }
}
