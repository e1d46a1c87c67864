//! Fuzzes the command line: any list of arguments gives a validated request or a usage
//! error, never a panic, a hang or an unbounded allocation. The input is the argument list
//! as `execve` hands it over, NUL-separated; the files a request names are looked up
//! (refusing outputs that are inputs) but nothing is run or written.
#![no_main]
// The binary's flag layer is compiled here as it is in `orcs`; the parts that only the
// commands use are unused in this target.
#![allow(dead_code)]

use clap::{CommandFactory, FromArgMatches};
use libfuzzer_sys::fuzz_target;
use std::cell::RefCell;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

#[path = "../../src/bin/orcs/cli/mod.rs"]
mod cli;

thread_local! {
    // Building the command tree of `orcs` costs far more than parsing one command line
    // with it, and a built tree parses any number of them (clap's `_mut` matching), so it
    // is built once: the target then spends its time in the flag layer being fuzzed.
    static COMMAND: RefCell<clap::Command> = RefCell::new(cli::Cli::command());
}

fuzz_target!(|data: &[u8]| {
    let args = std::iter::once(OsString::from("orcs")).chain(
        data.split(|&b| b == 0)
            .map(|a| OsString::from_vec(a.to_vec())),
    );
    let Ok(matches) = COMMAND.with_borrow_mut(|command| command.try_get_matches_from_mut(args))
    else {
        return;
    };
    let Ok(parsed) = cli::Cli::from_arg_matches(&matches) else {
        return;
    };
    if let Ok(invocation) = parsed.into_invocation() {
        let _ = cli::files::check(&invocation.request);
    }
});
