/* Timing loops for the profiler's overhead (benches/profiler.rs), each printing the
 * mean time of one iteration in nanoseconds, as measured by rank 0:
 *   pingpong N: ranks 0 and 1 exchange 8-byte messages N times (MPI_Send/MPI_Recv);
 *   alltoall N: every rank calls MPI_Alltoall with 8 bytes per peer N times;
 *   isend N:    every rank sends 8 bytes to itself N times (MPI_Isend, MPI_Recv,
 *               MPI_Wait), so that the one recorded call dominates less than the
 *               network would. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        if (rank == 0)
            fprintf(stderr, "usage: overhead pingpong|alltoall|isend ITERATIONS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long n = atol(argv[2]);
    char *out = calloc((size_t)size * 8, 1), *in = calloc((size_t)size * 8, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    if (strcmp(argv[1], "pingpong") == 0) {
        for (long i = 0; i < n && rank < 2; i++) {
            if (rank == 0) {
                MPI_Send(out, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(in, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(in, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(out, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
        }
    } else if (strcmp(argv[1], "alltoall") == 0) {
        for (long i = 0; i < n; i++)
            MPI_Alltoall(out, 8, MPI_BYTE, in, 8, MPI_BYTE, MPI_COMM_WORLD);
    } else {
        MPI_Request request;
        for (long i = 0; i < n; i++) {
            MPI_Isend(out, 8, MPI_BYTE, rank, 0, MPI_COMM_WORLD, &request);
            MPI_Recv(in, 8, MPI_BYTE, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
        }
    }
    double elapsed = MPI_Wtime() - start;
    if (rank == 0)
        printf("%.3f\n", elapsed / (double)n * 1e9);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
