//! Pattern names and arguments (spec §5.9, §10.2, §10.3): the [`PatternKind`]s with their
//! prefixes and v1 aliases, the `-a` arguments of `neighbor`, `recvs_*` and `ptrnvsptrn`
//! as ORCS accepts them, and their usage texts. Failures are
//! [`WorkloadError`]s.

use super::Pattern;
use crate::workload::WorkloadError;
use std::fmt;

/// Maximum length of a pattern argument accepted by ORCS (`MAX_ARG_SIZE`, §5.9).
pub const MAX_ARG_LEN: usize = 256;
/// Maximum length of a `ptrnvsptrn` argument accepted by ORCS (§5.9).
pub const MAX_PTRNVSPTRN_ARG_LEN: usize = 1025;

/// Largest integer ORCS's `strtoi` accepts for `neighbor` and the receiver count
/// (it rejects `INT_MAX` and everything above).
const MAX_INT_ARG: u64 = i32::MAX as u64 - 1;

/// Arguments of `recvs_one_src` and `recvs_all_src` (`-a R[,c1[,c2]][,rand|linear]`, §5.6).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecvsArgs {
    /// Number of receivers R as given (≥ 1); generation uses min(R, floor(n/2)).
    pub receivers: u32,
    /// Chance (0..1, default 1.0) that a sender sends to its designated receiver.
    pub c1: f64,
    /// Chance (0..1, default 0.0) that a diverted sender stays idle.
    pub c2: f64,
    /// Sender-choosing mode: `true` = `linear` (ascending ranks), `false` = `rand` (default).
    pub linear: bool,
}

impl RecvsArgs {
    /// The receiver count actually used on a communicator of `n` ranks: min(R, floor(n/2)).
    pub(crate) fn effective_receivers(&self, n: u32) -> u32 {
        self.receivers.min(n / 2)
    }

    /// Parses `R[,c1[,c2]][,rand|linear]` (ORCS's regular expression
    /// `^([[:digit:]]+)(,([-+]?[0-9]*\.?[0-9]+))?(,([-+]?[0-9]*\.?[0-9]+))?(,(rand|linear))?$`,
    /// then 1 ≤ R < 2^31 − 1 and 0 ≤ c1, c2 ≤ 1). `pattern` names the pattern in errors.
    fn parse(arg: &str, pattern: &'static str) -> Result<RecvsArgs, WorkloadError> {
        let bad = || WorkloadError::InvalidArgument {
            pattern,
            requirement: RECVS_REQUIREMENT,
            arg: arg.to_string(),
        };
        let mut parts = arg.split(',');
        let receivers = parts
            .next()
            .and_then(parse_int_arg)
            .filter(|&r| r >= 1)
            .ok_or_else(bad)?;
        let rest: Vec<&str> = parts.collect();
        let mut chances: Vec<f64> = Vec::with_capacity(2);
        let mut linear = false;
        for (idx, part) in rest.iter().enumerate() {
            if *part == "rand" || *part == "linear" {
                if idx + 1 != rest.len() {
                    return Err(bad());
                }
                linear = *part == "linear";
            } else {
                if chances.len() == 2 || !is_orcs_float(part) {
                    return Err(bad());
                }
                let value: f64 = part.parse().map_err(|_| bad())?;
                if !(0.0..=1.0).contains(&value) {
                    return Err(bad());
                }
                chances.push(value);
            }
        }
        Ok(RecvsArgs {
            receivers,
            c1: chances.first().copied().unwrap_or(1.0),
            c2: chances.get(1).copied().unwrap_or(0.0),
            linear,
        })
    }

    /// Canonical argument text: `R`, then `,c1` when c1 ≠ 1 or c2 ≠ 0, `,c2` when c2 ≠ 0,
    /// and `,linear` in linear mode (the default `rand` is not written).
    pub(super) fn arg_string(&self) -> String {
        let mut s = self.receivers.to_string();
        if self.c1 != 1.0 || self.c2 != 0.0 {
            s.push_str(&format!(",{}", self.c1));
        }
        if self.c2 != 0.0 {
            s.push_str(&format!(",{}", self.c2));
        }
        if self.linear {
            s.push_str(",linear");
        }
        s
    }
}

/// The pattern kinds, i.e. the values of `-p/--ptrn` (plus the `neighbor2d` extension).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PatternKind {
    /// `null`: no pairs.
    Null,
    /// `bisect` (the default): (2i+1 → 2i).
    Bisect,
    /// `bisect_fb_sym`: (2i → 2i+1), (2i+1 → 2i).
    BisectFbSym,
    /// `rand`: a random permutation without fixed points.
    Rand,
    /// `tree`: binomial broadcast from rank 0.
    Tree,
    /// `bruck`: (i → i + 2^L mod n).
    Bruck,
    /// `recdbl`: recursive doubling.
    Recdbl,
    /// `ring`: one pair (L → L+1 mod n) per level.
    Ring,
    /// `gather`: (i → 0).
    Gather,
    /// `scatter`: (0 → i).
    Scatter,
    /// `neighbor`: greedy k-neighbour cliques (needs `-a k`).
    Neighbor,
    /// `neighbor2d`: 2-D torus nearest neighbours (`orcs` extension, not selectable in ORCS).
    Neighbor2d,
    /// `recvs_one_src`: one sender per receiver (needs `-a`).
    RecvsOneSrc,
    /// `recvs_all_src`: all non-receivers send to the receivers (needs `-a`).
    RecvsAllSrc,
    /// `ptrnvsptrn`: two patterns on two disjoint communicators (needs `-a`).
    PtrnVsPtrn,
}

/// The v1 pattern names that stand for `neighbor` with an implied k (§10.3).
const V1_ALIASES: [(&str, u32); 3] = [("2neighbor", 2), ("4neighbor", 4), ("6neighbor", 6)];

impl PatternKind {
    /// All kinds, in the order of ORCS's `-p` value list (`neighbor2d` after `neighbor`).
    pub const ALL: &'static [PatternKind] = &[
        PatternKind::Rand,
        PatternKind::Null,
        PatternKind::Bisect,
        PatternKind::BisectFbSym,
        PatternKind::Tree,
        PatternKind::Bruck,
        PatternKind::Gather,
        PatternKind::Scatter,
        PatternKind::Ring,
        PatternKind::Recdbl,
        PatternKind::Neighbor,
        PatternKind::Neighbor2d,
        PatternKind::RecvsOneSrc,
        PatternKind::RecvsAllSrc,
        PatternKind::PtrnVsPtrn,
    ];

    /// The command-line name (`-p` value).
    pub fn name(self) -> &'static str {
        match self {
            PatternKind::Null => "null",
            PatternKind::Bisect => "bisect",
            PatternKind::BisectFbSym => "bisect_fb_sym",
            PatternKind::Rand => "rand",
            PatternKind::Tree => "tree",
            PatternKind::Bruck => "bruck",
            PatternKind::Recdbl => "recdbl",
            PatternKind::Ring => "ring",
            PatternKind::Gather => "gather",
            PatternKind::Scatter => "scatter",
            PatternKind::Neighbor => "neighbor",
            PatternKind::Neighbor2d => "neighbor2d",
            PatternKind::RecvsOneSrc => "recvs_one_src",
            PatternKind::RecvsAllSrc => "recvs_all_src",
            PatternKind::PtrnVsPtrn => "ptrnvsptrn",
        }
    }

    /// True for the kinds that require an `-a/--ptrnarg` argument (neighbor, recvs_*,
    /// ptrnvsptrn).
    pub fn takes_arg(self) -> bool {
        matches!(
            self,
            PatternKind::Neighbor
                | PatternKind::RecvsOneSrc
                | PatternKind::RecvsAllSrc
                | PatternKind::PtrnVsPtrn
        )
    }

    /// True for kinds that ORCS does not offer on its command line (`neighbor2d`).
    /// They are matched by their exact name only, never as an abbreviation, so every
    /// abbreviation ORCS accepts keeps its ORCS meaning.
    pub(crate) fn is_extension(self) -> bool {
        self == PatternKind::Neighbor2d
    }

    /// The usage text printed for `-a help` (after `Usage: `) and after `ERROR: ` for a
    /// missing argument. Empty for the patterns without help text, as in ORCS.
    pub fn usage(self) -> &'static str {
        match self {
            PatternKind::Neighbor => NEIGHBOR_USAGE,
            PatternKind::RecvsOneSrc => RECVS_ONE_SRC_USAGE,
            PatternKind::RecvsAllSrc => RECVS_ALL_SRC_USAGE,
            PatternKind::PtrnVsPtrn => PTRNVSPTRN_USAGE,
            _ => "",
        }
    }

    /// Resolves a `-p` value: an exact name, a v1 alias (`2neighbor`, `4neighbor`,
    /// `6neighbor` → `Neighbor` with the implied k in the second element), or an
    /// unambiguous prefix of an ORCS name (`bisect_` → `bisect_fb_sym`). An exact name wins
    /// over being a prefix of another (`bisect`); an ambiguous prefix (`bis`) is an error
    /// listing the candidates. Extension names (`neighbor2d`) are matched by prefix only
    /// when no ORCS name matches.
    pub fn parse_name(s: &str) -> Result<(PatternKind, Option<u32>), WorkloadError> {
        if let Some(kind) = Self::ALL.iter().copied().find(|k| k.name() == s) {
            return Ok((kind, None));
        }
        if let Some(&(_, k)) = V1_ALIASES.iter().find(|(name, _)| *name == s) {
            return Ok((PatternKind::Neighbor, Some(k)));
        }
        if !s.is_empty() {
            // Candidates among ORCS's names first, then among the extensions.
            for extensions in [false, true] {
                let mut candidates: Vec<(&'static str, PatternKind, Option<u32>)> = Self::ALL
                    .iter()
                    .filter(|k| k.is_extension() == extensions && k.name().starts_with(s))
                    .map(|&k| (k.name(), k, None))
                    .collect();
                if !extensions {
                    candidates.extend(
                        V1_ALIASES
                            .iter()
                            .filter(|(name, _)| name.starts_with(s))
                            .map(|&(name, k)| (name, PatternKind::Neighbor, Some(k))),
                    );
                }
                match candidates.len() {
                    0 => continue,
                    1 => return Ok((candidates[0].1, candidates[0].2)),
                    _ => {
                        return Err(WorkloadError::AmbiguousPattern {
                            name: s.to_string(),
                            candidates: candidates.iter().map(|c| c.0).collect(),
                        })
                    }
                }
            }
        }
        Err(WorkloadError::UnknownPattern {
            name: s.to_string(),
            available: available_names(false),
        })
    }
}

impl fmt::Display for PatternKind {
    /// Writes the command-line name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The pattern names, comma separated (without `ptrnvsptrn` when `for_ptrnvsptrn`).
fn available_names(for_ptrnvsptrn: bool) -> String {
    PatternKind::ALL
        .iter()
        .filter(|k| !(for_ptrnvsptrn && **k == PatternKind::PtrnVsPtrn))
        .map(|k| k.name())
        .collect::<Vec<_>>()
        .join(", ")
}

const NEIGHBOR_USAGE: &str =
    "Pattern 'neighbor' requires an integer ptrnarg that is greater than 0.";
const RECVS_ONE_SRC_USAGE: &str = "Pattern 'recvs_one_src' requires a ptrnarg of the form \
R[,c1[,c2]][,rand|linear]
       R            number of receivers (ranks 0..R-1), an integer greater than 0;
                    at most commsize/2 receivers are used
       c1           chance (0.0 to 1.0, default 1.0) that a sender sends to its receiver
       c2           chance (0.0 to 1.0, default 0.0) that a sender that does not send to a
                    receiver stays idle (otherwise it sends to a random non-receiver)
       rand|linear  senders are picked at random (default) or in ascending rank order
       Each receiver gets only one sender; the remaining senders stay idle.";
const RECVS_ALL_SRC_USAGE: &str = "Pattern 'recvs_all_src' requires a ptrnarg of the form \
R[,c1[,c2]][,rand|linear]
       R            number of receivers (ranks 0..R-1), an integer greater than 0;
                    at most commsize/2 receivers are used
       c1           chance (0.0 to 1.0, default 1.0) that a sender sends to its receiver
       c2           chance (0.0 to 1.0, default 0.0) that a sender that does not send to a
                    receiver stays idle (otherwise it sends to a random non-receiver)
       rand|linear  senders are picked at random (default) or in ascending rank order
       All non-receivers send; the i-th picked sender sends to receiver i mod R.";
const PTRNVSPTRN_USAGE: &str = "Pattern 'ptrnvsptrn' requires a ptrnarg of the form \
p1[:arg1]::p2[:arg2]
       p1 runs on ranks 0..z-1 (z = -z/--part_commsize), p2 on the ranks z..n-1.
       arg1 and arg2 are given only for patterns that need an argument,
       e.g. neighbor:2::recvs_all_src:2,linear. Any pattern except ptrnvsptrn can be used.";

const NEIGHBOR_REQUIREMENT: &str = "an integer argument greater than 0";
const NEIGHBOR_RANGE_REQUIREMENT: &str = "an integer argument between 1 and 2147483646";
const RECVS_REQUIREMENT: &str = "an argument of the form R[,c1[,c2]][,rand|linear] with an \
integer R between 1 and 2147483646 and chances c1, c2 between 0 and 1";
const PTRNVSPTRN_REQUIREMENT: &str = "an argument of the form p1[:arg1]::p2[:arg2] \
(pattern names and arguments without blanks or colons)";

/// Parses a whole string of ASCII digits as a positive integer accepted by ORCS's `strtoi`.
fn parse_int_arg(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = s.trim_start_matches('0');
    if digits.len() > 10 {
        return None;
    }
    let v: u64 = if digits.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    if v > MAX_INT_ARG {
        return None;
    }
    u32::try_from(v).ok()
}

/// Matches ORCS's chance syntax `[-+]?[0-9]*\.?[0-9]+` (whole string).
fn is_orcs_float(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (int_part, frac_part) = match body.split_once('.') {
        Some((i, f)) => (i, f),
        None => ("", body),
    };
    !frac_part.is_empty()
        && int_part.bytes().all(|b| b.is_ascii_digit())
        && frac_part.bytes().all(|b| b.is_ascii_digit())
}

impl Pattern {
    /// Build from the pattern name and optional -a argument (ptrnvsptrn:
    /// `"p1[:arg1]::p2[:arg2]"` syntax of §5.7; recvs: `"R[,c1[,c2]][,rand|linear]"` of
    /// §5.6; neighbor: integer ≥ 1). Errors: missing argument for a pattern that needs one,
    /// an argument given to a pattern that takes none (orcs rejects it), malformed
    /// arguments, nested ptrnvsptrn, unknown names.
    ///
    /// The name is resolved by [`PatternKind::parse_name`] (prefixes and v1 aliases; an
    /// alias takes no argument). The argument `help` yields
    /// [`WorkloadError::HelpRequested`]; arguments longer than 256 characters (1025 for
    /// `ptrnvsptrn`) are rejected as in ORCS. The two names inside a `ptrnvsptrn` argument
    /// follow the same rules as `-p` values.
    pub fn parse(name: &str, arg: Option<&str>) -> Result<Pattern, WorkloadError> {
        Self::parse_inner(name, arg, false)
    }

    /// [`Pattern::parse`], with `nested` set for the parts of a `ptrnvsptrn` argument.
    fn parse_inner(name: &str, arg: Option<&str>, nested: bool) -> Result<Pattern, WorkloadError> {
        let (kind, implied_k) = PatternKind::parse_name(name)?;
        if let Some(k) = implied_k {
            return match arg {
                Some(a) => Err(WorkloadError::UnexpectedArgument {
                    pattern: name.to_string(),
                    arg: a.to_string(),
                }),
                None => Ok(Pattern::Neighbor { k }),
            };
        }
        if nested && kind == PatternKind::PtrnVsPtrn {
            return Err(WorkloadError::NestedPtrnVsPtrn {
                arg: arg.unwrap_or("").to_string(),
            });
        }
        if let Some(a) = arg {
            let max = if kind == PatternKind::PtrnVsPtrn {
                MAX_PTRNVSPTRN_ARG_LEN
            } else {
                MAX_ARG_LEN
            };
            if a.len() > max {
                return Err(WorkloadError::ArgumentTooLong {
                    pattern: kind.name(),
                    len: a.len(),
                    max,
                });
            }
            if a == "help" {
                return Err(WorkloadError::HelpRequested {
                    pattern: kind.name(),
                    usage: kind.usage(),
                });
            }
        }
        let Some(a) = arg else {
            return match kind {
                PatternKind::Null => Ok(Pattern::Null),
                PatternKind::Bisect => Ok(Pattern::Bisect),
                PatternKind::BisectFbSym => Ok(Pattern::BisectFbSym),
                PatternKind::Rand => Ok(Pattern::Rand),
                PatternKind::Tree => Ok(Pattern::Tree),
                PatternKind::Bruck => Ok(Pattern::Bruck),
                PatternKind::Recdbl => Ok(Pattern::Recdbl),
                PatternKind::Ring => Ok(Pattern::Ring),
                PatternKind::Gather => Ok(Pattern::Gather),
                PatternKind::Scatter => Ok(Pattern::Scatter),
                PatternKind::Neighbor2d => Ok(Pattern::Neighbor2d),
                PatternKind::Neighbor
                | PatternKind::RecvsOneSrc
                | PatternKind::RecvsAllSrc
                | PatternKind::PtrnVsPtrn => Err(WorkloadError::MissingArgument {
                    pattern: kind.name(),
                    usage: kind.usage(),
                }),
            };
        };
        match kind {
            PatternKind::Neighbor => parse_neighbor_arg(a).map(|k| Pattern::Neighbor { k }),
            PatternKind::RecvsOneSrc => RecvsArgs::parse(a, kind.name()).map(Pattern::RecvsOneSrc),
            PatternKind::RecvsAllSrc => RecvsArgs::parse(a, kind.name()).map(Pattern::RecvsAllSrc),
            PatternKind::PtrnVsPtrn => parse_ptrnvsptrn_arg(a),
            _ => Err(WorkloadError::UnexpectedArgument {
                pattern: kind.name().to_string(),
                arg: a.to_string(),
            }),
        }
    }
}

/// Parses the `neighbor` argument: a whole string of decimal digits with value ≥ 1.
fn parse_neighbor_arg(a: &str) -> Result<u32, WorkloadError> {
    let invalid = |requirement| WorkloadError::InvalidArgument {
        pattern: "neighbor",
        requirement,
        arg: a.to_string(),
    };
    if a.is_empty() || !a.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid(NEIGHBOR_REQUIREMENT));
    }
    match parse_int_arg(a) {
        Some(0) => Err(invalid(NEIGHBOR_REQUIREMENT)),
        Some(k) => Ok(k),
        None => Err(invalid(NEIGHBOR_RANGE_REQUIREMENT)),
    }
}

/// Parses the `ptrnvsptrn` argument `p1[:arg1]::p2[:arg2]` (ORCS's regular expression
/// `^([^:[:blank:]]+)(:([^:[:blank:]]+))?::([^:[:blank:]]+)(:([^:[:blank:]]+))?$`).
fn parse_ptrnvsptrn_arg(a: &str) -> Result<Pattern, WorkloadError> {
    let invalid = || WorkloadError::InvalidArgument {
        pattern: "ptrnvsptrn",
        requirement: PTRNVSPTRN_REQUIREMENT,
        arg: a.to_string(),
    };
    if a.contains([' ', '\t']) {
        return Err(invalid());
    }
    let pieces: Vec<&str> = a.split(':').collect();
    // An empty name or argument (`a:::b`) matches an arm here and is refused below.
    let (p1, a1, p2, a2) = match pieces.as_slice() {
        [p1, "", p2] => (*p1, None, *p2, None),
        [p1, x, "", p2] => (*p1, Some(*x), *p2, None),
        [p1, "", p2, x] => (*p1, None, *p2, Some(*x)),
        [p1, x1, "", p2, x2] => (*p1, Some(*x1), *p2, Some(*x2)),
        _ => return Err(invalid()),
    };
    if p1.is_empty() || p2.is_empty() || a1 == Some("") || a2 == Some("") {
        return Err(invalid());
    }
    // Unknown names are reported together, as ORCS does.
    let unknown: Vec<String> = [p1, p2]
        .iter()
        .filter(|name| {
            matches!(
                PatternKind::parse_name(name),
                Err(WorkloadError::UnknownPattern { .. })
            )
        })
        .map(|name| name.to_string())
        .collect();
    if !unknown.is_empty() {
        return Err(WorkloadError::UnknownSubPattern {
            arg: a.to_string(),
            names: unknown,
            available: available_names(true),
        });
    }
    for name in [p1, p2] {
        if let Ok((PatternKind::PtrnVsPtrn, _)) = PatternKind::parse_name(name) {
            return Err(WorkloadError::NestedPtrnVsPtrn { arg: a.to_string() });
        }
    }
    let first = Pattern::parse_inner(p1, a1, true)?;
    let second = Pattern::parse_inner(p2, a2, true)?;
    Ok(Pattern::ptrnvsptrn(first, second))
}

#[cfg(test)]
mod tests {
    use super::super::tests::*;
    use super::super::*;
    use super::*;

    // ----- parsing -----

    #[test]
    fn parse_names_prefixes_aliases() {
        for &k in PatternKind::ALL {
            assert_eq!(PatternKind::parse_name(k.name()).unwrap(), (k, None));
            assert_eq!(k.to_string(), k.name());
        }
        assert_eq!(PatternKind::ALL.len(), 15);
        let names: Vec<&str> = PatternKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(
            names,
            [
                "rand",
                "null",
                "bisect",
                "bisect_fb_sym",
                "tree",
                "bruck",
                "gather",
                "scatter",
                "ring",
                "recdbl",
                "neighbor",
                "neighbor2d",
                "recvs_one_src",
                "recvs_all_src",
                "ptrnvsptrn"
            ]
        );
        let pn = PatternKind::parse_name;
        assert_eq!(pn("bisect").unwrap(), (PatternKind::Bisect, None));
        assert_eq!(pn("bisect_").unwrap(), (PatternKind::BisectFbSym, None));
        assert_eq!(pn("br").unwrap(), (PatternKind::Bruck, None));
        assert_eq!(pn("ptrn").unwrap(), (PatternKind::PtrnVsPtrn, None));
        assert_eq!(pn("recvs_o").unwrap(), (PatternKind::RecvsOneSrc, None));
        assert_eq!(pn("neigh").unwrap(), (PatternKind::Neighbor, None));
        assert_eq!(pn("neighbor2").unwrap(), (PatternKind::Neighbor2d, None));
        assert_eq!(pn("neighbor2d").unwrap(), (PatternKind::Neighbor2d, None));
        assert_eq!(pn("2neighbor").unwrap(), (PatternKind::Neighbor, Some(2)));
        assert_eq!(pn("4neighbor").unwrap(), (PatternKind::Neighbor, Some(4)));
        assert_eq!(pn("6neighbor").unwrap(), (PatternKind::Neighbor, Some(6)));
        match pn("bis") {
            Err(WorkloadError::AmbiguousPattern { name, candidates }) => {
                assert_eq!(name, "bis");
                assert_eq!(candidates, vec!["bisect", "bisect_fb_sym"]);
            }
            other => panic!("{other:?}"),
        }
        let e = pn("r").unwrap_err().to_string();
        assert!(
            e.contains("rand") && e.contains("ring") && e.contains("recvs_all_src"),
            "{e}"
        );
        assert!(matches!(
            pn("recvs_"),
            Err(WorkloadError::AmbiguousPattern { .. })
        ));
        assert!(matches!(
            pn("xx"),
            Err(WorkloadError::UnknownPattern { .. })
        ));
        assert!(matches!(pn(""), Err(WorkloadError::UnknownPattern { .. })));
        assert!(matches!(
            pn("Bisect"),
            Err(WorkloadError::UnknownPattern { .. })
        ));
        assert!(matches!(
            pn("bisectx"),
            Err(WorkloadError::UnknownPattern { .. })
        ));
        assert!(pn("xx")
            .unwrap_err()
            .to_string()
            .contains("available patterns: rand, null"));
        let Err(WorkloadError::UnknownPattern { available, .. }) = pn("xx") else {
            panic!("xx is no pattern");
        };
        assert_eq!(available, names.join(", "));
        assert!(PatternKind::Neighbor.takes_arg());
        assert!(PatternKind::PtrnVsPtrn.takes_arg());
        assert!(PatternKind::RecvsAllSrc.takes_arg());
        assert!(!PatternKind::Bisect.takes_arg());
        assert!(!PatternKind::Neighbor2d.takes_arg());
    }

    #[test]
    fn parse_arguments() {
        assert_eq!(p("neighbor", Some("2")), Pattern::Neighbor { k: 2 });
        assert_eq!(p("neighbor", Some("007")), Pattern::Neighbor { k: 7 });
        assert_eq!(p("2neighbor", None), Pattern::Neighbor { k: 2 });
        assert_eq!(p("bisect", None).kind(), PatternKind::Bisect);
        let err = Pattern::parse("neighbor", Some("x")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "pattern 'neighbor' requires an integer argument greater than 0 (-a/--ptrnarg), got 'x'"
        );
        for bad in [
            "0",
            "-1",
            "+2",
            " 2",
            "2 ",
            "1.5",
            "",
            "2147483647",
            "99999999999999999999",
        ] {
            assert!(
                matches!(
                    Pattern::parse("neighbor", Some(bad)),
                    Err(WorkloadError::InvalidArgument {
                        pattern: "neighbor",
                        ..
                    })
                ),
                "{bad:?}"
            );
        }
        assert_eq!(
            p("neighbor", Some("2147483646")),
            Pattern::Neighbor { k: 2_147_483_646 }
        );
        // Missing and unexpected arguments.
        for name in ["neighbor", "recvs_one_src", "recvs_all_src", "ptrnvsptrn"] {
            assert!(matches!(
                Pattern::parse(name, None),
                Err(WorkloadError::MissingArgument { .. })
            ));
        }
        assert!(Pattern::parse("neighbor", None)
            .unwrap_err()
            .to_string()
            .contains("requires an integer ptrnarg that is greater than 0"));
        for name in ["bisect", "rand", "null", "tree", "neighbor2d", "bruck"] {
            assert_eq!(
                Pattern::parse(name, Some("3")).unwrap_err(),
                WorkloadError::UnexpectedArgument {
                    pattern: name.to_string(),
                    arg: "3".to_string()
                }
            );
        }
        assert!(matches!(
            Pattern::parse("2neighbor", Some("3")),
            Err(WorkloadError::UnexpectedArgument { .. })
        ));
        // Help.
        assert_eq!(
            Pattern::parse("neighbor", Some("help")).unwrap_err(),
            WorkloadError::HelpRequested {
                pattern: "neighbor",
                usage: NEIGHBOR_USAGE
            }
        );
        assert_eq!(
            Pattern::parse("bisect", Some("help")).unwrap_err(),
            WorkloadError::HelpRequested {
                pattern: "bisect",
                usage: ""
            }
        );
        // Every pattern that needs an argument explains its own, and only those do.
        for &k in PatternKind::ALL {
            let Err(WorkloadError::HelpRequested { pattern, usage }) =
                Pattern::parse(k.name(), Some("help"))
            else {
                panic!("{k}: -a help is not a help request");
            };
            assert_eq!(pattern, k.name());
            if k.takes_arg() {
                let opening = format!("Pattern '{}' requires", k.name());
                assert!(usage.starts_with(&opening), "{k}: {usage}");
            } else {
                assert_eq!(usage, "", "{k}");
            }
        }
        // Length limits.
        let long = "1".repeat(257);
        assert!(matches!(
            Pattern::parse("neighbor", Some(&long)),
            Err(WorkloadError::ArgumentTooLong { max: 256, .. })
        ));
        assert!(matches!(
            Pattern::parse("ptrnvsptrn", Some(&"x".repeat(1026))),
            Err(WorkloadError::ArgumentTooLong { max: 1025, .. })
        ));
        // At the limits themselves the arguments are read.
        let padded = format!("{}2", "0".repeat(255));
        assert_eq!(p("neighbor", Some(&padded)), Pattern::Neighbor { k: 2 });
        assert!(matches!(
            Pattern::parse("ptrnvsptrn", Some(&"x".repeat(1025))),
            Err(WorkloadError::InvalidArgument { .. })
        ));
    }

    #[test]
    fn parse_recvs_arguments() {
        let r = |a: &str| match p("recvs_all_src", Some(a)) {
            Pattern::RecvsAllSrc(x) => x,
            other => panic!("{other:?}"),
        };
        let args = |receivers, c1, c2, linear| RecvsArgs {
            receivers,
            c1,
            c2,
            linear,
        };
        assert_eq!(r("3"), args(3, 1.0, 0.0, false));
        assert_eq!(r("3,linear"), args(3, 1.0, 0.0, true));
        assert_eq!(r("3,rand"), args(3, 1.0, 0.0, false));
        assert_eq!(r("3,0.5"), args(3, 0.5, 0.0, false));
        assert_eq!(r("3,.5,0.25,linear"), args(3, 0.5, 0.25, true));
        assert_eq!(r("3,+1,0"), args(3, 1.0, 0.0, false));
        assert_eq!(r("03,1.0"), args(3, 1.0, 0.0, false));
        for bad in [
            "",
            "0",
            "x",
            "3,",
            ",3",
            "3,1.5",
            "3,-0.5",
            "3,0.5,0.5,0.5",
            "3,linear,0.5",
            "3,rand,linear",
            "3,1.",
            "3,1e-1",
            "3,0.5,,linear",
            "3 ,linear",
            "-3",
            "+3",
            "+3,linear",
            "3,LINEAR",
            "3,nan",
            "3,inf",
        ] {
            assert!(
                matches!(
                    Pattern::parse("recvs_one_src", Some(bad)),
                    Err(WorkloadError::InvalidArgument {
                        pattern: "recvs_one_src",
                        ..
                    })
                ),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn parse_ptrnvsptrn_arguments() {
        let pv = |a| Pattern::parse("ptrnvsptrn", Some(a));
        assert_eq!(
            pv("bisect::bruck").unwrap(),
            Pattern::ptrnvsptrn(Pattern::Bisect, Pattern::Bruck)
        );
        assert_eq!(
            pv("neighbor:2::recvs_all_src:2,linear").unwrap(),
            Pattern::ptrnvsptrn(
                Pattern::Neighbor { k: 2 },
                Pattern::RecvsAllSrc(RecvsArgs {
                    receivers: 2,
                    c1: 1.0,
                    c2: 0.0,
                    linear: true
                })
            )
        );
        assert_eq!(
            pv("bisect::neighbor:3").unwrap(),
            Pattern::ptrnvsptrn(Pattern::Bisect, Pattern::Neighbor { k: 3 })
        );
        assert_eq!(
            pv("neighbor:3::tree").unwrap(),
            Pattern::ptrnvsptrn(Pattern::Neighbor { k: 3 }, Pattern::Tree)
        );
        assert_eq!(
            pv("4neighbor::bis").unwrap_err(),
            WorkloadError::AmbiguousPattern {
                name: "bis".into(),
                candidates: vec!["bisect", "bisect_fb_sym"]
            }
        );
        assert_eq!(
            pv("4neighbor::bisect_").unwrap(),
            Pattern::ptrnvsptrn(Pattern::Neighbor { k: 4 }, Pattern::BisectFbSym)
        );
        for bad in [
            "bisect",
            "bisect:bruck",
            "bisect:::bruck",
            "::bruck",
            "bisect::",
            "bisect ::bruck",
            "bisect::br uck",
            "a:b:c::d",
            "bisect::bruck:",
            ":bisect::bruck",
            "bisect:\t::bruck",
            "",
        ] {
            assert!(
                matches!(
                    pv(bad),
                    Err(WorkloadError::InvalidArgument {
                        pattern: "ptrnvsptrn",
                        ..
                    })
                ),
                "{bad:?}: {:?}",
                pv(bad)
            );
        }
        assert!(matches!(
            pv("ptrnvsptrn::bisect"),
            Err(WorkloadError::NestedPtrnVsPtrn { .. })
        ));
        assert!(matches!(
            pv("bisect::ptrn:a::b"),
            Err(WorkloadError::InvalidArgument { .. })
        ));
        assert!(matches!(
            pv("bisect::ptrnvs"),
            Err(WorkloadError::NestedPtrnVsPtrn { .. })
        ));
        match pv("foo::bar") {
            Err(WorkloadError::UnknownSubPattern {
                names, available, ..
            }) => {
                assert_eq!(names, vec!["foo", "bar"]);
                assert_eq!(
                    available,
                    "rand, null, bisect, bisect_fb_sym, tree, bruck, gather, scatter, ring, \
                     recdbl, neighbor, neighbor2d, recvs_one_src, recvs_all_src"
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(pv("foo::bar")
            .unwrap_err()
            .to_string()
            .contains("unknown patterns"));
        assert!(matches!(
            pv("neighbor::bisect"),
            Err(WorkloadError::MissingArgument { .. })
        ));
        assert!(matches!(
            pv("bisect:3::bruck"),
            Err(WorkloadError::UnexpectedArgument { .. })
        ));
        assert!(matches!(
            pv("neighbor:x::bruck"),
            Err(WorkloadError::InvalidArgument {
                pattern: "neighbor",
                ..
            })
        ));
        assert!(matches!(
            pv("bruck::recvs_one_src:0"),
            Err(WorkloadError::InvalidArgument { .. })
        ));
        assert!(matches!(
            pv("neighbor:help::bruck"),
            Err(WorkloadError::HelpRequested {
                pattern: "neighbor",
                ..
            })
        ));
        assert!(matches!(
            Pattern::try_ptrnvsptrn(
                Pattern::ptrnvsptrn(Pattern::Bisect, Pattern::Tree),
                Pattern::Tree
            ),
            Err(WorkloadError::NestedPtrnVsPtrn { .. })
        ));
        assert!(Pattern::try_ptrnvsptrn(Pattern::Bisect, Pattern::Tree).is_ok());
    }
}
