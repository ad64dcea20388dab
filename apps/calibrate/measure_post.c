/* o: the CPU cost of posting and completing one send or receive.
 *
 * In a batch, rank 0 posts k zero-byte MPI_Isend to its partner, the partner
 * k matching MPI_Irecv, both MPI_Waitall, and the partner then sends one
 * zero-byte acknowledgement that rank 0 waits for, so that batches do not
 * overlap.  Rank 0 times `reps` batches; t(k) = c + o * k over k = 1, 2, 4,
 * ..., 1024, and o is the slope.
 *
 * What o includes: creating the request, the library's matching (a zero-
 * byte message travels in the envelope alone, so no bytes are moved), the
 * completion in MPI_Waitall and freeing the request, on both sides at once;
 * the two sides work in parallel, so the slope is the per-message cost of
 * the slower side, which is what a rank posting many sends and receives in
 * a backend pays per request.  What it excludes: the latency of the wire and
 * the acknowledgement's round trip, which are the same for every k and go
 * into the intercept c (not a model parameter).  The messages are zero bytes
 * so that nothing of beta is in o.
 *
 * The protocol is rank 0's, as in measure_pingpong.c: (k index, reps) before
 * each batch, reps = 0 to stop; an MPI failure aborts rather than hang. */
#include "calibrate.h"

#include <ravel/error.h>
#include <ravel/timer.h>

#include <stdlib.h>
#include <string.h>

enum { TAG_CONTROL = 11, TAG_MESSAGE = 12, TAG_ACK = 13 };

#define POST_COUNTS 11 /* k = 2^0 .. 2^10 */
#define MAX_K 1024
#define MAX_REPS 100000

static int k_at(int i) { return 1 << i; }

/* A blocking MPI_Waitall, not ravel_comm_waitall: o is the library's own
 * cost, without the yielding loop.  MPICH's headers annotate MPI_Waitall
 * with access sizes that make GCC 12 mistake MPI_STATUSES_IGNORE (a
 * sentinel, not an array) for a zero-sized buffer (as in comm/context.c). */
#if defined(__GNUC__) && !defined(__clang__) /* clang has no such warning */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
static void wait_all(int k, MPI_Request *req, const char *what)
{
    cal_abort_on_mpi_error(MPI_Waitall(k, req, MPI_STATUSES_IGNORE), what);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

static double lead_batch(MPI_Comm comm, int partner, MPI_Request *req, int i,
                         int reps)
{
    int control[2] = {i, reps}, k = k_at(i);
    char none = 0;
    cal_abort_on_mpi_error(MPI_Send(control, 2, MPI_INT, partner, TAG_CONTROL,
                                    comm), "MPI_Send (control)");
    double start = ravel_now();
    for (int r = 0; r < reps; r++) {
        for (int m = 0; m < k; m++)
            cal_abort_on_mpi_error(MPI_Isend(&none, 0, MPI_BYTE, partner,
                                             TAG_MESSAGE, comm, &req[m]),
                                   "MPI_Isend");
        wait_all(k, req, "MPI_Waitall (sends)");
        cal_abort_on_mpi_error(MPI_Recv(&none, 0, MPI_BYTE, partner, TAG_ACK,
                                        comm, MPI_STATUS_IGNORE),
                               "MPI_Recv (ack)");
    }
    return ravel_now() - start;
}

static void follow(MPI_Comm comm, MPI_Request *req)
{
    char none[1];
    for (;;) {
        int control[2];
        cal_abort_on_mpi_error(MPI_Recv(control, 2, MPI_INT, 0, TAG_CONTROL,
                                        comm, MPI_STATUS_IGNORE),
                               "MPI_Recv (control)");
        if (control[1] == 0)
            return;
        int k = k_at(control[0]);
        for (int r = 0; r < control[1]; r++) {
            for (int m = 0; m < k; m++)
                cal_abort_on_mpi_error(MPI_Irecv(none, 0, MPI_BYTE, 0,
                                                 TAG_MESSAGE, comm, &req[m]),
                                       "MPI_Irecv");
            wait_all(k, req, "MPI_Waitall (receives)");
            cal_abort_on_mpi_error(MPI_Send(none, 0, MPI_BYTE, 0, TAG_ACK,
                                            comm), "MPI_Send (ack)");
        }
    }
}

static void lead(MPI_Comm comm, int partner, MPI_Request *req,
                 const cal_effort *e, cal_series *s)
{
    double trial[64];
    int trials = e->trials < 64 ? e->trials : 64;
    for (int i = 0; i < POST_COUNTS; i++) {
        double once = lead_batch(comm, partner, req, i, 3) / 3;
        int reps = cal_reps_for(e->trial_seconds, once, MAX_REPS);
        for (int j = 0; j < trials; j++)
            trial[j] = lead_batch(comm, partner, req, i, reps) / reps;
        s->x[s->n] = k_at(i);
        s->t[s->n] = cal_median(trial, (size_t)trials);
        s->n++;
    }
    int stop[2] = {0, 0};
    cal_abort_on_mpi_error(MPI_Send(stop, 2, MPI_INT, partner, TAG_CONTROL,
                                    comm), "MPI_Send (stop)");
}

int cal_measure_post(MPI_Comm comm, const cal_topology *t,
                     const cal_effort *e, cal_series *s)
{
    int err = MPI_SUCCESS;
    MPI_Request *req = NULL;
    int in_pair = t->partner >= 0 &&
                  (t->rank == 0 || t->rank == t->partner);
    memset(s, 0, sizeof *s);
    s->x_unit = "msg";
    if (in_pair)
        req = malloc(MAX_K * sizeof *req);
    if (cal_any_failed(in_pair && !req, comm)) {
        err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory for %d requests "
                              "(on rank 0 or %d)", MAX_K, t->partner);
        goto fn_exit;
    }
    if (t->partner < 0)
        goto fn_exit;
    if (t->rank == 0) {
        lead(comm, t->partner, req, e, s);
        s->measured = 1;
        cal_fit(s, 0);
    } else if (t->rank == t->partner) {
        follow(comm, req);
    }
fn_exit:
    free(req);
    return err;
}
