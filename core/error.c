/* The last error's message, one buffer per thread. */
#include "ravel/error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_message[1024];

int ravel_error_set(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
    return code;
}

const char *ravel_error_message(void) { return last_message; }

void ravel_error_clear(void) { last_message[0] = '\0'; }
