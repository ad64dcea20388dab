/* The reader on the real graphs in ../shared/datasets/suitesparse: for every
 * graph of MANIFEST.tsv whose closure has at most 25 million paths, the
 * edges read over all ranks are exactly the file's entries (the MANIFEST's
 * edge count, and the same multiset as a plain sequential scan written here
 * finds), with the vertex count the size line gives.  Files that use index
 * 0 (written 0-based) must be refused in strict mode and read with
 * --indices=zero-tolerant.  One graph is also gzip-compressed here and read
 * back through the gzip path.
 * usage: mpiexec -n P mpi_read_shared_graphs DATASET_DIR */
#include "edge_checksum.h"
#include "graph_input.h"
#include "tc_test_util.h"

#include "ravel/error.h"

#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define CLOSURE_LIMIT 25000000ull

/* What a sequential scan of the file finds, independently of the reader. */
typedef struct {
    unsigned long long rows, columns, entries, min_index, count;
    uint64_t checksum; /* over the raw indices as written */
} scan;

static int scan_file(const char *path, scan *s)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    memset(s, 0, sizeof *s);
    s->min_index = ~0ull;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f) && line[0] == '%')
        ;
    if (sscanf(line, "%llu %llu %llu", &s->rows, &s->columns, &s->entries) !=
        3) {
        fclose(f);
        return -1;
    }
    unsigned long long a, b;
    while (fscanf(f, "%llu %llu", &a, &b) == 2) {
        s->count++;
        s->checksum += tc_mix_edge(a, b);
        if (a < s->min_index)
            s->min_index = a;
        if (b < s->min_index)
            s->min_index = b;
    }
    fclose(f);
    return 0;
}

/* The reader's edges, mapped back to the file's indices, fingerprinted. */
static uint64_t global_checksum(const ravel_tc_graph *g, uint64_t shift)
{
    uint64_t local = 0, total = 0;
    for (size_t i = 0; i < g->nedges; i++)
        local += tc_mix_edge(g->edges[2 * i] + shift,
                             g->edges[2 * i + 1] + shift);
    MPI_Allreduce(&local, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

static void check_read(const char *name, const char *path, const scan *s,
                       unsigned long long manifest_edges, int compressed)
{
    int zero_based = s->min_index == 0;
    ravel_tc_read_options o = {0};
    o.indices = zero_based ? RAVEL_TC_INDICES_ZERO_TOLERANT
                           : RAVEL_TC_INDICES_STRICT;
    ravel_tc_graph g;
    int rc = ravel_tc_graph_read(path, &o, MPI_COMM_WORLD, &g);
    TC_EXPECT(rc == MPI_SUCCESS, "%s: %s", name, ravel_error_message());
    if (rc != MPI_SUCCESS)
        return;
    uint64_t local = g.nedges, sum = 0;
    MPI_Allreduce(&local, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    uint64_t dim = s->rows > s->columns ? s->rows : s->columns;
    TC_EXPECT(sum == manifest_edges && g.edges_total == manifest_edges &&
                  g.entries_read == manifest_edges,
              "%s: %" PRIu64 " edges over the ranks, %" PRIu64 " total, %" PRIu64
              " entries; MANIFEST says %llu",
              name, sum, g.edges_total, g.entries_read, manifest_edges);
    TC_EXPECT(g.vertex_count == dim + (uint64_t)zero_based,
              "%s: %" PRIu64 " vertices, the size line says %" PRIu64, name,
              g.vertex_count, dim);
    TC_EXPECT(g.compressed == compressed, "%s: compressed flag", name);
    TC_EXPECT(global_checksum(&g, zero_based ? 0 : 1) == s->checksum,
              "%s: the edges differ from a sequential scan's", name);
    ravel_tc_graph_free(&g);

    if (zero_based) { /* strict mode must refuse index 0, naming it */
        rc = ravel_tc_graph_read(path, NULL, MPI_COMM_WORLD, &g);
        TC_EXPECT(rc != MPI_SUCCESS &&
                      strstr(ravel_error_message(), "found '0'") != NULL,
                  "%s: strict read gave '%s'", name,
                  rc == MPI_SUCCESS ? "success" : ravel_error_message());
        if (rc == MPI_SUCCESS)
            ravel_tc_graph_free(&g);
    }
}

/* Rank 0 writes a gzip copy of `path`; returns its name (every rank). */
static void gzip_copy(const char *path, char *out, size_t outlen)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *tmp = getenv("TMPDIR");
    snprintf(out, outlen, "%s/ravel_tc_shared_copy_%d.mtx.gz",
             tmp && *tmp ? tmp : "/tmp", (int)getpid());
    MPI_Bcast(out, (int)outlen, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        FILE *in = fopen(path, "rb");
        gzFile gz = gzopen(out, "wb");
        char buf[1 << 16];
        size_t n;
        if (!in || !gz)
            MPI_Abort(MPI_COMM_WORLD, 2);
        while ((n = fread(buf, 1, sizeof buf, in)) > 0)
            if (gzwrite(gz, buf, (unsigned)n) != (int)n)
                MPI_Abort(MPI_COMM_WORLD, 2);
        fclose(in);
        gzclose(gz);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 2) {
        fprintf(stderr, "usage: %s DATASET_DIR\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char path[1024], line[1024];
    snprintf(path, sizeof path, "%s/MANIFEST.tsv", argv[1]);
    FILE *manifest = fopen(path, "r");
    TC_EXPECT(manifest != NULL, "cannot open %s", path);
    int graphs = 0, gzipped = 0;
    while (manifest && fgets(line, sizeof line, manifest)) {
        char name[256], file[256];
        unsigned long long edges, tc_size;
        if (line[0] == '#' ||
            sscanf(line, "%255s %255s %llu %llu", name, file, &edges,
                   &tc_size) != 4 ||
            tc_size > CLOSURE_LIMIT)
            continue;
        snprintf(path, sizeof path, "%s/%s", argv[1], file);
        scan s;
        TC_EXPECT(scan_file(path, &s) == 0, "%s: cannot scan", path);
        TC_EXPECT(s.count == edges && s.entries == edges,
                  "%s: the oracle scan disagrees with MANIFEST", name);
        check_read(name, path, &s, edges, 0);
        if (!gzipped && s.min_index > 0) {
            char copy[512];
            gzip_copy(path, copy, sizeof copy);
            check_read(name, copy, &s, edges, 1);
            if (rank == 0)
                remove(copy);
            gzipped = 1;
        }
        graphs++;
    }
    if (manifest)
        fclose(manifest);
    TC_EXPECT(graphs >= 9, "only %d graphs with a closure <= %llu", graphs,
              CLOSURE_LIMIT);
    char what[512];
    snprintf(what, sizeof what, "%s: %d graphs", argv[0], graphs);
    return tc_test_finish(what);
}
