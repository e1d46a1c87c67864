//! The CSV table of a replay: one row per configuration (the bandwidth time, then its
//! two parts: wire and contention).

use crate::report::csv_field as field;
use crate::trace::replay::Replay;
use std::io::{self, Write};

/// Writes the header and one row per configuration. O(configurations).
pub fn write_csv(out: &mut dyn Write, replay: &Replay) -> io::Result<()> {
    writeln!(
        out,
        "family,name,latency_s,bandwidth_bytes_per_s,time_s,computation_s,imbalance_s,latency_time_s,bandwidth_time_s,wire_time_s,contention_time_s,class,rule"
    )?;
    for (k, (c, o)) in replay.configs.iter().zip(&replay.outcomes).enumerate() {
        let rule = o
            .rule
            .map_or(String::new(), |r| replay.rules.rules[r].describe());
        writeln!(
            out,
            "{},{},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{},{}",
            field(&c.family),
            field(&c.name),
            c.latency,
            c.bandwidth,
            o.time,
            o.computation,
            o.imbalance,
            o.latency,
            o.bandwidth,
            o.wire(),
            o.contention,
            field(replay.class(k)),
            field(&rule),
        )?;
    }
    Ok(())
}
