/* Rank-prefixed messages on stderr, filtered by level. */
#include "ravel/log.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int level_from_env = -1; /* -1: RAVEL_LOG not read yet */
static ravel_log_level current_level = RAVEL_LOG_INFO;
static const char *program = "ravel";

static const char *const level_names[] = {"error", "warn", "info", "debug"};

static void read_env_once(void)
{
    if (level_from_env != -1)
        return;
    level_from_env = 0;
    const char *env = getenv("RAVEL_LOG");
    if (!env)
        return;
    for (int i = 0; i <= RAVEL_LOG_DEBUG; i++)
        if (strcmp(env, level_names[i]) == 0) {
            current_level = (ravel_log_level)i;
            level_from_env = 1;
        }
}

void ravel_log_set_level(ravel_log_level level)
{
    read_env_once();
    current_level = level;
}

ravel_log_level ravel_log_get_level(void)
{
    read_env_once();
    return current_level;
}

void ravel_log_set_program(const char *name) { program = name; }

static int world_rank(void)
{
    int initialized = 0, finalized = 0, rank = -1;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

static void vlog(ravel_log_level level, const char *fmt, va_list ap)
{
    char line[2048];
    int rank = world_rank();
    int n;
    if (rank >= 0)
        n = snprintf(line, sizeof line, "%s[%d]: %s%s", program, rank,
                     level <= RAVEL_LOG_WARN ? level_names[level] : "",
                     level <= RAVEL_LOG_WARN ? ": " : "");
    else
        n = snprintf(line, sizeof line, "%s: %s%s", program,
                     level <= RAVEL_LOG_WARN ? level_names[level] : "",
                     level <= RAVEL_LOG_WARN ? ": " : "");
    if (n < 0 || (size_t)n >= sizeof line)
        n = 0;
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    /* One write per message keeps lines from different ranks whole. */
    fprintf(stderr, "%s\n", line);
}

void ravel_log(ravel_log_level level, const char *fmt, ...)
{
    if (level > ravel_log_get_level())
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(level, fmt, ap);
    va_end(ap);
}

void ravel_log_root(ravel_log_level level, const char *fmt, ...)
{
    if (level > ravel_log_get_level() || world_rank() > 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(level, fmt, ap);
    va_end(ap);
}

int ravel_report(int status, const char *fmt, ...)
{
    if (world_rank() > 0)
        return status;
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: %s\n", program, line);
    return status;
}
