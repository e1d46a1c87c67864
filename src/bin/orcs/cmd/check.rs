//! `orcs check` (and `--checkinputfile`, `--routequal`): the route check's report, ORCS's
//! route quality figures and the deadlock analysis; exit status 2 when a route is broken
//! or the routing can deadlock.

use super::load;
use crate::cli::check::CheckPlan;
use crate::progress::busy;
use anyhow::{bail, Result};
use orcs::report;
use orcs::routing::deadlock::check_deadlock;
use orcs::routing::{check_routes, route_quality};
use std::io::{self, Write};
use std::process::ExitCode;

/// Runs the check.
pub fn run(plan: &CheckPlan) -> Result<ExitCode> {
    let loaded = load(&plan.input, false)?;
    let (fabric, table) = (&loaded.fabric, &loaded.table);
    let all_hosts: Vec<u32> = (0..fabric.num_hosts() as u32).collect();
    let check = busy("checking routes", false, || {
        check_routes(fabric, table, &all_hosts)
    });
    let mut out = io::stdout().lock();
    write!(
        out,
        "{}",
        report::check_text(&plan.input.path, fabric, &check)
    )?;
    if plan.routequal {
        if !check.all_routed() {
            bail!("--routequal needs every host pair routed; run `orcs check` for the list");
        }
        let q = route_quality(fabric, table, &all_hosts, &check);
        write!(out, "{}", report::routequal_text(&q))?;
    }
    let mut deadlock_free = true;
    if plan.deadlock {
        if !check.all_routed() {
            bail!("--deadlock needs every host pair routed; see the report above");
        }
        let deadlock = check_deadlock(fabric, table);
        deadlock_free = deadlock.cycle.is_none();
        write!(out, "{}", report::deadlock_text(fabric, &deadlock))?;
    }
    writeln!(out, "Completed")?;
    out.flush()?;
    Ok(if check.all_routed() && deadlock_free {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}
