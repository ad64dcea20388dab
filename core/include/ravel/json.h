/* ravel/json.h: the little JSON ravel reads and writes.
 *
 * Writing: ravel_json_string, for the tools' --json summaries.
 *
 * Reading: a strict recursive-descent parser (RFC 8259) into a tree, for
 * small configuration files such as the cost model.  Strict means: no
 * comments, no trailing commas, no single quotes, no NaN or Infinity, no
 * leading zeros or '+', no raw control characters in strings, no duplicate
 * member names in an object, nothing but white space after the value.
 * Nesting is bounded (RAVEL_JSON_MAX_DEPTH) so that hostile input cannot
 * exhaust the stack.  Every syntax error names the line and column (both
 * from 1, the column in bytes) of the first byte at fault and what was
 * expected there. */
#ifndef RAVEL_JSON_H
#define RAVEL_JSON_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes s as a JSON string literal, quotes included: '"' and '\' escaped,
 * control characters as \u00XX, other bytes as they are (UTF-8 passes). */
void ravel_json_string(FILE *out, const char *s);

/* ---- reading ---------------------------------------------------------- */

/* Arrays and objects nested deeper than this are refused. */
#define RAVEL_JSON_MAX_DEPTH 64

typedef enum {
    RAVEL_JSON_NULL,
    RAVEL_JSON_FALSE,
    RAVEL_JSON_TRUE,
    RAVEL_JSON_NUMBER,
    RAVEL_JSON_STRING,
    RAVEL_JSON_ARRAY,
    RAVEL_JSON_OBJECT
} ravel_json_kind;

typedef struct ravel_json_member ravel_json_member;
typedef struct ravel_json_value ravel_json_value;

struct ravel_json_value {
    ravel_json_kind kind;
    int line, column;            /* where the value starts in the text */
    double number;               /* NUMBER: as strtod reads it (finite) */
    char *string;                /* STRING: decoded, NUL-terminated */
    size_t length;               /* STRING: bytes (may hold \u0000);
                                    ARRAY, OBJECT: items or members */
    ravel_json_value *items;     /* ARRAY */
    ravel_json_member *members;  /* OBJECT, in the order written */
};

struct ravel_json_member {
    char *name;                  /* decoded, NUL-terminated */
    size_t name_length;
    int line, column;            /* where the name starts */
    ravel_json_value value;
};

/* Parses text[0..length) (NUL bytes are not special) into *out, which the
 * caller frees with ravel_json_free.  Returns 0, or -1 with err holding
 * "LINE:COL: expected WHAT, found WHAT" (or "out of memory") and *out NULL. */
int ravel_json_parse(const char *text, size_t length, ravel_json_value **out,
                     char *err, size_t errlen);

/* Reads and parses the file at path, refusing one over max_bytes.  Returns
 * MPI_SUCCESS; MPI_ERR_FILE when the file cannot be read (missing, a
 * directory, no permission, too large); MPI_ERR_ARG when it is empty or not
 * JSON ("PATH:LINE:COL: expected ..."); MPI_ERR_NO_MEM.  The message is in
 * ravel_error_message(). */
int ravel_json_read_file(const char *path, size_t max_bytes,
                         ravel_json_value **out);

/* Frees a tree from ravel_json_parse (NULL is fine). */
void ravel_json_free(ravel_json_value *root);

/* The value of the member `name` of an object; NULL when v is not an
 * object or has no such member. */
const ravel_json_value *ravel_json_get(const ravel_json_value *v,
                                       const char *name);

/* "object", "array", "string", "number", "true", "false" or "null". */
const char *ravel_json_kind_name(ravel_json_kind kind);

#ifdef __cplusplus
}
#endif
#endif
