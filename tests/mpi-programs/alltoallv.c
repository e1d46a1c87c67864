/* Alltoallv with rank-dependent counts: rank r of p sends (r + 1)(j + 1) MPI_INTs to
 * every rank j, and receives (j + 1)(r + 1) from each.
 * Traffic (a rank's own block is a local copy, no message): (r, j) = one message of
 * 4 (r + 1)(j + 1) bytes for every j != r. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *scounts = malloc(size * sizeof(int)), *sdispls = malloc(size * sizeof(int));
    int *rcounts = malloc(size * sizeof(int)), *rdispls = malloc(size * sizeof(int));
    int stotal = 0, rtotal = 0;
    for (int j = 0; j < size; j++) {
        scounts[j] = (rank + 1) * (j + 1);
        rcounts[j] = (j + 1) * (rank + 1);
        sdispls[j] = stotal;
        rdispls[j] = rtotal;
        stotal += scounts[j];
        rtotal += rcounts[j];
    }
    int *sbuf = calloc(stotal, sizeof(int)), *rbuf = calloc(rtotal, sizeof(int));
    MPI_Alltoallv(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT,
                  MPI_COMM_WORLD);
    free(sbuf);
    free(rbuf);
    free(scounts);
    free(sdispls);
    free(rcounts);
    free(rdispls);
    MPI_Finalize();
    return 0;
}
