/* The program's arena: every node of the syntax tree and the plan lives
 * until the program is freed, so the phases never free piecemeal. */
#include "dl_internal.h"

#include <ravel/error.h>

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dl_arena_chunk {
    dl_arena_chunk *next;
    max_align_t data[];
};

void *dl_alloc(dl_arena *a, size_t bytes)
{
    if (bytes > SIZE_MAX - sizeof(dl_arena_chunk))
        return NULL;
    dl_arena_chunk *c = calloc(1, sizeof *c + bytes);
    if (!c)
        return NULL;
    c->next = a->head;
    a->head = c;
    return c->data;
}

char *dl_strndup(dl_arena *a, const char *s, size_t n)
{
    char *d = dl_alloc(a, n + 1);
    if (d)
        memcpy(d, s, n);
    return d;
}

void dl_arena_free(dl_arena *a)
{
    while (a->head) {
        dl_arena_chunk *next = a->head->next;
        free(a->head);
        a->head = next;
    }
}

int dl_vec_push(dl_arena *a, dl_vec *v, void *item)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 8;
        void **grown = dl_alloc(a, cap * sizeof *grown);
        if (!grown)
            return ravel_error_set(MPI_ERR_NO_MEM, "datalog: out of memory");
        if (v->n)
            memcpy(grown, v->items, v->n * sizeof *grown);
        v->items = grown;
        v->cap = cap;
    }
    v->items[v->n++] = item;
    return MPI_SUCCESS;
}

int dl_error_at(const char *file, dl_pos pos, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ravel_error_set(MPI_ERR_ARG, "%s:%d:%d: %s", file, pos.line,
                           pos.col, msg);
}
