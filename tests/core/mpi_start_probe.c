/* mpi_start_probe: starts MPI as ravel's programs do (ravel_mpi_init) and
 * prints, on each rank, "rank R HWLOC_COMPONENTS=VALUE UCX_TLS=VALUE" (a
 * VALUE is "unset" when its variable is).  Then checks that MPI still
 * works with what was set: that it finds every rank of this node sharing
 * memory with it (MPI_COMM_TYPE_SHARED, which the shm backend and the
 * memory budget use), and that a message large enough to go by rendezvous
 * (UCX's cma lane) and a small one arrive whole between every pair of
 * ranks.  Exits 1 otherwise.  For mpi_start.sh. */
#include "ravel/mpi_start.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Word i of the message rank `from` sends: differs by rank and place. */
static uint64_t word(int from, size_t i)
{
    return ((uint64_t)from << 40) ^ (i * 0x9E3779B97F4A7C15u);
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
    const char *hwloc = getenv("HWLOC_COMPONENTS");
    const char *ucx = getenv("UCX_TLS");
    printf("rank %d HWLOC_COMPONENTS=%s UCX_TLS=%s\n", rank,
           hwloc ? hwloc : "unset", ucx ? ucx : "unset");
    fflush(stdout);
    int ok = messages_arrive(rank, size, 4) &&
             messages_arrive(rank, size, (size_t)1 << 19); /* 4 MiB */
    MPI_Comm_free(&node);
    MPI_Finalize();
    if (node_size != size) {
        fprintf(stderr, "mpi_start_probe: %d of %d ranks share memory\n",
                node_size, size);
        return 1;
    }
    return ok ? 0 : 1;
}
