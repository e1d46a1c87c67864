//! The CSV traffic-matrix reader beside one built on the `csv` crate, on the same text
//! in memory (bytes per second): a dense 1,024 × 1,024 matrix and a list of a million
//! `src,dst,bytes` triples in random order.
//!
//! Both build the same [`TrafficMatrix`] (checked before timing): the crate's reader
//! here splits the text at commas into records, parses each field as an integer, and
//! sorts and sums the pairs as orcs does. It reads only comma-separated files with the
//! form known in advance; orcs's also finds each line's separator (comma, semicolon or
//! runs of white space), tells a header from data and checks every row's width.
//!
//! Run: `cargo bench --bench matrix`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use orcs::workload::matrix::{traffic_from_bytes, TrafficMatrix};
use std::hint::black_box;
use std::time::Duration;

/// A dense `n` × `n` matrix, comma-separated, with a spread of field widths.
fn dense(n: usize) -> String {
    let mut text = String::new();
    for s in 0..n {
        let row: Vec<String> = (0..n)
            .map(|d| ((s * 7919 + d * 104_729) % 1_000_003).to_string())
            .collect();
        text += &row.join(",");
        text.push('\n');
    }
    text
}

/// `rows` triples under the header `src,dst,bytes`, over 4,096 ranks in random order.
fn triples(rows: usize) -> String {
    let mut text = String::from("src,dst,bytes\n");
    for i in 0..rows {
        let (s, d) = ((i * 40_503) % 4096, (i * 2_654_435_761) % 4096);
        text += &format!("{s},{d},{}\n", 8 + (i * 7919) % 65_536);
    }
    text
}

/// The same matrix read with the `csv` crate: dense rows, or triples under a header.
fn csv_crate_matrix(text: &str, triples: bool) -> TrafficMatrix {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(triples)
        .from_reader(text.as_bytes());
    let mut record = csv::ByteRecord::new();
    let field = |f: &[u8]| -> u64 {
        std::str::from_utf8(f)
            .expect("UTF-8")
            .trim()
            .parse()
            .expect("an integer")
    };
    let mut raw: Vec<(u32, u32, u64)> = Vec::new();
    let (mut row, mut ranks) = (0u32, 0u32);
    while reader.read_byte_record(&mut record).expect("valid CSV") {
        if triples {
            let (s, d) = (field(&record[0]) as u32, field(&record[1]) as u32);
            ranks = ranks.max(s + 1).max(d + 1);
            raw.push((s, d, field(&record[2])));
        } else {
            ranks = record.len() as u32;
            for (d, f) in record.iter().enumerate() {
                let b = field(f);
                if b > 0 {
                    raw.push((row, d as u32, b));
                }
            }
            row += 1;
        }
    }
    raw.sort_unstable_by_key(|&(s, d, _)| (u64::from(s) << 32) | u64::from(d));
    let mut entries: Vec<(u32, u32, u64)> = Vec::with_capacity(raw.len());
    for (s, d, b) in raw {
        match entries.last_mut() {
            Some(last) if (last.0, last.1) == (s, d) => last.2 += b,
            _ => entries.push((s, d, b)),
        }
    }
    entries.retain(|e| e.2 > 0);
    TrafficMatrix { ranks, entries }
}

fn readers(c: &mut Criterion) {
    let mut group = c.benchmark_group("matrix");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    for (name, text, triples) in [
        ("dense-1024", dense(1024), false),
        ("triples-1M", triples(1_000_000), true),
    ] {
        let orcs = traffic_from_bytes(text.as_bytes(), "bench.csv").expect("reads");
        assert_eq!(orcs, csv_crate_matrix(&text, triples), "{name}");
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(format!("orcs/{name}"), |b| {
            b.iter(|| {
                traffic_from_bytes(black_box(text.as_bytes()), "bench.csv")
                    .expect("reads")
                    .entries
                    .len()
            })
        });
        group.bench_function(format!("csv-crate/{name}"), |b| {
            b.iter(|| csv_crate_matrix(black_box(&text), triples).entries.len())
        });
    }
    group.finish();
}

criterion_group!(benches, readers);
criterion_main!(benches);
