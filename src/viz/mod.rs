//! Pictures: congestion maps of a fabric ([`map`]), histograms of a metric ([`plot`]),
//! the queueing model's latency curves ([`queue_plot`]), the self-contained HTML report
//! ([`html`]), and the drawing support they share: image formats, the embedded font and
//! the congestion colour scale ([`draw`]).
//!
//! May use: [`crate::report`] (result documents read back) and [`crate::engine`]'s metric
//! names. Pictures only draw: they never compute what the simulation did not.

pub mod draw;
pub mod html;
pub mod map;
pub mod plot;
pub mod queue_plot;
