/* Starting MPI the way ravel's programs do (ravel/mpi_start.h). */
#define _GNU_SOURCE /* setenv */
#include "ravel/mpi_start.h"

#include <mpi.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>

/* A rank count: digits only; 0 when `s` is not one (or is 0). */
static unsigned long rank_count(const char *s)
{
    if (!s || *s < '0' || *s > '9')
        return 0;
    char *end;
    errno = 0;
    unsigned long n = strtoul(s, &end, 10);
    return *end == '\0' && errno == 0 ? n : 0;
}

int ravel_every_rank_here(const char *local_ranks, const char *all_ranks,
                          int launched)
{
    if (!launched)
        return 1; /* a singleton: one process, here */
    unsigned long local = rank_count(local_ranks);
    return local != 0 && local == rank_count(all_ranks);
}

/* Whether a launcher started this process: one of the variables that
 * MPICH's hydra, Slurm's PMI-1 and PMI-2, PMIx or Open MPI's launcher put
 * in every rank's environment is set.  None: a singleton, which MPICH's
 * PMI client also recognises by PMI_FD and PMI_PORT being unset. */
static int launched(void)
{
    static const char *const set_by_launchers[] = {
        "PMI_FD", "PMI_PORT", "PMI_SIZE", "PMI_RANK", "MPI_LOCALNRANKS",
        "PMIX_RANK", "PMIX_NAMESPACE", "OMPI_COMM_WORLD_SIZE"};
    for (size_t i = 0; i < sizeof set_by_launchers / sizeof *set_by_launchers;
         i++)
        if (getenv(set_by_launchers[i]))
            return 1;
    return 0;
}

/* UCX reads UCX_MODULES as its library starts, before main, so setting
 * the variable here is too late (UCX warns that it went unused).  Its
 * run-time setter for the same option, ucs_global_opts_set_value, declared
 * in UCX's installed <ucs/config/global_opts.h>, is looked up rather than
 * linked: only an MPI built on UCX has it, and MPI_Init, which loads UCX's
 * transport modules, has not run yet.  Without it nothing changes. */
static void ucx_leave_modules_out(const char *modules)
{
    typedef int (*set_option)(const char *name, const char *value);
    set_option set;
    *(void **)&set = dlsym(RTLD_DEFAULT, "ucs_global_opts_set_value");
    if (set)
        (void)set("MODULES", modules); /* refused: MPI starts as before */
}

int ravel_mpi_init(int *argc, char ***argv)
{
    if (ravel_every_rank_here(getenv("MPI_LOCALNRANKS"), getenv("PMI_SIZE"),
                              launched())) {
        /* Not overwriting: the user's value stands.  A failed setenv (out
         * of memory) only costs the time and memory it would save. */
        (void)setenv("HWLOC_COMPONENTS", RAVEL_HWLOC_SKIP_PCI, 0);
        (void)setenv("UCX_SYSV_RX_BUFS_GROW", RAVEL_UCX_ONE_NODE_RX_BUFS_GROW,
                     0);
        if (!getenv("UCX_TLS")) {
            (void)setenv("UCX_TLS", RAVEL_UCX_ONE_NODE_TLS, 0);
            if (!getenv("UCX_MODULES"))
                ucx_leave_modules_out(RAVEL_UCX_ONE_NODE_MODULES);
        }
    }
    return MPI_Init(argc, argv);
}
