//! A PFProf trace: one JSON file per rank (`rank`, `n_procs`, `tx_bytes`,
//! `tx_messages`, dense vectors indexed by destination) in a gzip-compressed tar
//! archive, as PFSim and `orcs -p matrix` read it.

use crate::trace::traffic::TraceTraffic;
use flate2::write::GzEncoder;
use std::io::{self, Write};

/// Writes the archive: members `rank-<r>.json`, zero-padded so that name order is rank
/// order. O(ranks²) (the vectors are dense).
pub fn write_pfprof(out: &mut dyn Write, traffic: &TraceTraffic) -> io::Result<()> {
    let n = traffic.ranks as usize;
    let width = n.saturating_sub(1).to_string().len();
    let mut tar = tar::Builder::new(GzEncoder::new(out, flate2::Compression::default()));
    let mut pairs = traffic.pairs.iter().peekable();
    let (mut bytes, mut messages) = (vec![0u64; n], vec![0u64; n]);
    for rank in 0..n {
        bytes.fill(0);
        messages.fill(0);
        while let Some(p) = pairs.next_if(|p| p.src as usize == rank) {
            bytes[p.dst as usize] = p.bytes;
            messages[p.dst as usize] = p.messages;
        }
        let doc = serde_json::json!({
            "rank": rank,
            "n_procs": n,
            "tx_bytes": bytes,
            "tx_messages": messages,
        });
        let text = serde_json::to_vec(&doc).map_err(io::Error::other)?;
        let mut header = tar::Header::new_gnu();
        header.set_size(text.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(
            &mut header,
            format!("rank-{rank:0width$}.json"),
            text.as_slice(),
        )?;
    }
    tar.into_inner()?.finish()?;
    Ok(())
}
