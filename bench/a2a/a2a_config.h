/* a2a_config.h: the command line of ravel-a2a, parsed and checked.
 *
 * Every rank parses the same argv, so every rank reaches the same verdict;
 * only rank 0 prints it. */
#ifndef RAVEL_A2A_CONFIG_H
#define RAVEL_A2A_CONFIG_H

#include "a2a_dist.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define A2A_MAX_LIST 64 /* entries in --comm and --N lists */

/* --api=exchange and --api=outbox (0: MPI_Alltoallv's signature). */
enum { A2A_API_EXCHANGE = 1, A2A_API_OUTBOX = 2 };

typedef struct {
    const char *backends[A2A_MAX_LIST]; /* registered names */
    size_t nbackends;
    uint64_t sizes[A2A_MAX_LIST]; /* --N: largest block, in bytes */
    size_t nsizes;
    uint64_t iters, warmup, seed;
    int verify, help;
    int hint_stats; /* --hint-stats: auto is told each call's statistics */
    int exchange_api; /* --api: 0, or through ravel_exchange_run on the
                         send buffer or on outboxes (A2A_API_*) */
    const char *csv_path;  /* NULL: no CSV */
    const char *model_path; /* --model: NULL = RAVEL_MODEL or built-in */
    a2a_dist dist;
    const char *type_name; /* "double" or "byte" */
    MPI_Datatype type;
    size_t elem_size;
    char comm_list[1024]; /* storage for backends[] */
} a2a_config;

/* Fills cfg from argv.  Returns 0, or -1 with a message in err.  When
 * --help was given, cfg->help is set and nothing else is checked. */
int a2a_config_parse(int argc, char **argv, a2a_config *cfg, char *err,
                     size_t errlen);

/* Prints the usage and the option table on out. */
void a2a_config_print_help(FILE *out);

#endif
