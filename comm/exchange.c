/* exchange.c: the exchange that discovers its receive counts (ravel/comm.h).
 *
 * Two paths.  A backend of the Bruck family runs its kernel on the
 * outboxes as they are (x->send_at: no packing) with an inbox instead of a
 * receive buffer: each block is placed when its last hop arrives (at its
 * real size, which the kernel learned from the sizes that travel with the
 * data), so no count exchange happens at all.  Every other backend needs
 * the counts: one MPI_Alltoall of 8 bytes per pair (two-level: one call of
 * its own on blocks of 8 bytes, counts_through_backend), then the backend
 * itself through its MPI_Alltoallv signature on MPI_BYTE, from one send
 * buffer (the caller's, or the outboxes packed into one) into one receive
 * buffer that the views point into.  That path has MPI_Alltoallv's int
 * counts and displacements: per-rank totals up to INT_MAX bytes (a rank
 * that would receive more fails alone, after the count exchange, as with
 * an MPI_Alltoallv given a count it cannot take).  A caller's buffer may
 * be larger: the displacements count from its lowest block of the call,
 * and blocks further apart than an int reaches are packed first.
 *
 * The inbox keeps blocks in chunks that never move (each new chunk twice
 * the last), reused from run to run: a view stays valid until the next
 * run.  A rank that fails before the count exchange says so in it (a size
 * of UINT64_MAX), so that every rank fails instead of waiting for it. */
#include "comm_internal.h"

#include "ravel/error.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum { INBOX_CHUNKS = 64, FIRST_CHUNK = 4096, NAME_MAX_LEN = 32 };
#define FAILED_SIZE UINT64_MAX

struct comm_inbox {
    char *chunk[INBOX_CHUNKS];
    size_t nchunks, used, size; /* of the last chunk */
    const char **view;          /* [P] */
    size_t *len;                /* [P] */
    int foreign;                /* some view is in memory not its own */
};

struct ravel_exchange {
    MPI_Comm comm;
    comm_context *ctx;
    char name[NAME_MAX_LEN];
    ravel_alltoallv_fn fn;
    int is_auto;
    const char *last_backend;
    /* the kernel found for the name at kernel_of (a name lookup per run
     * was a tenth of auto's choice in a 0.5 us run) */
    const char *kernel_of;
    comm_kernel kernel;
    int kernel_param;
    /* outboxes, or the caller's send buffer */
    char **out;
    size_t *out_len, *out_cap;
    /* Outboxes written in place in shm's window (backend shm only,
     * comm_shm_room): all of a run's or none (place_off: not this run). */
    int placeable, place_off;
    char *out_placed; /* [P] */
    const char *send_buf;
    const size_t *send_bytes_arg, *send_off_arg;
    /* per run */
    size_t *send_bytes;   /* [P] */
    const char **send_at; /* [P] */
    uint64_t *counts;     /* [2P]: sent, received (the count exchange) */
    int *ints;            /* [4P]: the MPI_Alltoallv arguments */
    char *packed, *recv;
    size_t packed_size, recv_size;
    comm_inbox inbox;
    int views_in_recv;    /* the last run's views: in recv (1), inbox (0) */
};

char *comm_inbox_place(comm_inbox *in, int src, size_t len, int *err)
{
    *err = MPI_SUCCESS;
    in->len[src] = len;
    in->view[src] = NULL;
    if (len == 0)
        return NULL;
    if (!in->nchunks || len > in->size - in->used) {
        size_t next = in->nchunks ? 2 * in->size : FIRST_CHUNK;
        while (next < len && next <= SIZE_MAX / 2)
            next *= 2;
        if (next < len || in->nchunks == INBOX_CHUNKS) {
            *err = ravel_error_set(MPI_ERR_COUNT, "the exchange's inbox "
                                   "overflows");
            return NULL;
        }
        char *chunk = comm_payload_alloc(next, 0);
        if (!chunk) {
            *err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory growing "
                                   "the exchange's inbox by %zu bytes", next);
            return NULL;
        }
        in->chunk[in->nchunks++] = chunk;
        in->size = next;
        in->used = 0;
    }
    char *at = in->chunk[in->nchunks - 1] + in->used;
    in->used += len;
    in->view[src] = at;
    return at;
}

void comm_inbox_view(comm_inbox *in, int src, const char *at, size_t len)
{
    in->len[src] = len;
    in->view[src] = len ? at : NULL;
    in->foreign = 1;
}

/* Forgets the last run's views; keeps the largest chunk for the next. */
static void inbox_reset(comm_inbox *in, int P)
{
    for (size_t c = 0; c + 1 < in->nchunks; c++)
        comm_payload_free(in->chunk[c]);
    if (in->nchunks > 1) {
        in->chunk[0] = in->chunk[in->nchunks - 1];
        in->nchunks = 1;
    }
    in->used = 0;
    in->foreign = 0;
    memset(in->len, 0, (size_t)P * sizeof *in->len);
    memset(in->view, 0, (size_t)P * sizeof *in->view);
}

int ravel_exchange_create(MPI_Comm comm, const char *name,
                          ravel_exchange **out)
{
    *out = NULL;
    ravel_alltoallv_fn fn = ravel_alltoallv_lookup(name);
    if (!fn)
        return MPI_ERR_ARG; /* the registry's message says why */
    if (strlen(name) >= NAME_MAX_LEN)
        return ravel_error_set(MPI_ERR_ARG, "backend name '%s' is too long",
                               name);
    comm_context *ctx;
    int err = comm_context_get(comm, &ctx);
    if (err != MPI_SUCCESS)
        return err;
    size_t P = (size_t)ctx->size;
    ravel_exchange *x = calloc(1, sizeof *x);
    if (!x)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for an "
                               "exchange handle");
    x->comm = comm;
    x->ctx = ctx;
    strcpy(x->name, name);
    x->fn = fn;
    x->is_auto =
        fn == ravel_alltoallv_auto || fn == comm_alltoallv_auto_agree;
    int param;
    x->placeable =
        !x->is_auto && comm_discovering_kernel(name, &param) == comm_shm_kernel;
    x->out_placed = calloc(P, sizeof *x->out_placed);
    x->out = calloc(P, sizeof *x->out);
    x->out_len = calloc(P, sizeof *x->out_len);
    x->out_cap = calloc(P, sizeof *x->out_cap);
    x->send_bytes = calloc(P, sizeof *x->send_bytes);
    x->send_at = calloc(P, sizeof *x->send_at);
    x->counts = calloc(2 * P, sizeof *x->counts);
    x->ints = calloc(4 * P, sizeof *x->ints);
    x->inbox.view = calloc(P, sizeof *x->inbox.view);
    x->inbox.len = calloc(P, sizeof *x->inbox.len);
    if (!x->out || !x->out_len || !x->out_cap || !x->out_placed ||
        !x->send_bytes ||
        !x->send_at || !x->counts || !x->ints || !x->inbox.view ||
        !x->inbox.len) {
        ravel_exchange_free(x);
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for an "
                               "exchange handle on %zu ranks", P);
    }
    *out = x;
    return MPI_SUCCESS;
}

/* Forgets the outboxes written in place (the run that sent them is over,
 * or they are discarded): their rooms were the window's. */
static void drop_placed(ravel_exchange *x)
{
    for (int i = 0; x->out_placed && i < x->ctx->size; i++)
        if (x->out_placed[i]) {
            x->out[i] = NULL;
            x->out_len[i] = x->out_cap[i] = 0;
            x->out_placed[i] = 0;
        }
    x->place_off = 0;
    comm_shm_unplace(x->ctx, x);
}

void ravel_exchange_free(ravel_exchange *x)
{
    if (!x)
        return;
    drop_placed(x);
    for (int i = 0; x->out && i < x->ctx->size; i++)
        comm_payload_free(x->out[i]);
    for (size_t c = 0; c < x->inbox.nchunks; c++)
        comm_payload_free(x->inbox.chunk[c]);
    comm_payload_free(x->packed);
    comm_payload_free(x->recv);
    free(x->out);
    free(x->out_len);
    free(x->out_cap);
    free(x->out_placed);
    free(x->send_bytes);
    free(x->send_at);
    free(x->counts);
    free(x->ints);
    free(x->inbox.view);
    free(x->inbox.len);
    free(x);
}

/* Moves every outbox written in place to memory of the handle's own
 * (comm_evacuate_fn): something is about to overwrite the window's half,
 * or one outbox found no room there.  No more room this run. */
static int evacuate_outboxes(void *owner)
{
    ravel_exchange *x = owner;
    for (int i = 0; i < x->ctx->size; i++) {
        if (!x->out_placed[i])
            continue;
        char *mine = comm_payload_alloc(x->out_cap[i], 0);
        if (!mine)
            return ravel_error_set(MPI_ERR_NO_MEM, "out of memory moving "
                                   "the outbox of rank %d (%zu bytes) out of "
                                   "the shared window", i, x->out_cap[i]);
        if (x->out_len[i])
            comm_copy(mine, x->out[i], x->out_len[i]);
        if (x->send_at[i] == x->out[i])
            x->send_at[i] = mine; /* inside a run: the kernel reads it */
        x->out[i] = mine;
        x->out_placed[i] = 0;
    }
    x->place_off = 1;
    comm_shm_unplace(x->ctx, x);
    return MPI_SUCCESS;
}

/* The capacity after `cap` that holds `need` bytes: doubling from 256. */
static size_t next_capacity(size_t cap, size_t need)
{
    cap = cap ? cap : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : 2 * cap;
    return cap;
}

/* The first room of a run for dest's outbox of `need` bytes: what it sent
 * in the last run and an eighth more (an iterated exchange sends much the
 * same), or need, and at least 256 bytes. */
static size_t first_room(const ravel_exchange *x, int dest, size_t need)
{
    size_t last = x->send_bytes[dest];
    size_t cap = last + last / 8 > last ? last + last / 8 : last;
    cap = cap > need ? cap : need;
    return cap > 256 ? cap : 256;
}

/* Room in the window for dest's outbox of `need` bytes, its bytes so far
 * copied there; 0 when there is none.  Its first room of a run is
 * first_room, later ones double. */
static int place_outbox(ravel_exchange *x, int dest, size_t need)
{
    size_t cap = x->out_placed[dest]
                     ? next_capacity(x->out_cap[dest], need)
                     : first_room(x, dest, need);
    char *room = comm_shm_room(x->ctx, x, evacuate_outboxes, cap);
    if (!room)
        return 0;
    if (x->out_len[dest])
        comm_copy(room, x->out[dest], x->out_len[dest]);
    if (!x->out_placed[dest])
        comm_payload_free(x->out[dest]); /* a room of the window now */
    x->out[dest] = room;
    x->out_cap[dest] = cap;
    x->out_placed[dest] = 1;
    return 1;
}

/* dest's outbox grown to hold `need` bytes: in the window while every
 * outbox of the run fits there, else in memory of the handle's own. */
static int grow_outbox(ravel_exchange *x, int dest, size_t need)
{
    if (x->placeable && !x->place_off) {
        if (place_outbox(x, dest, need))
            return MPI_SUCCESS;
        int err = evacuate_outboxes(x); /* all of the run's, or none */
        if (err != MPI_SUCCESS)
            return err;
        if (x->out[dest] && need <= x->out_cap[dest])
            return MPI_SUCCESS;
    }
    /* An empty outbox gets exactly what is asked (a caller writing each
     * block in one piece, as the engine does, would else hold up to twice
     * its bytes); appends to it double from there. */
    size_t cap = x->out_len[dest] ? next_capacity(x->out_cap[dest], need)
                                  : (need > 256 ? need : 256);
    char *grown = comm_payload_alloc(cap, 0);
    if (!grown)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory growing the "
                               "outbox of rank %d to %zu bytes", dest, cap);
    if (x->out_len[dest])
        memcpy(grown, x->out[dest], x->out_len[dest]);
    comm_payload_free(x->out[dest]);
    x->out[dest] = grown;
    x->out_cap[dest] = cap;
    return MPI_SUCCESS;
}

void *ravel_exchange_outbox(ravel_exchange *x, int dest, size_t bytes)
{
    if (dest < 0 || dest >= x->ctx->size) {
        ravel_error_set(MPI_ERR_RANK, "outbox of rank %d: the communicator "
                        "has ranks 0 to %d", dest, x->ctx->size - 1);
        return NULL;
    }
    x->send_buf = NULL; /* outboxes again */
    size_t need = x->out_len[dest] + bytes;
    if (need < bytes) {
        ravel_error_set(MPI_ERR_COUNT, "outbox of rank %d overflows size_t",
                        dest);
        return NULL;
    }
    int to_place = x->placeable && !x->place_off && !x->out_placed[dest];
    if ((need > x->out_cap[dest] || !x->out[dest] || to_place) &&
        grow_outbox(x, dest, need) != MPI_SUCCESS)
        return NULL;
    char *at = x->out[dest] + x->out_len[dest];
    x->out_len[dest] = need;
    return at;
}

int ravel_exchange_outboxes_fit(const ravel_exchange *x,
                                const size_t bytes[])
{
    const int P = x->ctx->size;
    if (!x->placeable || x->place_off || P == 1)
        return 0;
    size_t *room = malloc((size_t)P * sizeof *room);
    if (!room)
        return 0;
    int n = 0, fit = 1;
    for (int i = 0; i < P; i++) {
        if (x->out_placed[i] || x->out_len[i])
            fit = 0; /* outboxes of this run already: not a fresh start */
        if (bytes[i])
            room[n++] = first_room(x, i, bytes[i]);
    }
    fit = fit && comm_shm_rooms_fit(x->ctx, x, room, n);
    free(room);
    return fit;
}

void ravel_exchange_discard(ravel_exchange *x)
{
    drop_placed(x);
    for (int i = 0; i < x->ctx->size; i++)
        x->out_len[i] = 0;
    x->send_buf = NULL;
}

int ravel_exchange_send(ravel_exchange *x, const void *buf,
                        const size_t bytes[], const size_t offsets[])
{
    ravel_exchange_discard(x);
    x->send_buf = buf ? buf : "";
    x->send_bytes_arg = bytes;
    x->send_off_arg = offsets;
    return MPI_SUCCESS;
}

/* This run's blocks: send_bytes[] and send_at[]. */
static void gather_blocks(ravel_exchange *x)
{
    for (int i = 0; i < x->ctx->size; i++) {
        x->send_bytes[i] = x->send_buf ? x->send_bytes_arg[i]
                                       : x->out_len[i];
        x->send_at[i] = !x->send_bytes[i] ? NULL
                        : x->send_buf     ? x->send_buf + x->send_off_arg[i]
                                          : x->out[i];
    }
}

static int run_discovering(ravel_exchange *x, comm_kernel kernel, int param)
{
    comm_exchange e = {0};
    e.send_bytes = x->send_bytes;
    e.send_at = x->send_at;
    e.ctx = x->ctx;
    e.param = param;
    e.inbox = &x->inbox;
    e.owner = x;
    int err = kernel(&e);
    comm_charge_flush();
    return err;
}

/* Whether `name` learns its counts through itself: two-level, whose
 * count exchange over all P ranks (P - 1 messages a rank) cost it far more
 * than its own call on the simulated Theta-like platform (0.87 ms against
 * 94 us at P = 128, bench/results/auto/README.md), exchanges the 8-byte
 * counts as one more call of its own, through the node's shared memory
 * and n - 1 messages across nodes. */
static int counts_through_backend(const char *name)
{
    return comm_two_level_inner(name) != NULL;
}

/* The count exchange through backend fn itself: 8 bytes to every rank.
 * Borrows the receive side's ints, which fill_ints fills afterwards. */
static int backend_counts(ravel_exchange *x, ravel_alltoallv_fn fn,
                          const uint64_t *out, uint64_t *in)
{
    const int P = x->ctx->size;
    int *count = x->ints + 2 * P, *displ = count + P;
    for (int i = 0; i < P; i++) {
        count[i] = (int)sizeof(uint64_t);
        displ[i] = i * (int)sizeof(uint64_t);
    }
    ravel_comm_stats before = ravel_comm_stats_get();
    int err = fn(out, count, displ, MPI_BYTE, in, count, displ, MPI_BYTE,
                 x->comm);
    comm_stats_as_metadata(&before);
    return err;
}

/* The count exchange, with a failure flag, in the communicator's waiting
 * mode: one MPI_Alltoall, or through the backend fn itself. */
static int exchange_counts(ravel_exchange *x, ravel_alltoallv_fn fn,
                           int failed)
{
    const int P = x->ctx->size;
    uint64_t *out = x->counts, *in = x->counts + P;
    for (int i = 0; i < P; i++)
        out[i] = failed ? FAILED_SIZE : (uint64_t)x->send_bytes[i];
    int err;
    if (counts_through_backend(x->last_backend)) {
        err = backend_counts(x, fn, out, in);
    } else {
        MPI_Request request;
        comm_charge_flush();
        err = MPI_Ialltoall(out, 1, MPI_UINT64_T, in, 1, MPI_UINT64_T,
                            x->ctx->comm, &request);
        if (err == MPI_SUCCESS)
            err = comm_waitall(x->ctx, 1, &request);
        if (err == MPI_SUCCESS)
            comm_stats_add_metadata((uint64_t)(P - 1),
                                    8 * (uint64_t)(P - 1));
    }
    if (err != MPI_SUCCESS)
        return err;
    if (failed)
        return failed;
    for (int i = 0; i < P; i++)
        if (in[i] == FAILED_SIZE)
            return ravel_error_set(MPI_ERR_OTHER, "rank %d failed before "
                                   "the exchange", i);
    return MPI_SUCCESS;
}

/* Room for `need` bytes in a buffer whose contents are dead. */
static int grow(char **buf, size_t *size, size_t need, const char *what)
{
    if (need <= *size && *buf)
        return MPI_SUCCESS;
    comm_payload_free(*buf);
    *size = 0;
    *buf = comm_payload_alloc(need ? need : 1, 0);
    if (!*buf)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for the "
                               "exchange's %s of %zu bytes", what, need);
    *size = need;
    return MPI_SUCCESS;
}

/* Send and receive totals and blocks in MPI_Alltoallv's ints, or
 * MPI_ERR_COUNT. */
static int fill_ints(ravel_exchange *x, int receive_side)
{
    const int P = x->ctx->size;
    int *count = x->ints + (receive_side ? 2 * P : 0), *displ = count + P;
    size_t at = 0;
    for (int i = 0; i < P; i++) {
        size_t n = receive_side ? (size_t)x->counts[P + i] : x->send_bytes[i];
        if (n > INT_MAX || at > INT_MAX - n)
            return ravel_error_set(MPI_ERR_COUNT, "rank %d %s more than "
                                   "INT_MAX bytes in all, more than backend "
                                   "'%s' takes without the Bruck family's "
                                   "discovery", x->ctx->rank,
                                   receive_side ? "receives" : "sends",
                                   x->name);
        count[i] = (int)n;
        displ[i] = (int)at;
        at += n;
    }
    return MPI_SUCCESS;
}

/* The caller's send buffer as the backend's: based at its lowest
 * non-empty block, the blocks' offsets from there as displacements (an
 * empty block's offset is never read: 0).  NULL when the blocks span more
 * than an int reaches, to be packed instead: a caller's buffer of more
 * than 2 GiB whose blocks of this call lie far apart (the engine's rounds
 * send a slice of each of a stream's blocks from one large array). */
static const char *caller_buffer(ravel_exchange *x)
{
    const int P = x->ctx->size;
    size_t base = SIZE_MAX;
    for (int i = 0; i < P; i++)
        if (x->send_bytes[i] && x->send_off_arg[i] < base)
            base = x->send_off_arg[i];
    if (base == SIZE_MAX)
        base = 0;
    for (int i = 0; i < P; i++) {
        size_t d = x->send_bytes[i] ? x->send_off_arg[i] - base : 0;
        if (d > INT_MAX || x->send_bytes[i] > (size_t)INT_MAX - d)
            return NULL; /* the packed displacements stay as they are */
    }
    for (int i = 0; i < P; i++)
        x->ints[P + i] =
            x->send_bytes[i] ? (int)(x->send_off_arg[i] - base) : 0;
    return x->send_buf + base;
}

static int run_with_counts(ravel_exchange *x, ravel_alltoallv_fn fn)
{
    const int P = x->ctx->size;
    int failed = fill_ints(x, 0);
    /* One send buffer: the caller's as it is (its offsets as the
     * displacements), or the blocks packed in rank order (the outboxes,
     * or a caller's blocks too far apart for int displacements). */
    const char *send = x->send_buf && failed == MPI_SUCCESS
                           ? caller_buffer(x)
                           : NULL;
    if (!send && failed == MPI_SUCCESS) {
        size_t total = (size_t)x->ints[2 * P - 1] + x->send_bytes[P - 1];
        failed = grow(&x->packed, &x->packed_size, total, "send buffer");
        for (int i = 0; failed == MPI_SUCCESS && i < P; i++)
            if (x->send_bytes[i])
                comm_copy(x->packed + x->ints[P + i], x->send_at[i],
                          x->send_bytes[i]);
        send = x->packed;
    }
    int err = exchange_counts(x, fn, failed);
    if (err == MPI_SUCCESS)
        err = fill_ints(x, 1);
    size_t total = 0;
    for (int i = 0; err == MPI_SUCCESS && i < P; i++)
        total += (size_t)x->counts[P + i];
    if (err == MPI_SUCCESS)
        err = grow(&x->recv, &x->recv_size, total, "receive buffer");
    if (err != MPI_SUCCESS)
        return err;
    int *sc = x->ints, *sd = sc + P, *rc = sc + 2 * P, *rd = sc + 3 * P;
    err = fn(send, sc, sd, MPI_BYTE, x->recv, rc, rd, MPI_BYTE, x->comm);
    for (int i = 0; err == MPI_SUCCESS && i < P; i++) {
        x->inbox.len[i] = (size_t)rc[i];
        x->inbox.view[i] = rc[i] ? x->recv + rd[i] : NULL;
    }
    return err;
}

/* auto's choice (alltoallv_auto.c), each rank's receives taken as its
 * sends where it agrees on the statistics: no rank knows its receives. */
static int choose(ravel_exchange *x, const char **name)
{
    int *ic = x->ints; /* byte counts as ints, the agreement's input */
    for (int i = 0; i < x->ctx->size; i++)
        ic[i] = x->send_bytes[i] > INT_MAX ? INT_MAX : (int)x->send_bytes[i];
    int err = comm_auto_decide(x->ctx, ic, MPI_BYTE, ic, MPI_BYTE, 1);
    if (err == MPI_SUCCESS)
        *name = ravel_alltoallv_name((size_t)x->ctx->last_choice);
    return err;
}

int ravel_exchange_run(ravel_exchange *x)
{
    ravel_error_clear();
    const int P = x->ctx->size;
    gather_blocks(x);
    inbox_reset(&x->inbox, P);
    const char *name = x->name;
    int err = x->is_auto ? choose(x, &name) : MPI_SUCCESS;
    if (err == MPI_SUCCESS) {
        x->last_backend = name;
        if (name != x->kernel_of) {
            x->kernel = comm_discovering_kernel(name, &x->kernel_param);
            x->kernel_of = name;
        }
        comm_kernel kernel = x->kernel;
        x->views_in_recv = kernel == NULL;
        err = kernel ? run_discovering(x, kernel, x->kernel_param)
                     : run_with_counts(x, ravel_alltoallv_lookup(name));
    }
    ravel_exchange_discard(x); /* sent: the outboxes start empty again */
    if (err != MPI_SUCCESS)
        return comm_report_error(x->comm, "exchange", err);
    return MPI_SUCCESS;
}

const void *ravel_exchange_inbox(const ravel_exchange *x, int src,
                                 size_t *bytes)
{
    if (src < 0 || src >= x->ctx->size) {
        *bytes = 0;
        return NULL;
    }
    *bytes = x->inbox.len[src];
    return x->inbox.view[src];
}

void *ravel_exchange_take_inbox(ravel_exchange *x, size_t *bytes)
{
    char *block = NULL;
    *bytes = 0;
    if (comm_payload_shared() || x->inbox.foreign)
        return NULL; /* not malloc's, nor only this rank's */
    if (x->views_in_recv) {
        block = x->recv;
        *bytes = x->recv_size;
        x->recv = NULL;
        x->recv_size = 0;
    } else if (x->inbox.nchunks == 1) {
        block = x->inbox.chunk[0];
        *bytes = x->inbox.size;
        x->inbox.nchunks = 0;
        x->inbox.used = x->inbox.size = 0;
    }
    return block;
}

void ravel_exchange_release(ravel_exchange *x)
{
    inbox_reset(&x->inbox, x->ctx->size);
    for (size_t c = 0; c < x->inbox.nchunks; c++)
        comm_payload_free(x->inbox.chunk[c]);
    x->inbox.nchunks = 0;
    x->inbox.used = x->inbox.size = 0;
    comm_payload_free(x->recv);
    x->recv = NULL;
    x->recv_size = 0;
    for (int i = 0; i < x->ctx->size; i++)
        if (!x->out_placed[i] && !x->out_len[i]) {
            comm_payload_free(x->out[i]);
            x->out[i] = NULL;
            x->out_cap[i] = 0;
        }
}

const char *ravel_exchange_backend(const ravel_exchange *x)
{
    return x->last_backend;
}
