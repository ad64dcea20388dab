/* The command line of ravel-a2a (see a2a_config.h). */
#include "a2a_config.h"

#include <ravel/comm.h>
#include <ravel/error.h>
#include <ravel/options.h>

#include <string.h>

static const char *comm_text = "all,auto", *sizes_text =
    "16,32,64,128,256,512,1024,2048", *dist_text = "uniform",
                  *type_text = "double", *api_text = "alltoallv";

#define OPTION_COUNT 13
static void fill_options(ravel_option options[OPTION_COUNT], a2a_config *cfg)
{
    const ravel_option table[OPTION_COUNT] = {
        {"comm", RAVEL_OPT_STRING, &comm_text, "LIST",
         "backends, comma-separated (radix-bruck:R for radix R, "
         "two-level:NAME for NAME across nodes); 'all' "
         "in the list stands for every fixed one (default all,auto); "
         "'memcpy' is no exchange but each rank copying the bytes it "
         "sends once, the limit of an exchange through shared memory"},
        {"N", RAVEL_OPT_STRING, &sizes_text, "LIST",
         "largest block in bytes, comma-separated (default "
         "16,32,...,2048)"},
        {"iters", RAVEL_OPT_U64, &cfg->iters, "K",
         "timed calls per backend and N (default 20)"},
        {"warmup", RAVEL_OPT_U64, &cfg->warmup, "K",
         "untimed calls before them (default 100: the first calls "
         "of a process are slower, see bench/README.md)"},
        {"seed", RAVEL_OPT_U64, &cfg->seed, "S",
         "seed of the block sizes and contents (default 1)"},
        {"verify", RAVEL_OPT_FLAG, &cfg->verify, NULL,
         "check every result byte for byte against MPI_Alltoallv"},
        {"csv", RAVEL_OPT_STRING, &cfg->csv_path, "FILE",
         "append one row per backend and N (header if FILE is empty)"},
        {"dist", RAVEL_OPT_STRING, &dist_text, "D",
         "uniform | range:R | normal | power-law:B | file:PATH "
         "(default uniform)"},
        {"type", RAVEL_OPT_STRING, &type_text, "T",
         "double | byte: the element type (default double)"},
        {"model", RAVEL_OPT_STRING, &cfg->model_path, "FILE",
         "cost model for the predicted times and auto (ravel-calibrate; "
         "default $RAVEL_MODEL, else built-in)"},
        {"hint-stats", RAVEL_OPT_FLAG, &cfg->hint_stats, NULL,
         "tell auto each call's global statistics before the timed call, "
         "as a caller that exchanges counts first does (ravel's engine); "
         "its rows are labelled auto+hint"},
        {"api", RAVEL_OPT_STRING, &api_text, "FORM",
         "alltoallv | exchange | outbox: call the backends through "
         "MPI_Alltoallv's signature, or through ravel_exchange_run "
         "(receive counts discovered, arrivals read in place) on the send "
         "buffer as it is (rows NAME/exchange) or on outboxes the timed "
         "call first copies each block into, as a caller that writes its "
         "data there does (rows NAME/outbox; shm's lie in its shared "
         "window) (default alltoallv)"},
        {"help", RAVEL_OPT_FLAG, &cfg->help, NULL, "this text"},
    };
    memcpy(options, table, sizeof table);
}

void a2a_config_print_help(FILE *out)
{
    a2a_config dummy;
    memset(&dummy, 0, sizeof dummy);
    ravel_option options[OPTION_COUNT];
    fill_options(options, &dummy);
    ravel_options_print_help(
        out, "mpiexec -n P ravel-a2a [options]",
        "Times every alltoallv backend of ravel side by side on non-uniform\n"
        "blocks.  A call's time is the slowest rank's; the table and the CSV\n"
        "give the median and the median absolute deviation over the timed\n"
        "calls, with the messages and bytes each rank sent per call, and\n"
        "the cost model's predicted time with its relative error.",
        options, OPTION_COUNT);
}

/* Appends one backend (or, for "all", every fixed one: the registry's rows
 * but auto, which chooses among them); returns -1 with a message. */
static int add_backend(a2a_config *cfg, const char *name, char *err,
                       size_t errlen)
{
    int all = strcmp(name, "all") == 0;
    for (size_t i = 0; i < (all ? ravel_alltoallv_count() : 1); i++) {
        const char *b = all ? ravel_alltoallv_name(i) : name;
        if (all && strcmp(b, "auto") == 0)
            continue;
        if (cfg->nbackends == A2A_MAX_LIST) {
            snprintf(err, errlen, "--comm: more than %d backends",
                     A2A_MAX_LIST);
            return -1;
        }
        cfg->backends[cfg->nbackends++] = b;
    }
    return 0;
}

static int parse_backends(a2a_config *cfg, char *err, size_t errlen)
{
    if (strlen(comm_text) >= sizeof cfg->comm_list) {
        snprintf(err, errlen, "--comm: the list is longer than %zu characters",
                 sizeof cfg->comm_list - 1);
        return -1;
    }
    strcpy(cfg->comm_list, comm_text);
    /* Split at every comma by hand: strtok_r would skip the empty name in
     * "vendor,,vendor" (or a leading or trailing comma), which is a typo to
     * refuse, not to ignore. */
    for (char *name = cfg->comm_list;;) {
        char *comma = strchr(name, ',');
        if (comma)
            *comma = '\0';
        if (*name == '\0') {
            snprintf(err, errlen, "--comm=%s: backend name %zu is empty",
                     comm_text, cfg->nbackends + 1);
            return -1;
        }
        if (strcmp(name, "all") != 0 && strcmp(name, "memcpy") != 0 &&
            !ravel_alltoallv_lookup(name)) {
            snprintf(err, errlen, "--comm: %s; or all, or memcpy",
                     ravel_error_message());
            return -1;
        }
        if (add_backend(cfg, name, err, errlen) != 0)
            return -1;
        if (!comma)
            return 0;
        name = comma + 1;
    }
}

static int parse_sizes(a2a_config *cfg, char *err, size_t errlen)
{
    const char *p = sizes_text;
    for (;;) {
        char word[32];
        size_t len = strcspn(p, ",");
        uint64_t v;
        if (len == 0 || len >= sizeof word) {
            snprintf(err, errlen, "--N=%s: empty or overlong entry",
                     sizes_text);
            return -1;
        }
        memcpy(word, p, len);
        word[len] = '\0';
        if (ravel_parse_u64(word, &v) || v > (uint64_t)INT32_MAX) {
            snprintf(err, errlen,
                     "--N=%s: '%s' is not a byte count in [0, 2147483647]",
                     sizes_text, word);
            return -1;
        }
        if (cfg->nsizes == A2A_MAX_LIST) {
            snprintf(err, errlen, "--N: more than %d sizes", A2A_MAX_LIST);
            return -1;
        }
        cfg->sizes[cfg->nsizes++] = v;
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

int a2a_config_parse(int argc, char **argv, a2a_config *cfg, char *err,
                     size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->iters = 20;
    cfg->warmup = 100;
    cfg->seed = 1;
    ravel_option options[OPTION_COUNT];
    fill_options(options, cfg);
    int npositional = 0;
    if (ravel_options_parse(argc, argv, options, OPTION_COUNT,
                            &npositional, err, errlen))
        return -1;
    if (cfg->help)
        return 0;
    if (npositional > 0) {
        snprintf(err, errlen, "unexpected argument '%s' (see --help)",
                 argv[1]);
        return -1;
    }
    if (cfg->iters == 0 || cfg->iters > 1000000) {
        snprintf(err, errlen, "--iters=%llu: must be in [1, 1000000]",
                 (unsigned long long)cfg->iters);
        return -1;
    }
    if (cfg->warmup > 1000000) {
        snprintf(err, errlen, "--warmup=%llu: must be at most 1000000",
                 (unsigned long long)cfg->warmup);
        return -1;
    }
    if (strcmp(type_text, "double") == 0) {
        cfg->type = MPI_DOUBLE;
        cfg->elem_size = sizeof(double);
    } else if (strcmp(type_text, "byte") == 0) {
        cfg->type = MPI_BYTE;
        cfg->elem_size = 1;
    } else {
        snprintf(err, errlen, "--type=%s is not one of double, byte",
                 type_text);
        return -1;
    }
    cfg->type_name = type_text;
    if (strcmp(api_text, "exchange") == 0) {
        cfg->exchange_api = A2A_API_EXCHANGE;
    } else if (strcmp(api_text, "outbox") == 0) {
        cfg->exchange_api = A2A_API_OUTBOX;
    } else if (strcmp(api_text, "alltoallv") != 0) {
        snprintf(err, errlen, "--api=%s is not one of alltoallv, exchange, "
                 "outbox", api_text);
        return -1;
    }
    if (parse_backends(cfg, err, errlen) || parse_sizes(cfg, err, errlen))
        return -1;
    return a2a_dist_parse(dist_text, &cfg->dist, err, errlen);
}
