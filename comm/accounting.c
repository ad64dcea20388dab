/* What the backends did, per process: messages and bytes sent, sends and
 * receives posted, bytes copied.  The tests compare these counts with the
 * closed forms of the cost model (ravel/cost_model.h), and under SimGrid
 * SMPI the copies are charged to the simulated clock here, in one place.
 *
 * Why charge copies: SMPI runs the real code with local computation free
 * (smpi/simulate-computation:no keeps runs deterministic), which flatters
 * every algorithm that copies: two-phase Bruck forwards each byte about
 * (log2 P)/2 times through memory.  Charging bytes x gamma with smpi_execute
 * is deterministic and costs the host nothing.  Charges accumulate and are
 * paid in one smpi_execute before the next message is posted or waited for
 * (comm_charge_flush): one copy of a small block costs less than SMPI's
 * smallest execution (smpi/cpu-threshold, 1 us by default), and one event
 * per message keeps the host's cost down.  The per-message CPU cost is
 * NOT charged here: SMPI charges it itself (smpi/os, smpi/or, smpi/ois) to
 * every message, the MPI library's own collectives included, which a charge
 * from ravel could not reach. */
#include "comm_internal.h"

#include "ravel/log.h"
#include "ravel/options.h"

#include <stdlib.h>
#include <string.h>

static ravel_comm_stats stats;

void ravel_comm_stats_reset(void) { memset(&stats, 0, sizeof stats); }

ravel_comm_stats ravel_comm_stats_get(void) { return stats; }

void comm_stats_add(uint64_t messages, uint64_t bytes)
{
    stats.messages += messages;
    stats.bytes += bytes;
}

void comm_stats_add_metadata(uint64_t messages, uint64_t bytes)
{
    comm_stats_add(messages, bytes);
    stats.metadata_messages += messages;
    stats.metadata_bytes += bytes;
}

void comm_stats_send(size_t bytes, int metadata)
{
    stats.messages++;
    stats.bytes += bytes;
    stats.posted++;
    if (metadata) {
        stats.metadata_messages++;
        stats.metadata_bytes += bytes;
    }
}

void comm_stats_receive(void) { stats.posted++; }

void comm_stats_header(size_t bytes) { stats.metadata_bytes += bytes; }

void comm_stats_as_metadata(const ravel_comm_stats *before)
{
    /* set, not added: the backend may have counted some of them already */
    stats.metadata_messages =
        before->metadata_messages + (stats.messages - before->messages);
    stats.metadata_bytes =
        before->metadata_bytes + (stats.bytes - before->bytes);
}

#ifdef SMPI_SHARED_MALLOC
/* Seconds per byte copied on the simulated machine: a property of the
 * platform studied, like its link bandwidths, so it comes with the platform
 * (bench/simgrid/smpi_run.sh sets it), not from this machine. */
static double simulated_gamma(void)
{
    static double gamma = -1.0;
    if (gamma < 0.0) {
        const char *env = getenv("RAVEL_SIM_GAMMA");
        gamma = 0.0;
        if (env && *env && (ravel_parse_double(env, &gamma) != 0 ||
                            gamma < 0.0)) {
            ravel_log(RAVEL_LOG_ERROR, "RAVEL_SIM_GAMMA='%s' is not a "
                      "number of seconds per byte >= 0", env);
            abort(); /* a timing run with a wrong charge is worthless */
        }
    }
    return gamma;
}
#endif

#ifdef SMPI_SHARED_MALLOC
static double pending_seconds; /* charged, not yet paid */
#endif

void ravel_comm_charge_copy(size_t bytes)
{
    stats.copied += bytes;
#ifdef SMPI_SHARED_MALLOC
    pending_seconds += (double)bytes * simulated_gamma();
#endif
}

void comm_charge_flush(void)
{
#ifdef SMPI_SHARED_MALLOC
    if (pending_seconds > 0.0) {
        smpi_execute(pending_seconds);
        pending_seconds = 0.0;
    }
#endif
}
