/* The table of backends: the one place that maps a name to an algorithm.
 * Adding a backend is its file plus one row here. */
#include "ravel/comm.h"

#include <string.h>

typedef struct {
    const char *name;
    ravel_alltoallv_fn fn;
} backend_entry;

static const backend_entry backends[] = {
    {"vendor", ravel_alltoallv_vendor},
    {"spread-out", ravel_alltoallv_spread_out},
    {"padded-alltoall", ravel_alltoallv_padded_alltoall},
    {"padded-bruck", ravel_alltoallv_padded_bruck},
    {"two-phase-bruck", ravel_alltoallv_two_phase_bruck},
    {"pairwise", ravel_alltoallv_pairwise},
    {"inline-bruck", ravel_alltoallv_inline_bruck},
    /* Last: it chooses among the rows above (cost_model.c). */
    {"auto", ravel_alltoallv_auto},
};

enum { BACKEND_COUNT = sizeof backends / sizeof backends[0] };

ravel_alltoallv_fn ravel_alltoallv_lookup(const char *name)
{
    for (size_t i = 0; name && i < BACKEND_COUNT; i++)
        if (strcmp(backends[i].name, name) == 0)
            return backends[i].fn;
    return NULL;
}

size_t ravel_alltoallv_count(void) { return BACKEND_COUNT; }

const char *ravel_alltoallv_name(size_t i)
{
    return i < BACKEND_COUNT ? backends[i].name : NULL;
}

size_t ravel_alltoallv_names(char *buf, size_t buflen, const char *sep)
{
    size_t need = 0;
    if (buflen)
        buf[0] = '\0';
    for (size_t i = 0; i < BACKEND_COUNT; i++) {
        const char *part[2] = {i ? sep : "", backends[i].name};
        for (int p = 0; p < 2; p++) {
            size_t len = strlen(part[p]);
            if (need + len < buflen)
                memcpy(buf + need, part[p], len + 1);
            else if (buflen && need < buflen)
                buf[need] = '\0';
            need += len;
        }
    }
    return need + 1;
}
