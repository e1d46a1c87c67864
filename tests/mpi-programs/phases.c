/* Two phases marked with MPI_Pcontrol annotations, each entered twice:
 *   "exchange": rank r sends 100 bytes to (r + 1) mod p;
 *   "reduce":   rank r sends 50 bytes to (r + p - 1) mod p.
 * Before the first annotation each rank sends 7 bytes to itself (Sendrecv), after the
 * last one ("done") nothing. So per phase, over the run: exchange r -> r+1, 2 messages,
 * 200 bytes; reduce r -> r-1, 2 messages, 100 bytes. The fixture in
 * tests/fixtures/dumpi/phases/ is this program traced by libdumpi under mpirun -n 4. */
#include <mpi.h>

static void shift(int to, int from, int bytes) {
    static char out[128], in[128];
    MPI_Request r[2];
    MPI_Irecv(in, bytes, MPI_BYTE, from, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(out, bytes, MPI_BYTE, to, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    char self_out[7], self_in[7];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Sendrecv(self_out, 7, MPI_BYTE, rank, 1, self_in, 7, MPI_BYTE, rank, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 2; i++) {
        MPI_Pcontrol(2, "exchange");
        shift((rank + 1) % size, (rank + size - 1) % size, 100);
        MPI_Pcontrol(2, "reduce");
        shift((rank + size - 1) % size, (rank + 1) % size, 50);
    }
    MPI_Pcontrol(2, "done");
    MPI_Finalize();
    return 0;
}
