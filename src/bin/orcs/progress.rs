//! What a long command shows on a terminal while it works: a spinner for one long step,
//! a progress bar over runs. Nothing is shown on a pipe or with `-q`.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use orcs::fabric::Fabric;
use orcs::routing::{check_routes_with_progress, ForwardingTable, RouteCheck};
use std::io::{self, IsTerminal};

/// Runs `work` with a spinner saying `what` on a terminal (nothing on a pipe or with
/// `-q`), so that long loads and route checks of big fabrics do not look hung.
pub fn busy<T>(what: &str, quiet: bool, work: impl FnOnce() -> T) -> T {
    if quiet || !io::stderr().is_terminal() {
        return work();
    }
    let spinner = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} [{elapsed}]") {
        spinner.set_style(style);
    }
    spinner.set_message(what.to_string());
    spinner.enable_steady_tick(std::time::Duration::from_millis(120));
    let result = work();
    spinner.finish_and_clear();
    result
}

/// A progress bar with ETA over `runs` runs on a terminal; hidden on a pipe or with `-q`.
pub fn progress_bar(runs: u64, quiet: bool) -> ProgressBar {
    progress_bar_of(runs, "runs", quiet)
}

/// A progress bar with ETA over `len` `units` on a terminal; hidden on a pipe or with
/// `-q`.
pub fn progress_bar_of(len: u64, units: &str, quiet: bool) -> ProgressBar {
    if quiet || !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    let template = format!(
        "{{spinner}} {{msg}} [{{elapsed_precise}}] {{wide_bar}} {{pos}}/{{len}} {units} {{percent}} % (ETA {{eta}})"
    );
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

/// Runs `work`, which reports each of `hosts` destination hosts it is done with through
/// the function it is given (a routing, a route check), with a progress bar over the
/// destinations and its ETA saying `what` on a terminal; nothing on a pipe or with `-q`.
/// Routing or checking a giant fabric takes minutes.
pub fn over_destinations<T>(
    what: &str,
    hosts: usize,
    quiet: bool,
    work: impl FnOnce(&(dyn Fn(u64) + Sync)) -> T,
) -> T {
    let bar = progress_bar_of(hosts as u64, "destinations", quiet);
    bar.set_message(what.to_string());
    let result = work(&|n| bar.inc(n));
    bar.finish_and_clear();
    result
}

/// The route check of `hosts` (every pair), with [`over_destinations`]'s bar.
pub fn checking_routes(
    what: &str,
    fabric: &Fabric,
    table: &ForwardingTable,
    hosts: &[u32],
    quiet: bool,
) -> RouteCheck {
    over_destinations(what, hosts.len(), quiet, |progress| {
        check_routes_with_progress(fabric, table, hosts, progress)
    })
}
