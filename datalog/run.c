/* A run: lower the plan onto a new engine, load the facts, evaluate, report
 * sizes, write the outputs.  Each local phase ends in an agreement, so that
 * a failure on any rank (a fact file one rank cannot open) stops every
 * rank at the same point with the same message, before the next
 * collective call. */
#include "dl_run.h"

#include <ravel/error.h>

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

void ravel_dl_run_options_init(ravel_dl_run_options *o)
{
    o->fact_dir = ".";
    o->out_dir = ".";
    o->printsize_out = stdout;
}

/* Every rank returns the code and message of the lowest failing rank. */
static int agree(MPI_Comm comm, int rank, int rc)
{
    int size, first;
    MPI_Comm_size(comm, &size);
    int mine = rc ? rank : size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == size)
        return MPI_SUCCESS;
    char msg[1024] = {0};
    int code = rc;
    if (rank == first)
        snprintf(msg, sizeof msg, "%s", ravel_error_message());
    MPI_Bcast(msg, sizeof msg, MPI_CHAR, first, comm);
    MPI_Bcast(&code, 1, MPI_INT, first, comm);
    return ravel_error_set(code, "%s", msg);
}

static int print_sizes(dl_run *r, FILE *out)
{
    for (size_t i = 0; i < r->p->relations.n; i++) {
        const dl_relation *rel = DL_REL(r->p, i);
        if (!rel->is_printsize)
            continue;
        uint64_t n;
        int rc = ravel_relation_size(r->e, r->rels[i], &n);
        if (rc)
            return rc;
        if (r->rank == 0)
            fprintf(out, "%s\t%llu\n", rel->name, (unsigned long long)n);
    }
    if (r->rank == 0)
        fflush(out);
    return 0;
}

/* Symbols order by their strings (filters RAVEL_ORD_*, dl_plan_filter's
 * by_text; dl_compare_text).  Every rank knows every string: it read the
 * program and every fact file whole, and no rule makes new strings. */
static int order_symbols(uint64_t a, uint64_t b, void *arg)
{
    const dl_symbols *s = arg;
    size_t la, lb;
    const char *ta = dl_symbols_text(s, a, &la);
    const char *tb = dl_symbols_text(s, b, &lb);
    if (!ta || !tb) /* not reached: every id came from the table */
        return a < b ? -1 : a > b;
    return dl_compare_text(ta, la, tb, lb);
}

int ravel_dl_run(const ravel_dl_program *p, MPI_Comm comm,
                 const ravel_engine_options *engine_options,
                 const ravel_dl_run_options *o)
{
    ravel_dl_run_options defaults;
    if (!o) {
        ravel_dl_run_options_init(&defaults);
        o = &defaults;
    }
    dl_run r = {.p = p};
    MPI_Comm_rank(comm, &r.rank);
    MPI_Comm_size(comm, &r.nranks);
    int rc = ravel_engine_create(comm, engine_options, &r.e);
    if (rc)
        return rc; /* collective: every rank failed alike */
    r.rels = calloc(p->plan_rels.n + 1, sizeof *r.rels);
    r.syms = dl_symbols_new();
    if (!r.rels || !r.syms)
        rc = ravel_error_set(MPI_ERR_NO_MEM, "datalog: out of memory");
    if (!rc) {
        ravel_engine_set_order(r.e, order_symbols, r.syms);
        rc = dl_lower(&r);
    }
    if (!rc)
        rc = dl_load_program_symbols(&r);
    if (!rc)
        rc = dl_load_facts(&r, o->fact_dir);
    rc = agree(comm, r.rank, rc);
    if (!rc)
        rc = ravel_run(r.e);
    if (!rc)
        rc = print_sizes(&r, o->printsize_out);
    int written = 0;
    if (!rc) {
        rc = dl_write_outputs(&r, comm, o->out_dir);
        written = 1;
    }
    if (written) {
        int frc = dl_finish_outputs(&r, o->out_dir, rc == 0);
        int brc = agree(comm, r.rank, frc);
        if (!rc)
            rc = brc;
    }
    dl_symbols_free(r.syms);
    free(r.rels);
    ravel_engine_free(r.e);
    return rc;
}
