//! The outputs of `orcs scan` besides its records, one format per file: the summary CSV
//! of a results file ([`csv`]) and the `--dry-run` table ([`text`]).
//!
//! It may use the plans, records and runs of [`crate::scan`]; the records themselves
//! (checksummed JSON lines) are the scan's own data and are written there.

mod csv;
mod text;

pub use self::csv::summary_csv;
pub use text::dry_run_text;
