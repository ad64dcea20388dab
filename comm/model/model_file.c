/* Model files: the machine parameters ravel-calibrate measured, as JSON.
 *
 *     {
 *       "format": "ravel-cost-model",
 *       "version": 1,
 *       "ravel_version": "0.1.0",
 *       "date": "2026-11-23T15:04:05Z",
 *       "alpha": 1.2e-06, "beta": 1e-10, "gamma": 8e-11, "o": 3e-07,
 *       "fresh": 6.7e-09, "ranks_per_node": 2,
 *       ... other members (the fit, the nodes, the host), ignored here
 *     }
 *
 * The loader is strict because a model that is silently wrong makes every
 * auto choice wrong with no visible symptom: any file it does not fully
 * understand is refused, with the file and the member (or line:column) at
 * fault, and the caller falls back on nothing implicitly.  Unknown members
 * are allowed so that later versions of ravel-calibrate can record more
 * about a fit without breaking older readers; anything that changes the
 * meaning of the four parameters must bump "version".  "fresh" came later
 * than the four and may be missing (a file written before it): the
 * built-in figure stands in for it, which only shm's growths are charged
 * with.
 *
 * The writer prints each parameter with the fewest digits (15 to 17, %.17g
 * at worst) that read back to the same double, so a file is both exact and
 * legible, and replaces the file atomically (write PATH.tmp, then rename), so that a
 * reader never sees half a model. */
#include "ravel/cost_model.h"

#include "ravel/error.h"
#include "ravel/json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef RAVEL_VERSION
#define RAVEL_VERSION "unknown"
#endif

#define MODEL_FORMAT "ravel-cost-model"
#define MODEL_VERSION 1
/* A model file is a few hundred bytes; anything this large is not one. */
#define MODEL_MAX_BYTES ((size_t)1 << 20)

/* The member `name` of the model object, which must be a number. */
static int get_number(const char *path, const ravel_json_value *root,
                      const char *name, const ravel_json_value **out)
{
    const ravel_json_value *v = ravel_json_get(root, name);
    if (!v)
        return ravel_error_set(MPI_ERR_ARG, "%s: missing member \"%s\"", path,
                               name);
    if (v->kind != RAVEL_JSON_NUMBER)
        return ravel_error_set(MPI_ERR_ARG, "%s:%d:%d: \"%s\" must be a "
                               "number, found %s", path, v->line, v->column,
                               name, ravel_json_kind_name(v->kind));
    *out = v;
    return MPI_SUCCESS;
}

/* A machine parameter: a finite number > 0. */
static int get_parameter(const char *path, const ravel_json_value *root,
                         const char *name, double *out)
{
    const ravel_json_value *v;
    int err = get_number(path, root, name, &v);
    if (err != MPI_SUCCESS)
        return err;
    if (!isfinite(v->number) || !(v->number > 0))
        return ravel_error_set(MPI_ERR_ARG, "%s:%d:%d: \"%s\" is %g; "
                               "expected a finite number > 0", path, v->line,
                               v->column, name, v->number);
    *out = v->number;
    return MPI_SUCCESS;
}

static int check_header(const char *path, const ravel_json_value *root)
{
    if (root->kind != RAVEL_JSON_OBJECT)
        return ravel_error_set(MPI_ERR_ARG, "%s:%d:%d: expected an object "
                               "(a ravel cost model), found %s", path,
                               root->line, root->column,
                               ravel_json_kind_name(root->kind));
    const ravel_json_value *format = ravel_json_get(root, "format");
    if (!format)
        return ravel_error_set(MPI_ERR_ARG, "%s: missing member \"format\" "
                               "(not a ravel cost model?)", path);
    if (format->kind != RAVEL_JSON_STRING ||
        strcmp(format->string, MODEL_FORMAT) != 0 ||
        format->length != strlen(MODEL_FORMAT))
        return ravel_error_set(MPI_ERR_ARG, "%s:%d:%d: \"format\" is %s%s%s; "
                               "expected \"" MODEL_FORMAT "\"", path,
                               format->line, format->column,
                               format->kind == RAVEL_JSON_STRING ? "\"" : "",
                               format->kind == RAVEL_JSON_STRING
                                   ? format->string
                                   : ravel_json_kind_name(format->kind),
                               format->kind == RAVEL_JSON_STRING ? "\"" : "");
    const ravel_json_value *version;
    int err = get_number(path, root, "version", &version);
    if (err != MPI_SUCCESS)
        return err;
    if (version->number != MODEL_VERSION)
        return ravel_error_set(MPI_ERR_ARG, "%s:%d:%d: \"version\" is %g; "
                               "this ravel reads version %d only", path,
                               version->line, version->column,
                               version->number, MODEL_VERSION);
    return MPI_SUCCESS;
}

static int get_ranks_per_node(const char *path, const ravel_json_value *root,
                              int *out)
{
    const ravel_json_value *v;
    int err = get_number(path, root, "ranks_per_node", &v);
    if (err != MPI_SUCCESS)
        return err;
    if (!(v->number >= 1 && v->number <= 1 << 30) ||
        v->number != floor(v->number))
        return ravel_error_set(MPI_ERR_ARG, "%s:%d:%d: \"ranks_per_node\" is "
                               "%g; expected a whole number >= 1", path,
                               v->line, v->column, v->number);
    *out = (int)v->number;
    return MPI_SUCCESS;
}

/* "fresh", or the built-in figure when the file has none. */
static int get_fresh(const char *path, const ravel_json_value *root,
                     double *out)
{
    if (ravel_json_get(root, "fresh"))
        return get_parameter(path, root, "fresh", out);
    ravel_cost_params d;
    ravel_cost_params_default(&d);
    *out = d.fresh;
    return MPI_SUCCESS;
}

int ravel_cost_model_load(const char *path, ravel_cost_params *m)
{
    ravel_json_value *root = NULL;
    ravel_cost_params read;
    int err;
    if (!path || !*path) {
        err = ravel_error_set(MPI_ERR_ARG, "no model file named");
        goto fn_exit;
    }
    err = ravel_json_read_file(path, MODEL_MAX_BYTES, &root);
    if (err == MPI_SUCCESS)
        err = check_header(path, root);
    if (err == MPI_SUCCESS)
        err = get_parameter(path, root, "alpha", &read.alpha);
    if (err == MPI_SUCCESS)
        err = get_parameter(path, root, "beta", &read.beta);
    if (err == MPI_SUCCESS)
        err = get_parameter(path, root, "gamma", &read.gamma);
    if (err == MPI_SUCCESS)
        err = get_parameter(path, root, "o", &read.o);
    if (err == MPI_SUCCESS)
        err = get_fresh(path, root, &read.fresh);
    if (err == MPI_SUCCESS)
        err = get_ranks_per_node(path, root, &read.ranks_per_node);
    if (err == MPI_SUCCESS)
        *m = read; /* all or nothing */
fn_exit:
    ravel_json_free(root);
    return err;
}

/* ---- writing ---------------------------------------------------------- */

static int check_params(const char *path, const ravel_cost_params *m)
{
    const struct {
        const char *name;
        double value;
    } p[] = {{"alpha", m->alpha}, {"beta", m->beta}, {"gamma", m->gamma},
             {"o", m->o}, {"fresh", m->fresh}};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        if (!isfinite(p[i].value) || !(p[i].value > 0))
            return ravel_error_set(MPI_ERR_ARG, "%s: not writing a model with "
                                   "%s = %g (must be finite and > 0)", path,
                                   p[i].name, p[i].value);
    if (m->ranks_per_node < 1)
        return ravel_error_set(MPI_ERR_ARG, "%s: not writing a model with "
                               "ranks_per_node = %d (must be >= 1)", path,
                               m->ranks_per_node);
    return MPI_SUCCESS;
}

/* x with the fewest significant digits that strtod reads back exactly. */
static void shortest_exact(double x, char out[32])
{
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(out, 32, "%.*g", digits, x);
        if (strtod(out, NULL) == x)
            return;
    }
}

/* The whole file in memory, so that it can be checked before it is written:
 * `extra` is inserted verbatim and may be wrong. */
static int format_model(const char *path, const ravel_cost_params *m,
                        const char *extra, char **text, size_t *length)
{
    char date[32] = "unknown";
    time_t now = time(NULL);
    struct tm utc;
    if (gmtime_r(&now, &utc))
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
    char a[32], b[32], g[32], o[32], fr[32];
    shortest_exact(m->alpha, a);
    shortest_exact(m->beta, b);
    shortest_exact(m->gamma, g);
    shortest_exact(m->o, o);
    shortest_exact(m->fresh, fr);
    FILE *out = open_memstream(text, length);
    if (!out)
        return ravel_error_set(MPI_ERR_NO_MEM, "%s: cannot format the model: "
                               "%s", path, strerror(errno));
    fprintf(out,
            "{\n  \"format\": \"" MODEL_FORMAT "\",\n  \"version\": %d,\n"
            "  \"ravel_version\": \"" RAVEL_VERSION "\",\n"
            "  \"date\": \"%s\",\n  \"alpha\": %s,\n  \"beta\": %s,\n"
            "  \"gamma\": %s,\n  \"o\": %s,\n  \"fresh\": %s,\n"
            "  \"ranks_per_node\": %d",
            MODEL_VERSION, date, a, b, g, o, fr, m->ranks_per_node);
    if (extra && *extra)
        fprintf(out, ",\n  %s", extra);
    fputs("\n}\n", out);
    int failed = ferror(out);
    if (fclose(out) != 0 || failed) {
        free(*text);
        *text = NULL;
        return ravel_error_set(MPI_ERR_NO_MEM, "%s: cannot format the model",
                               path);
    }
    return MPI_SUCCESS;
}

/* Writes text to path.tmp and renames it to path. */
static int write_atomically(const char *path, const char *text, size_t n)
{
    int err = MPI_SUCCESS;
    size_t len = strlen(path);
    char *tmp = malloc(len + 5);
    FILE *f = NULL;
    if (!tmp)
        return ravel_error_set(MPI_ERR_NO_MEM, "%s: out of memory", path);
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp", 5);
    f = fopen(tmp, "w");
    if (!f) {
        err = ravel_error_set(MPI_ERR_FILE, "%s: cannot write (creating %s: "
                              "%s)", path, tmp, strerror(errno));
        goto fn_exit;
    }
    int failed = fwrite(text, 1, n, f) != n;
    int saved = errno;
    if (fclose(f) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    if (failed) {
        err = ravel_error_set(MPI_ERR_FILE, "%s: cannot write %s: %s", path,
                              tmp, strerror(saved));
        remove(tmp);
        goto fn_exit;
    }
    if (rename(tmp, path) != 0) {
        err = ravel_error_set(MPI_ERR_FILE, "%s: cannot rename %s to it: %s",
                              path, tmp, strerror(errno));
        remove(tmp);
    }
fn_exit:
    free(tmp);
    return err;
}

int ravel_cost_model_save(const char *path, const ravel_cost_params *m,
                          const char *extra)
{
    char *text = NULL, why[256];
    size_t n = 0;
    ravel_json_value *check = NULL;
    int err;
    if (!path || !*path) {
        err = ravel_error_set(MPI_ERR_ARG, "no model file named");
        goto fn_exit;
    }
    err = check_params(path, m);
    if (err == MPI_SUCCESS)
        err = format_model(path, m, extra, &text, &n);
    if (err != MPI_SUCCESS)
        goto fn_exit;
    /* Never write a file the loader would refuse as malformed. */
    if (ravel_json_parse(text, n, &check, why, sizeof why) != 0) {
        err = ravel_error_set(MPI_ERR_ARG, "%s: not written: the extra "
                              "members make it invalid JSON (%s)", path, why);
        goto fn_exit;
    }
    err = write_atomically(path, text, n);
fn_exit:
    ravel_json_free(check);
    free(text);
    return err;
}
