//! Feeds the records that make, copy and free communicators and groups to one rank's
//! [`RankComms`] table, as every pass over a rank's records must.

use crate::error::LocatedError;
use crate::trace::args::{position, Arg, ArgsOf};
use crate::trace::comm::{Handle, Pick, RankComms, SetOp};
use crate::trace::dumpi::Record;

/// Function labels of the communicator and group calls.
mod label {
    pub const COMM_GROUP: u16 = 72;
    pub const GROUP_UNION: u16 = 73;
    pub const GROUP_INTERSECTION: u16 = 74;
    pub const GROUP_DIFFERENCE: u16 = 75;
    pub const GROUP_INCL: u16 = 76;
    pub const GROUP_EXCL: u16 = 77;
    pub const GROUP_RANGE_INCL: u16 = 78;
    pub const GROUP_RANGE_EXCL: u16 = 79;
    pub const GROUP_FREE: u16 = 80;
    pub const COMM_DUP: u16 = 84;
    pub const COMM_CREATE: u16 = 85;
    pub const COMM_SPLIT: u16 = 86;
    pub const COMM_FREE: u16 = 87;
    pub const INTERCOMM_CREATE: u16 = 91;
    pub const INTERCOMM_MERGE: u16 = 92;
    pub const CART_CREATE: u16 = 99;
    pub const GRAPH_CREATE: u16 = 101;
    pub const CART_SUB: u16 = 111;
    pub const COMM_ACCEPT: u16 = 130;
    pub const COMM_CONNECT: u16 = 131;
    pub const COMM_DISCONNECT: u16 = 132;
    pub const COMM_GET_PARENT: u16 = 133;
    pub const COMM_JOIN: u16 = 134;
    pub const COMM_SPAWN: u16 = 135;
    pub const COMM_SPAWN_MULTIPLE: u16 = 136;
}

/// Every label [`follow`] follows.
const FOLLOWED: [u16; 25] = [
    label::COMM_GROUP,
    label::GROUP_UNION,
    label::GROUP_INTERSECTION,
    label::GROUP_DIFFERENCE,
    label::GROUP_INCL,
    label::GROUP_EXCL,
    label::GROUP_RANGE_INCL,
    label::GROUP_RANGE_EXCL,
    label::GROUP_FREE,
    label::COMM_DUP,
    label::COMM_CREATE,
    label::COMM_SPLIT,
    label::COMM_FREE,
    label::INTERCOMM_CREATE,
    label::INTERCOMM_MERGE,
    label::CART_CREATE,
    label::GRAPH_CREATE,
    label::CART_SUB,
    label::COMM_ACCEPT,
    label::COMM_CONNECT,
    label::COMM_DISCONNECT,
    label::COMM_GET_PARENT,
    label::COMM_JOIN,
    label::COMM_SPAWN,
    label::COMM_SPAWN_MULTIPLE,
];

/// Whether a rank file whose footer counts `calls` per label (ignored calls included in
/// `ignored`) may make, copy or free a communicator or group: when not, a pass that
/// only follows them has nothing to read.
pub(crate) fn may_follow(calls: &[u32], ignored: &[u32]) -> bool {
    let count = |v: &[u32], l: u16| v.get(l as usize).copied().unwrap_or(0);
    FOLLOWED
        .iter()
        .any(|&l| count(calls, l) > 0 || count(ignored, l) > 0)
}

/// Follows `rec` of file `path` when it makes, copies or frees a communicator or group;
/// false for any other call. Errors name the file and the record's byte.
pub(crate) fn follow(
    comms: &mut RankComms,
    rec: &Record,
    path: &str,
) -> Result<bool, LocatedError> {
    let at = rec.offset;
    let r = Reader { rec, path };
    match rec.label {
        label::COMM_GROUP => comms.comm_group(r.handle(Arg::Comm)?, r.handle(Arg::Group)?, at)?,
        label::GROUP_UNION | label::GROUP_INTERSECTION | label::GROUP_DIFFERENCE => {
            let op = match rec.label {
                label::GROUP_UNION => SetOp::Union,
                label::GROUP_INTERSECTION => SetOp::Intersection,
                _ => SetOp::Difference,
            };
            let (a, b) = (r.handle(Arg::Group1)?, r.handle(Arg::Group2)?);
            comms.group_set(op, a, b, r.handle(Arg::NewGroup)?, at)?;
        }
        label::GROUP_INCL | label::GROUP_EXCL => {
            let ranks = r.ints32(Arg::Ranks)?;
            let (group, new) = (r.handle(Arg::Group)?, r.handle(Arg::NewGroup)?);
            comms.group_pick(pick(rec.label == label::GROUP_INCL), group, &ranks, new, at)?;
        }
        label::GROUP_RANGE_INCL | label::GROUP_RANGE_EXCL => {
            let ranges = r.ranges()?;
            let (group, new) = (r.handle(Arg::Group)?, r.handle(Arg::NewGroup)?);
            let including = rec.label == label::GROUP_RANGE_INCL;
            comms.group_range(pick(including), group, &ranges, new, at)?;
        }
        label::GROUP_FREE => comms.group_free(r.handle(Arg::Group)?, at)?,
        label::COMM_DUP => comms.dup(r.handle(Arg::OldComm)?, r.handle(Arg::NewComm)?, at)?,
        label::COMM_CREATE => {
            let (old, group) = (r.handle(Arg::OldComm)?, r.handle(Arg::Group)?);
            comms.create(old, group, r.handle(Arg::NewComm)?, at)?;
        }
        label::COMM_SPLIT => {
            let (color, key) = (r.int32(Arg::Color)?, r.int32(Arg::Key)?);
            comms.split(
                r.handle(Arg::OldComm)?,
                color,
                key,
                r.handle(Arg::NewComm)?,
                at,
            )?;
        }
        label::COMM_FREE | label::COMM_DISCONNECT => comms.free(r.handle(Arg::Comm)?, at)?,
        label::CART_CREATE => {
            let dims = r.ints32(Arg::Dims)?;
            comms.cart_create(r.handle(Arg::OldComm)?, &dims, r.handle(Arg::NewComm)?, at)?;
        }
        label::GRAPH_CREATE => {
            comms.graph_create(r.handle(Arg::OldComm)?, r.handle(Arg::NewComm)?, at)?;
        }
        label::CART_SUB => {
            let remain: Vec<bool> = r.list(Arg::RemainDims)?.iter().map(|&d| d != 0).collect();
            comms.cart_sub(
                r.handle(Arg::OldComm)?,
                &remain,
                r.handle(Arg::NewComm)?,
                at,
            )?;
        }
        label::INTERCOMM_CREATE
        | label::INTERCOMM_MERGE
        | label::COMM_ACCEPT
        | label::COMM_CONNECT
        | label::COMM_SPAWN
        | label::COMM_SPAWN_MULTIPLE => comms.intercomm(r.handle(Arg::NewComm)?),
        label::COMM_JOIN => comms.intercomm(r.handle(Arg::Comm)?),
        label::COMM_GET_PARENT => comms.intercomm(r.handle(Arg::Parent)?),
        _ => return Ok(false),
    }
    Ok(true)
}

/// [`Pick::Incl`] when `including`, else [`Pick::Excl`].
fn pick(including: bool) -> Pick {
    if including {
        Pick::Incl
    } else {
        Pick::Excl
    }
}

/// Reads the arguments of one record of file `path`, every failure located.
struct Reader<'a> {
    rec: &'a Record,
    path: &'a str,
}

impl Reader<'_> {
    /// A communicator or group handle argument.
    fn handle(&self, arg: Arg) -> Result<Handle, LocatedError> {
        let v = self.rec.get(arg).ok_or_else(|| self.missing(arg))?;
        Handle::try_from(v).map_err(|_| self.missing(arg))
    }

    /// A 32-bit integer argument.
    fn int32(&self, arg: Arg) -> Result<i32, LocatedError> {
        let v = self.rec.get(arg).ok_or_else(|| self.missing(arg))?;
        i32::try_from(v).map_err(|_| self.missing(arg))
    }

    /// An integer array argument.
    fn list(&self, arg: Arg) -> Result<&[i64], LocatedError> {
        self.rec.list(arg).ok_or_else(|| self.missing(arg))
    }

    /// An integer array argument as 32-bit integers.
    fn ints32(&self, arg: Arg) -> Result<Vec<i32>, LocatedError> {
        self.list(arg)?
            .iter()
            .map(|&v| i32::try_from(v).map_err(|_| self.missing(arg)))
            .collect()
    }

    /// The (first, last, stride) triples of `MPI_Group_range_incl`/`excl`.
    fn ranges(&self) -> Result<Vec<[i32; 3]>, LocatedError> {
        let bad = || self.missing(Arg::Ranges);
        let i = position(self.rec.label, Arg::Ranges).ok_or_else(bad)?;
        let lists = self.rec.ranges(i).ok_or_else(bad)?;
        lists
            .map(|r| match *r {
                [a, b, c] => match (i32::try_from(a), i32::try_from(b), i32::try_from(c)) {
                    (Ok(a), Ok(b), Ok(c)) => Ok([a, b, c]),
                    _ => Err(bad()),
                },
                _ => Err(bad()),
            })
            .collect()
    }

    /// An argument that is not recorded or out of its type's range.
    fn missing(&self, arg: Arg) -> LocatedError {
        LocatedError::at_byte(
            self.path,
            self.rec.offset,
            format!(
                "{}: `{}` is not recorded or out of range",
                self.rec.name(),
                arg.name()
            ),
        )
    }
}
