/* Results out: each .output relation as OUT_DIR/NAME.csv in Soufflé's
 * form (one tuple a line, columns separated by a tab or the relation's
 * delimiter, numbers in decimal, symbols as their text).  Each rank formats
 * its own tuples and writes them at its offset (an exclusive prefix sum of
 * the ranks' byte counts) with MPI-IO, into a temporary file that is
 * renamed into place only when every output of the run is complete.  The
 * lines are in no global order; compare outputs after sorting. */
#include "dl_run.h"

#include <ravel/error.h>

#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The most bytes one MPI_File_write_at call is given (its count is an
 * int). */
#define WRITE_CHUNK ((size_t)1 << 30)

const char *dl_format_value(const dl_run *r, dl_type t, uint64_t v,
                            char *buf, size_t *len)
{
    int n;
    switch (t) {
    case DL_NUMBER:
        n = snprintf(buf, 24, "%" PRId64, dl_decode_number(v));
        *len = (size_t)n;
        return buf;
    case DL_UNSIGNED:
        n = snprintf(buf, 24, "%" PRIu64, v);
        *len = (size_t)n;
        return buf;
    case DL_SYMBOL:
        return dl_symbols_text(r->syms, v, len);
    }
    return NULL;
}

static void path_of(const dl_relation *rel, const char *out_dir, int tmp,
                    char *path, size_t cap)
{
    char def[128];
    const char *name = rel->output_file;
    if (!name) {
        snprintf(def, sizeof def, "%s.csv", rel->name);
        name = def;
    }
    const char *slash = name[0] == '/' ? "" : "/";
    const char *dir = name[0] == '/' ? "" : out_dir;
    if (tmp)
        snprintf(path, cap, "%s%s%s.ravel-partial", dir, slash, name);
    else
        snprintf(path, cap, "%s%s%s", dir, slash, name);
}

typedef struct {
    char *text;
    size_t len, cap;
} text_buf;

static int append(text_buf *b, const char *s, size_t n)
{
    if (n == 0) /* an empty symbol, maybe before anything was allocated */
        return 0;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 16;
        while (cap < b->len + n)
            cap *= 2;
        char *grown = realloc(b->text, cap);
        if (!grown)
            return ravel_error_set(MPI_ERR_NO_MEM,
                                   "datalog: out of memory formatting "
                                   "%zu bytes of output", b->len + n);
        b->text = grown;
        b->cap = cap;
    }
    memcpy(b->text + b->len, s, n);
    b->len += n;
    return 0;
}

/* A relation's text, made twice from its tuples as the engine visits them
 * (ravel_relation_visit, which reads a packed relation where it lies): once
 * only to count its bytes, for the ranks' offsets, then to write it a
 * FLUSH_BYTES buffer at a time.  Formatting all of a rank's text first, from
 * the relation unpacked, held kCFA's AEval twice over at the end of a run:
 * 473 MB at 1 rank against 156 for ravel-kcfa (bench/results/peers). */
#define FLUSH_BYTES ((size_t)1 << 20)

typedef struct {
    dl_run *r;
    const dl_relation *rel;
    unsigned at[RAVEL_MAX_ARITY]; /* where each declared column is stored */
    MPI_File fh;                  /* the second pass's; none when counting */
    int writing;
    MPI_Offset offset;            /* this rank's first byte in the file */
    uint64_t bytes;               /* counted, or written so far */
    text_buf b;                   /* formatted, not yet written */
    int werr;                     /* a write failed */
} text_pass;

static int flush(text_pass *o)
{
    for (size_t at = 0; at < o->b.len && !o->werr; at += WRITE_CHUNK) {
        size_t n = o->b.len - at < WRITE_CHUNK ? o->b.len - at : WRITE_CHUNK;
        MPI_Status st;
        o->werr = MPI_File_write_at(o->fh,
                                    o->offset + (MPI_Offset)(o->bytes + at),
                                    o->b.text + at, (int)n, MPI_CHAR, &st);
    }
    o->bytes += o->b.len;
    o->b.len = 0;
    return o->werr;
}

static int format_tuples(const uint64_t *t, size_t n, void *arg)
{
    text_pass *o = arg;
    const dl_relation *rel = o->rel;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        for (size_t c = 0; c < rel->arity && !rc; c++) {
            char num[24];
            size_t len;
            uint64_t v = t[i * rel->arity + o->at[c]];
            const char *s = dl_format_value(o->r, rel->col_types[c], v, num,
                                            &len);
            if (!s)
                return ravel_error_set(MPI_ERR_INTERN,
                                       "datalog: %s holds a symbol id "
                                       "%016" PRIx64 " with no text",
                                       rel->name, v);
            char sep = c + 1 < rel->arity ? rel->output_delimiter : '\n';
            if (!o->writing)
                o->bytes += len + 1;
            else if (!(rc = append(&o->b, s, len)))
                rc = append(&o->b, &sep, 1);
        }
    if (!rc && o->writing && o->b.len >= FLUSH_BYTES)
        rc = flush(o);
    return rc;
}

static int write_relation(dl_run *r, MPI_Comm comm, int index,
                          const char *out_dir)
{
    const dl_relation *rel = DL_REL(r->p, index);
    text_pass o = {.r = r, .rel = rel};
    for (size_t c = 0; c < rel->arity; c++)
        o.at[c] = dl_stored_column(r->p, index, (unsigned)c);
    int rc = ravel_relation_visit(r->e, r->rels[index], format_tuples, &o);
    /* Every rank must reach the collective calls below. */
    int failed = rc != 0, any;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any)
        return rc ? rc : ravel_error_set(MPI_ERR_OTHER,
                                         "another rank failed formatting %s",
                                         rel->name);
    uint64_t mine = o.bytes, offset = 0;
    MPI_Exscan(&mine, &offset, 1, MPI_UINT64_T, MPI_SUM, comm);
    if (r->rank == 0)
        offset = 0;
    char path[4096];
    path_of(rel, out_dir, 1, path, sizeof path);
    rc = MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                       MPI_INFO_NULL, &o.fh);
    if (rc)
        return ravel_error_set(MPI_ERR_FILE, "%s: cannot create it (is %s "
                               "a writable directory?)", path, out_dir);
    rc = MPI_File_set_size(o.fh, 0);
    o.writing = 1;
    o.offset = (MPI_Offset)offset;
    o.bytes = 0;
    int werr = ravel_relation_visit(r->e, r->rels[index], format_tuples, &o);
    if (!werr)
        werr = flush(&o);
    int lost = !werr && o.bytes != mine; /* the relation changed between */
    int crc = MPI_File_close(&o.fh);
    free(o.b.text);
    failed = rc || werr || lost || crc;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any)
        return ravel_error_set(MPI_ERR_FILE, "%s: write failed%s", path,
                               failed ? "" : " on another rank");
    return 0;
}

int dl_write_outputs(dl_run *r, MPI_Comm comm, const char *out_dir)
{
    for (size_t i = 0; i < r->p->relations.n; i++) {
        const dl_relation *rel = DL_REL(r->p, i);
        if (!rel->is_output)
            continue;
        int rc = write_relation(r, comm, (int)i, out_dir);
        if (rc)
            return rc;
    }
    return 0;
}

int dl_finish_outputs(dl_run *r, const char *out_dir, int keep)
{
    int rc = 0;
    if (r->rank != 0)
        return 0;
    for (size_t i = 0; i < r->p->relations.n; i++) {
        const dl_relation *rel = DL_REL(r->p, i);
        if (!rel->is_output)
            continue;
        char tmp[4096], final[4096];
        path_of(rel, out_dir, 1, tmp, sizeof tmp);
        path_of(rel, out_dir, 0, final, sizeof final);
        if (!keep)
            unlink(tmp);
        else if (!rc && rename(tmp, final) != 0)
            rc = ravel_error_set(MPI_ERR_FILE, "%s: cannot rename it to "
                                 "%s", tmp, final);
    }
    return rc;
}
