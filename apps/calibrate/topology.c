/* Where the ranks are: nodes by MPI_COMM_TYPE_SHARED, and rank 0's partner.
 *
 * The partner is the lowest rank on another node when there is one: alpha
 * and beta are meant to describe the network, and a ping-pong through shared
 * memory measures something much faster.  On one node the partner is rank
 * 1, and the file says so (same_node), so a reader knows the figures are
 * shared memory's. */
#include "calibrate.h"

#include <ravel/comm.h>
#include <ravel/error.h>

#include <stdio.h>
#include <stdlib.h>

int cal_any_failed(int failed, MPI_Comm comm)
{
    int any = 0;
    if (ravel_comm_allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm) !=
        MPI_SUCCESS)
        return 1;
    return any != 0;
}

void cal_abort_on_mpi_error(int err, const char *what)
{
    if (err == MPI_SUCCESS)
        return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(err, text, &len);
    ravel_error_set(err, "%s failed: %s", what, text);
    fprintf(stderr, "ravel-calibrate: %s failed: %s; aborting\n", what, text);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int cal_topology_find(MPI_Comm comm, cal_topology *t)
{
    MPI_Comm node = MPI_COMM_NULL;
    int *leader_of = NULL, leader, node_rank, node_size;
    int err = MPI_Comm_rank(comm, &t->rank);
    if (err == MPI_SUCCESS)
        err = MPI_Comm_size(comm, &t->size);
    if (err == MPI_SUCCESS)
        err = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0,
                                  MPI_INFO_NULL, &node);
    if (err == MPI_SUCCESS)
        err = MPI_Comm_rank(node, &node_rank);
    if (err == MPI_SUCCESS)
        err = MPI_Comm_size(node, &node_size);
    if (err != MPI_SUCCESS)
        goto fn_fail;
    /* A node is named by the world rank of its first rank. */
    leader = t->rank;
    err = MPI_Bcast(&leader, 1, MPI_INT, 0, node);
    if (err != MPI_SUCCESS)
        goto fn_fail;
    leader_of = malloc((size_t)t->size * sizeof *leader_of);
    if (cal_any_failed(leader_of == NULL, comm)) {
        err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory for %d ranks' "
                              "nodes (on some rank)", t->size);
        goto fn_exit;
    }
    err = MPI_Allgather(&leader, 1, MPI_INT, leader_of, 1, MPI_INT, comm);
    if (err == MPI_SUCCESS)
        err = ravel_comm_allreduce(&node_size, &t->ranks_per_node, 1,
                                   MPI_INT, MPI_MAX, comm);
    if (err != MPI_SUCCESS)
        goto fn_fail;
    t->nodes = 0;
    t->partner = -1;
    for (int r = 0; r < t->size; r++) {
        t->nodes += leader_of[r] == r;
        if (t->partner < 0 && leader_of[r] != leader_of[0])
            t->partner = r;
    }
    t->partner_same_node = t->partner < 0;
    if (t->partner < 0)
        t->partner = t->size > 1 ? 1 : -1;
fn_exit:
    free(leader_of);
    if (node != MPI_COMM_NULL)
        MPI_Comm_free(&node);
    return err;
fn_fail:
    {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(err, text, &len);
        err = ravel_error_set(err, "finding the nodes: %s", text);
    }
    goto fn_exit;
}
