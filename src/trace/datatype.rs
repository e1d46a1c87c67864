//! The size in bytes of every datatype one rank names: predefined types from the trace's
//! size table, derived types from the constructor calls that made them.

use super::args::{Arg, ArgsOf};
use crate::trace::dumpi::Record;
use crate::trace::summary::datatype_size;
use rustc_hash::FxHashMap;

/// Function labels of the datatype constructors and of `MPI_Type_free`.
mod label {
    pub const CONTIGUOUS: u16 = 35;
    pub const VECTOR: u16 = 36;
    pub const HVECTOR: u16 = 37;
    pub const INDEXED: u16 = 38;
    pub const HINDEXED: u16 = 39;
    pub const STRUCT: u16 = 40;
    pub const FREE: u16 = 47;
    pub const DUP: u16 = 178;
    pub const CREATE_HINDEXED: u16 = 218;
    pub const CREATE_HVECTOR: u16 = 219;
    pub const CREATE_INDEXED_BLOCK: u16 = 220;
    pub const CREATE_RESIZED: u16 = 221;
    pub const CREATE_STRUCT: u16 = 222;
    pub const CREATE_SUBARRAY: u16 = 223;
    pub const CREATE_DARRAY: u16 = 217;
}

/// One rank's datatype sizes while its records stream by.
#[derive(Debug, Clone, Default)]
pub(crate) struct Datatypes {
    /// The trace file's size table (predefined types, and what libdumpi recorded).
    table: Option<Vec<i32>>,
    /// Derived types made so far: handle → size, or None when the size cannot be told
    /// (`MPI_Type_create_darray`, a constructor over a type of unknown size).
    derived: FxHashMap<i64, Option<u64>>,
}

impl Datatypes {
    /// The sizes of a rank file with size table `table`.
    pub(crate) fn new(table: Option<Vec<i32>>) -> Self {
        Datatypes {
            table,
            derived: FxHashMap::default(),
        }
    }

    /// The size of one element of `datatype`, when known.
    pub(crate) fn size(&self, datatype: i64) -> Option<u64> {
        match self.derived.get(&datatype) {
            Some(&size) => size,
            None => datatype_size(self.table.as_deref(), datatype),
        }
    }

    /// `count` elements of `datatype`: None when the size is unknown or the product
    /// overflows; a negative count is zero bytes.
    pub(crate) fn bytes(&self, count: i64, datatype: i64) -> Option<u64> {
        let count = u64::try_from(count).unwrap_or(0);
        self.size(datatype)?.checked_mul(count)
    }

    /// Follows a datatype constructor or `MPI_Type_free`; false for any other call.
    pub(crate) fn follow(&mut self, rec: &Record) -> bool {
        let made = match rec.label {
            label::CONTIGUOUS => self.scaled(rec, Arg::Count, None),
            label::VECTOR | label::HVECTOR | label::CREATE_HVECTOR => {
                self.scaled(rec, Arg::Count, Some(Arg::BlockLength))
            }
            label::CREATE_INDEXED_BLOCK => self.scaled(rec, Arg::Count, Some(Arg::BlockLength)),
            label::INDEXED | label::HINDEXED => self.summed(rec, Arg::Lengths),
            label::CREATE_HINDEXED => self.summed(rec, Arg::BlockLengths),
            label::STRUCT => self.structure(rec, Arg::Lengths),
            label::CREATE_STRUCT => self.structure(rec, Arg::BlockLengths),
            label::DUP | label::CREATE_RESIZED => rec.get(Arg::OldType).and_then(|t| self.size(t)),
            label::CREATE_SUBARRAY => self.subarray(rec),
            label::CREATE_DARRAY => None,
            label::FREE => {
                if let Some(t) = rec.get(Arg::Datatype) {
                    self.derived.remove(&t);
                }
                return true;
            }
            _ => return false,
        };
        if let Some(new) = rec.get(Arg::NewType) {
            self.derived.insert(new, made);
        }
        true
    }

    /// `count × blocklength × size(oldtype)` (blocklength 1 when absent).
    fn scaled(&self, rec: &Record, count: Arg, block: Option<Arg>) -> Option<u64> {
        let count = u64::try_from(rec.get(count)?).ok()?;
        let block = match block {
            Some(b) => u64::try_from(rec.get(b)?).ok()?,
            None => 1,
        };
        let old = self.size(rec.get(Arg::OldType)?)?;
        count.checked_mul(block)?.checked_mul(old)
    }

    /// `Σ lengths × size(oldtype)`.
    fn summed(&self, rec: &Record, lengths: Arg) -> Option<u64> {
        let total = sum_lengths(rec.list(lengths)?)?;
        total.checked_mul(self.size(rec.get(Arg::OldType)?)?)
    }

    /// `Σ lengths[i] × size(oldtypes[i])`.
    fn structure(&self, rec: &Record, lengths: Arg) -> Option<u64> {
        let lengths = rec.list(lengths)?;
        let types = rec.list(Arg::OldTypes)?;
        if lengths.len() != types.len() {
            return None;
        }
        lengths.iter().zip(types).try_fold(0u64, |sum, (&n, &t)| {
            let n = u64::try_from(n).ok()?;
            sum.checked_add(n.checked_mul(self.size(t)?)?)
        })
    }

    /// `Π subsizes × size(oldtype)`.
    fn subarray(&self, rec: &Record) -> Option<u64> {
        let elements = rec
            .list(Arg::SubSizes)?
            .iter()
            .try_fold(1u64, |p, &s| p.checked_mul(u64::try_from(s).ok()?))?;
        elements.checked_mul(self.size(rec.get(Arg::OldType)?)?)
    }
}

/// The sum of non-negative block lengths; None when one is negative or it overflows.
fn sum_lengths(lengths: &[i64]) -> Option<u64> {
    lengths
        .iter()
        .try_fold(0u64, |s, &n| s.checked_add(u64::try_from(n).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::dumpi::layout::{layout, Kind};
    use crate::trace::dumpi::Value;

    /// A record of `label` with its arguments in stored order: a scalar, or for array
    /// arguments the elements.
    fn record(label: u16, args: &[&[i64]]) -> Record {
        let call = layout(label).unwrap();
        assert_eq!(call.args.len(), args.len(), "{}", call.name);
        let mut rec = Record {
            label,
            ..Record::default()
        };
        for (arg, v) in call.args.iter().zip(args) {
            let value = if arg.kind.is_array() || matches!(arg.kind, Kind::IntsSince069) {
                let start = rec.ints.len() as u32;
                rec.ints.extend_from_slice(v);
                Value::elements(v.len() as i64, true, start, v.len() as u32)
            } else {
                Value::of(v[0])
            };
            rec.values.push(value);
        }
        rec
    }

    const BYTE: i64 = 5;
    const INT: i64 = 9;
    const DOUBLE: i64 = 12;

    #[test]
    fn constructors_give_the_sizes_of_their_elements() {
        let mut t = Datatypes::new(None);
        assert_eq!(
            (t.size(BYTE), t.size(INT), t.size(DOUBLE)),
            (Some(1), Some(4), Some(8))
        );
        // contiguous(3, double) = 24; vector(4, 2, stride 9, int) = 32 (the stride
        // moves elements, it does not add bytes); indexed([1, 3], int) = 16.
        assert!(t.follow(&record(label::CONTIGUOUS, &[&[3], &[DOUBLE], &[100]])));
        assert!(t.follow(&record(label::VECTOR, &[&[4], &[2], &[9], &[INT], &[101]])));
        assert!(t.follow(&record(
            label::INDEXED,
            &[&[2], &[1, 3], &[0, 10], &[INT], &[102]]
        )));
        assert_eq!(
            (t.size(100), t.size(101), t.size(102)),
            (Some(24), Some(32), Some(16))
        );
        // struct {2 × contiguous(3, double), 5 bytes} = 53; a type over a derived one.
        let fields = record(
            label::CREATE_STRUCT,
            &[&[2], &[2, 5], &[0, 48], &[100, BYTE], &[103]],
        );
        assert!(t.follow(&fields));
        assert_eq!(t.size(103), Some(53));
        // subarray 2 × 3 of 4 × 4 ints = 24 bytes; resized keeps the size.
        let sub = record(
            label::CREATE_SUBARRAY,
            &[&[2], &[4, 4], &[2, 3], &[0, 0], &[0], &[INT], &[104]],
        );
        assert!(t.follow(&sub));
        assert_eq!(t.size(104), Some(24));
        assert!(t.follow(&record(
            label::CREATE_RESIZED,
            &[&[104], &[0], &[64], &[105]]
        )));
        assert_eq!(t.size(105), Some(24));
        // indexed_block(3 blocks of 2 ints) = 24; hindexed([2, 1] doubles) = 24;
        // the MPI-1 struct {1 int, 2 doubles} = 20.
        let block = record(
            label::CREATE_INDEXED_BLOCK,
            &[&[3], &[2], &[0, 4, 8], &[INT], &[106]],
        );
        assert!(t.follow(&block));
        let hindexed = record(
            label::CREATE_HINDEXED,
            &[&[2], &[2, 1], &[0, 64], &[DOUBLE], &[107]],
        );
        assert!(t.follow(&hindexed));
        let old_struct = record(
            label::STRUCT,
            &[&[2], &[1, 2], &[0, 8], &[INT, DOUBLE], &[108]],
        );
        assert!(t.follow(&old_struct));
        assert_eq!(
            (t.size(106), t.size(107), t.size(108)),
            (Some(24), Some(24), Some(20))
        );
        assert_eq!(t.bytes(10, 101), Some(320));
        assert_eq!(t.bytes(-1, 101), Some(0));
        // Freed, the handle names nothing known (and no predefined type either).
        assert!(t.follow(&record(label::FREE, &[&[101]])));
        assert_eq!(t.size(101), None);
        // Other calls are not followed.
        assert!(!t.follow(&record(0, &[&[1], &[INT], &[1], &[0], &[2]])));
    }

    #[test]
    fn unknown_parts_make_unknown_sizes_not_wrong_ones() {
        let mut t = Datatypes::new(None);
        // contiguous over an unknown type; a negative block length; a darray.
        assert!(t.follow(&record(label::CONTIGUOUS, &[&[3], &[999], &[100]])));
        assert!(t.follow(&record(
            label::HINDEXED,
            &[&[2], &[1, -3], &[0, 8], &[INT], &[101]]
        )));
        assert_eq!((t.size(100), t.size(101)), (None, None));
        assert_eq!(t.bytes(1, 100), None);
    }
}
