//! The self-contained HTML report (`orcs report`): parameters, summary statistics,
//! histograms and congestion maps of one or more results, in one file with no external
//! resources (styles and SVG charts inline, no scripts).

use crate::engine::metric::{MetricKind, Summary};
use crate::report::results::ResultDoc;
use crate::viz::draw::ImageFormat;
use crate::viz::error::VizError;
use crate::viz::map::{render_map, CongestionGraph, MapOptions};
use crate::viz::map_input::graph_of;
use crate::viz::plot::{histogram, render_plot};
use std::fmt::Write;

/// Size of an inline congestion map, in pixels.
const MAP_SIZE: (u32, u32) = (1000, 640);

/// One result to report: where it came from and what it holds.
pub struct ReportInput {
    /// The file it was read from (shown in the report).
    pub path: String,
    /// The parsed result.
    pub doc: ResultDoc,
}

use crate::escape::xml as escape;

/// The metrics a result has data for, in ORCS's option order.
fn metrics_of(doc: &ResultDoc) -> Vec<MetricKind> {
    MetricKind::ALL
        .into_iter()
        .filter(|&m| match m {
            MetricKind::HistMaxCong => doc.hist_max_cong.total_pairs > 0,
            MetricKind::HistAccBand => doc.summary.acc_band.is_some(),
            MetricKind::SumMaxCong => !doc.per_run.sum_max_cong.is_empty(),
            MetricKind::DepMaxDelay => !doc.per_run.dep_max_delay.is_empty(),
            MetricKind::GetCableCong => doc.cable_congestion.is_some(),
        })
        .collect()
}

/// An SVG document without its XML prolog, ready to inline.
fn inline_svg(bytes: Vec<u8>) -> String {
    let text = String::from_utf8_lossy(&bytes).into_owned();
    match text.find("<svg") {
        Some(start) => text[start..].to_string(),
        None => text,
    }
}

/// One row of the summary table.
fn summary_row(out: &mut String, name: &str, s: &Option<Summary>) {
    if let Some(s) = s {
        let _ = writeln!(
            out,
            "<tr><td>{name}</td><td>{}</td><td>{:.6}</td><td>{:.6}</td><td>{:.6}</td><td>{:.6}</td><td>[{:.6}, {:.6}]</td></tr>",
            s.n, s.mean, s.sd, s.min, s.max, s.ci95_low, s.ci95_high
        );
    }
}

/// The page's head and styles, up to the main heading.
const PAGE_HEAD: &str = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>orcs report</title>\n<style>\n\
body{font-family:sans-serif;margin:2em auto;max-width:1100px;color:#222}\n\
h1{font-size:1.6em}h2{font-size:1.3em;border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}\n\
h3{font-size:1.05em}table{border-collapse:collapse;margin:.5em 0}\n\
td,th{border:1px solid #ddd;padding:.25em .6em;text-align:left;font-size:.9em}\n\
th{background:#f3f3f3}.chart svg{max-width:100%;height:auto}\n\
.note{color:#666;font-size:.85em}\n</style>\n</head>\n<body>\n<h1>orcs report</h1>\n";

/// The whole report as one HTML document. Histograms of every metric each result has
/// data for, comparison plots when several results share a metric, and a congestion
/// map for results with per-edge counts. O(size of the results + drawing).
pub fn html_report(inputs: &[ReportInput]) -> Result<String, VizError> {
    let mut h = String::from(PAGE_HEAD);
    let _ = writeln!(
        h,
        "<p class=\"note\">{} result{} · written by orcs {}</p>",
        inputs.len(),
        if inputs.len() == 1 { "" } else { "s" },
        env!("CARGO_PKG_VERSION")
    );
    // Comparisons first: every metric that two or more results share.
    if inputs.len() > 1 {
        comparison_section(&mut h, inputs)?;
    }
    for (i, input) in inputs.iter().enumerate() {
        result_section(&mut h, i, input)?;
    }
    h.push_str("</body>\n</html>\n");
    Ok(h)
}

/// The comparison plots of every metric that two or more results have data for, under
/// one heading; nothing when there is none.
fn comparison_section(h: &mut String, inputs: &[ReportInput]) -> Result<(), VizError> {
    let mut section = String::new();
    for metric in MetricKind::ALL {
        let docs: Vec<&ResultDoc> = inputs
            .iter()
            .map(|i| &i.doc)
            .filter(|d| metrics_of(d).contains(&metric))
            .collect();
        if docs.len() < 2 {
            continue;
        }
        if let Some(plot) = histogram(&docs, metric) {
            let svg = inline_svg(render_plot(&plot, ImageFormat::Svg)?);
            let _ = writeln!(
                section,
                "<h3>{metric}</h3>\n<div class=\"chart\" data-chart=\"compare-{metric}\">{svg}</div>"
            );
        }
    }
    if !section.is_empty() {
        h.push_str("<h2>Comparison</h2>\n");
        h.push_str(&section);
    }
    Ok(())
}

/// Result `i`'s section: where it came from, its parameters and summary statistics,
/// the histogram of every metric it has data for and its congestion map.
fn result_section(h: &mut String, i: usize, input: &ReportInput) -> Result<(), VizError> {
    let doc = &input.doc;
    let _ = writeln!(
        h,
        "<h2 id=\"result-{i}\">{}</h2>\n<p class=\"note\">{} · orcs {}</p>",
        escape(&doc.label()),
        escape(&input.path),
        escape(&doc.orcs_version)
    );
    parameters_table(h, doc);
    summary_table(h, doc);
    for metric in metrics_of(doc) {
        if let Some(plot) = histogram(&[doc], metric) {
            let svg = inline_svg(render_plot(&plot, ImageFormat::Svg)?);
            let _ = writeln!(
                h,
                "<h3>{metric}</h3>\n<div class=\"chart\" data-chart=\"{metric}-{i}\">{svg}</div>"
            );
        }
    }
    if let Some(graph) = graph_of(doc) {
        congestion_map(h, i, doc, &graph)?;
    }
    Ok(())
}

/// The result's parameters, lists joined with `; `.
fn parameters_table(h: &mut String, doc: &ResultDoc) {
    h.push_str("<h3>Parameters</h3>\n<table>\n");
    for (name, value) in &doc.parameters {
        let text = match value {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Array(a) => a
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect::<Vec<_>>()
                .join("; "),
            other => other.to_string(),
        };
        let _ = writeln!(
            h,
            "<tr><th>{}</th><td>{}</td></tr>",
            escape(name),
            escape(&text)
        );
    }
    h.push_str("</table>\n");
}

/// The per-run statistics the result has, and the bandwidth over all pairs when known.
fn summary_table(h: &mut String, doc: &ResultDoc) {
    h.push_str("<h3>Summary</h3>\n<table>\n<tr><th>per run</th><th>n</th><th>mean</th><th>sd</th><th>min</th><th>max</th><th>95 % CI of the mean</th></tr>\n");
    summary_row(h, "accumulated bandwidth", &doc.summary.acc_band);
    summary_row(h, "sum of maximal congestion", &doc.summary.sum_max_cong);
    summary_row(h, "dependency delay", &doc.summary.dep_max_delay);
    summary_row(h, "pairs", &doc.summary.pairs_per_run);
    h.push_str("</table>\n");
    if let Some(bw) = doc.hist_max_cong.bw {
        let _ = writeln!(
            h,
            "<p>Bandwidth over all {} pairs (mean of 1 / weight): <b>{bw:.6}</b></p>",
            doc.hist_max_cong.total_pairs
        );
    }
}

/// Result `i`'s congestion map with a note on how to read it.
fn congestion_map(
    h: &mut String,
    i: usize,
    doc: &ResultDoc,
    graph: &CongestionGraph,
) -> Result<(), VizError> {
    let options = MapOptions {
        title: Some(format!("congestion map: {}", doc.label())),
        ..MapOptions::suggested(graph)
    };
    let svg = inline_svg(render_map(
        graph,
        &options,
        ImageFormat::Svg,
        MAP_SIZE.0,
        MAP_SIZE.1,
    )?);
    let _ = writeln!(
        h,
        "<h3>Congestion map</h3>\n<p class=\"note\">Each cable coloured by its summed congestion scaled to [0, 1] ({} least, {} most); the {} hottest labelled{}; hover over a cable or a node for its counts.</p>\n<div class=\"chart\" data-chart=\"map-{i}\">{svg}</div>",
        options.colors.ends().0,
        options.colors.ends().1,
        options.top_labels,
        if options.switches_only { "; hosts hidden" } else { "" }
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_markup() {
        assert_eq!(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
    }
}
