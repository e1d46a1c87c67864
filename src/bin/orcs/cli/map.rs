//! `orcs map`: the congestion map of a get_cable_cong result.

use super::shared::OutputArg;
use super::values::{image_format, resolve, whole};
use anyhow::{bail, Result};
use clap::Args;
use orcs::viz::draw::{ColorScale, ImageFormat};
use orcs::viz::map::Layout;

/// The help of `-o` for commands that write a picture.
pub const IMAGE_OUTPUT_HELP: &str = "Image file to write; .svg, .png or .pdf.";

/// Flags of `orcs map`.
#[derive(Debug, Args)]
#[command(mut_arg("output", |a| a.help(IMAGE_OUTPUT_HELP).required(true)))]
pub struct MapArgs {
    /// A get_cable_cong result: JSON (--format json) or the dot map written with -o.
    #[arg(verbatim_doc_comment, value_name = "RESULT")]
    pub result: String,
    #[command(flatten)]
    pub output: OutputArg,
    /// Label the N most congested cables with their scaled congestion.
    #[arg(
        verbatim_doc_comment,
        long = "top",
        value_name = "N",
        default_value_t = 10,
        allow_negative_numbers = true,
        value_parser = whole::<usize>
    )]
    pub top: usize,
    /// Draw switches and the cables between them only (default for fabrics of more than 256 hosts).
    #[arg(verbatim_doc_comment, long = "switches-only")]
    pub switches_only: bool,
    /// Draw hosts even on large fabrics.
    #[arg(verbatim_doc_comment, long = "hosts", conflicts_with = "switches_only")]
    pub hosts: bool,
    /// Draw each level (the hosts, the leaf switches, the next level, …) as one node and the links between two levels as one cable per direction, coloured by the hottest of them: a summary of large fat trees.
    #[arg(verbatim_doc_comment, long = "per-level")]
    pub per_level: bool,
    /// Leave out the color scale legend.
    #[arg(verbatim_doc_comment, long = "no-legend")]
    pub no_legend: bool,
    /// Who lays out and draws the map: auto (Graphviz when `dot` is installed, else built in), builtin or graphviz.
    #[arg(
        verbatim_doc_comment,
        long = "renderer",
        value_name = "RENDERER",
        default_value = "auto"
    )]
    pub renderer: String,
    /// Layout of the built-in renderer: auto (layered for indirect networks such as fat trees, force-directed for direct ones), layered or force.
    #[arg(
        verbatim_doc_comment,
        long = "layout",
        value_name = "LAYOUT",
        default_value = "auto"
    )]
    pub layout: String,
    /// Colour scale of the cables: viridis (dark purple to yellow), cividis (dark blue to yellow), both readable by colour-blind readers and in grey, or orcs (ORCS's green to red).
    #[arg(
        verbatim_doc_comment,
        long = "colors",
        visible_alias = "colours",
        value_name = "SCALE",
        default_value = "viridis"
    )]
    pub colors: String,
    /// Title above the map (default: "congestion map of RESULT"; "" for none).
    #[arg(verbatim_doc_comment, long = "title", value_name = "TEXT")]
    pub title: Option<String>,
    /// Image width in pixels (points for PDF).
    #[arg(
        verbatim_doc_comment,
        long = "width",
        value_name = "PIXELS",
        default_value_t = 1200,
        allow_negative_numbers = true,
        value_parser = whole::<u32>
    )]
    pub width: u32,
    /// Image height in pixels (points for PDF).
    #[arg(
        verbatim_doc_comment,
        long = "height",
        value_name = "PIXELS",
        default_value_t = 800,
        allow_negative_numbers = true,
        value_parser = whole::<u32>
    )]
    pub height: u32,
}

/// Who draws a congestion map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Renderer {
    /// Graphviz when installed, else built in.
    Auto,
    /// The built-in layout and drawing.
    Builtin,
    /// Graphviz (`dot` or `neato`), which must be installed.
    Graphviz,
}

/// A validated `orcs map` request.
#[derive(Debug)]
pub struct MapPlan {
    /// The result to draw.
    pub result: String,
    /// The picture to write.
    pub output: String,
    /// Its format.
    pub format: ImageFormat,
    /// Cables labelled with their value.
    pub top: usize,
    /// `Some(true)`/`Some(false)` when asked, `None` to decide by fabric size.
    pub switches_only: Option<bool>,
    /// Draw the per-level view.
    pub per_level: bool,
    /// Draw the colour scale.
    pub legend: bool,
    /// Who draws.
    pub renderer: Renderer,
    /// The built-in layout, or None to pick one by the network's structure.
    pub layout: Option<Layout>,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The cables' colour scale.
    pub colors: ColorScale,
    /// The title, if not the default.
    pub title: Option<String>,
}

impl MapArgs {
    /// The validated request.
    pub fn into_plan(self) -> Result<MapPlan> {
        let renderer = match resolve(
            "--renderer",
            &self.renderer,
            &["auto", "builtin", "graphviz"],
        )? {
            "builtin" => Renderer::Builtin,
            "graphviz" => Renderer::Graphviz,
            _ => Renderer::Auto,
        };
        let layout = match resolve("--layout", &self.layout, &["auto", "layered", "force"])? {
            "layered" => Some(Layout::Layered),
            "force" => Some(Layout::Force),
            _ => None,
        };
        if layout.is_some() && renderer == Renderer::Graphviz {
            bail!("--layout chooses the built-in layout; Graphviz lays out the map itself");
        }
        if !(16..=20000).contains(&self.width) || !(16..=20000).contains(&self.height) {
            bail!("--width and --height must be between 16 and 20000 pixels");
        }
        // resolve returns one of the names, which from_name all know.
        let colors = ColorScale::from_name(resolve("--colors", &self.colors, &ColorScale::NAMES)?)
            .unwrap_or_default();
        let output = self.output.required();
        Ok(MapPlan {
            colors,
            title: self.title,
            format: image_format("-o/--output", &output)?,
            result: self.result,
            output,
            top: self.top,
            switches_only: match (self.switches_only, self.hosts) {
                (true, _) => Some(true),
                (false, true) => Some(false),
                (false, false) => None,
            },
            per_level: self.per_level,
            legend: !self.no_legend,
            renderer,
            layout,
            width: self.width,
            height: self.height,
        })
    }
}
