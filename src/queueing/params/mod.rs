//! Model parameters from outside: network presets and the settings given over them
//! ([`Preset`], [`NetworkSettings`]), quantities with units and lists of them
//! ([`parse_time`], [`parse_list`] …), the names of the model's choices (their `FromStr`),
//! the layered values of a run ([`Config`]) and the TOML parameter file
//! ([`parse_config`]), one private module each.
//!
//! Everything here reads text into the types of [`crate::queueing`] and fails with its
//! [`QueueError`](crate::queueing::QueueError) (a bad file as a
//! [`LocatedError`](crate::error::LocatedError) inside it). It may use the model's types,
//! [`crate::error`], `serde` and `toml`; nothing here evaluates the model.

mod config;
mod file;
mod names;
mod preset;
mod units;

pub use config::Config;
pub use file::parse_config;
pub use preset::{NetworkSettings, Preset};
pub use units::{
    parse_bandwidth, parse_count, parse_list, parse_rate, parse_size, parse_time, MAX_LIST,
};
