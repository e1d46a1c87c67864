/*
 * The MPI side of orcs-profiler: wrappers of the MPI calls that move data, each
 * recording what it sends and then calling the MPI library's own function.
 *
 * The wrappers are named orcs_wrap_MPI_X: the library exports MPI_X, and PMPI_X, as a
 * jump to orcs_wrap_MPI_X (src/interpose.rs), since a Rust shared library exports only
 * symbols defined in Rust. PMPI_X is exported for the Fortran bindings: Open MPI's call
 * PMPI_X (MPICH's call MPI_X). The wrappers then call the MPI library's PMPI_X through
 * REAL, found with dlsym(RTLD_NEXT).
 *
 * This file only translates MPI's handles and arguments into plain integers (a handle
 * key, a peer's rank, a byte count); what is counted, and the files, are in Rust
 * (src/ffi.rs). It is C because MPI's handle types differ between implementations
 * (pointers in Open MPI, integers in MPICH) and only mpi.h knows them.
 *
 * A communicator is described to the Rust side the first time it is used, from its
 * group: so every communicator counts, whatever call made it (Cart_create,
 * Comm_split_type, Intercomm_create, Dist_graph_create, ...). MPI_Comm_free forgets it,
 * since its handle may come back for another one.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <mpi.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The Rust side (src/ffi.rs). */
void orcs_prof_start(int rank, int size, const char *host);
int orcs_prof_knows(uint64_t comm);
void orcs_prof_register(uint64_t comm, int n, const int *peers, int rank, int inter);
void orcs_prof_forget(uint64_t comm);
int orcs_prof_send(uint64_t comm, int peer, uint64_t bytes);
void orcs_prof_pull(uint64_t comm, int peer, uint64_t bytes);
void orcs_prof_pulled_pairs(int level, uint64_t *out);
void orcs_prof_add_served(int level, const uint64_t *pairs);
void orcs_prof_persistent(uint64_t request, uint64_t comm, int peer, uint64_t bytes);
void orcs_prof_persistent_add(uint64_t request, uint64_t comm, int peer, uint64_t bytes);
int orcs_prof_persistent_collective(uint64_t request, uint64_t comm, int op, int root,
                                    int commutative, uint64_t bytes, const uint64_t *per_rank,
                                    int n);
void orcs_prof_start_request(uint64_t request);
void orcs_prof_free_request(uint64_t request);
int orcs_prof_collective(uint64_t comm, int op, int root, int commutative, uint64_t bytes,
                         const uint64_t *per_rank, int n);
void orcs_prof_pcontrol(int level);
uint64_t orcs_prof_levels(void);
int orcs_prof_used_pcontrol(void);
void orcs_prof_ensure_phases(uint64_t levels, int pcontrol);
void orcs_prof_tx_pairs(int level, uint64_t *out);
void orcs_prof_set_rx(int level, const uint64_t *pairs);
int64_t orcs_prof_row_len(int level);
void orcs_prof_row(int level, uint64_t *out);
int orcs_prof_write_matrix(int level, const uint64_t *rows, const int64_t *lengths);
int orcs_prof_finish(void);

/* Indices into orcs's CollectiveOp::ALL. */
enum {
    OP_BARRIER, OP_BCAST, OP_GATHER, OP_GATHERV, OP_SCATTER, OP_SCATTERV, OP_ALLGATHER,
    OP_ALLGATHERV, OP_ALLTOALL, OP_ALLTOALLV, OP_ALLTOALLW, OP_REDUCE, OP_ALLREDUCE,
    OP_REDUCE_SCATTER, OP_REDUCE_SCATTER_BLOCK, OP_SCAN, OP_EXSCAN
};

/* Between MPI_Init and MPI_Finalize. */
static int active = 0;

/* Nonzero on a thread while it is inside the MPI library's own function, called by a
 * wrapper here. What MPI does there through functions this library also exports under
 * their PMPI names (Open MPI's MPI_Sendrecv_replace calls PMPI_Sendrecv) is part of the
 * application's call, already recorded, and not recorded again. Initial-exec: the
 * library is loaded at start-up (preloaded or linked), and the wrappers are hot. */
static __thread int inside_mpi __attribute__((tls_model("initial-exec"))) = 0;

/* Whether a wrapper records the call it wraps: after MPI_Init, and not inside another
 * wrapped call. */
static inline int recording(void)
{
    return active && !inside_mpi;
}

/* The MPI library's own PMPI_`name`: the definition after this library's. This library
 * exports the PMPI names too, since Open MPI's Fortran bindings call PMPI_X rather than
 * MPI_X; so its wrappers cannot call PMPI_X by name, which would be their own export. */
static void *mpi_function(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "orcs-profiler: the MPI library has no %s: %s\n", name, dlerror());
        abort();
    }
    return f;
}

/* Calls the MPI library's PMPI_`NAME` with the parenthesised `ARGS`, with recording off
 * while it runs. The function is looked up once per call site (a relaxed atomic: every
 * thread that looks it up finds the same address). NAME is expanded first, so that it
 * may be SUFFIXED(...). */
#define REAL(NAME, ARGS) REAL_(NAME, ARGS)
#define REAL_(NAME, ARGS)                                                                    \
    ({                                                                                       \
        static __typeof__(&PMPI_##NAME) real_;                                               \
        __typeof__(&PMPI_##NAME) f_ = __atomic_load_n(&real_, __ATOMIC_RELAXED);             \
        if (!f_) {                                                                           \
            f_ = (__typeof__(&PMPI_##NAME))mpi_function("PMPI_" #NAME);                      \
            __atomic_store_n(&real_, f_, __ATOMIC_RELAXED);                                  \
        }                                                                                    \
        inside_mpi++;                                                                        \
        int rc_ = f_ ARGS;                                                                   \
        inside_mpi--;                                                                        \
        rc_;                                                                                 \
    })

/* A handle as an integer key: a pointer in Open MPI, an int in MPICH. */
#define KEY(handle) ((uint64_t)(uintptr_t)(handle))

static uint64_t bytes_of(MPI_Count count, MPI_Datatype type)
{
    MPI_Count size = 0;
    if (count <= 0 || PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size < 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

/* An array of counts, one per rank or neighbour: ints, or MPI 4's MPI_Counts in the
 * large-count (_c) functions. */
typedef struct {
    const void *at;
    int wide;
} Counts;

static MPI_Count count_at(Counts counts, int i)
{
    return counts.wide ? ((const MPI_Count *)counts.at)[i] : ((const int *)counts.at)[i];
}

/* Describes the communicator or window of `key` to the Rust side: the world rank of
 * each rank of `group` (which it frees), this process's `rank` in it, and whether it
 * is an intercommunicator's remote group. */
static void describe_group(uint64_t key, MPI_Group group, int rank, int inter)
{
    int n = 0;
    MPI_Group world;
    PMPI_Group_size(group, &n);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    int *local = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *peers = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (local && peers) {
        for (int i = 0; i < n; i++)
            local[i] = i;
        if (PMPI_Group_translate_ranks(group, n, local, world, peers) == MPI_SUCCESS)
            orcs_prof_register(key, n, peers, rank, inter);
    }
    free(local);
    free(peers);
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
}

/* Describes `comm`: its group's world ranks (the remote group's for an
 * intercommunicator, whose point-to-point peers are there). */
static void describe(MPI_Comm comm, uint64_t key)
{
    int inter = 0, rank = 0;
    MPI_Group group;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return;
    if ((inter ? PMPI_Comm_remote_group(comm, &group) : PMPI_Comm_group(comm, &group)) !=
        MPI_SUCCESS)
        return;
    PMPI_Comm_rank(comm, &rank);
    describe_group(key, group, rank, inter);
}

/* A window's key: its handle with the top bit set, apart from communicators' keys. */
#define WIN_KEY(win) (KEY(win) | ((uint64_t)1 << 63))

/* The key of window `win`, described like a communicator from its group the first
 * time. */
static uint64_t win_key(MPI_Win win)
{
    uint64_t key = WIN_KEY(win);
    MPI_Group group;
    int rank = 0;
    if (!orcs_prof_knows(key) && PMPI_Win_get_group(win, &group) == MPI_SUCCESS) {
        PMPI_Group_rank(group, &rank);
        describe_group(key, group, rank, 0);
    }
    return key;
}

static uint64_t comm_key(MPI_Comm comm)
{
    uint64_t key = KEY(comm);
    if (!orcs_prof_knows(key))
        describe(comm, key);
    return key;
}

static int rank_in(MPI_Comm comm)
{
    int rank = -1;
    PMPI_Comm_rank(comm, &rank);
    return rank;
}

/* While a wrapper makes a persistent collective request (MPI 4's MPI_X_init), the
 * request: what the call would record is kept for each MPI_Start of it instead. */
static __thread uint64_t capture_request __attribute__((tls_model("initial-exec")));
static __thread int capturing __attribute__((tls_model("initial-exec")));

static void record_send(MPI_Count count, MPI_Datatype type, int dest, MPI_Comm comm)
{
    if (!recording() || dest == MPI_PROC_NULL)
        return;
    uint64_t bytes = bytes_of(count, type);
    if (capturing) {
        orcs_prof_persistent_add(capture_request, comm_key(comm), dest, bytes);
        return;
    }
    /* One call when the communicator is known, the common case. */
    if (!orcs_prof_send(KEY(comm), dest, bytes))
        orcs_prof_send(comm_key(comm), dest, bytes);
}

static void record_persistent(MPI_Count count, MPI_Datatype type, int dest, MPI_Comm comm,
                              int rc, MPI_Request *request)
{
    if (!recording() || rc != MPI_SUCCESS || dest == MPI_PROC_NULL)
        return;
    orcs_prof_persistent(KEY(*request), comm_key(comm), dest, bytes_of(count, type));
}

static int commutes(MPI_Op op)
{
    int commute = 1;
    if (PMPI_Op_commutative(op, &commute) != MPI_SUCCESS)
        commute = 1;
    return commute;
}

/* A collective with one size, or `n` sizes at `per_rank`: counted now, or kept for the
 * starts of the persistent request being made. */
static void collective(MPI_Comm comm, int op, int root, int commutative, uint64_t bytes,
                       const uint64_t *per_rank, int n)
{
    if (capturing)
        orcs_prof_persistent_collective(capture_request, comm_key(comm), op, root, commutative,
                                        bytes, per_rank, n);
    else if (!orcs_prof_collective(KEY(comm), op, root, commutative, bytes, per_rank, n))
        orcs_prof_collective(comm_key(comm), op, root, commutative, bytes, per_rank, n);
}

/* A collective with one size. */
static void record_collective(MPI_Comm comm, int op, int root, int commutative, uint64_t bytes)
{
    if (recording())
        collective(comm, op, root, commutative, bytes, NULL, 0);
}

/* A collective with one size per rank: counts[i] × size(types[i]) (or of `type` for
 * all when `types` is NULL), over the communicator's size (its remote group's for an
 * intercommunicator, which the model does not expand). */
static void record_per_rank(MPI_Comm comm, int op, int root, int commutative, Counts counts,
                            MPI_Datatype type, const MPI_Datatype types[])
{
    if (!recording())
        return;
    int n = 0, inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if ((inter ? PMPI_Comm_remote_size(comm, &n) : PMPI_Comm_size(comm, &n)) != MPI_SUCCESS ||
        n <= 0 || counts.at == NULL)
        return;
    uint64_t *sizes = malloc(sizeof(uint64_t) * (size_t)n);
    if (!sizes)
        return;
    for (int i = 0; i < n; i++)
        sizes[i] = bytes_of(count_at(counts, i), types ? types[i] : type);
    collective(comm, op, root, commutative, 0, sizes, n);
    free(sizes);
}

/* The root gathers a block of its own size from each rank; the others send one. */
static void record_gatherv(MPI_Comm comm, int root, MPI_Count scount, MPI_Datatype stype,
                           Counts rcounts, MPI_Datatype rtype)
{
    if (!recording())
        return;
    if (rank_in(comm) == root)
        record_per_rank(comm, OP_GATHERV, root, 1, rcounts, rtype, NULL);
    else
        record_collective(comm, OP_GATHERV, root, 1, bytes_of(scount, stype));
}

/* The root scatters a block of its own size to each rank; the others receive one. */
static void record_scatterv(MPI_Comm comm, int root, Counts scounts, MPI_Datatype stype,
                            MPI_Count rcount, MPI_Datatype rtype)
{
    if (!recording())
        return;
    if (rank_in(comm) == root)
        record_per_rank(comm, OP_SCATTERV, root, 1, scounts, stype, NULL);
    else
        record_collective(comm, OP_SCATTERV, root, 1, bytes_of(rcount, rtype));
}

/* Data from this rank to `target` of the window. */
static void record_put(MPI_Count count, MPI_Datatype type, int target, MPI_Win win)
{
    if (recording() && target != MPI_PROC_NULL)
        (void)orcs_prof_send(win_key(win), target, bytes_of(count, type));
}

/* Data from `target` of the window to this rank. */
static void record_get(MPI_Count count, MPI_Datatype type, int target, MPI_Win win)
{
    if (recording() && target != MPI_PROC_NULL)
        orcs_prof_pull(win_key(win), target, bytes_of(count, type));
}

/* Get_accumulate: the origin's data to the target, the target's old data back. */
static void record_get_accumulate(MPI_Count origin_count, MPI_Datatype origin_type,
                                  MPI_Count result_count, MPI_Datatype result_type, int target,
                                  MPI_Win win)
{
    record_put(origin_count, origin_type, target, win);
    record_get(result_count, result_type, target, win);
}

/* The destinations of `comm`'s virtual topology in MPI's neighbour order (for a
 * Cartesian one, per dimension the rank at −1 then the one at +1; MPI_PROC_NULL kept
 * in its place), into a new array; its length in *count. NULL without a topology. */
static int *destinations(MPI_Comm comm, int *count)
{
    int kind = MPI_UNDEFINED, n = 0;
    *count = 0;
    if (PMPI_Topo_test(comm, &kind) != MPI_SUCCESS)
        return NULL;
    int *out = NULL;
    if (kind == MPI_CART) {
        int dims = 0;
        PMPI_Cartdim_get(comm, &dims);
        out = malloc(sizeof(int) * (size_t)(2 * dims > 0 ? 2 * dims : 1));
        for (int d = 0; out && d < dims; d++) {
            int source, dest;
            PMPI_Cart_shift(comm, d, 1, &source, &dest);
            /* The neighbour at −1 along d is the source of a shift by +1. */
            out[2 * d] = source;
            out[2 * d + 1] = dest;
        }
        n = 2 * dims;
    } else if (kind == MPI_GRAPH) {
        int rank = 0;
        PMPI_Comm_rank(comm, &rank);
        PMPI_Graph_neighbors_count(comm, rank, &n);
        out = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
        if (out)
            PMPI_Graph_neighbors(comm, rank, n, out);
    } else if (kind == MPI_DIST_GRAPH) {
        int indegree = 0, weighted = 0;
        PMPI_Dist_graph_neighbors_count(comm, &indegree, &n, &weighted);
        /* Weight arrays whether or not the graph has weights: MPI fills them or not. */
        size_t ins = (size_t)(indegree > 0 ? indegree : 1), outs = (size_t)(n > 0 ? n : 1);
        int *in = malloc(sizeof(int) * ins), *in_weights = malloc(sizeof(int) * ins);
        int *out_weights = malloc(sizeof(int) * outs);
        out = malloc(sizeof(int) * outs);
        if (in && in_weights && out_weights && out)
            PMPI_Dist_graph_neighbors(comm, indegree, in, in_weights, n, out, out_weights);
        else
            n = 0;
        free(in);
        free(in_weights);
        free(out_weights);
    }
    if (!out)
        return NULL;
    *count = n;
    return out;
}

/* A neighbourhood collective: to the i-th destination, counts[i] × size(types[i]), or
 * `count` × size(`type`) to each when `counts` is NULL (`types` NULL: `type` for all). */
static void record_neighbors(MPI_Comm comm, MPI_Count count, MPI_Datatype type, Counts counts,
                             const MPI_Datatype types[])
{
    if (!recording())
        return;
    int n = 0;
    int *dest = destinations(comm, &n);
    if (!dest)
        return;
    for (int i = 0; i < n; i++)
        record_send(counts.at ? count_at(counts, i) : count, types ? types[i] : type, dest[i],
                    comm);
    free(dest);
}

/* ---- start and end --------------------------------------------------------------- */

static void begin(void)
{
    int rank = 0, size = 0, length = 0;
    char host[MPI_MAX_PROCESSOR_NAME + 1] = {0};
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    if (PMPI_Get_processor_name(host, &length) != MPI_SUCCESS)
        host[0] = 0;
    orcs_prof_start(rank, size, host);
    active = 1;
    comm_key(MPI_COMM_WORLD);
}

int orcs_wrap_MPI_Init(int *argc, char ***argv)
{
    int rc = REAL(Init, (argc, argv));
    if (rc == MPI_SUCCESS)
        begin();
    return rc;
}

int orcs_wrap_MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = REAL(Init_thread, (argc, argv, required, provided));
    if (rc == MPI_SUCCESS)
        begin();
    return rc;
}

/* Every rank takes part in the same collectives here whatever fails on its own side,
 * so that no rank waits for another forever; a rank that cannot gather says so. */
static void finish(void)
{
    int rank = 0, size = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    /* The phases some rank entered, and whether any called MPI_Pcontrol. */
    uint64_t levels = orcs_prof_levels(), all_levels = 0;
    int pcontrol = orcs_prof_used_pcontrol(), any_pcontrol = 0;
    REAL(Allreduce, (&levels, &all_levels, 1, MPI_UINT64_T, MPI_BOR, MPI_COMM_WORLD));
    REAL(Allreduce, (&pcontrol, &any_pcontrol, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    orcs_prof_ensure_phases(all_levels, any_pcontrol);
    uint64_t *tx = malloc(sizeof(uint64_t) * 2 * (size_t)size);
    uint64_t *rx = malloc(sizeof(uint64_t) * 2 * (size_t)size);
    int64_t *lengths = rank == 0 ? malloc(sizeof(int64_t) * (size_t)size) : NULL;
    int *counts = rank == 0 ? malloc(sizeof(int) * (size_t)size) : NULL;
    int *displs = rank == 0 ? malloc(sizeof(int) * (size_t)size) : NULL;
    int ok = tx && rx && (rank != 0 || (lengths && counts && displs)), all_ok = 0;
    REAL(Allreduce, (&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (!all_ok) {
        if (rank == 0)
            fprintf(stderr, "orcs-profiler: out of memory at MPI_Finalize: no matrix written\n");
        all_levels = 0;
    }
    for (int level = 0; level < 64; level++) {
        if (!(all_levels >> level & 1))
            continue;
        /* What each rank fetched from the others becomes the others' sends. */
        orcs_prof_pulled_pairs(level, tx);
        REAL(Alltoall, (tx, 2, MPI_UINT64_T, rx, 2, MPI_UINT64_T, MPI_COMM_WORLD));
        orcs_prof_add_served(level, rx);
        orcs_prof_tx_pairs(level, tx);
        REAL(Alltoall, (tx, 2, MPI_UINT64_T, rx, 2, MPI_UINT64_T, MPI_COMM_WORLD));
        orcs_prof_set_rx(level, rx);
        int64_t length = orcs_prof_row_len(level);
        uint64_t *row = malloc(sizeof(uint64_t) * (size_t)(length > 0 ? length : 1));
        if (!row || length > INT_MAX)
            length = 0;
        else
            orcs_prof_row(level, row);
        REAL(Gather, (&length, 1, MPI_INT64_T, lengths, 1, MPI_INT64_T, 0, MPI_COMM_WORLD));
        uint64_t *rows = NULL;
        int gather = 1;
        if (rank == 0) {
            int64_t total = 0;
            for (int r = 0; r < size; r++) {
                displs[r] = (int)total;
                counts[r] = (int)lengths[r];
                total += lengths[r];
                if (total > INT_MAX)
                    break;
            }
            rows = total <= INT_MAX ? malloc(sizeof(uint64_t) * (size_t)(total > 0 ? total : 1))
                                    : NULL;
            gather = rows != NULL;
            if (!gather)
                fprintf(stderr, "orcs-profiler: the matrix of phase %d is too large to gather: "
                                "not written\n", level);
        }
        REAL(Bcast, (&gather, 1, MPI_INT, 0, MPI_COMM_WORLD));
        if (gather) {
            REAL(Gatherv, (row, (int)length, MPI_UINT64_T, rows, counts, displs, MPI_UINT64_T, 0,
                         MPI_COMM_WORLD));
            if (rank == 0)
                orcs_prof_write_matrix(level, rows, lengths);
        }
        free(rows);
        free(row);
    }
    free(tx);
    free(rx);
    free(lengths);
    free(counts);
    free(displs);
    orcs_prof_finish();
    /* No rank leaves MPI_Finalize before every file is written: a launcher that ends
     * the job when one rank exits (with an error status, say) would cut them short. */
    REAL(Barrier, (MPI_COMM_WORLD));
}

int orcs_wrap_MPI_Finalize(void)
{
    if (active)
        finish();
    active = 0;
    return REAL(Finalize, ());
}

int orcs_wrap_MPI_Pcontrol(const int level, ...)
{
    if (recording())
        orcs_prof_pcontrol(level);
    return REAL(Pcontrol, (level));
}

/* ---- communicators --------------------------------------------------------------- */

int orcs_wrap_MPI_Comm_free(MPI_Comm *comm)
{
    if (recording() && comm)
        orcs_prof_forget(KEY(*comm));
    return REAL(Comm_free, (comm));
}

int orcs_wrap_MPI_Comm_disconnect(MPI_Comm *comm)
{
    if (recording() && comm)
        orcs_prof_forget(KEY(*comm));
    return REAL(Comm_disconnect, (comm));
}

/* ---- the wrappers' shapes ------------------------------------------------------------ */

/* The wrappers of functions with counts are written once, in counted.h, and included
 * twice: with int counts (SUFFIX empty), then, for MPI 4, as the large-count functions
 * MPI_X_c (MPI_Count counts, MPI_Aint displacements). */
#define CAT(A, B) CAT_(A, B)
#define CAT_(A, B) A##B
#define CAT3(A, B, C) CAT3_(A, B, C)
#define CAT3_(A, B, C) A##B##C
/* The MPI name of the wrapped function NAME as included now: NAME or NAME_c. */
#define SUFFIXED(NAME) CAT(NAME, SUFFIX)
/* The wrapper of NAME. */
#define WRAP(NAME) CAT3(orcs_wrap_MPI_, NAME, SUFFIX)
/* A count array of the counted.h being included. */
#define COUNTS(array) ((Counts){(array), WIDE})
/* The wrapper of NAME takes the arguments its MPI function takes: checked against mpi.h,
 * since an int where MPI passes an MPI_Count would compile and read garbage. */
#define SAME_SIGNATURE(NAME)                                                                 \
    _Static_assert(__builtin_types_compatible_p(__typeof__(WRAP(NAME)),                      \
                                                __typeof__(CAT3(PMPI_, NAME, SUFFIX))),      \
                   "the wrapper of " #NAME " differs from its MPI function");

/* A call that records (RECORD) then runs. PARAMS and ARGS are parenthesised lists. */
#define RECORDED(NAME, PARAMS, ARGS, RECORD)                                                 \
    int WRAP(NAME) PARAMS                                                                    \
    {                                                                                        \
        RECORD;                                                                              \
        return REAL(SUFFIXED(NAME), ARGS);                                                   \
    }                                                                                        \
    SAME_SIGNATURE(NAME)

#define WITH_REQUEST(...) (__VA_ARGS__, MPI_Request *request)
#define AND_REQUEST(...) (__VA_ARGS__, request)
#define WITH_INFO_REQUEST(...) (__VA_ARGS__, MPI_Info info, MPI_Request *request)
#define AND_INFO_REQUEST(...) (__VA_ARGS__, info, request)

#if MPI_VERSION >= 4
/* MPI 4's persistent collective MPI_X_init(params, info, request): what MPI_X would
 * record is kept with the request and counted at each MPI_Start. */
#define PERSISTENT_COLLECTIVE(NAME, PARAMS, ARGS, RECORD)                                    \
    int WRAP(NAME) WITH_INFO_REQUEST PARAMS                                                  \
    {                                                                                        \
        int rc = REAL(SUFFIXED(NAME), AND_INFO_REQUEST ARGS);                                \
        if (rc == MPI_SUCCESS && recording() && request) {                                   \
            capture_request = KEY(*request);                                                 \
            orcs_prof_free_request(capture_request);                                         \
            capturing = 1;                                                                   \
            RECORD;                                                                          \
            capturing = 0;                                                                   \
        }                                                                                    \
        return rc;                                                                           \
    }                                                                                        \
    SAME_SIGNATURE(NAME)
#else
#define PERSISTENT_COLLECTIVE(NAME, PARAMS, ARGS, RECORD)
#endif

/* A collective's blocking, non-blocking and (MPI 4) persistent forms. */
#define COLLECTIVE(NAME, INAME, PARAMS, ARGS, RECORD)                                        \
    RECORDED(NAME, PARAMS, ARGS, RECORD)                                                     \
    RECORDED(INAME, WITH_REQUEST PARAMS, AND_REQUEST ARGS, RECORD)                           \
    PERSISTENT_COLLECTIVE(NAME##_init, PARAMS, ARGS, RECORD)

#define BLOCKING_SEND(NAME)                                                                  \
    RECORDED(NAME,                                                                           \
             (const void *buf, COUNT count, MPI_Datatype type, int dest, int tag,             \
              MPI_Comm comm),                                                                \
             (buf, count, type, dest, tag, comm), record_send(count, type, dest, comm))

#define NONBLOCKING_SEND(NAME)                                                               \
    RECORDED(NAME,                                                                           \
             (const void *buf, COUNT count, MPI_Datatype type, int dest, int tag,             \
              MPI_Comm comm, MPI_Request *request),                                          \
             (buf, count, type, dest, tag, comm, request), record_send(count, type, dest, comm))

#define PERSISTENT_SEND(NAME)                                                                \
    int WRAP(NAME)(const void *buf, COUNT count, MPI_Datatype type, int dest, int tag,       \
                   MPI_Comm comm, MPI_Request *request)                                      \
    {                                                                                        \
        int rc = REAL(SUFFIXED(NAME), (buf, count, type, dest, tag, comm, request));         \
        record_persistent(count, type, dest, comm, rc, request);                             \
        return rc;                                                                           \
    }                                                                                        \
    SAME_SIGNATURE(NAME)

/* ---- the functions without counts ------------------------------------------------------ */

#define SUFFIX
#define WIDE 0

/* The wrappers written out above take what their MPI functions take, too. */
SAME_SIGNATURE(Init)
SAME_SIGNATURE(Init_thread)
SAME_SIGNATURE(Finalize)
SAME_SIGNATURE(Pcontrol)
SAME_SIGNATURE(Comm_free)
SAME_SIGNATURE(Comm_disconnect)

int orcs_wrap_MPI_Start(MPI_Request *request)
{
    if (recording() && request)
        orcs_prof_start_request(KEY(*request));
    return REAL(Start, (request));
}

int orcs_wrap_MPI_Startall(int count, MPI_Request requests[])
{
    if (recording() && requests)
        for (int i = 0; i < count; i++)
            orcs_prof_start_request(KEY(requests[i]));
    return REAL(Startall, (count, requests));
}

int orcs_wrap_MPI_Request_free(MPI_Request *request)
{
    if (recording() && request)
        orcs_prof_free_request(KEY(*request));
    return REAL(Request_free, (request));
}

int orcs_wrap_MPI_Win_free(MPI_Win *win)
{
    if (recording() && win)
        orcs_prof_forget(WIN_KEY(*win));
    return REAL(Win_free, (win));
}

SAME_SIGNATURE(Start)
SAME_SIGNATURE(Startall)
SAME_SIGNATURE(Request_free)
SAME_SIGNATURE(Win_free)

COLLECTIVE(Barrier, Ibarrier, (MPI_Comm comm), (comm),
           record_collective(comm, OP_BARRIER, 0, 1, 0))

/* One element each way. */
RECORDED(Fetch_and_op,
         (const void *origin, void *result, MPI_Datatype type, int target, MPI_Aint disp,
          MPI_Op op, MPI_Win win),
         (origin, result, type, target, disp, op, win),
         record_get_accumulate(1, type, 1, type, target, win))

/* The new value and the comparand to the target, the old value back. */
RECORDED(Compare_and_swap,
         (const void *origin, const void *compare, void *result, MPI_Datatype type, int target,
          MPI_Aint disp, MPI_Win win),
         (origin, compare, result, type, target, disp, win),
         record_get_accumulate(2, type, 1, type, target, win))

/* ---- the functions with counts --------------------------------------------------------- */

#define COUNT int
#define DISPL int
#include "counted.h"

#if MPI_VERSION >= 4
#undef SUFFIX
#undef WIDE
#undef COUNT
#undef DISPL
#define SUFFIX _c
#define WIDE 1
#define COUNT MPI_Count
#define DISPL MPI_Aint
#include "counted.h"
#endif
