/* MPI 4's large-count (_c) functions and persistent collectives (MPI_X_init), on p >= 3
 * ranks (so that left and right neighbours differ):
 * - to the right neighbour (r + 1) mod p, 1000 bytes through MPI_Send_c, through
 *   MPI_Isend_c, and through a persistent MPI_Send_init_c started once;
 * - MPI_Alltoallv_c: r sends (r + 1)(j + 1) MPI_INTs to every rank j (MPI_Count counts,
 *   MPI_Aint displacements);
 * - MPI_Bcast_init of 4096 bytes from root 0, started twice (MPI_Start, MPI_Startall);
 *   MPI_Bcast_init_c of 512 bytes from root 1, started once; both short bcasts, which
 *   MPICH runs as binomial trees;
 * - MPI_Neighbor_alltoall_init on a periodic 1-D Cartesian ring: 16 bytes to each
 *   neighbour, left (r - 1) then right (r + 1), started once. An initialised request
 *   that is freed without a start sends nothing.
 * Traffic: (r, r + 1) = 3 messages of 1000 bytes and one of 16; (r, r - 1) = one of 16;
 * (r, j) = 4 (r + 1)(j + 1) bytes for j != r; the binomial trees of the bcasts (twice
 * the one of root 0). */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static char out[1000], in[3][1000];

    MPI_Request recvs[3], sends[2], persistent;
    for (int i = 0; i < 3; i++)
        MPI_Irecv_c(in[i], 1000, MPI_BYTE, left, i, MPI_COMM_WORLD, &recvs[i]);
    MPI_Send_c(out, 1000, MPI_BYTE, right, 0, MPI_COMM_WORLD);
    MPI_Isend_c(out, 1000, MPI_BYTE, right, 1, MPI_COMM_WORLD, &sends[0]);
    MPI_Send_init_c(out, 1000, MPI_BYTE, right, 2, MPI_COMM_WORLD, &persistent);
    MPI_Start(&persistent);
    sends[1] = persistent;
    MPI_Waitall(2, sends, MPI_STATUSES_IGNORE);
    MPI_Waitall(3, recvs, MPI_STATUSES_IGNORE);
    MPI_Request_free(&persistent);

    MPI_Count *scounts = malloc(size * sizeof(MPI_Count));
    MPI_Count *rcounts = malloc(size * sizeof(MPI_Count));
    MPI_Aint *sdispls = malloc(size * sizeof(MPI_Aint));
    MPI_Aint *rdispls = malloc(size * sizeof(MPI_Aint));
    MPI_Aint stotal = 0, rtotal = 0;
    for (int j = 0; j < size; j++) {
        scounts[j] = (MPI_Count)(rank + 1) * (j + 1);
        rcounts[j] = (MPI_Count)(j + 1) * (rank + 1);
        sdispls[j] = stotal;
        rdispls[j] = rtotal;
        stotal += scounts[j];
        rtotal += rcounts[j];
    }
    int *sbuf = calloc(stotal, sizeof(int)), *rbuf = calloc(rtotal, sizeof(int));
    MPI_Alltoallv_c(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT,
                    MPI_COMM_WORLD);

    static char big[4096], small[512];
    MPI_Request bcast, bcast_c;
    MPI_Bcast_init(big, 4096, MPI_BYTE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &bcast);
    MPI_Bcast_init_c(small, 512, MPI_BYTE, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &bcast_c);
    MPI_Start(&bcast);
    MPI_Wait(&bcast, MPI_STATUS_IGNORE);
    MPI_Request both[2] = {bcast, bcast_c};
    MPI_Startall(2, both);
    MPI_Waitall(2, both, MPI_STATUSES_IGNORE);
    MPI_Request_free(&both[0]);
    MPI_Request_free(&both[1]);

    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    static char nout[2][16], nin[2][16];
    MPI_Request neighbours, unused;
    MPI_Neighbor_alltoall_init(nout, 16, MPI_BYTE, nin, 16, MPI_BYTE, ring, MPI_INFO_NULL,
                               &neighbours);
    MPI_Neighbor_alltoall_init(nout, 16, MPI_BYTE, nin, 16, MPI_BYTE, ring, MPI_INFO_NULL,
                               &unused);
    MPI_Start(&neighbours);
    MPI_Wait(&neighbours, MPI_STATUS_IGNORE);
    MPI_Request_free(&neighbours);
    MPI_Request_free(&unused);
    MPI_Comm_free(&ring);

    free(sbuf);
    free(rbuf);
    free(scounts);
    free(rcounts);
    free(sdispls);
    free(rdispls);
    MPI_Finalize();
    return 0;
}
