//! get_cable_cong's congestion map as dot (spec §7.5): the fabric written back with
//! every edge's scaled congestion and the color ORCS gives it.

use crate::engine::metric::scaled_congestion;
use crate::fabric::write::write_dot;
use crate::fabric::Fabric;
use std::io::{self, Write};

/// The HSV color ORCS gives an edge of scaled congestion `c`: green (0.4) to red (0).
pub(crate) fn congestion_color(c: f32) -> String {
    let (h, s, v) = crate::viz::draw::congestion_hsv(c);
    format!("{h:.6} {s:.6} {v:.6}")
}

/// Writes the fabric back as a dot graph with every edge's `congestion`, `color` and
/// `edge_id` (spec §7.5); node, edge and graph attributes of the input are kept (an
/// existing `congestion`, `color` or `edge_id` is replaced). O(nodes + edges + tokens).
pub fn write_cable_dot(out: &mut dyn Write, fabric: &Fabric, cable: &[u64]) -> io::Result<()> {
    let scaled = scaled_congestion(cable);
    write_dot(out, fabric, &|e| {
        let c = scaled[e as usize];
        vec![
            ("color".to_string(), congestion_color(c)),
            ("congestion".to_string(), format!("{c:.6}")),
            ("edge_id".to_string(), e.to_string()),
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colors_go_from_green_to_red() {
        assert_eq!(congestion_color(0.0), "0.400000 0.900000 0.900000");
        assert_eq!(congestion_color(1.0), "0.000000 0.900000 0.900000");
        assert_eq!(congestion_color(0.9), "0.040000 0.900000 0.900000");
    }
}
