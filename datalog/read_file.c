/* Whole files into memory: the program text and each fact file are read
 * at once (they are parsed whole on every rank; ravel/datalog.h). */
#include "dl_internal.h"

#include <ravel/error.h>
#include <ravel/file_open.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int dl_read_file(const char *path, const char *what, char **out,
                 size_t *len)
{
    *out = NULL;
    *len = 0;
    FILE *f = ravel_fopen_regular(path, what);
    if (!f)
        return MPI_ERR_FILE;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break; /* the end, or an error (ferror below) */
        char *grown = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
        if (!grown)
            free(buf);
        buf = grown;
        cap *= 2;
    }
    int failed = ferror(f);
    fclose(f);
    if (!buf)
        return ravel_error_set(MPI_ERR_NO_MEM, "%s%s: out of memory reading "
                               "it", what, path);
    if (failed) {
        free(buf);
        return ravel_error_set(MPI_ERR_FILE, "%s%s: read error", what, path);
    }
    *out = buf;
    *len = n;
    return 0;
}
