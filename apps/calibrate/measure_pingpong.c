/* alpha and beta: a ping-pong between rank 0 and its partner.
 *
 * For each size n (1 B to 4 MiB, powers of 4) rank 0 sends n bytes, the
 * partner sends them back, `reps` times; half the time per round trip is
 * t(n), the one-way time of one message, which the model calls
 * alpha + beta * n.  `reps` is chosen per size from a first timed batch so
 * that one trial lasts about e->trial_seconds (tiny messages need thousands
 * of round trips to rise above the clock's resolution and the loop's jitter,
 * 4 MiB a handful), and the point is the median of e->trials trials, which
 * ignores the trials a neighbour's process disturbed.
 *
 * Rank 0 leads: before each batch it tells the partner (size index, reps),
 * and reps = 0 ends the protocol, so the two can never disagree on what comes
 * next.  An MPI failure in the middle leaves the peer blocked in a receive
 * that will never complete, so it aborts the job (cal_abort_on_mpi_error)
 * rather than hang; everything that can fail otherwise (memory) is agreed on
 * before the protocol starts. */
#include "calibrate.h"

#include <ravel/error.h>
#include <ravel/timer.h>

#include <stdlib.h>
#include <string.h>

enum { TAG_CONTROL = 1, TAG_PING = 2, TAG_PONG = 3 };

#define PINGPONG_SIZES 12 /* 4^0 .. 4^11 = 4 MiB */
#define MAX_REPS 1000000

static size_t size_at(int i) { return (size_t)1 << (2 * i); }

/* `reps` round trips of n bytes from rank 0's side; returns the seconds. */
static double lead_batch(MPI_Comm comm, int partner, char *buf, int i,
                         int reps)
{
    int control[2] = {i, reps};
    cal_abort_on_mpi_error(MPI_Send(control, 2, MPI_INT, partner, TAG_CONTROL,
                                    comm), "MPI_Send (control)");
    int n = (int)size_at(i);
    double start = ravel_now();
    for (int r = 0; r < reps; r++) {
        cal_abort_on_mpi_error(MPI_Send(buf, n, MPI_BYTE, partner, TAG_PING,
                                        comm), "MPI_Send (ping)");
        cal_abort_on_mpi_error(MPI_Recv(buf, n, MPI_BYTE, partner, TAG_PONG,
                                        comm, MPI_STATUS_IGNORE),
                               "MPI_Recv (pong)");
    }
    return ravel_now() - start;
}

static void follow(MPI_Comm comm, char *buf)
{
    for (;;) {
        int control[2];
        cal_abort_on_mpi_error(MPI_Recv(control, 2, MPI_INT, 0, TAG_CONTROL,
                                        comm, MPI_STATUS_IGNORE),
                               "MPI_Recv (control)");
        if (control[1] == 0)
            return;
        int n = (int)size_at(control[0]);
        for (int r = 0; r < control[1]; r++) {
            cal_abort_on_mpi_error(MPI_Recv(buf, n, MPI_BYTE, 0, TAG_PING,
                                            comm, MPI_STATUS_IGNORE),
                                   "MPI_Recv (ping)");
            cal_abort_on_mpi_error(MPI_Send(buf, n, MPI_BYTE, 0, TAG_PONG,
                                            comm), "MPI_Send (pong)");
        }
    }
}

static void lead(MPI_Comm comm, int partner, char *buf, const cal_effort *e,
                 cal_series *s)
{
    double trial[64];
    int trials = e->trials < 64 ? e->trials : 64;
    for (int i = 0; i < PINGPONG_SIZES; i++) {
        /* A short batch to warm up (first-touch, connection set-up) and to
         * learn the round trip's rough time. */
        double once = lead_batch(comm, partner, buf, i, 3) / 3;
        int reps = cal_reps_for(e->trial_seconds, once, MAX_REPS);
        for (int k = 0; k < trials; k++)
            trial[k] = lead_batch(comm, partner, buf, i, reps) / reps / 2;
        s->x[s->n] = (double)size_at(i);
        s->t[s->n] = cal_median(trial, (size_t)trials);
        s->n++;
    }
    int stop[2] = {0, 0};
    cal_abort_on_mpi_error(MPI_Send(stop, 2, MPI_INT, partner, TAG_CONTROL,
                                    comm), "MPI_Send (stop)");
}

int cal_measure_pingpong(MPI_Comm comm, const cal_topology *t,
                         const cal_effort *e, cal_series *s)
{
    int err = MPI_SUCCESS;
    char *buf = NULL;
    int in_pair = t->partner >= 0 &&
                  (t->rank == 0 || t->rank == t->partner);
    memset(s, 0, sizeof *s);
    s->x_unit = "B";
    if (in_pair) {
        buf = malloc(size_at(PINGPONG_SIZES - 1));
        if (buf)
            memset(buf, 1, size_at(PINGPONG_SIZES - 1)); /* touch the pages */
    }
    if (cal_any_failed(in_pair && !buf, comm)) {
        err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory for the %zu-byte "
                              "ping-pong buffer (on rank 0 or %d)",
                              size_at(PINGPONG_SIZES - 1), t->partner);
        goto fn_exit;
    }
    if (t->partner < 0)
        goto fn_exit; /* one rank: nothing to measure */
    if (t->rank == 0) {
        lead(comm, t->partner, buf, e, s);
        s->measured = 1;
        cal_fit(s, 1);
    } else if (t->rank == t->partner) {
        follow(comm, buf);
    }
fn_exit:
    free(buf);
    return err;
}
