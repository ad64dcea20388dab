/* edge_buffer.h: a growable array of (src, dst) pairs, the reader's output.
 * Internal to apps/tc. */
#ifndef RAVEL_TC_EDGE_BUFFER_H
#define RAVEL_TC_EDGE_BUFFER_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t *ids; /* 2 * n: src, dst, src, dst, ... */
    size_t n;      /* pairs held */
    size_t cap;    /* pairs allocated */
} ravel_tc_edge_buffer;

/* Appends (src, dst); returns 0, or -1 when memory runs out. */
int ravel_tc_edge_buffer_push(ravel_tc_edge_buffer *b, uint64_t src,
                              uint64_t dst);

/* Frees the array and empties *b. */
void ravel_tc_edge_buffer_free(ravel_tc_edge_buffer *b);

#endif
