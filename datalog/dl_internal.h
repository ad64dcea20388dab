/* dl_internal.h: the data each phase of the Datalog front end hands the
 * next (see ravel/datalog.h for the phases).  Everything a program holds
 * is allocated from its arena and freed with it. */
#ifndef RAVEL_DL_INTERNAL_H
#define RAVEL_DL_INTERNAL_H

#include <ravel/datalog.h>

#include <stddef.h>
#include <stdint.h>

/* ---- arena ---------------------------------------------------------------- */

typedef struct dl_arena_chunk dl_arena_chunk;
typedef struct {
    dl_arena_chunk *head;
} dl_arena;

/* Zeroed memory that lives until dl_arena_free; NULL when out of memory. */
void *dl_alloc(dl_arena *a, size_t bytes);
char *dl_strndup(dl_arena *a, const char *s, size_t n);
void dl_arena_free(dl_arena *a);

/* A growable array of pointers, in the arena (old storage is abandoned
 * to it when the array grows). */
typedef struct {
    void **items;
    size_t n, cap;
} dl_vec;
int dl_vec_push(dl_arena *a, dl_vec *v, void *item);

/* Reads the regular file at path whole (malloc'd into *out); errors name
 * it, after `what` ("fact file ", or ""). */
int dl_read_file(const char *path, const char *what, char **out,
                 size_t *len);

/* ---- positions and errors -------------------------------------------------- */

typedef struct {
    int line, col;
} dl_pos;

/* Records "file:line:col: message" and returns MPI_ERR_ARG. */
int dl_error_at(const char *file, dl_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- tokens ---------------------------------------------------------------- */

typedef enum {
    DL_TOK_EOF,
    DL_TOK_IDENT,     /* a name: relation, variable, type, keyword */
    DL_TOK_NUMBER,    /* decimal, 0x hex or 0b binary digits, unsigned */
    DL_TOK_STRING,    /* "..." (text holds its bytes, escapes decoded) */
    DL_TOK_DIRECTIVE, /* .decl, .input, ... (text holds the word) */
    DL_TOK_PUNCT      /* ( ) , . : :- ; ! = != < <= > >= <: + - * / % _ and
                         anything else of one byte, for the error message */
} dl_token_kind;

typedef struct {
    dl_token_kind kind;
    dl_pos pos;
    const char *text; /* not NUL-terminated; len bytes */
    size_t len;
} dl_token;

typedef struct {
    dl_arena *arena; /* holds strings whose escapes were decoded */
    const char *file;
    const char *src;
    size_t len, at;
    dl_pos pos;
} dl_lexer;

void dl_lexer_init(dl_lexer *lx, dl_arena *arena, const char *file,
                   const char *src, size_t len);
/* The next token, or an error (an unterminated string or comment, a
 * preprocessor line, a byte no token starts with). */
int dl_lex(dl_lexer *lx, dl_token *tok);
int dl_token_is(const dl_token *t, const char *text);

/* ---- syntax tree ----------------------------------------------------------- */

typedef enum { DL_NUMBER, DL_UNSIGNED, DL_SYMBOL } dl_type;
const char *dl_type_name(dl_type t);

typedef enum {
    DL_TERM_VAR, DL_TERM_WILD, DL_TERM_NUMBER, DL_TERM_STRING,
    DL_TERM_ARITH      /* lhs op rhs, or op 'n': -lhs */
} dl_term_kind;

typedef struct dl_term {
    dl_term_kind kind;
    dl_pos pos;
    const char *name;  /* variable name; string constant's bytes */
    size_t len;        /* string constant's length */
    uint64_t magnitude;/* number constant: its absolute value */
    int negative;      /* number constant written with a leading '-' */
    char op;           /* arithmetic: + - * / % or 'n' (negation) */
    const struct dl_term *lhs, *rhs;
} dl_term;

/* Does t (a variable, or arithmetic over variables) mention `name`? */
int dl_term_mentions(const dl_term *t, const char *name);
/* Appends the variables of t (arithmetic included) not yet among
 * names[0..*n); -1 when one does not fit in cap. */
int dl_term_vars(const dl_term *t, const char **names, size_t *n,
                 size_t cap);
/* The first variable of t (in arithmetic, its leftmost), or NULL. */
const char *dl_term_first_var(const dl_term *t);

typedef struct {
    const char *rel_name;
    int rel;           /* index into the program's relations, once checked */
    dl_pos pos;
    size_t arity;
    dl_term *args;
} dl_atom;

typedef enum { DL_EQ, DL_NE, DL_LT, DL_LE, DL_GT, DL_GE } dl_cmp_op;

typedef struct dl_cmp_s {
    dl_term left, right;
    dl_cmp_op op;
    dl_pos pos;
} dl_cmp;

typedef enum { DL_AGG_COUNT, DL_AGG_SUM, DL_AGG_MIN, DL_AGG_MAX } dl_agg_op;

/* An aggregate literal of a body, `result = op target : { body }` (the
 * body one conjunction), as parsed; dl_rewrite_aggregates turns it into
 * relations and clauses before checking. */
typedef struct {
    dl_agg_op op;
    dl_pos pos;
    dl_term result;  /* the variable it binds */
    dl_term target;  /* sum, min, max: what is reduced */
    dl_atom *atoms;
    size_t natoms;
    dl_atom *negs;
    size_t nnegs;
    struct dl_cmp_s *cmps;
    size_t ncmps;
    int of_negation;  /* made of `!r(_, ..., _)` (aggregate.c) */
} dl_aggregate;

/* One conjunctive clause: head :- atoms, !negs, comparisons.  A rule whose
 * body has disjunctions (or negated groups), or several heads, becomes
 * several clauses. */
typedef struct {
    dl_atom head;
    dl_atom *atoms;
    size_t natoms;
    dl_atom *negs;     /* negated atoms: !r(...) */
    size_t nnegs;
    dl_cmp *cmps;
    size_t ncmps;
    dl_pos pos;
    int body_id;       /* the same for the clauses of one rule's heads that
                          share one body (adjacent); -1 once shared */
    dl_aggregate *aggs; /* as parsed; none once rewritten */
    size_t naggs;
    /* An aggregate clause (made by dl_rewrite_aggregates):
     *     @gN(g1, ..., gk, v) :- @aN(...)
     * reads as "for each group of @aN's tuples agreeing on the variables
     * g1..gk, agg_op over the group of @aN's column agg_value": head
     * column k is the result (v, the value's variable, or 0 for count,
     * only gives it its type). */
    int is_aggregate;
    dl_agg_op agg_op;
    size_t agg_value;  /* column of atoms[0] (sum, min, max) */
    const char *of_negation; /* made of `!r(_, ..., _)`: r's name */
} dl_clause;

typedef struct {
    const char *name;
    dl_pos pos;
    size_t arity;
    const char **col_names;
    const char **col_type_names; /* as written; resolved by dl_check */
    dl_pos *col_pos;
    dl_type *col_types;
    int is_input, is_output, is_printsize;
    const char *input_file;  /* relative to the fact directory */
    char input_delimiter;
    dl_pos input_pos;
    const char *output_file; /* relative to the output directory */
    char output_delimiter;
    int stratum;             /* -1: no rule derives it */
    size_t fixed_key;        /* > 0: stored in declared order with this
                                key (an aggregate's result, @gN: the
                                engine writes its columns in that order) */
} dl_relation;

typedef struct {
    const char *name;
    const char *of;  /* the type it is a subtype or copy of */
    dl_pos pos;
} dl_type_alias;

/* ---- plan ------------------------------------------------------------------ */

/* A relation as the engine sees it: declared, hidden intermediate, or an
 * index (a permutation of a base with a key width). */
typedef struct {
    char name[64];
    size_t arity, key;
    int base;                 /* -1, or the plan relation it indexes */
    unsigned key_cols[64];    /* for an index: its base's (declared)
                                 columns that form its key */
    unsigned perm[64];        /* for a declared relation: stored column i
                                 holds declared column perm[i] (the planner
                                 stores a relation in the order its joins
                                 read most, so that they need no index) */
    int declared;             /* index into program relations, or -1 */
    int stratum;              /* of the rule that writes it; -1 none */
} dl_plan_rel;

/* A value in a planned rule: a column of side 0 or 1, a constant, or one
 * of the rule's expressions. */
typedef struct {
    int side; /* 0, 1, -1 for the constant, -2 for expression `col` */
    unsigned col;
    uint64_t value;
} dl_plan_term;

typedef struct {
    ravel_op op;
    dl_plan_term left, right;
} dl_plan_expr;

typedef struct {
    dl_plan_term left, right;
    dl_cmp_op op;
    int by_text;  /* symbols ordered (< <= > >=): by their strings, through
                     the engine's order function, not by their ids */
} dl_plan_filter;

/* One engine rule: head :- body[0] (copy) or body[0], body[1] (join), in
 * one semi-naive version (delta or full per body atom). */
typedef struct {
    int stratum;
    int head;
    int nbody;
    int negated;              /* an anti-join: head :- body[0], !body[1] */
    int aggregate;            /* 1 + dl_agg_op: head := aggregate of
                                 body[0] grouped on its first columns (the
                                 head's arity - 1) of agg_value (a column
                                 of body[0] or expression 0), the result
                                 XORed with agg_xor (ravel_rule_aggregate) */
    dl_plan_term agg_value;
    uint64_t agg_xor;
    int body[2];
    int delta[2];             /* 1: reads the delta, 0: the full relation */
    dl_plan_term *head_terms; /* head's arity */
    dl_plan_filter *filters;
    size_t nfilters;
    dl_plan_expr *exprs;      /* computed values the terms may read */
    size_t nexprs;
    dl_pos pos;               /* of the source clause */
} dl_plan_rule;

/* ---- the program ----------------------------------------------------------- */

struct ravel_dl_program {
    dl_arena arena;
    const char *file;
    dl_vec relations;  /* dl_relation* in declaration order */
    dl_vec aliases;    /* dl_type_alias* */
    dl_vec clauses;    /* dl_clause* */
    dl_vec facts;      /* dl_atom* (inline facts) */
    int nbodies;       /* rule bodies parsed (body_id's next value) */
    size_t fresh_vars; /* variables the front end named (aggregate.c) */
    dl_vec agg_answers; /* aggregate.c's @aN relations by body text */
    int nstrata;
    dl_vec plan_rels;  /* dl_plan_rel* */
    dl_vec plan_rules; /* dl_plan_rule*, grouped by stratum, in order */
};

#define DL_REL(p, i) ((dl_relation *)(p)->relations.items[i])
#define DL_PREL(p, i) ((dl_plan_rel *)(p)->plan_rels.items[i])

int dl_parse(ravel_dl_program *p, const char *src, size_t len);
/* Aggregates (aggregate.c): dl_rewrite_aggregates, after parsing, turns
 * each aggregate literal into relations @aN (its body's answers) and @gN
 * (the results), an aggregate clause, and the clause reading @gN (with a
 * second clause for the groups with no answer, where count and sum are
 * 0); dl_check_aggregates, after checking, refuses what has no meaning
 * (the sum, min or max of symbols). */
int dl_rewrite_aggregates(ravel_dl_program *p);
int dl_check_aggregates(ravel_dl_program *p);
int dl_check(ravel_dl_program *p);
int dl_share_bodies(ravel_dl_program *p);
/* The type of variable `name` in checked clause c: the column of a body
 * atom that binds it, else (bound by `name = expression`) the type of the
 * expression's first variable or string; number when neither says. */
dl_type dl_clause_var_type(const ravel_dl_program *p, const dl_clause *c,
                           const char *name);
int dl_stratify(ravel_dl_program *p);
int dl_plan(ravel_dl_program *p);

/* Where declared column `col` of plan relation `rel` (declared, hidden or
 * index) is stored in the engine's relation. */
unsigned dl_stored_column(const ravel_dl_program *p, int rel, unsigned col);

/* A constant's 64-bit value in a column of type t (numbers flipped, see
 * ravel/datalog.h; symbols hashed).  Errors on a number out of the type's
 * range. */
int dl_encode_term(const char *file, const dl_term *t, dl_type type,
                   uint64_t *out);
/* The bit a number's stored form flips (ravel/datalog.h, "Values"). */
#define DL_SIGN_BIT (UINT64_C(1) << 63)
uint64_t dl_encode_number(int64_t v);
/* 64 bits read as a two's-complement integer. */
int64_t dl_as_signed(uint64_t bits);
/* Reads [-]digits, [-]0x hex or [-]0b binary, all of s[0..n): 0, -1 when
 * it is not such a number, -2 when its magnitude exceeds 64 bits. */
int dl_parse_number_text(const char *s, size_t n, uint64_t *magnitude,
                         int *negative);
/* Reads a fact file's field of type t (DL_NUMBER or DL_UNSIGNED) as
 * Soufflé's CSV reader does, all of s[0..n): numbers in decimal only,
 * unsigned also as 0x hex or 0b binary; returns as dl_parse_number_text. */
int dl_parse_fact_number(const char *s, size_t n, dl_type t,
                         uint64_t *magnitude, int *negative);
int64_t dl_decode_number(uint64_t stored);
uint64_t dl_symbol_hash(const char *s, size_t len);
/* The order of symbols: their bytes compared unsigned, then the shorter
 * first, as Soufflé compares std::strings (-1, 0 or 1). */
int dl_compare_text(const char *a, size_t la, const char *b, size_t lb);

#endif
