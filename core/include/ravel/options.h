/* ravel/options.h: GNU-style long options shared by every ravel program.
 *
 * A program describes its options in a table; ravel_options_parse fills the
 * targets, checks every value (no silent truncation: "--iters=1e3" or
 * "--iters=99999999999999999999" is an error, not 1 or a wrapped number) and
 * moves the positional arguments to the front of argv.  Both "--name=value"
 * and "--name value" are accepted; "--" ends the options. */
#ifndef RAVEL_OPTIONS_H
#define RAVEL_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    RAVEL_OPT_FLAG,   /* no value; target is int, set to 1 */
    RAVEL_OPT_STRING, /* target is const char *, pointing into argv */
    RAVEL_OPT_U64,    /* target is uint64_t, decimal */
    RAVEL_OPT_INT,    /* target is int, decimal, may be negative */
    RAVEL_OPT_DOUBLE, /* target is double, finite */
    RAVEL_OPT_BYTES   /* target is uint64_t: a size, see ravel_parse_bytes */
} ravel_option_kind;

typedef struct {
    const char *name;     /* without the leading "--" */
    ravel_option_kind kind;
    void *target;
    const char *value_name; /* shown in --help, e.g. "FILE"; NULL for flags */
    const char *help;       /* one line; the default belongs here */
} ravel_option;

/* Parses argv[1..argc).  On success returns 0 and sets *npositional to the
 * number of positional arguments, now in argv[1..1+*npositional).  On error
 * returns -1 and writes a message naming the option and value into err. */
int ravel_options_parse(int argc, char **argv, const ravel_option *options,
                        size_t noptions, int *npositional, char *err,
                        size_t errlen);

/* Prints "usage: <usage>", the description, then one line per option. */
void ravel_options_print_help(FILE *out, const char *usage,
                              const char *description,
                              const ravel_option *options, size_t noptions);

/* Strict number parsing used by the option parser, exposed for programs that
 * read numbers from their own inputs.  Each returns 0 on success and -1 when
 * text is not entirely a number in range. */
int ravel_parse_u64(const char *text, uint64_t *out);
int ravel_parse_int(const char *text, int *out);
int ravel_parse_double(const char *text, double *out);
/* A size in bytes: a whole number with an optional binary unit, K, M, G or
 * T (also KiB, MiB, GiB, TiB, KB, ...; all powers of 1024) or B.  "4G" and
 * "4GiB" are 4 * 2^30; "1.5G" is refused (say 1536M).  Fails on overflow. */
int ravel_parse_bytes(const char *text, uint64_t *out);

#ifdef __cplusplus
}
#endif
#endif
