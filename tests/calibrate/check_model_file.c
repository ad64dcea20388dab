/* check_model_file FILE RANKS [NODES]: the model ravel-calibrate wrote on
 * RANKS ranks spread evenly over NODES nodes (default 1) loads with
 * ravel_cost_model_load, and its figures are
 * plausible for any machine (wide bounds: this checks units and sign, not
 * speed; no assertion depends on timing).  Exits non-zero naming each
 * failure. */
#include <ravel/cost_model.h>
#include <ravel/error.h>
#include <ravel/json.h>
#include <ravel/options.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

static void check(int ok, const char *what, double value)
{
    if (!ok) {
        fprintf(stderr, "check_model_file: %s (value %g)\n", what, value);
        failures++;
    }
}

static void check_range(const char *name, double v, double lo, double hi)
{
    char what[160];
    snprintf(what, sizeof what, "%s must be finite and in [%g, %g]", name, lo,
             hi);
    check(isfinite(v) && v >= lo && v <= hi, what, v);
}

/* The member path a.b of the file's object, or NULL. */
static const ravel_json_value *member(const ravel_json_value *root,
                                      const char *a, const char *b)
{
    const ravel_json_value *v = ravel_json_get(root, a);
    return b ? ravel_json_get(v, b) : v;
}

static int is_true(const ravel_json_value *v)
{
    return v && v->kind == RAVEL_JSON_TRUE;
}

static void check_extras(const ravel_json_value *root, int ranks, int nodes)
{
    const ravel_json_value *r = member(root, "ranks", NULL);
    check(r && r->kind == RAVEL_JSON_NUMBER && r->number == ranks,
          "\"ranks\" must be the rank count", r ? r->number : -1);
    const ravel_json_value *n = member(root, "nodes", NULL);
    check(n && n->kind == RAVEL_JSON_NUMBER && n->number == nodes,
          "\"nodes\" must be the node count", n ? n->number : -1);
    /* With several nodes the partner must be on another one. */
    const ravel_json_value *method =
        member(member(root, "fit", NULL), "alpha_beta", "method");
    check(nodes == 1 || (method && method->kind == RAVEL_JSON_STRING &&
                         strstr(method->string, "different nodes")),
          "with several nodes, the ping-pong must cross nodes", nodes);
    const ravel_json_value *h = member(root, "host", NULL);
    check(h && h->kind == RAVEL_JSON_STRING && h->length > 0,
          "\"host\" must be a non-empty string", 0);
    /* alpha, beta and o need a partner; gamma never does. */
    int pair = ranks > 1;
    check(is_true(member(root, "measured", "alpha")) == pair,
          "measured.alpha must be true exactly when ranks > 1", pair);
    check(is_true(member(root, "measured", "beta")) == pair,
          "measured.beta must be true exactly when ranks > 1", pair);
    check(is_true(member(root, "measured", "o")) == pair,
          "measured.o must be true exactly when ranks > 1", pair);
    check(is_true(member(root, "measured", "gamma")),
          "measured.gamma must be true", 0);
    const char *fits[] = {"alpha_beta", "gamma", "o"};
    for (size_t i = 0; i < 3; i++) {
        const ravel_json_value *f = member(member(root, "fit", NULL),
                                           fits[i], "measured");
        check(f != NULL, "every fit must say whether it was measured", 0);
    }
    const ravel_json_value *res =
        member(member(root, "fit", NULL), "gamma", "max_rel_residual");
    check(res && res->kind == RAVEL_JSON_NUMBER && res->number >= 0,
          "fit.gamma.max_rel_residual must be a number >= 0",
          res ? res->number : -1);
}

int main(int argc, char **argv)
{
    int ranks, nodes = 1;
    if ((argc != 3 && argc != 4) || ravel_parse_int(argv[2], &ranks) ||
        ranks < 1 ||
        (argc == 4 && (ravel_parse_int(argv[3], &nodes) || nodes < 1))) {
        fprintf(stderr, "usage: check_model_file FILE RANKS [NODES]\n");
        return 2;
    }
    ravel_cost_params m;
    if (ravel_cost_model_load(argv[1], &m) != MPI_SUCCESS) {
        fprintf(stderr, "check_model_file: %s\n", ravel_error_message());
        return 1;
    }
    /* The lower bounds are physics (no message in 10 ns, no copy at a
     * TB/s); they catch a unit slip such as microseconds written as
     * seconds' worth of 1e-6.  The upper bounds are loose on purpose: on an
     * oversubscribed machine (load 10 on 2 cores while this was written) a
     * busy-polling ping-pong waits a scheduler time slice per message, and
     * alpha came out at 5.4 ms, every size alike.  That is what the machine
     * did, not a bug, and ravel-calibrate warns about it; a test that failed
     * on it would be a timing assertion. */
    check_range("alpha (s)", m.alpha, 1e-8, 1e-1);
    check_range("beta (s/B)", m.beta, 1e-13, 1e-6);
    check_range("gamma (s/B)", m.gamma, 1e-12, 1e-8);
    check_range("o (s)", m.o, 1e-10, 1e-2);
    /* fresh: a page fault costs no less than a copy of its page (1e-12 s/B
     * would fault 4 KiB in 4 ns) and no more than a millisecond. */
    check_range("fresh (s/B)", m.fresh, 1e-12, 2.5e-7);
    check(m.ranks_per_node == (ranks + nodes - 1) / nodes,
          "ranks_per_node must be the ranks of the largest node",
          m.ranks_per_node);
    ravel_json_value *root = NULL;
    if (ravel_json_read_file(argv[1], 1 << 20, &root) != MPI_SUCCESS) {
        fprintf(stderr, "check_model_file: %s\n", ravel_error_message());
        return 1;
    }
    check_extras(root, ranks, nodes);
    check(ravel_json_get(root, "fresh") != NULL,
          "the file must hold the measured \"fresh\" (else the built-in "
          "figure is read)", 0);
    ravel_json_free(root);
    if (failures == 0)
        printf("check_model_file: %s: alpha %.3g s, beta %.3g s/B, gamma "
               "%.3g s/B, o %.3g s, %d ranks per node: ok\n", argv[1],
               m.alpha, m.beta, m.gamma, m.o, m.ranks_per_node);
    return failures ? 1 : 0;
}
