/* Computation that takes `seconds` of wall-clock time whatever else runs on the machine
 * (ranks may share cores), so that the trace's computation is known. It reads the
 * clock with clock_gettime, not MPI_Wtime, which the tracer would record. */
#include <time.h>

static double spin_sink;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void spin(double seconds) {
    double start = now();
    while (now() - start < seconds) {
        spin_sink += 1e-9;
    }
}
