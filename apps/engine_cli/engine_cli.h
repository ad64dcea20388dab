/* engine_cli.h: the command-line options every engine-based app shares
 * (backend, cost model, memory limit, checkpoints, log, progress,
 * balancing), so that ravel-tc and ravel-kcfa spell and explain them the
 * same way and a new one is added in one place. */
#ifndef RAVEL_ENGINE_CLI_H
#define RAVEL_ENGINE_CLI_H

#include <ravel/options.h>
#include <ravel/relalg.h>

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *comm;
    const char *exchange; /* "alltoallv" or "discover" */
    const char *model;
    uint64_t max_memory; /* 0: the engine's default */
    const char *checkpoint;
    double checkpoint_every;
    const char *resume;
    const char *log;
    int quiet, no_balance;
} engine_cli;

/* The most options engine_cli_options writes. */
#define ENGINE_CLI_OPTIONS 10

/* The defaults; also the process's allocator policy for the engine's big
 * buffers (ravel_memory_map_large_blocks). */
void engine_cli_init(engine_cli *c);

/* Writes the options into out[0..ENGINE_CLI_OPTIONS), their targets in c;
 * returns how many.  log_help describes --log for this app. */
size_t engine_cli_options(engine_cli *c, const char *log_help,
                          ravel_option *out);

/* 0, or the exit status after reporting (on rank 0) a bad value. */
int engine_cli_check(const engine_cli *c);

/* The engine options these choices make (strings point into c's). */
void engine_cli_apply(const engine_cli *c, ravel_engine_options *eo);

#endif
