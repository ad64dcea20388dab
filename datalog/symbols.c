/* The symbol table: each string's 64-bit id (XXH3-64 of its bytes) and
 * back.  Every rank fills its own from the same program and fact files, so
 * all agree without exchanging a dictionary.  Two strings with one id are
 * found when the second is added, and refused. */
#include "dl_symbols.h"

#include <ravel/error.h>

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t id;
    const char *text; /* NULL: empty slot */
    size_t len;
} slot;

struct dl_symbols {
    slot *slots;
    size_t cap, n; /* cap a power of two, at most 1/2 full */
    dl_arena strings;
};

dl_symbols *dl_symbols_new(void)
{
    dl_symbols *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->cap = 1024;
    s->slots = calloc(s->cap, sizeof *s->slots);
    if (!s->slots) {
        free(s);
        return NULL;
    }
    return s;
}

void dl_symbols_free(dl_symbols *s)
{
    if (!s)
        return;
    dl_arena_free(&s->strings);
    free(s->slots);
    free(s);
}

static slot *find(slot *slots, size_t cap, uint64_t id)
{
    /* The id is a hash already: its low bits index the table. */
    for (size_t i = (size_t)id & (cap - 1);; i = (i + 1) & (cap - 1))
        if (!slots[i].text || slots[i].id == id)
            return &slots[i];
}

static int grow(dl_symbols *s)
{
    size_t cap = 2 * s->cap;
    slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return ravel_error_set(MPI_ERR_NO_MEM,
                               "datalog: out of memory for %zu symbols",
                               s->n);
    for (size_t i = 0; i < s->cap; i++)
        if (s->slots[i].text)
            *find(slots, cap, s->slots[i].id) = s->slots[i];
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
    return 0;
}

int dl_symbols_add(dl_symbols *s, const char *text, size_t len,
                   uint64_t *id, const char **clash)
{
    *id = dl_symbol_hash(text, len);
    *clash = NULL;
    slot *sl = find(s->slots, s->cap, *id);
    if (sl->text) {
        if (sl->len != len || memcmp(sl->text, text, len) != 0) {
            *clash = sl->text;
            return ravel_error_set(MPI_ERR_OTHER, "symbol id collision");
        }
        return 0;
    }
    char *copy = dl_strndup(&s->strings, text, len);
    if (!copy)
        return ravel_error_set(MPI_ERR_NO_MEM, "datalog: out of memory");
    sl->id = *id;
    sl->text = copy;
    sl->len = len;
    if (++s->n * 2 > s->cap)
        return grow(s);
    return 0;
}

const char *dl_symbols_text(const dl_symbols *s, uint64_t id, size_t *len)
{
    const slot *sl = find(s->slots, s->cap, id);
    if (!sl->text)
        return NULL;
    *len = sl->len;
    return sl->text;
}
