/* The block-size distributions of ravel-a2a (see a2a_dist.h). */
#include "a2a_dist.h"

#include <ravel/error.h>
#include <ravel/file_open.h>
#include <ravel/options.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t a2a_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* An independent random word for each (seed, src, dst, draw). */
static uint64_t draw(uint64_t seed, int src, int dst, uint64_t k)
{
    uint64_t h = a2a_mix(seed ^ 0x5851f42d4c957f2dull);
    h = a2a_mix(h ^ (uint64_t)(unsigned)src);
    h = a2a_mix(h ^ ((uint64_t)(unsigned)dst << 1));
    return a2a_mix(h ^ (k << 2));
}

/* A uniform double in (0, 1): 53 random bits, never 0. */
static double unit(uint64_t word)
{
    return ((double)(word >> 11) + 0.5) / 9007199254740992.0;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Position of dst in src's shuffled order: (a*dst + b) mod P with a coprime
 * to P, a bijection of the ranks drawn per sender. */
static uint64_t shuffled_position(uint64_t seed, int P, int src, int dst)
{
    uint64_t p = (uint64_t)P;
    uint64_t a = draw(seed, src, -1, 0) % p, b = draw(seed, src, -1, 1) % p;
    while (gcd(a, p) != 1)
        a = (a + 1) % p;
    return (a * (uint64_t)dst + b) % p;
}

static uint64_t normal_block(uint64_t seed, uint64_t max, int src, int dst)
{
    /* Box-Muller; a draw beyond 3 sigma is redrawn (a windowed normal). */
    for (uint64_t k = 0;; k += 2) {
        double u1 = unit(draw(seed, src, dst, k));
        double u2 = unit(draw(seed, src, dst, k + 1));
        double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
        if (z >= -3.0 && z <= 3.0)
            return (uint64_t)llround((z + 3.0) / 6.0 * (double)max);
    }
}

uint64_t a2a_dist_block(const a2a_dist *dist, uint64_t seed,
                        uint64_t max_elems, int P, int src, int dst)
{
    switch (dist->kind) {
    case A2A_DIST_UNIFORM:
        return draw(seed, src, dst, 0) % (max_elems + 1);
    case A2A_DIST_RANGE: {
        uint64_t width =
            (uint64_t)floor((double)max_elems * dist->range_percent / 100.0);
        return max_elems - width + draw(seed, src, dst, 0) % (width + 1);
    }
    case A2A_DIST_NORMAL:
        return normal_block(seed, max_elems, src, dst);
    case A2A_DIST_POWER_LAW: {
        double k = (double)shuffled_position(seed, P, src, dst);
        return (uint64_t)floor((double)max_elems * pow(dist->base, k));
    }
    case A2A_DIST_FILE:
        return dist->matrix[(size_t)src * (size_t)P + (size_t)dst];
    }
    return 0;
}

static int parse_fraction(const char *text, double lo_excl, double hi,
                          double *out)
{
    double v;
    if (ravel_parse_double(text, &v) || !(v > lo_excl) || v > hi)
        return -1;
    *out = v;
    return 0;
}

int a2a_dist_parse(const char *text, a2a_dist *dist, char *err, size_t errlen)
{
    memset(dist, 0, sizeof *dist);
    if (strcmp(text, "uniform") == 0) {
        dist->kind = A2A_DIST_UNIFORM;
    } else if (strcmp(text, "normal") == 0) {
        dist->kind = A2A_DIST_NORMAL;
    } else if (strncmp(text, "range:", 6) == 0) {
        dist->kind = A2A_DIST_RANGE;
        if (parse_fraction(text + 6, 0.0, 100.0, &dist->range_percent)) {
            snprintf(err, errlen,
                     "--dist=%s: R must be a number in (0, 100]", text);
            return -1;
        }
    } else if (strncmp(text, "power-law:", 10) == 0) {
        dist->kind = A2A_DIST_POWER_LAW;
        if (parse_fraction(text + 10, 0.0, 1.0, &dist->base)) {
            snprintf(err, errlen,
                     "--dist=%s: B must be a number in (0, 1]", text);
            return -1;
        }
    } else if (strncmp(text, "file:", 5) == 0 && text[5] != '\0') {
        dist->kind = A2A_DIST_FILE;
        dist->path = text + 5;
    } else {
        snprintf(err, errlen,
                 "--dist=%s is not one of uniform, range:R, normal, "
                 "power-law:B, file:PATH",
                 text);
        return -1;
    }
    return 0;
}

void a2a_dist_name(const a2a_dist *dist, char *buf, size_t buflen)
{
    switch (dist->kind) {
    case A2A_DIST_UNIFORM:
        snprintf(buf, buflen, "uniform");
        break;
    case A2A_DIST_RANGE:
        snprintf(buf, buflen, "range:%g", dist->range_percent);
        break;
    case A2A_DIST_NORMAL:
        snprintf(buf, buflen, "normal");
        break;
    case A2A_DIST_POWER_LAW:
        snprintf(buf, buflen, "power-law:%g", dist->base);
        break;
    case A2A_DIST_FILE:
        snprintf(buf, buflen, "file:%s", dist->path);
        break;
    }
}

/* Parses one row of the matrix: exactly P counts separated by blanks.
 * Returns 0, or -1 with the file, line and word at fault in err. */
static int parse_row(char *text, const a2a_dist *dist, size_t lineno, int P,
                     uint64_t *row, char *err, size_t errlen)
{
    int n = 0;
    char *save = NULL;
    for (char *word = strtok_r(text, " \t\r\n", &save); word;
         word = strtok_r(NULL, " \t\r\n", &save)) {
        uint64_t v;
        if (ravel_parse_u64(word, &v) || v > (uint64_t)INT32_MAX) {
            snprintf(err, errlen,
                     "%s:%zu: '%s' is not a count in [0, 2147483647]",
                     dist->path, lineno, word);
            return -1;
        }
        if (n == P) {
            snprintf(err, errlen, "%s:%zu: more than %d counts in a row",
                     dist->path, lineno, P);
            return -1;
        }
        row[n++] = v;
    }
    if (n != P) {
        snprintf(err, errlen, "%s:%zu: %d counts in a row; %d ranks need %d",
                 dist->path, lineno, n, P, P);
        return -1;
    }
    return 0;
}

static int is_blank_or_comment(const char *line)
{
    line += strspn(line, " \t\r\n");
    return *line == '\0' || *line == '#';
}

int a2a_dist_load(a2a_dist *dist, int P, char *err, size_t errlen)
{
    if (dist->kind != A2A_DIST_FILE)
        return 0;
    size_t cells = (size_t)P * (size_t)P, lineno = 0;
    int rows = 0, status = -1;
    char *line = NULL;
    size_t linecap = 0;
    FILE *f = ravel_fopen_regular(dist->path, "--dist=file:");
    if (!f) {
        snprintf(err, errlen, "%s", ravel_error_message());
        return -1;
    }
    dist->matrix = malloc(cells * sizeof *dist->matrix);
    if (!dist->matrix) {
        snprintf(err, errlen, "--dist=file:%s: out of memory for %zu counts",
                 dist->path, cells);
        goto fn_exit;
    }
    while (getline(&line, &linecap, f) != -1) {
        lineno++;
        if (is_blank_or_comment(line))
            continue;
        if (rows == P) {
            snprintf(err, errlen, "%s:%zu: more than %d rows (one per rank)",
                     dist->path, lineno, P);
            goto fn_exit;
        }
        if (parse_row(line, dist, lineno, P,
                      dist->matrix + (size_t)rows * (size_t)P, err, errlen))
            goto fn_exit;
        rows++;
    }
    if (ferror(f)) { /* a directory reads as EISDIR, not as 0 rows */
        snprintf(err, errlen, "--dist=file:%s: cannot read: %s", dist->path,
                 strerror(errno));
        goto fn_exit;
    }
    if (rows != P) {
        snprintf(err, errlen, "%s: %d rows; %d ranks need %d", dist->path,
                 rows, P, P);
        goto fn_exit;
    }
    dist->matrix_ranks = P;
    status = 0;
fn_exit:
    if (status != 0) {
        free(dist->matrix);
        dist->matrix = NULL;
    }
    free(line);
    fclose(f);
    return status;
}

void a2a_dist_free(a2a_dist *dist)
{
    free(dist->matrix);
    dist->matrix = NULL;
}

uint64_t a2a_dist_matrix_max(const a2a_dist *dist)
{
    uint64_t max = 0;
    if (dist->kind == A2A_DIST_FILE && dist->matrix) {
        size_t cells = (size_t)dist->matrix_ranks * (size_t)dist->matrix_ranks;
        for (size_t i = 0; i < cells; i++)
            if (dist->matrix[i] > max)
                max = dist->matrix[i];
    }
    return max;
}
