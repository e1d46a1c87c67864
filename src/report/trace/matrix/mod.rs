//! A trace's traffic ([`crate::trace::traffic::TraceTraffic`]) as bytes, one format per
//! file, each read back by [`crate::workload::matrix::read_traffic`]: CSV rows
//! ([`csv`]), a Matrix Market coordinate file ([`market`]), a sparse JSON matrix
//! ([`json`]) and a PFProf trace of per-rank JSON files in a gzip-compressed tar
//! archive ([`pfprof`]).

mod csv;
mod json;
mod market;
mod pfprof;

pub use self::csv::write_csv;
pub use json::write_json;
pub use market::write_market;
pub use pfprof::write_pfprof;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::traffic::{Notes, Pair, TraceTraffic};
    use crate::workload::matrix::traffic_from_bytes;
    use std::io::Write;

    /// Three ranks, rank 2 silent: a zero-byte pair, a self pair.
    fn traffic() -> TraceTraffic {
        let pair = |src, dst, bytes, messages| Pair {
            src,
            dst,
            bytes,
            messages,
        };
        TraceTraffic {
            ranks: 3,
            pairs: vec![pair(0, 0, 5, 1), pair(0, 1, 0, 2), pair(1, 0, 1_000, 3)],
            notes: Notes::default(),
        }
    }

    fn written(write: fn(&mut dyn Write, &TraceTraffic) -> std::io::Result<()>) -> Vec<u8> {
        let mut out = Vec::new();
        write(&mut out, &traffic()).unwrap();
        out
    }

    #[test]
    fn text_formats_read_as_written() {
        assert_eq!(
            String::from_utf8(written(write_csv)).unwrap(),
            "src,dst,bytes,messages\n0,0,5,1\n0,1,0,2\n1,0,1000,3\n"
        );
        assert_eq!(
            String::from_utf8(written(write_market)).unwrap(),
            "%%MatrixMarket matrix coordinate integer general\n\
             % bytes sent from rank i-1 (row) to rank j-1 (column); 6 messages in all\n\
             3 3 3\n1 1 5\n1 2 0\n2 1 1000\n"
        );
        assert_eq!(
            String::from_utf8(written(write_json)).unwrap(),
            "{\n  \"ranks\": 3,\n  \"entries\": [\n    [0, 0, 5],\n    [0, 1, 0],\n    [1, 0, 1000]\n  ],\n  \"messages\": [1, 2, 3]\n}\n"
        );
    }

    #[test]
    fn every_format_reads_back_as_the_same_matrix() {
        // Plain matrices keep the pairs with bytes; PFProf every pair with a message.
        let plain = [(0, 0, 5), (1, 0, 1_000)];
        for (name, bytes) in [
            ("m.csv", written(write_csv)),
            ("m.mtx", written(write_market)),
            ("m.json", written(write_json)),
        ] {
            let m = traffic_from_bytes(&bytes, name).unwrap();
            assert_eq!(m.entries, plain, "{name}");
        }
        let m = traffic_from_bytes(&written(write_market), "m.mtx").unwrap();
        assert_eq!(m.ranks, 3);
        let m = traffic_from_bytes(&written(write_json), "m.json").unwrap();
        assert_eq!(m.ranks, 3);
        let m = traffic_from_bytes(&written(write_pfprof), "m.tar.gz").unwrap();
        assert_eq!(m.ranks, 3);
        assert_eq!(m.entries, [(0, 0, 5), (0, 1, 0), (1, 0, 1_000)]);
    }
}
