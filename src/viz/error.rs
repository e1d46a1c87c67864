//! Why a picture cannot be made from its input: the input cannot be read or holds no
//! congestion, Graphviz cannot run, or drawing fails.

use crate::error::LocatedError;
use crate::viz::draw::DrawError;
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
    /// Waiting for Graphviz failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// Drawing failed.
    #[error(transparent)]
    Draw(#[from] DrawError),
}
