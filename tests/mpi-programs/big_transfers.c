/* Bandwidth-bound by construction: ranks 2k and 2k+1 swap 16 MiB 10 times with
 * MPI_Sendrecv and compute nothing. On Gigabit Ethernet a swap costs 50 µs of latency
 * and 134 ms of bandwidth. */
#include <mpi.h>
#include <stdlib.h>

#define BYTES (16 << 20)

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    char *out = calloc(BYTES, 1), *in = calloc(BYTES, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = rank ^ 1;
    for (int i = 0; i < 10; i++) {
        MPI_Sendrecv(out, BYTES, MPI_BYTE, peer, 0, in, BYTES, MPI_BYTE, peer, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
