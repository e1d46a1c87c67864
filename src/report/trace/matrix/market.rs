//! A Matrix Market coordinate file of bytes: row = sending rank + 1, column = receiving
//! rank + 1, one entry per pair with a message (zero-byte pairs included).

use crate::trace::traffic::TraceTraffic;
use std::io::{self, Write};

/// Writes the banner, a comment saying what the numbers are, the size line and the
/// entries. O(pairs).
pub fn write_market(out: &mut dyn Write, traffic: &TraceTraffic) -> io::Result<()> {
    let n = traffic.ranks;
    writeln!(out, "%%MatrixMarket matrix coordinate integer general")?;
    writeln!(
        out,
        "% bytes sent from rank i-1 (row) to rank j-1 (column); {} messages in all",
        traffic.total_messages()
    )?;
    writeln!(out, "{n} {n} {}", traffic.pairs.len())?;
    for p in &traffic.pairs {
        writeln!(out, "{} {} {}", p.src + 1, p.dst + 1, p.bytes)?;
    }
    Ok(())
}
