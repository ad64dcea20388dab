/* Pretty-prints a program with an explicit stack of pending pieces. */
#include "kcfa_emit.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "ravel/error.h"
#include "ravel/memory.h"

typedef enum { TASK_NODE, TASK_CLOSE, TASK_BREAK, TASK_SPACE } task_kind;

typedef struct {
    task_kind kind;
    int flat;      /* TASK_NODE: print this subtree on one line */
    size_t indent; /* TASK_NODE, TASK_BREAK: the line's indentation */
    uint64_t node; /* TASK_NODE */
} task;

typedef struct {
    task *items;
    size_t n, cap;
} task_stack;

static int push(task_stack *s, task t)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64, bytes;
        if (ravel_mul_size(cap, sizeof(task), &bytes) != 0)
            return -1;
        task *grown = realloc(s->items, bytes);
        if (!grown)
            return -1;
        s->items = grown;
        s->cap = cap;
    }
    s->items[s->n++] = t;
    return 0;
}

static int is_symbol_byte(unsigned char c)
{
    return c > ' ' && c != '(' && c != ')' && c != '"' && c != ';' &&
           c != 0x7f;
}

static void put_name(FILE *out, const char *name)
{
    int plain = name[0] != '\0';
    for (const char *c = name; *c && plain; c++)
        plain = is_symbol_byte((unsigned char)*c);
    if (plain) {
        fputs(name, out);
        return;
    }
    fputc('"', out);
    for (const char *c = name; *c; c++) {
        if (*c == '"' || *c == '\\')
            fputc('\\', out);
        fputc(*c, out);
    }
    fputc('"', out);
}

/* subtree_end[id]: one past the last node of id's subtree (preorder). */
static size_t *subtree_ends(const ravel_kcfa_program *p)
{
    size_t *end = malloc((p->nnodes ? p->nnodes : 1) * sizeof *end);
    if (!end)
        return NULL;
    for (size_t id = p->nnodes; id-- > 0;) {
        const ravel_kcfa_node *n = &p->nodes[id];
        end[id] = n->kind == RAVEL_KCFA_LAM   ? end[n->as.lam.body]
                  : n->kind == RAVEL_KCFA_APP ? end[n->as.app.a1]
                                              : id + 1;
    }
    return end;
}

static size_t deeper(size_t indent)
{
    return indent + 2 > RAVEL_KCFA_EMIT_MAX_INDENT ? RAVEL_KCFA_EMIT_MAX_INDENT
                                                   : indent + 2;
}

/* Prints the head of one node and pushes its parts (last part first). */
static int expand(FILE *out, const ravel_kcfa_program *p, const size_t *end,
                  task_stack *s, task t)
{
    const ravel_kcfa_node *n = &p->nodes[t.node];
    int flat = t.flat || end[t.node] - t.node <= RAVEL_KCFA_EMIT_FLAT_NODES;
    size_t in = deeper(t.indent);
    task sep = {flat ? TASK_SPACE : TASK_BREAK, 0, in, 0};
    task close = {TASK_CLOSE, 0, 0, 0};
    if (n->kind == RAVEL_KCFA_REF) {
        fputs("(ref ", out);
        put_name(out, ravel_kcfa_name(p, n->as.ref.x));
        fputc(')', out);
        return 0;
    }
    if (n->kind == RAVEL_KCFA_LAM) {
        fputs("(lam ", out);
        put_name(out, ravel_kcfa_name(p, n->as.lam.x));
        fputc(' ', out);
        put_name(out, ravel_kcfa_name(p, n->as.lam.y));
        return push(s, close) || push(s, (task){TASK_NODE, flat, in,
                                                n->as.lam.body}) ||
               push(s, sep);
    }
    fputs("(app ", out);
    return push(s, close) ||
           push(s, (task){TASK_NODE, flat, in, n->as.app.a1}) ||
           push(s, sep) ||
           push(s, (task){TASK_NODE, flat, in, n->as.app.a0}) ||
           push(s, sep) ||
           push(s, (task){TASK_NODE, flat, in, n->as.app.f});
}

int ravel_kcfa_emit(FILE *out, const ravel_kcfa_program *prog)
{
    task_stack s = {NULL, 0, 0};
    size_t *end = subtree_ends(prog);
    int rc = MPI_SUCCESS, nomem = !end;
    if (!nomem) {
        fputs("(program\n  ", out);
        nomem = push(&s, (task){TASK_NODE, 0, 2, RAVEL_KCFA_TOP}) != 0;
    }
    while (!nomem && s.n > 0) {
        task t = s.items[--s.n];
        if (t.kind == TASK_NODE) {
            nomem = expand(out, prog, end, &s, t) != 0;
        } else if (t.kind == TASK_CLOSE) {
            fputc(')', out);
        } else if (t.kind == TASK_SPACE) {
            fputc(' ', out);
        } else {
            fputc('\n', out);
            for (size_t i = 0; i < t.indent; i++)
                fputc(' ', out);
        }
    }
    if (nomem)
        rc = ravel_error_set(MPI_ERR_NO_MEM,
                             "kcfa emit: out of memory for %zu nodes",
                             prog->nnodes);
    else {
        fputs(")\n", out);
        if (fflush(out) != 0 || ferror(out))
            rc = ravel_error_set(MPI_ERR_IO,
                                 "kcfa emit: writing the program failed");
    }
    free(end);
    free(s.items);
    return rc;
}
