/* Reading a whole JSON file into a tree, with the file's name in every
 * message.  The size is bounded before anything is allocated: the files ravel
 * reads this way are a few hundred bytes, and a multi-gigabyte file given by
 * mistake should be refused, not slurped. */
#include "ravel/json.h"

#include "ravel/error.h"

#include <mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads exactly n bytes of fd into buf (retrying short reads). */
static int read_all(int fd, char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r < 0 ? -1 : (errno = EIO, -1); /* shrank under us */
        got += (size_t)r;
    }
    return 0;
}

int ravel_json_read_file(const char *path, size_t max_bytes,
                         ravel_json_value **out)
{
    int err = MPI_SUCCESS, fd = -1;
    char *text = NULL;
    struct stat st;
    *out = NULL;
    /* O_NONBLOCK: opening a FIFO (say /dev/stdin, or a named pipe given by
     * mistake) would otherwise wait for a writer before the check below
     * could refuse it; it changes nothing for a regular file. */
    fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        err = ravel_error_set(MPI_ERR_FILE, "%s: cannot open: %s", path,
                              strerror(errno));
        goto fn_exit;
    }
    if (fstat(fd, &st) != 0) {
        err = ravel_error_set(MPI_ERR_FILE, "%s: cannot stat: %s", path,
                              strerror(errno));
        goto fn_exit;
    }
    if (!S_ISREG(st.st_mode)) {
        err = ravel_error_set(MPI_ERR_FILE, "%s: not a regular file%s", path,
                              S_ISDIR(st.st_mode) ? " (a directory)" : "");
        goto fn_exit;
    }
    if ((uintmax_t)st.st_size > (uintmax_t)max_bytes) {
        err = ravel_error_set(MPI_ERR_FILE, "%s: %jd bytes, more than the "
                              "%zu this reader accepts", path,
                              (intmax_t)st.st_size, max_bytes);
        goto fn_exit;
    }
    size_t n = (size_t)st.st_size;
    if (n == 0) {
        err = ravel_error_set(MPI_ERR_ARG, "%s: the file is empty", path);
        goto fn_exit;
    }
    text = malloc(n);
    if (!text) {
        err = ravel_error_set(MPI_ERR_NO_MEM, "%s: out of memory for %zu "
                              "bytes", path, n);
        goto fn_exit;
    }
    if (read_all(fd, text, n) != 0) {
        err = ravel_error_set(MPI_ERR_FILE, "%s: cannot read: %s", path,
                              strerror(errno));
        goto fn_exit;
    }
    char why[256];
    if (ravel_json_parse(text, n, out, why, sizeof why) != 0) {
        int oom = strcmp(why, "out of memory") == 0;
        err = ravel_error_set(oom ? MPI_ERR_NO_MEM : MPI_ERR_ARG, "%s:%s%s",
                              path, oom ? " " : "", why);
    }
fn_exit:
    free(text);
    if (fd >= 0)
        close(fd);
    return err;
}
