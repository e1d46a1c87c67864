//! The DUMPI function labels the passes over a rank's records dispatch on, by name, so
//! that they match on numbers and never compare names per record.

use crate::trace::collective::CollectiveOp;
use crate::trace::dumpi::layout::CALLS;
use std::sync::LazyLock;

pub(crate) const SEND: u16 = 0;
pub(crate) const RECV: u16 = 1;
pub(crate) const BSEND: u16 = 3;
pub(crate) const SSEND: u16 = 4;
pub(crate) const RSEND: u16 = 5;
pub(crate) const ISEND: u16 = 8;
pub(crate) const IBSEND: u16 = 9;
pub(crate) const ISSEND: u16 = 10;
pub(crate) const IRSEND: u16 = 11;
pub(crate) const IRECV: u16 = 12;
pub(crate) const WAIT: u16 = 13;
pub(crate) const TEST: u16 = 14;
pub(crate) const REQUEST_FREE: u16 = 15;
pub(crate) const WAITANY: u16 = 16;
pub(crate) const TESTANY: u16 = 17;
pub(crate) const WAITALL: u16 = 18;
pub(crate) const TESTALL: u16 = 19;
pub(crate) const WAITSOME: u16 = 20;
pub(crate) const TESTSOME: u16 = 21;
pub(crate) const SEND_INIT: u16 = 26;
pub(crate) const BSEND_INIT: u16 = 27;
pub(crate) const SSEND_INIT: u16 = 28;
pub(crate) const RSEND_INIT: u16 = 29;
pub(crate) const RECV_INIT: u16 = 30;
pub(crate) const START: u16 = 31;
pub(crate) const STARTALL: u16 = 32;
pub(crate) const SENDRECV: u16 = 33;
pub(crate) const SENDRECV_REPLACE: u16 = 34;
pub(crate) const OP_CREATE: u16 = 63;
pub(crate) const OP_FREE: u16 = 64;
pub(crate) const ACCUMULATE: u16 = 141;
pub(crate) const GET: u16 = 142;
pub(crate) const PUT: u16 = 143;
pub(crate) const WIN_CREATE: u16 = 145;
pub(crate) const WIN_FENCE: u16 = 146;
pub(crate) const WIN_FREE: u16 = 147;
pub(crate) const FINALIZE: u16 = 125;

/// The collective operation of each function label (blocking collectives of the DUMPI
/// format), by the function's name.
static COLLECTIVE_OPS: LazyLock<Vec<Option<CollectiveOp>>> = LazyLock::new(|| {
    CALLS
        .iter()
        .map(|c| CollectiveOp::from_mpi_function(c.name))
        .collect()
});

/// The collective operation of the call labelled `label`, if it is one.
pub(crate) fn collective_op(label: u16) -> Option<CollectiveOp> {
    COLLECTIVE_OPS.get(label as usize).copied().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::dumpi::layout::CALLS;

    #[test]
    fn every_label_names_its_call() {
        let named = [
            (SEND, "MPI_Send"),
            (RECV, "MPI_Recv"),
            (BSEND, "MPI_Bsend"),
            (SSEND, "MPI_Ssend"),
            (RSEND, "MPI_Rsend"),
            (ISEND, "MPI_Isend"),
            (IBSEND, "MPI_Ibsend"),
            (ISSEND, "MPI_Issend"),
            (IRSEND, "MPI_Irsend"),
            (IRECV, "MPI_Irecv"),
            (WAIT, "MPI_Wait"),
            (TEST, "MPI_Test"),
            (REQUEST_FREE, "MPI_Request_free"),
            (WAITANY, "MPI_Waitany"),
            (TESTANY, "MPI_Testany"),
            (WAITALL, "MPI_Waitall"),
            (TESTALL, "MPI_Testall"),
            (WAITSOME, "MPI_Waitsome"),
            (TESTSOME, "MPI_Testsome"),
            (SEND_INIT, "MPI_Send_init"),
            (BSEND_INIT, "MPI_Bsend_init"),
            (SSEND_INIT, "MPI_Ssend_init"),
            (RSEND_INIT, "MPI_Rsend_init"),
            (RECV_INIT, "MPI_Recv_init"),
            (START, "MPI_Start"),
            (STARTALL, "MPI_Startall"),
            (SENDRECV, "MPI_Sendrecv"),
            (SENDRECV_REPLACE, "MPI_Sendrecv_replace"),
            (OP_CREATE, "MPI_Op_create"),
            (OP_FREE, "MPI_Op_free"),
            (ACCUMULATE, "MPI_Accumulate"),
            (GET, "MPI_Get"),
            (PUT, "MPI_Put"),
            (WIN_CREATE, "MPI_Win_create"),
            (WIN_FENCE, "MPI_Win_fence"),
            (WIN_FREE, "MPI_Win_free"),
            (FINALIZE, "MPI_Finalize"),
        ];
        for (label, name) in named {
            assert_eq!(CALLS[label as usize].name, name);
        }
    }

    #[test]
    fn collective_labels_are_the_blocking_collectives() {
        let labels: Vec<u16> = (0..300).filter(|&l| collective_op(l).is_some()).collect();
        assert_eq!(
            labels,
            [52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 65, 66, 67, 155, 156]
        );
        assert_eq!(collective_op(66), Some(CollectiveOp::ReduceScatter));
    }
}
