/* The engine options every app's command line has (engine_cli.h). */
#include "engine_cli.h"

#include <ravel/comm.h>
#include <ravel/error.h>
#include <ravel/log.h>
#include <ravel/memory.h>

#include <stdio.h>
#include <string.h>

/* Every program with the engine's options runs with its heap on huge
 * pages, restarting itself before its libraries start (ravel/memory.h). */
RAVEL_MEMORY_HUGE_PAGE_HEAP_AT_START;

void engine_cli_init(engine_cli *c)
{
    memset(c, 0, sizeof *c);
    /* Blocks of 128 KiB and more (glibc's own starting threshold, fixed
     * here) are mapped apart and go back when freed; glibc's moving
     * threshold otherwise kept 60 to 80 MB of freed heap per rank resident
     * at TC of p2p-Gnutella04's peak.  From 1 MiB, with the heap below it
     * keeping 16 MiB of what was freed, the peak held freed heap: 1 to 16
     * MiB more on every closure, ego-Facebook's 61 MiB against 54, in 0.98
     * to 1.04 of the time on this machine (relalg/README.md, "The heap
     * gives back what is freed"). */
    ravel_memory_map_large_blocks((size_t)128 << 10);
    c->comm = "auto";
    c->exchange = "discover";
    c->checkpoint_every = 600.0;
}

size_t engine_cli_options(engine_cli *c, const char *log_help,
                          ravel_option *out)
{
    /* The names from the registry, so a new backend is in --help without
     * an edit here (shm was missing from a list written out by hand). */
    static char comm_help[512];
    char names[256];
    ravel_alltoallv_names(names, sizeof names, ", ");
    snprintf(comm_help, sizeof comm_help,
             "all-to-all backend: %s (radix-bruck:R for radix R >= 2, "
             "radix-bruck alone R = 4; two-level:NAME, NAME across nodes "
             "and shared memory within; auto, the default: the one the "
             "cost model predicts fastest, per iteration)", names);
    const ravel_option options[ENGINE_CLI_OPTIONS] = {
        {"comm", RAVEL_OPT_STRING, &c->comm, "NAME", comm_help},
        {"exchange", RAVEL_OPT_STRING, &c->exchange, "HOW",
         "how an iteration's receive sizes are learned: 'discover' (the "
         "exchange API: the Bruck backends learn sizes with the data, the "
         "others exchange counts inside their call; the default) or "
         "'alltoallv' (an MPI_Alltoall of counts, then the backend's "
         "MPI_Alltoallv)"},
        {"model", RAVEL_OPT_STRING, &c->model, "FILE",
         "cost model written by ravel-calibrate (default: $RAVEL_MODEL, "
         "else built-in)"},
        {"max-memory", RAVEL_OPT_BYTES, &c->max_memory, "SIZE",
         "stop with an error naming the relation and iteration when a "
         "rank's tuples would need more than SIZE bytes (K, M, G, T: "
         "powers of 1024; default 3/4 of the available memory, shared by "
         "the node's ranks)"},
        {"checkpoint", RAVEL_OPT_STRING, &c->checkpoint, "DIR",
         "write snapshots of the run into DIR (every --checkpoint-every "
         "seconds and at the end), to continue it with --resume=DIR after "
         "a crash or kill"},
        {"checkpoint-every", RAVEL_OPT_DOUBLE, &c->checkpoint_every,
         "SECONDS", "time between snapshots (default 600; 0: after every "
         "iteration)"},
        {"resume", RAVEL_OPT_STRING, &c->resume, "DIR",
         "continue from the newest complete snapshot in DIR, on any number "
         "of ranks (give the same input and options)"},
        {"log", RAVEL_OPT_STRING, &c->log, "FILE.csv", log_help},
        {"quiet", RAVEL_OPT_FLAG, &c->quiet, NULL,
         "no per-iteration progress lines on stderr"},
        {"no-balance", RAVEL_OPT_FLAG, &c->no_balance, NULL,
         "turn off the engine's spatial load balancing"},
    };
    memcpy(out, options, sizeof options);
    return ENGINE_CLI_OPTIONS;
}

int engine_cli_check(const engine_cli *c)
{
    if (!ravel_alltoallv_lookup(c->comm))
        return ravel_report(2, "--comm: %s", ravel_error_message());
    if (strcmp(c->exchange, "alltoallv") != 0 &&
        strcmp(c->exchange, "discover") != 0)
        return ravel_report(2, "--exchange=%s: expected alltoallv or "
                            "discover", c->exchange);
    if (!(c->checkpoint_every >= 0.0))
        return ravel_report(2, "--checkpoint-every=%g: expected seconds, "
                            "at least 0", c->checkpoint_every);
    return 0;
}

void engine_cli_apply(const engine_cli *c, ravel_engine_options *eo)
{
    eo->comm_backend = c->comm;
    eo->discover_counts = strcmp(c->exchange, "discover") == 0;
    eo->model_path = c->model;
    eo->max_memory = c->max_memory;
    eo->checkpoint_dir = c->checkpoint;
    eo->checkpoint_every = c->checkpoint_every;
    eo->resume_dir = c->resume;
    eo->log_path = c->log;
    eo->quiet = c->quiet;
    eo->load_balance = !c->no_balance;
}
