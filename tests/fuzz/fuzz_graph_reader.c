/* Fuzz target of the graph reader (apps/tc/graph_read.c and what it calls:
 * the line reader, the Matrix Market and edge-list parsers, gzip), built
 * twice: FUZZ_FORMAT picks Matrix Market (mtx_reader) or edge lists
 * (edge_reader).  The input is written to a file and read on
 * MPI_COMM_SELF, as one rank would.
 *
 * Oracle, besides the sanitizers: a read that succeeds gives edges whose
 * ids are below the vertex count and totals that agree; one that fails
 * leaves the graph empty and a message naming the file. */
#include "graph_input.h"

#include "ravel/error.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FUZZ_FORMAT
#error "FUZZ_FORMAT must be RAVEL_TC_FORMAT_MATRIX_MARKET or _EDGE_LIST"
#endif

static char path[256];
static int fd = -1;

static void finish(void)
{
    unlink(path);
    MPI_Finalize();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/ravel_fuzz_graph.XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        abort();
    }
    atexit(finish);
    return 0;
}

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "oracle failed: %s (%s)\n", what,
                ravel_error_message());
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (ftruncate(fd, 0) != 0 ||
        (size && pwrite(fd, data, size, 0) != (ssize_t)size))
        abort();
    ravel_tc_read_options options = {FUZZ_FORMAT, RAVEL_TC_SYMMETRIC_BOTH,
                                      RAVEL_TC_INDICES_STRICT};
    /* One input byte picks zero-tolerant indices: both index rules. */
    if (size > 0 && (data[size - 1] & 1))
        options.indices = RAVEL_TC_INDICES_ZERO_TOLERANT;
    ravel_tc_graph g;
    int rc = ravel_tc_graph_read(path, &options, MPI_COMM_SELF, &g);
    if (rc != MPI_SUCCESS) {
        check(g.edges == NULL && g.nedges == 0, "a failed read is empty");
        check(strncmp(ravel_error_message(), path, strlen(path)) == 0,
              "the message names the file");
        return 0;
    }
    check(g.edges_total == g.nedges, "one rank holds every edge");
    for (size_t i = 0; i < 2 * g.nedges; i++)
        check(g.edges[i] < g.vertex_count, "ids below the vertex count");
    ravel_tc_graph_free(&g);
    return 0;
}
