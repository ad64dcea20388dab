/* Parses (program C) into a flat node array with an explicit stack.
 *
 * Each open form is a frame on the stack; a frame knows how many parts its
 * form takes and which kind comes next (a name, a call, an atom), so the
 * grammar is checked as the tokens arrive and nesting depth costs heap, not
 * C stack.  A node gets its id when its '(' is read, which numbers nodes in
 * preorder. */
#include "kcfa_parse.h"

#include <errno.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcfa_lexer.h"
#include "kcfa_name_table.h"
#include "ravel/error.h"
#include "ravel/file_open.h"
#include "ravel/memory.h"

typedef enum { FORM_PROGRAM, FORM_APP, FORM_LAM, FORM_REF, FORM_UNKNOWN } form;
typedef enum { PART_NAME, PART_CALL, PART_ATOM } part_kind;

typedef struct {
    form form;
    uint64_t node; /* unused for FORM_PROGRAM */
    size_t nparts; /* parts read so far */
    size_t line, column; /* of the '(' */
} frame;

typedef struct {
    const char *file;
    kcfa_lexer lexer;
    kcfa_name_table names;
    ravel_kcfa_program *prog;
    size_t nodes_cap;
    frame *stack;
    size_t depth, stack_cap;
    ravel_kcfa_parse_error *err;
} parser;

static const char *const form_names[] = {"program", "app", "lam", "ref"};
static const size_t form_nparts[] = {1, 3, 3, 1};

static int fail_at(parser *ps, size_t line, size_t column, const char *fmt,
                   ...) __attribute__((format(printf, 4, 5)));

static int fail_at(parser *ps, size_t line, size_t column, const char *fmt,
                   ...)
{
    char message[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    if (ps->err) {
        ps->err->line = line;
        ps->err->column = column;
        snprintf(ps->err->message, sizeof ps->err->message, "%s", message);
    }
    return ravel_error_set(MPI_ERR_OTHER, "%s:%zu:%zu: %s", ps->file, line,
                           column, message);
}

static int fail_no_mem(parser *ps)
{
    if (ps->err) {
        ps->err->line = 0;
        ps->err->column = 0;
        snprintf(ps->err->message, sizeof ps->err->message,
                 "out of memory");
    }
    return ravel_error_set(MPI_ERR_NO_MEM, "%s: out of memory while parsing",
                           ps->file);
}

static int next_token(parser *ps, kcfa_token *tok)
{
    size_t line = 0, column = 0;
    char why[160];
    int rc = kcfa_lexer_next(&ps->lexer, tok, &line, &column, why, sizeof why);
    if (rc == -2)
        return fail_no_mem(ps);
    if (rc != 0)
        return fail_at(ps, line, column, "%s", why);
    return MPI_SUCCESS;
}

/* Describes a token for messages: "')'", "end of input", "name 'x'". */
static void describe(const kcfa_token *tok, char *buf, size_t len)
{
    switch (tok->kind) {
    case KCFA_TOKEN_END: snprintf(buf, len, "end of input"); break;
    case KCFA_TOKEN_OPEN: snprintf(buf, len, "'('"); break;
    case KCFA_TOKEN_CLOSE: snprintf(buf, len, "')'"); break;
    default:
        snprintf(buf, len, "name '%.*s'", tok->len > 40 ? 40 : (int)tok->len,
                 tok->text);
    }
}

static form form_of(const kcfa_token *tok)
{
    for (int f = FORM_PROGRAM; f <= FORM_REF; f++)
        if (tok->len == strlen(form_names[f]) &&
            memcmp(tok->text, form_names[f], tok->len) == 0)
            return (form)f;
    return FORM_UNKNOWN;
}

static int push_frame(parser *ps, form f, uint64_t node, const kcfa_token *open)
{
    if (ps->depth == ps->stack_cap) {
        size_t cap = ps->stack_cap ? 2 * ps->stack_cap : 64, bytes;
        if (ravel_mul_size(cap, sizeof(frame), &bytes) != 0)
            return fail_no_mem(ps);
        frame *grown = realloc(ps->stack, bytes);
        if (!grown)
            return fail_no_mem(ps);
        ps->stack = grown;
        ps->stack_cap = cap;
    }
    ps->stack[ps->depth++] = (frame){f, node, 0, open->line, open->column};
    return MPI_SUCCESS;
}

static int new_node(parser *ps, form f, uint64_t *id)
{
    ravel_kcfa_program *p = ps->prog;
    if (p->nnodes == ps->nodes_cap) {
        size_t cap = ps->nodes_cap ? 2 * ps->nodes_cap : 256, bytes;
        if (ravel_mul_size(cap, sizeof(ravel_kcfa_node), &bytes) != 0)
            return fail_no_mem(ps);
        ravel_kcfa_node *grown = realloc(p->nodes, bytes);
        if (!grown)
            return fail_no_mem(ps);
        p->nodes = grown;
        ps->nodes_cap = cap;
    }
    ravel_kcfa_node *n = &p->nodes[p->nnodes];
    memset(n, 0, sizeof *n);
    n->kind = f == FORM_APP   ? RAVEL_KCFA_APP
              : f == FORM_LAM ? RAVEL_KCFA_LAM
                              : RAVEL_KCFA_REF;
    *id = p->nnodes++;
    return MPI_SUCCESS;
}

/* Stores part i of the form in frame fr (a node id or a name index). */
static void set_part(parser *ps, const frame *fr, size_t i, uint64_t value)
{
    if (fr->form == FORM_PROGRAM)
        return; /* its one part, the top call, is node 0 by construction */
    ravel_kcfa_node *n = &ps->prog->nodes[fr->node];
    uint64_t *parts[3] = {NULL, NULL, NULL};
    if (n->kind == RAVEL_KCFA_LAM) {
        parts[0] = &n->as.lam.x;
        parts[1] = &n->as.lam.y;
        parts[2] = &n->as.lam.body;
    } else if (n->kind == RAVEL_KCFA_APP) {
        parts[0] = &n->as.app.f;
        parts[1] = &n->as.app.a0;
        parts[2] = &n->as.app.a1;
    } else {
        parts[0] = &n->as.ref.x;
    }
    *parts[i] = value;
}

static part_kind next_part_kind(const frame *fr)
{
    switch (fr->form) {
    case FORM_APP: return PART_ATOM;
    case FORM_LAM: return fr->nparts < 2 ? PART_NAME : PART_CALL;
    case FORM_REF: return PART_NAME;
    default: return PART_CALL;
    }
}

static const char *parts_wanted(form f)
{
    switch (f) {
    case FORM_PROGRAM: return "one call";
    case FORM_APP: return "a function and two arguments";
    case FORM_LAM: return "two names and a call";
    default: return "one name";
    }
}

static int read_name(parser *ps, const frame *fr, const kcfa_token *tok)
{
    char what[64];
    if (tok->kind != KCFA_TOKEN_SYMBOL && tok->kind != KCFA_TOKEN_STRING) {
        describe(tok, what, sizeof what);
        return fail_at(ps, tok->line, tok->column,
                       "bad name in (%s ...): expected a symbol or a string, "
                       "found %s",
                       form_names[fr->form], what);
    }
    if (tok->len == 0)
        return fail_at(ps, tok->line, tok->column,
                       "bad name in (%s ...): the empty string",
                       form_names[fr->form]);
    size_t index;
    if (kcfa_names_intern(&ps->names, tok->text, tok->len, &index) != 0)
        return fail_no_mem(ps);
    set_part(ps, fr, fr->nparts, index);
    return MPI_SUCCESS;
}

/* Reads the head after `open` and opens a form of the wanted kind. */
static int open_form(parser *ps, part_kind want, const kcfa_token *open)
{
    kcfa_token head;
    char what[64];
    int rc = next_token(ps, &head);
    if (rc != MPI_SUCCESS)
        return rc;
    if (head.kind != KCFA_TOKEN_SYMBOL) {
        describe(&head, what, sizeof what);
        return fail_at(ps, head.line, head.column,
                       "expected a form name (program, app, lam or ref) "
                       "after '(', found %s",
                       what);
    }
    form f = form_of(&head);
    if (f == FORM_UNKNOWN)
        return fail_at(ps, head.line, head.column, "unknown form '%.*s'",
                       head.len > 40 ? 40 : (int)head.len, head.text);
    int fits = want == PART_CALL ? f == FORM_APP
                                 : (f == FORM_LAM || f == FORM_REF);
    if (!fits)
        return fail_at(ps, head.line, head.column, "expected %s, found (%s ...)",
                       want == PART_CALL ? "a call (app ...)"
                                         : "(lam ...) or (ref ...)",
                       form_names[f]);
    uint64_t id = 0;
    if ((rc = new_node(ps, f, &id)) != MPI_SUCCESS)
        return rc;
    set_part(ps, &ps->stack[ps->depth - 1], ps->stack[ps->depth - 1].nparts,
             id);
    return push_frame(ps, f, id, open);
}

static int read_part(parser *ps, const kcfa_token *tok)
{
    frame *fr = &ps->stack[ps->depth - 1];
    part_kind want = next_part_kind(fr);
    char what[64];
    int rc;
    if (want == PART_NAME) {
        rc = read_name(ps, fr, tok);
    } else if (tok->kind != KCFA_TOKEN_OPEN) {
        describe(tok, what, sizeof what);
        return fail_at(ps, tok->line, tok->column, "expected %s, found %s",
                       want == PART_CALL ? "a call (app ...)"
                                         : "(lam ...) or (ref ...)",
                       what);
    } else {
        rc = open_form(ps, want, tok);
        fr = &ps->stack[ps->depth - (rc == MPI_SUCCESS ? 2 : 1)];
    }
    if (rc == MPI_SUCCESS)
        fr->nparts++;
    return rc;
}

/* Reads one token inside the innermost open form and acts on it. */
static int step(parser *ps)
{
    kcfa_token tok;
    char what[64];
    int rc = next_token(ps, &tok);
    if (rc != MPI_SUCCESS)
        return rc;
    frame *fr = &ps->stack[ps->depth - 1];
    size_t wanted = form_nparts[fr->form];
    if (tok.kind == KCFA_TOKEN_END)
        return fail_at(ps, tok.line, tok.column,
                       "unexpected end of input: the '(' of (%s ...) at "
                       "line %zu, column %zu is never closed",
                       form_names[fr->form], fr->line, fr->column);
    if (tok.kind == KCFA_TOKEN_CLOSE) {
        if (fr->nparts < wanted)
            return fail_at(ps, tok.line, tok.column,
                           "too few parts in (%s ...): it takes %s, found %zu",
                           form_names[fr->form], parts_wanted(fr->form),
                           fr->nparts);
        ps->depth--;
        return MPI_SUCCESS;
    }
    if (fr->nparts == wanted) {
        describe(&tok, what, sizeof what);
        return fail_at(ps, tok.line, tok.column,
                       "too many parts in (%s ...): it takes %s, found "
                       "another: %s",
                       form_names[fr->form], parts_wanted(fr->form), what);
    }
    return read_part(ps, &tok);
}

static int read_program_head(parser *ps)
{
    kcfa_token tok, head;
    char what[64];
    int rc = next_token(ps, &tok);
    if (rc != MPI_SUCCESS)
        return rc;
    if (tok.kind == KCFA_TOKEN_END)
        return fail_at(ps, tok.line, tok.column,
                       "empty input: expected (program ...)");
    if (tok.kind != KCFA_TOKEN_OPEN) {
        describe(&tok, what, sizeof what);
        return fail_at(ps, tok.line, tok.column,
                       "expected (program ...), found %s", what);
    }
    if ((rc = next_token(ps, &head)) != MPI_SUCCESS)
        return rc;
    if (head.kind != KCFA_TOKEN_SYMBOL || form_of(&head) != FORM_PROGRAM) {
        describe(&head, what, sizeof what);
        return fail_at(ps, head.line, head.column,
                       "expected (program ...), found %s after '('", what);
    }
    return push_frame(ps, FORM_PROGRAM, 0, &tok);
}

static int read_trailer(parser *ps)
{
    kcfa_token tok;
    char what[64];
    int rc = next_token(ps, &tok);
    if (rc != MPI_SUCCESS || tok.kind == KCFA_TOKEN_END)
        return rc;
    if (tok.kind == KCFA_TOKEN_CLOSE)
        return fail_at(ps, tok.line, tok.column,
                       "unbalanced ')' after the end of the program");
    describe(&tok, what, sizeof what);
    return fail_at(ps, tok.line, tok.column,
                   "trailing text after the end of the program: %s", what);
}

/* Turns name indices into name ids (nnodes + index), counts node kinds and
 * hands the name table's bytes to the program. */
static int finish(parser *ps)
{
    ravel_kcfa_program *p = ps->prog;
    uint64_t base = p->nnodes;
    for (size_t i = 0; i < p->nnodes; i++) {
        ravel_kcfa_node *n = &p->nodes[i];
        if (n->kind == RAVEL_KCFA_LAM) {
            n->as.lam.x += base;
            n->as.lam.y += base;
            p->nlam++;
        } else if (n->kind == RAVEL_KCFA_APP) {
            p->napp++;
        } else {
            n->as.ref.x += base;
            p->nref++;
        }
    }
    p->name_bytes = ps->names.bytes;
    p->name_offset = ps->names.offset;
    p->nnames = ps->names.count;
    ps->names.bytes = NULL;
    ps->names.offset = NULL;
    if (p->nnames == 0) { /* impossible for a parsed program; keep free safe */
        free(p->name_bytes);
        free(p->name_offset);
        p->name_bytes = NULL;
        p->name_offset = NULL;
    }
    return MPI_SUCCESS;
}

int ravel_kcfa_parse_text(const char *text, size_t len, const char *file,
                          ravel_kcfa_program *out,
                          ravel_kcfa_parse_error *err)
{
    parser ps;
    memset(&ps, 0, sizeof ps);
    memset(out, 0, sizeof *out);
    ps.file = file ? file : "<input>";
    ps.prog = out;
    ps.err = err;
    kcfa_lexer_init(&ps.lexer, text, len);
    int rc = read_program_head(&ps);
    while (rc == MPI_SUCCESS && ps.depth > 0)
        rc = step(&ps);
    if (rc == MPI_SUCCESS)
        rc = read_trailer(&ps);
    if (rc == MPI_SUCCESS)
        rc = finish(&ps);
    if (rc != MPI_SUCCESS)
        ravel_kcfa_program_free(out);
    kcfa_lexer_free(&ps.lexer);
    kcfa_names_free(&ps.names);
    free(ps.stack);
    return rc;
}

/* Reads the whole file into a malloc'd buffer. */
static int read_whole_file(const char *path, char **text, size_t *len)
{
    FILE *f = ravel_fopen_regular(path, ""); /* a FIFO would block */
    if (!f)
        return MPI_ERR_FILE; /* the message names the path and why */
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    int rc = MPI_SUCCESS;
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *grown = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    if (!buf)
        rc = ravel_error_set(MPI_ERR_NO_MEM, "%s: out of memory reading it",
                             path);
    else if (ferror(f))
        rc = ravel_error_set(MPI_ERR_FILE, "%s: read error: %s", path,
                             strerror(errno));
    fclose(f);
    if (rc != MPI_SUCCESS) {
        free(buf);
        return rc;
    }
    *text = buf;
    *len = n;
    return MPI_SUCCESS;
}

int ravel_kcfa_parse_file(const char *path, ravel_kcfa_program *out,
                          ravel_kcfa_parse_error *err)
{
    char *text = NULL;
    size_t len = 0;
    memset(out, 0, sizeof *out);
    int rc = read_whole_file(path, &text, &len);
    if (rc != MPI_SUCCESS) {
        if (err) {
            err->line = 0;
            err->column = 0;
            snprintf(err->message, sizeof err->message, "%s",
                     ravel_error_message());
        }
        return rc;
    }
    rc = ravel_kcfa_parse_text(text, len, path, out, err);
    free(text);
    return rc;
}
