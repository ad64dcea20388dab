/* Named tunables of the backends, with their defaults and environment
 * overrides (read once, on first use). */
#include "ravel/comm.h"

#include "ravel/log.h"
#include "ravel/options.h"

#include <stdlib.h>

/* Requests in flight in spread-out.  MPICH's scattered alltoallv uses 32
 * (MPIR_CVAR_ALLTOALL_THROTTLE); more floods the network and the matching
 * queues at scale, fewer leaves links idle. */
#define SPREAD_OUT_THROTTLE_DEFAULT 32

static int spread_out_throttle = 0; /* 0: not set yet */

void ravel_comm_set_spread_out_throttle(int requests)
{
    spread_out_throttle = requests < 2 ? 2 : requests;
}

int ravel_comm_spread_out_throttle(void)
{
    if (spread_out_throttle == 0) {
        spread_out_throttle = SPREAD_OUT_THROTTLE_DEFAULT;
        const char *env = getenv("RAVEL_SPREAD_OUT_THROTTLE");
        int value;
        if (env && ravel_parse_int(env, &value) == 0 && value >= 2)
            spread_out_throttle = value;
        else if (env)
            ravel_log(RAVEL_LOG_WARN,
                      "RAVEL_SPREAD_OUT_THROTTLE='%s' is not a whole number "
                      ">= 2; using %d",
                      env, SPREAD_OUT_THROTTLE_DEFAULT);
    }
    return spread_out_throttle;
}

/* The most bytes one half of a rank's shm segment holds (header and
 * blocks): an exchange that needs more goes through in rounds of this
 * size instead of growing the shared window without bound.  1 MiB: at 2
 * ranks here halves of 256 KiB to 1 MiB moved 4 MiB blocks in 141 to 152
 * us, of 2 and 4 MiB in 203 and 217 (a round's copies stay in cache;
 * bench/shm/chunk_sweep.sh), and a window grown to every exchange's size
 * kept 2 x 128 MiB a rank after wiki-Vote's largest iteration and paid
 * 0.14 s reallocating on the way (bench/results/shm/README.md). */
#define SHM_CHUNK_DEFAULT ((uint64_t)1 << 20)
#define SHM_CHUNK_MIN 1024

static uint64_t shm_chunk = 0; /* 0: not set yet */

void ravel_comm_set_shm_chunk(uint64_t bytes)
{
    /* 0: unset, read from the environment again at the next use */
    shm_chunk = bytes == 0 || bytes >= SHM_CHUNK_MIN ? bytes : SHM_CHUNK_MIN;
}

/* The size environment variable `name` gives, if it is one of at least
 * SHM_CHUNK_MIN bytes, else (with a warning when set) the default, whose
 * text the warning gives. */
static uint64_t size_from_env(const char *name, uint64_t fallback,
                              const char *fallback_text)
{
    const char *env = getenv(name);
    uint64_t value;
    if (env && ravel_parse_bytes(env, &value) == 0 && value >= SHM_CHUNK_MIN)
        return value;
    if (env)
        ravel_log(RAVEL_LOG_WARN,
                  "%s='%s' is not a size of at least %d bytes (say %s); "
                  "using %s",
                  name, env, SHM_CHUNK_MIN, fallback_text, fallback_text);
    return fallback;
}

uint64_t ravel_comm_shm_chunk(void)
{
    if (shm_chunk == 0)
        shm_chunk = size_from_env("RAVEL_SHM_CHUNK", SHM_CHUNK_DEFAULT, "1M");
    return shm_chunk;
}

/* The most bytes a half of shm's segment grows to for outboxes written in
 * place.  16 MiB: 4 MiB blocks at 2 ranks (3.7 MB a rank at most) fit a
 * half with room for their growth, and a node of 64 ranks keeps at most 2
 * GiB of shared halves, for outboxes that would take half of that in the
 * handles' own memory anyway. */
#define SHM_OUTBOXES_DEFAULT ((uint64_t)16 << 20)

static uint64_t shm_outboxes = 0; /* 0: not set yet */

void ravel_comm_set_shm_outboxes(uint64_t bytes)
{
    shm_outboxes =
        bytes == 0 || bytes >= SHM_CHUNK_MIN ? bytes : SHM_CHUNK_MIN;
}

uint64_t ravel_comm_shm_outboxes(void)
{
    if (shm_outboxes == 0)
        shm_outboxes = size_from_env("RAVEL_SHM_OUTBOXES",
                                     SHM_OUTBOXES_DEFAULT, "16M");
    uint64_t chunk = ravel_comm_shm_chunk();
    return shm_outboxes > chunk ? shm_outboxes : chunk;
}
