//! `src,dst,bytes,messages` rows, 0-based world ranks, by source then destination.

use crate::trace::traffic::TraceTraffic;
use std::io::{self, Write};

/// Writes the header line and one row per pair with a message. O(pairs).
pub fn write_csv(out: &mut dyn Write, traffic: &TraceTraffic) -> io::Result<()> {
    writeln!(out, "src,dst,bytes,messages")?;
    for p in &traffic.pairs {
        writeln!(out, "{},{},{},{}", p.src, p.dst, p.bytes, p.messages)?;
    }
    Ok(())
}
