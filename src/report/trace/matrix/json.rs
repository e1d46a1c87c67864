//! The sparse JSON matrix `{"ranks": n, "entries": [[src, dst, bytes], ...],
//! "messages": [m, ...]}`, one message count per entry.

use crate::trace::traffic::TraceTraffic;
use std::io::{self, Write};

/// Writes the matrix, one entry per line. O(pairs).
pub fn write_json(out: &mut dyn Write, traffic: &TraceTraffic) -> io::Result<()> {
    writeln!(out, "{{\n  \"ranks\": {},\n  \"entries\": [", traffic.ranks)?;
    for (i, p) in traffic.pairs.iter().enumerate() {
        let comma = if i + 1 < traffic.pairs.len() { "," } else { "" };
        writeln!(out, "    [{}, {}, {}]{comma}", p.src, p.dst, p.bytes)?;
    }
    write!(out, "  ],\n  \"messages\": [")?;
    for (i, p) in traffic.pairs.iter().enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        write!(out, "{sep}{}", p.messages)?;
    }
    writeln!(out, "]\n}}")
}
