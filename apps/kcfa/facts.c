/* Flattens a program's nodes into the Prog, Lam, App and Var tables. */
#include "kcfa_facts.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "ravel/error.h"
#include "ravel/memory.h"

static uint64_t *alloc_rows(size_t nrows, size_t arity)
{
    size_t n, bytes;
    if (ravel_mul_size(nrows, arity, &n) != 0 ||
        ravel_mul_size(n ? n : 1, sizeof(uint64_t), &bytes) != 0)
        return NULL;
    return malloc(bytes);
}

int ravel_kcfa_facts_build(const ravel_kcfa_program *prog,
                           ravel_kcfa_facts *out)
{
    memset(out, 0, sizeof *out);
    out->prog[0] = RAVEL_KCFA_TOP;
    out->lam = alloc_rows(prog->nlam, RAVEL_KCFA_LAM_ARITY);
    out->app = alloc_rows(prog->napp, RAVEL_KCFA_APP_ARITY);
    out->var = alloc_rows(prog->nref, RAVEL_KCFA_VAR_ARITY);
    if (!out->lam || !out->app || !out->var) {
        ravel_kcfa_facts_free(out);
        return ravel_error_set(MPI_ERR_NO_MEM,
                               "kcfa facts: out of memory for %zu nodes",
                               prog->nnodes);
    }
    for (size_t id = 0; id < prog->nnodes; id++) {
        const ravel_kcfa_node *n = &prog->nodes[id];
        uint64_t *row;
        switch (n->kind) {
        case RAVEL_KCFA_LAM:
            row = out->lam + RAVEL_KCFA_LAM_ARITY * out->nlam++;
            row[0] = id;
            row[1] = n->as.lam.x;
            row[2] = n->as.lam.y;
            row[3] = n->as.lam.body;
            break;
        case RAVEL_KCFA_APP:
            row = out->app + RAVEL_KCFA_APP_ARITY * out->napp++;
            row[0] = id;
            row[1] = n->as.app.f;
            row[2] = n->as.app.a0;
            row[3] = n->as.app.a1;
            break;
        default:
            row = out->var + RAVEL_KCFA_VAR_ARITY * out->nvar++;
            row[0] = id;
            row[1] = n->as.ref.x;
        }
    }
    return MPI_SUCCESS;
}

void ravel_kcfa_facts_free(ravel_kcfa_facts *facts)
{
    free(facts->lam);
    free(facts->app);
    free(facts->var);
    memset(facts, 0, sizeof *facts);
}
