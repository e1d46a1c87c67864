//! What orcs writes for people and programs: JSON and CSV results, link tables, plots and
//! congestion maps, and the HTML report in a real browser.

mod browser;
mod outputs;
