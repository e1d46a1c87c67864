//! Fuzzes the command line: any list of arguments gives a validated request or a usage
//! error, never a panic, a hang or an unbounded allocation. The input is the argument list
//! as `execve` hands it over, NUL-separated; the files a request names are looked up
//! (refusing outputs that are inputs) but nothing is run or written.
#![no_main]
// The binary's flag layer is compiled here as it is in `orcs`; the parts that only the
// commands use are unused in this target.
#![allow(dead_code)]

use clap::Parser;
use libfuzzer_sys::fuzz_target;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

#[path = "../../src/bin/orcs/cli/mod.rs"]
mod cli;

fuzz_target!(|data: &[u8]| {
    let args = std::iter::once(OsString::from("orcs")).chain(
        data.split(|&b| b == 0)
            .map(|a| OsString::from_vec(a.to_vec())),
    );
    let Ok(parsed) = cli::Cli::try_parse_from(args) else {
        return;
    };
    if let Ok(invocation) = parsed.into_invocation() {
        let _ = cli::files::check(&invocation.request);
    }
});
