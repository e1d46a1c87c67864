! The traffic of ring.c and then of alltoallv.c, written in Fortran: the ring through
! the `mpi` module, the alltoallv through `mpi_f08`, so that both Fortran bindings are
! profiled (Open MPI's call PMPI_X, MPICH's call MPI_X).
! Ring: every rank r of p (p >= 2) sends 6 messages of 1000 bytes to (r + 1) mod p, each
! through a different kind of send: MPI_Send, MPI_Ssend, MPI_Isend (250 MPI_INTEGER),
! the send half of MPI_Sendrecv, and one persistent request (MPI_Send_init) started
! twice, by MPI_Start and by MPI_Startall; and once to MPI_PROC_NULL, which is no
! traffic.
! Alltoallv: r sends (r + 1)(j + 1) MPI_INTEGERs (4 bytes) to every rank j.
! Traffic: (r, (r + 1) mod p) = 6 messages, 6000 bytes; and (r, j) = one message of
! 4 (r + 1)(j + 1) bytes for every j != r.
program fortran
    use mpi
    implicit none
    integer :: ierr, rank, nranks, right, left, i
    integer :: req(2), persistent(2)
    character :: out(1000), in(1000)
    integer :: iout(250), iin(250)

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
    right = mod(rank + 1, nranks)
    left = mod(rank + nranks - 1, nranks)
    out = 'x'
    iout = rank
    ! Even ranks send first, odd ranks receive first, so that even a synchronous send
    ! completes for any p >= 2.
    do i = 0, 1
        if (mod(rank, 2) == 0) then
            call blocking_send(i)
            call MPI_Recv(in, 1000, MPI_BYTE, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        else
            call MPI_Recv(in, 1000, MPI_BYTE, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
            call blocking_send(i)
        end if
    end do
    call MPI_Irecv(iin, 250, MPI_INTEGER, left, 2, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Isend(iout, 250, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
    call MPI_Sendrecv(out, 1000, MPI_BYTE, right, 3, in, 1000, MPI_BYTE, left, 3, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Recv_init(in, 1000, MPI_BYTE, left, 4, MPI_COMM_WORLD, persistent(1), ierr)
    call MPI_Send_init(out, 1000, MPI_BYTE, right, 4, MPI_COMM_WORLD, persistent(2), ierr)
    call MPI_Start(persistent(1), ierr)
    call MPI_Start(persistent(2), ierr)
    call MPI_Waitall(2, persistent, MPI_STATUSES_IGNORE, ierr)
    call MPI_Startall(2, persistent, ierr)
    call MPI_Waitall(2, persistent, MPI_STATUSES_IGNORE, ierr)
    call MPI_Request_free(persistent(1), ierr)
    call MPI_Request_free(persistent(2), ierr)
    call MPI_Send(out, 1000, MPI_BYTE, MPI_PROC_NULL, 5, MPI_COMM_WORLD, ierr)
    call alltoallv(rank, nranks)
    call MPI_Finalize(ierr)

contains

    subroutine blocking_send(i)
        integer, intent(in) :: i
        if (i == 0) then
            call MPI_Send(out, 1000, MPI_BYTE, right, i, MPI_COMM_WORLD, ierr)
        else
            call MPI_Ssend(out, 1000, MPI_BYTE, right, i, MPI_COMM_WORLD, ierr)
        end if
    end subroutine blocking_send

end program fortran

subroutine alltoallv(rank, nranks)
    use mpi_f08
    implicit none
    integer, intent(in) :: rank, nranks
    integer :: j, stotal, rtotal
    integer, allocatable :: scounts(:), sdispls(:), rcounts(:), rdispls(:), sbuf(:), rbuf(:)

    allocate(scounts(nranks), sdispls(nranks), rcounts(nranks), rdispls(nranks))
    stotal = 0
    rtotal = 0
    do j = 0, nranks - 1
        scounts(j + 1) = (rank + 1) * (j + 1)
        rcounts(j + 1) = (j + 1) * (rank + 1)
        sdispls(j + 1) = stotal
        rdispls(j + 1) = rtotal
        stotal = stotal + scounts(j + 1)
        rtotal = rtotal + rcounts(j + 1)
    end do
    allocate(sbuf(stotal), rbuf(rtotal))
    sbuf = rank
    call MPI_Alltoallv(sbuf, scounts, sdispls, MPI_INTEGER, rbuf, rcounts, rdispls, &
                       MPI_INTEGER, MPI_COMM_WORLD)
end subroutine alltoallv
