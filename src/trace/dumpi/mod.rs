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

pub use file::{Footer, Header, Index, RankFile, FOOTER_COUNTS, FOOT_MAGIC, HEAD_MAGIC};
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::mutate;

    fn fixture(name: &str) -> Vec<u8> {
        let path = format!("{}/tests/fixtures/dumpi/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    fn dump(file: &RankFile) -> String {
        let mut out = Vec::new();
        ascii::dump_rank(file, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn in_memory_and_gzip_rank_files_dump_like_the_reference() {
        let bytes = fixture("many_calls-0000.bin");
        let golden = String::from_utf8(fixture("many_calls-0000.dumpi2ascii.txt")).unwrap();
        assert_eq!(
            dump(&RankFile::from_bytes(bytes.clone(), "m.bin").unwrap()),
            golden
        );
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &bytes).unwrap();
        let gz = gz.finish().unwrap();
        assert_eq!(dump(&RankFile::from_bytes(gz, "m.bin.gz").unwrap()), golden);
    }

    #[test]
    fn the_decoder_hands_out_typed_arguments() {
        let file = RankFile::from_bytes(fixture("testtrace/testtrace-0001.bin"), "t.bin").unwrap();
        assert_eq!(file.header.version, [1, 0, 0]);
        assert_eq!(file.index.size, 64);
        assert_eq!(file.sizes.as_ref().map(Vec::len), Some(28));
        let mut stream = file.stream().unwrap();
        let mut rec = Record::default();
        let mut names = Vec::new();
        while stream.next_into(&mut rec).unwrap() {
            names.push(rec.name());
            if rec.name() == "MPI_Isend" {
                let call = rec.layout();
                assert_eq!(rec.int(call.index_of("count").unwrap()), 1);
                assert_eq!(rec.int_named("datatype"), Some(9));
                assert_eq!(rec.int_named("dest"), Some(2));
                assert_eq!(rec.int_named("tag"), Some(1337));
                assert_eq!(rec.int_named("comm"), Some(2));
            }
            if rec.name() == "MPI_Init" {
                let argv: Vec<&[u8]> = rec.texts(1).unwrap().collect();
                assert_eq!(argv, [&b"./mpi"[..]]);
            }
        }
        assert_eq!(names.len(), 9);
        assert_eq!((names[0], names[8]), ("MPI_Init", "MPI_Finalize"));
    }

    #[test]
    fn gather_receive_arguments_exist_at_the_root_only() {
        let file = RankFile::from_bytes(fixture("many_calls-0000.bin"), "m.bin").unwrap();
        let mut stream = file.stream().unwrap();
        let mut rec = Record::default();
        let mut gathers = 0;
        while stream.next_into(&mut rec).unwrap() {
            if rec.name() == "MPI_Gatherv" {
                // Rank 0 is not the root (2): its receive counts were not stored.
                let call = rec.layout();
                assert_eq!(rec.int_named("root"), Some(2));
                assert_eq!(rec.ints(call.index_of("recvcounts").unwrap()), None);
                assert_eq!(rec.int_named("commsize"), Some(4));
                gathers += 1;
            }
            if rec.name() == "MPI_Scatter" {
                // Rank 0 is the root: it stored its send side.
                assert_eq!(rec.int_named("sendcount"), Some(2));
                gathers += 1;
            }
        }
        assert_eq!(gathers, 2);
    }

    proptest::proptest! {
        #[test]
        fn mutated_rank_files_never_panic(
            edits in proptest::collection::vec((0usize..9_000, proptest::prelude::any::<u8>(), 0u8..3), 1..8)
        ) {
            for base in [fixture("testtrace/testtrace-0000.bin"), fixture("many_calls-0000.bin")] {
                if let Ok(file) = RankFile::from_bytes(mutate(&base, &edits), "m.bin") {
                    let _ = ascii::dump_rank(&file, &mut std::io::sink());
                }
            }
        }
    }
}
