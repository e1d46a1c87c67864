//! Pictures: congestion maps of a fabric ([`map`], read from a result by [`map_input`],
//! optionally written for and drawn by Graphviz through [`graphviz`]), histograms of a
//! metric ([`plot`]), the queueing model's latency curves ([`queue_plot`]), a trace's
//! replayed run times by network ([`replay_plot`]), a task model's completion times
//! against the load ([`tasks_plot`]), the
//! self-contained HTML report ([`html`]), and the drawing support they share: image
//! formats, the embedded font and the congestion colour scale ([`draw`]). [`error`] says
//! why a picture cannot be made.
//!
//! May use: [`crate::report`] (result documents read back, the get_cable_cong colours
//! and scaling), [`crate::fabric`] (dot maps read back), [`crate::engine`]'s metric
//! names, [`crate::queueing`]'s sweeps, [`crate::trace::replay`]'s outcomes and
//! [`crate::tasks`]' sweeps. Pictures only draw: they never compute what
//! the simulation did not.

pub mod bitmap_text;
pub mod draw;
pub mod error;
pub mod graphviz;
pub mod html;
pub mod map;
pub mod map_input;
pub mod plot;
pub mod queue_plot;
pub mod replay_plot;
pub mod tasks_plot;
