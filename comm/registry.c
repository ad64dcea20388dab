/* The table of backends: the one place that maps a name to an algorithm.
 * Adding a backend is its file plus one row here.  A backend with a
 * parameter (radix-bruck:R, padded-bruck:VARIANT) has a fixed row for its
 * default and a family row that parses the parameter; every parameterized
 * name looked up joins the table after the fixed rows, so that logs and
 * auto's choices can name it by index like any other. */
#include "comm_internal.h"

#include "ravel/error.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const char *name;
    ravel_alltoallv_fn fn;
    comm_kernel kernel; /* what fn runs, for auto; NULL if none */
    int param;
} backend_entry;

static const backend_entry backends[] = {
    {"vendor", ravel_alltoallv_vendor, NULL, 0},
    {"spread-out", ravel_alltoallv_spread_out, comm_spread_out_kernel, 0},
    {"padded-alltoall", ravel_alltoallv_padded_alltoall,
     comm_padded_alltoall_kernel, 0},
    {"padded-bruck", ravel_alltoallv_padded_bruck, comm_padded_bruck_kernel,
     0},
    {"two-phase-bruck", ravel_alltoallv_two_phase_bruck,
     comm_two_phase_bruck_kernel, 0},
    {"pairwise", ravel_alltoallv_pairwise, comm_pairwise_kernel, 0},
    {"inline-bruck", ravel_alltoallv_inline_bruck, comm_inline_bruck_kernel,
     0},
    {"radix-bruck", ravel_alltoallv_radix_bruck, comm_radix_bruck_kernel,
     RADIX_BRUCK_DEFAULT},
    {"shm", ravel_alltoallv_shm, comm_shm_kernel, 0},
    /* Last: it chooses among the rows above (cost_model.c). */
    {"auto", ravel_alltoallv_auto, NULL, 0},
};

enum { BACKEND_COUNT = sizeof backends / sizeof backends[0] };

#define RADIX_FORMS \
    "radix-bruck:R for a whole number R >= 2, e.g. radix-bruck:8"
#define PADDED_FORMS \
    "padded-bruck:basic (rotations) or padded-bruck:modified (none, as " \
    "padded-bruck)"

#define TWO_LEVEL_FORMS \
    "two-level:NAME for NAME another backend, e.g. two-level:two-phase-bruck"

#define AUTO_FORMS \
    "auto:agree (an allreduce before every call, never the last call's " \
    "statistics)"

enum { EXTRA_MAX = 32, EXTRA_NAME = 32 };
static struct {
    char name[EXTRA_NAME];
    ravel_alltoallv_fn fn;
} extra[EXTRA_MAX];
static size_t extra_count;

/* The parameter of `text`, or -1 when it is not canonical decimal or does
 * not fit in an int. */
static int parse_param(const char *text)
{
    if (text[0] < '1' || text[0] > '9')
        return -1;
    long long v = 0;
    for (const char *c = text; *c; c++) {
        if (*c < '0' || *c > '9' || v > 0x7fffffff)
            return -1;
        v = 10 * v + (*c - '0');
    }
    return v > 0x7fffffff ? -1 : (int)v;
}

int comm_radix_of_name(const char *name)
{
    static const char prefix[] = "radix-bruck:";
    if (strcmp(name, "radix-bruck") == 0)
        return RADIX_BRUCK_DEFAULT;
    if (strncmp(name, prefix, sizeof prefix - 1) != 0)
        return 0;
    int radix = parse_param(name + sizeof prefix - 1);
    return radix >= 2 ? radix : 0;
}

const char *comm_two_level_inner(const char *name)
{
    static const char prefix[] = "two-level:";
    return strncmp(name, prefix, sizeof prefix - 1) == 0
               ? name + sizeof prefix - 1
               : NULL;
}

static ravel_alltoallv_fn radix_family(const char *name, const char *param)
{
    int radix = parse_param(param);
    if (radix < 2) {
        ravel_error_set(MPI_ERR_ARG, "'%s' is not a backend: '%s' is not a "
                        "whole number >= 2 written in decimal (accepted: "
                        "%s)", name, param, RADIX_FORMS);
        return NULL;
    }
    return comm_radix_bruck_fn(radix);
}

static ravel_alltoallv_fn padded_bruck_family(const char *name,
                                              const char *param)
{
    if (strcmp(param, "modified") == 0)
        return ravel_alltoallv_padded_bruck;
    if (strcmp(param, "basic") == 0)
        return comm_alltoallv_padded_bruck_basic;
    ravel_error_set(MPI_ERR_ARG, "'%s' is not a backend: '%s' is not a "
                    "variant of padded Bruck (accepted: %s)", name, param,
                    PADDED_FORMS);
    return NULL;
}

static ravel_alltoallv_fn two_level_family(const char *name,
                                           const char *param)
{
    return comm_two_level_fn(name, param);
}

static ravel_alltoallv_fn auto_family(const char *name, const char *param)
{
    if (strcmp(param, "agree") == 0)
        return comm_alltoallv_auto_agree;
    ravel_error_set(MPI_ERR_ARG, "'%s' is not a backend: '%s' is not a "
                    "variant of auto (accepted: %s)", name, param,
                    AUTO_FORMS);
    return NULL;
}

/* Families NAME:PARAM.  Each has one spelling per backend (a radix in
 * decimal without sign or leading zeros), so that a name found in a log
 * looks itself up. */
static const struct {
    const char *prefix; /* up to and including the colon */
    ravel_alltoallv_fn (*make)(const char *name, const char *param);
} families[] = {
    {"radix-bruck:", radix_family},
    {"padded-bruck:", padded_bruck_family},
    {"auto:", auto_family},
    {"two-level:", two_level_family},
};
enum { FAMILY_COUNT = sizeof families / sizeof families[0] };

comm_kernel comm_backend_kernel(const char *name, int *param)
{
    *param = 0;
    for (size_t i = 0; i < BACKEND_COUNT; i++)
        if (strcmp(backends[i].name, name) == 0) {
            *param = backends[i].param;
            return backends[i].kernel;
        }
    if ((*param = comm_radix_of_name(name)) != 0)
        return comm_radix_bruck_kernel;
    if (strcmp(name, "padded-bruck:modified") == 0)
        return comm_padded_bruck_kernel;
    if (strcmp(name, "padded-bruck:basic") == 0)
        return comm_padded_bruck_basic_kernel;
    return NULL;
}

comm_kernel comm_discovering_kernel(const char *name, int *param)
{
    comm_kernel kernel = comm_backend_kernel(name, param);
    if (kernel == comm_two_phase_bruck_kernel ||
        kernel == comm_inline_bruck_kernel ||
        kernel == comm_radix_bruck_kernel || kernel == comm_shm_kernel)
        return kernel;
    *param = 0;
    return NULL;
}

static ravel_alltoallv_fn lookup_family(const char *name, size_t f)
{
    ravel_alltoallv_fn fn =
        families[f].make(name, name + strlen(families[f].prefix));
    if (!fn)
        return NULL;
    if (strlen(name) >= EXTRA_NAME || extra_count == EXTRA_MAX) {
        ravel_error_set(MPI_ERR_ARG, "'%s': too many parameterized backends "
                        "in one process (at most %d)", name, EXTRA_MAX);
        return NULL;
    }
    strcpy(extra[extra_count].name, name);
    extra[extra_count++].fn = fn;
    return fn;
}

ravel_alltoallv_fn ravel_alltoallv_lookup(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < BACKEND_COUNT; i++)
        if (strcmp(backends[i].name, name) == 0)
            return backends[i].fn;
    for (size_t i = 0; i < extra_count; i++)
        if (strcmp(extra[i].name, name) == 0)
            return extra[i].fn;
    for (size_t f = 0; f < FAMILY_COUNT; f++)
        if (strncmp(name, families[f].prefix, strlen(families[f].prefix)) == 0)
            return lookup_family(name, f);
    char names[512];
    ravel_alltoallv_names(names, sizeof names, ", ");
    ravel_error_set(MPI_ERR_ARG, "'%s' is not a backend (one of: %s; or %s; "
                    "or %s; or %s; or %s)", name, names, RADIX_FORMS,
                    PADDED_FORMS, AUTO_FORMS, TWO_LEVEL_FORMS);
    return NULL;
}

size_t ravel_alltoallv_fixed_count(void) { return BACKEND_COUNT; }

size_t ravel_alltoallv_count(void) { return BACKEND_COUNT + extra_count; }

const char *ravel_alltoallv_name(size_t i)
{
    if (i < BACKEND_COUNT)
        return backends[i].name;
    return i < BACKEND_COUNT + extra_count ? extra[i - BACKEND_COUNT].name
                                           : NULL;
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
