//! Step 2: every rank's table joined into the trace's communicators, each with its
//! members in world ranks.

use super::*;

/// Every communicator of a trace resolved to its members.
#[derive(Debug, Clone)]
pub struct Communicators {
    /// Members (world ranks, in communicator rank order) of each global communicator.
    members: Vec<Vec<u32>>,
    /// Per world rank: its local communicators' global ids (None for intercommunicators).
    local_to_global: Vec<Vec<Option<u32>>>,
}

impl Communicators {
    /// The world rank of rank `comm_rank` of communicator `comm` of world rank `rank`;
    /// None when out of range or `comm` is an intercommunicator.
    pub fn world_rank(&self, rank: u32, comm: LocalComm, comm_rank: i32) -> Option<u32> {
        let members = self.members(rank, comm)?;
        usize::try_from(comm_rank)
            .ok()
            .and_then(|r| members.get(r))
            .copied()
    }

    /// The members of `comm` of world rank `rank`, in communicator rank order.
    pub fn members(&self, rank: u32, comm: LocalComm) -> Option<&[u32]> {
        Some(&self.members[self.global(rank, comm)? as usize])
    }

    /// The trace-wide id (`0..len()`) of `comm` of world rank `rank`: the same for every
    /// member; None for an intercommunicator or a communicator the rank does not have.
    pub fn global(&self, rank: u32, comm: LocalComm) -> Option<u32> {
        *self
            .local_to_global
            .get(rank as usize)?
            .get(comm.0 as usize)?
    }

    /// The members of the communicator with trace-wide id `global`, in rank order.
    ///
    /// # Panics
    /// When `global` is not below [`Communicators::len`].
    pub fn members_of(&self, global: u32) -> &[u32] {
        &self.members[global as usize]
    }

    /// How many distinct communicators the trace has (intercommunicators left out).
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether there is none (never: a trace has its world).
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

/// What the trace knows of one global communicator while resolving.
#[derive(Debug)]
struct Global {
    members: Option<Vec<u32>>,
}

/// A family's identity: (global id of the parent communicator, how many communicator
/// calls its members made on it before).
type FamilyKey = (u32, u32);

/// A member of a new communicator while its order is decided: split key, rank in the
/// parent, world rank, the member's local communicator.
#[derive(Debug, Clone, Copy)]
struct Member {
    key: i64,
    pos: usize,
    rank: u32,
    local: u32,
}

/// One family: the calls of the members of a communicator making their `seq`-th
/// communicator on it.
#[derive(Debug, Default)]
struct Family {
    /// (world rank, index of the call in that rank's calls).
    calls: Vec<(u32, usize)>,
}

/// Joins every rank's table (`ranks[r]` is world rank `r`) into the trace's
/// communicators. Errors name the file and byte of the call that does not fit: members
/// that disagree on which call made a communicator, a split key list from ranks outside
/// the parent, a group that does not fit its communicator, or a communicator some
/// member never made.
pub fn resolve(ranks: &[RankComms]) -> Result<Communicators, LocatedError> {
    let size = ranks.len() as u32;
    let mut globals = vec![Global {
        members: Some((0..size).collect()),
    }];
    let mut local_to_global: Vec<Vec<Option<u32>>> =
        ranks.iter().map(|r| vec![None; r.comms.len()]).collect();
    for (rank, table) in ranks.iter().enumerate() {
        if table.rank != rank as u32 || table.size != size {
            return Err(LocatedError::new(
                &table.path,
                format!(
                    "rank {} of {} given as world rank {rank} of {size}",
                    table.rank, table.size
                ),
            ));
        }
        local_to_global[rank][0] = Some(0);
        local_to_global[rank][1] = Some(globals.len() as u32);
        globals.push(Global {
            members: Some(vec![rank as u32]),
        });
    }
    // Families by (global parent, seq), resolved parent first: a family's calls can only
    // be grouped once its parent's global id is known for every member, which holds in
    // creation order (each rank's table lists parents before children).
    let mut cursor = vec![0usize; ranks.len()];
    let mut families: FxHashMap<FamilyKey, Family> = FxHashMap::default();
    loop {
        let mut progress = false;
        for (rank, table) in ranks.iter().enumerate() {
            while let Some(call) = table.calls.get(cursor[rank]) {
                let Some(parent) = local_to_global[rank][call.parent as usize] else {
                    break;
                };
                families
                    .entry((parent, call.seq))
                    .or_default()
                    .calls
                    .push((rank as u32, cursor[rank]));
                cursor[rank] += 1;
                progress = true;
            }
        }
        let complete = complete_families(ranks, &globals, &mut families)?;
        for ((parent, _), family) in &complete {
            let made = resolve_family(ranks, &mut globals, &local_to_global, *parent, family)?;
            for (rank, local, global) in made {
                local_to_global[rank as usize][local as usize] = Some(global);
            }
            progress = true;
        }
        if !progress {
            break;
        }
    }
    if let Some((rank, call)) = ranks
        .iter()
        .enumerate()
        .find_map(|(rank, t)| t.calls.get(cursor[rank]).map(|c| (rank, c)))
    {
        return Err(LocatedError::at_byte(
            &ranks[rank].path,
            call.at,
            format!(
                "{} is never matched by the other members of its communicator",
                call.how.call()
            ),
        ));
    }
    if let Some(((_, _), family)) = families.iter().next() {
        let (rank, call) = family.calls[0];
        let call = &ranks[rank as usize].calls[call];
        return Err(LocatedError::at_byte(
            &ranks[rank as usize].path,
            call.at,
            format!(
                "{} is not made by every member of its communicator",
                call.how.call()
            ),
        ));
    }
    let members = globals
        .into_iter()
        .map(|g| g.members.unwrap_or_default())
        .collect();
    // Intercommunicators keep None.
    Ok(Communicators {
        members,
        local_to_global,
    })
}

/// Takes out of `families` those whose parent is resolved and all of whose members
/// have made their call.
fn complete_families(
    ranks: &[RankComms],
    globals: &[Global],
    families: &mut FxHashMap<FamilyKey, Family>,
) -> Result<Vec<(FamilyKey, Family)>, LocatedError> {
    let mut keys: Vec<FamilyKey> = families
        .iter()
        .filter(|((parent, _), family)| {
            let parent = &globals[*parent as usize];
            parent
                .members
                .as_ref()
                .is_some_and(|m| m.len() == family.calls.len())
        })
        .map(|(key, _)| *key)
        .collect();
    keys.sort_unstable();
    let mut complete = Vec::with_capacity(keys.len());
    for key in keys {
        let family = families.remove(&key).expect("key listed above");
        let (first_rank, first_call) = family.calls[0];
        let first = &ranks[first_rank as usize].calls[first_call];
        for &(rank, call) in &family.calls[1..] {
            let call = &ranks[rank as usize].calls[call];
            if std::mem::discriminant(&call.how) != std::mem::discriminant(&first.how)
                || call.how.call() != first.how.call()
            {
                return Err(LocatedError::at_byte(
                    &ranks[rank as usize].path,
                    call.at,
                    format!(
                        "{} here, but rank {first_rank} made {} as the same call on that communicator (byte {} of {})",
                        call.how.call(),
                        first.how.call(),
                        first.at,
                        ranks[first_rank as usize].path
                    ),
                ));
            }
        }
        complete.push((key, family));
    }
    Ok(complete)
}

/// Makes the communicators of one complete family; returns (world rank, its local
/// communicator, global id) for every member that got one.
fn resolve_family(
    ranks: &[RankComms],
    globals: &mut Vec<Global>,
    local_to_global: &[Vec<Option<u32>>],
    parent: u32,
    family: &Family,
) -> Result<Vec<(u32, u32, u32)>, LocatedError> {
    let parent_members = globals[parent as usize]
        .members
        .clone()
        .expect("complete families have resolved parents");
    let position = |world: u32| parent_members.iter().position(|&m| m == world);
    // Colour classes: members with the same colour share a communicator.
    let mut classes: Vec<(Vec<i64>, Vec<Member>)> = Vec::new();
    let mut created: Option<Vec<u32>> = None;
    for &(rank, index) in &family.calls {
        let table = &ranks[rank as usize];
        let call = &table.calls[index];
        let Some(pos) = position(rank) else {
            return Err(LocatedError::at_byte(
                &table.path,
                call.at,
                format!(
                    "{} by rank {rank}, which is not a member of that communicator",
                    call.how.call()
                ),
            ));
        };
        let Some(local) = call.made else { continue };
        let (color, key): (Vec<i64>, i64) = match &call.how {
            Making::Copy(_) => (vec![], 0),
            Making::Split { color, key } => (vec![i64::from(*color)], i64::from(*key)),
            Making::CartSub { dims, remain } => {
                let coords = cart_coords(pos, dims);
                let dropped = coords
                    .iter()
                    .zip(remain)
                    .filter(|(_, &r)| !r)
                    .map(|(&c, _)| c)
                    .collect();
                (dropped, 0)
            }
            Making::Create { group } => {
                let members = evaluate(
                    table,
                    globals,
                    &local_to_global[rank as usize],
                    *group,
                    call.at,
                )?;
                if let Some(stranger) = members.iter().find(|m| position(**m).is_none()) {
                    return Err(LocatedError::at_byte(&table.path, call.at, format!("MPI_Comm_create with a group holding rank {stranger}, which is not in the communicator")));
                }
                if !members.contains(&rank) {
                    return Err(LocatedError::at_byte(&table.path, call.at, format!("MPI_Comm_create gave rank {rank} a communicator, but its group does not hold it")));
                }
                match &created {
                    Some(first) if first != &members => {
                        return Err(LocatedError::at_byte(
                            &table.path,
                            call.at,
                            "MPI_Comm_create with a group other than the other members'",
                        ));
                    }
                    _ => created = Some(members),
                }
                (vec![], 0)
            }
        };
        let entry = Member {
            key,
            pos,
            rank,
            local,
        };
        match classes.iter_mut().find(|(c, _)| *c == color) {
            Some((_, list)) => list.push(entry),
            None => classes.push((color, vec![entry])),
        }
    }
    let mut made = Vec::new();
    for (_, mut list) in classes {
        // Split orders by key, then by rank in the parent; the others keep parent order.
        list.sort_unstable_by_key(|m| (m.key, m.pos));
        let members: Vec<u32> = match &created {
            Some(group) => group.clone(),
            None => list.iter().map(|m| m.rank).collect(),
        };
        let global = globals.len() as u32;
        globals.push(Global {
            members: Some(members),
        });
        made.extend(list.iter().map(|m| (m.rank, m.local, global)));
    }
    Ok(made)
}

/// Row-major coordinates of rank `pos` in a grid of `dims` (the last dimension varies
/// fastest, as MPI numbers Cartesian ranks).
pub(super) fn cart_coords(pos: usize, dims: &[i32]) -> Vec<i64> {
    let mut rest = pos as i64;
    let mut coords = vec![0; dims.len()];
    for (c, &d) in coords.iter_mut().zip(dims).rev() {
        *c = rest % i64::from(d);
        rest /= i64::from(d);
    }
    coords
}

/// The world ranks of group `group` of `table`, in group order.
fn evaluate(
    table: &RankComms,
    globals: &[Global],
    local_to_global: &[Option<u32>],
    group: u32,
    at: u64,
) -> Result<Vec<u32>, LocatedError> {
    let eval = |g: u32| evaluate(table, globals, local_to_global, g, at);
    let pick = |from: &[u32], ranks: &[i32]| -> Result<Vec<u32>, LocatedError> {
        let mut seen = vec![false; from.len()];
        let mut out = Vec::with_capacity(ranks.len());
        for &r in ranks {
            match usize::try_from(r).ok().filter(|&r| r < from.len()) {
                Some(r) if !seen[r] => {
                    seen[r] = true;
                    out.push(from[r]);
                }
                Some(_) => {
                    return Err(LocatedError::at_byte(
                        &table.path,
                        at,
                        format!("group rank {r} listed twice"),
                    ))
                }
                None => {
                    return Err(LocatedError::at_byte(
                        &table.path,
                        at,
                        format!("group rank {r} outside a group of {}", from.len()),
                    ))
                }
            }
        }
        Ok(out)
    };
    Ok(match &table.groups[group as usize] {
        Group::Empty => Vec::new(),
        // The communicator was made before the group and before the call that uses
        // the group, so it is resolved: its family completed before this one could.
        Group::OfComm(local) => local_to_global[*local as usize]
            .and_then(|g| globals[g as usize].members.clone())
            .ok_or_else(|| {
                LocatedError::at_byte(
                    &table.path,
                    at,
                    "a group of a communicator that is not resolved",
                )
            })?,
        Group::Incl(g, ranks) => pick(&eval(*g)?, ranks)?,
        Group::Excl(g, ranks) => {
            let from = eval(*g)?;
            let excluded = pick(&from, ranks)?;
            from.into_iter().filter(|m| !excluded.contains(m)).collect()
        }
        Group::Union(a, b) => {
            let mut out = eval(*a)?;
            for m in eval(*b)? {
                if !out.contains(&m) {
                    out.push(m);
                }
            }
            out
        }
        Group::Intersection(a, b) => {
            let b = eval(*b)?;
            eval(*a)?.into_iter().filter(|m| b.contains(m)).collect()
        }
        Group::Difference(a, b) => {
            let b = eval(*b)?;
            eval(*a)?.into_iter().filter(|m| !b.contains(m)).collect()
        }
    })
}
