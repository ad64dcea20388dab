/* ravel/log.h: messages on stderr, prefixed with the program and MPI rank.
 *
 * Every process may write; `ravel_log_root` writes on rank 0 only.  The level
 * is RAVEL_LOG_INFO unless the environment variable RAVEL_LOG says otherwise
 * (error, warn, info, debug) or ravel_log_set_level is called. */
#ifndef RAVEL_LOG_H
#define RAVEL_LOG_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    RAVEL_LOG_ERROR = 0,
    RAVEL_LOG_WARN = 1,
    RAVEL_LOG_INFO = 2,
    RAVEL_LOG_DEBUG = 3
} ravel_log_level;

void ravel_log_set_level(ravel_log_level level);
ravel_log_level ravel_log_get_level(void);

/* The name printed before every message (default "ravel"). */
void ravel_log_set_program(const char *name);

void ravel_log(ravel_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* As ravel_log, but only rank 0 of MPI_COMM_WORLD writes (every rank when
 * MPI is not initialised). */
void ravel_log_root(ravel_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The one-line failure report of a command-line tool: prints
 * "<program>: <message>" on stderr from rank 0 of MPI_COMM_WORLD only (from
 * every process when MPI is not running), whatever the level, and returns
 * `status` so that a caller can write `return ravel_report(2, ...)`. */
int ravel_report(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif
#endif
