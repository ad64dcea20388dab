/* One rank's snapshot file: its tuples of every declared relation, written
 * and read as a stream of chunks, with an XXH3 checksum of every byte.
 *
 *   "RAVELSN1"                                          magic, 8 bytes
 *   u64 program hash, u32 format, rank, ranks, stratum, iteration, nrels
 *   per declared relation: u32 index, u32 arity, then chunks
 *     u8 kind (0: in full only, 1: in delta too), u32 tuples, u32 bytes,
 *     the tuples, each encoded against the one before (tuple_encode; the
 *     first against zeros), so a sorted 2-column relation of graph ids
 *     takes 2 to 4 bytes a tuple instead of 16
 *   u8 255 ends the relation's chunks
 * Integers are little-endian.  Indexes and replicas are not written: they
 * are rebuilt from their bases when resumed. */
#include "../relalg_internal.h"

#include "ravel/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK_BYTES ((size_t)1 << 20)
#define MAGIC "RAVELSN1"
#define END_OF_RELATION 255

static void le_put(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t le_get(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* ---- the stream both sides share ---------------------------------------- */

static void stream_close(snapshot_stream *io)
{
    if (io->f)
        fclose(io->f);
    io->f = NULL;
    if (io->hash)
        XXH3_freeState(io->hash);
    io->hash = NULL;
    free(io->chunk);
    io->chunk = NULL;
}

/* mode "wb" or "rb"; on failure everything is released. */
static int stream_open(snapshot_stream *io, const char *path,
                       const char *mode)
{
    memset(io, 0, sizeof *io);
    snprintf(io->path, sizeof io->path, "%s", path);
    io->hash = XXH3_createState();
    io->chunk = malloc(CHUNK_BYTES);
    if (!io->hash || !io->chunk) {
        stream_close(io);
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for the "
                               "snapshot file %s", path);
    }
    XXH3_64bits_reset(io->hash);
    io->f = fopen(path, mode);
    if (!io->f) {
        int err = ravel_error_set(MPI_ERR_FILE, "cannot %s snapshot file "
                                  "%s: %s", *mode == 'w' ? "create" : "open",
                                  path, strerror(errno));
        stream_close(io);
        return err;
    }
    return MPI_SUCCESS;
}

/* ---- writing ------------------------------------------------------------- */

static int sink_write(snapshot_sink *s, const void *data, size_t n)
{
    if (s->failed)
        return MPI_ERR_FILE;
    if (n && fwrite(data, 1, n, s->io.f) != n) {
        s->failed = 1;
        return ravel_error_set(MPI_ERR_FILE, "%s: write failed: %s",
                               s->io.path, strerror(errno));
    }
    XXH3_64bits_update(s->io.hash, data, n);
    s->io.bytes += n;
    return MPI_SUCCESS;
}

/* Writes the chunk being built, if it holds any tuple. */
static int chunk_flush(snapshot_sink *s)
{
    if (s->chunk_tuples == 0)
        return MPI_SUCCESS;
    unsigned char head[9];
    head[0] = (unsigned char)s->chunk_kind;
    le_put(head + 1, s->chunk_tuples, 4);
    le_put(head + 5, s->chunk_used, 4);
    int err = sink_write(s, head, sizeof head);
    if (err == MPI_SUCCESS)
        err = sink_write(s, s->io.chunk, s->chunk_used);
    s->chunk_tuples = 0;
    s->chunk_used = 0;
    memset(s->prev, 0, sizeof s->prev);
    return err;
}

int snapshot_sink_open(snapshot_sink *s, const char *path,
                       const snapshot_header *h)
{
    memset(s, 0, sizeof *s);
    int err = stream_open(&s->io, path, "wb");
    if (err != MPI_SUCCESS)
        return err;
    unsigned char head[8 + 8 + 6 * 4];
    memcpy(head, MAGIC, 8);
    le_put(head + 8, h->program, 8);
    uint32_t words[6] = {SNAPSHOT_FORMAT, h->rank, h->ranks, h->stratum,
                         h->iteration, h->nrels};
    for (int i = 0; i < 6; i++)
        le_put(head + 16 + 4 * i, words[i], 4);
    return sink_write(s, head, sizeof head);
}

int snapshot_sink_relation(snapshot_sink *s, uint32_t index, unsigned arity)
{
    int err = chunk_flush(s);
    if (err != MPI_SUCCESS)
        return err;
    unsigned char head[8];
    le_put(head, index, 4);
    le_put(head + 4, arity, 4);
    s->arity = arity;
    return sink_write(s, head, sizeof head);
}

int snapshot_sink_tuple(snapshot_sink *s, const uint64_t *t, int in_delta)
{
    if (s->chunk_tuples > 0 && (int)s->chunk_kind != in_delta) {
        int err = chunk_flush(s);
        if (err != MPI_SUCCESS)
            return err;
    }
    if (s->chunk_used + TUPLE_MAX_BYTES(s->arity) > CHUNK_BYTES) {
        int err = chunk_flush(s);
        if (err != MPI_SUCCESS)
            return err;
    }
    s->chunk_kind = (unsigned)in_delta;
    unsigned char *end = tuple_encode(s->io.chunk + s->chunk_used, s->prev,
                                      t, s->arity);
    s->chunk_used = (size_t)(end - s->io.chunk);
    memcpy(s->prev, t, s->arity * sizeof *t);
    s->chunk_tuples++;
    return MPI_SUCCESS;
}

int snapshot_sink_end_relation(snapshot_sink *s)
{
    int err = chunk_flush(s);
    unsigned char end = END_OF_RELATION;
    return err != MPI_SUCCESS ? err : sink_write(s, &end, 1);
}

int snapshot_sink_close(snapshot_sink *s, uint64_t *bytes, uint64_t *hash)
{
    int err = s->failed ? MPI_ERR_FILE : MPI_SUCCESS;
    /* On disk before the manifest can name it: flushed, then synced. */
    FILE *f = s->io.f;
    if (err == MPI_SUCCESS && (fflush(f) != 0 || fsync(fileno(f)) != 0))
        err = ravel_error_set(MPI_ERR_FILE, "%s: cannot write to disk: %s",
                              s->io.path, strerror(errno));
    if (fclose(f) != 0 && err == MPI_SUCCESS)
        err = ravel_error_set(MPI_ERR_FILE, "%s: cannot close: %s",
                              s->io.path, strerror(errno));
    s->io.f = NULL;
    *bytes = s->io.bytes;
    *hash = XXH3_64bits_digest(s->io.hash);
    snapshot_sink_abandon(s);
    return err;
}

void snapshot_sink_abandon(snapshot_sink *s) { stream_close(&s->io); }

/* ---- reading ------------------------------------------------------------- */

static int source_read(snapshot_source *s, void *data, size_t n)
{
    if (n == 0)
        return MPI_SUCCESS;
    if (fread(data, 1, n, s->io.f) != n)
        return ravel_error_set(MPI_ERR_FILE, "%s: %s after %llu bytes",
                               s->io.path,
                               ferror(s->io.f) ? strerror(errno)
                                               : "ends too soon",
                               (unsigned long long)s->io.bytes);
    XXH3_64bits_update(s->io.hash, data, n);
    s->io.bytes += n;
    return MPI_SUCCESS;
}

static int corrupt(const snapshot_source *s, const char *what)
{
    return ravel_error_set(MPI_ERR_FILE, "%s: corrupt snapshot file: %s "
                           "(at byte %llu)", s->io.path, what,
                           (unsigned long long)s->io.bytes);
}

int snapshot_source_open(snapshot_source *s, const char *path,
                         snapshot_header *h)
{
    memset(s, 0, sizeof *s);
    int err = stream_open(&s->io, path, "rb");
    if (err != MPI_SUCCESS)
        return err;
    unsigned char head[8 + 8 + 6 * 4];
    err = source_read(s, head, sizeof head);
    if (err != MPI_SUCCESS)
        return err;
    if (memcmp(head, MAGIC, 8) != 0)
        return corrupt(s, "not a ravel snapshot file (bad magic)");
    h->program = le_get(head + 8, 8);
    uint32_t format = (uint32_t)le_get(head + 16, 4);
    h->rank = (uint32_t)le_get(head + 20, 4);
    h->ranks = (uint32_t)le_get(head + 24, 4);
    h->stratum = (uint32_t)le_get(head + 28, 4);
    h->iteration = (uint32_t)le_get(head + 32, 4);
    h->nrels = (uint32_t)le_get(head + 36, 4);
    if (format != SNAPSHOT_FORMAT)
        return ravel_error_set(MPI_ERR_FILE, "%s: snapshot format %u, this "
                               "ravel reads format %u", path, format,
                               SNAPSHOT_FORMAT);
    return MPI_SUCCESS;
}

int snapshot_source_relation(snapshot_source *s, uint32_t *index,
                             unsigned *arity)
{
    unsigned char head[8];
    int err = source_read(s, head, sizeof head);
    if (err != MPI_SUCCESS)
        return err;
    *index = (uint32_t)le_get(head, 4);
    *arity = (unsigned)le_get(head + 4, 4);
    if (*arity < 1 || *arity > RAVEL_MAX_ARITY)
        return corrupt(s, "relation arity out of range");
    s->arity = *arity;
    s->chunk_left = 0;
    return MPI_SUCCESS;
}

int snapshot_source_tuple(snapshot_source *s, uint64_t *t, int *in_delta)
{
    if (s->chunk_left == 0) {
        unsigned char kind;
        if (source_read(s, &kind, 1) != MPI_SUCCESS)
            return -1;
        if (kind == END_OF_RELATION)
            return 0;
        unsigned char head[8];
        if (kind > 1) {
            corrupt(s, "bad chunk kind");
            return -1;
        }
        if (source_read(s, head, sizeof head) != MPI_SUCCESS)
            return -1;
        uint64_t n = le_get(head, 4), bytes = le_get(head + 4, 4);
        if (n == 0 || bytes > CHUNK_BYTES) {
            corrupt(s, "bad chunk header");
            return -1;
        }
        if (source_read(s, s->io.chunk, (size_t)bytes) != MPI_SUCCESS)
            return -1;
        s->chunk_kind = kind;
        s->chunk_left = n;
        s->pos = s->io.chunk;
        s->end = s->io.chunk + bytes;
        memset(s->cur, 0, sizeof s->cur);
    }
    s->pos = tuple_decode(s->pos, s->end, s->cur, s->arity);
    if (!s->pos) {
        corrupt(s, "a tuple runs past its chunk");
        return -1;
    }
    if (--s->chunk_left == 0 && s->pos != s->end) {
        corrupt(s, "bytes left over in a chunk");
        return -1;
    }
    memcpy(t, s->cur, s->arity * sizeof *t);
    *in_delta = (int)s->chunk_kind;
    return 1;
}

int snapshot_source_finish(snapshot_source *s, uint64_t bytes, uint64_t hash)
{
    unsigned char extra;
    if (fread(&extra, 1, 1, s->io.f) == 1)
        return corrupt(s, "data after the last relation");
    if (s->io.bytes != bytes)
        return ravel_error_set(MPI_ERR_FILE, "%s: %llu bytes, the manifest "
                               "says %llu", s->io.path,
                               (unsigned long long)s->io.bytes,
                               (unsigned long long)bytes);
    if (XXH3_64bits_digest(s->io.hash) != hash)
        return ravel_error_set(MPI_ERR_FILE, "%s: checksum mismatch (the "
                               "file changed after it was written)",
                               s->io.path);
    return MPI_SUCCESS;
}

void snapshot_source_close(snapshot_source *s) { stream_close(&s->io); }
