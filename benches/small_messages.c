/* The trace of the speed benchmark (benches/trace.rs): ranks paired as r and r xor 1
 * (an even number of ranks) exchange one 8-byte message each way per iteration, with
 * MPI_Irecv, MPI_Isend and MPI_Waitall, for the number of iterations given as the only
 * argument; the trace's size grows linearly with it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    long iterations = argc > 1 ? atol(argv[1]) : 0;
    if (iterations <= 0) {
        fprintf(stderr, "usage: small_messages ITERATIONS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int partner = rank ^ 1;
    double out = rank, in;
    MPI_Request req[2];
    for (long i = 0; i < iterations; i++) {
        MPI_Irecv(&in, 1, MPI_DOUBLE, partner, 0, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(&out, 1, MPI_DOUBLE, partner, 0, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
