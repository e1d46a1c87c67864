/* One-sided communication in one fence epoch, on a window over a communicator that
 * orders the ranks backwards (MPI_Comm_split with key = -rank: world rank r is window
 * rank p - 1 - r), so a reader must translate window ranks to world ranks. World rank r
 * of p (p <= 48, so that the puts fit below the other accesses):
 *   MPI_Put of 64 (r + 1) MPI_BYTEs into world rank (r + 1) mod p, at offset 0;
 *   MPI_Accumulate (MPI_SUM) of 6 MPI_INTs into world rank (r + 3) mod p, at offset 3072;
 *   MPI_Get of 4 MPI_DOUBLEs from world rank (r + 2) mod p, at offset 3584.
 * Traffic (the direction data moves): r -> (r + 1) mod p, 64 (r + 1) bytes;
 * r -> (r + 3) mod p, 24 bytes; (r + 2) mod p -> r, 32 bytes; one message each, those to
 * the same pair adding up. */
#include <mpi.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm backwards;
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &backwards);
    static char window[4096], out[4096];
    static int sums[6];
    static double got[4];
    MPI_Win win;
    MPI_Win_create(window, sizeof window, 1, MPI_INFO_NULL, backwards, &win);
#define WINDOW_RANK(world) (size - 1 - (world))
    MPI_Win_fence(0, win);
    MPI_Put(out, 64 * (rank + 1), MPI_BYTE, WINDOW_RANK((rank + 1) % size), 0, 64 * (rank + 1),
            MPI_BYTE, win);
    MPI_Accumulate(sums, 6, MPI_INT, WINDOW_RANK((rank + 3) % size), 3072, 6, MPI_INT, MPI_SUM,
                   win);
    MPI_Get(got, 4, MPI_DOUBLE, WINDOW_RANK((rank + 2) % size), 3584, 4, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Comm_free(&backwards);
    MPI_Finalize();
    return 0;
}
