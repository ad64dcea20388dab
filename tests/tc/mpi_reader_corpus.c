/* The graph reader against a corpus of small files written here: malformed
 * ones must fail on every rank with the same message, naming the file, the
 * line and what was expected; well-formed ones with the awkward corners of
 * the formats (CRLF, blank lines, comments, case, symmetric storage, values)
 * must yield exactly the edges listed by hand in this file.
 * usage: mpiexec -n P mpi_reader_corpus */
#include "graph_input.h"
#include "tc_test_util.h"

#include "ravel/error.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define BANNER "%%MatrixMarket matrix coordinate "
#define ANY_LINE ((unsigned long)-1)

typedef struct {
    const char *name;     /* file name in the corpus directory */
    const char *content;  /* NULL: generated below or absent */
    unsigned long line;   /* expected line in the message, 0: none,
                             ANY_LINE: some line */
    const char *expected; /* text the message must contain */
} bad_case;

static const bad_case bad_cases[] = {
    {"empty.mtx", "", 1, "expected the Matrix Market banner"},
    {"banner_only.mtx", BANNER "pattern general\n", 2,
     "expected the size line 'rows columns entries', found end of file"},
    {"no_banner.mtx", "3 3 1\n1 2\n", 1,
     "expected the Matrix Market banner '%%MatrixMarket matrix coordinate "
     "FIELD SYMMETRY', found '3 3 1'"},
    {"banner_typo.mtx", "%%MatrixMarkt matrix coordinate pattern general\n"
                        "3 3 0\n", 1, "expected the Matrix Market banner"},
    {"banner_short.mtx", BANNER "pattern\n3 3 0\n", 1,
     "expected 5 words in the banner"},
    {"vector.mtx", "%%MatrixMarket vector coordinate real general\n3 1\n", 1,
     "expected the object 'matrix' in the banner, found 'vector'"},
    {"array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
     1, "expected the format 'coordinate' in the banner"},
    {"bad_field.mtx", BANNER "double general\n3 3 0\n", 1,
     "expected the field pattern, integer, real or complex in the banner, "
     "found 'double'"},
    {"bad_symmetry.mtx", BANNER "pattern upper\n3 3 0\n", 1,
     "expected the symmetry general, symmetric, skew-symmetric or hermitian"},
    {"size_two_fields.mtx", BANNER "pattern general\n%c\n3 3\n", 3,
     "expected the size line 'rows columns entries' (three non-negative "
     "integers), found '3 3'"},
    {"size_negative.mtx", BANNER "pattern general\n3 -3 1\n1 1\n", 2,
     "found '3 -3 1'"},
    {"size_float.mtx", BANNER "pattern general\n3 3 1.0\n1 1\n", 2,
     "expected the size line"},
    {"index_text.mtx", BANNER "pattern general\n3 3 2\n1 2\n2 x\n", 4,
     "expected a column index in 1..3, found 'x'"},
    {"index_negative.mtx", BANNER "pattern general\n3 3 1\n-1 2\n", 3,
     "expected a row index in 1..3, found '-1'"},
    {"index_zero.mtx", BANNER "pattern general\n3 3 1\n0 2\n", 3,
     "expected a row index in 1..3, found '0' (Matrix Market indices start "
     "at 1"},
    {"index_float.mtx", BANNER "pattern general\n3 3 1\n1.0 2\n", 3,
     "expected a row index in 1..3, found '1.0'"},
    {"row_too_big.mtx", BANNER "pattern general\n3 3 1\n4 1\n", 3,
     "expected a row index in 1..3, found '4'"},
    {"column_too_big.mtx", BANNER "pattern general\n3 2 1\n1 3\n", 3,
     "expected a column index in 1..2, found '3'"},
    {"index_overflow.mtx",
     BANNER "pattern general\n3 3 1\n99999999999999999999 1\n", 3,
     "expected a row index in 1..3, found '99999999999999999999'"},
    {"extra_field.mtx", BANNER "pattern general\n3 3 1\n1 2 3\n", 3,
     "expected 2 fields 'row column' for a pattern matrix, found 3"},
    {"missing_value.mtx", BANNER "real general\n3 3 1\n1 2\n", 3,
     "expected 3 fields 'row column value' for a real matrix, found 2"},
    {"complex_short.mtx", BANNER "complex hermitian\n3 3 1\n2 1 1.0\n", 3,
     "expected 4 fields 'row column real imaginary'"},
    {"value_text.mtx", BANNER "real general\n3 3 2\n1 2 1.5\n2 3 abc\n", 4,
     "expected a real value in field 3, found 'abc'"},
    {"value_float_for_integer.mtx", BANNER "integer general\n3 3 1\n1 2 1.5\n",
     3, "expected an integer value in field 3, found '1.5'"},
    {"too_few.mtx", BANNER "pattern general\n3 3 3\n1 2\n2 3\n", 5,
     "expected 3 entries as the size line (line 2) declares, found 2 before "
     "the end of the file"},
    {"too_many.mtx", BANNER "pattern general\n%c\n3 3 2\n1 2\n\n2 3\n3 1\n",
     7, "expected 2 entries as the size line (line 3) declares, found more: "
        "this is entry 3"},
    {"edges_one_number.txt", "# comment\n1 2\n5\n3 4\n", 3,
     "expected two vertex ids 'source target', found 1 field: '5'"},
    {"edges_negative.txt", "1 2\n-3 4\n", 2,
     "expected a vertex id (an integer in 0..9223372036854775806), found "
     "'-3'"},
    /* Bytes a terminal does not show are escaped: a byte-order mark once
     * printed as "found '1'", and a control byte as nothing at all. */
    {"edges_bom.txt", "\xef\xbb\xbf" "1 2\n2 3\n", 1,
     "found '\\xef\\xbb\\xbf1'"},
    {"edges_control.txt", "1 2\n2\x01" "3\n", 2,
     "found 1 field: '2\\x013'"},
    {"truncated.mtx.gz", NULL, ANY_LINE, "expected the gzip stream to continue, "
                                  "found it truncated"},
    {"long_late_error.mtx", NULL, 4321, "expected a column index in 1..100, "
                                        "found 'oops'"},
    {"long_two_errors.mtx", NULL, 100, "expected a row index in 1..100, found "
                                       "'0'"},
    {"long_too_many.mtx", NULL, 5004, "found more: this is entry 5001"},
    {"missing.mtx", NULL, 0, "cannot open: No such file or directory"},
    {"a_directory", NULL, 0, "expected a regular file, found a directory"},
    /* Opening a FIFO once waited for a writer for ever. */
    {"a_fifo", NULL, 0, "expected a regular file, found a FIFO"},
    /* A NUL byte once ended the line silently: "1 2\0garbage" read as 1 2. */
    {"nul_edges.txt", NULL, 1, "expected text, found a NUL byte at column 4"},
    {"nul_entry.mtx", NULL, 4, "expected text, found a NUL byte at column 2"},
    {"nul_banner.mtx", NULL, 1, "expected text, found a NUL byte at column 15"},
    {"nul_long.mtx", NULL, 3001, "expected text, found a NUL byte at column 3"},
};

/* Files whose text holds a NUL byte (strlen cannot size them). */
static void write_nul_cases(const char *dir)
{
    static const char edges[] = "1 2\0garbage 99 99\n3 4\n";
    static const char entry[] = BANNER "pattern general\n3 3 2\n1 2\n2\0 3\n";
    static const char banner[] = "%%MatrixMarket\0 matrix coordinate pattern "
                                 "general\n3 3 0\n";
    const struct {
        const char *name, *text;
        size_t n;
    } files[] = {{"nul_edges.txt", edges, sizeof edges - 1},
                 {"nul_entry.mtx", entry, sizeof entry - 1},
                 {"nul_banner.mtx", banner, sizeof banner - 1}};
    char path[512];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        tc_write_file(path, files[i].text, files[i].n);
    }
}

/* Replaces byte `column` (1-based) of line `line` of the file with a NUL:
 * in a long file, the line lies in some rank's range but the first. */
static void put_nul(const char *path, unsigned long line, unsigned column)
{
    FILE *f = fopen(path, "r+b");
    if (!f)
        exit(2);
    unsigned long at = 1;
    long offset = 0;
    for (int c; at < line && (c = fgetc(f)) != EOF; offset++)
        if (c == '\n')
            at++;
    if (at != line || fseek(f, offset + (long)column - 1, SEEK_SET) != 0 ||
        fputc('\0', f) == EOF)
        exit(2);
    fclose(f);
}

/* 5000 entries of a 100 x 100 matrix; `bad` maps a line to its text. */
static void write_long(const char *path, unsigned long bad1, const char *text1,
                       unsigned long bad2, const char *text2, int extra)
{
    FILE *f = fopen(path, "w");
    if (!f)
        exit(2);
    fputs(BANNER "pattern general\n% generated\n100 100 5000\n", f);
    for (unsigned long line = 4; line < 5004 + (unsigned long)extra; line++) {
        if (line == bad1)
            fprintf(f, "%s\n", text1);
        else if (line == bad2)
            fprintf(f, "%s\n", text2);
        else
            fprintf(f, "%lu %lu\n", line % 100 + 1, line * 7 % 100 + 1);
    }
    fclose(f);
}

static void write_truncated_gz(const char *path)
{
    gzFile gz = gzopen(path, "wb");
    if (!gz)
        exit(2);
    gzputs(gz, BANNER "pattern general\n1000 1000 100000\n");
    for (unsigned i = 0; i < 100000; i++)
        gzprintf(gz, "%u %u\n", i % 1000 + 1, (i * 13) % 1000 + 1);
    gzclose(gz);
    FILE *f = fopen(path, "rb");
    char *bytes = malloc(1 << 20);
    size_t n = f && bytes ? fread(bytes, 1, 1 << 20, f) : 0;
    if (f)
        fclose(f);
    tc_write_file(path, bytes, n / 2); /* cut in the middle of the stream */
    free(bytes);
}

static void write_corpus(const char *dir)
{
    char path[512];
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, bad_cases[i].name);
        if (bad_cases[i].content)
            tc_write_file(path, bad_cases[i].content,
                          strlen(bad_cases[i].content));
    }
    snprintf(path, sizeof path, "%s/truncated.mtx.gz", dir);
    write_truncated_gz(path);
    snprintf(path, sizeof path, "%s/long_late_error.mtx", dir);
    write_long(path, 4321, "5 oops", 0, "", 0);
    snprintf(path, sizeof path, "%s/long_two_errors.mtx", dir);
    write_long(path, 100, "0 1", 4000, "x y", 0);
    snprintf(path, sizeof path, "%s/long_too_many.mtx", dir);
    write_long(path, 0, "", 0, "", 3);
    snprintf(path, sizeof path, "%s/nul_long.mtx", dir);
    write_long(path, 3001, "17 42", 0, "", 0);
    put_nul(path, 3001, 3);
    write_nul_cases(dir);
    snprintf(path, sizeof path, "%s/a_directory", dir);
    if (mkdir(path, 0700) != 0)
        exit(2);
    snprintf(path, sizeof path, "%s/a_fifo", dir);
    if (mkfifo(path, 0600) != 0)
        exit(2);
}

/* Checks that reading a bad case fails the same way on every rank. */
static void check_bad(const char *dir, const bad_case *c, MPI_Comm comm)
{
    char path[512], prefix[600], message[1024] = {0}, root_message[1024];
    snprintf(path, sizeof path, "%s/%s", dir, c->name);
    ravel_tc_graph g;
    int rc = ravel_tc_graph_read(path, NULL, comm, &g);
    TC_EXPECT(rc != MPI_SUCCESS, "%s: read succeeded", c->name);
    if (rc == MPI_SUCCESS) {
        ravel_tc_graph_free(&g);
        return;
    }
    TC_EXPECT(g.edges == NULL && g.nedges == 0, "%s: graph not empty",
              c->name);
    snprintf(message, sizeof message, "%s", ravel_error_message());
    memcpy(root_message, message, sizeof message);
    MPI_Bcast(root_message, (int)sizeof root_message, MPI_CHAR, 0, comm);
    TC_EXPECT(strcmp(message, root_message) == 0,
              "%s: ranks disagree:\n  '%s'\n  '%s'", c->name, message,
              root_message);
    int root_rc = rc;
    MPI_Bcast(&root_rc, 1, MPI_INT, 0, comm);
    TC_EXPECT(rc == root_rc, "%s: codes differ across ranks", c->name);

    if (c->line == 0)
        snprintf(prefix, sizeof prefix, "%s: ", path);
    else if (c->line == ANY_LINE)
        snprintf(prefix, sizeof prefix, "%s:", path);
    else
        snprintf(prefix, sizeof prefix, "%s:%lu: ", path, c->line);
    TC_EXPECT(strncmp(message, prefix, strlen(prefix)) == 0,
              "%s: message '%s' does not start with '%s'", c->name, message,
              prefix);
    if (c->line == ANY_LINE) {
        const char *p = message + strlen(prefix);
        size_t digits = strspn(p, "0123456789");
        TC_EXPECT(digits > 0 && p[digits] == ':',
                  "%s: no line number in '%s'", c->name, message);
    }
    TC_EXPECT(strstr(message, c->expected) != NULL,
              "%s: message '%s' lacks '%s'", c->name, message, c->expected);
}

typedef struct {
    const char *name;
    const char *content;
    ravel_tc_read_options options;
    uint64_t vertices, entries;
    size_t nedges;
    uint64_t edges[16]; /* the expected pairs, sorted */
} good_case;

static const good_case good_cases[] = {
    {"crlf_blank_case.mtx",
     "%%MatrixMarket MATRIX Coordinate Pattern GENERAL\r\n% c\r\n\r\n"
     "4 4 3\r\n1 2\r\n\r\n% late comment\r\n  2\t3  \r\n4 4\r\n\r\n",
     {0}, 4, 3, 3, {0, 1, 1, 2, 3, 3}},
    {"symmetric_stored.mtx", BANNER "pattern symmetric\n3 3 2\n2 1\n3 3\n",
     {0}, 3, 2, 2, {1, 0, 2, 2}},
    {"symmetric_both.mtx", BANNER "pattern symmetric\n3 3 2\n2 1\n3 3\n",
     {.symmetric = RAVEL_TC_SYMMETRIC_BOTH}, 3, 2, 3, {0, 1, 1, 0, 2, 2}},
    {"skew_both.mtx", BANNER "real skew-symmetric\n3 3 1\n3 1 -2.5e3\n",
     {.symmetric = RAVEL_TC_SYMMETRIC_BOTH}, 3, 1, 2, {0, 2, 2, 0}},
    {"hermitian_values.mtx",
     BANNER "complex hermitian\n2 2 2\n1 1 1.0 0\n2 1 -.5 +7E-2\n", {0}, 2, 2,
     2, {0, 0, 1, 0}},
    {"integer_duplicates.mtx",
     BANNER "integer general\n5 3 3\n5 1 -7\n5 1 +7\n1 1 0\n", {0}, 5, 3, 3,
     {0, 0, 4, 0, 4, 0}},
    {"no_final_newline.mtx", BANNER "pattern general\n2 2 1\n2 1", {0}, 2, 1,
     1, {1, 0}},
    {"zero_tolerant.mtx", BANNER "pattern general\n3 3 2\n0 3\n3 0\n",
     {.indices = RAVEL_TC_INDICES_ZERO_TOLERANT}, 4, 2, 2, {0, 3, 3, 0}},
    {"edges.txt", "# SNAP-style\n% other\n\n0\t7\n7 0\r\n  3 3\n", {0}, 8, 3, 3,
     {0, 7, 3, 3, 7, 0}},
    {"edges_forced.mtx", "1 2\n", {.format = RAVEL_TC_FORMAT_EDGE_LIST}, 3, 1,
     1, {1, 2}},
};

static void check_good(const char *dir, const good_case *c, MPI_Comm comm)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, c->name);
    ravel_tc_graph g;
    int rc = ravel_tc_graph_read(path, &c->options, comm, &g);
    TC_EXPECT(rc == MPI_SUCCESS, "%s: %s", c->name, ravel_error_message());
    if (rc != MPI_SUCCESS)
        return;
    TC_EXPECT(g.vertex_count == c->vertices, "%s: %llu vertices", c->name,
              (unsigned long long)g.vertex_count);
    TC_EXPECT(g.entries_read == c->entries, "%s: %llu entries", c->name,
              (unsigned long long)g.entries_read);
    TC_EXPECT(g.edges_total == c->nedges, "%s: %llu edges in total", c->name,
              (unsigned long long)g.edges_total);
    size_t n = 0;
    uint64_t *all = tc_gather_sorted(&g, comm, &n);
    if (all) {
        TC_EXPECT(n == c->nedges &&
                      memcmp(all, c->edges, 2 * n * sizeof(uint64_t)) == 0,
                  "%s: edges differ from the expected ones", c->name);
        free(all);
    }
    ravel_tc_graph_free(&g);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char dir[256] = {0};
    if (rank == 0) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/ravel_tc_corpus.XXXXXX",
                 tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            perror("mkdtemp");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        write_corpus(dir);
        char path[512];
        for (size_t i = 0; i < sizeof good_cases / sizeof good_cases[0]; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, good_cases[i].name);
            tc_write_file(path, good_cases[i].content,
                          strlen(good_cases[i].content));
        }
    }
    MPI_Bcast(dir, (int)sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);

    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++)
        check_bad(dir, &bad_cases[i], MPI_COMM_WORLD);
    for (size_t i = 0; i < sizeof good_cases / sizeof good_cases[0]; i++)
        check_good(dir, &good_cases[i], MPI_COMM_WORLD);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        char path[512];
        for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, bad_cases[i].name);
            remove(path);
        }
        for (size_t i = 0; i < sizeof good_cases / sizeof good_cases[0]; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, good_cases[i].name);
            remove(path);
        }
        remove(dir);
    }
    return tc_test_finish(argv[0]);
}
