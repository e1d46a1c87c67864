//! The table reader of forwarding-table dumps: the state machine that takes a dump line
//! by line (preamble, tables, footers), fixes the layout at the first header, fills one
//! [`SwitchLft`] per switch, and checks duplicates, ranges and footers.

use std::collections::HashMap;

use super::header::{parse_header, Header};
use super::rows::{parse_fdbs_row, parse_footer, parse_unicast_row};
use super::{show, trim_end, words, MAX_UNICAST_LID};
use crate::error::LocatedError;
use crate::ib::text::perr;
use crate::ib::{LftLayout, Lfts, SwitchLft, NO_ROUTE};

/// Which LIDs a table routes to port 0 (to infer the switch LID).
#[derive(Debug, Clone, Copy)]
enum PortZero {
    None,
    One(u32),
    Many,
}

/// The table being read.
#[derive(Debug)]
struct Table {
    guid: u64,
    lid: Option<u32>,
    /// Line of the header.
    line: u32,
    range: Option<(u32, u32)>,
    ports: Vec<u8>,
    /// Row lines read (duplicates included), for the `ibroute` footer check.
    rows: u32,
    port_zero: PortZero,
}

#[derive(Debug)]
enum State {
    /// Before the first header.
    Preamble,
    /// Inside a switch table.
    Table(Table),
    /// After a footer (`Unicast lids` layouts).
    Between,
}

/// Reads a dump one line at a time; see [`super::parse_lfts`].
pub(super) struct Parser {
    /// The layout, fixed by the first header, and that header's line.
    layout: Option<(LftLayout, u32)>,
    state: State,
    switches: Vec<SwitchLft>,
    /// Header line of each switch GUID seen.
    guid_lines: HashMap<u64, u32>,
    /// Per LID: the line of the row that set it in the current table, 0 = none. Reset
    /// (over the table's length) when a table ends.
    row_lines: Vec<u32>,
    /// Whether any non-blank line was seen.
    any_text: bool,
}

fn layout_name(layout: LftLayout) -> &'static str {
    match layout {
        LftLayout::Ibroute => "ibroute/dump_fts",
        LftLayout::OpensmLftsDump => "opensm-lfts.dump",
        LftLayout::Fdbs => ".fdbs",
    }
}

fn footer_name(layout: LftLayout) -> &'static str {
    match layout {
        LftLayout::Ibroute => "`N valid lids dumped`",
        _ => "`N lids dumped`",
    }
}

impl Parser {
    pub(super) fn new() -> Self {
        Parser {
            layout: None,
            state: State::Preamble,
            switches: Vec::new(),
            guid_lines: HashMap::new(),
            row_lines: vec![0; MAX_UNICAST_LID as usize + 1],
            any_text: false,
        }
    }

    fn layout(&self) -> LftLayout {
        self.layout.map_or(LftLayout::Ibroute, |(l, _)| l)
    }

    /// Handles one line (without its `\n`).
    pub(super) fn line(&mut self, raw: &[u8], no: u32) -> Result<(), LocatedError> {
        let line = trim_end(raw);
        if line.is_empty() {
            return Ok(());
        }
        self.any_text = true;
        // Hot path: a row inside a table.
        if line.starts_with(b"0x") {
            if let State::Table(table) = &mut self.state {
                let layout = self.layout.map_or(LftLayout::Ibroute, |(l, _)| l);
                let (lid, port) = if layout == LftLayout::Fdbs {
                    parse_fdbs_row(line)
                } else {
                    parse_unicast_row(line)
                }
                .map_err(|e| at_line(e, no, line))?;
                return record(table, &mut self.row_lines, lid, port, no);
            }
        }
        match parse_header(line) {
            Ok(Some(header)) => return self.header(header, no),
            Ok(None) => {}
            Err(e) => return Err(at_line(e, no, line)),
        }
        let layout = self.layout();
        if layout != LftLayout::Fdbs && matches!(self.state, State::Table(_)) {
            if let Some(n) = parse_footer(line) {
                if let State::Table(table) = std::mem::replace(&mut self.state, State::Between) {
                    return self.footer(table, n, no);
                }
            }
        }
        match &self.state {
            State::Preamble if line.starts_with(b"0x") => Err(perr(
                no,
                format!(
                    "table row {} before any switch header: is the start of the file missing?",
                    show(line)
                ),
            )),
            State::Preamble => Ok(()),
            State::Between => self.between_tables(line, no),
            State::Table(table) => other_table_line(table, layout, line, no),
        }
    }

    /// A line after a table's footer: only comments and the next header may follow.
    fn between_tables(&self, line: &[u8], no: u32) -> Result<(), LocatedError> {
        if line.starts_with(b"#") {
            return Ok(());
        }
        let what = if line.starts_with(b"0x") {
            "a table row after the table's footer"
        } else {
            "an unexpected line between tables"
        };
        let last = self.switches.last().map_or(0, |s| s.line);
        Err(perr(
            no,
            format!(
                "{what} {} (the previous table starts at line {last}); expected a \
                 `Unicast lids` switch header or the end of the file",
                show(line)
            ),
        ))
    }

    /// A switch header at line `no`.
    fn header(&mut self, header: Header, no: u32) -> Result<(), LocatedError> {
        match self.layout {
            None => self.layout = Some((header.layout, no)),
            Some((layout, first)) if layout != header.layout => {
                // An unfinished `Unicast lids` table is the first problem to report.
                if let State::Table(table) = &self.state {
                    if layout != LftLayout::Fdbs {
                        return Err(missing_footer(layout, table, "the next switch header", no));
                    }
                }
                return Err(perr(
                    no,
                    format!(
                        "a {} switch header in a file whose first table (line {first}) is \
                         {}: mixed layouts",
                        layout_name(header.layout),
                        layout_name(layout)
                    ),
                ));
            }
            Some(_) => {}
        }
        match std::mem::replace(&mut self.state, State::Preamble) {
            State::Table(table) => {
                if header.layout != LftLayout::Fdbs {
                    let e = missing_footer(header.layout, &table, "the next switch header", no);
                    return Err(e);
                }
                self.end_table(table);
            }
            State::Preamble | State::Between => {}
        }
        if let Some(first) = self.guid_lines.insert(header.guid, no) {
            return Err(perr(
                no,
                format!(
                    "switch {:#018x} has a second table here; its first starts at line {first}",
                    header.guid
                ),
            ));
        }
        let len = header.range.map_or(0, |(_, hi)| hi as usize + 1);
        self.state = State::Table(Table {
            guid: header.guid,
            lid: header.lid,
            line: no,
            range: header.range,
            ports: vec![NO_ROUTE; len],
            rows: 0,
            port_zero: PortZero::None,
        });
        Ok(())
    }

    /// The footer `n … lids dumped` of `table` at line `no`.
    fn footer(&mut self, table: Table, n: u32, no: u32) -> Result<(), LocatedError> {
        match self.layout() {
            LftLayout::Ibroute if n != table.rows => {
                return Err(perr(
                    no,
                    format!(
                        "the footer counts {n} LIDs but the table of switch {:#018x} \
                         (line {}) has {} rows: rows lost or added?",
                        table.guid, table.line, table.rows
                    ),
                ));
            }
            LftLayout::OpensmLftsDump => {
                let hi = table.range.map_or(0, |(_, hi)| hi);
                if n != hi {
                    return Err(perr(
                        no,
                        format!(
                            "the footer says {n} LIDs but the header of switch {:#018x} \
                             (line {}) says the table ends at LID {hi}",
                            table.guid, table.line
                        ),
                    ));
                }
            }
            _ => {}
        }
        self.end_table(table);
        Ok(())
    }

    /// Stores a finished table and clears the duplicate-detection scratch.
    fn end_table(&mut self, table: Table) {
        let touched = table.ports.len().min(self.row_lines.len());
        self.row_lines[..touched].fill(0);
        let lid = match (table.lid, table.port_zero) {
            (Some(lid), _) => Some(lid),
            (None, PortZero::One(lid)) => Some(lid),
            _ => None,
        };
        self.switches.push(SwitchLft {
            guid: table.guid,
            lid,
            line: table.line,
            ports: table.ports,
        });
    }

    /// End of input; `eof_line` is the line where it appears.
    pub(super) fn finish(mut self, eof_line: u32) -> Result<Lfts, LocatedError> {
        let layout = self.layout();
        match std::mem::replace(&mut self.state, State::Preamble) {
            State::Preamble => {
                let message = if self.any_text {
                    "no forwarding table found: expected a `Unicast lids [...] of switch ...` \
                     header (ibroute, dump_fts, opensm-lfts.dump) or a \
                     `dump_ucast_routes: Switch 0x...` header (.fdbs)"
                } else {
                    "the input is empty: no forwarding table found"
                };
                return Err(perr(0, message));
            }
            State::Table(table) => {
                if layout != LftLayout::Fdbs {
                    return Err(missing_footer(
                        layout,
                        &table,
                        "the end of the input",
                        eof_line,
                    ));
                }
                self.end_table(table);
            }
            State::Between => {}
        }
        Ok(Lfts {
            layout,
            switches: self.switches,
        })
    }
}

fn missing_footer(layout: LftLayout, table: &Table, at: &str, no: u32) -> LocatedError {
    perr(
        no,
        format!(
            "switch {:#018x} table (line {}) ends at {at} without its {} footer: is the \
             file truncated?",
            table.guid,
            table.line,
            footer_name(layout)
        ),
    )
}

/// Stores row `lid → port` of line `no` in `table`.
fn record(
    table: &mut Table,
    row_lines: &mut [u32],
    lid: u32,
    port: u8,
    no: u32,
) -> Result<(), LocatedError> {
    table.rows = table.rows.saturating_add(1);
    if let Some((lo, hi)) = table.range {
        if lid < lo || lid > hi {
            return Err(perr(
                no,
                format!(
                    "LID {lid:#06x} is outside the range {lo:#x}-{hi:#x} of the header of \
                     switch {:#018x} (line {})",
                    table.guid, table.line
                ),
            ));
        }
    }
    let idx = lid as usize; // lid <= MAX_UNICAST_LID: checked by the row parsers
    if table.ports.len() <= idx {
        table.ports.resize(idx + 1, NO_ROUTE);
    }
    let first = row_lines[idx];
    if first != 0 {
        let before = table.ports[idx];
        if before == port {
            return Ok(());
        }
        return Err(perr(
            no,
            format!(
                "LID {lid:#06x} of switch {:#018x} (line {}) is listed twice with different \
                 ports: {} at line {first}, {} here",
                table.guid,
                table.line,
                port_text(before),
                port_text(port)
            ),
        ));
    }
    row_lines[idx] = no;
    table.ports[idx] = port;
    if port == 0 && lid != 0 {
        table.port_zero = match table.port_zero {
            PortZero::None => PortZero::One(lid),
            _ => PortZero::Many,
        };
    }
    Ok(())
}

fn port_text(port: u8) -> String {
    if port == NO_ROUTE {
        "no route".into()
    } else {
        format!("port {port}")
    }
}

/// A line inside a table that is neither a row nor a header nor a footer: column titles
/// and, in `.fdbs`, comments are fine; anything else is an error.
fn other_table_line(
    table: &Table,
    layout: LftLayout,
    line: &[u8],
    no: u32,
) -> Result<(), LocatedError> {
    if layout == LftLayout::Fdbs {
        if line.starts_with(b"#") || line.starts_with(b"PLFT_NUM:") {
            return Ok(());
        }
        let cols = line
            .split(|&b| b == b' ' || b == b'\t' || b == b':')
            .filter(|w| !w.is_empty());
        if cols.eq([b"LID".as_slice(), b"Port", b"Hops", b"Optimal"]) {
            return Ok(());
        }
    } else if table.rows == 0
        && (words(line).eq([b"Lid".as_slice(), b"Out", b"Destination"])
            || words(line).eq([b"Port".as_slice(), b"Info"]))
    {
        return Ok(());
    }
    let expected = match layout {
        LftLayout::Fdbs => {
            "a row `0x<lid> : <port> : <hops> : <optimal>` or \
                 `0x<lid> : UNREACHABLE`, or the next `dump_ucast_routes:` header"
        }
        LftLayout::Ibroute => "a row `0x<lid> <port> : (…)` or the `N valid lids dumped` footer",
        LftLayout::OpensmLftsDump => "a row `0x<lid> <port> # …` or the `N lids dumped` footer",
    };
    Err(perr(
        no,
        format!(
            "unexpected line {} inside the table of switch {:#018x} (line {}); \
                 expected {expected}",
            show(line),
            table.guid,
            table.line
        ),
    ))
}

/// A line's problem `e` (without a position) at line `no`, quoting the line.
fn at_line(e: LocatedError, no: u32, line: &[u8]) -> LocatedError {
    perr(no, format!("{}: {}", e.message, show(line)))
}
