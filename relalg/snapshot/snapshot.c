/* Checkpoints of a fixed-point computation, and resuming from them.
 *
 * A snapshot is a folder DIR/snapshot-NNNNNN holding one file per rank
 * (snapshot_file.c: that rank's tuples of every declared relation, full and
 * delta) and manifest.json: the format, the ravel version, the program's
 * identity (program_hash.c), the rank count, where the run stood (stratum,
 * iterations done in it, iterations in all) and each file's size and XXH3.
 *
 * Consistency.  Snapshots are taken between iterations, when every rank
 * holds exactly its placed tuples and nothing is in flight.  Every file is
 * written and fsync'd first; rank 0 gathers their sizes and checksums and
 * writes the manifest under a temporary name, syncs it, and renames it into
 * place: the rename is the commit.  A folder without manifest.json is a
 * snapshot that was interrupted and is never read.  Only after the commit
 * (and the folder's own sync) are the older snapshots removed, so there is
 * always one complete snapshot on disk once the first is written.
 *
 * Resuming re-places the tuples: every rank reads some of the files (file
 * f on rank f mod P), sends each tuple to its owner under this run's
 * placement in one exchange, marked as in delta or not, and the indexes
 * and replicas are rebuilt from their bases.  So a run may resume on a
 * different number of ranks, or with other buckets or balancing, and
 * reaches the same fixed point: the tuples carry no rank, and semi-naive
 * evaluation needs only full and delta.  The facts the program inserted
 * before ravel_run are dropped on resume: the snapshot holds them already. */
#include "../relalg_internal.h"

#include "ravel/error.h"
#include "ravel/json.h"
#include "ravel/log.h"
#include "ravel/memory.h"
#include "ravel/timer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef RAVEL_VERSION
#define RAVEL_VERSION "unknown"
#endif

#define MANIFEST "manifest.json"
#define MANIFEST_MAX_BYTES ((size_t)64 << 20)

static void folder_of(char *buf, size_t n, const char *root, uint32_t seq)
{
    snprintf(buf, n, "%s/snapshot-%06" PRIu32, root, seq);
}

static int is_snapshot_name(const char *name, uint32_t *seq)
{
    static const char prefix[] = "snapshot-";
    if (strncmp(name, prefix, 9) != 0 || strlen(name) != 15)
        return 0;
    uint32_t v = 0;
    for (int i = 9; i < 15; i++) {
        if (name[i] < '0' || name[i] > '9')
            return 0;
        v = 10 * v + (uint32_t)(name[i] - '0');
    }
    *seq = v;
    return 1;
}

static int has_manifest(const char *root, uint32_t seq)
{
    char path[4200];
    folder_of(path, sizeof path, root, seq);
    strncat(path, "/" MANIFEST, sizeof path - strlen(path) - 1);
    return access(path, F_OK) == 0;
}

/* The largest snapshot number in root, complete or not, and the largest
 * complete one (0: none). */
static int scan(const char *root, uint32_t *largest, uint32_t *complete)
{
    *largest = *complete = 0;
    DIR *d = opendir(root);
    if (!d)
        return ravel_error_set(MPI_ERR_FILE, "cannot read the snapshot "
                               "folder %s: %s", root, strerror(errno));
    struct dirent *entry;
    while ((entry = readdir(d))) {
        uint32_t seq;
        if (!is_snapshot_name(entry->d_name, &seq))
            continue;
        if (seq > *largest)
            *largest = seq;
        if (seq > *complete && has_manifest(root, seq))
            *complete = seq;
    }
    closedir(d);
    return MPI_SUCCESS;
}

/* Removes a snapshot folder: the files in it, then itself. */
static void remove_folder(const char *root, uint32_t seq)
{
    char dir[4200], path[4500];
    folder_of(dir, sizeof dir, root, seq);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *entry;
    while ((entry = readdir(d))) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static int sync_folder(const char *dir)
{
    int fd = open(dir, O_RDONLY);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int snapshot_start(ravel_engine *e)
{
    e->last_snapshot = ravel_now();
    if (!e->checkpoint_dir)
        return MPI_SUCCESS;
    int err = MPI_SUCCESS;
    uint32_t largest = 0, complete = 0;
    if (e->rank == 0) {
        if (mkdir(e->checkpoint_dir, 0777) != 0 && errno != EEXIST)
            err = ravel_error_set(MPI_ERR_FILE, "cannot create the "
                                  "checkpoint folder %s: %s",
                                  e->checkpoint_dir, strerror(errno));
        if (err == MPI_SUCCESS)
            err = scan(e->checkpoint_dir, &largest, &complete);
    }
    err = ravel_comm_root_error(e->comm, err);
    if (err != MPI_SUCCESS)
        return err;
    MPI_Bcast(&largest, 1, MPI_UINT32_T, 0, e->comm);
    /* Numbers only grow: a new snapshot never reuses a folder, complete or
     * interrupted, of an earlier run. */
    if (largest > e->snapshot_seq)
        e->snapshot_seq = largest;
    return MPI_SUCCESS;
}

/* ---- writing ------------------------------------------------------------- */

/* Whether t is in sorted d, scanning from *di (t comes in sorted order). */
/* A relation's delta read in order, flat or packed, to ask whether each of
 * a sorted run of tuples is in it. */
typedef struct {
    tuple_run flat;
    packed_cursor packed;
    int is_packed;
    size_t at; /* in flat */
    unsigned arity;
} delta_walk;

static void delta_walk_start(delta_walk *w, const relation *r, int with_delta)
{
    memset(w, 0, sizeof *w);
    w->arity = r->arity;
    if (!with_delta)
        return;
    w->is_packed = r->delta_packed.n > 0;
    if (w->is_packed)
        packed_cursor_seek(&w->packed, &r->delta_packed, r->arity, 0);
    else
        w->flat = (tuple_run){r->delta.data, r->delta.n};
}

/* Whether t is in delta; calls come with t increasing. */
static int member(delta_walk *w, const uint64_t *t)
{
    if (w->is_packed) {
        packed_cursor_advance_to(&w->packed, t);
        return !w->packed.at_end &&
               tuples_compare(w->packed.cur, t, w->arity) == 0;
    }
    const tuple_run *d = &w->flat;
    while (w->at < d->n &&
           tuples_compare(d->t + w->at * w->arity, t, w->arity) < 0)
        w->at++;
    return w->at < d->n &&
           tuples_compare(d->t + w->at * w->arity, t, w->arity) == 0;
}

/* full's tuples held as bits, in order, as kind 0 unless delta holds
 * them; all as kind 1 when delta is full (a stratum's start). */
typedef struct {
    snapshot_sink *s;
    delta_walk d;
    int all_delta;
} bits_out;

static int put_bits(void *arg, const uint64_t *t, size_t n)
{
    bits_out *o = arg;
    int err = MPI_SUCCESS;
    for (size_t i = 0; i < n && err == MPI_SUCCESS; i++) {
        const uint64_t *u = t + i * o->d.arity;
        if (o->all_delta || !member(&o->d, u))
            err = snapshot_sink_tuple(o->s, u, o->all_delta);
    }
    return err;
}

/* The relation's full minus delta (kind 0), then its delta (kind 1).  Both
 * are read where they lie, packed, flat or as bits: a snapshot unpacks
 * nothing. */
static int write_relation(snapshot_sink *s, const relation *r, uint32_t index,
                          int with_delta)
{
    int err = snapshot_sink_relation(s, index, r->arity);
    if (err == MPI_SUCCESS && r->bits.slot) {
        bits_out o = {.s = s, .all_delta = with_delta && r->delta_is_full};
        delta_walk_start(&o.d, r, with_delta && !o.all_delta);
        err = storage_bits_each(r, put_bits, &o);
    }
    delta_walk d;
    delta_walk_start(&d, r, with_delta);
    packed_cursor c;
    packed_cursor_seek(&c, &r->packed, r->arity, 0);
    for (; !c.at_end && err == MPI_SUCCESS; packed_cursor_next(&c))
        if (!member(&d, c.cur))
            err = snapshot_sink_tuple(s, c.cur, 0);
    tuple_run runs[FULL_RUNS_MAX];
    unsigned nruns = storage_runs(r, RAVEL_FULL, runs);
    for (unsigned k = 0; k < nruns; k++) {
        delta_walk_start(&d, r, with_delta);
        for (size_t i = 0; i < runs[k].n && err == MPI_SUCCESS; i++) {
            const uint64_t *t = runs[k].t + i * r->arity;
            if (!member(&d, t))
                err = snapshot_sink_tuple(s, t, 0);
        }
    }
    tuple_run flat[FULL_RUNS_MAX];
    unsigned nflat = with_delta ? storage_runs(r, RAVEL_DELTA, flat) : 0;
    for (unsigned k = 0; k < nflat; k++)
        for (size_t i = 0; i < flat[k].n && err == MPI_SUCCESS; i++)
            err = snapshot_sink_tuple(s, flat[k].t + i * r->arity, 1);
    const packed_tuples *p =
        with_delta ? storage_packed_part(r, RAVEL_DELTA) : NULL;
    if (p)
        for (packed_cursor_seek(&c, p, r->arity, 0);
             !c.at_end && err == MPI_SUCCESS; packed_cursor_next(&c))
            err = snapshot_sink_tuple(s, c.cur, 1);
    return err == MPI_SUCCESS ? snapshot_sink_end_relation(s) : err;
}

static uint32_t declared_count(const ravel_engine *e)
{
    uint32_t n = 0;
    for (size_t i = 0; i < e->nrels; i++)
        n += e->rels[i].kind == REL_DECLARED;
    return n;
}

static int write_rank_file(ravel_engine *e, const char *dir, uint32_t stratum,
                           uint32_t iteration, uint64_t *bytes,
                           uint64_t *hash)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/rank-%d.bin", dir, e->rank);
    snapshot_header h = {program_hash(e), (uint32_t)e->rank,
                         (uint32_t)e->size, stratum, iteration,
                         declared_count(e)};
    snapshot_sink s;
    int err = snapshot_sink_open(&s, path, &h);
    int written = 0;
    for (size_t i = 0; i < e->nrels && err == MPI_SUCCESS; i++) {
        const relation *r = &e->rels[i];
        if (r->kind != REL_DECLARED)
            continue;
        err = write_relation(&s, r, (uint32_t)i,
                             iteration > 0 && !r->delta_is_full);
        if (++written == 1)
            test_kill_point("snapshot"); /* a file half written */
    }
    if (err != MPI_SUCCESS) {
        snapshot_sink_abandon(&s);
        return err;
    }
    return snapshot_sink_close(&s, bytes, hash);
}

/* Rank 0: the manifest, under a temporary name, synced, then renamed into
 * place.  all[3 * r + 1], all[3 * r + 2]: rank r's file size and XXH3. */
static int write_manifest(ravel_engine *e, const char *dir, uint32_t stratum,
                          uint32_t iteration, const uint64_t *all)
{
    char tmp[4300], path[4300];
    snprintf(tmp, sizeof tmp, "%s/" MANIFEST ".tmp", dir);
    snprintf(path, sizeof path, "%s/" MANIFEST, dir);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return ravel_error_set(MPI_ERR_FILE, "cannot create %s: %s", tmp,
                               strerror(errno));
    fprintf(f, "{\n  \"format\": \"ravel-snapshot\",\n"
               "  \"format_version\": %u,\n  \"ravel_version\": ",
            SNAPSHOT_FORMAT);
    ravel_json_string(f, RAVEL_VERSION);
    fprintf(f, ",\n  \"program\": \"%016" PRIx64 "\",\n  \"ranks\": %d,\n"
               "  \"stratum\": %" PRIu32 ",\n  \"iteration\": %" PRIu32
               ",\n  \"iterations\": %" PRIu64 ",\n  \"productive_iterations"
               "\": %" PRIu64 ",\n  \"relations\": [",
            program_hash(e), e->size, stratum, iteration, e->iterations,
            e->productive);
    int first = 1;
    for (size_t i = 0; i < e->nrels; i++) {
        if (e->rels[i].kind != REL_DECLARED)
            continue;
        fprintf(f, "%s\n    {\"name\": ", first ? "" : ",");
        ravel_json_string(f, e->rels[i].name);
        fprintf(f, ", \"arity\": %u}", e->rels[i].arity);
        first = 0;
    }
    fprintf(f, "\n  ],\n  \"files\": [");
    for (int r = 0; r < e->size; r++)
        fprintf(f, "%s\n    {\"name\": \"rank-%d.bin\", \"bytes\": %" PRIu64
                   ", \"xxh3\": \"%016" PRIx64 "\"}",
                r ? "," : "", r, all[3 * r + 1], all[3 * r + 2]);
    fprintf(f, "\n  ]\n}\n");
    int bad = fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0 || sync_folder(dir) != 0)
        return ravel_error_set(MPI_ERR_FILE, "cannot write %s: %s", path,
                               strerror(errno));
    return MPI_SUCCESS;
}

int snapshot_write(ravel_engine *e, uint32_t stratum, uint32_t iteration)
{
    double t0 = ravel_now();
    uint32_t seq = e->snapshot_seq + 1;
    char dir[4200];
    folder_of(dir, sizeof dir, e->checkpoint_dir, seq);
    int err = MPI_SUCCESS;
    if (e->rank == 0 && mkdir(dir, 0777) != 0)
        err = ravel_error_set(MPI_ERR_FILE, "cannot create the snapshot "
                              "folder %s: %s", dir, strerror(errno));
    err = ravel_comm_root_error(e->comm, err);
    if (err != MPI_SUCCESS)
        return err;
    uint64_t mine[3] = {0, 0, 0}, *all = NULL;
    err = write_rank_file(e, dir, stratum, iteration, &mine[1], &mine[2]);
    mine[0] = err != MPI_SUCCESS;
    if (e->rank == 0 && !(all = malloc(3 * (size_t)e->size * sizeof *all)))
        err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory for the "
                              "snapshot's file list");
    MPI_Gather(mine, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, 0, e->comm);
    uint64_t total = 0;
    if (e->rank == 0) {
        for (int r = 0; r < e->size && all; r++)
            total += all[3 * r + 1];
        int complete = err == MPI_SUCCESS;
        for (int r = 0; r < e->size && complete; r++)
            complete = !all[3 * r];
        if (complete)
            err = write_manifest(e, dir, stratum, iteration, all);
        if (complete && err == MPI_SUCCESS) {
            for (uint32_t old = seq; old-- > 0;)
                if (old > 0)
                    remove_folder(e->checkpoint_dir, old);
        } else {
            remove_folder(e->checkpoint_dir, seq);
        }
    }
    free(all);
    err = ravel_comm_first_error(e->comm, err);
    if (err != MPI_SUCCESS)
        return err;
    e->snapshot_seq = seq;
    e->snapshot_at[0] = stratum;
    e->snapshot_at[1] = iteration;
    e->snapshot_written = 1;
    e->last_snapshot = ravel_now();
    if (!e->opt.quiet && e->rank == 0) {
        char size[32];
        ravel_format_bytes(size, sizeof size, total);
        ravel_log(RAVEL_LOG_INFO, "snapshot %s: stratum %" PRIu32
                  " after iteration %" PRIu32 ", %s (%" PRIu64 " bytes) in "
                  "%.3f s", dir, stratum, iteration, size, total,
                  e->last_snapshot - t0);
    }
    return MPI_SUCCESS;
}

/* ---- resuming ------------------------------------------------------------ */

enum { W_RANKS, W_STRATUM, W_ITERATION, W_ITERATIONS, W_PRODUCTIVE,
       W_PROGRAM, W_SEQ, W_FILES };

static int manifest_error(const char *path, const char *what)
{
    return ravel_error_set(MPI_ERR_FILE, "%s: %s", path, what);
}

static int get_count(const ravel_json_value *root, const char *name,
                     const char *path, uint64_t *out)
{
    const ravel_json_value *v = ravel_json_get(root, name);
    if (!v || v->kind != RAVEL_JSON_NUMBER || v->number < 0 ||
        v->number > 4294967295.0 || v->number != (double)(uint64_t)v->number)
        return ravel_error_set(MPI_ERR_FILE, "%s: \"%s\" is missing or not "
                               "a whole number", path, name);
    *out = (uint64_t)v->number;
    return MPI_SUCCESS;
}

static int get_hex(const ravel_json_value *v, const char *name,
                   const char *path, uint64_t *out)
{
    char *end;
    if (!v || v->kind != RAVEL_JSON_STRING || v->length != 16)
        return ravel_error_set(MPI_ERR_FILE, "%s: \"%s\" is missing or not "
                               "16 hexadecimal digits", path, name);
    *out = strtoull(v->string, &end, 16);
    if (*end != '\0')
        return ravel_error_set(MPI_ERR_FILE, "%s: \"%s\" is not "
                               "hexadecimal: %s", path, name, v->string);
    return MPI_SUCCESS;
}

/* Rank 0: the newest complete snapshot's manifest, checked, as words
 * (W_*, then each file's size and hash); *n words. */
static int read_manifest(ravel_engine *e, uint64_t **words, size_t *n)
{
    const char *root = e->resume_dir;
    uint32_t largest, seq;
    int err = scan(root, &largest, &seq);
    if (err != MPI_SUCCESS)
        return err;
    if (seq == 0)
        return ravel_error_set(MPI_ERR_FILE, "%s: no complete snapshot to "
                               "resume from (a snapshot-NNNNNN folder with "
                               "%s)", root, MANIFEST);
    if (largest > seq)
        ravel_log(RAVEL_LOG_WARN, "%s/snapshot-%06" PRIu32 " is incomplete "
                  "(the run stopped while writing it): resuming from "
                  "snapshot-%06" PRIu32, root, largest, seq);
    char path[4300];
    folder_of(path, sizeof path, root, seq);
    strncat(path, "/" MANIFEST, sizeof path - strlen(path) - 1);
    ravel_json_value *m;
    err = ravel_json_read_file(path, MANIFEST_MAX_BYTES, &m);
    if (err != MPI_SUCCESS)
        return err;
    const ravel_json_value *format = ravel_json_get(m, "format");
    const ravel_json_value *files = ravel_json_get(m, "files");
    uint64_t version = 0, w[W_FILES];
    if (!format || format->kind != RAVEL_JSON_STRING ||
        strcmp(format->string, "ravel-snapshot") != 0)
        err = manifest_error(path, "not a ravel snapshot manifest "
                             "(\"format\" is not \"ravel-snapshot\")");
    if (err == MPI_SUCCESS)
        err = get_count(m, "format_version", path, &version);
    if (err == MPI_SUCCESS && version != SNAPSHOT_FORMAT) {
        const ravel_json_value *by = ravel_json_get(m, "ravel_version");
        err = ravel_error_set(MPI_ERR_FILE, "%s: snapshot format %" PRIu64
                              " (written by ravel %s); this ravel (%s) "
                              "reads format %u", path, version,
                              by && by->kind == RAVEL_JSON_STRING
                                  ? by->string : "?",
                              RAVEL_VERSION, SNAPSHOT_FORMAT);
    }
    static const char *const counts[] = {"ranks", "stratum", "iteration",
                                         "iterations",
                                         "productive_iterations"};
    for (int i = 0; i < 5 && err == MPI_SUCCESS; i++)
        err = get_count(m, counts[i], path, &w[i]);
    if (err == MPI_SUCCESS)
        err = get_hex(ravel_json_get(m, "program"), "program", path,
                      &w[W_PROGRAM]);
    if (err == MPI_SUCCESS && w[W_RANKS] == 0)
        err = manifest_error(path, "\"ranks\" is 0");
    if (err == MPI_SUCCESS && (!files || files->kind != RAVEL_JSON_ARRAY ||
                               files->length != w[W_RANKS]))
        err = manifest_error(path, "\"files\" is not a list of one file "
                             "per rank");
    w[W_SEQ] = seq;
    uint64_t *out = NULL;
    if (err == MPI_SUCCESS) {
        *n = W_FILES + 2 * (size_t)w[W_RANKS];
        out = malloc(*n * sizeof *out);
        if (!out)
            err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory reading %s",
                                  path);
    }
    for (uint64_t r = 0; r < w[W_RANKS] && err == MPI_SUCCESS; r++) {
        const ravel_json_value *f = &files->items[r];
        const ravel_json_value *name = ravel_json_get(f, "name");
        char want[32];
        snprintf(want, sizeof want, "rank-%" PRIu64 ".bin", r);
        if (!name || name->kind != RAVEL_JSON_STRING ||
            strcmp(name->string, want) != 0)
            err = ravel_error_set(MPI_ERR_FILE, "%s: file %" PRIu64 " is "
                                  "not named %s", path, r, want);
        uint64_t bytes = 0;
        if (err == MPI_SUCCESS) {
            const ravel_json_value *b = ravel_json_get(f, "bytes");
            if (!b || b->kind != RAVEL_JSON_NUMBER || b->number < 0 ||
                b->number >= 9007199254740992.0)
                err = ravel_error_set(MPI_ERR_FILE, "%s: %s: \"bytes\" is "
                                      "missing or out of range", path, want);
            else
                bytes = (uint64_t)b->number;
        }
        if (err == MPI_SUCCESS)
            err = get_hex(ravel_json_get(f, "xxh3"), "xxh3", path,
                          &out[W_FILES + 2 * r + 1]);
        if (err == MPI_SUCCESS)
            out[W_FILES + 2 * r] = bytes;
    }
    ravel_json_free(m);
    if (err != MPI_SUCCESS) {
        free(out);
        return err;
    }
    memcpy(out, w, sizeof w);
    *words = out;
    return MPI_SUCCESS;
}

/* Sends this rank's share of file f's tuples to their owners. */
static int load_file(ravel_engine *e, const uint64_t *w, uint64_t f,
                     uint64_t program)
{
    char path[4400];
    folder_of(path, sizeof path, e->resume_dir, (uint32_t)w[W_SEQ]);
    snprintf(path + strlen(path), sizeof path - strlen(path),
             "/rank-%" PRIu64 ".bin", f);
    snapshot_source s;
    snapshot_header h;
    struct stat st;
    if (stat(path, &st) == 0 && (uint64_t)st.st_size != w[W_FILES + 2 * f])
        return ravel_error_set(MPI_ERR_FILE, "%s: %llu bytes, the manifest "
                               "says %llu (cut short, or another file)",
                               path, (unsigned long long)st.st_size,
                               (unsigned long long)w[W_FILES + 2 * f]);
    int err = snapshot_source_open(&s, path, &h);
    if (err == MPI_SUCCESS &&
        (h.program != program || h.rank != f || h.ranks != w[W_RANKS] ||
         h.stratum != w[W_STRATUM] || h.iteration != w[W_ITERATION]))
        err = ravel_error_set(MPI_ERR_FILE, "%s: its header does not match "
                              "the manifest (another run's file?)", path);
    for (uint32_t k = 0; k < h.nrels && err == MPI_SUCCESS; k++) {
        uint32_t index;
        unsigned arity;
        err = snapshot_source_relation(&s, &index, &arity);
        if (err == MPI_SUCCESS &&
            (index >= e->nrels || e->rels[index].kind != REL_DECLARED ||
             e->rels[index].arity != arity))
            err = ravel_error_set(MPI_ERR_FILE, "%s: relation %" PRIu32
                                  " of arity %u is not declared so here",
                                  path, index, arity);
        uint64_t t[RAVEL_MAX_ARITY];
        int in_delta, got = 0;
        while (err == MPI_SUCCESS &&
               (got = snapshot_source_tuple(&s, t, &in_delta)) == 1)
            err = emit_to_target(e, (int)index, t, in_delta);
        if (err == MPI_SUCCESS && got < 0)
            err = MPI_ERR_FILE; /* the message says what */
    }
    if (err == MPI_SUCCESS)
        err = snapshot_source_finish(&s, w[W_FILES + 2 * f],
                                     w[W_FILES + 2 * f + 1]);
    snapshot_source_close(&s);
    return err;
}

int snapshot_resume(ravel_engine *e, uint32_t *stratum, uint32_t *iteration)
{
    uint64_t *w = NULL;
    size_t n = 0;
    int err = e->rank == 0 ? read_manifest(e, &w, &n) : MPI_SUCCESS;
    err = ravel_comm_root_error(e->comm, err);
    if (err != MPI_SUCCESS)
        return err;
    uint64_t count = n;
    MPI_Bcast(&count, 1, MPI_UINT64_T, 0, e->comm);
    if (e->rank != 0 && !(w = malloc((size_t)count * sizeof *w)))
        err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory for the "
                              "snapshot's manifest");
    err = ravel_comm_first_error(e->comm, err);
    if (err != MPI_SUCCESS) {
        free(w);
        return err;
    }
    MPI_Bcast(w, (int)count, MPI_UINT64_T, 0, e->comm);
    uint64_t program = program_hash(e);
    char where[4300];
    folder_of(where, sizeof where, e->resume_dir, (uint32_t)w[W_SEQ]);
    if (w[W_PROGRAM] != program)
        err = ravel_error_set(MPI_ERR_FILE, "%s/" MANIFEST ": written by "
                              "another program (its relations or rules "
                              "differ from this one's)", where);
    if (err == MPI_SUCCESS && w[W_STRATUM] > e->nstrata)
        err = ravel_error_set(MPI_ERR_FILE, "%s/" MANIFEST ": stratum %"
                              PRIu64 " of a program with %zu", where,
                              w[W_STRATUM], e->nstrata);
    /* Everything comes from the snapshot: the facts inserted for a fresh
     * run are dropped, and delta is what the snapshot says it is. */
    for (size_t i = 0; i < e->nrels; i++) {
        relation *r = &e->rels[i];
        tuple_buf_free(&r->pending);
        r->delta_is_full = w[W_ITERATION] == 0;
        if (r->kind != REL_DECLARED && r->active)
            r->populated = 0;
    }
    if (err == MPI_SUCCESS)
        err = outbox_ensure(e);
    for (uint64_t f = (uint64_t)e->rank; f < w[W_RANKS] && err == MPI_SUCCESS;
         f += (uint64_t)e->size)
        err = load_file(e, w, f, program);
    uint64_t moved = 0;
    err = balance_finish_moves(e, err, &moved);
    if (err == MPI_SUCCESS)
        err = balance_fill_derived(e, 0, 0, &moved);
    if (err == MPI_SUCCESS) {
        *stratum = (uint32_t)w[W_STRATUM];
        *iteration = (uint32_t)w[W_ITERATION];
        for (size_t s = 0; s < *stratum; s++)
            e->strata[s].done = 1;
        e->iterations = w[W_ITERATIONS];
        e->productive = w[W_PRODUCTIVE];
        if (!e->opt.quiet && e->rank == 0)
            ravel_log(RAVEL_LOG_INFO, "resumed from %s: stratum %" PRIu32
                      " after iteration %" PRIu32 " (%" PRIu64 " ranks "
                      "then, %d now)", where, *stratum, *iteration,
                      w[W_RANKS], e->size);
    }
    free(w);
    return err;
}
