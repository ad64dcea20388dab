/* kcfa_program.h: the syntax tree of a continuation-passing program.
 *
 * The language (issue 3):
 *     (program C)    C ::= (app A A A)    A ::= (lam X Y C) | (ref X)
 * A program is stored flat: one array of nodes indexed by node id, plus a
 * table of names, so that nothing is allocated per node and no traversal
 * needs recursion (generated programs nest thousands of levels deep).
 *
 * Id numbering (one id space for nodes and names, so every uint64 printed by
 * the analysis names exactly one thing):
 *   - node ids 0 .. nnodes-1 number the lam, app and ref nodes in preorder
 *     (the order their opening parenthesis appears in the text); the top
 *     expression e of (program e) is therefore node 0, and the children of a
 *     node always have larger ids than the node;
 *   - name ids nnodes .. nnodes+nnames-1 number the distinct names in the
 *     order of their first occurrence in the text.  Names are compared as
 *     byte strings: x and "x" are the same name, and two lams binding the
 *     same name bind the same variable (no renaming, as the issue asks). */
#ifndef RAVEL_KCFA_PROGRAM_H
#define RAVEL_KCFA_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    RAVEL_KCFA_LAM = 1, /* (lam x y body) */
    RAVEL_KCFA_APP = 2, /* (app f a0 a1) */
    RAVEL_KCFA_REF = 3  /* (ref x) */
} ravel_kcfa_kind;

typedef struct {
    ravel_kcfa_kind kind;
    union {
        struct {
            uint64_t x, y; /* name ids of the two parameters */
            uint64_t body; /* node id of the body (an app) */
        } lam;
        struct {
            uint64_t f, a0, a1; /* node ids of the three parts (lam or ref) */
        } app;
        struct {
            uint64_t x; /* name id */
        } ref;
    } as;
} ravel_kcfa_node;

typedef struct {
    ravel_kcfa_node *nodes; /* nodes[id] for node ids 0..nnodes-1 */
    size_t nnodes;
    size_t nlam, napp, nref; /* how many nodes of each kind */
    /* Name i (id nnodes+i) is the NUL-terminated string at
     * name_bytes + name_offset[i]; names never contain a NUL byte. */
    char *name_bytes;
    size_t *name_offset;
    size_t nnames;
} ravel_kcfa_program;

/* The node id of the top expression e in (program e): always 0. */
#define RAVEL_KCFA_TOP ((uint64_t)0)

/* The id of the first name (names are nnodes .. nnodes+nnames-1). */
static inline uint64_t ravel_kcfa_first_name_id(const ravel_kcfa_program *p)
{
    return (uint64_t)p->nnodes;
}

/* The text of name id `name` (NULL when the id is not a name id). */
const char *ravel_kcfa_name(const ravel_kcfa_program *p, uint64_t name);

/* Frees what the program owns and zeroes it; safe on a zeroed program. */
void ravel_kcfa_program_free(ravel_kcfa_program *p);

#ifdef __cplusplus
}
#endif
#endif
