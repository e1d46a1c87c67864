//! Which files each request reads and which it writes, by the flags that name them, in
//! one place. [`check`] refuses, before any work, an output that is one of the inputs
//! or another output ([`orcs::output::refuse_overlaps`]); the commands name their
//! outputs with the flag constants below.
//!
//! Files named inside other files (a scan plan's fabrics, a scenario's traces) are not
//! listed: the commands write no file of their own next to them.

use super::Request;
use anyhow::Result;
use orcs::fabric::input::InputSpec;
use orcs::output::{refuse_overlaps, NamedFile};

/// A simulation's metric file.
pub const OUTPUT_FILE: &str = "-o/--output_file";
/// The file (or folder) the other commands write.
pub const OUTPUT: &str = "-o/--output";
/// The per-link CSV table.
pub const LINKS: &str = "--links";
/// The picture of the results.
pub const PLOT: &str = "--plot";
/// A scan's CSV summary.
pub const CSV: &str = "--csv";

/// The files of one request, each with the flag that names it.
#[derive(Debug, Default)]
pub struct Files<'a> {
    /// The files read.
    pub inputs: Vec<NamedFile<'a>>,
    /// The files (or folders) written.
    pub outputs: Vec<NamedFile<'a>>,
}

impl<'a> Files<'a> {
    fn input(&mut self, flag: &'a str, path: &'a str) -> &mut Self {
        self.inputs.push(NamedFile { flag, path });
        self
    }

    fn inputs(&mut self, flag: &'a str, paths: impl IntoIterator<Item = &'a String>) -> &mut Self {
        for path in paths {
            self.input(flag, path);
        }
        self
    }

    fn output(&mut self, flag: &'a str, path: Option<&'a str>) -> &mut Self {
        if let Some(path) = path {
            self.outputs.push(NamedFile { flag, path });
        }
        self
    }

    /// A fabric's files: `path_flag` names the fabric itself (`-i/--input_file`,
    /// `--fabric`), the InfiniBand flags the others.
    fn fabric(&mut self, path_flag: &'a str, spec: &'a InputSpec) -> &mut Self {
        self.input(path_flag, &spec.path)
            .inputs("--lft", &spec.lft)
            .inputs("--node-name-map", &spec.node_name_map)
            .inputs("--guid2lid", &spec.guid2lid)
    }
}

/// The flag of a routed fabric given with `-i`.
const INPUT_FILE: &str = "-i/--input_file";

impl Request {
    /// The files this request reads and writes.
    pub fn files(&self) -> Files<'_> {
        let mut f = Files::default();
        match self {
            Request::Simulate(p) => {
                f.fabric(INPUT_FILE, &p.input)
                    .inputs("--node_ordering_file", &p.request.ordering_file)
                    .inputs("--compare", &p.compare)
                    .output(OUTPUT_FILE, Some(&p.output_file))
                    .output(LINKS, p.links_file.as_deref())
                    .output(PLOT, p.plot.as_ref().map(|request| request.path.as_str()));
            }
            Request::NumLevels(p) => {
                f.fabric(INPUT_FILE, &p.input)
                    .inputs("--node_ordering_file", &p.request.ordering_file);
            }
            Request::PatternHelp(_) => {}
            Request::Matrix(p) => {
                f.fabric(INPUT_FILE, &p.input)
                    .input("--matrix", &p.matrix)
                    .inputs("--node_ordering_file", &p.node_ordering_file)
                    .output(OUTPUT_FILE, Some(&p.output_file))
                    .output(LINKS, p.links_file.as_deref());
            }
            Request::Check(p) => {
                f.fabric(INPUT_FILE, &p.input);
            }
            Request::Convert(p) => {
                f.fabric(INPUT_FILE, &p.input)
                    .output(OUTPUT, Some(&p.output));
            }
            Request::Gen(p) => {
                f.output(OUTPUT, Some(&p.output));
            }
            Request::Map(p) => {
                f.input("RESULT", &p.result).output(OUTPUT, Some(&p.output));
            }
            Request::Plot(p) => {
                f.inputs("RESULT", &p.results)
                    .output(OUTPUT, Some(&p.output));
            }
            Request::Report(p) => {
                f.inputs("RESULT", &p.results)
                    .output(OUTPUT, Some(&p.output));
            }
            Request::Traffic(p) => {
                f.input("--cluster", &p.cluster)
                    .input("--matrix", &p.matrix)
                    .output(LINKS, p.links.as_deref());
            }
            Request::Jobs(p) => {
                f.input("SCENARIO", &p.scenario)
                    .output(OUTPUT, p.output.as_deref());
            }
            Request::Scan(p) => scan_files(&mut f, p),
            Request::Trace(super::trace::TracePlan::Dump(p)) => {
                f.input("TRACE", &p.trace)
                    .output(OUTPUT, p.output.as_deref());
            }
            Request::Trace(super::trace::TracePlan::Matrix(p)) => {
                f.input("TRACE", &p.trace)
                    .output(OUTPUT, p.output.as_deref());
            }
            Request::Trace(super::trace::TracePlan::Classify(p)) => {
                f.input("TRACE", &p.trace);
                if let super::trace::GridSpec::File(grid) = &p.grid {
                    f.input("--grid", grid);
                }
                if let Some(rules) = &p.rules {
                    f.input("--rules", rules);
                }
                if let Some(placement) = &p.placement {
                    f.input("--fabric", &placement.input.path);
                }
                f.output(OUTPUT, p.output.as_deref())
                    .output(PLOT, p.plot.as_ref().map(|request| request.path.as_str()));
            }
            Request::Trace(super::trace::TracePlan::Rules(p)) => {
                f.output(OUTPUT, p.output.as_deref());
            }
            Request::Trace(super::trace::TracePlan::Stats(p)) => {
                f.input("TRACE", &p.trace)
                    .output(OUTPUT, p.output.as_deref());
            }
            Request::Tasks(super::tasks::TasksPlan::Describe(p)) => {
                f.output(OUTPUT, p.output.as_deref());
            }
            Request::Tasks(super::tasks::TasksPlan::Run(p) | super::tasks::TasksPlan::Sweep(p)) => {
                for network in &p.networks {
                    if let super::tasks::NetworkPlan::Fabric(path) = network {
                        f.input("--network", path);
                    }
                }
                f.output(OUTPUT, p.output.as_deref())
                    .output(LINKS, p.links.as_deref())
                    .output("--matrix-out", p.matrix_out.as_deref())
                    .output(PLOT, p.plot.as_ref().map(|request| request.path.as_str()));
            }
            Request::Print(_) => {}
            Request::Profile(p) => {
                f.input("--library", &p.library)
                    .output(OUTPUT, Some(&p.output));
            }
            Request::Queue(p) => {
                f.inputs("--config", &p.config_file);
                if let Some(spec) = &p.fabric {
                    f.fabric("--fabric", spec);
                }
                f.output(OUTPUT, p.output.as_deref())
                    .output(PLOT, p.plot.as_ref().map(|request| request.path.as_str()));
            }
        }
        f
    }
}

/// A scan reads its plan (or the files it merges) and writes the results file (appended
/// to, or replaced by a merge) and the summary; a dry run writes nothing.
fn scan_files<'a>(f: &mut Files<'a>, p: &'a super::scan::ScanPlan) {
    f.inputs("PLAN", &p.plan).inputs("--merge", &p.merge);
    if !p.dry_run {
        f.output(OUTPUT, Some(&p.output)).output(CSV, Some(&p.csv));
    }
}

/// Refuses a request that would write one of its inputs, or one file twice.
pub fn check(request: &Request) -> Result<()> {
    let files = request.files();
    refuse_overlaps(&files.inputs, &files.outputs)?;
    Ok(())
}
