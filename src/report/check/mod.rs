//! The reports of `orcs check`, one format per file: the text ([`text`]), one JSON
//! document ([`json`]) and one tidy CSV table ([`csv`]), all from a [`CheckReport`]
//! and the few figures derived here.

mod csv;
mod json;
mod text;

pub use csv::check_csv;
pub use json::check_json;
pub use text::{check_text, deadlock_text, routequal_text};

use crate::fabric::Fabric;
use crate::routing::deadlock::DeadlockReport;
use crate::routing::{RouteCheck, RouteQuality};

/// Everything `orcs check` found about one fabric, for the JSON and CSV reports.
#[derive(Debug, Clone, Copy)]
pub struct CheckReport<'a> {
    /// The fabric's file, as given.
    pub input: &'a str,
    /// The fabric.
    pub fabric: &'a Fabric,
    /// The route check of every ordered host pair.
    pub check: &'a RouteCheck,
    /// ORCS's route quality figures, when asked for (`--routequal`).
    pub quality: Option<&'a RouteQuality>,
    /// The deadlock analysis, when asked for (`--deadlock`).
    pub deadlock: Option<&'a DeadlockReport>,
}

/// The mean edges per route over the routed pairs (None when no pair is routed).
pub(crate) fn mean_path_length(path_lengths: &[u64]) -> Option<f64> {
    let routed: u64 = path_lengths.iter().sum();
    let weighted: u64 = (path_lengths.iter().enumerate())
        .map(|(len, &c)| len as u64 * c)
        .sum();
    (routed > 0).then(|| weighted as f64 / routed as f64)
}

/// The spread of the routes over the directed links.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LinkRoutes {
    /// Directed links.
    pub links: usize,
    /// Fewest routes over a link.
    pub min: u64,
    /// Mean routes over a link.
    pub mean: f64,
    /// Most routes over a link.
    pub max: u64,
    /// Links that carry no route.
    pub unused: usize,
}

impl LinkRoutes {
    /// The spread of `link_routes` (routes per directed link); None without links.
    pub(crate) fn of(link_routes: &[u64]) -> Option<LinkRoutes> {
        if link_routes.is_empty() {
            return None;
        }
        Some(LinkRoutes {
            links: link_routes.len(),
            min: link_routes.iter().copied().min().unwrap_or(0),
            mean: link_routes.iter().sum::<u64>() as f64 / link_routes.len() as f64,
            max: link_routes.iter().copied().max().unwrap_or(0),
            unused: link_routes.iter().filter(|&&c| c == 0).count(),
        })
    }
}

/// What is wrong with a broken route, in a word.
pub(crate) fn fault_kind(fault: &crate::routing::RouteFault) -> &'static str {
    match fault {
        crate::routing::RouteFault::DeadEnd { .. } => "dead_end",
        crate::routing::RouteFault::Loop { .. } => "loop",
    }
}
