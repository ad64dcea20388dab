/* Fault injection for the checkpoint tests: a rank that kills itself with
 * SIGKILL at a chosen point, as a node failure or the scheduler's kill -9
 * would, so that a test can stop a run inside an exchange or halfway
 * through writing a snapshot, every time, rather than by a timed race. */
#include "../relalg_internal.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void test_kill_point(const char *where)
{
    static unsigned long passes[2];
    const char *spec = getenv("RAVEL_TEST_KILL");
    if (!spec)
        return;
    size_t len = strlen(where);
    if (strncmp(spec, where, len) != 0 || spec[len] != ':')
        return;
    int which = strcmp(where, "exchange") == 0 ? 0 : 1;
    unsigned long n = strtoul(spec + len + 1, NULL, 10);
    if (++passes[which] == n) {
        /* Said first, so that a test knows the run died here: mpiexec's
         * summary names one rank's end, and under load that was once the
         * SIGHUP of a rank it cleaned up (CI, checkpoint.tc.np2), not this
         * rank's SIGKILL. */
        fprintf(stderr, "ravel: RAVEL_TEST_KILL=%s: SIGKILL\n", spec);
        raise(SIGKILL);
    }
}
