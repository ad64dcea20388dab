/* The engine object: creation on a communicator, declarations of relations
 * and indexes, buffered fact insertion, and the local queries. */
#include "relalg_internal.h"

#include "ravel/error.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ravel_engine_options_init(ravel_engine_options *o)
{
    memset(o, 0, sizeof *o);
    o->comm_backend = "vendor";
    o->load_balance = 1;
    o->discover_counts = 1;
    o->pack_into_outboxes = 1;
    o->sub_buckets = 1;
    o->balance_factor = 4.0;
    o->balance_min_tuples = 65536;
    o->pack_min_tuples = (uint64_t)1 << 20;
    o->checkpoint_every = 600.0;
}

int ravel_engine_create(MPI_Comm comm, const ravel_engine_options *o,
                        ravel_engine **out)
{
    ravel_engine_options defaults;
    if (!o) {
        ravel_engine_options_init(&defaults);
        o = &defaults;
    }
    const char *backend = o->comm_backend ? o->comm_backend : "vendor";
    ravel_alltoallv_fn fn = ravel_alltoallv_lookup(backend);
    if (!fn) /* the registry's message says why */
        return MPI_ERR_ARG;
    if (strlen(backend) >= sizeof ((ravel_engine *)0)->backend_name)
        return ravel_error_set(MPI_ERR_ARG, "backend name too long");
    if (!(o->balance_factor > 0.0))
        return ravel_error_set(MPI_ERR_ARG,
                               "balance_factor = %g must be positive",
                               o->balance_factor);
    if (!(o->checkpoint_every >= 0.0))
        return ravel_error_set(MPI_ERR_ARG, "checkpoint_every = %g seconds "
                               "must be at least 0", o->checkpoint_every);
    ravel_engine *e = calloc(1, sizeof *e);
    if (!e)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for an "
                               "engine");
    int err = MPI_Comm_dup(comm, &e->comm);
    if (err != MPI_SUCCESS) {
        free(e);
        return err;
    }
    e->record_op = MPI_OP_NULL;
    ravel_wait_mode mode; /* made collectively now, not on first wait */
    err = ravel_comm_wait_mode(e->comm, &mode);
    if (err != MPI_SUCCESS) {
        MPI_Comm_free(&e->comm);
        free(e);
        return err;
    }
    MPI_Comm_rank(e->comm, &e->rank);
    MPI_Comm_size(e->comm, &e->size);
    e->opt = *o;
    strcpy(e->backend_name, backend);
    e->opt.comm_backend = e->backend_name;
    e->opt.log_path = NULL; /* the caller's string need not outlive create */
    e->alltoallv = fn;
    for (size_t i = 0; i < ravel_alltoallv_count(); i++)
        if (strcmp(ravel_alltoallv_name(i), backend) == 0)
            e->backend_index = (int)i;
    e->backend_is_auto = fn == ravel_alltoallv_auto;
    e->buckets = o->buckets ? o->buckets : 64 * (uint64_t)e->size;
    e->seed_sub = o->seed ^ 0x9e3779b97f4a7c15ull;
    /* Without it placement is slower, not wrong. */
    e->bucket_memo = calloc(BUCKET_MEMO_SIZE, sizeof *e->bucket_memo);
    uint64_t safe = (uint64_t)INT_MAX / 8 / (uint64_t)e->size;
    if (e->opt.max_block_elements == 0 || e->opt.max_block_elements > safe)
        e->opt.max_block_elements = safe;
    if (e->opt.max_block_elements < 3)
        e->opt.max_block_elements = 3;
    uint64_t limit = o->max_memory;
    if (limit == 0)
        err = budget_default(e->comm, &limit);
    budget_set_limit(limit == UINT64_MAX ? 0 : limit);
    e->opt.max_memory = limit;
    /* The caller's strings need not outlive create. */
    e->opt.checkpoint_dir = e->opt.resume_dir = NULL;
    if (err == MPI_SUCCESS && o->checkpoint_dir &&
        !(e->checkpoint_dir = strdup(o->checkpoint_dir)))
        err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory");
    if (err == MPI_SUCCESS && o->resume_dir &&
        !(e->resume_dir = strdup(o->resume_dir)))
        err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory");
    e->opt.log_path = o->log_path;
    if (err == MPI_SUCCESS)
        err = log_open(e);
    e->opt.log_path = NULL;
    e->opt.model_path = NULL;
    /* Every rank loads the model (a bad one is an error, never ignored). */
    int model_err = ravel_comm_use_model_file(o->model_path);
    const ravel_cost_params *model;
    if (model_err == MPI_SUCCESS)
        model_err = ravel_comm_model(&model, NULL);
    if (err == MPI_SUCCESS)
        err = model_err;
    if (err == MPI_SUCCESS && o->discover_counts)
        err = ravel_exchange_create(e->comm, backend, &e->exchange);
    /* Every rank learns whether rank 0 could open the log, whether every
     * rank has a model, and whether every rank has its exchange. */
    int bad = err != MPI_SUCCESS, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, e->comm);
    if (any) {
        ravel_engine_free(e);
        return err != MPI_SUCCESS
                   ? err
                   : ravel_error_set(MPI_ERR_FILE, "another rank could not "
                                     "open the log file or load the cost "
                                     "model");
    }
    *out = e;
    return MPI_SUCCESS;
}

relation *relation_slot(ravel_engine *e)
{
    if (e->nrels == e->caprels) {
        size_t cap = e->caprels ? 2 * e->caprels : 8;
        relation *grown = realloc(e->rels, cap * sizeof *grown);
        if (!grown) {
            ravel_error_set(MPI_ERR_NO_MEM, "out of memory for %zu "
                            "relations", cap);
            return NULL;
        }
        e->rels = grown;
        e->caprels = cap;
    }
    relation *r = &e->rels[e->nrels];
    memset(r, 0, sizeof *r);
    return r;
}

int relation_error(const relation *r, int err)
{
    if (err == MPI_SUCCESS)
        return err;
    const char *m = ravel_error_message();
    if (strncmp(m, "relation ", 9) == 0)
        return err; /* named already, by a deeper caller */
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", m);
    return ravel_error_set(err, "relation %s: %s", r->name, copy);
}

static void relation_free(relation *r)
{
    tuple_buf_free(&r->full);
    for (unsigned i = 0; i < r->nruns; i++)
        tuple_buf_free(&r->runs[i]);
    tuple_filter_free(&r->filter);
    packed_free(&r->packed);
    tuple_box_free(&r->bits);
    storage_free_delta(r);
    tuple_buf_free(&r->pending);
    tuple_buf_free(&r->incoming);
    tuple_buf_free(&r->incoming_checked);
    tuple_buf_free(&r->incoming_delta);
    packed_free(&r->incoming_packed);
    free(r->targets);
    free(r->subs);
    free(r->bucket_count);
}

void ravel_engine_free(ravel_engine *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->nrels; i++)
        relation_free(&e->rels[i]);
    free(e->rels);
    free(e->balance_scratch);
    free(e->bucket_memo);
    for (size_t s = 0; s < e->nstrata; s++) {
        for (size_t i = 0; i < e->strata[s].nrules; i++) {
            join_grouped_free(&e->strata[s].rules[i].grouped);
            free(e->strata[s].rules[i].terms);
            free(e->strata[s].rules[i].filters);
            free(e->strata[s].rules[i].exprs);
        }
        free(e->strata[s].rules);
    }
    free(e->strata);
    if (e->outbox) {
        for (size_t i = 0; i < e->outbox_slots * (size_t)e->size; i++) {
            tuple_buf_free(&e->outbox[i]);
            if (e->outbox_packed)
                packed_free(&e->outbox_packed[i]);
        }
        free(e->outbox);
    }
    free(e->outbox_packed);
    packed_release_spare_chunks();
    for (size_t i = 0; e->outbox_box && i < e->outbox_slots * (size_t)e->size;
         i++)
        outbox_box_free(&e->outbox_box[i]);
    free(e->outbox_box);
    free(e->records);
    free(e->checkpoint_dir);
    free(e->resume_dir);
    if (e->record_op != MPI_OP_NULL)
        MPI_Op_free(&e->record_op);
    if (e->log)
        fclose(e->log);
    ravel_exchange_free(e->exchange);
    MPI_Comm_free(&e->comm);
    free(e);
}

/* Appends a relation slot (zeroed) and returns its index, or -1. */
static int relation_add(ravel_engine *e, const char *name, rel_kind kind,
                        unsigned arity, unsigned key)
{
    if (!name || !*name || name[0] == '#' ||
        strlen(name) >= sizeof e->rels[0].name) {
        ravel_error_set(MPI_ERR_ARG, "relation name missing, longer "
                        "than 63 characters or starting with '#'");
        return -1;
    }
    if (arity < 1 || arity > RAVEL_MAX_ARITY || key < 1 || key > arity) {
        ravel_error_set(MPI_ERR_ARG, "relation %s: arity %u, key %u "
                        "(need 1 <= key <= arity <= %d)", name, arity, key,
                        RAVEL_MAX_ARITY);
        return -1;
    }
    ravel_rel dup;
    if (ravel_relation_find(e, name, &dup) == MPI_SUCCESS) {
        ravel_error_set(MPI_ERR_ARG, "relation %s declared twice",
                        name);
        return -1;
    }
    ravel_error_clear();
    relation *r = relation_slot(e);
    if (!r)
        return -1;
    strcpy(r->name, name);
    r->kind = kind;
    r->arity = arity;
    r->key = key;
    r->base = (int)e->nrels;
    r->layout = (int)e->nrels;
    r->active = 1;
    r->populated = 1;
    for (unsigned i = 0; i < arity; i++)
        r->perm[i] = i;
    if (placement_alloc_layout(e, r) != MPI_SUCCESS) {
        relation_free(r);
        return -1;
    }
    return (int)e->nrels++;
}

int relation_add_hidden(ravel_engine *e, const char *name, unsigned arity,
                        unsigned key)
{
    /* '#' first: no declared relation can have the name. */
    char hidden[sizeof e->rels[0].name];
    snprintf(hidden, sizeof hidden, "x%s", name);
    int id = relation_add(e, hidden, REL_DECLARED, arity, key);
    if (id >= 0)
        e->rels[id].name[0] = '#';
    return id;
}

int ravel_relation_declare(ravel_engine *e, const char *name, unsigned arity,
                           unsigned key_columns, ravel_rel *out)
{
    int id = relation_add(e, name, REL_DECLARED, arity, key_columns);
    if (id < 0)
        return MPI_ERR_ARG;
    *out = id;
    return MPI_SUCCESS;
}

int ravel_relation_index(ravel_engine *e, ravel_rel base, const char *name,
                         unsigned nkey, const unsigned *key_cols,
                         ravel_rel *out)
{
    if (base < 0 || (size_t)base >= e->nrels ||
        e->rels[base].kind != REL_DECLARED)
        return ravel_error_set(MPI_ERR_ARG, "index %s: base %d is not "
                               "a declared relation", name ? name : "?", base);
    unsigned arity = e->rels[base].arity;
    int used[RAVEL_MAX_ARITY] = {0};
    for (unsigned i = 0; i < nkey && i < arity; i++) {
        if (key_cols[i] >= arity || used[key_cols[i]])
            return ravel_error_set(MPI_ERR_ARG, "index %s: key column "
                                   "%u is out of range or repeated",
                                   name ? name : "?", key_cols[i]);
        used[key_cols[i]] = 1;
    }
    int id = relation_add(e, name, REL_INDEX, arity, nkey);
    if (id < 0)
        return MPI_ERR_ARG;
    relation *r = &e->rels[id];
    unsigned w = 0;
    for (unsigned i = 0; i < nkey; i++)
        r->perm[w++] = key_cols[i];
    for (unsigned c = 0; c < arity; c++)
        if (!used[c])
            r->perm[w++] = c;
    r->base = base;
    /* Filled at the next flush: an empty base on this rank says nothing
     * about the others, and filling is idempotent. */
    r->populated = 0;
    *out = id;
    return MPI_SUCCESS;
}

int ravel_relation_find(const ravel_engine *e, const char *name,
                        ravel_rel *out)
{
    for (size_t i = 0; i < e->nrels; i++) {
        if (strcmp(e->rels[i].name, name) == 0) {
            *out = (ravel_rel)i;
            return MPI_SUCCESS;
        }
    }
    return ravel_error_set(MPI_ERR_ARG, "no relation named '%s'",
                           name);
}

unsigned ravel_relation_arity(const ravel_engine *e, ravel_rel r)
{
    return e->rels[r].arity;
}

unsigned ravel_relation_key_columns(const ravel_engine *e, ravel_rel r)
{
    return e->rels[r].key;
}

const char *ravel_relation_name(const ravel_engine *e, ravel_rel r)
{
    return e->rels[r].name;
}

int ravel_insert(ravel_engine *e, ravel_rel r, const uint64_t *tuples,
                 size_t n)
{
    if (r < 0 || (size_t)r >= e->nrels || e->rels[r].kind != REL_DECLARED)
        return ravel_error_set(MPI_ERR_ARG, "insert into relation %d, "
                               "which is not a declared relation", r);
    return relation_error(&e->rels[r],
                          tuple_buf_append(&e->rels[r].pending,
                                           e->rels[r].arity, tuples, n));
}

int ravel_relation_local(ravel_engine *e, ravel_rel r,
                         const uint64_t **tuples, size_t *n)
{
    int err = storage_unpack(&e->rels[r]);
    *tuples = err == MPI_SUCCESS ? e->rels[r].full.data : NULL;
    *n = err == MPI_SUCCESS ? e->rels[r].full.n : 0;
    return err;
}

int ravel_relation_visit(ravel_engine *e, ravel_rel r, ravel_visit_fn visit,
                         void *arg)
{
    return storage_visit(&e->rels[r], visit, arg);
}

int ravel_relation_size(ravel_engine *e, ravel_rel r, uint64_t *out)
{
    uint64_t local = storage_full_count(&e->rels[r]);
    return ravel_comm_allreduce(&local, out, 1, MPI_UINT64_T, MPI_SUM,
                                e->comm);
}

void ravel_engine_set_iteration_hook(ravel_engine *e, ravel_iteration_hook fn,
                                     void *arg)
{
    e->hook = fn;
    e->hook_arg = arg;
}

const ravel_iteration_record *ravel_engine_records(const ravel_engine *e,
                                                   size_t *n)
{
    *n = e->nrecords;
    return e->records;
}

uint64_t ravel_engine_iterations(const ravel_engine *e)
{
    return e->iterations;
}

uint64_t ravel_engine_productive_iterations(const ravel_engine *e)
{
    return e->productive;
}

double ravel_engine_move_seconds(const ravel_engine *e)
{
    return e->move_seconds;
}
