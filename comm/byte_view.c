/* The frontend of every byte-moving backend: MPI_Alltoallv arguments in,
 * byte sizes and offsets out.
 *
 * A "dense" datatype (lower bound 0, no holes: size == extent == true
 * extent) is moved as raw bytes straight from and to the caller's buffers.
 * Any other datatype is packed with MPI_Pack into a staging buffer (or
 * unpacked with MPI_Unpack from one); because a dense peer sends raw bytes,
 * that is only correct where MPI_Pack's output is the raw bytes of the
 * typemap, which ravel checks as far as MPI lets it (the packed size must be
 * exactly count * type size) and otherwise refuses the type. */
#include "comm_internal.h"

#include "ravel/error.h"
#include "ravel/log.h"
#include "ravel/memory.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    MPI_Aint extent;
    MPI_Aint true_lb;     /* where an element's data really starts */
    MPI_Aint true_extent; /* and how far it really spans */
    size_t size;          /* bytes of data in one element */
    int dense;
} type_layout;

static int describe_type(MPI_Datatype type, const char *side, type_layout *t)
{
    if (type == MPI_DATATYPE_NULL)
        return ravel_error_set(MPI_ERR_TYPE, "the %s datatype is "
                               "MPI_DATATYPE_NULL", side);
    int size;
    MPI_Aint lb, extent, true_lb, true_extent;
    int err = MPI_Type_size(type, &size);
    if (err == MPI_SUCCESS)
        err = MPI_Type_get_extent(type, &lb, &extent);
    if (err == MPI_SUCCESS)
        err = MPI_Type_get_true_extent(type, &true_lb, &true_extent);
    if (err != MPI_SUCCESS)
        return ravel_error_set(err, "the %s datatype is not valid "
                               "(not committed?)", side);
    t->extent = extent;
    t->true_lb = true_lb;
    t->true_extent = true_extent;
    t->size = (size_t)size;
    t->dense = lb == 0 && true_lb == 0 && extent == (MPI_Aint)size &&
               true_extent == (MPI_Aint)size;
    return MPI_SUCCESS;
}

/* Bytes and byte offsets of P blocks of `type`. */
static int layout_blocks(int P, const int counts[], const int displs[],
                         const type_layout *t, const char *side,
                         size_t bytes[], MPI_Aint offsets[])
{
    for (int i = 0; i < P; i++) {
        if (counts[i] < 0)
            return ravel_error_set(MPI_ERR_COUNT, "%scounts[%d] = %d is "
                                   "negative", side, i, counts[i]);
        if (ravel_mul_size((size_t)counts[i], t->size, &bytes[i]))
            return ravel_error_set(MPI_ERR_COUNT, "%scounts[%d] = %d elements "
                                   "overflow size_t", side, i, counts[i]);
        MPI_Aint offset;
        if (__builtin_mul_overflow((MPI_Aint)displs[i], t->extent, &offset))
            return ravel_error_set(MPI_ERR_ARG, "%sdispls[%d] = %d overflows "
                                   "an address", side, i, displs[i]);
        offsets[i] = offset;
    }
    return MPI_SUCCESS;
}

/* For a non-dense type: checks that MPI_Pack writes exactly the data bytes,
 * so that packed blocks and a dense peer's raw blocks are interchangeable. */
static int check_packable(MPI_Datatype type, const type_layout *t, int count,
                          MPI_Comm comm, const char *side)
{
    int packed = 0;
    int err = MPI_Pack_size(count, type, comm, &packed);
    if (err != MPI_SUCCESS)
        return err;
    if ((size_t)packed != (size_t)count * t->size)
        return ravel_error_set(MPI_ERR_TYPE,
                               "the %s datatype is not contiguous and this MPI "
                               "packs %d elements into %d bytes, not %zu: "
                               "ravel cannot move it as bytes",
                               side, count, packed, (size_t)count * t->size);
    return MPI_SUCCESS;
}

/* Packs the P blocks of a non-dense send type into one staging buffer and
 * rewrites the offsets to point into it. */
static int pack_send(const void *sendbuf, const int counts[],
                     MPI_Datatype type, const type_layout *t, int P,
                     const size_t bytes[], MPI_Aint offsets[], MPI_Comm comm,
                     char **staging)
{
    size_t total = 0;
    for (int i = 0; i < P; i++)
        if (ravel_add_size(total, bytes[i], &total))
            return ravel_error_set(MPI_ERR_COUNT, "the send blocks' total "
                                   "size overflows size_t");
    int total_int;
    int err = comm_int_count(total, "the packed send data", &total_int);
    if (err != MPI_SUCCESS)
        return err;
    *staging = comm_payload_alloc(total, 0);
    if (!*staging)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory packing %zu "
                               "bytes of send data", total);
    int position = 0;
    for (int i = 0; i < P; i++) {
        /* An empty block is skipped: sendbuf may be NULL then, and
         * NULL + displacement is undefined. */
        MPI_Aint at = offsets[i];
        offsets[i] = position;
        if (counts[i] == 0)
            continue;
        err = check_packable(type, t, counts[i], comm, "send");
        if (err != MPI_SUCCESS)
            return err;
        const char *block = (const char *)sendbuf + at;
        err = MPI_Pack(block, counts[i], type, *staging, total_int, &position,
                       comm);
        if (err != MPI_SUCCESS)
            return err;
    }
    ravel_comm_charge_copy(total);
    return MPI_SUCCESS;
}

/* Receive side of a non-dense type: a staging buffer laid out block after
 * block; offsets are rewritten to point into it. */
static int stage_recv(const int counts[], MPI_Datatype type,
                      const type_layout *t, int P, const size_t bytes[],
                      MPI_Aint offsets[], MPI_Comm comm, char **staging)
{
    size_t total = 0;
    for (int i = 0; i < P; i++) {
        int err = check_packable(type, t, counts[i], comm, "receive");
        if (err != MPI_SUCCESS)
            return err;
        offsets[i] = (MPI_Aint)total;
        if (ravel_add_size(total, bytes[i], &total))
            return ravel_error_set(MPI_ERR_COUNT, "the receive blocks' total "
                                   "size overflows size_t");
    }
    int total_int;
    int err = comm_int_count(total, "the packed receive data", &total_int);
    if (err != MPI_SUCCESS)
        return err;
    *staging = comm_payload_alloc(total, 0);
    if (!*staging)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory staging %zu "
                               "bytes of receive data", total);
    return MPI_SUCCESS;
}

static int unpack_recv(const char *staging, void *recvbuf, const int counts[],
                       const int displs[], MPI_Datatype type,
                       const type_layout *t, int P, const size_t bytes[],
                       MPI_Comm comm)
{
    size_t total = 0;
    for (int i = 0; i < P; i++)
        total += bytes[i];
    int position = 0;
    for (int i = 0; i < P; i++) {
        if (counts[i] == 0) /* recvbuf may be NULL: see pack_send */
            continue;
        char *block = (char *)recvbuf + (MPI_Aint)displs[i] * t->extent;
        int err = MPI_Unpack(staging, (int)total, &position, block, counts[i],
                             type, comm);
        if (err != MPI_SUCCESS)
            return err;
    }
    ravel_comm_charge_copy(total);
    return MPI_SUCCESS;
}

/* MPI_IN_PLACE: the data to send is what recvbuf holds now, described by the
 * receive arguments.  It is copied aside (whole span) before anything lands. */
static int copy_in_place(const void *recvbuf, int P, MPI_Aint offsets[], const type_layout *t,
                         const int counts[], char **copy)
{
    MPI_Aint lo = 0, hi = 0;
    int any = 0;
    for (int i = 0; i < P; i++) {
        if (counts[i] == 0)
            continue;
        /* The bytes a block touches run from its first element's true lower
         * bound to its last element's true upper bound. */
        MPI_Aint first = offsets[i] + t->true_lb;
        MPI_Aint last = offsets[i] + (MPI_Aint)(counts[i] - 1) * t->extent +
                        t->true_lb + t->true_extent;
        if (!any || first < lo)
            lo = first;
        if (!any || last > hi)
            hi = last;
        any = 1;
    }
    size_t span = any ? (size_t)(hi - lo) : 0;
    *copy = comm_payload_alloc(span, 0);
    if (!*copy)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory copying %zu "
                               "bytes for MPI_IN_PLACE", span);
    if (span)
        comm_copy(*copy, (const char *)recvbuf + lo, span);
    for (int i = 0; i < P; i++)
        offsets[i] -= lo;
    return MPI_SUCCESS;
}

int comm_report_error(MPI_Comm user, const char *name, int code)
{
    MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
    if (user != MPI_COMM_NULL)
        MPI_Comm_get_errhandler(user, &handler);
    if (handler != MPI_ERRORS_RETURN)
        ravel_log(RAVEL_LOG_ERROR, "%s: %s", name, ravel_error_message());
    if (handler != MPI_ERRHANDLER_NULL)
        MPI_Errhandler_free(&handler);
    if (user != MPI_COMM_NULL)
        MPI_Comm_call_errhandler(user, code);
    return code;
}

int comm_run_kernel(comm_kernel kernel, const char *name, const void *sendbuf,
                    const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int rdispls[],
                    MPI_Datatype recvtype, MPI_Comm comm)
{
    return comm_run_kernel_param(kernel, name, 0, sendbuf, sendcounts,
                                 sdispls, sendtype, recvbuf, recvcounts,
                                 rdispls, recvtype, comm);
}

enum { SMALL_P = 64 };

int comm_run_kernel_param(comm_kernel kernel, const char *name, int param,
                          const void *sendbuf, const int sendcounts[],
                          const int sdispls[], MPI_Datatype sendtype,
                          void *recvbuf, const int recvcounts[],
                          const int rdispls[], MPI_Datatype recvtype,
                          MPI_Comm comm)
{
    ravel_error_clear();
    comm_context *ctx;
    int err = comm_context_get(comm, &ctx);
    if (err != MPI_SUCCESS)
        return comm_report_error(comm, name, err);
    return comm_run_kernel_in(ctx, kernel, name, param, sendbuf, sendcounts,
                              sdispls, sendtype, recvbuf, recvcounts, rdispls,
                              recvtype, comm);
}

int comm_run_kernel_in(comm_context *ctx, comm_kernel kernel,
                       const char *name, int param, const void *sendbuf,
                       const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int rdispls[],
                       MPI_Datatype recvtype, MPI_Comm comm)
{
    int err;
    const int P = ctx->size;
    const int in_place = sendbuf == MPI_IN_PLACE;
    if (in_place) {
        sendcounts = recvcounts;
        sdispls = rdispls;
        sendtype = recvtype;
    }
    char *send_staging = NULL, *recv_staging = NULL, *in_place_copy = NULL;
    /* Up to SMALL_P ranks the layout lives on the stack: at 2 ranks a
     * call of small blocks takes some 0.25 us, of which two mallocs and
     * frees were a tenth. */
    size_t sizes_here[2 * SMALL_P];
    MPI_Aint offsets_here[2 * SMALL_P];
    const int small = P <= SMALL_P;
    size_t *sizes =
        small ? sizes_here : malloc(2 * (size_t)P * sizeof *sizes);
    MPI_Aint *offsets =
        small ? offsets_here : malloc(2 * (size_t)P * sizeof *offsets);
    if (!sizes || !offsets) {
        err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory for %d ranks' "
                              "block sizes", P);
        goto fn_exit;
    }
    type_layout st, rt;
    err = describe_type(sendtype, "send", &st);
    if (err == MPI_SUCCESS)
        err = describe_type(recvtype, "receive", &rt);
    if (err == MPI_SUCCESS)
        err = layout_blocks(P, sendcounts, sdispls, &st, "send", sizes, offsets);
    if (err == MPI_SUCCESS)
        err = layout_blocks(P, recvcounts, rdispls, &rt, "recv", sizes + P,
                            offsets + P);
    if (err != MPI_SUCCESS)
        goto fn_exit;

    const char *send_base = in_place ? NULL : sendbuf;
    if (in_place) {
        err = copy_in_place(recvbuf, P, offsets, &st, sendcounts,
                            &in_place_copy);
        if (err != MPI_SUCCESS)
            goto fn_exit;
        send_base = in_place_copy;
    }
    if (!st.dense) {
        err = pack_send(send_base, sendcounts, sendtype, &st, P, sizes, offsets,
                        ctx->comm, &send_staging);
        if (err != MPI_SUCCESS)
            goto fn_exit;
        send_base = send_staging;
    }
    char *recv_base = recvbuf;
    if (!rt.dense) {
        err = stage_recv(recvcounts, recvtype, &rt, P, sizes + P, offsets + P,
                         ctx->comm, &recv_staging);
        if (err != MPI_SUCCESS)
            goto fn_exit;
        recv_base = recv_staging;
    }

    comm_exchange x = {send_base, recv_base, sizes, offsets,
                       sizes + P, offsets + P, ctx, param, NULL, NULL,
                       ctx->carry_wanted ? &ctx->carry : NULL, NULL};
    ctx->carry.done = 0;
    if (x.carry && P == 1) /* one rank knows the whole call */
        comm_carry_begin(x.carry, &x, 2);
    err = kernel(&x);
    comm_charge_flush(); /* the last unpacking */
    if (err == MPI_SUCCESS && !rt.dense)
        err = unpack_recv(recv_staging, recvbuf, recvcounts, rdispls, recvtype,
                          &rt, P, sizes + P, ctx->comm);
fn_exit:
    if (!small) {
        free(sizes);
        free(offsets);
    }
    comm_payload_free(send_staging);
    comm_payload_free(recv_staging);
    comm_payload_free(in_place_copy);
    if (err != MPI_SUCCESS)
        return comm_report_error(comm, name, err);
    return MPI_SUCCESS;
}
