/* Opening an input file that must be a regular one.  Opening a FIFO for
 * reading blocks until a writer comes, for ever if none does, and a
 * directory or device is never what a user meant; so the file is opened
 * without blocking and its type checked on the descriptor (nothing can swap
 * the path between a check and the open), then handed to stdio. */
#include "ravel/file_open.h"

#include "ravel/error.h"

#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *ravel_file_kind(unsigned mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a regular file";
}

FILE *ravel_fopen_regular(const char *path, const char *what)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        ravel_error_set(errno == ENOENT ? MPI_ERR_NO_SUCH_FILE : MPI_ERR_FILE,
                        "%s%s: cannot open: %s", what, path, strerror(errno));
        return NULL;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        ravel_error_set(MPI_ERR_FILE, "%s%s: cannot stat: %s", what, path,
                        strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(sb.st_mode)) {
        ravel_error_set(MPI_ERR_FILE, "%s%s: expected a regular file, found "
                        "%s", what, path, ravel_file_kind(sb.st_mode));
        close(fd);
        return NULL;
    }
    /* Reads block again as usual: the flag only guarded the open. */
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        ravel_error_set(MPI_ERR_FILE, "%s%s: cannot open: %s", what, path,
                        strerror(errno));
        close(fd);
    }
    return f;
}
