//! The fabrics of a scan, kept as binary caches (`.orcsfab`) in a folder beside the
//! results, so that a resumed scan neither parses a dot file nor routes a generated
//! fabric again.
//!
//! A cache file is named by the CRC-32 of the fabric's identity: a generated fabric's
//! label (generator and routing) and the stream version its seed draws with, or a file's
//! label with its size and modification time, so an edited file is read again. `.orcsfab` files of the plan are used as they are.

use super::{FabricSource, ScanError};
use crate::fabric::input::{load_input, InputSpec};
use crate::fabric::{cache, EdgeComments, LoadedFabric};
use crate::limits::MemoryLimit;
use crate::output::Output;
use crate::routing::{check_routes, RouteSummary};
use std::fs::File;
use std::io;

/// The cache folder of the results file `output`: its name without `.jsonl`, with
/// `.cache`.
pub(crate) fn cache_dir(output: &str) -> String {
    format!("{}.cache", output.strip_suffix(".jsonl").unwrap_or(output))
}

/// The cache file of `source` in `cache_dir` (see the module documentation).
pub(crate) fn cache_path(source: &FabricSource, cache_dir: &str) -> Result<String, ScanError> {
    let identity = match source {
        FabricSource::File(path) => {
            let meta =
                std::fs::metadata(path).map_err(|e| ScanError::file("cannot read", path, e))?;
            let modified = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{}|{}|{modified}", source.label(), meta.len())
        }
        // A generator draws from its seed (jellyfish, random routing): other draws are
        // another fabric.
        FabricSource::Gen { .. } => format!(
            "{}|streams {}",
            source.label(),
            crate::engine::stream::STREAM_VERSION
        ),
    };
    Ok(format!(
        "{cache_dir}/{:08x}.orcsfab",
        crc32fast::hash(identity.as_bytes())
    ))
}

/// Loads `source` from its cache in `cache_dir`, or else reads (files as `-i` reads
/// them) or generates (within `memory`) and routes it, checks every host pair's route and
/// writes the cache.
/// The loaded fabric's `warnings` are for the caller to show.
pub(crate) fn load_fabric(
    source: &FabricSource,
    cache_dir: &str,
    memory: MemoryLimit,
) -> Result<LoadedFabric, ScanError> {
    let cached = cache_path(source, cache_dir)?;
    if let Ok(f) = File::open(&cached) {
        if let Ok(loaded) = cache::read_cache(&mut std::io::BufReader::new(f), &cached) {
            return Ok(loaded);
        }
    }
    let mut loaded = match source {
        FabricSource::File(path) => {
            let loaded = load_input(&InputSpec {
                path: path.clone(),
                ..Default::default()
            })?;
            if loaded.routes.is_some() {
                return Ok(loaded); // a binary cache already
            }
            loaded
        }
        FabricSource::Gen { spec, routing } => {
            let generated = crate::gen::topology::generate_within(spec, memory)?;
            let (table, _) =
                crate::routing::route_generated(&generated, routing.as_deref(), None, 0)?;
            let mut loaded = LoadedFabric::new(generated.fabric, table);
            loaded.fabric.edge_comments = EdgeComments::default();
            loaded
        }
    };
    let hosts: Vec<u32> = (0..loaded.fabric.num_hosts() as u32).collect();
    let check = check_routes(&loaded.fabric, &loaded.table, &hosts);
    loaded.routes = Some(RouteSummary::of(&check));
    write_cache(&loaded, cache_dir, &cached)?;
    Ok(loaded)
}

/// Writes `loaded` to `cached` in `cache_dir`, whole or not at all.
fn write_cache(loaded: &LoadedFabric, cache_dir: &str, cached: &str) -> Result<(), ScanError> {
    std::fs::create_dir_all(cache_dir)
        .map_err(|e| ScanError::file("cannot create", cache_dir, e))?;
    // Ranks of one scan may cache the same fabric at once: each writes its own
    // temporary file, and the last rename wins with an equal file.
    let mut out = Output::create(cached).map_err(io::Error::from)?;
    cache::write_cache(&mut out, loaded)?;
    out.commit().map_err(io::Error::from)?;
    Ok(())
}
