/*
 * The wrappers of the MPI functions that take counts, included twice by interpose.c:
 * with COUNT int, DISPL int and an empty SUFFIX (MPI_Send), then, against MPI 4, with
 * COUNT MPI_Count, DISPL MPI_Aint and SUFFIX _c (the large-count MPI_Send_c). WIDE
 * says which counts the arrays hold. No include guard: it is meant to be read twice.
 */

/* ---- point to point -------------------------------------------------------------- */

BLOCKING_SEND(Send)
BLOCKING_SEND(Bsend)
BLOCKING_SEND(Ssend)
BLOCKING_SEND(Rsend)

NONBLOCKING_SEND(Isend)
NONBLOCKING_SEND(Ibsend)
NONBLOCKING_SEND(Issend)
NONBLOCKING_SEND(Irsend)

PERSISTENT_SEND(Send_init)
PERSISTENT_SEND(Bsend_init)
PERSISTENT_SEND(Ssend_init)
PERSISTENT_SEND(Rsend_init)

RECORDED(Sendrecv,
         (const void *sendbuf, COUNT sendcount, MPI_Datatype sendtype, int dest, int sendtag,
          void *recvbuf, COUNT recvcount, MPI_Datatype recvtype, int source, int recvtag,
          MPI_Comm comm, MPI_Status *status),
         (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
          recvtag, comm, status),
         record_send(sendcount, sendtype, dest, comm))

RECORDED(Sendrecv_replace,
         (void *buf, COUNT count, MPI_Datatype type, int dest, int sendtag, int source,
          int recvtag, MPI_Comm comm, MPI_Status *status),
         (buf, count, type, dest, sendtag, source, recvtag, comm, status),
         record_send(count, type, dest, comm))

/* ---- collectives: blocking, non-blocking and persistent forms ---------------------- */

COLLECTIVE(Bcast, Ibcast, (void *buf, COUNT count, MPI_Datatype type, int root, MPI_Comm comm),
           (buf, count, type, root, comm),
           record_collective(comm, OP_BCAST, root, 1, bytes_of(count, type)))

COLLECTIVE(Reduce, Ireduce,
           (const void *sendbuf, void *recvbuf, COUNT count, MPI_Datatype type, MPI_Op op,
            int root, MPI_Comm comm),
           (sendbuf, recvbuf, count, type, op, root, comm),
           record_collective(comm, OP_REDUCE, root, commutes(op), bytes_of(count, type)))

COLLECTIVE(Allreduce, Iallreduce,
           (const void *sendbuf, void *recvbuf, COUNT count, MPI_Datatype type, MPI_Op op,
            MPI_Comm comm),
           (sendbuf, recvbuf, count, type, op, comm),
           record_collective(comm, OP_ALLREDUCE, 0, commutes(op), bytes_of(count, type)))

COLLECTIVE(Scan, Iscan,
           (const void *sendbuf, void *recvbuf, COUNT count, MPI_Datatype type, MPI_Op op,
            MPI_Comm comm),
           (sendbuf, recvbuf, count, type, op, comm),
           record_collective(comm, OP_SCAN, 0, commutes(op), bytes_of(count, type)))

COLLECTIVE(Exscan, Iexscan,
           (const void *sendbuf, void *recvbuf, COUNT count, MPI_Datatype type, MPI_Op op,
            MPI_Comm comm),
           (sendbuf, recvbuf, count, type, op, comm),
           record_collective(comm, OP_EXSCAN, 0, commutes(op), bytes_of(count, type)))

/* One rank's block: the send side, or the receive side when the root sends in place. */
#define BLOCK(sendbuf, scount, stype, rcount, rtype)                                         \
    ((sendbuf) == MPI_IN_PLACE ? bytes_of(rcount, rtype) : bytes_of(scount, stype))

COLLECTIVE(Gather, Igather,
           (const void *sendbuf, COUNT scount, MPI_Datatype stype, void *recvbuf, COUNT rcount,
            MPI_Datatype rtype, int root, MPI_Comm comm),
           (sendbuf, scount, stype, recvbuf, rcount, rtype, root, comm),
           record_collective(comm, OP_GATHER, root, 1,
                             BLOCK(sendbuf, scount, stype, rcount, rtype)))

/* Every rank receives a block of the scatter: its receive side, or the root's send side
 * when it receives in place. */
COLLECTIVE(Scatter, Iscatter,
           (const void *sendbuf, COUNT scount, MPI_Datatype stype, void *recvbuf, COUNT rcount,
            MPI_Datatype rtype, int root, MPI_Comm comm),
           (sendbuf, scount, stype, recvbuf, rcount, rtype, root, comm),
           record_collective(comm, OP_SCATTER, root, 1,
                             recvbuf == MPI_IN_PLACE ? bytes_of(scount, stype)
                                                     : bytes_of(rcount, rtype)))

COLLECTIVE(Allgather, Iallgather,
           (const void *sendbuf, COUNT scount, MPI_Datatype stype, void *recvbuf, COUNT rcount,
            MPI_Datatype rtype, MPI_Comm comm),
           (sendbuf, scount, stype, recvbuf, rcount, rtype, comm),
           record_collective(comm, OP_ALLGATHER, 0, 1,
                             BLOCK(sendbuf, scount, stype, rcount, rtype)))

COLLECTIVE(Alltoall, Ialltoall,
           (const void *sendbuf, COUNT scount, MPI_Datatype stype, void *recvbuf, COUNT rcount,
            MPI_Datatype rtype, MPI_Comm comm),
           (sendbuf, scount, stype, recvbuf, rcount, rtype, comm),
           record_collective(comm, OP_ALLTOALL, 0, 1,
                             BLOCK(sendbuf, scount, stype, rcount, rtype)))

#undef BLOCK

COLLECTIVE(Gatherv, Igatherv,
           (const void *sendbuf, COUNT scount, MPI_Datatype stype, void *recvbuf,
            const COUNT rcounts[], const DISPL displs[], MPI_Datatype rtype, int root,
            MPI_Comm comm),
           (sendbuf, scount, stype, recvbuf, rcounts, displs, rtype, root, comm),
           record_gatherv(comm, root, scount, stype, COUNTS(rcounts), rtype))

COLLECTIVE(Scatterv, Iscatterv,
           (const void *sendbuf, const COUNT scounts[], const DISPL displs[], MPI_Datatype stype,
            void *recvbuf, COUNT rcount, MPI_Datatype rtype, int root, MPI_Comm comm),
           (sendbuf, scounts, displs, stype, recvbuf, rcount, rtype, root, comm),
           record_scatterv(comm, root, COUNTS(scounts), stype, rcount, rtype))

COLLECTIVE(Allgatherv, Iallgatherv,
           (const void *sendbuf, COUNT scount, MPI_Datatype stype, void *recvbuf,
            const COUNT rcounts[], const DISPL displs[], MPI_Datatype rtype, MPI_Comm comm),
           (sendbuf, scount, stype, recvbuf, rcounts, displs, rtype, comm),
           record_per_rank(comm, OP_ALLGATHERV, 0, 1, COUNTS(rcounts), rtype, NULL))

COLLECTIVE(Alltoallv, Ialltoallv,
           (const void *sendbuf, const COUNT scounts[], const DISPL sdispls[], MPI_Datatype stype,
            void *recvbuf, const COUNT rcounts[], const DISPL rdispls[], MPI_Datatype rtype,
            MPI_Comm comm),
           (sendbuf, scounts, sdispls, stype, recvbuf, rcounts, rdispls, rtype, comm),
           record_per_rank(comm, OP_ALLTOALLV, 0, 1,
                           COUNTS(sendbuf == MPI_IN_PLACE ? rcounts : scounts),
                           sendbuf == MPI_IN_PLACE ? rtype : stype, NULL))

COLLECTIVE(Alltoallw, Ialltoallw,
           (const void *sendbuf, const COUNT scounts[], const DISPL sdispls[],
            const MPI_Datatype stypes[], void *recvbuf, const COUNT rcounts[],
            const DISPL rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm),
           (sendbuf, scounts, sdispls, stypes, recvbuf, rcounts, rdispls, rtypes, comm),
           record_per_rank(comm, OP_ALLTOALLW, 0, 1,
                           COUNTS(sendbuf == MPI_IN_PLACE ? rcounts : scounts),
                           MPI_DATATYPE_NULL, sendbuf == MPI_IN_PLACE ? rtypes : stypes))

COLLECTIVE(Reduce_scatter, Ireduce_scatter,
           (const void *sendbuf, void *recvbuf, const COUNT rcounts[], MPI_Datatype type,
            MPI_Op op, MPI_Comm comm),
           (sendbuf, recvbuf, rcounts, type, op, comm),
           record_per_rank(comm, OP_REDUCE_SCATTER, 0, commutes(op), COUNTS(rcounts), type,
                           NULL))

COLLECTIVE(Reduce_scatter_block, Ireduce_scatter_block,
           (const void *sendbuf, void *recvbuf, COUNT rcount, MPI_Datatype type, MPI_Op op,
            MPI_Comm comm),
           (sendbuf, recvbuf, rcount, type, op, comm),
           record_collective(comm, OP_REDUCE_SCATTER_BLOCK, 0, commutes(op),
                             bytes_of(rcount, type)))

/* ---- neighbourhood collectives ------------------------------------------------------ */

COLLECTIVE(Neighbor_allgather, Ineighbor_allgather,
           (const void *sendbuf, COUNT scount, MPI_Datatype stype, void *recvbuf, COUNT rcount,
            MPI_Datatype rtype, MPI_Comm comm),
           (sendbuf, scount, stype, recvbuf, rcount, rtype, comm),
           record_neighbors(comm, scount, stype, COUNTS(NULL), NULL))

COLLECTIVE(Neighbor_allgatherv, Ineighbor_allgatherv,
           (const void *sendbuf, COUNT scount, MPI_Datatype stype, void *recvbuf,
            const COUNT rcounts[], const DISPL displs[], MPI_Datatype rtype, MPI_Comm comm),
           (sendbuf, scount, stype, recvbuf, rcounts, displs, rtype, comm),
           record_neighbors(comm, scount, stype, COUNTS(NULL), NULL))

COLLECTIVE(Neighbor_alltoall, Ineighbor_alltoall,
           (const void *sendbuf, COUNT scount, MPI_Datatype stype, void *recvbuf, COUNT rcount,
            MPI_Datatype rtype, MPI_Comm comm),
           (sendbuf, scount, stype, recvbuf, rcount, rtype, comm),
           record_neighbors(comm, scount, stype, COUNTS(NULL), NULL))

COLLECTIVE(Neighbor_alltoallv, Ineighbor_alltoallv,
           (const void *sendbuf, const COUNT scounts[], const DISPL sdispls[], MPI_Datatype stype,
            void *recvbuf, const COUNT rcounts[], const DISPL rdispls[], MPI_Datatype rtype,
            MPI_Comm comm),
           (sendbuf, scounts, sdispls, stype, recvbuf, rcounts, rdispls, rtype, comm),
           record_neighbors(comm, 0, stype, COUNTS(scounts), NULL))

COLLECTIVE(Neighbor_alltoallw, Ineighbor_alltoallw,
           (const void *sendbuf, const COUNT scounts[], const MPI_Aint sdispls[],
            const MPI_Datatype stypes[], void *recvbuf, const COUNT rcounts[],
            const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm),
           (sendbuf, scounts, sdispls, stypes, recvbuf, rcounts, rdispls, rtypes, comm),
           record_neighbors(comm, 0, MPI_DATATYPE_NULL, COUNTS(scounts), stypes))

/* ---- one-sided communication ------------------------------------------------------- */

#define PUT_PARAMS                                                                           \
    const void *origin, COUNT origin_count, MPI_Datatype origin_type, int target,            \
        MPI_Aint target_disp, COUNT target_count, MPI_Datatype target_type
#define GET_PARAMS                                                                           \
    void *origin, COUNT origin_count, MPI_Datatype origin_type, int target,                  \
        MPI_Aint target_disp, COUNT target_count, MPI_Datatype target_type
#define TRANSFER_ARGS                                                                        \
    origin, origin_count, origin_type, target, target_disp, target_count, target_type

RECORDED(Put, (PUT_PARAMS, MPI_Win win), (TRANSFER_ARGS, win),
         record_put(origin_count, origin_type, target, win))
RECORDED(Rput, (PUT_PARAMS, MPI_Win win, MPI_Request *request), (TRANSFER_ARGS, win, request),
         record_put(origin_count, origin_type, target, win))
RECORDED(Accumulate, (PUT_PARAMS, MPI_Op op, MPI_Win win), (TRANSFER_ARGS, op, win),
         record_put(origin_count, origin_type, target, win))
RECORDED(Raccumulate, (PUT_PARAMS, MPI_Op op, MPI_Win win, MPI_Request *request),
         (TRANSFER_ARGS, op, win, request), record_put(origin_count, origin_type, target, win))
RECORDED(Get, (GET_PARAMS, MPI_Win win), (TRANSFER_ARGS, win),
         record_get(origin_count, origin_type, target, win))
RECORDED(Rget, (GET_PARAMS, MPI_Win win, MPI_Request *request), (TRANSFER_ARGS, win, request),
         record_get(origin_count, origin_type, target, win))

#define GET_ACC_PARAMS                                                                       \
    const void *origin, COUNT origin_count, MPI_Datatype origin_type, void *result,          \
        COUNT result_count, MPI_Datatype result_type, int target, MPI_Aint target_disp,      \
        COUNT target_count, MPI_Datatype target_type, MPI_Op op, MPI_Win win
#define GET_ACC_ARGS                                                                         \
    origin, origin_count, origin_type, result, result_count, result_type, target,            \
        target_disp, target_count, target_type, op, win

RECORDED(Get_accumulate, (GET_ACC_PARAMS), (GET_ACC_ARGS),
         record_get_accumulate(origin_count, origin_type, result_count, result_type, target,
                               win))
RECORDED(Rget_accumulate, (GET_ACC_PARAMS, MPI_Request *request), (GET_ACC_ARGS, request),
         record_get_accumulate(origin_count, origin_type, result_count, result_type, target,
                               win))

#undef PUT_PARAMS
#undef GET_PARAMS
#undef TRANSFER_ARGS
#undef GET_ACC_PARAMS
#undef GET_ACC_ARGS
