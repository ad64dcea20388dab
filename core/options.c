/* Long-option parsing with strict value checks. */
#include "ravel/options.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int ravel_parse_u64(const char *text, uint64_t *out)
{
    if (!text || *text < '0' || *text > '9')
        return -1; /* strtoull would accept "-1" and leading blanks */
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end != '\0')
        return -1;
    *out = (uint64_t)v;
    return 0;
}

int ravel_parse_int(const char *text, int *out)
{
    if (!text || *text == '\0' || *text == ' ' || *text == '\t')
        return -1;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || *end != '\0' || v < INT_MIN || v > INT_MAX)
        return -1;
    *out = (int)v;
    return 0;
}

int ravel_parse_double(const char *text, double *out)
{
    if (!text || *text == '\0' || *text == ' ' || *text == '\t')
        return -1;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || *end != '\0' || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int ravel_parse_bytes(const char *text, uint64_t *out)
{
    if (!text || *text < '0' || *text > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno)
        return -1;
    static const char units[] = "KMGT";
    unsigned shift = 0;
    const char *u = *end ? strchr(units, *end == 'k' ? 'K' : *end) : NULL;
    if (u) {
        shift = 10 * (unsigned)(u - units + 1);
        end++;
        if (*end == 'i' && end[1] == 'B')
            end += 2;
        else if (*end == 'B')
            end++;
    } else if (*end == 'B') {
        end++;
    }
    if (*end != '\0' || (shift && v > (UINT64_MAX >> shift)))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

static const ravel_option *find_option(const ravel_option *options,
                                       size_t noptions, const char *name,
                                       size_t namelen)
{
    for (size_t i = 0; i < noptions; i++)
        if (strlen(options[i].name) == namelen &&
            strncmp(options[i].name, name, namelen) == 0)
            return &options[i];
    return NULL;
}

static int store_value(const ravel_option *opt, const char *value, char *err,
                       size_t errlen)
{
    int bad = 0;
    switch (opt->kind) {
    case RAVEL_OPT_FLAG:
        *(int *)opt->target = 1;
        break;
    case RAVEL_OPT_STRING:
        *(const char **)opt->target = value;
        break;
    case RAVEL_OPT_U64:
        bad = ravel_parse_u64(value, (uint64_t *)opt->target);
        break;
    case RAVEL_OPT_INT:
        bad = ravel_parse_int(value, (int *)opt->target);
        break;
    case RAVEL_OPT_DOUBLE:
        bad = ravel_parse_double(value, (double *)opt->target);
        break;
    case RAVEL_OPT_BYTES:
        bad = ravel_parse_bytes(value, (uint64_t *)opt->target);
        break;
    }
    if (bad) {
        static const char *const expected[] = {
            "no value", "a string", "a non-negative whole number",
            "a whole number", "a finite number",
            "a size (bytes, or a number with K, M, G or T)"};
        snprintf(err, errlen, "option --%s: '%s' is not %s", opt->name, value,
                 expected[opt->kind]);
        return -1;
    }
    return 0;
}

int ravel_options_parse(int argc, char **argv, const ravel_option *options,
                        size_t noptions, int *npositional, char *err,
                        size_t errlen)
{
    int npos = 0;
    int only_positional = 0;
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        if (only_positional || strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
            if (!only_positional && strcmp(arg, "--") == 0) {
                only_positional = 1;
                continue;
            }
            if (!only_positional && arg[0] == '-' && arg[1] != '\0') {
                snprintf(err, errlen,
                         "unknown option '%s' (options are --name or "
                         "--name=value; see --help)",
                         arg);
                return -1;
            }
            argv[1 + npos++] = arg;
            continue;
        }
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t namelen = eq ? (size_t)(eq - name) : strlen(name);
        const ravel_option *opt = find_option(options, noptions, name, namelen);
        if (!opt) {
            snprintf(err, errlen, "unknown option '--%.*s' (see --help)",
                     (int)namelen, name);
            return -1;
        }
        const char *value = NULL;
        if (opt->kind == RAVEL_OPT_FLAG) {
            if (eq) {
                snprintf(err, errlen, "option --%s takes no value (got '%s')",
                         opt->name, eq + 1);
                return -1;
            }
        } else if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            snprintf(err, errlen, "option --%s needs a value (%s)", opt->name,
                     opt->value_name ? opt->value_name : "VALUE");
            return -1;
        }
        if (store_value(opt, value, err, errlen))
            return -1;
    }
    *npositional = npos;
    return 0;
}

void ravel_options_print_help(FILE *out, const char *usage,
                              const char *description,
                              const ravel_option *options, size_t noptions)
{
    fprintf(out, "usage: %s\n", usage);
    if (description)
        fprintf(out, "\n%s\n", description);
    fprintf(out, "\noptions:\n");
    for (size_t i = 0; i < noptions; i++) {
        char left[64];
        if (options[i].kind == RAVEL_OPT_FLAG)
            snprintf(left, sizeof left, "--%s", options[i].name);
        else
            snprintf(left, sizeof left, "--%s=%s", options[i].name,
                     options[i].value_name ? options[i].value_name : "VALUE");
        fprintf(out, "  %-24s %s\n", left, options[i].help);
    }
}
