/* A collective's own contention: five rounds of an alltoall of 1 MiB blocks. On six
 * ranks MPICH's choice is the pairwise exchange (blocks above 32 KiB), 5 MiB out of
 * and into every rank per round. Placed with three ranks on each of two switches
 * joined by one cable (tests/fixtures/two-switch-3x2.dot), 9 of the 30 blocks cross
 * the cable in each direction; on one switch, every host link carries its own 5. */
#include <mpi.h>
#include <stdlib.h>

#define BLOCK (1 << 20)

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *out = calloc((size_t)BLOCK * size, 1);
    char *in = calloc((size_t)BLOCK * size, 1);
    for (int i = 0; i < 5; i++) {
        MPI_Alltoall(out, BLOCK, MPI_BYTE, in, BLOCK, MPI_BYTE, MPI_COMM_WORLD);
    }
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
