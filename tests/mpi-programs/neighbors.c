/* Neighbourhood collectives on the three kinds of virtual topology (tests/it/profile.rs
 * computes what each rank sends):
 *   a periodic 2-D Cartesian grid from MPI_Dims_create (no reordering): MPI_Neighbor_alltoallv
 *   sends 8 (i + 1) bytes to the i-th neighbour (per dimension, the rank at -1, then +1);
 *   a distributed graph where rank r sends to r + 1 and r + 3: MPI_Neighbor_allgather of
 *   100 bytes;
 *   a graph of the ring (neighbours r + 1 and r - 1): MPI_Ineighbor_allgather of 50 bytes.
 * Ranks wrap around p. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    char *out = calloc(1 << 16, 1), *in = calloc(1 << 16, 1);

    int dims[2] = {0, 0}, periods[2] = {1, 1};
    MPI_Dims_create(p, 2, dims);
    MPI_Comm grid;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    /* The neighbour at -1 along a dimension receives what this rank sends as to -1, and
     * it receives from there what that one sends to +1: receive counts swap in pairs. */
    int counts[4], recvcounts[4], displs[4];
    for (int i = 0; i < 4; i++) {
        counts[i] = 8 * (i + 1);
        recvcounts[i] = 8 * ((i ^ 1) + 1);
        displs[i] = 64 * i;
    }
    MPI_Neighbor_alltoallv(out, counts, displs, MPI_BYTE, in, recvcounts, displs, MPI_BYTE,
                           grid);
    MPI_Comm_free(&grid);

    int sources[2] = {(r + p - 1) % p, (r + p - 3) % p};
    int destinations[2] = {(r + 1) % p, (r + 3) % p};
    MPI_Comm dist;
    int weights[2] = {1, 1};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, weights, 2, destinations,
                                   weights, MPI_INFO_NULL, 0, &dist);
    MPI_Neighbor_allgather(out, 100, MPI_BYTE, in, 100, MPI_BYTE, dist);
    MPI_Comm_free(&dist);

    int *index = malloc(sizeof(int) * p), *edges = malloc(sizeof(int) * 2 * p);
    for (int v = 0; v < p; v++) {
        index[v] = 2 * (v + 1);
        edges[2 * v] = (v + 1) % p;
        edges[2 * v + 1] = (v + p - 1) % p;
    }
    MPI_Comm ring;
    MPI_Graph_create(MPI_COMM_WORLD, p, index, edges, 0, &ring);
    MPI_Request request;
    MPI_Ineighbor_allgather(out, 50, MPI_BYTE, in, 50, MPI_BYTE, ring, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Comm_free(&ring);

    free(index);
    free(edges);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
