/* Ring: every rank r of p (p >= 2) sends 6 messages of 1000 bytes to its right
 * neighbour (r + 1) mod p and receives 6 from its left one, each message through a
 * different kind of send: MPI_Send, MPI_Ssend, MPI_Isend (250 MPI_INT), the send half of
 * MPI_Sendrecv, and one persistent request (MPI_Send_init) started twice, once by
 * MPI_Start and once by MPI_Startall. Each rank also sends once to MPI_PROC_NULL, which
 * is no traffic.
 * Traffic: (r, (r + 1) mod p) = 6 messages, 6000 bytes; nothing else. */
#include <mpi.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static char out[1000], in[1000];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    /* Blocking sends: even ranks send first, odd ranks receive first, so that even a
     * synchronous send completes for any p >= 2. */
    for (int i = 0; i < 2; i++) {
        if (rank % 2 == 0) {
            if (i == 0)
                MPI_Send(out, 1000, MPI_BYTE, right, i, MPI_COMM_WORLD);
            else
                MPI_Ssend(out, 1000, MPI_BYTE, right, i, MPI_COMM_WORLD);
            MPI_Recv(in, 1000, MPI_BYTE, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, 1000, MPI_BYTE, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (i == 0)
                MPI_Send(out, 1000, MPI_BYTE, right, i, MPI_COMM_WORLD);
            else
                MPI_Ssend(out, 1000, MPI_BYTE, right, i, MPI_COMM_WORLD);
        }
    }
    MPI_Request req[2];
    MPI_Irecv(in, 250, MPI_INT, left, 2, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(out, 250, MPI_INT, right, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    MPI_Sendrecv(out, 1000, MPI_BYTE, right, 3, in, 1000, MPI_BYTE, left, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Request persistent[2];
    MPI_Recv_init(in, 1000, MPI_BYTE, left, 4, MPI_COMM_WORLD, &persistent[0]);
    MPI_Send_init(out, 1000, MPI_BYTE, right, 4, MPI_COMM_WORLD, &persistent[1]);
    MPI_Start(&persistent[0]);
    MPI_Start(&persistent[1]);
    MPI_Waitall(2, persistent, MPI_STATUSES_IGNORE);
    MPI_Startall(2, persistent);
    MPI_Waitall(2, persistent, MPI_STATUSES_IGNORE);
    MPI_Request_free(&persistent[0]);
    MPI_Request_free(&persistent[1]);
    MPI_Send(out, 1000, MPI_BYTE, MPI_PROC_NULL, 5, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
