/* Halo exchange on a 2-D periodic grid of px columns by py rows, px the largest divisor
 * of p not above sqrt(p) (2 for p = 4 and 8), py = p / px; world rank r sits at column
 * r % px, row r / px. Each exchange goes through a communicator made by MPI_Comm_split:
 *   rows: one per row (key = column, then MPI_Comm_dup'ed), communicator rank = column;
 *   columns: one per column with key = -row, so communicator rank k is row py - 1 - k
 *     and a reader must translate communicator ranks to world ranks to find the peers.
 * In a communicator of n ranks, rank k sends `next` doubles to (k + 1) mod n and `prev`
 * doubles to (k - 1) mod n (MPI_Irecv, MPI_Isend, MPI_Waitall):
 *   rows:    next = 100 (800 bytes to the east, column + 1), prev = 30 (240 bytes west);
 *   columns: next = 200 (1600 bytes to communicator rank k + 1, which is grid row
 *            row - 1), prev = 50 (400 bytes to grid row row + 1); rows mod py.
 * Traffic, r at (c, w): one message of 800 bytes to (c + 1 mod px, w), 240 to
 * (c - 1 mod px, w), 1600 to (c, w - 1 mod py), 400 to (c, w + 1 mod py); messages to
 * the same rank add up (with px = 2 east and west are one rank: 2 messages, 1040 bytes). */
#include <mpi.h>

static void exchange(MPI_Comm comm, int next_count, int prev_count) {
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    static double to_next[200], to_prev[200], from_prev[200], from_next[200];
    MPI_Request req[4];
    MPI_Irecv(from_prev, next_count, MPI_DOUBLE, prev, 1, comm, &req[0]);
    MPI_Irecv(from_next, prev_count, MPI_DOUBLE, next, 2, comm, &req[1]);
    MPI_Isend(to_next, next_count, MPI_DOUBLE, next, 1, comm, &req[2]);
    MPI_Isend(to_prev, prev_count, MPI_DOUBLE, prev, 2, comm, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int px = 1;
    for (int d = 1; d * d <= size; d++)
        if (size % d == 0)
            px = d;
    int col = rank % px, row = rank / px;
    MPI_Comm split_rows, rows, cols;
    MPI_Comm_split(MPI_COMM_WORLD, row, col, &split_rows);
    MPI_Comm_dup(split_rows, &rows);
    MPI_Comm_split(MPI_COMM_WORLD, col, -row, &cols);
    exchange(rows, 100, 30);
    exchange(cols, 200, 50);
    MPI_Comm_free(&split_rows);
    MPI_Comm_free(&rows);
    MPI_Comm_free(&cols);
    MPI_Finalize();
    return 0;
}
