//! Running a plan: the cells of a shard that are not done yet, shared out over the ranks
//! of `mpirun`, each record appended whole and synced to the results file as soon as its
//! cell is done, and the files of several runs merged.
//!
//! Resuming: the keys of the records already in the results file (and in part files left
//! by an interrupted run under `mpirun`) are done; a record cut short by a crash is
//! dropped by truncating the file to its valid prefix before appending. Under `mpirun`
//! rank r appends to `RESULTS.rank<r>`; once every rank is done, rank 0 folds the parts
//! into the results file and removes them.

use super::cache::{cache_dir, load_fabric};
use super::{
    is_gzip, load_traffic, located, merge, read_results, run_cell, seal, Cell, CellWorkload,
    LoadedTraffic, Merged, Plan, ScanError, TaskPoint,
};
use crate::engine::metric::MetricKind;
use crate::engine::ranks::Ranks;
use crate::engine::unit::bytes_per_run;
use crate::engine::weighted;
use crate::fabric::LoadedFabric;
use crate::limits::{self, MemoryLimit};
use rayon::prelude::*;
use std::collections::HashSet;
use std::io::Write;
use std::sync::Mutex;
use std::time::Instant;

/// A plan about to run in one results file: which cells of the shard are done, and this
/// rank's share of the others.
pub struct ScanRun {
    plan: Plan,
    /// The shard's cells (indices into `plan.cells`).
    cells: Vec<usize>,
    /// Keys of the records already written.
    done: HashSet<String>,
    /// This rank's share of the cells not done (indices into `plan.cells`).
    pending: Vec<usize>,
    /// The results file.
    output: String,
    /// The file this rank appends to: the results file, or its part under `mpirun`.
    own: String,
    /// Length of the valid prefix of `own`.
    valid: u64,
    /// Part files left by an interrupted run under `mpirun`.
    leftover_parts: Vec<String>,
    ranks: Ranks,
    /// The loaded fabrics, by index into `plan.fabrics` (only those a pending cell needs).
    fabrics: Vec<Option<LoadedFabric>>,
    /// The read traffic files, by index into `plan.traffic` (only those a pending cell
    /// needs).
    traffic: Vec<Option<LoadedTraffic>>,
    /// The memory the scan may use, shared by the cells that run at the same time.
    memory: MemoryLimit,
}

/// The dry-run line of one cell.
#[derive(Debug, Clone)]
pub struct Estimate<'a> {
    /// The cell.
    pub cell: &'a Cell,
    /// Whether its record is written already.
    pub done: bool,
    /// Estimated seconds to run it (0 when done).
    pub seconds: f64,
    /// Why it cannot run, when its trial says so: the error its record will hold (a
    /// size larger than the fabric, broken routes, …), or the memory it would need
    /// beyond the scan's limit.
    pub error: Option<String>,
}

impl ScanRun {
    /// Prepares `plan` (only shard `(i, n)`, 1-based, when given) to run into `output`
    /// within `memory`: reads the records written so far and shares the pending cells
    /// out over `ranks`. Every rank must call it: no rank writes before all have read.
    pub fn open(
        plan: Plan,
        shard: Option<(usize, usize)>,
        output: &str,
        ranks: Ranks,
        memory: MemoryLimit,
    ) -> Result<ScanRun, ScanError> {
        let cells: Vec<usize> = match shard {
            Some((i, n)) => plan.shard(i, n).into_iter().map(|c| c.index).collect(),
            None => (0..plan.cells.len()).collect(),
        };
        let leftover_parts = part_files(output);
        let own = if ranks.size() > 1 {
            format!("{output}.rank{}", ranks.rank())
        } else {
            output.to_string()
        };
        // Records are appended and synced one by one, which a gzip stream cannot take.
        let gz_name = std::path::Path::new(output)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
        if gz_name || is_gzip(&own) {
            return Err(located(
                output,
                None,
                "a scan appends each record to its results file as it is done, which a gzip \
                 file cannot take: name the results file without .gz (a merge, `orcs scan \
                 --merge FILES -o x.gz`, may compress them when the scan is over)",
            ));
        }
        // Records already written, checked to be this plan's (a results file of another
        // plan, or conflicting records of one cell, stop the scan before it appends).
        let mut written = Vec::new();
        let mut valid = 0;
        for path in std::iter::once(output).chain(leftover_parts.iter().map(String::as_str)) {
            let (records, len) = read_results(path)?;
            if path == own {
                valid = len;
            }
            written.extend(records);
        }
        let done: HashSet<String> = merge(written, Some(plan.reference()))?
            .records
            .iter()
            .filter_map(|r| r.key().map(str::to_string))
            .collect();
        let pending = cells
            .iter()
            .copied()
            .filter(|&c| !done.contains(&plan.key(&plan.cells[c])))
            .enumerate()
            .filter(|(i, _)| i % ranks.size() == ranks.rank())
            .map(|(_, c)| c)
            .collect();
        // Every rank must share out the same pending list: none writes before all have read.
        ranks.barrier();
        let fabrics = (0..plan.fabrics.len()).map(|_| None).collect();
        let traffic = (0..plan.traffic.len()).map(|_| None).collect();
        Ok(ScanRun {
            plan,
            cells,
            done,
            pending,
            output: output.to_string(),
            own,
            valid,
            leftover_parts,
            ranks,
            fabrics,
            traffic,
            memory,
        })
    }

    /// The plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Number of cells in the shard.
    pub fn num_cells(&self) -> usize {
        self.cells.len()
    }

    /// Number of cells this rank runs.
    pub fn num_pending(&self) -> usize {
        self.pending.len()
    }

    /// Loads every input a pending cell needs, once: the fabrics (from the cache beside
    /// the results when possible) and the traffic files. `loaded` sees each fabric, e.g.
    /// to show its warnings.
    pub fn load_inputs(&mut self, loaded: &mut dyn FnMut(&LoadedFabric)) -> Result<(), ScanError> {
        let pending = || self.pending.iter().map(|&c| &self.plan.cells[c]);
        let mut fabrics: Vec<usize> = pending().map(|c| c.fabric).collect();
        let mut traffic: Vec<usize> = pending()
            .filter_map(|c| match c.workload {
                CellWorkload::Traffic(t, _) => Some(t),
                CellWorkload::Pattern(..) | CellWorkload::Tasks(_) => None,
            })
            .collect();
        for needed in [&mut fabrics, &mut traffic] {
            needed.sort_unstable();
            needed.dedup();
        }
        let dir = cache_dir(&self.output);
        for f in fabrics {
            let fabric = load_fabric(&self.plan.fabrics[f], &dir, self.memory)?;
            loaded(&fabric);
            self.fabrics[f] = Some(fabric);
        }
        for t in traffic {
            self.traffic[t] = Some(load_traffic(&self.plan, &self.plan.traffic[t])?);
        }
        Ok(())
    }

    /// The loaded traffic of `cell`, if it is a traffic cell whose file is read.
    fn traffic_of(&self, cell: &Cell) -> Option<&LoadedTraffic> {
        match cell.workload {
            CellWorkload::Traffic(t, _) => self.traffic[t].as_ref(),
            CellWorkload::Pattern(..) | CellWorkload::Tasks(_) => None,
        }
    }

    /// Every cell of the shard, whether it is done and, when not, how long it should take:
    /// a few runs are timed and scaled to the plan's run count. Needs [`ScanRun::load_inputs`].
    pub fn dry_run(&self) -> Vec<Estimate<'_>> {
        // A task cell's sample: one replication of at most SAMPLE_ROOTS root tasks.
        const SAMPLE_ROOTS: u64 = 200;
        let sample = Plan {
            runs: self.plan.runs.min(8),
            tasks: (self.plan.tasks.iter())
                .map(|t| TaskPoint {
                    roots: t.roots.min(SAMPLE_ROOTS),
                    warmup: t.warmup.min(SAMPLE_ROOTS),
                    replications: 1,
                    ..t.clone()
                })
                .collect(),
            ..self.plan.clone()
        };
        let scale = |cell: &Cell| match cell.workload {
            CellWorkload::Tasks(t) => {
                let (full, part) = (&self.plan.tasks[t], &sample.tasks[t]);
                ((full.roots + full.warmup) * u64::from(full.replications)) as f64
                    / (part.roots + part.warmup) as f64
            }
            _ => self.plan.runs as f64 / sample.runs as f64,
        };
        self.cells
            .iter()
            .map(|&c| {
                let cell = &self.plan.cells[c];
                let done = self.done.contains(&self.plan.key(cell));
                let (seconds, error) = match &self.fabrics[cell.fabric] {
                    Some(loaded) if !done => {
                        let started = Instant::now();
                        let traffic = self.traffic_of(cell);
                        let tried = run_cell(&sample, cell, loaded, traffic, self.memory, &|_| {});
                        let error = match tried {
                            Ok(record) => record["error"].as_str().map(str::to_string),
                            Err(e) => Some(e.to_string()),
                        };
                        (started.elapsed().as_secs_f64() * scale(cell), error)
                    }
                    _ => (0.0, None),
                };
                Estimate {
                    cell,
                    done,
                    seconds: if error.is_some() { 0.0 } else { seconds },
                    error,
                }
            })
            .collect()
    }

    /// Runs this rank's pending cells in parallel, appending each record whole and synced
    /// as its cell finishes (after dropping a record cut short by a crash). `progress`
    /// receives the runs done. Needs [`ScanRun::load_inputs`].
    pub fn execute(&self, progress: &(dyn Fn(u64) + Sync)) -> Result<(), ScanError> {
        // Cells run in parallel: as many at a time as there are workers.
        let at_once = rayon::current_num_threads().min(self.pending.len()).max(1);
        self.memory.check(&self.cells_estimate(at_once))?;
        let share = self.memory.share(at_once);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.own)
            .map_err(|e| ScanError::file("cannot open results file", &self.own, e))?;
        file.set_len(self.valid)
            .map_err(|e| ScanError::file("cannot truncate", &self.own, e))?;
        let file = Mutex::new(file);
        self.pending.par_iter().try_for_each(|&c| {
            let cell = &self.plan.cells[c];
            let loaded = self.fabrics[cell.fabric]
                .as_ref()
                .expect("load_inputs loads the fabric of every pending cell");
            let traffic = self.traffic_of(cell);
            let line = seal(&run_cell(
                &self.plan, cell, loaded, traffic, share, progress,
            )?);
            let mut f = file.lock().unwrap_or_else(|e| e.into_inner());
            f.write_all(line.as_bytes())
                .and_then(|()| f.sync_data())
                .map_err(|e| ScanError::file("cannot append to", &self.own, e))
        })
    }

    /// What `at_once` cells running together hold in per-run results, before any of
    /// them allocates (each cell checks the rest of its needs against its share).
    fn cells_estimate(&self, at_once: usize) -> limits::Estimate {
        let per_run = (self.pending.iter())
            .map(|&c| match self.plan.cells[c].workload {
                CellWorkload::Traffic(..) => weighted::BYTES_PER_RUN,
                CellWorkload::Pattern(_, metric) => bytes_per_run(metric),
                // A task cell keeps nothing per run.
                CellWorkload::Tasks(_) => 0,
            })
            .max()
            .unwrap_or(bytes_per_run(MetricKind::HistMaxCong));
        let cells = match at_once {
            1 => "one cell".to_string(),
            n => format!("{n} cells"),
        };
        limits::Estimate::new(format!(
            "{}: runs = {} with {cells} at a time",
            self.plan.path, self.plan.runs
        ))
        .add(
            (self.plan.runs as u128).saturating_mul(at_once as u128),
            "per-run results",
            per_run as u128,
        )
    }

    /// Once this rank has executed: waits for every rank, and on rank 0 folds the part
    /// files into the results file and removes them. Returns the records of the results
    /// file, one per cell in cell order, on rank 0; None on the others.
    pub fn finish(&self) -> Result<Option<Merged>, ScanError> {
        if self.ranks.size() > 1 {
            self.ranks.barrier();
            if !self.ranks.is_root() {
                return Ok(None);
            }
            return self.fold_parts().map(Some);
        }
        let records = read_results(&self.output)?.0;
        merge(records, Some(self.plan.reference())).map(Some)
    }

    /// Every part is complete: folds them into the results file (each record's line as
    /// its rank wrote it, in cell order), then removes them.
    fn fold_parts(&self) -> Result<Merged, ScanError> {
        let mut all = read_results(&self.output)?.0;
        let parts: Vec<String> = (0..self.ranks.size())
            .map(|r| format!("{}.rank{r}", self.output))
            .chain(self.leftover_parts.iter().cloned())
            .collect();
        for part in &parts {
            all.extend(read_results(part)?.0);
        }
        let merged = merge(all, Some(self.plan.reference()))?;
        replace_file(&self.output, &merged.text())?;
        for part in &parts {
            let _ = std::fs::remove_file(part);
        }
        Ok(merged)
    }
}

/// The part files of `output` left by ranks of an earlier run (partial writes excluded).
fn part_files(output: &str) -> Vec<String> {
    glob::glob(&format!("{}.rank*", glob::Pattern::escape(output)))
        .map(|paths| {
            paths
                .filter_map(Result::ok)
                .map(|p| p.to_string_lossy().into_owned())
                .filter(|p| !p.ends_with(".partial"))
                .collect()
        })
        .unwrap_or_default()
}

/// Replaces `path` by `text`, whole or not at all ([`crate::output`]).
fn replace_file(path: &str, text: &str) -> Result<(), ScanError> {
    crate::output::write_whole(path, text.as_bytes()).map_err(|e| ScanError::Io(e.into()))
}

/// The results files of `--merge`, merged.
#[derive(Debug)]
pub struct MergedFiles {
    /// The records, one per cell in cell order, each line as it was read.
    pub merged: Merged,
    /// Files whose last line was cut short (an interrupted scan); that line is left out.
    pub cut_short: Vec<String>,
    /// Files that do not exist (their cells are missing, unless another file has them).
    pub absent: Vec<String>,
}

/// The records of several results files (shards) merged: each cell once, in cell order,
/// every line passed on byte for byte (see [`merge`] for what is refused). Missing cells
/// are for the caller to judge ([`Merged::missing`]). O(total size).
pub fn merge_files(paths: &[String]) -> Result<MergedFiles, ScanError> {
    let mut all = Vec::new();
    let mut cut_short = Vec::new();
    let mut absent = Vec::new();
    for path in paths {
        let len = match std::fs::metadata(path) {
            Ok(m) => m.len(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                absent.push(path.clone());
                continue;
            }
            Err(e) => return Err(ScanError::file("cannot read", path, e)),
        };
        let (records, valid) = read_results(path)?;
        if valid < len {
            cut_short.push(path.clone());
        }
        all.extend(records);
    }
    Ok(MergedFiles {
        merged: merge(all, None)?,
        cut_short,
        absent,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::parse_plan;

    #[test]
    fn a_run_appends_every_cell_once_and_resumes_with_none_pending() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("r.jsonl").to_string_lossy().into_owned();
        let plan = parse_plan(
            "runs = 4\nseed = 1\nmetrics = [\"hist_max_cong\"]\npatterns = [\"bisect\", \"null\"]\n\
             [[fabrics]]\ngen = \"kary-ntree:k=2,n=2\"\n",
            "p.toml",
        )
        .unwrap();
        let mut run = ScanRun::open(
            plan.clone(),
            None,
            &out,
            Ranks::single(),
            MemoryLimit::unlimited(),
        )
        .unwrap();
        assert_eq!((run.num_cells(), run.num_pending()), (2, 2));
        let mut loaded = 0;
        run.load_inputs(&mut |_| loaded += 1).unwrap();
        assert_eq!(loaded, 1);
        run.execute(&|_| {}).unwrap();
        let merged = run.finish().unwrap().unwrap();
        let records = merged.values();
        assert_eq!(records.len(), 2);
        assert!(records[0].get("result").is_some());
        assert_eq!(
            records[1]["error"],
            "pattern null with commsize 4 has no traffic to measure"
        );
        // The generated fabric is cached beside the results.
        assert_eq!(std::fs::read_dir(cache_dir(&out)).unwrap().count(), 1);
        let mut again =
            ScanRun::open(plan, None, &out, Ranks::single(), MemoryLimit::unlimited()).unwrap();
        assert_eq!(again.num_pending(), 0);
        again
            .load_inputs(&mut |_| panic!("nothing to load"))
            .unwrap();
        let estimates = again.dry_run();
        assert!(estimates.iter().all(|e| e.done && e.seconds == 0.0));
        assert!(crate::report::scan::dry_run_text(&again, &estimates, 1)
            .ends_with("2 cells, 2 done, 0 to run; estimated 0.0 s on 1 threads\n"));
    }

    #[test]
    fn each_rank_of_a_shared_scan_appends_its_share_to_its_own_part_file() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("r.jsonl").to_string_lossy().into_owned();
        let plan = parse_plan(
            "runs = 2\nseed = 1\nmetrics = [\"hist_max_cong\"]\n\
             patterns = [\"bisect\", \"bruck\", \"tree\"]\n\
             [[fabrics]]\ngen = \"kary-ntree:k=2,n=2\"\n",
            "p.toml",
        )
        .unwrap();
        // All ranks open the scan before any appends (under MPI a barrier sees to it).
        let mut runs: Vec<ScanRun> = (0..2)
            .map(|rank| {
                let ranks = Ranks::of(rank, 2);
                ScanRun::open(plan.clone(), None, &out, ranks, MemoryLimit::unlimited()).unwrap()
            })
            .collect();
        for (rank, run) in runs.iter_mut().enumerate() {
            // Every other pending cell, from the rank's place on.
            let share: Vec<usize> = (rank..3).step_by(2).collect();
            assert_eq!(run.pending, share, "rank {rank}");
            run.load_inputs(&mut |_| {}).unwrap();
            run.execute(&|_| {}).unwrap();
        }
        // The ranks never append to the shared file: rank 0 folds their parts into it
        // once all are done.
        assert!(!std::path::Path::new(&out).exists());
        let cells_in = |path: String| {
            let mut cells: Vec<u64> = read_results(&path)
                .unwrap()
                .0
                .iter()
                .map(|r| r.cell().unwrap())
                .collect();
            cells.sort_unstable();
            cells
        };
        assert_eq!(cells_in(format!("{out}.rank0")), [0, 2]);
        assert_eq!(cells_in(format!("{out}.rank1")), [1]);
    }

    #[test]
    fn each_traffic_file_is_read_once_for_all_its_cells() {
        let dir = tempfile::tempdir().unwrap();
        let matrix = dir.path().join("m.csv");
        std::fs::write(&matrix, "src,dst,bytes\n0,1,100\n1,2,50\n2,3,25\n3,0,10\n").unwrap();
        let plan = parse_plan(
            "runs = 3\nmetrics = [\"sum_max_cong\", \"hist_acc_band\"]\n\
             patterns = [{ name = \"matrix\", traffic = \"m.csv\" }]\n\
             [[fabrics]]\ngen = \"kary-ntree:k=2,n=2\"\nrouting = [\"dmodk\", \"updn\"]\n",
            &dir.path().join("p.toml").to_string_lossy(),
        )
        .unwrap();
        let out = dir.path().join("r.jsonl").to_string_lossy().into_owned();
        let mut run =
            ScanRun::open(plan, None, &out, Ranks::single(), MemoryLimit::unlimited()).unwrap();
        run.load_inputs(&mut |_| {}).unwrap();
        // Four cells run from what was read before the file went away.
        std::fs::remove_file(&matrix).unwrap();
        run.execute(&|_| {}).unwrap();
        let merged = run.finish().unwrap().unwrap();
        let records = merged.values();
        assert_eq!(records.len(), 4);
        for r in records {
            assert_eq!(r["result"]["matrix"]["total_bytes"], 185, "{r}");
        }
    }

    #[test]
    fn merging_names_files_cut_short_and_absent() {
        let dir = tempfile::tempdir().unwrap();
        let path = |n: &str| dir.path().join(n).to_string_lossy().into_owned();
        let record = |cell: u64| {
            seal(
                &serde_json::json!({"cell": cell, "key": format!("k{cell}"), "plan": "p", "plan_cells": 3, "streams": 2}),
            )
        };
        let (a, b) = (record(1), record(0));
        std::fs::write(path("a"), format!("{a}{}", &b[..5])).unwrap();
        std::fs::write(path("b"), format!("{b}{a}")).unwrap();
        let files = [path("a"), path("b"), path("none")];
        let out = merge_files(&files).unwrap();
        assert_eq!(out.merged.records.len(), 2);
        assert_eq!(out.merged.records[0].key(), Some("k0"));
        // Lines pass through unchanged: the merged file is b's record, then a's.
        assert_eq!(out.merged.text(), format!("{b}{a}"));
        assert_eq!(out.cut_short, [files[0].clone()]);
        assert_eq!(out.absent, [files[2].clone()]);
        assert_eq!(out.merged.missing(), [2]);
        assert_eq!(
            out.merged.require_complete().unwrap_err().to_string(),
            "1 of the plan's 3 cells have no record: cells 2"
        );
    }
}
