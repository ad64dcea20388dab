/* ravel-a2a: every alltoallv backend of ravel timed side by side on the
 * non-uniform block-size distributions of Fan et al. (HPDC'22).
 *
 * For each N of --N and each backend of --comm, the program makes --warmup
 * untimed and --iters timed calls.  All ranks leave a barrier together before
 * each call; a call's time is the slowest rank's (a max-reduction after the
 * loop), because an alltoallv is done only when its last rank is.  Rank 0
 * prints the median and the median absolute deviation of those times, with
 * the messages and bytes each rank sent per call (ravel's own accounting,
 * for checking against the cost model), and appends them to --csv.
 *
 * --verify computes MPI_Alltoallv's result once per N, checks it against the
 * values the senders wrote (an oracle independent of every backend), and
 * then compares every call's result with it byte for byte.  A failure on any
 * rank makes every rank exit with status 1.
 *
 * The same source builds with smpicc for SimGrid SMPI (see bench/README.md):
 * there MPI_Wtime is the simulated clock, and timing runs share their
 * payload buffers between simulated ranks (see a2a_exchange.h). */
#include "a2a_config.h"
#include "a2a_exchange.h"
#include "a2a_report.h"
#include "a2a_stats.h"

#include <ravel/comm.h>
#include <ravel/cost_model.h>
#include <ravel/error.h>

#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ERRLEN = 1024 };

/* Every rank learns whether any rank failed; the lowest failing rank prints
 * its message.  Returns 1 when some rank failed. */
static int any_failed(int failed, const char *err, MPI_Comm comm)
{
    int P, me, first;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    int mine = failed ? me : P;
    if (ravel_comm_allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm) !=
        MPI_SUCCESS)
        return 1;
    if (first < P && first == me)
        fprintf(stderr, "ravel-a2a: %s\n", err);
    return first < P;
}

typedef struct {
    double *times, *scratch; /* iters each */
    a2a_result *rows;        /* every row of the run, for the model's error */
    size_t nrows;
    uint64_t totals[3];      /* messages, bytes, metadata messages */
    int wrong;               /* some call's result differed from vendor's */
} timing;

/* Records one timed call's figures (after the warm-up). */
static void record(timing *t, const a2a_config *cfg, uint64_t it,
                   double elapsed)
{
    ravel_comm_stats s = ravel_comm_stats_get();
    if (it < cfg->warmup)
        return;
    t->times[it - cfg->warmup] = elapsed;
    t->totals[0] += s.messages;
    t->totals[1] += s.bytes;
    t->totals[2] += s.metadata_messages;
}

/* Whether the views of exchange h hold MPI_Alltoallv's result. */
static int views_match(const ravel_exchange *h, const a2a_exchange *x,
                       const a2a_config *cfg)
{
    for (int src = 0; src < x->P; src++) {
        size_t len = 0;
        const void *view = ravel_exchange_inbox(h, src, &len);
        size_t want = (size_t)x->recvcounts[src] * cfg->elem_size;
        if (len != want ||
            (len && memcmp(view, x->reference + (size_t)x->rdispls[src] *
                                                     cfg->elem_size,
                           len) != 0))
            return 0;
    }
    return 1;
}

/* One call's blocks handed to exchange h: the send buffer as it is
 * (ravel_exchange_send), or copied block by block into h's outboxes (a
 * caller writing its data there; shm's outboxes lie in its window). */
static int hand_over(ravel_exchange *h, const a2a_exchange *x,
                     const a2a_config *cfg, const size_t *bytes,
                     const size_t *offsets)
{
    if (cfg->exchange_api != A2A_API_OUTBOX)
        return ravel_exchange_send(h, x->sendbuf, bytes, offsets);
    for (int i = 0; i < x->P; i++) {
        if (!bytes[i])
            continue;
        void *room = ravel_exchange_outbox(h, i, bytes[i]);
        if (!room)
            return MPI_ERR_NO_MEM;
        memcpy(room, (const char *)x->sendbuf + offsets[i], bytes[i]);
    }
    return MPI_SUCCESS;
}

/* The same calls through the exchange API (hand_over), receive counts
 * discovered, arrivals left where the backend put them (a view per
 * source). */
static int timed_exchanges(const char *name, const a2a_exchange *x,
                           const a2a_config *cfg, MPI_Comm comm, timing *t)
{
    memset(t->totals, 0, sizeof t->totals);
    t->wrong = 0;
    ravel_exchange *h = NULL;
    size_t *bytes = malloc(2 * (size_t)x->P * sizeof *bytes);
    if (!bytes)
        return MPI_ERR_NO_MEM;
    size_t *offsets = bytes + x->P;
    for (int i = 0; i < x->P; i++) {
        bytes[i] = (size_t)x->sendcounts[i] * cfg->elem_size;
        offsets[i] = (size_t)x->sdispls[i] * cfg->elem_size;
    }
    int err = ravel_exchange_create(comm, name, &h);
    for (uint64_t it = 0;
         err == MPI_SUCCESS && it < cfg->warmup + cfg->iters; it++) {
        err = ravel_comm_barrier(comm);
        if (err != MPI_SUCCESS)
            break;
        ravel_comm_stats_reset();
        double start = MPI_Wtime();
        err = hand_over(h, x, cfg, bytes, offsets);
        if (err == MPI_SUCCESS)
            err = ravel_exchange_run(h);
        double elapsed = MPI_Wtime() - start;
        if (err == MPI_SUCCESS)
            record(t, cfg, it, elapsed);
        if (err == MPI_SUCCESS && cfg->verify && !views_match(h, x, cfg))
            t->wrong = 1;
    }
    ravel_exchange_free(h);
    free(bytes);
    return err;
}

/* Read after each copy, so that no compiler drops the copy as dead. */
volatile unsigned char memcpy_sink;

/* No exchange: each rank copies the bytes it sends (its blocks, its own
 * included) once, into memory of its own: what a rank pays at least to
 * hand its data over through memory, the limit of shm's exchange form. */
static int timed_memcpy(const a2a_exchange *x, const a2a_config *cfg,
                        MPI_Comm comm, timing *t)
{
    memset(t->totals, 0, sizeof t->totals);
    t->wrong = 0;
    unsigned char *to = malloc(x->send_bytes ? x->send_bytes : 1);
    if (!to)
        return MPI_ERR_NO_MEM;
    int err = MPI_SUCCESS;
    for (uint64_t it = 0;
         err == MPI_SUCCESS && it < cfg->warmup + cfg->iters; it++) {
        err = ravel_comm_barrier(comm);
        ravel_comm_stats_reset();
        double start = MPI_Wtime();
        if (x->send_bytes)
            memcpy(to, x->sendbuf, x->send_bytes);
        double elapsed = MPI_Wtime() - start;
        memcpy_sink = to[it % (x->send_bytes ? x->send_bytes : 1)];
        record(t, cfg, it, elapsed);
    }
    free(to);
    return err;
}

static int timed_calls(ravel_alltoallv_fn fn, const a2a_exchange *x,
                       const a2a_config *cfg, const ravel_call_stats *hint,
                       MPI_Comm comm, timing *t)
{
    memset(t->totals, 0, sizeof t->totals);
    t->wrong = 0;
    for (uint64_t it = 0; it < cfg->warmup + cfg->iters; it++) {
        if (cfg->verify)
            memset(x->recvbuf, 0xa5, x->recv_bytes);
        int err = ravel_comm_barrier(comm);
        if (err == MPI_SUCCESS && hint)
            err = ravel_comm_hint_stats(comm, hint);
        if (err != MPI_SUCCESS)
            return err;
        ravel_comm_stats_reset();
        double start = MPI_Wtime();
        err = fn(x->sendbuf, x->sendcounts, x->sdispls, cfg->type, x->recvbuf,
                 x->recvcounts, x->rdispls, cfg->type, comm);
        double elapsed = MPI_Wtime() - start;
        if (err != MPI_SUCCESS)
            return err;
        record(t, cfg, it, elapsed);
        if (cfg->verify &&
            memcmp(x->recvbuf, x->reference, x->recv_bytes) != 0)
            t->wrong = 1;
    }
    return MPI_SUCCESS;
}

/* Reduces the per-rank measurements of one backend into r (on every rank). */
static int summarise(const a2a_exchange *x, const a2a_config *cfg,
                     MPI_Comm comm, timing *t, a2a_result *r)
{
    int n = (int)cfg->iters, err;
    uint64_t sums[4], maxes[3], mine[4] = {t->totals[0], t->totals[1],
                                           t->totals[2], 0};
    mine[3] = a2a_exchange_offrank_bytes(x, cfg);
    err = ravel_comm_allreduce(MPI_IN_PLACE, t->times, n, MPI_DOUBLE, MPI_MAX,
                               comm);
    if (err == MPI_SUCCESS)
        err = ravel_comm_allreduce(mine, sums, 4, MPI_UINT64_T, MPI_SUM,
                                   comm);
    if (err == MPI_SUCCESS)
        err = ravel_comm_allreduce(mine, maxes, 3, MPI_UINT64_T, MPI_MAX,
                                   comm);
    if (err != MPI_SUCCESS)
        return err;
    double calls = (double)cfg->iters, ranks = (double)x->P, sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += t->times[i];
    r->mean_us = 1e6 * sum / calls;
    r->median_us = 1e6 * a2a_median(t->times, cfg->iters);
    r->min_us = 1e6 * t->times[0];
    r->max_us = 1e6 * t->times[cfg->iters - 1];
    r->mad_us = 1e6 * a2a_mad(t->times, t->scratch, cfg->iters);
    r->messages_mean = (double)sums[0] / calls / ranks;
    r->bytes_mean = (double)sums[1] / calls / ranks;
    r->metadata_messages_mean = (double)sums[2] / calls / ranks;
    r->data_bytes_mean = (double)sums[3] / ranks;
    r->messages_max = (double)maxes[0] / calls;
    r->bytes_max = (double)maxes[1] / calls;
    return MPI_SUCCESS;
}

/* MPI_Alltoallv's result, checked against the senders' values. */
static int make_reference(const a2a_exchange *x, const a2a_config *cfg,
                          MPI_Comm comm, char *err, size_t errlen)
{
    int failed = 0, code = MPI_Alltoallv(
                        x->sendbuf, x->sendcounts, x->sdispls, cfg->type,
                        x->reference, x->recvcounts, x->rdispls, cfg->type,
                        comm);
    int wrong = code == MPI_SUCCESS
                    ? a2a_exchange_first_wrong_block(x, cfg, x->reference)
                    : -1;
    if (code != MPI_SUCCESS || wrong >= 0) {
        snprintf(err, errlen,
                 "rank %d: MPI_Alltoallv (the reference) %s at N=%llu "
                 "elements (block from rank %d)",
                 x->me, code != MPI_SUCCESS ? "failed" : "delivered wrong data",
                 (unsigned long long)x->max_elems, wrong);
        failed = 1;
    }
    return any_failed(failed, err, comm);
}

/* The model's time for backend `name` on this call (auto and auto:agree:
 * for what it chose last, which it reports), in microseconds; through
 * the exchange API when `exchange`.  None for memcpy. */
static int predict(const char *name, int exchange, const ravel_call_stats *s,
                   MPI_Comm comm, a2a_result *r)
{
    double seconds = 0.0;
    int err;
    if (strcmp(name, "memcpy") == 0) {
        r->predicted_us = NAN;
        return MPI_SUCCESS;
    }
    if (strcmp(name, "auto") == 0 || strncmp(name, "auto:", 5) == 0) {
        int choice = -1;
        err = ravel_comm_last_choice(comm, &choice, &seconds);
        r->chose = choice >= 0 ? ravel_alltoallv_name((size_t)choice) : NULL;
    } else if (exchange) {
        err = ravel_comm_predict_exchange(comm, name, s, &seconds);
    } else {
        err = ravel_comm_predict(comm, name, s, &seconds);
    }
    r->predicted_us = 1e6 * seconds;
    return err;
}

/* Times every backend at one N; returns 0, or 1 when something failed. */
static int run_size(const a2a_config *cfg, uint64_t n_bytes,
                    uint64_t max_elems, int shared, FILE *csv, MPI_Comm comm,
                    timing *t)
{
    int P, me, status = 0;
    char err[ERRLEN] = "";
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    a2a_exchange x;
    int failed = a2a_exchange_build(&x, cfg, max_elems, P, me, shared, err,
                                    sizeof err) != 0;
    if (any_failed(failed, err, comm))
        return 1;
    if (cfg->verify && make_reference(&x, cfg, comm, err, sizeof err)) {
        status = 1;
        goto fn_exit;
    }
    ravel_call_stats stats;
    if (ravel_comm_call_stats(x.sendbuf, x.sendcounts, cfg->type,
                              x.recvcounts, cfg->type, comm,
                              &stats) != MPI_SUCCESS) {
        if (me == 0)
            fprintf(stderr, "ravel-a2a: %s\n", ravel_error_message());
        status = 1;
        goto fn_exit;
    }
    for (size_t b = 0; b < cfg->nbackends; b++) {
        const char *name = cfg->backends[b];
        int is_memcpy = strcmp(name, "memcpy") == 0;
        int exchange = cfg->exchange_api && !is_memcpy;
        int hinted = cfg->hint_stats && !exchange &&
                     strcmp(name, "auto") == 0;
        /* Static: the rows keep pointing at their labels to the end. */
        static char labels[A2A_MAX_LIST][64];
        char *label = labels[b];
        snprintf(label, sizeof labels[b], "%s%s",
                 hinted ? "auto+hint" : name,
                 !exchange                                ? ""
                 : cfg->exchange_api == A2A_API_OUTBOX ? "/outbox"
                                                          : "/exchange");
        double possible = 0.0;
        if (!is_memcpy &&
            ravel_comm_predict(comm, name, &stats, &possible) ==
                MPI_SUCCESS &&
            isinf(possible)) {
            /* The model says it refuses to run here (shm across nodes). */
            if (me == 0)
                printf("# %s: skipped, it cannot run on this communicator "
                       "(shm: ranks on several nodes)\n", name);
            continue;
        }
        a2a_result r = {.backend = label, .n_bytes = n_bytes};
        int code = is_memcpy ? timed_memcpy(&x, cfg, comm, t)
                   : exchange
                       ? timed_exchanges(name, &x, cfg, comm, t)
                       : timed_calls(ravel_alltoallv_lookup(name), &x, cfg,
                                     hinted ? &stats : NULL, comm, t);
        if (code == MPI_SUCCESS)
            code = summarise(&x, cfg, comm, t, &r);
        if (code == MPI_SUCCESS)
            code = predict(name, exchange, &stats, comm, &r);
        if (code != MPI_SUCCESS) {
            /* With MPI_ERRORS_RETURN set by a caller; fatal by default. */
            if (me == 0)
                fprintf(stderr, "ravel-a2a: %s failed at N=%llu: code %d: "
                        "%s\n", cfg->backends[b], (unsigned long long)n_bytes,
                        code, ravel_error_message());
            status = 1;
            goto fn_exit;
        }
        snprintf(err, sizeof err,
                 "rank %d: %s's result differs from MPI_Alltoallv's at "
                 "N=%llu bytes",
                 me, cfg->backends[b], (unsigned long long)n_bytes);
        if (cfg->verify && any_failed(t->wrong, err, comm))
            status = 1; /* go on: the other backends may be right */
        if (me == 0) {
            a2a_report_row(stdout, &r);
            if (csv)
                a2a_report_csv_row(csv, cfg, P, &r);
        }
        t->rows[t->nrows++] = r;
    }
fn_exit:
    a2a_exchange_free(&x);
    return status;
}

static int run(int argc, char **argv, MPI_Comm comm)
{
    int P, me, status = 1;
    char err[ERRLEN] = "";
    FILE *csv = NULL;
    timing t = {0};
    a2a_config cfg;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    if (a2a_config_parse(argc, argv, &cfg, err, sizeof err)) {
        if (me == 0)
            fprintf(stderr, "ravel-a2a: %s\n", err);
        return 1; /* every rank parsed the same argv */
    }
    if (cfg.help) {
        if (me == 0)
            a2a_config_print_help(stdout);
        return 0;
    }
    int failed = a2a_dist_load(&cfg.dist, P, err, sizeof err) != 0;
    if (!failed && ravel_comm_use_model_file(cfg.model_path) != MPI_SUCCESS) {
        snprintf(err, sizeof err, "%s", ravel_error_message());
        failed = 1;
    }
    if (!failed && me == 0 && cfg.csv_path) {
        csv = a2a_report_csv_open(cfg.csv_path);
        if (!csv) {
            snprintf(err, sizeof err, "--csv=%s: cannot open: %s",
                     cfg.csv_path, strerror(errno));
            failed = 1;
        }
    }
    if (!failed) {
        t.times = malloc(cfg.iters * sizeof *t.times);
        t.scratch = malloc(cfg.iters * sizeof *t.scratch);
        t.rows = malloc(A2A_MAX_LIST * A2A_MAX_LIST * sizeof *t.rows);
        if (!t.times || !t.scratch || !t.rows) {
            snprintf(err, sizeof err, "rank %d: out of memory for %llu times",
                     me, (unsigned long long)cfg.iters);
            failed = 1;
        }
    }
    if (any_failed(failed, err, comm))
        goto fn_exit;
    /* Timing runs under SMPI share payload pages, ravel's staging buffers
     * included; a --verify run keeps every byte private. */
    int shared = !cfg.verify && a2a_exchange_can_share();
    ravel_comm_share_payloads(shared);
    if (me == 0)
        a2a_report_header(stdout, &cfg, P, shared);
    status = 0;
    if (cfg.dist.kind == A2A_DIST_FILE) {
        /* The matrix fixes the sizes: one pass, labelled by its largest
         * block in bytes. */
        uint64_t max = a2a_dist_matrix_max(&cfg.dist);
        status = run_size(&cfg, max * cfg.elem_size, max, shared, csv, comm,
                          &t);
    } else {
        for (size_t i = 0; i < cfg.nsizes; i++)
            status |= run_size(&cfg, cfg.sizes[i],
                               cfg.sizes[i] / cfg.elem_size, shared, csv,
                               comm, &t);
    }
    if (me == 0)
        a2a_report_model_errors(stdout, t.rows, t.nrows);
fn_exit:
    if (csv)
        fclose(csv);
    free(t.rows);
    free(t.times);
    free(t.scratch);
    a2a_dist_free(&cfg.dist);
    return status;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int status = run(argc, argv, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
