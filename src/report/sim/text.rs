//! ORCS's text output of a simulation: the header (spec §9.1), the metric's block
//! (spec §7), the per-run listings of `--printnamelist` and `--printptrn` (spec §8.4,
//! §8.5), and the one-line summary on standard error.

use super::RunInfo;
use crate::engine::metric::{
    acc_band, acc_band_histogram, runs_without_traffic, MetricKind, Summaries, Summary,
};
use crate::engine::unit::{SimOutcome, Simulation};
use crate::fabric::Fabric;
use crate::workload::pattern::Levels;
use std::fmt::Write as _;
use std::io::{self, Write};

/// The `Key: value` block ORCS echoes (also at the top of the `-o` file), ending with
/// an empty line.
pub fn echo_block(info: &RunInfo) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Input File: {}", info.input_file);
    let _ = writeln!(s, "Output File: {}", info.output_file);
    for line in &info.pattern_lines {
        let _ = writeln!(s, "{line}");
    }
    let _ = writeln!(s, "Commsize: {}", info.commsize);
    let _ = writeln!(s, "Part_commsize: {}", info.part_commsize);
    let _ = writeln!(s, "Subset: {}", info.subset);
    let _ = writeln!(s, "Part_subset: {}", info.part_subset);
    let _ = writeln!(s, "Level: {}", info.level);
    let _ = writeln!(s, "Runs: {}", info.runs);
    let _ = writeln!(s, "Metric: {}", info.metric);
    let _ = writeln!(
        s,
        "Shuffling namelists: {}",
        if info.shuffle { "Yes" } else { "No" }
    );
    if !info.orcs_compat {
        let _ = writeln!(s, "Seed: {}", info.seed);
    }
    s.push('\n');
    s
}

/// The full header on standard output: the echo block and the four count lines.
pub fn header(info: &RunInfo) -> String {
    let mut s = echo_block(info);
    let _ = writeln!(
        s,
        "      Number of hosts in the subset: {}",
        info.subset_hosts
    );
    let _ = writeln!(
        s,
        "   Number of hosts in the inputfile: {}",
        info.fabric_hosts
    );
    let _ = writeln!(
        s,
        "Number of switches in the inputfile: {}",
        info.fabric_switches
    );
    let _ = writeln!(
        s,
        "   Number of edges in the inputfile: {}",
        info.fabric_edges
    );
    s.push('\n');
    s
}

/// The lines ORCS printed before its header under MPI; `--orcs-compat` keeps them, with
/// one process on `host`.
pub fn compat_preamble(host: &str) -> String {
    format!(
        "Total MPI threads participating in the simulation: '1'\nUnique hosts participating:\n    {host}\n\n"
    )
}

/// The ORCS text block of `metric` (spec §7).
pub fn metric_text(metric: MetricKind, outcome: &SimOutcome) -> String {
    match metric {
        MetricKind::HistMaxCong => hist_max_cong_text(&outcome.weight_hist),
        MetricKind::HistAccBand => hist_acc_band_text(&outcome.acc_band),
        MetricKind::SumMaxCong => integer_stats_text(metric, &outcome.sum_max_cong),
        MetricKind::DepMaxDelay => integer_stats_text(metric, &outcome.dep_max_delay),
        MetricKind::GetCableCong => cable_table_text(&outcome.cable),
    }
}

/// ORCS's hist_max_cong block (spec §7.1).
pub(crate) fn hist_max_cong_text(weight_hist: &[u64]) -> String {
    let total: u64 = weight_hist.iter().sum();
    let mut s = String::new();
    for (w, &c) in weight_hist.iter().enumerate() {
        if c > 0 {
            let pct = c as f64 / total as f64 * 100.0;
            let _ = writeln!(s, "weight {w}: {c} of the {total} connections ({pct:.2}%)");
        }
    }
    let bw = acc_band(weight_hist).unwrap_or(-1.0);
    let _ = write!(s, "\nBW: {bw:.6}\n");
    s
}

/// ORCS's hist_acc_band block (spec §7.2).
pub(crate) fn hist_acc_band_text(values: &[f64]) -> String {
    let mut s = String::from(
        "Histogramm bin width: 0.050000\nFraction of full bandwidt | Number of occurences\n",
    );
    for b in acc_band_histogram(values) {
        let _ = writeln!(s, "{:12.8} {:12.8} {:5}", b.low, b.high, b.count);
    }
    s
}

/// ORCS's statistics block for sum_max_cong and dep_max_delay (spec §7.3, §7.4).
pub(crate) fn integer_stats_text(metric: MetricKind, values: &[u64]) -> String {
    let (min_l, max_l, avg_l, var_l, raw) = match metric {
        MetricKind::DepMaxDelay => (
            "Minimal Delay:",
            "Maximal Delay:",
            "Average Delay:",
            "Delay Variance:",
            "Delay of",
        ),
        _ => (
            "Minimal Maximal Congestion:",
            "Maximal Maximal Congestion:",
            "Average Maximal Congestion:",
            "Maximal Congestion Variance:",
            "Congestion sum of",
        ),
    };
    let mut s = String::from("Statistical Results\n===================\n\n");
    if let Some(sum) = Summary::of_counts(values) {
        let _ = writeln!(s, "{min_l} {:.6}", sum.min);
        let _ = writeln!(s, "{max_l} {:.6}", sum.max);
        let _ = writeln!(s, "{avg_l} {:.6}", sum.mean);
        let _ = writeln!(s, "{var_l} {:.6}", sum.population_variance);
    }
    s.push_str("===================\n\n");
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    for group in sorted.chunk_by(|a, b| a == b) {
        let _ = writeln!(s, "{raw} {} occured {} times.", group[0], group.len());
    }
    s
}

/// ORCS's `-o` table for get_cable_cong (spec §7.5): edges with a non-zero count.
pub(crate) fn cable_table_text(cable: &[u64]) -> String {
    let mut s = String::from("\nCable Congestions:\n\n Edge-ID\tacc. cong\n");
    for (e, &c) in cable.iter().enumerate() {
        if c > 0 {
            let _ = writeln!(s, "{e}\t{c}");
        }
    }
    s
}

/// The one-line summary on standard error: the selected metric's mean per run with its
/// 95 % confidence interval (so users see whether `-n` is large enough), the time taken,
/// and the runs without traffic.
pub fn summary_line(metric: MetricKind, outcome: &SimOutcome, secs: f64) -> String {
    let s = Summaries::of(outcome);
    let (name, summary) = match metric {
        MetricKind::SumMaxCong => ("sum_max_cong", s.sum_max_cong),
        MetricKind::DepMaxDelay => ("dep_max_delay", s.dep_max_delay),
        _ => ("acc_band", s.acc_band),
    };
    let empty = runs_without_traffic(&outcome.acc_band);
    let mut line = format!("orcs: {} runs in {secs:.2} s", outcome.runs);
    if let Some(m) = summary {
        let _ = write!(
            line,
            "; {name} per run: mean {:.6} ± {:.6} (95% CI), sd {:.6}, min {:.6}, max {:.6}",
            m.mean,
            m.ci95_half_width(),
            m.sd,
            m.min,
            m.max
        );
    }
    if empty > 0 {
        let _ = write!(line, "; {empty} runs had no traffic");
    }
    line
}

/// `--printnamelist` and `--printptrn` (spec §8.4, §8.5), run by run: each run's
/// rank-to-host list and each simulated level's rank pairs with their hosts, from the
/// same random streams the simulation used. Written as it goes: the listing grows with
/// runs × pairs.
pub fn write_runs(
    out: &mut dyn Write,
    sim: &Simulation,
    fabric: &Fabric,
    runs: u64,
    namelist: bool,
    pattern: bool,
) -> io::Result<()> {
    let mut ranks = Vec::new();
    let mut levels = Levels::new();
    for run in 0..runs {
        sim.materialize(run, &mut ranks, &mut levels);
        if namelist {
            write_namelist(out, fabric, &ranks)?;
        }
        if pattern {
            write_pattern(out, sim, fabric, &ranks, &levels)?;
        }
    }
    Ok(())
}

/// One run's `--printnamelist` block: the host of every rank.
fn write_namelist(out: &mut dyn Write, fabric: &Fabric, ranks: &[u32]) -> io::Result<()> {
    write!(
        out,
        "\n\nNamelist in node with rank 0: \n=================\n"
    )?;
    for &h in ranks {
        writeln!(out, "{}", fabric.host_name(h))?;
    }
    write!(out, "\n===============\n\n")
}

/// One run's `--printptrn` blocks: every simulated level's pairs, as ranks and hosts,
/// up to the first empty level.
fn write_pattern(
    out: &mut dyn Write,
    sim: &Simulation,
    fabric: &Fabric,
    ranks: &[u32],
    levels: &Levels,
) -> io::Result<()> {
    for l in sim.simulated_levels(levels) {
        let pairs = levels.level(l);
        if pairs.is_empty() {
            break;
        }
        write!(out, "\nUsed Pattern:\n=================\n")?;
        for &(s, d) in pairs {
            writeln!(
                out,
                "{:>5} -> {:<5}   |   {} -> {}",
                format!(" {s}"),
                d,
                fabric.host_name(ranks[s as usize]),
                fabric.host_name(ranks[d as usize])
            )?;
        }
        writeln!(out, "=================")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hist_max_cong_matches_orcs_format() {
        let text = hist_max_cong_text(&[0, 6583, 1330, 87]);
        assert_eq!(
            text,
            "weight 1: 6583 of the 8000 connections (82.29%)\n\
             weight 2: 1330 of the 8000 connections (16.62%)\n\
             weight 3: 87 of the 8000 connections (1.09%)\n\nBW: 0.909625\n"
        );
    }

    #[test]
    fn integer_stats_match_orcs_format() {
        let text = integer_stats_text(MetricKind::SumMaxCong, &[34]);
        assert_eq!(
            text,
            "Statistical Results\n===================\n\n\
             Minimal Maximal Congestion: 34.000000\n\
             Maximal Maximal Congestion: 34.000000\n\
             Average Maximal Congestion: 34.000000\n\
             Maximal Congestion Variance: 0.000000\n\
             ===================\n\nCongestion sum of 34 occured 1 times.\n"
        );
        let delay = integer_stats_text(MetricKind::DepMaxDelay, &[4, 3, 3, 4, 3]);
        assert!(delay.contains("Average Delay: 3.400000\nDelay Variance: 0.240000\n"));
        assert!(delay.ends_with("Delay of 3 occured 3 times.\nDelay of 4 occured 2 times.\n"));
    }

    #[test]
    fn acc_band_histogram_lines() {
        let text = hist_acc_band_text(&[0.5, 0.75, 0.75, 1.0]);
        assert!(text.contains("  0.45000000   0.50000000     1\n"));
        assert!(text.contains("  0.70000000   0.75000000     2\n"));
        assert!(text.contains("  0.95000000   1.00000000     1\n"));
        assert_eq!(text.lines().count(), 22);
    }
}
