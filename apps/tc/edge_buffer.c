/* A growable array of edges, doubling so appends cost O(1) amortised. */
#include "edge_buffer.h"

#include "ravel/memory.h"

#include <stdlib.h>

int ravel_tc_edge_buffer_push(ravel_tc_edge_buffer *b, uint64_t src,
                              uint64_t dst)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 1024;
        size_t bytes;
        if (cap < b->cap || ravel_mul_size(cap, 2 * sizeof(uint64_t), &bytes))
            return -1;
        uint64_t *ids = realloc(b->ids, bytes);
        if (!ids)
            return -1;
        b->ids = ids;
        b->cap = cap;
    }
    b->ids[2 * b->n] = src;
    b->ids[2 * b->n + 1] = dst;
    b->n++;
    return 0;
}

void ravel_tc_edge_buffer_free(ravel_tc_edge_buffer *b)
{
    free(b->ids);
    b->ids = NULL;
    b->n = b->cap = 0;
}
