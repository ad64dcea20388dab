/* Interns names: one index per distinct byte string, in first-seen order. */
#include "kcfa_name_table.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ravel/memory.h"

/* FNV-1a: names are short, and the table only needs to be fast here. */
static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

static const char *name_at(const kcfa_name_table *t, size_t i)
{
    return t->bytes + t->offset[i];
}

static size_t name_len(const kcfa_name_table *t, size_t i)
{
    size_t end = i + 1 < t->count ? t->offset[i + 1] : t->bytes_len;
    return end - t->offset[i] - 1;
}

static int rehash(kcfa_name_table *t, size_t nslots)
{
    size_t bytes;
    if (ravel_mul_size(nslots, sizeof(size_t), &bytes) != 0)
        return -1;
    size_t *slots = calloc(nslots, sizeof(size_t));
    if (!slots)
        return -1;
    for (size_t i = 0; i < t->count; i++) {
        size_t s = hash_bytes(name_at(t, i), name_len(t, i)) & (nslots - 1);
        while (slots[s] != 0)
            s = (s + 1) & (nslots - 1);
        slots[s] = i + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
    return 0;
}

static int grow(void **buf, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t cap2 = *cap ? *cap : 64, bytes;
    while (cap2 < need)
        if (ravel_mul_size(cap2, 2, &cap2) != 0)
            return -1;
    if (ravel_mul_size(cap2, elem, &bytes) != 0)
        return -1;
    void *p = realloc(*buf, bytes);
    if (!p)
        return -1;
    *buf = p;
    *cap = cap2;
    return 0;
}

static int append_name(kcfa_name_table *t, const char *name, size_t len)
{
    size_t need;
    if (ravel_add_size(t->bytes_len, len + 1, &need) != 0 ||
        grow((void **)&t->bytes, &t->bytes_cap, need, 1) != 0 ||
        grow((void **)&t->offset, &t->offset_cap, t->count + 1,
             sizeof(size_t)) != 0)
        return -1;
    t->offset[t->count++] = t->bytes_len;
    memcpy(t->bytes + t->bytes_len, name, len);
    t->bytes[t->bytes_len + len] = '\0';
    t->bytes_len = need;
    return 0;
}

int kcfa_names_intern(kcfa_name_table *t, const char *name, size_t len,
                      size_t *index)
{
    if (t->nslots < 2 * (t->count + 1) &&
        rehash(t, t->nslots ? 2 * t->nslots : 64) != 0)
        return -1;
    size_t s = hash_bytes(name, len) & (t->nslots - 1);
    while (t->slots[s] != 0) {
        size_t i = t->slots[s] - 1;
        if (name_len(t, i) == len && memcmp(name_at(t, i), name, len) == 0) {
            *index = i;
            return 0;
        }
        s = (s + 1) & (t->nslots - 1);
    }
    if (append_name(t, name, len) != 0)
        return -1;
    t->slots[s] = t->count;
    *index = t->count - 1;
    return 0;
}

void kcfa_names_free(kcfa_name_table *t)
{
    free(t->bytes);
    free(t->offset);
    free(t->slots);
    memset(t, 0, sizeof *t);
}
