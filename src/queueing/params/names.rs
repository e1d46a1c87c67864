//! The names of the model's choices in flags and files: every choice read by `FromStr`,
//! with its accepted spellings; an unknown name fails with
//! [`QueueError::UnknownName`], which lists the choices.

use super::Preset;
use crate::queueing::{Architecture, Centre, Ecn1Mode, QueueError, Service, Sources};
use std::str::FromStr;

/// Short spellings of `preset` accepted besides its name.
fn preset_aliases(preset: Preset) -> &'static [&'static str] {
    match preset {
        Preset::FastEthernet => &["fe", "100m-ethernet"],
        Preset::GigabitEthernet => &["ge", "gbe", "1g-ethernet", "1gbe"],
        Preset::TenGigabitEthernet => &["10ge", "10gbe", "10-gigabit-ethernet"],
        Preset::InfinibandQdr => &["qdr", "ib-qdr"],
        Preset::InfinibandHdr => &["hdr", "ib-hdr"],
    }
}

/// Lower case without separators, so `Non-Blocking`, `non_blocking` and `nonblocking`
/// (and `M/M/1` and `mm1`) compare equal.
fn normalise(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '-' | '_' | '/' | ' ' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The choice whose name or alias is `text` (see [`normalise`]).
fn by_name<T: Copy>(
    kind: &'static str,
    text: &str,
    choices: &[(T, &'static str, &[&'static str])],
) -> Result<T, QueueError> {
    let key = normalise(text);
    choices
        .iter()
        .find(|(_, name, aliases)| {
            normalise(name) == key || aliases.iter().any(|a| normalise(a) == key)
        })
        .map(|(t, _, _)| *t)
        .ok_or_else(|| QueueError::UnknownName {
            kind,
            given: text.to_string(),
            expected: choices.iter().map(|(_, n, _)| *n).collect(),
        })
}

impl FromStr for Preset {
    type Err = QueueError;
    fn from_str(s: &str) -> Result<Self, QueueError> {
        let choices: Vec<_> = Preset::ALL
            .iter()
            .map(|p| (*p, p.name(), preset_aliases(*p)))
            .collect();
        by_name("network preset", s, &choices)
    }
}

impl FromStr for Architecture {
    type Err = QueueError;
    fn from_str(s: &str) -> Result<Self, QueueError> {
        by_name(
            "architecture",
            s,
            &[
                (
                    Architecture::NonBlocking,
                    "non-blocking",
                    &["fat-tree", "nb"],
                ),
                (Architecture::Blocking, "blocking", &["linear-array", "b"]),
            ],
        )
    }
}

impl FromStr for Service {
    type Err = QueueError;
    fn from_str(s: &str) -> Result<Self, QueueError> {
        by_name(
            "service model",
            s,
            &[
                (
                    Service::Exponential,
                    "exponential",
                    &["M/M/1", "mm1", "exp"],
                ),
                (
                    Service::Deterministic,
                    "deterministic",
                    &["M/D/1", "md1", "det"],
                ),
            ],
        )
    }
}

impl FromStr for Ecn1Mode {
    type Err = QueueError;
    fn from_str(s: &str) -> Result<Self, QueueError> {
        by_name(
            "ECN1 mode",
            s,
            &[
                (Ecn1Mode::Shared, "shared", &[]),
                (Ecn1Mode::Split, "split", &[]),
            ],
        )
    }
}

impl FromStr for Sources {
    type Err = QueueError;
    fn from_str(s: &str) -> Result<Self, QueueError> {
        by_name(
            "kind of sources",
            s,
            &[
                (Sources::Blocking, "blocking", &["closed"]),
                (Sources::Open, "open", &[]),
            ],
        )
    }
}

impl FromStr for Centre {
    type Err = QueueError;
    fn from_str(s: &str) -> Result<Self, QueueError> {
        by_name(
            "network",
            s,
            &[
                (Centre::Icn1, "icn1", &[]),
                (Centre::Ecn1, "ecn1", &[]),
                (Centre::Icn2, "icn2", &[]),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_accept_spellings_and_list_the_choices() {
        assert_eq!("NonBlocking".parse(), Ok(Architecture::NonBlocking));
        assert_eq!("linear-array".parse(), Ok(Architecture::Blocking));
        assert_eq!("M/D/1".parse(), Ok(Service::Deterministic));
        assert_eq!("10GbE".parse(), Ok(Preset::TenGigabitEthernet));
        assert_eq!("InfiniBand_QDR".parse(), Ok(Preset::InfinibandQdr));
        let e = "myrinet".parse::<Preset>().unwrap_err().to_string();
        assert!(
            e.contains("'myrinet'") && e.contains("infiniband-hdr"),
            "{e}"
        );
    }
}
