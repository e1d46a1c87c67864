//! The outputs of `orcs trace stats`, one format per file: the readable tables
//! ([`text`]), one JSON document ([`json`]) and one CSV table ([`csv`]).
//!
//! Each format is a [`StatsWriter`]: it is handed the ranks one at a time, in rank
//! order, then the total, so that a trace of any number of ranks is written without
//! holding every rank's summary. This folder owns that interface; it may use the
//! summaries of [`crate::trace::summary`] and nothing else.

mod csv;
mod json;
mod text;

pub use self::csv::CsvStats;
pub use json::JsonStats;
pub use text::TextStats;

use crate::trace::dumpi::layout::CALLS;
use crate::trace::summary::RankSummary;
use std::io::{self, Write};

/// One output format of `orcs trace stats`.
pub trait StatsWriter {
    /// Writes what comes before the first rank.
    fn begin(&mut self, out: &mut dyn Write) -> io::Result<()>;
    /// Writes (or keeps what it needs of) the summary of world rank `rank`.
    fn rank(&mut self, out: &mut dyn Write, rank: u32, summary: &RankSummary) -> io::Result<()>;
    /// Writes the rest, with `total`, the sum of every rank handed in.
    fn finish(&mut self, out: &mut dyn Write, total: &RankSummary) -> io::Result<()>;
}

/// The name of the function with label `label`.
fn name(label: u16) -> &'static str {
    CALLS[label as usize].name
}
