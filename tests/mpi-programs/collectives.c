/* One collective of each kind on MPI_COMM_WORLD (p ranks), then a broadcast on a split
 * communicator, plus one point-to-point exchange, so that the traffic is known for each
 * algorithm a reader may expand the collectives with:
 *   MPI_Barrier;
 *   MPI_Bcast of 4096 MPI_BYTEs from root 0;
 *   MPI_Reduce (MPI_SUM) of 256 MPI_DOUBLEs (2048 bytes) to root 1;
 *   MPI_Allreduce (MPI_SUM) of 16 MPI_INTs (64 bytes);
 *   MPI_Allgather of 256 MPI_BYTEs per rank;
 *   MPI_Alltoall of 100 MPI_INTs (400 bytes) per pair;
 *   MPI_Gather of 64 MPI_BYTEs per rank to root 2 mod p;
 *   MPI_Scatter of 128 MPI_BYTEs per rank from root 3 mod p;
 *   MPI_Reduce_scatter (MPI_SUM) with rank-dependent blocks: rank j gets 2 (j + 1)
 *     MPI_INTs (8 (j + 1) bytes); sst-dumpi does not record MPI_Reduce_scatter_block;
 *   MPI_Scan and MPI_Exscan (MPI_SUM) of 4 MPI_INTs (16 bytes);
 *   MPI_Bcast of 512 MPI_BYTEs from communicator rank 0 on halves split by r mod 2 with
 *     key = -r (communicator rank k of half h is its k-th largest world rank);
 *   point to point: MPI_Sendrecv of 3 MPI_DOUBLEs (24 bytes) with partner r xor 1
 *     (MPI_PROC_NULL when that is not a rank).
 * Which messages the collectives make depends on the algorithms: the test that reads the
 * trace states them per algorithm. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *big = calloc(1 << 20, 1), *big2 = calloc(1 << 20, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Bcast(big, 4096, MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Reduce(big, big2, 256, MPI_DOUBLE, MPI_SUM, 1 % size, MPI_COMM_WORLD);
    MPI_Allreduce(big, big2, 16, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allgather(big, 256, MPI_BYTE, big2, 256, MPI_BYTE, MPI_COMM_WORLD);
    MPI_Alltoall(big, 100, MPI_INT, big2, 100, MPI_INT, MPI_COMM_WORLD);
    MPI_Gather(big, 64, MPI_BYTE, big2, 64, MPI_BYTE, 2 % size, MPI_COMM_WORLD);
    MPI_Scatter(big, 128, MPI_BYTE, big2, 128, MPI_BYTE, 3 % size, MPI_COMM_WORLD);
    int *blocks = malloc(size * sizeof(int));
    for (int j = 0; j < size; j++)
        blocks[j] = 2 * (j + 1);
    MPI_Reduce_scatter(big, big2, blocks, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    free(blocks);
    MPI_Scan(big, big2, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(big, big2, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    MPI_Bcast(big, 512, MPI_BYTE, 0, half);
    MPI_Comm_free(&half);
    int partner = (rank ^ 1) < size ? rank ^ 1 : MPI_PROC_NULL;
    MPI_Sendrecv(big, 3, MPI_DOUBLE, partner, 0, big2, 3, MPI_DOUBLE, partner, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    free(big);
    free(big2);
    MPI_Finalize();
    return 0;
}
