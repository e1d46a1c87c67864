//! Dragonflies: groups of routers joined all-to-all inside a group, one global cable
//! between every two groups, arranged in one of the [`GlobalArrangement`]s.

use super::builder::Builder;
use super::{bad, FabricSize, GenError};
use crate::gen::{Generated, Structure};
use std::fmt;
use std::str::FromStr;

/// How a dragonfly's global links are arranged.
///
/// Each of the `g = a·h + 1` groups has `a·h` global ports, numbered `gp = r·h + k` for
/// the `k`-th global port of router `r`; every pair of groups is joined by exactly one
/// global cable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GlobalArrangement {
    /// Also called "consecutive": global port `gp` of group `G` leads to group `gp` if
    /// `gp < G`, else `gp + 1` (the other groups in increasing order).
    Absolute,
    /// Global port `gp` of group `G` leads to group `(G + gp + 1) mod g`; it arrives at
    /// global port `g - 2 - gp` there.
    Relative,
    /// Global ports pair up around the circle: even `gp` leads to group
    /// `(G + gp/2 + 1) mod g` and arrives at its port `gp + 1`; odd `gp` leads to group
    /// `(G - (gp-1)/2 - 1) mod g` and arrives at its port `gp - 1`. Needs `a·h` even.
    Circulant,
}

impl GlobalArrangement {
    /// The name [`generate`](super::generate) uses (`absolute`, `relative`, `circulant`).
    pub fn name(self) -> &'static str {
        match self {
            GlobalArrangement::Absolute => "absolute",
            GlobalArrangement::Relative => "relative",
            GlobalArrangement::Circulant => "circulant",
        }
    }

    /// Group and global port at the far end of global port `gp` of group `group`, with
    /// `groups` groups.
    fn peer(self, group: u32, gp: u32, groups: u32) -> (u32, u32) {
        match self {
            GlobalArrangement::Absolute => {
                let t = if gp < group { gp } else { gp + 1 };
                (t, if group < t { group } else { group - 1 })
            }
            GlobalArrangement::Relative => {
                let t = (group + gp + 1) % groups;
                (t, (group + groups - t - 1) % groups)
            }
            GlobalArrangement::Circulant => {
                let o = gp / 2 + 1;
                if gp % 2 == 0 {
                    ((group + o) % groups, gp + 1)
                } else {
                    ((group + groups - o) % groups, gp - 1)
                }
            }
        }
    }
}

impl fmt::Display for GlobalArrangement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for GlobalArrangement {
    type Err = GenError;

    /// Accepts `absolute` (or `consecutive`), `relative` and `circulant`; anything else is
    /// a [`GenError::UnknownArrangement`].
    fn from_str(s: &str) -> Result<Self, GenError> {
        match s {
            "absolute" | "consecutive" => Ok(GlobalArrangement::Absolute),
            "relative" => Ok(GlobalArrangement::Relative),
            "circulant" => Ok(GlobalArrangement::Circulant),
            _ => Err(GenError::UnknownArrangement {
                name: s.to_string(),
            }),
        }
    }
}

/// A canonical dragonfly (Kim et al. 2008): `g = a·h + 1` groups of `a` routers, each
/// router with `p` hosts, links to the `a - 1` other routers of its group, and `h`
/// global links; `a, p, h ≥ 1`.
///
/// Router `r` of group `G` is `R<G>_<r>` (node order: hosts, then routers by
/// `G·a + r`); host `x` is on router `x div p`, port `x mod p + 1`. Router `r` reaches
/// router `r'` of its group through port `p + 1 + (r' if r' < r else r' - 1)`, and its
/// `k`-th global link is port `p + a + k` (global port `gp = r·h + k` of the group,
/// connected as `arrangement` says). Every pair of groups is joined by exactly one
/// cable. O(nodes + edges).
pub fn dragonfly(
    a: u32,
    p: u32,
    h: u32,
    arrangement: GlobalArrangement,
) -> Result<Generated, GenError> {
    let size = dragonfly_size(a, p, h, arrangement)?;
    let groups = a as u128 * h as u128 + 1;
    let routers = size.switches;
    let hosts = size.hosts;
    let local = routers * (a as u128 - 1) / 2;
    let global = groups * (groups - 1) / 2;
    let (groups, routers, hosts) = (groups as u32, routers as u32, hosts as u32);
    let mut b = Builder::new(
        (routers + hosts) as usize,
        (hosts as u128 + local + global) as usize,
    );
    b.hosts(hosts);
    let first = b.next_node();
    let mut group_of = Vec::with_capacity((routers + hosts) as usize);
    for x in 0..hosts {
        group_of.push(x / p / a);
    }
    for gr in 0..groups {
        for r in 0..a {
            b.switch(format!("R{gr}_{r}"));
            group_of.push(gr);
        }
    }
    for x in 0..hosts {
        b.cable(x, 1, first + x / p, x % p + 1);
    }
    wire_groups(&mut b, first, (a, p, h), groups, arrangement);
    Ok(Generated {
        fabric: b.finish(),
        structure: Structure::Dragonfly {
            routers_per_group: a,
            hosts_per_router: p,
            global_links: h,
            group: group_of,
        },
        description: format!(
            "dragonfly:a={a},p={p},h={h},arrangement={arrangement} (dragonfly: {groups} groups \
             of {a} routers, {hosts} hosts, {arrangement} global links)"
        ),
    })
}

/// Cables the routers of every group (nodes from `first` on, group by group): all-to-all
/// inside the group, then the group's global ports as `arrangement` says, each global
/// cable once (from its lower group). Ports as [`dragonfly`] documents them.
fn wire_groups(
    b: &mut Builder,
    first: u32,
    (a, p, h): (u32, u32, u32),
    groups: u32,
    arrangement: GlobalArrangement,
) {
    let local_port = |own: u32, other: u32| p + 1 + if other < own { other } else { other - 1 };
    for gr in 0..groups {
        for r in 0..a {
            for r2 in r + 1..a {
                b.cable(
                    first + gr * a + r,
                    local_port(r, r2),
                    first + gr * a + r2,
                    local_port(r2, r),
                );
            }
        }
        for gp in 0..a * h {
            let (t, tp) = arrangement.peer(gr, gp, groups);
            if gr < t {
                b.cable(
                    first + gr * a + gp / h,
                    p + a + gp % h,
                    first + t * a + tp / h,
                    p + a + tp % h,
                );
            }
        }
    }
}

/// The size of [`dragonfly`] with these parameters, or why it cannot be built.
pub(super) fn dragonfly_size(
    a: u32,
    p: u32,
    h: u32,
    arrangement: GlobalArrangement,
) -> Result<FabricSize, GenError> {
    const G: &str = "dragonfly";
    for (name, v) in [("a", a), ("p", p), ("h", h)] {
        if v == 0 {
            return Err(bad(G, name, v, &format!("{name} must be at least 1")));
        }
    }
    let groups = a as u128 * h as u128 + 1;
    if arrangement == GlobalArrangement::Circulant && (groups - 1) % 2 != 0 {
        return Err(bad(
            G,
            "arrangement",
            "circulant",
            &format!(
                "the circulant arrangement needs a·h even (a·h = {})",
                groups - 1
            ),
        ));
    }
    let routers = groups.saturating_mul(a as u128);
    let hosts = routers.saturating_mul(p as u128);
    let local = routers.saturating_mul(a as u128 - 1) / 2;
    let global = groups.saturating_mul(groups - 1) / 2;
    let ports = p as u128 + a as u128 - 1 + h as u128;
    FabricSize {
        hosts,
        switches: routers,
        cables: hosts.saturating_add(local).saturating_add(global),
        max_ports: ports,
    }
    .check(G)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrangements_are_involutions() {
        for arr in [
            GlobalArrangement::Absolute,
            GlobalArrangement::Relative,
            GlobalArrangement::Circulant,
        ] {
            let groups = 9; // a·h = 8
            for g in 0..groups {
                let mut seen = vec![false; groups as usize];
                for gp in 0..groups - 1 {
                    let (t, tp) = arr.peer(g, gp, groups);
                    assert_ne!(t, g, "{arr}: group {g} port {gp} loops");
                    assert!(!seen[t as usize], "{arr}: group {g} reaches {t} twice");
                    seen[t as usize] = true;
                    assert_eq!(arr.peer(t, tp, groups), (g, gp), "{arr}: {g}/{gp}");
                }
            }
        }
    }
}
