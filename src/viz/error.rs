//! Why a picture cannot be made: the input cannot be read or holds no congestion,
//! Graphviz cannot run, or the drawing or its encoding fails. The one error type of
//! [`crate::viz`].

use crate::error::LocatedError;
use std::path::PathBuf;

/// Every failure of the pictures' inputs and renderers.
#[derive(Debug, thiserror::Error)]
pub enum VizError {
    /// An input file cannot be read.
    #[error("cannot read '{path}'")]
    Read {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The input cannot be loaded or is not a congestion map: where, and what was
    /// expected.
    #[error(transparent)]
    Input(#[from] LocatedError),
    /// A Graphviz program cannot be started.
    #[error("cannot run {}", program.display())]
    Spawn {
        /// The program.
        program: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Graphviz's input could not be handed over.
    #[error("Graphviz input")]
    Stdin,
    /// Graphviz ended with an error.
    #[error("{} failed: {stderr}", program.display())]
    Failed {
        /// The program.
        program: PathBuf,
        /// What it printed on standard error.
        stderr: String,
    },
    /// Waiting for Graphviz's picture failed.
    #[error(transparent)]
    Wait(std::io::Error),
    /// plotters could not draw part of a figure on its backend (an SVG string or an RGB
    /// buffer). plotters' error types are generic over the backend, so what it reported
    /// is kept as text.
    #[error("cannot draw the figure: {detail}")]
    Draw {
        /// plotters' report.
        detail: String,
    },
    /// The drawn figure could not be encoded as PNG.
    #[error("cannot draw the figure: {0:?}")]
    EncodePng(png::EncodingError),
}
