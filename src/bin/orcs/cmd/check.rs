//! `orcs check` (and `--checkinputfile`, `--routequal`): the route check's report, ORCS's
//! route quality figures and the deadlock analysis, as text, JSON or CSV; exit status 2
//! when a route is broken or the routing can deadlock.

use super::load;
use crate::cli::check::CheckPlan;
use crate::cli::values::Format;
use crate::output::create;
use crate::progress::checking_routes;
use anyhow::{bail, Result};
use orcs::report::{self, CheckReport};
use orcs::routing::deadlock::check_deadlock;
use orcs::routing::route_quality;
use std::io::Write;
use std::process::ExitCode;

/// Runs the check.
pub fn run(plan: &CheckPlan) -> Result<ExitCode> {
    let loaded = load(&plan.input, false)?;
    let (fabric, table) = (&loaded.fabric, &loaded.table);
    let (flag, path) = (plan.output.0, plan.output.1.as_str());
    let mut out = create(flag, path)?;
    let all_hosts: Vec<u32> = (0..fabric.num_hosts() as u32).collect();
    let check = checking_routes("checking routes", fabric, table, &all_hosts, false);
    let text = plan.format == Format::Text;
    // The text shows the check before a section that needs every pair routed refuses.
    let see = if text {
        out.write_all(report::check_text(&plan.input.path, fabric, &check).as_bytes())?;
        "see the report above"
    } else {
        "`orcs check` without it lists the broken pairs"
    };
    let quality = if plan.routequal {
        if !check.all_routed() {
            bail!("--routequal needs every host pair routed; {see}");
        }
        let q = route_quality(fabric, table, &all_hosts, &check);
        if text {
            out.write_all(report::routequal_text(&q).as_bytes())?;
        }
        Some(q)
    } else {
        None
    };
    let deadlock = if plan.deadlock {
        if !check.all_routed() {
            bail!("--deadlock needs every host pair routed; {see}");
        }
        let d = check_deadlock(fabric, table);
        if text {
            out.write_all(report::deadlock_text(fabric, &d).as_bytes())?;
        }
        Some(d)
    } else {
        None
    };
    let found = CheckReport {
        input: &plan.input.path,
        fabric,
        check: &check,
        quality: quality.as_ref(),
        deadlock: deadlock.as_ref(),
    };
    match plan.format {
        Format::Text => writeln!(out, "Completed")?,
        Format::Json => out.write_all(report::check_json(&found).as_bytes())?,
        Format::Csv => out.write_all(report::check_csv(&found).as_bytes())?,
    }
    out.commit()?;
    let deadlock_free = deadlock.is_none_or(|d| d.cycle.is_none());
    Ok(if check.all_routed() && deadlock_free {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}
