//! Congestion maps through Graphviz: the map written as a dot document
//! ([`graphviz_source`]) for the program that suits its layout ([`graphviz_program`]:
//! `dot` or `neato`), and that program run to lay the document out and draw it
//! ([`render`]): it reads dot on standard input and writes the picture on standard
//! output.

use crate::fabric::write::dot_id;
use crate::report::congestion_color;
use crate::viz::draw::{self, ColorScale, ImageFormat};
use crate::viz::error::VizError;
use crate::viz::map::{hottest, levels, pick_layout, visible_cables, CongestionGraph, Layout};
use crate::viz::map::{Cable, MapOptions};
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The Graphviz program for the automatic layout: `"dot"` when [`pick_layout`] says
/// layered, `"neato"` otherwise (a caller forcing [`MapOptions::layout`] picks its own).
pub fn graphviz_program(graph: &CongestionGraph) -> &'static str {
    match pick_layout(graph) {
        Layout::Layered => "dot",
        Layout::Force => "neato",
    }
}

/// The map as an undirected dot document for `dot` or `neato` (see [`graphviz_program`]),
/// drawn within `width` × `height` pixels: one edge per cable, coolest first, coloured by
/// the options' scale by the larger direction's value for cables with traffic
/// (`get_cable_cong`'s `color="h s v"` with [`ColorScale::Orcs`]; light grey for unused
/// ones), `penwidth`
/// 1 + 5·value, the N hottest labelled with their value; hosts as points (hidden with
/// `switches_only`); for the layered layout, levels as `rank=same` groups with the hosts
/// at the bottom. O(nodes + cables log cables).
pub fn graphviz_source(
    graph: &CongestionGraph,
    options: &MapOptions,
    (width, height): (u32, u32),
) -> String {
    let kind = options.layout.unwrap_or_else(|| pick_layout(graph));
    let shown: Vec<Option<(f64, f64)>> = (0..graph.num_nodes() as u32)
        .map(|v| (!(options.switches_only && graph.host(v))).then_some((0.0, 0.0)))
        .collect();
    let level = levels(graph, &graph.adjacency());
    let mut s = String::from("graph congestion_map {\n");
    write_graph_attributes(&mut s, graph, options, kind, (width, height));
    write_nodes(&mut s, graph, &shown);
    if kind == Layout::Layered {
        write_levels(&mut s, graph, &shown, &level);
    }
    let (cables, parallel) = bundled(visible_cables(graph, &shown));
    let mut labelled = vec![false; cables.len()];
    for i in hottest(&cables, options.top_labels) {
        labelled[i] = true;
    }
    for ((c, &label), &n) in cables.iter().zip(&labelled).zip(&parallel) {
        write_cable(&mut s, graph, &level, (c, n), label, options.colors);
    }
    s.push_str("}\n");
    s
}

/// Graphviz's resolution: 96 pixels to the inch, as browsers take it.
const DPI: u32 = 96;

/// The graph's caption (title and colour scale with the largest count), its size, the
/// layout's settings, then the default node style (switches as dark boxes).
///
/// The drawing is scaled to fit `width` × `height` pixels (`size` in inches at
/// [`DPI`]). A layered map fills the box exactly (`ratio=fill`): a fat tree's levels are
/// much wider than they are high, and scaling both axes alike would flatten it into a
/// strip a few pixels high. A force-directed map keeps its proportions and touches the
/// box on one side.
fn write_graph_attributes(
    s: &mut String,
    graph: &CongestionGraph,
    options: &MapOptions,
    kind: Layout,
    (width, height): (u32, u32),
) {
    let max = graph.edges.iter().map(|e| e.count).max().unwrap_or(0);
    let title = options
        .title
        .as_deref()
        .map_or(String::new(), |t| format!("{t}\\n"));
    let (cool, hot) = options.colors.ends();
    let label = format!("{title}color: scaled congestion 0 ({cool}) to 1 ({hot}) = count {max}");
    let _ = writeln!(
        s,
        "  graph [label={}, labelloc=t, outputorder=edgesfirst];",
        dot_id(&label)
    );
    let inches = |pixels: u32| f64::from(pixels) / f64::from(DPI);
    let _ = writeln!(
        s,
        "  graph [size=\"{:.4},{:.4}!\", dpi={DPI}, pad=0.1];",
        inches(width),
        inches(height)
    );
    if kind == Layout::Layered {
        s.push_str("  graph [rankdir=BT, splines=line, ranksep=1.2, ratio=fill];\n");
    } else {
        s.push_str("  graph [overlap=false];\n");
    }
    s.push_str(
        "  node [shape=box, style=filled, fillcolor=\"#3c3c5a\", fontcolor=white, fontsize=10];\n",
    );
}

/// One statement per shown node, hosts as small points.
fn write_nodes(s: &mut String, graph: &CongestionGraph, shown: &[Option<(f64, f64)>]) {
    for (v, name) in graph.names.iter().enumerate() {
        if shown[v].is_some() {
            let extra = if graph.drawn_as_point(v as u32) {
                " [shape=point, width=0.06, fillcolor=\"#6e82a0\"]"
            } else {
                ""
            };
            let _ = writeln!(s, "  {}{extra};", dot_id(name));
        }
    }
}

/// The layered layout's levels as `rank=same` groups, lowest level (the hosts) first.
fn write_levels(
    s: &mut String,
    graph: &CongestionGraph,
    shown: &[Option<(f64, f64)>],
    level: &[u32],
) {
    let mut by_level: Vec<(u32, usize)> = (0..graph.num_nodes())
        .filter(|&v| shown[v].is_some())
        .map(|v| (level[v], v))
        .collect();
    by_level.sort_unstable();
    for group in by_level.chunk_by(|a, b| a.0 == b.0) {
        let names: Vec<String> = group
            .iter()
            .map(|&(_, v)| dot_id(&graph.names[v]))
            .collect();
        let _ = writeln!(
            s,
            "  subgraph level_{} {{ rank=same; {}; }}",
            group[0].0,
            names.join("; ")
        );
    }
}

/// One cable (the hottest of `parallel` bundled ones) as an edge from its lower-level
/// end: colour, width, value, a tooltip with its ports and count (and the bundle's size),
/// and its value as label when `labelled`.
fn write_cable(
    s: &mut String,
    graph: &CongestionGraph,
    level: &[u32],
    (c, parallel): (&Cable, usize),
    labelled: bool,
    colors: ColorScale,
) {
    let (mut a, mut b) = (c.a as usize, c.b as usize);
    if level[a] > level[b] {
        (a, b) = (b, a);
    }
    let color = if c.count == 0 {
        "0.000000 0.000000 0.800000".to_string()
    } else if colors == ColorScale::Orcs {
        congestion_color(c.value)
    } else {
        let rgb = colors.rgb(c.value);
        format!("#{:02x}{:02x}{:02x}", rgb.0, rgb.1, rgb.2)
    };
    let keys: Vec<&str> = (c.edges.iter().flatten())
        .filter_map(|&e| graph.edges[e].label.as_deref())
        .collect();
    let (ta, tb) = (&graph.names[a], &graph.names[b]);
    let mut tip = format!("{ta} -- {tb} [{}]: count {}", keys.join(", "), c.count);
    if parallel > 1 {
        tip = format!("{parallel} parallel cables, the hottest: {tip}");
    }
    let _ = write!(
        s,
        "  {} -- {} [color={}, penwidth={:.3}, congestion=\"{:.6}\", tooltip={}",
        dot_id(&graph.names[a]),
        dot_id(&graph.names[b]),
        dot_id(&color),
        1.0 + 5.0 * c.value as f64,
        c.value,
        dot_id(&tip),
    );
    if labelled {
        let _ = write!(s, ", label=\"{:.3}\", fontsize=10", c.value);
    }
    s.push_str("];\n");
}

/// Parallel cables (the same two nodes, as between the switches of a fat tree with
/// several links per pair) bundled into one edge each: the hottest of them stands for
/// all, with how many there are. Graphviz would fan them out into a sheaf of curves
/// that hides the map. Keeps the coolest-first order. O(cables).
fn bundled(cables: Vec<Cable>) -> (Vec<Cable>, Vec<usize>) {
    let mut first: rustc_hash::FxHashMap<(u32, u32), usize> = Default::default();
    let mut kept: Vec<(Cable, usize)> = Vec::with_capacity(cables.len());
    // Hottest first, so that the first cable of a pair seen is the one kept.
    for c in cables.into_iter().rev() {
        match first.entry((c.a, c.b)) {
            std::collections::hash_map::Entry::Occupied(at) => kept[*at.get()].1 += 1,
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(kept.len());
                kept.push((c, 1));
            }
        }
    }
    kept.into_iter().rev().unzip()
}

/// The first executable called `name` on the PATH, if Graphviz is installed.
pub fn find_program(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// Lays out and draws the dot document `source` with `program` as `format` bytes.
/// The input is written from another thread so that a large picture on Graphviz's
/// output cannot block it. Graphviz's SVG gives its size in points of 1/72 inch; at
/// [`DPI`] the numbers are the pixels asked for, so they are given as pixels, and a PDF
/// is that SVG converted ([`draw::svg_to_pdf`]), as for the built-in renderer.
pub fn render(program: &Path, source: &str, format: ImageFormat) -> Result<Vec<u8>, VizError> {
    match format {
        ImageFormat::Svg => run(program, source, "-Tsvg").map(pixel_size),
        ImageFormat::Png => run(program, source, "-Tpng"),
        ImageFormat::Pdf => draw::svg_to_pdf(&pixel_size(run(program, source, "-Tsvg")?)),
    }
}

/// The SVG document `svg` with the `pt` unit dropped from the root element's width and
/// height, which makes them pixels.
fn pixel_size(mut svg: Vec<u8>) -> Vec<u8> {
    let Some(start) = find(&svg, b"<svg") else {
        return svg;
    };
    for attribute in [&b" width=\""[..], &b" height=\""[..]] {
        let end = start + find(&svg[start..], b">").unwrap_or(svg.len() - start);
        let Some(at) = find(&svg[start..end], attribute) else {
            continue;
        };
        let value = start + at + attribute.len();
        let Some(close) = find(&svg[value..end], b"\"") else {
            continue;
        };
        if svg[value..value + close].ends_with(b"pt") {
            svg.drain(value + close - 2..value + close);
        }
    }
    svg
}

/// Where `needle` first occurs in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Runs `program` with the output flag `kind` on `source`, returning what it printed.
fn run(program: &Path, source: &str, kind: &str) -> Result<Vec<u8>, VizError> {
    let mut child = Command::new(program)
        .arg(kind)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| VizError::Spawn {
            program: program.to_path_buf(),
            source,
        })?;
    let mut stdin = child.stdin.take().ok_or(VizError::Stdin)?;
    let text = source.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let output = child.wait_with_output().map_err(VizError::Wait)?;
    let _ = writer.join();
    if !output.status.success() {
        return Err(VizError::Failed {
            program: program.to_path_buf(),
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
        });
    }
    Ok(output.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viz::map::fixtures::{dot_view, graph, ring, tree, with};

    #[test]
    fn a_missing_program_is_named() {
        assert!(find_program("orcs-no-such-graphviz-program").is_none());
        let e = render(Path::new("/nonexistent/dot"), "graph {}", ImageFormat::Svg).unwrap_err();
        assert!(
            e.to_string().starts_with("cannot run /nonexistent/dot"),
            "{e}"
        );
    }

    #[test]
    fn graphviz_svg_sizes_become_pixels() {
        let svg = b"<?xml version=\"1.0\"?>\n<svg width=\"1200pt\" height=\"34pt\"\n viewBox=\"0 0 900 25\"><g/></svg>";
        let fixed = String::from_utf8(pixel_size(svg.to_vec())).unwrap();
        assert!(
            fixed.contains("<svg width=\"1200\" height=\"34\"\n viewBox=\"0 0 900 25\">"),
            "{fixed}"
        );
        // Only the root element's size, and only a size in points, changes.
        let other = b"<svg width=\"5cm\" height=\"2\"><rect width=\"3pt\"/></svg>".to_vec();
        assert_eq!(pixel_size(other.clone()), other);
        assert_eq!(pixel_size(b"<svg".to_vec()), b"<svg".to_vec());
    }

    #[test]
    fn parallel_cables_are_one_edge_coloured_by_the_hottest() {
        // S0 and S1 joined by three cables (counts 1, 4, 2 one way), S1 and S2 by one.
        let g = graph(
            &["S0", "S1", "S2"],
            &[(0, 1, 1, 0), (0, 1, 4, 0), (0, 1, 2, 0), (1, 2, 3, 0)],
        );
        let options = MapOptions {
            colors: ColorScale::Orcs,
            ..Default::default()
        };
        let text = graphviz_source(&g, &options, (640, 480));
        let (edges, _) = dot_view(&text);
        assert_eq!(edges.len(), 2, "{text}");
        // Coolest first: S1 -- S2 (3 of 4), then the bundle at the hottest's 4 of 4.
        assert_eq!(edges[0], (0.75, congestion_color(0.75)));
        assert_eq!(edges[1], (1.0, congestion_color(1.0)));
        assert!(
            text.contains("tooltip=\"3 parallel cables, the hottest: S0 -- S1 [1, 1]: count 4\""),
            "{text}"
        );
        assert_eq!(text.matches("parallel cables").count(), 1, "{text}");
    }

    #[test]
    fn layered_maps_go_to_dot_and_others_to_neato() {
        assert_eq!(graphviz_program(&tree()), "dot");
        assert_eq!(graphviz_program(&ring()), "neato");
    }

    #[test]
    fn graphviz_source_parses_with_monotone_colors() {
        let names: Vec<String> = (0..8).map(|i| format!("S{i}")).collect();
        let names: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
        let g = graph(
            &names,
            &(0..8)
                .map(|i| (i, (i + 1) % 8, i as u64 * 3, 1))
                .collect::<Vec<_>>(),
        );
        let options = MapOptions {
            top_labels: 3,
            title: Some("a \"ring\"".into()),
            colors: ColorScale::Orcs,
            ..Default::default()
        };
        let text = graphviz_source(&g, &options, (960, 480));
        let (mut edges, nodes) = dot_view(&text);
        assert_eq!((edges.len(), nodes.len()), (8, 8), "{text}");
        assert_eq!(text.matches("label=\"").count(), 1 + 3, "{text}");
        edges.sort_by(|a, b| a.0.total_cmp(&b.0));
        let hue = |c: &str| c.split(' ').next().unwrap().parse::<f64>().unwrap();
        for pair in edges.windows(2) {
            assert!(
                pair[0].0 < pair[1].0 && hue(&pair[0].1) > hue(&pair[1].1),
                "{pair:?}"
            );
        }
        assert_eq!(edges[7].1, congestion_color(1.0));
        assert!(text.contains("0 (green) to 1 (red) = count 21"), "{text}");
        // 960 × 480 pixels at 96 per inch; a ring keeps its proportions.
        assert!(text.contains("size=\"10.0000,5.0000!\", dpi=96"), "{text}");
        assert!(!text.contains("ratio=fill"), "{text}");
        // Other scales give each cable the scale's colour of its value, as the built-in
        // renderer does.
        let viridis = with(&options, |o| o.colors = ColorScale::Viridis);
        let (mut edges, _) = dot_view(&graphviz_source(&g, &viridis, (960, 480)));
        edges.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (i, (_, color)) in edges.iter().enumerate().skip(1) {
            let rgb = ColorScale::Viridis.rgb((3 * i) as f32 / 21.0);
            assert_eq!(*color, format!("#{:02x}{:02x}{:02x}", rgb.0, rgb.1, rgb.2));
        }
        let text = graphviz_source(
            &tree(),
            &with(&options, |o| o.switches_only = true),
            (960, 480),
        );
        assert!(text.contains("ratio=fill"), "{text}");
        let (edges, nodes) = dot_view(&text);
        assert_eq!((edges.len(), nodes.len()), (4, 4), "{text}");
        assert!(nodes.iter().all(|n| !n.starts_with('H')), "{text}");
        assert!(text.contains("rank=same") && text.contains("rankdir=BT"));
        assert_eq!(
            dot_view(&graphviz_source(&tree(), &options, (960, 480)))
                .1
                .len(),
            8
        );
    }
}
