/* Latency-bound by construction: ranks 2k and 2k+1 exchange 8-byte messages 2000 times
 * and compute nothing. On Gigabit Ethernet (50 µs, 8 ns/B) a message costs 50 µs of
 * latency and 64 ns of bandwidth. */
#include <mpi.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    double message = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = rank ^ 1;
    for (int i = 0; i < 2000; i++) {
        if (rank % 2 == 0) {
            MPI_Send(&message, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
            MPI_Recv(&message, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&message, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&message, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
