/* payload_memory.c: where the backends' staging buffers come from.
 *
 * Under SimGrid SMPI every simulated rank lives in one host process, so at
 * thousands of ranks the backends' P*N-sized staging buffers no longer fit
 * in memory.  A pure timing run does not need their contents, and SMPI can
 * back them all with the same pages (SMPI_SHARED_MALLOC).  Only payload may
 * be shared that way: counts, offsets and schedules must stay private, or
 * one rank's sizes overwrite another's.  SMPI's alternative, sharing every
 * malloc above a size threshold, cannot tell the two apart (at P=4096 an
 * array of 2P sizes is 64 KiB), so ravel asks for sharing by name, here. */
#include "comm_internal.h"

#include <stdlib.h>

#ifdef SMPI_SHARED_MALLOC
static int share_payloads;
#endif

int ravel_comm_share_payloads(int on)
{
#ifdef SMPI_SHARED_MALLOC
    share_payloads = on != 0;
    return share_payloads;
#else
    (void)on;
    return 0;
#endif
}

int comm_payload_shared(void)
{
#ifdef SMPI_SHARED_MALLOC
    return share_payloads;
#else
    return 0;
#endif
}

void *comm_payload_alloc(size_t bytes, int zeroed)
{
    if (bytes == 0)
        bytes = 1;
#ifdef SMPI_SHARED_MALLOC
    /* Shared pages hold every rank's writes at once: zeroing them defines
     * nothing, and the contents of a timing run are garbage anyway. */
    if (share_payloads)
        return SMPI_SHARED_MALLOC(bytes);
#endif
    return zeroed ? calloc(bytes, 1) : malloc(bytes);
}

void *comm_payload_alloc_private_prefix(size_t bytes, size_t prefix)
{
#ifdef SMPI_SHARED_MALLOC
    if (share_payloads) {
        if (bytes <= prefix)
            bytes = prefix + 1; /* SMPI wants a non-empty shared range */
        size_t shared[2] = {prefix, bytes};
        return SMPI_PARTIAL_SHARED_MALLOC(bytes, shared, 1);
    }
#else
    (void)prefix;
#endif
    return comm_payload_alloc(bytes, 0); /* private anyway */
}

void comm_payload_free(void *buf)
{
    if (!buf)
        return;
#ifdef SMPI_SHARED_MALLOC
    /* SMPI's shared free must not see a private block (SimGrid 3.32 then
     * unmaps through a missing entry): the flag only changes between
     * exchanges, so it still says how buf was allocated. */
    if (share_payloads) {
        SMPI_SHARED_FREE(buf);
        return;
    }
#endif
    free(buf);
}
