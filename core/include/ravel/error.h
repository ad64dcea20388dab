/* ravel/error.h: the last error's message, for functions that return a code.
 *
 * ravel's functions return MPI error codes (MPI_SUCCESS on success) so they
 * compose with MPI's own.  The code says what class of failure it was; the
 * message set here says where and why (the file, line, value or size at
 * fault).  The message is per thread and is overwritten by the next error. */
#ifndef RAVEL_ERROR_H
#define RAVEL_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Records a printf-style message as the last error and returns `code`, so a
 * failing path can read `return ravel_error_set(MPI_ERR_TYPE, "...", ...);`. */
int ravel_error_set(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The last error's message ("" when none was recorded).  The pointer stays
 * valid until the next ravel_error_set on this thread. */
const char *ravel_error_message(void);

/* Forgets the last error's message. */
void ravel_error_clear(void);

#ifdef __cplusplus
}
#endif
#endif
