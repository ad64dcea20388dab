/* A program's life: text in (read, parse, check, stratify, plan), the plan
 * printed for --explain, and the arena freed. */
#include "dl_internal.h"

#include <ravel/error.h>

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int ravel_dl_load_text(const char *name, const char *text, size_t len,
                       ravel_dl_program **out)
{
    *out = NULL;
    ravel_dl_program *p = calloc(1, sizeof *p);
    if (!p)
        return ravel_error_set(MPI_ERR_NO_MEM, "datalog: out of memory");
    p->file = dl_strndup(&p->arena, name, strlen(name));
    int rc = p->file ? 0 : ravel_error_set(MPI_ERR_NO_MEM, "out of memory");
    const char *nul = rc ? NULL : memchr(text, '\0', len);
    if (nul) {
        dl_pos pos = {1, 1};
        for (const char *c = text; c < nul; c++)
            pos = *c == '\n' ? (dl_pos){pos.line + 1, 1}
                             : (dl_pos){pos.line, pos.col + 1};
        rc = dl_error_at(name, pos, "a NUL byte: not a Datalog program");
    }
    if (!rc)
        rc = dl_parse(p, text, len);
    if (!rc)
        rc = dl_rewrite_aggregates(p);
    if (!rc)
        rc = dl_check(p);
    if (!rc)
        rc = dl_check_aggregates(p);
    if (!rc)
        rc = dl_share_bodies(p);
    if (!rc)
        rc = dl_stratify(p);
    if (!rc)
        rc = dl_plan(p);
    if (rc) {
        ravel_dl_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

int ravel_dl_load(const char *path, ravel_dl_program **out)
{
    char *text;
    size_t len;
    *out = NULL;
    int rc = dl_read_file(path, "", &text, &len);
    if (rc)
        return rc;
    rc = ravel_dl_load_text(path, text, len, out);
    free(text);
    return rc;
}

void ravel_dl_free(ravel_dl_program *p)
{
    if (!p)
        return;
    dl_arena_free(&p->arena);
    free(p);
}

/* ---- --explain ------------------------------------------------------------------ */

static void print_term(FILE *out, const ravel_dl_program *p,
                       const dl_plan_rule *r, const dl_plan_term *t)
{
    (void)p;
    (void)r;
    if (t->side == -2)
        fprintf(out, "E%u", t->col);
    else if (t->side < 0)
        fprintf(out, "#%llu", (unsigned long long)t->value);
    else
        fprintf(out, "%c%u", t->side ? 'R' : 'L', t->col);
}

/* Rules print as head(L0, R1) :- delta A JOIN full B WHERE ..., with Lc
 * and Rc column c of the left (or only) and right body relation, and #v a
 * constant's stored 64 bits. */
void ravel_dl_explain(const ravel_dl_program *p, FILE *out)
{
    static const char *const ops[] = {"=", "!=", "<", "<=", ">", ">="};
    fprintf(out, "relations:\n");
    for (size_t i = 0; i < p->plan_rels.n; i++) {
        const dl_plan_rel *r = DL_PREL(p, i);
        fprintf(out, "  %-24s arity %zu key %zu", r->name, r->arity, r->key);
        if (r->base >= 0) {
            fprintf(out, "  index of %s on columns", DL_PREL(p, r->base)->name);
            for (size_t k = 0; k < r->key; k++)
                fprintf(out, " %u", r->key_cols[k]);
        } else if (r->declared < 0) {
            fprintf(out, "  hidden");
        } else {
            int moved = 0;
            for (size_t c = 0; c < r->arity; c++)
                moved |= r->perm[c] != c;
            if (moved) {
                fprintf(out, "  stored as columns");
                for (size_t c = 0; c < r->arity; c++)
                    fprintf(out, " %u", r->perm[c]);
            }
        }
        if (r->stratum >= 0)
            fprintf(out, "  stratum %d", r->stratum);
        fprintf(out, "\n");
    }
    int stratum = -1;
    for (size_t i = 0; i < p->plan_rules.n; i++) {
        const dl_plan_rule *r = p->plan_rules.items[i];
        if (r->stratum != stratum) {
            stratum = r->stratum;
            fprintf(out, "stratum %d:\n", stratum);
        }
        if (r->aggregate) {
            static const char *const agg[] = {"count", "sum", "min", "max"};
            size_t k = DL_PREL(p, r->head)->arity - 1;
            fprintf(out, "  %s := %s", DL_PREL(p, r->head)->name,
                    agg[r->aggregate - 1]);
            if (r->aggregate - 1 != DL_AGG_COUNT) {
                fprintf(out, " ");
                print_term(out, p, r, &r->agg_value);
            }
            fprintf(out, " of %s grouped on its first %zu column%s",
                    DL_PREL(p, r->body[0])->name, k, k == 1 ? "" : "s");
            if (r->nexprs)
                fprintf(out, " WITH E0 = L%u ^ #%llu", r->exprs[0].left.col,
                        (unsigned long long)r->exprs[0].right.value);
            if (r->agg_xor)
                fprintf(out, " RESULT ^ #%llu",
                        (unsigned long long)r->agg_xor);
            fprintf(out, "\n");
            continue;
        }
        fprintf(out, "  %s(", DL_PREL(p, r->head)->name);
        for (size_t j = 0; j < DL_PREL(p, r->head)->arity; j++) {
            fprintf(out, j ? ", " : "");
            print_term(out, p, r, &r->head_terms[j]);
        }
        fprintf(out, ") :- ");
        for (int s = 0; s < r->nbody; s++)
            fprintf(out, "%s%s %s", s ? (r->negated ? " AND NOT " : " JOIN ")
                                      : "",
                    r->delta[s] ? "delta" : "full",
                    DL_PREL(p, r->body[s])->name);
        for (size_t k = 0; k < r->nfilters; k++) {
            fprintf(out, k ? ", " : " WHERE ");
            print_term(out, p, r, &r->filters[k].left);
            fprintf(out, " %s%s ", ops[r->filters[k].op],
                    r->filters[k].by_text ? " (as text)" : "");
            print_term(out, p, r, &r->filters[k].right);
        }
        static const char *const opname[] = {"+", "-", "*", "/s", "%s",
                                             "/u", "%u", "^"};
        for (size_t x = 0; x < r->nexprs; x++) {
            fprintf(out, x ? ", E%zu = " : " WITH E%zu = ", x);
            print_term(out, p, r, &r->exprs[x].left);
            fprintf(out, " %s ", opname[r->exprs[x].op]);
            print_term(out, p, r, &r->exprs[x].right);
        }
        fprintf(out, "   (line %d)\n", r->pos.line);
    }
}
