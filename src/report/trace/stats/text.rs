//! The readable report of `orcs trace stats`: the totals of the ranks read, one line
//! per rank, and the functions called over those ranks by time inside them (the longest
//! first), as `dumpistats --time`/`--count`/`--sent` users read them side by side.
//! Times are in milliseconds to the microsecond; JSON and CSV keep the nanoseconds.

use super::{name, StatsWriter};
use crate::trace::summary::RankSummary;
use std::fmt::Write as _;
use std::io::{self, Write};

/// The text report; per-rank lines are kept (a few numbers each) until the totals,
/// which come first, are known.
pub struct TextStats {
    trace: String,
    rows: Vec<Vec<String>>,
}

impl TextStats {
    /// The report of the trace named `trace`.
    pub fn new(trace: &str) -> Self {
        TextStats {
            trace: trace.to_string(),
            rows: Vec::new(),
        }
    }
}

/// Nanoseconds as milliseconds with three decimals.
fn ms(ns: i64) -> String {
    format!("{:.3}", ns as f64 / 1e6)
}

/// `part` as a percentage of `whole` with one decimal ("-" when `whole` is 0).
fn percent(part: i64, whole: i64) -> String {
    if whole == 0 {
        "-".to_string()
    } else {
        format!("{:.1}", 100.0 * part as f64 / whole as f64)
    }
}

/// `rows` under `header`, columns separated by two spaces and aligned right, but the
/// first aligned left when it holds names (`names_first`).
fn table(header: &[&str], rows: &[Vec<String>], names_first: bool) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let mut s = String::new();
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    for row in std::iter::once(&header).chain(rows) {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(&widths).enumerate() {
            if i == 0 && names_first {
                let _ = write!(line, "{cell:<w$}");
            } else if i == 0 {
                let _ = write!(line, "{cell:>w$}");
            } else {
                let _ = write!(line, "  {cell:>w$}");
            }
        }
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}

/// The totals block.
fn totals(trace: &str, t: &RankSummary) -> String {
    let mut s = String::new();
    let (mpi, outside, span) = (t.mpi_ns(), t.outside_mpi_ns(), t.span_ns);
    let (ranks, summed) = if t.ranks == 1 {
        ("rank", "")
    } else {
        ("ranks", "summed over ranks")
    };
    let _ = writeln!(s, "Trace {trace}: totals over {} {ranks}", t.ranks);
    let lines = [
        ("MPI calls", t.calls().to_string(), String::new()),
        (
            "time in MPI",
            format!("{} ms", ms(mpi)),
            format!("{} % of span", percent(mpi, span)),
        ),
        (
            "time outside MPI",
            format!("{} ms", ms(outside)),
            format!("{} % of span", percent(outside, span)),
        ),
        (
            "span, first entry to last return",
            format!("{} ms", ms(span)),
            summed.to_string(),
        ),
        (
            "point-to-point sends",
            t.sends().to_string(),
            format!("{} bytes", t.send_bytes()),
        ),
        (
            "collective calls",
            t.collectives().to_string(),
            format!("{} bytes", t.collective_bytes()),
        ),
        (
            "annotations (MPI_Pcontrol)",
            t.annotations().to_string(),
            String::new(),
        ),
    ];
    for (what, value, note) in lines {
        let line = format!("  {what:<34}{value:>16}  {note}");
        s.push_str(line.trim_end());
        s.push('\n');
    }
    let unknown = t.sends_of_unknown_size() + t.collectives_of_unknown_size();
    if unknown > 0 {
        let _ = writeln!(
            s,
            "  {unknown} sends or collectives have a datatype of unknown size: counted as 0 bytes"
        );
    }
    s
}

/// The per-rank line.
fn rank_row(rank: u32, r: &RankSummary) -> Vec<String> {
    vec![
        rank.to_string(),
        r.calls().to_string(),
        ms(r.span_ns),
        ms(r.mpi_ns()),
        ms(r.outside_mpi_ns()),
        percent(r.mpi_ns(), r.span_ns),
        r.sends().to_string(),
        r.send_bytes().to_string(),
        r.collectives().to_string(),
        r.collective_bytes().to_string(),
    ]
}

/// The function table of `t`: the longest total time first (ties by label).
fn functions(t: &RankSummary) -> String {
    let mut called: Vec<_> = t.called().collect();
    called.sort_by_key(|&(label, f)| (std::cmp::Reverse(f.wall_ns), label));
    let mpi = t.mpi_ns();
    let rows: Vec<Vec<String>> = called
        .into_iter()
        .map(|(label, f)| {
            vec![
                name(label).to_string(),
                f.calls.to_string(),
                ms(f.wall_ns),
                percent(f.wall_ns, mpi),
                format!("{:.3}", f.wall_ns as f64 / f.calls as f64 / 1e3),
                f.sends.to_string(),
                f.bytes.to_string(),
            ]
        })
        .collect();
    table(
        &[
            "function", "calls", "time ms", "% of MPI", "mean us", "sends", "bytes",
        ],
        &rows,
        true,
    )
}

impl StatsWriter for TextStats {
    fn begin(&mut self, _out: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }

    fn rank(&mut self, _out: &mut dyn Write, rank: u32, summary: &RankSummary) -> io::Result<()> {
        self.rows.push(rank_row(rank, summary));
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn Write, total: &RankSummary) -> io::Result<()> {
        let mut s = totals(&self.trace, total);
        s.push_str("\nPer rank\n");
        s.push_str(&table(
            &[
                "rank",
                "calls",
                "span ms",
                "in MPI ms",
                "outside ms",
                "% in MPI",
                "sends",
                "send bytes",
                "collectives",
                "coll. bytes",
            ],
            &self.rows,
            false,
        ));
        s.push_str("\nFunctions over these ranks, longest time first (bytes: sent, or named by collectives)\n");
        s.push_str(&functions(total));
        out.write_all(s.as_bytes())
    }
}
