//! The MPI functions this library exports: each `MPI_X`, and its profiling name
//! `PMPI_X`, jumps to the C wrapper `orcs_wrap_MPI_X` (`interpose.c`), which records the
//! call and calls the MPI library's `PMPI_X`. The `PMPI_X` names catch the calls of
//! Fortran programs under Open MPI, whose Fortran bindings call `PMPI_X`.
//!
//! A Rust shared library exports only symbols defined in Rust, so each exported name is
//! a naked function here whose only instruction is a tail jump: the arguments, in
//! registers and on the stack as the caller left them (also those of the variadic
//! `MPI_Pcontrol`), reach the wrapper untouched, whatever MPI's handle types are.

/// Declares the C wrappers and exports a jump to each under its MPI and profiling names.
macro_rules! exports {
    ($($name:ident, $profiling_name:ident => $wrapper:ident),* $(,)?) => {
        extern "C" {
            $(fn $wrapper();)*
        }
        $(
            jump!($name => $wrapper);
            jump!($profiling_name => $wrapper);
        )*
    };
}

/// Exports `name` as a tail jump to `wrapper`.
macro_rules! jump {
    ($name:ident => $wrapper:ident) => {
        #[doc = concat!("`", stringify!($name), "`, recorded by `", stringify!($wrapper), "`.")]
        #[doc = ""]
        #[doc = "# Safety"]
        #[doc = "Called by MPI programs with the arguments MPI defines for this function."]
        #[unsafe(naked)]
        #[no_mangle]
        pub unsafe extern "C" fn $name() {
            #[cfg(target_arch = "x86_64")]
            core::arch::naked_asm!("jmp {}", sym $wrapper);
            #[cfg(target_arch = "aarch64")]
            core::arch::naked_asm!("b {}", sym $wrapper);
        }
    };
}

exports! {
    MPI_Accumulate, PMPI_Accumulate => orcs_wrap_MPI_Accumulate,
    MPI_Allgather, PMPI_Allgather => orcs_wrap_MPI_Allgather,
    MPI_Allgatherv, PMPI_Allgatherv => orcs_wrap_MPI_Allgatherv,
    MPI_Allreduce, PMPI_Allreduce => orcs_wrap_MPI_Allreduce,
    MPI_Alltoall, PMPI_Alltoall => orcs_wrap_MPI_Alltoall,
    MPI_Alltoallv, PMPI_Alltoallv => orcs_wrap_MPI_Alltoallv,
    MPI_Alltoallw, PMPI_Alltoallw => orcs_wrap_MPI_Alltoallw,
    MPI_Barrier, PMPI_Barrier => orcs_wrap_MPI_Barrier,
    MPI_Bcast, PMPI_Bcast => orcs_wrap_MPI_Bcast,
    MPI_Bsend, PMPI_Bsend => orcs_wrap_MPI_Bsend,
    MPI_Bsend_init, PMPI_Bsend_init => orcs_wrap_MPI_Bsend_init,
    MPI_Comm_disconnect, PMPI_Comm_disconnect => orcs_wrap_MPI_Comm_disconnect,
    MPI_Comm_free, PMPI_Comm_free => orcs_wrap_MPI_Comm_free,
    MPI_Compare_and_swap, PMPI_Compare_and_swap => orcs_wrap_MPI_Compare_and_swap,
    MPI_Exscan, PMPI_Exscan => orcs_wrap_MPI_Exscan,
    MPI_Fetch_and_op, PMPI_Fetch_and_op => orcs_wrap_MPI_Fetch_and_op,
    MPI_Finalize, PMPI_Finalize => orcs_wrap_MPI_Finalize,
    MPI_Gather, PMPI_Gather => orcs_wrap_MPI_Gather,
    MPI_Gatherv, PMPI_Gatherv => orcs_wrap_MPI_Gatherv,
    MPI_Get, PMPI_Get => orcs_wrap_MPI_Get,
    MPI_Get_accumulate, PMPI_Get_accumulate => orcs_wrap_MPI_Get_accumulate,
    MPI_Iallgather, PMPI_Iallgather => orcs_wrap_MPI_Iallgather,
    MPI_Iallgatherv, PMPI_Iallgatherv => orcs_wrap_MPI_Iallgatherv,
    MPI_Iallreduce, PMPI_Iallreduce => orcs_wrap_MPI_Iallreduce,
    MPI_Ialltoall, PMPI_Ialltoall => orcs_wrap_MPI_Ialltoall,
    MPI_Ialltoallv, PMPI_Ialltoallv => orcs_wrap_MPI_Ialltoallv,
    MPI_Ialltoallw, PMPI_Ialltoallw => orcs_wrap_MPI_Ialltoallw,
    MPI_Ibarrier, PMPI_Ibarrier => orcs_wrap_MPI_Ibarrier,
    MPI_Ibcast, PMPI_Ibcast => orcs_wrap_MPI_Ibcast,
    MPI_Ibsend, PMPI_Ibsend => orcs_wrap_MPI_Ibsend,
    MPI_Iexscan, PMPI_Iexscan => orcs_wrap_MPI_Iexscan,
    MPI_Igather, PMPI_Igather => orcs_wrap_MPI_Igather,
    MPI_Igatherv, PMPI_Igatherv => orcs_wrap_MPI_Igatherv,
    MPI_Ineighbor_allgather, PMPI_Ineighbor_allgather => orcs_wrap_MPI_Ineighbor_allgather,
    MPI_Ineighbor_allgatherv, PMPI_Ineighbor_allgatherv => orcs_wrap_MPI_Ineighbor_allgatherv,
    MPI_Ineighbor_alltoall, PMPI_Ineighbor_alltoall => orcs_wrap_MPI_Ineighbor_alltoall,
    MPI_Ineighbor_alltoallv, PMPI_Ineighbor_alltoallv => orcs_wrap_MPI_Ineighbor_alltoallv,
    MPI_Ineighbor_alltoallw, PMPI_Ineighbor_alltoallw => orcs_wrap_MPI_Ineighbor_alltoallw,
    MPI_Init, PMPI_Init => orcs_wrap_MPI_Init,
    MPI_Init_thread, PMPI_Init_thread => orcs_wrap_MPI_Init_thread,
    MPI_Ireduce, PMPI_Ireduce => orcs_wrap_MPI_Ireduce,
    MPI_Ireduce_scatter, PMPI_Ireduce_scatter => orcs_wrap_MPI_Ireduce_scatter,
    MPI_Ireduce_scatter_block, PMPI_Ireduce_scatter_block => orcs_wrap_MPI_Ireduce_scatter_block,
    MPI_Irsend, PMPI_Irsend => orcs_wrap_MPI_Irsend,
    MPI_Iscan, PMPI_Iscan => orcs_wrap_MPI_Iscan,
    MPI_Iscatter, PMPI_Iscatter => orcs_wrap_MPI_Iscatter,
    MPI_Iscatterv, PMPI_Iscatterv => orcs_wrap_MPI_Iscatterv,
    MPI_Isend, PMPI_Isend => orcs_wrap_MPI_Isend,
    MPI_Issend, PMPI_Issend => orcs_wrap_MPI_Issend,
    MPI_Neighbor_allgather, PMPI_Neighbor_allgather => orcs_wrap_MPI_Neighbor_allgather,
    MPI_Neighbor_allgatherv, PMPI_Neighbor_allgatherv => orcs_wrap_MPI_Neighbor_allgatherv,
    MPI_Neighbor_alltoall, PMPI_Neighbor_alltoall => orcs_wrap_MPI_Neighbor_alltoall,
    MPI_Neighbor_alltoallv, PMPI_Neighbor_alltoallv => orcs_wrap_MPI_Neighbor_alltoallv,
    MPI_Neighbor_alltoallw, PMPI_Neighbor_alltoallw => orcs_wrap_MPI_Neighbor_alltoallw,
    MPI_Pcontrol, PMPI_Pcontrol => orcs_wrap_MPI_Pcontrol,
    MPI_Put, PMPI_Put => orcs_wrap_MPI_Put,
    MPI_Raccumulate, PMPI_Raccumulate => orcs_wrap_MPI_Raccumulate,
    MPI_Reduce, PMPI_Reduce => orcs_wrap_MPI_Reduce,
    MPI_Reduce_scatter, PMPI_Reduce_scatter => orcs_wrap_MPI_Reduce_scatter,
    MPI_Reduce_scatter_block, PMPI_Reduce_scatter_block => orcs_wrap_MPI_Reduce_scatter_block,
    MPI_Request_free, PMPI_Request_free => orcs_wrap_MPI_Request_free,
    MPI_Rget, PMPI_Rget => orcs_wrap_MPI_Rget,
    MPI_Rget_accumulate, PMPI_Rget_accumulate => orcs_wrap_MPI_Rget_accumulate,
    MPI_Rput, PMPI_Rput => orcs_wrap_MPI_Rput,
    MPI_Rsend, PMPI_Rsend => orcs_wrap_MPI_Rsend,
    MPI_Rsend_init, PMPI_Rsend_init => orcs_wrap_MPI_Rsend_init,
    MPI_Scan, PMPI_Scan => orcs_wrap_MPI_Scan,
    MPI_Scatter, PMPI_Scatter => orcs_wrap_MPI_Scatter,
    MPI_Scatterv, PMPI_Scatterv => orcs_wrap_MPI_Scatterv,
    MPI_Send, PMPI_Send => orcs_wrap_MPI_Send,
    MPI_Send_init, PMPI_Send_init => orcs_wrap_MPI_Send_init,
    MPI_Sendrecv, PMPI_Sendrecv => orcs_wrap_MPI_Sendrecv,
    MPI_Sendrecv_replace, PMPI_Sendrecv_replace => orcs_wrap_MPI_Sendrecv_replace,
    MPI_Ssend, PMPI_Ssend => orcs_wrap_MPI_Ssend,
    MPI_Ssend_init, PMPI_Ssend_init => orcs_wrap_MPI_Ssend_init,
    MPI_Start, PMPI_Start => orcs_wrap_MPI_Start,
    MPI_Startall, PMPI_Startall => orcs_wrap_MPI_Startall,
    MPI_Win_free, PMPI_Win_free => orcs_wrap_MPI_Win_free,
}
