/* Load-imbalance-bound by construction: rank 0 computes 100 ms per step, the others
 * 50 ms, then all meet in an allreduce of one double; 4 steps. On 4 ranks the ranks
 * compute 62.5 ms per step on average while a step lasts 100 ms: 37.5 % imbalance. */
#include <mpi.h>
#include "spin.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    double x = 1, sum;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int step = 0; step < 4; step++) {
        spin(rank == 0 ? 0.1 : 0.05);
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
