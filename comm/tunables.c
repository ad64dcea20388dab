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
