//! The text table of a replay: one line per configuration, its time, the split in
//! percent and the class, then the rules that named the classes.

use super::{bandwidth_text, latency_text};
use crate::trace::replay::Replay;
use std::io::{self, Write};

/// Writes the table. `trace` names the trace in the heading. O(configurations).
pub fn write_text(out: &mut dyn Write, trace: &str, replay: &Replay) -> io::Result<()> {
    writeln!(
        out,
        "{trace}: {} ranks replayed on {} configurations (eager limit {} bytes)",
        replay.ranks,
        replay.configs.len(),
        replay.eager_limit
    )?;
    if let Some(f) = &replay.fabric {
        const SHOWN: usize = 8;
        let hosts: Vec<String> = (f.hosts.iter().enumerate().take(SHOWN))
            .map(|(r, h)| format!("{r}:{h}"))
            .collect();
        writeln!(
            out,
            "Messages routed on {} and sharing its links; ranks placed by {} ({}{}).",
            f.fabric,
            f.placement,
            hosts.join(" "),
            if f.hosts.len() > SHOWN { " ..." } else { "" }
        )?;
    }
    writeln!(out)?;
    let routed = replay.fabric.is_some();
    let width = replay
        .configs
        .iter()
        .map(|c| c.name.chars().count())
        .max()
        .unwrap_or(0)
        .max("configuration".len());
    write!(
        out,
        "{:<width$}  {:>10}  {:>11}  {:>13}  {:>6} {:>6} {:>6} {:>6}",
        "configuration", "latency", "bandwidth", "time (s)", "comp%", "imb%", "lat%", "bw%"
    )?;
    if routed {
        write!(out, " {:>6}", "cont%")?;
    }
    writeln!(out, "  class (rule)")?;
    for (k, (c, o)) in replay.configs.iter().zip(&replay.outcomes).enumerate() {
        let s = o.shares();
        let rule = o.rule.map_or(String::new(), |r| format!(" ({})", r + 1));
        write!(
            out,
            "{:<width$}  {:>10}  {:>11}  {:>13.6e}  {:>6.1} {:>6.1} {:>6.1} {:>6.1}",
            c.name,
            latency_text(c.latency),
            bandwidth_text(c.bandwidth),
            o.time,
            100.0 * s.computation,
            100.0 * s.imbalance,
            100.0 * s.latency,
            100.0 * s.bandwidth,
        )?;
        if routed {
            write!(out, " {:>6.1}", 100.0 * s.contention)?;
        }
        writeln!(out, "  {}{rule}", replay.class(k))?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "Shares of the predicted time, along the path of calls and messages that sets it: computation (up to the ranks' mean), load imbalance (the path's computation beyond the mean), latency and bandwidth."
    )?;
    if routed {
        writeln!(
            out,
            "cont% is the part of bw% spent sharing links with other messages (max-min fair); collectives are not routed."
        )?;
    }
    writeln!(out, "Rules (the first that holds names the class):")?;
    for (i, rule) in replay.rules.rules.iter().enumerate() {
        writeln!(out, "  {}. {}", i + 1, rule.describe())?;
    }
    Ok(())
}
