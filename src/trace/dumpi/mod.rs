//! DUMPI traces (SST DUMPI, the format of many DOE trace sets): the `.meta` file, the
//! per-rank `.bin` files, every call the format defines, and the `dumpi2ascii` text.
//!
//! * [`Trace::open`] reads a `.meta` (or a single `.bin`) and finds the rank files;
//! * [`RankFile`] is one rank's file with its index and small sections;
//! * [`Stream`] decodes its calls one at a time into a reused [`Record`], by the layout
//!   table of [`layout`], so that memory stays bounded whatever the trace's size;
//! * [`ascii`] prints a rank as `dumpi2ascii -H -S -F -X` does.
//!
//! Every bad input is a [`DumpiError`] naming the file, the byte offset and what was
//! expected; no bytes make the decoder panic.

pub mod ascii;
mod bytes;
mod file;
pub mod layout;
mod meta;
mod record;
mod stream;

pub use file::{Footer, Header, Index, RankFile, FOOT_MAGIC, FOOTER_COUNTS, HEAD_MAGIC};
pub use meta::{Meta, Trace};
pub use record::{Clock, Interval, Record, Status, Value};
pub use stream::Stream;

use crate::error::LocatedError;
use std::io;

/// Why a trace cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum DumpiError {
    /// The trace's content is wrong: file, position and what was expected.
    #[error(transparent)]
    Input(#[from] LocatedError),
    /// A file cannot be read.
    #[error("cannot read '{path}'")]
    Io {
        /// The file as named.
        path: String,
        /// Why.
        #[source]
        source: io::Error,
    },
}
