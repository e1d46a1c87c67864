/* Contention by construction: in every round, rank i < size/2 sends 16 MiB to rank
 * i + size/2 at the same time. Placed with half the ranks on each of two switches
 * joined by one cable (tests/fixtures/two-switch-3x2.dot), all the messages of a round
 * cross that cable together; on one switch, no two share a link. */
#include <mpi.h>
#include <stdlib.h>

#define BYTES (16 << 20)

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    char *buffer = calloc(BYTES, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int half = size / 2;
    for (int i = 0; i < 5; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank < half) {
            MPI_Send(buffer, BYTES, MPI_BYTE, rank + half, 0, MPI_COMM_WORLD);
        } else if (rank < 2 * half) {
            MPI_Recv(buffer, BYTES, MPI_BYTE, rank - half, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        }
    }
    free(buffer);
    MPI_Finalize();
    return 0;
}
