/* The engine's memory budget (engine option max_memory, --max-memory in the
 * apps): the bytes this rank's tuple storage holds (flat and packed
 * relations, outboxes, the exchange's send and receive arrays), checked
 * before each of them grows.
 *
 * Why a ledger and not the heap's own figures: the check must come before
 * the allocation (after it the kernel may already have killed the job), it
 * must say which relation needed how much, and it must give the same answer
 * on every run of the same program, which counting ravel's own buffers does
 * and sampling the allocator (MPI's pools included) does not.  What it
 * leaves out, the comm backends' working buffers and MPI's, is why the
 * default limit is a share of the available memory rather than all of it.
 *
 * One ledger per process: a rank is a process (SimGrid SMPI privatises
 * these globals per simulated rank, as it does the comm layer's counters).
 * An engine sets the limit when it is created; buffers freed after it is
 * gone still give their bytes back. */
#include "relalg_internal.h"

#include "ravel/error.h"
#include "ravel/memory.h"

static uint64_t limit; /* 0: none */
static uint64_t held;
static uint64_t peak;
static uint64_t window_peak; /* the most held since budget_window_start */

void budget_set_limit(uint64_t bytes) { limit = bytes; }

void budget_window_start(void) { window_peak = held; }

int budget_window_near_limit(void)
{
    return limit > 0 && window_peak >= limit / 4 * 3;
}

/* A quarter of what is available is left to what the ledger does not see:
 * the backends' working buffers (about one more copy of the exchange at
 * most), MPI's own, the program's code and the kernel's page cache. */
int budget_default(MPI_Comm comm, uint64_t *bytes)
{
    int sharing;
#ifdef SMPI_SHARED_MALLOC
    /* Simulated ranks all live in this one process. */
    MPI_Comm_size(comm, &sharing);
#else
    MPI_Comm node;
    int err = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0,
                                  MPI_INFO_NULL, &node);
    if (err != MPI_SUCCESS)
        return err;
    MPI_Comm_size(node, &sharing);
    MPI_Comm_free(&node);
#endif
    uint64_t available = ravel_available_memory_bytes();
    *bytes = available / 4 * 3 / (uint64_t)(sharing > 0 ? sharing : 1);
    return MPI_SUCCESS;
}

uint64_t budget_limit(void) { return limit; }

uint64_t budget_held(void) { return held; }

uint64_t budget_peak(void) { return peak; }

void ravel_tuple_memory(uint64_t *held_now, uint64_t *most)
{
    *held_now = held;
    *most = peak;
}

int budget_check(size_t old_bytes, size_t new_bytes)
{
    if (new_bytes <= old_bytes || limit == 0)
        return MPI_SUCCESS;
    uint64_t more = new_bytes - old_bytes;
    if (held + more <= limit)
        return MPI_SUCCESS;
    char want[32], have[32], cap[32];
    ravel_format_bytes(want, sizeof want, more);
    ravel_format_bytes(have, sizeof have, held);
    ravel_format_bytes(cap, sizeof cap, limit);
    return ravel_error_set(MPI_ERR_NO_MEM, "needs %s more (a buffer growing "
                           "to %llu bytes) on top of the %s this rank's "
                           "tuples hold: over the memory limit of %s "
                           "(raise --max-memory, or run on more ranks)",
                           want, (unsigned long long)new_bytes, have, cap);
}

void budget_note(size_t old_bytes, size_t new_bytes)
{
    if (new_bytes >= old_bytes) {
        held += new_bytes - old_bytes;
        peak = held > peak ? held : peak;
        window_peak = held > window_peak ? held : window_peak;
    } else {
        uint64_t less = old_bytes - new_bytes;
        held = less > held ? 0 : held - less;
    }
}
