/* Facts in: the program's inline facts and each .input relation's file.
 * Every rank reads every file whole (and so finds every error and knows
 * every symbol's text) and inserts the tuples of lines i with
 * i % P == rank; the engine sends them to their owners. */
#include "dl_run.h"

#include <ravel/error.h>
#include <ravel/quote.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOMEM() ravel_error_set(MPI_ERR_NO_MEM, "datalog: out of memory")

/* Tuples are handed to the engine in batches of this many. */
#define BATCH_TUPLES 65536

/* A tuple in declared column order, rearranged in place into the order
 * its relation is stored in (dl_plan_rel.perm). */
static void dl_store_tuple(const dl_run *r, int rel, uint64_t *tuple)
{
    const dl_plan_rel *pr = DL_PREL(r->p, rel);
    uint64_t declared[RAVEL_MAX_ARITY];
    memcpy(declared, tuple, pr->arity * sizeof *tuple);
    for (size_t i = 0; i < pr->arity; i++)
        tuple[i] = declared[pr->perm[i]];
}

static int add_symbol(dl_run *r, const char *where, dl_pos pos,
                      const char *text, size_t len, uint64_t *id)
{
    const char *clash;
    int rc = dl_symbols_add(r->syms, text, len, id, &clash);
    if (rc && clash)
        return ravel_error_set(MPI_ERR_OTHER,
                               "%s:%d:%d: the symbols \"%.*s\" and \"%.60s\" "
                               "have the same 64-bit id; ravel cannot hold "
                               "both", where, pos.line, pos.col,
                               (int)(len > 60 ? 60 : len), text, clash);
    return rc;
}

static int term_symbol(dl_run *r, const dl_term *t)
{
    uint64_t id;
    if (t->kind != DL_TERM_STRING)
        return 0;
    return add_symbol(r, r->p->file, t->pos, t->name, t->len, &id);
}

int dl_load_program_symbols(dl_run *r)
{
    const ravel_dl_program *p = r->p;
    int rc = 0;
    for (size_t i = 0; i < p->facts.n && !rc; i++) {
        const dl_atom *f = p->facts.items[i];
        for (size_t j = 0; j < f->arity && !rc; j++)
            rc = term_symbol(r, &f->args[j]);
    }
    for (size_t i = 0; i < p->clauses.n && !rc; i++) {
        const dl_clause *c = p->clauses.items[i];
        for (size_t j = 0; j < c->head.arity && !rc; j++)
            rc = term_symbol(r, &c->head.args[j]);
        for (size_t a = 0; a < c->natoms && !rc; a++)
            for (size_t j = 0; j < c->atoms[a].arity && !rc; j++)
                rc = term_symbol(r, &c->atoms[a].args[j]);
        for (size_t k = 0; k < c->ncmps && !rc; k++)
            if (!(rc = term_symbol(r, &c->cmps[k].left)))
                rc = term_symbol(r, &c->cmps[k].right);
    }
    return rc;
}

static int insert_inline_facts(dl_run *r)
{
    const ravel_dl_program *p = r->p;
    uint64_t tuple[RAVEL_MAX_ARITY];
    for (size_t i = 0; i < p->facts.n; i++) {
        if (i % (size_t)r->nranks != (size_t)r->rank)
            continue;
        const dl_atom *f = p->facts.items[i];
        const dl_relation *rel = DL_REL(p, f->rel);
        for (size_t j = 0; j < f->arity; j++) {
            int rc = dl_encode_term(p->file, &f->args[j], rel->col_types[j],
                                    &tuple[j]);
            if (rc)
                return rc;
        }
        dl_store_tuple(r, f->rel, tuple);
        int rc = ravel_insert(r->e, r->rels[f->rel], tuple, 1);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- fact files ---------------------------------------------------------------- */

/* Program text takes 0x10 as a number, a fact file (as Soufflé's) does
 * not: the message for a refused number field that looks so says why. */
static const char *prefix_hint(const char *s, size_t n, dl_type t)
{
    size_t k = n > 0 && s[0] == '-';
    char base = n > k + 1 && s[k] == '0' ? s[k + 1] : 0;
    return t == DL_NUMBER && base && strchr("xXbB", base)
               ? ": a fact file's numbers are decimal, as in Soufflé (0x "
                 "and 0b are for unsigned columns)"
               : "";
}

static int parse_field(dl_run *r, const char *path, dl_pos pos,
                       const dl_relation *rel, size_t col, const char *s,
                       size_t n, uint64_t *out)
{
    dl_type t = rel->col_types[col];
    if (t == DL_SYMBOL)
        return add_symbol(r, path, pos, s, n, out);
    uint64_t mag;
    int neg, rc = dl_parse_fact_number(s, n, t, &mag, &neg);
    if (rc) {
        char q[RAVEL_QUOTE_ROOM(40)];
        return ravel_error_set(MPI_ERR_OTHER,
                               "%s:%d:%d: %s is not %s (column %zu, "
                               "'%s', of %s)%s", path, pos.line, pos.col,
                               ravel_quote(s, n, 40, q, sizeof q),
                               t == DL_NUMBER ? "a number" : "an unsigned",
                               col + 1, rel->col_names[col], rel->name,
                               rc == -2 ? ": it exceeds 64 bits"
                                        : prefix_hint(s, n, t));
    }
    dl_term term = {.kind = DL_TERM_NUMBER, .pos = pos, .magnitude = mag,
                    .negative = neg};
    return dl_encode_term(path, &term, t, out);
}

static int load_file(dl_run *r, int index, const char *fact_dir)
{
    const dl_relation *rel = DL_REL(r->p, index);
    ravel_rel er = r->rels[index];
    char path[4096];
    const char *name = rel->input_file;
    char def[128];
    if (!name) {
        snprintf(def, sizeof def, "%s.facts", rel->name);
        name = def;
    }
    if (name[0] == '/')
        snprintf(path, sizeof path, "%s", name);
    else if ((size_t)snprintf(path, sizeof path, "%s/%s", fact_dir, name) >=
             sizeof path)
        return ravel_error_set(MPI_ERR_ARG, "fact file path too long: %s/%s",
                               fact_dir, name);
    char *text = NULL;
    size_t len = 0;
    int rc = dl_read_file(path, "fact file ", &text, &len);
    if (rc)
        return rc;
    uint64_t *batch = malloc(BATCH_TUPLES * rel->arity * sizeof *batch);
    size_t nbatch = 0, line_index = 0;
    if (!batch) {
        free(text);
        return NOMEM();
    }
    dl_pos pos = {1, 1};
    for (size_t at = 0; at < len && !rc; line_index++, pos.line++) {
        const char *line = text + at;
        const char *nl = memchr(line, '\n', len - at);
        size_t n = nl ? (size_t)(nl - line) : len - at;
        at += n + 1;
        /* A line ending in CR LF (a file written on Windows) ends before
         * the CR, as Souffle reads it: kept, the CR made "b\r" a symbol
         * other than "b", and joins lost their tuples without a word. */
        if (n > 0 && line[n - 1] == '\r')
            n--;
        int mine = line_index % (size_t)r->nranks == (size_t)r->rank;
        uint64_t *tuple = batch + nbatch * rel->arity;
        size_t col = 0, start = 0;
        for (size_t i = 0; i <= n && !rc; i++) {
            if (i < n && line[i] != rel->input_delimiter)
                continue;
            pos.col = (int)start + 1;
            if (col == rel->arity) {
                rc = ravel_error_set(MPI_ERR_OTHER,
                                     "%s:%d:%d: more than %zu columns (%s "
                                     "has %zu)", path, pos.line, pos.col,
                                     rel->arity, rel->name, rel->arity);
                break;
            }
            rc = parse_field(r, path, pos, rel, col, line + start, i - start,
                             &tuple[col]);
            col++;
            start = i + 1;
        }
        if (!rc && col < rel->arity)
            rc = ravel_error_set(MPI_ERR_OTHER,
                                 "%s:%d: %zu column%s, %s has %zu", path,
                                 pos.line, col, col == 1 ? "" : "s",
                                 rel->name, rel->arity);
        if (!rc && mine)
            dl_store_tuple(r, index, tuple);
        if (!rc && mine && ++nbatch == BATCH_TUPLES) {
            rc = ravel_insert(r->e, er, batch, nbatch);
            nbatch = 0;
        }
    }
    if (!rc && nbatch)
        rc = ravel_insert(r->e, er, batch, nbatch);
    free(batch);
    free(text);
    return rc;
}

int dl_load_facts(dl_run *r, const char *fact_dir)
{
    int rc = insert_inline_facts(r);
    for (size_t i = 0; i < r->p->relations.n && !rc; i++) {
        if (DL_REL(r->p, i)->is_input)
            rc = load_file(r, (int)i, fact_dir);
    }
    return rc;
}
