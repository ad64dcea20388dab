/* ravel/file_open.h: opening input files that must be regular files. */
#ifndef RAVEL_FILE_OPEN_H
#define RAVEL_FILE_OPEN_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opens path for reading ("rb") when it is a regular file.  A FIFO, a
 * directory or a device is refused at once (a FIFO would otherwise block
 * the open until a writer came).  NULL on failure, with the message
 * "<what><path>: cannot open: <reason>" or "<what><path>: expected a
 * regular file, found a FIFO" in ravel_error_message(); `what` prefixes it
 * (e.g. "--dist=file:"), "" for none. */
FILE *ravel_fopen_regular(const char *path, const char *what);

/* "a directory", "a FIFO", ... for a st_mode that is not a regular file. */
const char *ravel_file_kind(unsigned mode);

#ifdef __cplusplus
}
#endif
#endif
