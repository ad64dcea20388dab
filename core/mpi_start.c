/* Starting MPI the way ravel's programs do (ravel/mpi_start.h). */
#define _GNU_SOURCE /* setenv */
#include "ravel/mpi_start.h"

#include <mpi.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A rank count: digits only, at least 1; 0 when `s` is not one. */
static unsigned long rank_count(const char *s)
{
    if (!s || *s < '0' || *s > '9')
        return 0;
    char *end;
    errno = 0;
    unsigned long n = strtoul(s, &end, 10);
    return *end == '\0' && errno == 0 ? n : 0;
}

const char *ravel_hwloc_components_for(const char *user,
                                       const char *local_ranks,
                                       const char *all_ranks)
{
    /* Set, even empty, is the user's choice. */
    if (user)
        return NULL;
    /* Neither: a singleton, started without a launcher. */
    if (!local_ranks && !all_ranks)
        return RAVEL_HWLOC_SKIP_PCI;
    unsigned long local = rank_count(local_ranks);
    unsigned long all = rank_count(all_ranks);
    return local != 0 && local == all ? RAVEL_HWLOC_SKIP_PCI : NULL;
}

int ravel_mpi_init(int *argc, char ***argv)
{
    const char *value = ravel_hwloc_components_for(
        getenv("HWLOC_COMPONENTS"), getenv("MPI_LOCALNRANKS"),
        getenv("PMI_SIZE"));
    /* A failed setenv (out of memory) only costs the time it would save. */
    if (value)
        (void)setenv("HWLOC_COMPONENTS", value, 0);
    return MPI_Init(argc, argv);
}
