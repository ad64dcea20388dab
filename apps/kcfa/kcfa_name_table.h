/* kcfa_name_table.h (internal): interning names while parsing.
 *
 * Each distinct name gets the next index (0, 1, 2, ... in order of first
 * occurrence); the bytes of all names live in one growing buffer, found
 * through an open-addressing hash table of indices. */
#ifndef RAVEL_KCFA_NAME_TABLE_H
#define RAVEL_KCFA_NAME_TABLE_H

#include <stddef.h>

typedef struct {
    char *bytes; /* every name, each followed by a NUL */
    size_t bytes_len, bytes_cap;
    size_t *offset; /* offset[i]: where name i starts in bytes */
    size_t count, offset_cap;
    size_t *slots; /* name index + 1, or 0 for an empty slot */
    size_t nslots; /* a power of two, at least twice count */
} kcfa_name_table;

/* Sets *index to the index of name[0..len) (which holds no NUL byte),
 * adding it when new.  Returns 0, or -1 when memory ran out. */
int kcfa_names_intern(kcfa_name_table *t, const char *name, size_t len,
                      size_t *index);

/* Frees everything the table owns (after the bytes and offsets were handed
 * over, set those fields to NULL first). */
void kcfa_names_free(kcfa_name_table *t);

#endif
