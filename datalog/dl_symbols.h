/* dl_symbols.h: the table from a symbol's text to its 64-bit id and back
 * (symbols.c). */
#ifndef RAVEL_DL_SYMBOLS_H
#define RAVEL_DL_SYMBOLS_H

#include "dl_internal.h"

typedef struct dl_symbols dl_symbols;

dl_symbols *dl_symbols_new(void);
void dl_symbols_free(dl_symbols *s);

/* Adds text (len bytes) and gives its id.  When another string already has
 * that id, fails with *clash pointing to it (NUL-terminated). */
int dl_symbols_add(dl_symbols *s, const char *text, size_t len,
                   uint64_t *id, const char **clash);

/* The text of id (NUL-terminated, *len bytes), or NULL if never added. */
const char *dl_symbols_text(const dl_symbols *s, uint64_t id, size_t *len);

#endif
