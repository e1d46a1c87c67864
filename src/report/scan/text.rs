//! The `--dry-run` table of a scan: every cell of the shard, whether it is done, and how
//! long it should take.

use crate::scan::run::{Estimate, ScanRun};
use crate::scan::CellWorkload;
use std::fmt::Write as _;

/// The `--dry-run` table: every cell of the shard with whether it is done and its
/// estimated time (from [`ScanRun::dry_run`]), a traffic cell's file and trace flags
/// last, and under a cell that cannot run the error its record will hold; then the
/// totals for `threads` worker threads.
pub fn dry_run_text(run: &ScanRun, estimates: &[Estimate], threads: usize) -> String {
    let mut s = String::new();
    let traffic = !run.plan().traffic.is_empty();
    let _ = writeln!(
        s,
        "{:>5}  {:<40} {:<12} {:<10} {:>8} {:<14} {:>6} {:>12}{}",
        "cell",
        "fabric",
        "pattern",
        "arg",
        "commsize",
        "metric",
        "done",
        "estimate s",
        if traffic { "  traffic" } else { "" }
    );
    let mut total = 0.0;
    let mut failing = 0;
    for e in estimates {
        let c = e.cell;
        total += e.seconds;
        let label = match c.workload {
            CellWorkload::Traffic(t, _) => format!("  {}", run.plan().traffic[t].label()),
            CellWorkload::Pattern(..) => String::new(),
            CellWorkload::Tasks(t) => format!("  {}", run.plan().tasks[t].flags),
        };
        let _ = writeln!(
            s,
            "{:>5}  {:<40} {:<12} {:<10} {:>8} {:<14} {:>6} {:>12.2}{label}",
            c.index,
            run.plan().fabrics[c.fabric].label(),
            c.pattern,
            match c.workload {
                CellWorkload::Tasks(_) => "-",
                _ => c.arg.as_deref().unwrap_or("-"),
            },
            c.commsize,
            c.metric().map_or("-", |m| m.name()),
            if e.done { "yes" } else { "no" },
            e.seconds
        );
        if let Some(error) = &e.error {
            failing += 1;
            let _ = writeln!(s, "       cannot run: {error}");
        }
    }
    let _ = writeln!(
        s,
        "{} cells, {} done, {} to run{}; estimated {:.1} s on {threads} threads",
        run.num_cells(),
        run.num_cells() - run.num_pending(),
        run.num_pending(),
        match failing {
            0 => String::new(),
            n => format!(" ({n} cannot run and will be recorded with their error)"),
        },
        total,
    );
    s
}
