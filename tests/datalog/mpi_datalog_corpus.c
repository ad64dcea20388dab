/* The corpus (corpus/NAME/program.dl with facts/ and expected/) through the
 * Datalog front end and the engine, in one MPI job per rank count: each
 * program with each backend named on the command line, its outputs
 * compared, sorted, with the files the independent oracle
 * (oracle/naive_eval.py) wrote, and its .printsize lines likewise.  A
 * program whose features (corpus/FEATURES.tsv) are not all evaluated yet
 * must be refused at load with "not supported".  One job for all programs:
 * an mpiexec per program and configuration would cost more than the
 * programs themselves.
 *
 * usage: mpiexec -n P mpi_datalog_corpus CORPUS_DIR BACKEND[,BACKEND...] */
#include <ravel/datalog.h>
#include <ravel/error.h>

#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What ravel-datalog evaluates today (datalog/README.md). */
static const char *const evaluated[] = {
    "join",    "multiway",    "constants",    "comparisons",
    "symbols", "inline_facts", "input_params", "unsigned",
    "printsize", "disjunction", "cartesian", "negation",
    "arithmetic_body", "arithmetic_head", "aggregate", "symbol_ordering"};

static int rank;

/* snprintf whose truncation ends the test: a path cut short would test
 * some other file. */
#define FORMAT(buf, ...)                                                    \
    do {                                                                    \
        int n_ = snprintf(buf, sizeof buf, __VA_ARGS__);                    \
        if (n_ < 0 || (size_t)n_ >= sizeof buf) {                           \
            fprintf(stderr, "datalog corpus: path too long\n");             \
            MPI_Abort(MPI_COMM_WORLD, 1);                                   \
        }                                                                   \
    } while (0)

static int fail(const char *name, const char *backend, const char *fmt,
                const char *detail)
{
    fprintf(stderr, "datalog corpus: %s (%s): ", name, backend);
    fprintf(stderr, fmt, detail);
    fprintf(stderr, "\n");
    return 1;
}

/* ---- files ------------------------------------------------------------------ */

typedef struct {
    char *text;
    size_t len, nlines;
    char **lines;
    size_t *lens;
} lines_of;


static int read_lines(const char *path, lines_of *out)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    out->text = malloc((size_t)n + 1);
    out->len = out->text ? fread(out->text, 1, (size_t)n, f) : 0;
    fclose(f);
    if (!out->text)
        return -1;
    size_t cap = 16;
    out->lines = malloc(cap * sizeof *out->lines);
    out->lens = malloc(cap * sizeof *out->lens);
    for (size_t at = 0; at < out->len;) {
        char *nl = memchr(out->text + at, '\n', out->len - at);
        size_t end = nl ? (size_t)(nl - out->text) : out->len;
        if (out->nlines == cap) {
            cap *= 2;
            out->lines = realloc(out->lines, cap * sizeof *out->lines);
            out->lens = realloc(out->lens, cap * sizeof *out->lens);
        }
        out->lines[out->nlines] = out->text + at;
        out->lens[out->nlines++] = end - at;
        at = end + 1;
    }
    return 0;
}

static void free_lines(lines_of *l)
{
    free(l->text);
    free(l->lines);
    free(l->lens);
}

/* Byte-wise order of lines (LC_ALL=C sort): index pairs sorted by a
 * comparison that sees the lengths. */
typedef struct {
    const char *s;
    size_t len;
} line;

static int by_bytes(const void *a, const void *b)
{
    const line *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->s, y->s, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

static line *sorted(const lines_of *l)
{
    line *v = malloc((l->nlines + 1) * sizeof *v);
    for (size_t i = 0; i < l->nlines; i++)
        v[i] = (line){l->lines[i], l->lens[i]};
    qsort(v, l->nlines, sizeof *v, by_bytes);
    return v;
}

/* 0 when the two files hold the same lines in any order. */
static int same_lines(const char *want_path, const char *got_path,
                      char *why, size_t whylen)
{
    lines_of want, got;
    if (read_lines(want_path, &want)) {
        snprintf(why, whylen, "cannot read %s", want_path);
        return 1;
    }
    if (read_lines(got_path, &got)) {
        free_lines(&want);
        snprintf(why, whylen, "no output %s", got_path);
        return 1;
    }
    int differ = want.nlines != got.nlines;
    if (differ)
        snprintf(why, whylen, "%zu lines, the oracle has %zu", got.nlines,
                 want.nlines);
    line *a = sorted(&want), *b = sorted(&got);
    for (size_t i = 0; !differ && i < want.nlines; i++)
        if (by_bytes(&a[i], &b[i])) {
            differ = 1;
            snprintf(why, whylen, "line '%.*s' where the oracle has '%.*s'",
                     (int)(b[i].len > 80 ? 80 : b[i].len), b[i].s,
                     (int)(a[i].len > 80 ? 80 : a[i].len), a[i].s);
        }
    free(a);
    free(b);
    free_lines(&want);
    free_lines(&got);
    return differ;
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    char p[4096];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            FORMAT(p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    closedir(d);
    return rmdir(dir);
}

/* ---- one program, one backend ------------------------------------------------ */

static int features_evaluated(const char *features)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", features);
    for (char *f = strtok(buf, ","); f; f = strtok(NULL, ",")) {
        int ok = 0;
        for (size_t i = 0; i < sizeof evaluated / sizeof *evaluated; i++)
            ok |= !strcmp(f, evaluated[i]);
        if (!ok)
            return 0;
    }
    return 1;
}

/* Rank 0's comparison of the outputs in out with expected/. */
static int compare_outputs(const char *name, const char *backend,
                           const char *dir, const char *out,
                           const char *sizes)
{
    char exp_dir[4096], want[4096], got[4096], why[512];
    int bad = 0;
    FORMAT(exp_dir, "%s/expected", dir);
    DIR *d = opendir(exp_dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".csv"))
            continue;
        FORMAT(want, "%s/%s", exp_dir, e->d_name);
        FORMAT(got, "%s/%s", out, e->d_name);
        if (same_lines(want, got, why, sizeof why)) {
            char msg[700];
            FORMAT(msg, "%s: %s", e->d_name, why);
            bad |= fail(name, backend, "%s", msg);
        }
    }
    if (d)
        closedir(d);
    d = opendir(out);
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        FORMAT(want, "%s/%s", exp_dir, e->d_name);
        if (access(want, F_OK))
            bad |= fail(name, backend, "wrote %s, which the oracle did not",
                        e->d_name);
    }
    if (d)
        closedir(d);
    FORMAT(want, "%s/printsize.txt", exp_dir);
    if (!access(want, F_OK) && same_lines(want, sizes, why, sizeof why))
        bad |= fail(name, backend, ".printsize: %s", why);
    return bad;
}

static int run_case(const char *dir, const char *name, const char *features,
                    const char *backend, const char *scratch)
{
    char program[4096], facts[4096], out[4096], sizes[4096];
    FORMAT(program, "%s/program.dl", dir);
    FORMAT(facts, "%s/facts", dir);
    FORMAT(out, "%s/out", scratch);
    FORMAT(sizes, "%s/printsize.txt", scratch);
    ravel_dl_program *p;
    int rc = ravel_dl_load(program, &p);
    if (!features_evaluated(features)) {
        if (!rc) {
            ravel_dl_free(p);
            return fail(name, backend, "uses %s (not all evaluated yet) but "
                        "was not refused", features);
        }
        if (!strstr(ravel_error_message(), "not supported"))
            return fail(name, backend, "refused without saying what is not "
                        "supported: %s", ravel_error_message());
        return 0;
    }
    if (rc)
        return fail(name, backend, "%s", ravel_error_message());
    if (rank == 0)
        mkdir(out, 0700);
    MPI_Barrier(MPI_COMM_WORLD);
    ravel_engine_options eo;
    ravel_engine_options_init(&eo);
    eo.comm_backend = backend;
    eo.quiet = 1;
    ravel_dl_run_options ro;
    ravel_dl_run_options_init(&ro);
    ro.fact_dir = is_dir(facts) ? facts : dir;
    ro.out_dir = out;
    FILE *size_file = rank == 0 ? fopen(sizes, "w") : NULL;
    ro.printsize_out = size_file ? size_file : stdout;
    rc = ravel_dl_run(p, MPI_COMM_WORLD, &eo, &ro);
    if (size_file)
        fclose(size_file);
    ravel_dl_free(p);
    int bad = rc ? fail(name, backend, "%s", ravel_error_message()) : 0;
    if (rank == 0) {
        if (!rc)
            bad |= compare_outputs(name, backend, dir, out, sizes);
        remove_tree(out);
        unlink(sizes);
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 3) {
        if (rank == 0)
            fprintf(stderr, "usage: mpi_datalog_corpus CORPUS_DIR "
                            "BACKEND[,BACKEND...]\n");
        MPI_Finalize();
        return 2;
    }
    /* One scratch folder, made by rank 0, named to all. */
    char scratch[4096] = "";
    if (rank == 0) {
        snprintf(scratch, sizeof scratch, "%s/ravel-dl-corpus-XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(scratch))
            scratch[0] = '\0';
    }
    MPI_Bcast(scratch, sizeof scratch, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!scratch[0]) {
        if (rank == 0)
            fprintf(stderr, "datalog corpus: cannot make a scratch folder\n");
        MPI_Finalize();
        return 1;
    }
    char features_path[4096];
    FORMAT(features_path, "%s/FEATURES.tsv", argv[1]);
    FILE *f = fopen(features_path, "r");
    int bad = 0, cases = 0;
    char row[2048];
    if (!f)
        bad = fail("FEATURES.tsv", "-", "cannot open %s", features_path);
    while (f && fgets(row, sizeof row, f)) {
        row[strcspn(row, "\r\n")] = '\0';
        char *tab = strchr(row, '\t');
        if (!tab || !strcmp(row, "name\tfeatures") || !strncmp(row, "name\t", 5))
            continue;
        *tab = '\0';
        char dir[4096], backends[256];
        FORMAT(dir, "%s/%s", argv[1], row);
        FORMAT(backends, "%s", argv[2]);
        char *save = NULL;
        for (char *b = strtok_r(backends, ",", &save); b;
             b = strtok_r(NULL, ",", &save)) {
            bad |= run_case(dir, row, tab + 1, b, scratch);
            cases++;
        }
    }
    if (f)
        fclose(f);
    if (rank == 0)
        rmdir(scratch);
    int any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("datalog corpus: %d cases, %s\n", cases,
               any ? "FAILED" : "all as the oracle's");
    MPI_Finalize();
    return any ? 1 : 0;
}
