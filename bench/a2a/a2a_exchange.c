/* Counts, displacements and payloads of one benchmarked exchange (see
 * a2a_exchange.h). */
#include "a2a_exchange.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SMPI_SHARED_MALLOC
int a2a_exchange_can_share(void) { return 1; }
static void *payload_alloc(size_t n, int shared)
{
    return shared ? SMPI_SHARED_MALLOC(n) : malloc(n);
}
static void payload_free(void *p, int shared)
{
    if (shared)
        SMPI_SHARED_FREE(p);
    else
        free(p);
}
#else
int a2a_exchange_can_share(void) { return 0; }
static void *payload_alloc(size_t n, int shared)
{
    (void)shared;
    return malloc(n);
}
static void payload_free(void *p, int shared)
{
    (void)shared;
    free(p);
}
#endif

/* The expected bytes of element k of the block src sends dst. */
static void payload_value(const a2a_config *cfg, int src, int dst, uint64_t k,
                          unsigned char *out)
{
    uint64_t h = a2a_mix(a2a_mix(a2a_mix(cfg->seed ^ 0xa076 ^
                                         ((uint64_t)(unsigned)src << 32)) ^
                                 (uint64_t)(unsigned)dst) ^
                         k);
    if (cfg->elem_size == sizeof(double)) {
        double v = (double)(h >> 11); /* exact: 53 bits */
        memcpy(out, &v, sizeof v);
    } else {
        *out = (unsigned char)h;
    }
}

static int set_counts(a2a_exchange *x, const a2a_config *cfg, char *err,
                      size_t errlen)
{
    uint64_t sent = 0, received = 0;
    for (int p = 0; p < x->P; p++) {
        uint64_t s = a2a_dist_block(&cfg->dist, cfg->seed, x->max_elems, x->P,
                                    x->me, p);
        uint64_t r = a2a_dist_block(&cfg->dist, cfg->seed, x->max_elems, x->P,
                                    p, x->me);
        if (sent > (uint64_t)INT32_MAX || received > (uint64_t)INT32_MAX ||
            s > (uint64_t)INT32_MAX - sent ||
            r > (uint64_t)INT32_MAX - received) {
            snprintf(err, errlen,
                     "rank %d: more than 2147483647 elements to send or "
                     "receive at N=%llu elements (MPI's int displacements)",
                     x->me, (unsigned long long)x->max_elems);
            return -1;
        }
        x->sendcounts[p] = (int)s;
        x->recvcounts[p] = (int)r;
        x->sdispls[p] = (int)sent;
        x->rdispls[p] = (int)received;
        sent += s;
        received += r;
    }
    x->send_bytes = (size_t)sent * cfg->elem_size;
    x->recv_bytes = (size_t)received * cfg->elem_size;
    return 0;
}

static void fill_send(a2a_exchange *x, const a2a_config *cfg)
{
    for (int p = 0; p < x->P; p++) {
        unsigned char *block =
            x->sendbuf + (size_t)x->sdispls[p] * cfg->elem_size;
        for (int k = 0; k < x->sendcounts[p]; k++)
            payload_value(cfg, x->me, p, (uint64_t)k,
                          block + (size_t)k * cfg->elem_size);
    }
}

int a2a_exchange_build(a2a_exchange *x, const a2a_config *cfg,
                       uint64_t max_elems, int P, int me, int shared,
                       char *err, size_t errlen)
{
    memset(x, 0, sizeof *x);
    x->P = P;
    x->me = me;
    x->max_elems = max_elems;
    x->shared = shared;
    x->sendcounts = malloc(4 * (size_t)P * sizeof(int));
    if (!x->sendcounts) {
        snprintf(err, errlen, "rank %d: out of memory for 4 x %d counts", me,
                 P);
        return -1;
    }
    x->sdispls = x->sendcounts + P;
    x->recvcounts = x->sendcounts + 2 * (size_t)P;
    x->rdispls = x->sendcounts + 3 * (size_t)P;
    if (set_counts(x, cfg, err, errlen))
        goto fn_fail;
    /* +1: a valid pointer even when a rank sends or receives nothing. */
    x->sendbuf = payload_alloc(x->send_bytes + 1, shared);
    x->recvbuf = payload_alloc(x->recv_bytes + 1, shared);
    if (cfg->verify)
        x->reference = malloc(x->recv_bytes + 1);
    if (!x->sendbuf || !x->recvbuf || (cfg->verify && !x->reference)) {
        snprintf(err, errlen,
                 "rank %d: out of memory for %zu bytes to send and %zu to "
                 "receive",
                 me, x->send_bytes, x->recv_bytes);
        goto fn_fail;
    }
    if (!shared)
        fill_send(x, cfg);
    return 0;
fn_fail:
    a2a_exchange_free(x);
    return -1;
}

void a2a_exchange_free(a2a_exchange *x)
{
    if (x->sendbuf)
        payload_free(x->sendbuf, x->shared);
    if (x->recvbuf)
        payload_free(x->recvbuf, x->shared);
    free(x->reference);
    free(x->sendcounts);
    memset(x, 0, sizeof *x);
}

int a2a_exchange_first_wrong_block(const a2a_exchange *x,
                                   const a2a_config *cfg,
                                   const unsigned char *buf)
{
    unsigned char expected[sizeof(double)];
    for (int p = 0; p < x->P; p++) {
        const unsigned char *block =
            buf + (size_t)x->rdispls[p] * cfg->elem_size;
        for (int k = 0; k < x->recvcounts[p]; k++) {
            payload_value(cfg, p, x->me, (uint64_t)k, expected);
            if (memcmp(block + (size_t)k * cfg->elem_size, expected,
                       cfg->elem_size) != 0)
                return p;
        }
    }
    return -1;
}

uint64_t a2a_exchange_offrank_bytes(const a2a_exchange *x,
                                    const a2a_config *cfg)
{
    return (uint64_t)(x->send_bytes -
                      (size_t)x->sendcounts[x->me] * cfg->elem_size);
}
