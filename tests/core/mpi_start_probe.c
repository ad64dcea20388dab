/* mpi_start_probe: starts MPI as ravel's programs do (ravel_mpi_init) and
 * prints, on each rank, "rank R HWLOC_COMPONENTS=VALUE UCX_TLS=VALUE
 * UCX_SYSV_RX_BUFS_GROW=VALUE uct_ib=loaded|absent" (a VALUE is "unset"
 * when its variable is; uct_ib, whether UCX's InfiniBand module is mapped
 * into the process once MPI has started).  Then checks that MPI still works with what was set:
 * that it finds every rank of this node sharing memory with it
 * (MPI_COMM_TYPE_SHARED, which the shm backend and the memory budget use),
 * that a message large enough to go by rendezvous (UCX's cma lane) and a
 * small one arrive whole between every pair of ranks, and that many more
 * small messages than a growth of UCX's receive pool holds, all sent
 * before any is received, arrive whole too.  Exits 1 otherwise.  For
 * mpi_start.sh. */
#include "ravel/mpi_start.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Word i of the message rank `from` sends: differs by rank and place. */
static uint64_t word(int from, size_t i)
{
    return ((uint64_t)from << 40) ^ (i * 0x9E3779B97F4A7C15u);
}

/* Whether message `m` of `count`, of `words` words each, from `from`
 * holds what that rank put in it. */
static int message_intact(const uint64_t *in, int from, size_t m,
                          size_t words)
{
    for (size_t i = 0; i < words; i++)
        if (in[i] != word(from, m * words + i)) {
            fprintf(stderr, "mpi_start_probe: word %zu of message %zu from "
                    "rank %d is wrong\n", i, m, from);
            return 0;
        }
    return 1;
}

/* Whether `count` messages of `words` words that every rank sends to every
 * other, all posted and the ranks met at a barrier before any receive is
 * posted (so they wait in the receiver's pool), arrive intact. */
static int messages_wait_and_arrive(int rank, int size, size_t count,
                                    size_t words)
{
    size_t peers = (size_t)size - 1, n = peers * count;
    uint64_t *out = malloc(count * words * sizeof *out);
    uint64_t *in = malloc((n + 1) * words * sizeof *in);
    MPI_Request *req = malloc((2 * n + 1) * sizeof *req);
    if (!out || !in || !req) {
        fprintf(stderr, "mpi_start_probe: out of memory\n");
        MPI_Barrier(MPI_COMM_WORLD); /* every rank still meets the others */
        free(out);
        free(in);
        free(req);
        return 0;
    }
    for (size_t i = 0; i < count * words; i++)
        out[i] = word(rank, i);
    int r = 0;
    for (size_t p = 1; p <= peers; p++)
        for (size_t m = 0; m < count; m++)
            MPI_Isend(out + m * words, (int)words, MPI_UINT64_T,
                      (rank + (int)p) % size, (int)m, MPI_COMM_WORLD,
                      &req[r++]);
    MPI_Barrier(MPI_COMM_WORLD);
    for (size_t p = 1; p <= peers; p++)
        for (size_t m = 0; m < count; m++)
            MPI_Irecv(in + ((p - 1) * count + m) * words, (int)words,
                      MPI_UINT64_T, (rank - (int)p + size) % size, (int)m,
                      MPI_COMM_WORLD, &req[r++]);
    for (int i = 0; i < r; i++) /* not Waitall: GCC 12 misreads its */
        MPI_Wait(&req[i], MPI_STATUS_IGNORE); /* sentinel (comm/context.c) */
    int ok = 1;
    for (size_t p = 1; ok && p <= peers; p++)
        for (size_t m = 0; ok && m < count; m++)
            ok = message_intact(in + ((p - 1) * count + m) * words,
                                (rank - (int)p + size) % size, m, words);
    free(out);
    free(in);
    free(req);
    return ok;
}

/* Whether a file whose path holds `name` is mapped into this process. */
static int mapped(const char *name)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (maps && !found && fgets(line, sizeof line, maps))
        found = strstr(line, name) != NULL;
    if (maps)
        fclose(maps);
    return found;
}

/* Whether `words` words sent by every rank to every other arrive intact. */
static int messages_arrive(int rank, int size, size_t words)
{
    uint64_t *out = malloc(words * sizeof *out);
    uint64_t *in = malloc(words * sizeof *in);
    int ok = out && in;
    for (size_t i = 0; ok && i < words; i++)
        out[i] = word(rank, i);
    for (int d = 1; ok && d < size; d++) {
        int to = (rank + d) % size, from = (rank - d + size) % size;
        MPI_Sendrecv(out, (int)words, MPI_UINT64_T, to, 0, in, (int)words,
                     MPI_UINT64_T, from, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (size_t i = 0; i < words; i++)
            if (in[i] != word(from, i)) {
                fprintf(stderr, "mpi_start_probe: rank %d, word %zu of %zu "
                        "from rank %d is wrong\n", rank, i, words, from);
                ok = 0;
                break;
            }
    }
    free(out);
    free(in);
    return ok;
}

int main(int argc, char **argv)
{
    ravel_mpi_init(&argc, &argv);
    int rank, size, node_size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                        MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_size);
    static const char *const names[] = {"HWLOC_COMPONENTS", "UCX_TLS",
                                        "UCX_SYSV_RX_BUFS_GROW"};
    /* One write for the line, so that the ranks' lines do not mix. */
    char line[1024];
    int at = snprintf(line, sizeof line, "rank %d", rank);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *value = getenv(names[i]);
        at += snprintf(line + at, sizeof line - (size_t)at, " %.200s=%.200s",
                       names[i], value ? value : "unset");
    }
    snprintf(line + at, sizeof line - (size_t)at, " uct_ib=%s\n",
             mapped("libuct_ib") ? "loaded" : "absent");
    fputs(line, stdout);
    fflush(stdout);
    int ok = messages_arrive(rank, size, 4) &&
             messages_arrive(rank, size, (size_t)1 << 19) && /* 4 MiB */
             /* 1,000 of 4 KiB: UCX sends them eagerly, through 8 KiB
              * segments of the receive pool, grown 64 at a time. */
             messages_wait_and_arrive(rank, size, 1000, 512);
    MPI_Comm_free(&node);
    MPI_Finalize();
    if (node_size != size) {
        fprintf(stderr, "mpi_start_probe: %d of %d ranks share memory\n",
                node_size, size);
        return 1;
    }
    return ok ? 0 : 1;
}
