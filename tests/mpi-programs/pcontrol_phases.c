/* A program whose traffic is known in closed form, one kind of traffic per
 * MPI_Pcontrol phase (tests/it/profile.rs computes what each rank sends), for the
 * profiler:
 *   1. a ring: rank r sends 1000 (r + 1) bytes to r + 1 three times (Send, Isend, Ssend);
 *   2. MPI_Alltoallv: rank r sends 4 (r + 1)(j + 1) bytes to every j;
 *   3. a split communicator with the ranks reversed: each rank sends 64 bytes to its
 *      right neighbour in it and 8 bytes to its left one (Sendrecv);
 *   4. a persistent send of 256 bytes to r + 2, started 5 times;
 *   5. MPI_Bcast of 100 bytes from rank 0.
 * Ranks wrap around p. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    char *out = calloc(1 << 20, 1), *in = calloc(1 << 20, 1);
    int next = (r + 1) % p, prev = (r + p - 1) % p;

    MPI_Pcontrol(1);
    int n = 1000 * (r + 1), m = 1000 * (prev + 1);
    MPI_Request req;
    MPI_Sendrecv(out, n, MPI_BYTE, next, 0, in, m, MPI_BYTE, prev, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Isend(out, n, MPI_BYTE, next, 1, MPI_COMM_WORLD, &req);
    MPI_Recv(in, m, MPI_BYTE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Irecv(in, m, MPI_BYTE, prev, 2, MPI_COMM_WORLD, &req);
    MPI_Ssend(out, n, MPI_BYTE, next, 2, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    MPI_Pcontrol(2);
    int *sendcounts = malloc(sizeof(int) * p), *recvcounts = malloc(sizeof(int) * p);
    int *sdispls = malloc(sizeof(int) * p), *rdispls = malloc(sizeof(int) * p);
    int sd = 0, rd = 0;
    for (int j = 0; j < p; j++) {
        sendcounts[j] = (r + 1) * (j + 1);
        recvcounts[j] = (j + 1) * (r + 1);
        sdispls[j] = sd;
        rdispls[j] = rd;
        sd += sendcounts[j];
        rd += recvcounts[j];
    }
    MPI_Alltoallv(out, sendcounts, sdispls, MPI_INT, in, recvcounts, rdispls, MPI_INT,
                  MPI_COMM_WORLD);

    MPI_Pcontrol(3);
    MPI_Comm reversed;
    MPI_Comm_split(MPI_COMM_WORLD, 0, p - 1 - r, &reversed);
    int lr, right, left;
    MPI_Comm_rank(reversed, &lr);
    right = (lr + 1) % p;
    left = (lr + p - 1) % p;
    MPI_Sendrecv(out, 8, MPI_DOUBLE, right, 3, in, 8, MPI_DOUBLE, left, 3, reversed,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(out, 1, MPI_DOUBLE, left, 4, in, 1, MPI_DOUBLE, right, 4, reversed,
                 MPI_STATUS_IGNORE);
    MPI_Comm_free(&reversed);

    MPI_Pcontrol(4);
    MPI_Request persistent;
    MPI_Send_init(out, 256, MPI_BYTE, (r + 2) % p, 5, MPI_COMM_WORLD, &persistent);
    for (int k = 0; k < 5; k++) {
        MPI_Start(&persistent);
        MPI_Recv(in, 256, MPI_BYTE, (r + p - 2) % p, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&persistent, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&persistent);

    MPI_Pcontrol(5);
    MPI_Bcast(out, 100, MPI_BYTE, 0, MPI_COMM_WORLD);

    MPI_Pcontrol(0);
    free(out);
    free(in);
    free(sendcounts);
    free(recvcounts);
    free(sdispls);
    free(rdispls);
    MPI_Finalize();
    return 0;
}
