//! Generator specs (`NAME:KEY=VALUE,...`, as `orcs gen` takes them): the accepted names
//! and keys, their parsing, and the dispatch to the generators.

use super::dragonfly::dragonfly_size;
use super::fat_tree::{kary_ntree_size, slimmed_two_level_size, xgft_size};
use super::grid::{grid_size, hypercube_size, hyperx_size};
use super::jellyfish::jellyfish_size;
use super::{
    dragonfly, grid, hypercube, hyperx, jellyfish, kary_ntree, slimmed_two_level, xgft, FabricSize,
    GenError, GlobalArrangement,
};
use crate::gen::Generated;
use std::str::FromStr;

/// The generators [`generate`] knows, with their parameters.
const SPECS: &[(&str, &str)] = &[
    ("kary-ntree", "k=K,n=N"),
    ("xgft", "m=M1xM2x...,w=W1xW2x..."),
    ("slimmed", "leaf_hosts=H,leaves=L,uplinks=U[,spines=S]"),
    ("mesh", "dims=D1xD2x...[,hosts=H]"),
    ("torus", "dims=D1xD2x...[,hosts=H]"),
    ("hypercube", "d=D[,hosts=H]"),
    ("hyperx", "dims=D1xD2x...[,hosts=H]"),
    (
        "dragonfly",
        "a=A,p=P,h=H[,arrangement=absolute|relative|circulant]",
    ),
    ("jellyfish", "switches=S,ports=P,hosts=H[,seed=N]"),
];

/// Parameters of one spec: key → list items, in order of appearance.
struct Params<'a> {
    spec: &'a str,
    generator: &'static str,
    entries: Vec<(String, Vec<String>)>,
}

impl Params<'_> {
    fn error(&self, message: String) -> GenError {
        GenError::Spec {
            spec: self.spec.to_string(),
            message,
        }
    }

    /// Fails on keys outside `required` and `optional`, and on missing required keys.
    fn expect(&self, required: &[&str], optional: &[&str]) -> Result<(), GenError> {
        let usage = SPECS
            .iter()
            .find(|(n, _)| *n == self.generator)
            .map_or("", |(_, u)| *u);
        for (key, _) in &self.entries {
            if !required.contains(&key.as_str()) && !optional.contains(&key.as_str()) {
                let mut all: Vec<&str> = required.to_vec();
                all.extend_from_slice(optional);
                return Err(self.error(format!(
                    "{} has no parameter {key:?}; accepted: {} (usage: {}:{usage})",
                    self.generator,
                    all.join(", "),
                    self.generator
                )));
            }
        }
        for key in required {
            if !self.entries.iter().any(|(k, _)| k == key) {
                return Err(self.error(format!(
                    "{} needs the parameter {key} (usage: {}:{usage})",
                    self.generator, self.generator
                )));
            }
        }
        Ok(())
    }

    fn items(&self, key: &str) -> Option<&[String]> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_slice())
    }

    fn text(&self, key: &str) -> Result<Option<&str>, GenError> {
        match self.items(key) {
            None => Ok(None),
            Some([one]) => Ok(Some(one.as_str())),
            Some(_) => Err(self.error(format!("{key} takes a single value"))),
        }
    }

    fn number<T: FromStr>(&self, key: &str, item: &str) -> Result<T, GenError> {
        item.parse::<T>().map_err(|_| {
            self.error(format!(
                "{key} = {item:?} is not a non-negative integer in range"
            ))
        })
    }

    fn u32(&self, key: &str, default: Option<u32>) -> Result<u32, GenError> {
        match (self.text(key)?, default) {
            (Some(v), _) => self.number(key, v),
            (None, Some(d)) => Ok(d),
            (None, None) => Err(self.error(format!("{key} is missing"))),
        }
    }

    fn u64(&self, key: &str, default: u64) -> Result<u64, GenError> {
        match self.text(key)? {
            Some(v) => self.number(key, v),
            None => Ok(default),
        }
    }

    fn list(&self, key: &str) -> Result<Vec<u32>, GenError> {
        let items = self
            .items(key)
            .ok_or_else(|| self.error(format!("{key} is missing")))?;
        items.iter().map(|i| self.number(key, i)).collect()
    }
}

/// Builds a fabric from a generator spec, the way `orcs gen` takes it.
///
/// # Syntax
///
/// `NAME:KEY=VALUE,KEY=VALUE,...` — parameters are separated by `,` or `;`, white space
/// around names, keys and values is ignored, and a generator name may use `_` for `-`.
/// A list value separates its items by `x` (`dims=4x4x4`); an item without `=` after a
/// list continues it, so `m=4,4;w=1,4` is the same as `m=4x4,w=1x4`. Numbers are
/// decimal. Keys in brackets are optional (defaults after the table):
///
/// | spec | fabric |
/// |---|---|
/// | `kary-ntree:k=K,n=N` | [`kary_ntree`]: K-ary N-tree |
/// | `xgft:m=M1xM2x...,w=W1xW2x...` | [`xgft`]: XGFT(h; M1..Mh; W1..Wh), W1 = 1 |
/// | `slimmed:leaf_hosts=H,leaves=L,uplinks=U[,spines=S]` | [`slimmed_two_level`] |
/// | `mesh:dims=D1xD2x...[,hosts=H]` | [`grid`](fn@grid) without wraparound |
/// | `torus:dims=D1xD2x...[,hosts=H]` | [`grid`](fn@grid) with wraparound |
/// | `hypercube:d=D[,hosts=H]` | [`hypercube`] of dimension D |
/// | `hyperx:dims=D1xD2x...[,hosts=H]` | [`hyperx`] |
/// | `dragonfly:a=A,p=P,h=H[,arrangement=ARR]` | [`dragonfly`](fn@dragonfly); ARR = `absolute` (alias `consecutive`), `relative` or `circulant` |
/// | `jellyfish:switches=S,ports=P,hosts=H[,seed=N]` | [`jellyfish`](fn@jellyfish) |
///
/// Defaults: `hosts=1` (hosts per switch) for mesh, torus, hypercube and HyperX;
/// `spines=U` (one cable from each leaf to each spine); `arrangement=absolute`;
/// `seed=0`.
///
/// Examples: `kary-ntree:k=4,n=2`, `xgft:m=4,4;w=1,4`, `torus:dims=4x4x4,hosts=1`,
/// `hypercube:d=6`, `hyperx:dims=4x4`, `dragonfly:a=4,p=2,h=2,arrangement=relative`,
/// `jellyfish:switches=32,ports=8,hosts=4,seed=1`,
/// `slimmed:leaf_hosts=16,leaves=8,uplinks=4,spines=4`.
///
/// Every [`Generated::description`] starts with the canonical spec of the fabric (up to
/// the first space), which this function accepts and turns into the same fabric.
/// Unknown names and keys, missing or repeated keys and malformed numbers give a
/// [`GenError::Spec`] that lists what is accepted; parameter values out of range give the
/// generator's [`GenError::Parameter`].
pub fn generate(spec: &str) -> Result<Generated, GenError> {
    Params::parse(spec)?.recipe()?.build()
}

/// The size of the fabric [`generate`] builds from `spec`, without building it: the
/// same errors for a bad spec or parameter, or one beyond the size limits. O(levels or
/// dimensions).
pub fn size_of(spec: &str) -> Result<FabricSize, GenError> {
    Params::parse(spec)?.recipe()?.size()
}

/// A generator with its parameters read from a spec.
enum Recipe {
    KaryNtree(u32, u32),
    Xgft(Vec<u32>, Vec<u32>),
    Slimmed(u32, u32, u32, u32),
    Grid(Vec<u32>, bool, u32),
    Hypercube(u32, u32),
    HyperX(Vec<u32>, u32),
    Dragonfly(u32, u32, u32, GlobalArrangement),
    Jellyfish(u32, u32, u32, u64),
}

impl Recipe {
    /// The fabric.
    fn build(&self) -> Result<Generated, GenError> {
        match self {
            Recipe::KaryNtree(k, n) => kary_ntree(*k, *n),
            Recipe::Xgft(m, w) => xgft(m, w),
            Recipe::Slimmed(h, l, u, s) => slimmed_two_level(*h, *l, *u, *s),
            Recipe::Grid(dims, wrap, h) => grid(dims, *wrap, *h),
            Recipe::Hypercube(d, h) => hypercube(*d, *h),
            Recipe::HyperX(dims, h) => hyperx(dims, *h),
            Recipe::Dragonfly(a, p, h, arr) => dragonfly(*a, *p, *h, *arr),
            Recipe::Jellyfish(s, p, h, seed) => jellyfish(*s, *p, *h, *seed),
        }
    }

    /// The fabric's size, or the error [`Recipe::build`] would give before building.
    fn size(&self) -> Result<FabricSize, GenError> {
        match self {
            Recipe::KaryNtree(k, n) => kary_ntree_size(*k, *n),
            Recipe::Xgft(m, w) => xgft_size(m, w),
            Recipe::Slimmed(h, l, u, s) => slimmed_two_level_size(*h, *l, *u, *s),
            Recipe::Grid(dims, wrap, h) => grid_size(dims, *wrap, *h),
            Recipe::Hypercube(d, h) => hypercube_size(*d, *h),
            Recipe::HyperX(dims, h) => hyperx_size(dims, *h),
            Recipe::Dragonfly(a, p, h, arr) => dragonfly_size(*a, *p, *h, *arr),
            Recipe::Jellyfish(s, p, h, _) => jellyfish_size(*s, *p, *h),
        }
    }
}

/// Every generator spec [`generate`] accepts, for error messages.
fn accepted() -> String {
    SPECS
        .iter()
        .map(|(n, u)| format!("{n}:{u}"))
        .collect::<Vec<_>>()
        .join("; ")
}

impl<'a> Params<'a> {
    /// Splits `spec` into its generator and parameters (see [`generate`] for the syntax).
    fn parse(spec: &'a str) -> Result<Self, GenError> {
        let spec_error = |message: String| GenError::Spec {
            spec: spec.to_string(),
            message,
        };
        let (name, rest) = match spec.split_once(':') {
            Some((n, r)) => (n, Some(r)),
            None => (spec, None),
        };
        let name = name.trim().to_ascii_lowercase().replace('_', "-");
        let Some(&(generator, _)) = SPECS.iter().find(|(n, _)| *n == name) else {
            return Err(spec_error(format!(
                "unknown topology {name:?}; accepted: {}",
                accepted()
            )));
        };
        let mut entries: Vec<(String, Vec<String>)> = Vec::new();
        for token in rest.into_iter().flat_map(|r| r.split([',', ';'])) {
            let token = token.trim();
            if token.is_empty() {
                return Err(spec_error(
                    "empty parameter (two separators in a row?)".into(),
                ));
            }
            match token.split_once('=') {
                Some((key, value)) => {
                    let key = key.trim().to_string();
                    if entries.iter().any(|(k, _)| *k == key) {
                        return Err(spec_error(format!("{key} is given twice")));
                    }
                    let items: Vec<String> =
                        value.split('x').map(|s| s.trim().to_string()).collect();
                    entries.push((key, items));
                }
                None => match entries.last_mut() {
                    Some((_, items)) => {
                        items.extend(token.split('x').map(|s| s.trim().to_string()))
                    }
                    None => {
                        return Err(spec_error(format!(
                            "{token:?} has no key; write KEY=VALUE (usage: {})",
                            accepted()
                        )))
                    }
                },
            }
        }
        Ok(Params {
            spec,
            generator,
            entries,
        })
    }

    /// Checks the keys against the generator's and reads its parameters. One arm per row
    /// of [`SPECS`].
    fn recipe(&self) -> Result<Recipe, GenError> {
        Ok(match self.generator {
            "kary-ntree" => {
                self.expect(&["k", "n"], &[])?;
                Recipe::KaryNtree(self.u32("k", None)?, self.u32("n", None)?)
            }
            "xgft" => {
                self.expect(&["m", "w"], &[])?;
                Recipe::Xgft(self.list("m")?, self.list("w")?)
            }
            "slimmed" => {
                self.expect(&["leaf_hosts", "leaves", "uplinks"], &["spines"])?;
                let uplinks = self.u32("uplinks", None)?;
                Recipe::Slimmed(
                    self.u32("leaf_hosts", None)?,
                    self.u32("leaves", None)?,
                    uplinks,
                    self.u32("spines", Some(uplinks))?,
                )
            }
            "mesh" | "torus" => {
                self.expect(&["dims"], &["hosts"])?;
                Recipe::Grid(
                    self.list("dims")?,
                    self.generator == "torus",
                    self.u32("hosts", Some(1))?,
                )
            }
            "hypercube" => {
                self.expect(&["d"], &["hosts"])?;
                Recipe::Hypercube(self.u32("d", None)?, self.u32("hosts", Some(1))?)
            }
            "hyperx" => {
                self.expect(&["dims"], &["hosts"])?;
                Recipe::HyperX(self.list("dims")?, self.u32("hosts", Some(1))?)
            }
            "dragonfly" => {
                self.expect(&["a", "p", "h"], &["arrangement"])?;
                let arrangement = match self.text("arrangement")? {
                    None => GlobalArrangement::Absolute,
                    Some(s) => s.parse().map_err(|e: GenError| self.error(e.to_string()))?,
                };
                Recipe::Dragonfly(
                    self.u32("a", None)?,
                    self.u32("p", None)?,
                    self.u32("h", None)?,
                    arrangement,
                )
            }
            _ => {
                self.expect(&["switches", "ports", "hosts"], &["seed"])?;
                Recipe::Jellyfish(
                    self.u32("switches", None)?,
                    self.u32("ports", None)?,
                    self.u32("hosts", None)?,
                    self.u64("seed", 0)?,
                )
            }
        })
    }
}
