//! The JSON document of a replay: the trace, the rules, the notes, and per
//! configuration its parameters, time, split (seconds and shares) and class; the fabric
//! and the ranks' hosts when the messages were routed.

use crate::trace::replay::Replay;
use serde_json::{json, Value};
use std::io::{self, Write};

/// Writes the document. O(configurations).
pub fn write_json(out: &mut dyn Write, trace: &str, replay: &Replay) -> io::Result<()> {
    let configs: Vec<Value> = replay
        .configs
        .iter()
        .zip(&replay.outcomes)
        .enumerate()
        .map(|(k, (c, o))| {
            let s = o.shares();
            json!({
                "family": c.family,
                "name": c.name,
                "latency_s": c.latency,
                "bandwidth_bytes_per_s": if c.bandwidth.is_finite() { json!(c.bandwidth) } else { json!("inf") },
                "time_s": o.time,
                "seconds": {
                    "computation": o.computation,
                    "imbalance": o.imbalance,
                    "latency": o.latency,
                    "bandwidth": o.bandwidth,
                    "wire": o.wire(),
                    "contention": o.contention,
                },
                "shares": {
                    "computation": s.computation,
                    "imbalance": s.imbalance,
                    "latency": s.latency,
                    "bandwidth": s.bandwidth,
                    "contention": s.contention,
                },
                "class": replay.class(k),
                "rule": o.rule.map(|r| replay.rules.rules[r].describe()),
            })
        })
        .collect();
    let n = replay.notes;
    let doc = json!({
        "trace": trace,
        "ranks": replay.ranks,
        "eager_limit_bytes": replay.eager_limit,
        "fabric": replay.fabric.as_ref().map(|f| json!({
            "file": f.fabric,
            "placement": f.placement,
            "hosts": f.hosts,
        })),
        "rules": replay.rules.rules.iter().map(|r| r.describe()).collect::<Vec<_>>(),
        "notes": {
            "unsized_messages": n.unsized_messages,
            "null_peer_messages": n.null_peer_messages,
            "intercomm_collectives": n.intercomm_collectives,
            "rendezvous_buffered": n.rendezvous_buffered,
            "unreceived_messages": n.unreceived_messages,
            "rendezvous_unposted": n.rendezvous_unposted,
        },
        "configurations": configs,
    });
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}
