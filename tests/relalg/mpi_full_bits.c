/* A relation's full held as the bits of its box (relalg/storage.c, "full
 * as bits"), against reachability computed here by a plain breadth-first
 * search.
 *
 * The closure is linear (path(x, z) :- path(x, y), edge(y, z)), so no rule
 * reads path's full and it may be held as bits.  The graph has three
 * parts: a dense random graph on small ids, whose closure fills its box
 * (bits taken), a chain of small ids out of it, and then a chain of ids a
 * million apart.  Paths start only with an edge out of the dense part
 * (path(x, y) :- start(x, y)), so the closure reaches the far ids late:
 * their paths fall far outside the box, which cannot widen that far, and
 * full is packed again mid-run and takes them packed.  The other runs
 * leave the far chain out: path is then bits to its stratum's end.  An iteration hook looks inside the
 * engine and the test fails unless both happened on some rank (a test
 * that never held bits would prove nothing).  A second stratum copies
 * path from its delta (at a stratum's start, delta is full: bits must be
 * packed again before rules read it) and from its full.  One variant
 * writes a snapshot after every iteration and a second engine resumes from
 * the last one; another is stopped by a memory limit and resumed, so that
 * a snapshot written while full is bits is read back.  Last, a relation
 * whose bits take 5 bytes a tuple must take them, while its full is flat
 * and once it is packed, and one whose bits take more than flat and span
 * more than twice its flat words must take them while flat, also when
 * full grew by half since they were refused, and one at more than twice
 * flat's bytes only while it grows fast (run_spread).
 * usage: mpiexec -n P mpi_relalg_full_bits */
#include "relalg_internal.h"
#include "relalg_test_util.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DENSE 48      /* ids 0 .. DENSE - 1, random edges */
#define NEAR 24       /* a chain of small ids after them */
#define FAR 12        /* then a chain of ids FAR_STEP apart */
#define NODES (DENSE + NEAR + FAR)
#define FAR_STEP UINT64_C(1000000)

/* reach: paths of any edges; want: those whose first edge is a start. */
static unsigned char edge[NODES][NODES], start[NODES][NODES];
static unsigned char reach[NODES][NODES], want[NODES][NODES];
static int failures;

/* The id of node i: the far chain's are a million apart. */
static uint64_t id_of(int i)
{
    return i < DENSE + NEAR ? (uint64_t)i
                            : FAR_STEP * (uint64_t)(i - DENSE - NEAR + 1);
}

static int node_of(uint64_t id)
{
    if (id < DENSE + NEAR)
        return (int)id;
    if (id % FAR_STEP || id / FAR_STEP > FAR)
        return -1;
    return (int)(id / FAR_STEP) - 1 + DENSE + NEAR;
}

/* The graph, with the far chain or without it (then path is bits to the
 * end of its stratum, and the later strata and snapshots meet bits). */
static void make_graph(int far)
{
    memset(edge, 0, sizeof edge);
    memset(start, 0, sizeof start);
    memset(reach, 0, sizeof reach);
    memset(want, 0, sizeof want);
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (int a = 0; a < DENSE; a++)
        for (int b = 0; b < DENSE; b++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            edge[a][b] = (s >> 33) % 16 == 0;
        }
    edge[DENSE - 1][DENSE] = 1;
    for (int i = DENSE; i + 1 < (far ? NODES : DENSE + NEAR); i++)
        edge[i][i + 1] = 1;
    for (int x = 0; x < DENSE; x++)
        for (int y = 0; y < DENSE + NEAR; y++)
            start[x][y] = edge[x][y];
    for (int x = 0; x < NODES; x++) {
        int queue[NODES], head = 0, tail = 0;
        for (int y = 0; y < NODES; y++)
            if (edge[x][y] && !reach[x][y])
                reach[x][y] = 1, queue[tail++] = y;
        while (head < tail) {
            int v = queue[head++];
            for (int y = 0; y < NODES; y++)
                if (edge[v][y] && !reach[x][y])
                    reach[x][y] = 1, queue[tail++] = y;
        }
    }
    for (int x = 0; x < NODES; x++)
        for (int v = 0; v < NODES; v++)
            if (start[x][v])
                for (int y = 0; y < NODES; y++)
                    want[x][y] |= v == y || reach[v][y];
}

/* What the hook saw of path on this rank. */
typedef struct {
    ravel_engine *e;
    ravel_rel path;
    int had_bits;        /* full was bits after some iteration */
    int packed_after;    /* and packed after a later one */
    int packed_before;   /* packed after an iteration before any bits */
} seen;

static void look_inside(const ravel_iteration_record *rec, void *arg)
{
    (void)rec;
    seen *s = arg;
    const relation *r = &s->e->rels[s->path];
    if (r->bits.slot)
        s->had_bits = 1;
    else if (s->had_bits && r->packed.n > 0)
        s->packed_after = 1;
    else if (r->packed.n > 0)
        s->packed_before = 1;
}

/* Gathers r's tuples, (y, x) for a path from x to y, at rank 0 and
 * compares them with want. */
static void compare(ravel_engine *e, ravel_rel r, const char *what,
                    const char *variant, int rank, int size)
{
    const uint64_t *t;
    size_t n;
    CHECK(ravel_relation_local(e, r, &t, &n));
    int total;
    uint64_t *all = gather_at_root(t, (int)(2 * n), MPI_UINT64_T,
                                   sizeof *t, rank, size, &total);
    if (rank == 0) {
        static unsigned char got[NODES][NODES];
        memset(got, 0, sizeof got);
        int bad = 0;
        for (int k = 0; k + 1 < total; k += 2) {
            int x = node_of(all[k + 1]), y = node_of(all[k]);
            if (x < 0 || y < 0 || got[x][y]++)
                bad = 1; /* not a node, or held twice */
        }
        if (!bad && memcmp(got, want, sizeof got) != 0)
            bad = 1;
        if (bad) {
            fprintf(stderr, "FAIL: %s, %s: %d tuples differ from the "
                    "search's\n", variant, what, total / 2);
            failures++;
        }
    }
    free(all);
}

/* Bits at more bytes a tuple than bits once took (storage.c,
 * bits_most_bytes): out(x, y) over rows x, `per_row` values y = every * k
 * + x % shift (k = 0 .. per_row - 1) each.
 * - "spread rows, flat": 96 rows of 32 values, one in 40 of the row's
 *   span, 5 bytes a tuple as bits (the rows' bits and their index), over
 *   the 4 a tuple that bits once were limited to; a copy of in, with
 *   pack_min_tuples leaving full flat.
 * - "spread rows, packed first": the same tuples, the first and last
 *   value of each row first (out(x, y) :- in(x, y): 82 bytes a tuple as
 *   bits, over three times flat's 16, refused even growing fast, and full
 *   packs), the rest an iteration later (mid(x, y) :- rest(x, y);
 *   out(x, y) :- mid(x, y)), then taken packed.
 * - "sparse rows, flat": 384 rows of 6 values 170 apart, 19 to 21 bytes a
 *   tuple as bits and, on 2 or 3 ranks (each holds a third or half of the
 *   rows its box spans), a span of 2.3 to 3.6 times the tuples' flat
 *   words: over flat and over twice the span, the limits of a packed full,
 *   under those of an all-flat one (storage.c, BITS_SPAN_FACTOR_FLAT).
 * - "sparse rows, flat, grown by half": 384 rows of 6 values 250 apart,
 *   four of each row first (41 bytes a tuple as bits, refused), the other
 *   two an iteration later (27 bytes): taken only if tried again at that
 *   growth, less than the doubling that retries a packed full.  Checked
 *   on 1 rank: on more, each rank's box spans rows it does not hold, and
 *   the span may refuse the bits.
 * - "sparser rows, flat, growing fast": 384 rows of 3 values 400 apart,
 *   all in one iteration: 36 to 38 bytes a tuple as bits, over twice
 *   flat and, on 2 ranks, a span of 4.3 times the tuples' flat words:
 *   taken only under the limits of a closure growing fast
 *   (BITS_SPAN_FACTOR_FAST, BITS_FLAT_BYTES_FACTOR_FAST).
 * - "sparser rows, flat, growing slowly": the same tuples, rows 360 on an
 *   iteration later (72 tuples beside 1,080, under an eighth), when full
 *   first reaches the tuples that bits are tried from: refused, as
 *   OL.cedge's are near its closure's end.  Checked on 1 rank, where the
 *   counts are known.
 * Each time bits must be taken on some rank (under an older rule they are
 * refused, and this fails), or refused where the run says so, and out
 * must hold every tuple once. */
typedef struct {
    const char *name;
    uint64_t keys, per_row, every, shift;
    uint64_t later;        /* bit k: value k of each row comes an iteration
                              later (rest), not first (in) */
    uint64_t later_rows;   /* rows from this one on come later (0: none) */
    int refused;           /* bits must never be taken */
    int packs_first;       /* full must pack before its bits */
    int most_ranks;        /* bits are checked on at most this many ranks
                              (0: on any number) */
    uint64_t pack_min;
    const char *bytes;     /* what bits take a tuple, for the message */
} spread;

static void run_spread(const spread *v, int rank, int size)
{
    ravel_engine_options o;
    ravel_engine_options_init(&o);
    o.comm_backend = "auto";
    o.quiet = 1;
    o.pack_min_tuples = v->pack_min;
    ravel_engine *e;
    CHECK(ravel_engine_create(MPI_COMM_WORLD, &o, &e));
    ravel_rel IN, REST, MID, OUT;
    CHECK(ravel_relation_declare(e, "in", 2, 1, &IN));
    CHECK(ravel_relation_declare(e, "rest", 2, 1, &REST));
    CHECK(ravel_relation_declare(e, "mid", 2, 1, &MID));
    CHECK(ravel_relation_declare(e, "out", 2, 1, &OUT));
    seen s = {e, OUT, 0, 0, 0};
    ravel_engine_set_iteration_hook(e, look_inside, &s);
    if (rank == 0)
        for (uint64_t x = 0; x < v->keys; x++)
            for (uint64_t k = 0; k < v->per_row; k++) {
                uint64_t t[2] = {x, v->every * k + x % v->shift};
                int later = (v->later >> k & 1) ||
                            (v->later_rows && x >= v->later_rows);
                CHECK(ravel_insert(e, later ? REST : IN, t, 1));
            }
    ravel_term same[2] = {ravel_col(0, 0), ravel_col(0, 1)};
    CHECK(ravel_stratum_begin(e));
    CHECK(ravel_rule_copy(e, OUT, (ravel_body){IN, RAVEL_DELTA}, same, 0,
                          NULL));
    CHECK(ravel_rule_copy(e, MID, (ravel_body){REST, RAVEL_DELTA}, same, 0,
                          NULL));
    CHECK(ravel_rule_copy(e, OUT, (ravel_body){MID, RAVEL_DELTA}, same, 0,
                          NULL));
    CHECK(ravel_run(e));
    int mine[2] = {s.had_bits, s.packed_before}, any[2];
    MPI_Allreduce(mine, any, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    const uint64_t *t;
    size_t n;
    CHECK(ravel_relation_local(e, OUT, &t, &n));
    int total;
    uint64_t *all = gather_at_root(t, (int)(2 * n), MPI_UINT64_T, sizeof *t,
                                   rank, size, &total);
    if (rank == 0) {
        unsigned char *got = calloc(v->keys * v->per_row, 1);
        int want = (int)(v->keys * v->per_row);
        int bad = !got || total != 2 * want;
        for (int i = 0; i + 1 < total && !bad; i += 2) {
            uint64_t x = all[i], y = all[i + 1];
            uint64_t k = y / v->every;
            bad = x >= v->keys || k >= v->per_row ||
                  y % v->every != x % v->shift || got[x * v->per_row + k]++;
        }
        free(got);
        if (bad) {
            fprintf(stderr, "FAIL: %s: out holds %d tuples, not each of "
                    "the %d once\n", v->name, total / 2, want);
            failures++;
        }
        int checked = !v->most_ranks || size <= v->most_ranks;
        if (checked && !v->refused && !any[0]) {
            fprintf(stderr, "FAIL: %s: full never taken as bits at %s "
                    "bytes a tuple\n", v->name, v->bytes);
            failures++;
        }
        if (checked && v->refused && any[0]) {
            fprintf(stderr, "FAIL: %s: full taken as bits at %s bytes a "
                    "tuple\n", v->name, v->bytes);
            failures++;
        }
        if (v->packs_first && !any[1]) {
            fprintf(stderr, "FAIL: %s: full never packed before its bits "
                    "(the test proves nothing)\n", v->name);
            failures++;
        }
    }
    free(all);
    ravel_engine_free(e);
}

/* One run; with limit (bytes a rank's tuples may hold) it must stop with
 * an error, and nothing is compared.  *s: what the hook saw. */
static void run(const char *variant, const char *ck, int resume,
                uint64_t limit, seen *s, int rank, int size)
{
    ravel_engine_options o;
    ravel_engine_options_init(&o);
    o.comm_backend = "auto";
    o.quiet = 1;
    /* Bits are tried from pack_min_tuples / 16 tuples: from the first. */
    o.pack_min_tuples = 16;
    o.checkpoint_dir = ck;
    o.checkpoint_every = 0;
    o.resume_dir = resume ? ck : NULL;
    o.max_memory = limit;
    ravel_engine *e;
    CHECK(ravel_engine_create(MPI_COMM_WORLD, &o, &e));
    ravel_rel E, S, P, FROM_DELTA, FROM_FULL;
    CHECK(ravel_relation_declare(e, "edge", 2, 1, &E));
    CHECK(ravel_relation_declare(e, "start", 2, 1, &S));
    CHECK(ravel_relation_declare(e, "path", 2, 1, &P));
    CHECK(ravel_relation_declare(e, "from_delta", 2, 1, &FROM_DELTA));
    CHECK(ravel_relation_declare(e, "from_full", 2, 1, &FROM_FULL));
    memset(s, 0, sizeof *s);
    s->e = e;
    s->path = P;
    ravel_engine_set_iteration_hook(e, look_inside, s);
    if (rank == 0) /* facts from one rank: the engine routes them */
        for (int x = 0; x < NODES; x++)
            for (int y = 0; y < NODES; y++) {
                uint64_t t[2] = {id_of(x), id_of(y)};
                if (edge[x][y])
                    CHECK(ravel_insert(e, E, t, 1));
                if (start[x][y])
                    CHECK(ravel_insert(e, S, t, 1));
            }
    /* path(x, y) :- start(x, y), held as (y, x) (as ravel-tc holds it). */
    ravel_term yx[2] = {ravel_col(0, 1), ravel_col(0, 0)};
    /* path(x, z) :- path(x, y), edge(y, z): (y, x) and (y, z) make (z, x). */
    ravel_term zx[2] = {ravel_col(1, 1), ravel_col(0, 1)};
    ravel_term same[2] = {ravel_col(0, 0), ravel_col(0, 1)};
    CHECK(ravel_stratum_begin(e));
    CHECK(ravel_rule_copy(e, P, (ravel_body){S, RAVEL_DELTA}, yx, 0, NULL));
    CHECK(ravel_rule_join(e, P, (ravel_body){P, RAVEL_DELTA},
                          (ravel_body){E, RAVEL_FULL}, zx, 0, NULL));
    CHECK(ravel_stratum_begin(e));
    CHECK(ravel_rule_copy(e, FROM_DELTA, (ravel_body){P, RAVEL_DELTA}, same,
                          0, NULL));
    CHECK(ravel_stratum_begin(e));
    CHECK(ravel_rule_copy(e, FROM_FULL, (ravel_body){P, RAVEL_FULL}, same, 0,
                          NULL));
    if (limit) {
        if (ravel_run(e) == MPI_SUCCESS) {
            fprintf(stderr, "FAIL: %s: no stop at %llu bytes\n", variant,
                    (unsigned long long)limit);
            failures++;
        }
        ravel_engine_free(e);
        return;
    }
    CHECK(ravel_run(e));
    compare(e, P, "path", variant, rank, size);
    compare(e, FROM_DELTA, "from_delta (copy at the stratum's start)",
            variant, rank, size);
    compare(e, FROM_FULL, "from_full (copy of full)", variant, rank, size);
    ravel_engine_free(e);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* First, so that the process's peak is this run's. */
    make_graph(0);
    seen s;
    int any[2];
    run("bits", NULL, 0, 0, &s, rank, size);
    MPI_Allreduce(&s.had_bits, &any[0], 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !any[0]) {
        fprintf(stderr, "FAIL: path was never held as bits without the "
                "far chain\n");
        failures++;
    }
    uint64_t held, peak, least;
    ravel_tuple_memory(&held, &peak);
    MPI_Allreduce(&peak, &least, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    make_graph(1);
    run("bits, then packed", NULL, 0, 0, &s, rank, size);
    int mine[2] = {s.had_bits, s.packed_after};
    MPI_Allreduce(mine, any, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !(any[0] && any[1])) {
        fprintf(stderr, "FAIL: path was %s as bits%s\n",
                any[0] ? "held" : "never held",
                any[0] && !any[1] ? ", never packed again" : "");
        failures++;
    }
    make_graph(0);
    char dir[] = "/tmp/ravel-full-bits-XXXXXX";
    make_scratch(dir, rank);
    run("bits, snapshots", dir, 0, 0, &s, rank, size);
    run("bits, resumed", dir, 1, 0, &s, rank, size);
    remove_scratch(dir, rank);
    char stop_dir[] = "/tmp/ravel-full-bits-XXXXXX";
    make_scratch(stop_dir, rank);
    run("bits, stopped by the limit", stop_dir, 0, least / 2, &s, rank,
        size);
    run("bits, resumed after the stop", stop_dir, 1, 0, &s, rank, size);
    remove_scratch(stop_dir, rank);
    /* Flat: bits tried from 512 tuples; full packed from 8,192, more than
     * a rank holds.  Packed first: bits tried from 2; full packed from 32,
     * fewer than the first part (192 tuples) holds on any of 3 ranks.
     * Growing slowly: bits tried from 1,100 tuples, more than the first
     * part (1,080); full packed from 17,600. */
    static const spread spreads[] = {
        {"spread rows, flat", 96, 32, 40, 40, 0, 0, 0, 0, 0, 8192, "5"},
        {"spread rows, packed first", 96, 32, 40, 40, 0x7FFFFFFE, 0, 0, 1, 0,
         32, "5"},
        {"sparse rows, flat", 384, 6, 170, 8, 0, 0, 0, 0, 0, 8192,
         "19 to 21"},
        {"sparse rows, flat, grown by half", 384, 6, 250, 8, 0x12, 0, 0, 0,
         1, 8192, "27"},
        {"sparser rows, flat, growing fast", 384, 3, 400, 8, 0, 0, 0, 0, 2,
         8192, "36 to 38"},
        {"sparser rows, flat, growing slowly", 384, 3, 400, 8, 0, 360, 1, 0,
         1, 17600, "36"},
    };
    for (size_t i = 0; i < sizeof spreads / sizeof *spreads; i++)
        run_spread(&spreads[i], rank, size);
    int bad = 0;
    MPI_Allreduce(&failures, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: full as bits, packed again mid-run, read by the next "
               "strata, through snapshots and a stop, taken while flat "
               "and packed, P=%d\n",
               bad ? "FAILED" : "ok", size);
    MPI_Finalize();
    return bad ? 1 : 0;
}
