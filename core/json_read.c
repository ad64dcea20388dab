/* A strict recursive-descent JSON parser (RFC 8259) into a tree.
 *
 * One function per production of the grammar (value, object, array, string,
 * number, literal), each starting at the first byte of its production and
 * leaving the position just past it.  White space is skipped between tokens
 * only, and that is the one place newlines can legally appear, so the line
 * and the start of the line are tracked there: every position after that is
 * on the current line, and an error's column is a subtraction.
 *
 * The first error stops the parse; its message is "LINE:COL: ..." and the
 * half-built tree is freed.  Duplicate member names are found after an
 * object is complete, by sorting its names (n log n: a 1 MiB object of tiny
 * members must not take quadratic time). */
#include "ravel/json.h"

#include "ravel/memory.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *text;
    size_t length;
    size_t pos;
    int line;          /* of pos, from 1 */
    size_t line_start; /* offset of the first byte of that line */
    int depth;         /* arrays and objects open around pos */
    char *err;
    size_t errlen;
} parser;

static int parse_value(parser *p, ravel_json_value *v);

/* ---- errors ----------------------------------------------------------- */

static int column_of(const parser *p, size_t at)
{
    size_t col = at - p->line_start + 1;
    return col > INT32_MAX ? INT32_MAX : (int)col;
}

/* "LINE:COL: <message>" at offset `at` (on the current line); returns -1. */
static int fail_at(parser *p, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_at(parser *p, size_t at, const char *fmt, ...)
{
    int n = snprintf(p->err, p->errlen, "%d:%d: ", p->line, column_of(p, at));
    if (n >= 0 && (size_t)n < p->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* "expected WHAT, found X" where X describes the byte at `at`. */
static int expected(parser *p, size_t at, const char *what)
{
    if (at >= p->length)
        return fail_at(p, at, "expected %s, found end of input", what);
    unsigned char c = (unsigned char)p->text[at];
    if (c > 0x20 && c < 0x7f)
        return fail_at(p, at, "expected %s, found '%c'", what, c);
    return fail_at(p, at, "expected %s, found byte 0x%02x", what, c);
}

static int out_of_memory(parser *p)
{
    snprintf(p->err, p->errlen, "out of memory");
    return -1;
}

/* ---- tokens ----------------------------------------------------------- */

static void skip_space(parser *p)
{
    while (p->pos < p->length) {
        char c = p->text[p->pos];
        if (c == '\n') {
            p->line++;
            p->line_start = p->pos + 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            return;
        }
        p->pos++;
    }
}

static int peek(const parser *p)
{
    return p->pos < p->length ? (unsigned char)p->text[p->pos] : -1;
}

static int is_digit(int c) { return c >= '0' && c <= '9'; }

/* ---- strings ---------------------------------------------------------- */

typedef struct {
    char *data;
    size_t length, cap;
} byte_buffer;

static int append(parser *p, byte_buffer *b, const char *bytes, size_t n)
{
    size_t need;
    if (ravel_add_size(b->length, n + 1, &need) ||
        ravel_grow((void **)&b->data, &b->cap, need, 1))
        return out_of_memory(p);
    memcpy(b->data + b->length, bytes, n);
    b->length += n;
    b->data[b->length] = '\0';
    return 0;
}

static int hex4(parser *p, size_t at, unsigned *out)
{
    unsigned v = 0;
    for (size_t i = 0; i < 4; i++) {
        int c = at + i < p->length ? (unsigned char)p->text[at + i] : -1;
        int d = is_digit(c)               ? c - '0'
                : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                         : -1;
        if (d < 0)
            return expected(p, at + i, "a hexadecimal digit of a \\u escape");
        v = v * 16 + (unsigned)d;
    }
    *out = v;
    return 0;
}

static size_t utf8_encode(unsigned cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* The escape at p->pos (just past the backslash), decoded into b. */
static int parse_escape(parser *p, byte_buffer *b)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    int c = peek(p);
    const char *hit = c > 0 ? strchr(from, c) : NULL;
    if (hit) {
        p->pos++;
        return append(p, b, &to[hit - from], 1);
    }
    if (c != 'u')
        return expected(p, p->pos, "an escape (\\\" \\\\ \\/ \\b \\f \\n \\r "
                                   "\\t or \\uXXXX)");
    unsigned cp, low;
    if (hex4(p, p->pos + 1, &cp))
        return -1;
    size_t at = p->pos - 1;
    p->pos += 5;
    if (cp >= 0xdc00 && cp <= 0xdfff)
        return fail_at(p, at, "expected a \\u escape other than a lone low "
                              "surrogate, found \\u%04x", cp);
    if (cp >= 0xd800 && cp <= 0xdbff) {
        /* A high surrogate must be followed by its low half. */
        if (p->pos + 1 >= p->length || p->text[p->pos] != '\\' ||
            p->text[p->pos + 1] != 'u')
            return expected(p, p->pos, "\\u and the low surrogate after "
                                       "a high surrogate");
        if (hex4(p, p->pos + 2, &low))
            return -1;
        if (low < 0xdc00 || low > 0xdfff)
            return fail_at(p, p->pos, "expected a low surrogate "
                                      "(\\udc00..\\udfff), found \\u%04x", low);
        p->pos += 6;
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
    }
    char utf8[4];
    return append(p, b, utf8, utf8_encode(cp, utf8));
}

/* The length of the well-formed UTF-8 sequence at `at` (lead byte >= 0x80),
 * or 0: no overlong forms, no surrogates, nothing past U+10FFFF. */
static size_t utf8_length(const parser *p, size_t at)
{
    const unsigned char *s = (const unsigned char *)p->text + at;
    size_t left = p->length - at, n;
    unsigned char lo = 0x80, hi = 0xbf;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        n = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        n = 3;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        n = 4;
    else
        return 0;
    if (s[0] == 0xe0)
        lo = 0xa0;
    else if (s[0] == 0xed)
        hi = 0x9f;
    else if (s[0] == 0xf0)
        lo = 0x90;
    else if (s[0] == 0xf4)
        hi = 0x8f;
    if (left < n || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

/* A string literal at p->pos (the opening quote), decoded into *out. */
static int parse_string(parser *p, char **out, size_t *length)
{
    byte_buffer b = {NULL, 0, 0};
    int err = append(p, &b, "", 0); /* "" is a string too: never NULL */
    p->pos++;
    while (err == 0) {
        int c = peek(p);
        if (c == '"') {
            p->pos++;
            *out = b.data;
            *length = b.length;
            return 0;
        }
        if (c < 0) {
            err = expected(p, p->pos, "'\"' closing the string");
        } else if (c < 0x20) {
            err = expected(p, p->pos, "a character of the string (control "
                                      "characters must be escaped)");
        } else if (c == '\\') {
            p->pos++;
            err = parse_escape(p, &b);
        } else if (c < 0x80) {
            err = append(p, &b, p->text + p->pos, 1);
            p->pos++;
        } else {
            size_t n = utf8_length(p, p->pos);
            err = n ? append(p, &b, p->text + p->pos, n)
                    : expected(p, p->pos, "well-formed UTF-8");
            p->pos += n;
        }
    }
    free(b.data);
    return -1;
}

/* ---- numbers and literals --------------------------------------------- */

static int skip_digits(parser *p, const char *what)
{
    if (!is_digit(peek(p)))
        return expected(p, p->pos, what);
    while (is_digit(peek(p)))
        p->pos++;
    return 0;
}

/* The grammar is checked here, byte by byte; strtod only converts, and must
 * consume exactly what the grammar accepted. */
static int parse_number(parser *p, ravel_json_value *v)
{
    size_t start = p->pos;
    if (peek(p) == '-')
        p->pos++;
    if (peek(p) == '0')
        p->pos++;
    else if (skip_digits(p, "a digit"))
        return -1;
    if (peek(p) == '.') {
        p->pos++;
        if (skip_digits(p, "a digit after the decimal point"))
            return -1;
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        p->pos++;
        if (peek(p) == '+' || peek(p) == '-')
            p->pos++;
        if (skip_digits(p, "a digit of the exponent"))
            return -1;
    }
    size_t n = p->pos - start;
    char small[64], *copy = n < sizeof small ? small : malloc(n + 1);
    if (!copy)
        return out_of_memory(p);
    memcpy(copy, p->text + start, n);
    copy[n] = '\0';
    char *end;
    errno = 0;
    double x = strtod(copy, &end);
    int consumed = end == copy + n, overflow = errno == ERANGE && isinf(x);
    if (copy != small)
        free(copy);
    if (!consumed)
        return fail_at(p, start, "expected a number strtod reads whole, "
                                 "found %.*s", (int)(n > 40 ? 40 : n),
                       p->text + start);
    if (overflow)
        return fail_at(p, start, "expected a number within the range of a "
                                 "double, found %.*s", (int)(n > 40 ? 40 : n),
                       p->text + start);
    v->kind = RAVEL_JSON_NUMBER;
    v->number = x;
    return 0;
}

static int parse_literal(parser *p, ravel_json_value *v)
{
    static const struct {
        const char *word;
        ravel_json_kind kind;
    } literals[] = {{"true", RAVEL_JSON_TRUE},
                    {"false", RAVEL_JSON_FALSE},
                    {"null", RAVEL_JSON_NULL}};
    for (size_t i = 0; i < sizeof literals / sizeof literals[0]; i++) {
        size_t n = strlen(literals[i].word);
        if (p->length - p->pos >= n &&
            memcmp(p->text + p->pos, literals[i].word, n) == 0) {
            p->pos += n;
            v->kind = literals[i].kind;
            return 0;
        }
    }
    return expected(p, p->pos, "a value (object, array, string, number, "
                               "true, false or null)");
}

/* ---- containers ------------------------------------------------------- */

static void free_value(ravel_json_value *v)
{
    free(v->string);
    for (size_t i = 0; v->kind == RAVEL_JSON_ARRAY && i < v->length; i++)
        free_value(&v->items[i]);
    for (size_t i = 0; v->kind == RAVEL_JSON_OBJECT && i < v->length; i++) {
        free(v->members[i].name);
        free_value(&v->members[i].value);
    }
    free(v->items);
    free(v->members);
}

static int open_container(parser *p)
{
    if (p->depth >= RAVEL_JSON_MAX_DEPTH)
        return fail_at(p, p->pos, "expected at most %d nested arrays and "
                                  "objects, found more", RAVEL_JSON_MAX_DEPTH);
    p->depth++;
    p->pos++;
    skip_space(p);
    return 0;
}

/* After an item: ',' (then returns 1, more follow) or `close` (returns 0). */
static int next_or_close(parser *p, char close, const char *what)
{
    skip_space(p);
    int c = peek(p);
    if (c == ',' || c == close) {
        p->pos++;
        skip_space(p);
        return c == ',';
    }
    return expected(p, p->pos, what);
}

static int parse_array(parser *p, ravel_json_value *v)
{
    size_t cap = 0;
    v->kind = RAVEL_JSON_ARRAY;
    if (open_container(p))
        return -1;
    int more = peek(p) == ']' ? (p->pos++, 0) : 1;
    while (more > 0) {
        if (ravel_grow((void **)&v->items, &cap, v->length + 1,
                       sizeof *v->items))
            return out_of_memory(p);
        ravel_json_value *item = &v->items[v->length];
        memset(item, 0, sizeof *item);
        int err = parse_value(p, item);
        v->length++; /* counted even when half-built, so it is freed */
        if (err)
            return -1;
        more = next_or_close(p, ']', "',' or ']' after an array item");
    }
    p->depth--;
    return more;
}

typedef struct {
    const ravel_json_member *m;
    size_t index;
} member_ref;

static int compare_members(const void *a, const void *b)
{
    const member_ref *x = a, *y = b;
    size_t n = x->m->name_length < y->m->name_length ? x->m->name_length
                                                     : y->m->name_length;
    int c = memcmp(x->m->name, y->m->name, n);
    if (c == 0 && x->m->name_length != y->m->name_length)
        c = x->m->name_length < y->m->name_length ? -1 : 1;
    if (c == 0)
        c = x->index < y->index ? -1 : 1;
    return c;
}

/* Refuses an object with two members of one name, naming the first repeat
 * in document order and where the name was first given. */
static int check_duplicates(parser *p, const ravel_json_value *v)
{
    if (v->length < 2)
        return 0;
    member_ref *refs = malloc(v->length * sizeof *refs);
    if (!refs)
        return out_of_memory(p);
    for (size_t i = 0; i < v->length; i++)
        refs[i] = (member_ref){&v->members[i], i};
    qsort(refs, v->length, sizeof *refs, compare_members);
    const ravel_json_member *first = NULL, *repeat = NULL;
    size_t repeat_index = SIZE_MAX;
    for (size_t i = 1; i < v->length; i++) {
        const ravel_json_member *a = refs[i - 1].m, *b = refs[i].m;
        if (a->name_length == b->name_length &&
            memcmp(a->name, b->name, a->name_length) == 0 &&
            refs[i].index < repeat_index) {
            /* the earliest of a run of equal names is its first use */
            size_t j = i - 1;
            while (j > 0 && refs[j - 1].m->name_length == b->name_length &&
                   memcmp(refs[j - 1].m->name, b->name, b->name_length) == 0)
                j--;
            first = refs[j].m;
            repeat = b;
            repeat_index = refs[i].index;
        }
    }
    free(refs);
    if (!repeat)
        return 0;
    snprintf(p->err, p->errlen, "%d:%d: duplicate member \"%s\" (first "
             "given at %d:%d)", repeat->line, repeat->column, repeat->name,
             first->line, first->column);
    return -1;
}

static int parse_member(parser *p, ravel_json_member *m)
{
    if (peek(p) != '"')
        return expected(p, p->pos, "a member name in double quotes");
    m->line = p->line;
    m->column = column_of(p, p->pos);
    if (parse_string(p, &m->name, &m->name_length))
        return -1;
    skip_space(p);
    if (peek(p) != ':')
        return expected(p, p->pos, "':' after the member name");
    p->pos++;
    skip_space(p);
    return parse_value(p, &m->value);
}

static int parse_object(parser *p, ravel_json_value *v)
{
    size_t cap = 0;
    v->kind = RAVEL_JSON_OBJECT;
    if (open_container(p))
        return -1;
    int more = peek(p) == '}' ? (p->pos++, 0) : 1;
    while (more > 0) {
        if (ravel_grow((void **)&v->members, &cap, v->length + 1,
                       sizeof *v->members))
            return out_of_memory(p);
        ravel_json_member *m = &v->members[v->length];
        memset(m, 0, sizeof *m);
        int err = parse_member(p, m);
        v->length++;
        if (err)
            return -1;
        more = next_or_close(p, '}', "',' or '}' after an object member");
    }
    p->depth--;
    return more < 0 ? -1 : check_duplicates(p, v);
}

/* ---- values ----------------------------------------------------------- */

static int parse_value(parser *p, ravel_json_value *v)
{
    v->line = p->line;
    v->column = column_of(p, p->pos);
    int c = peek(p);
    if (c == '{')
        return parse_object(p, v);
    if (c == '[')
        return parse_array(p, v);
    if (c == '"') {
        v->kind = RAVEL_JSON_STRING;
        return parse_string(p, &v->string, &v->length);
    }
    if (c == '-' || is_digit(c))
        return parse_number(p, v);
    return parse_literal(p, v);
}

int ravel_json_parse(const char *text, size_t length, ravel_json_value **out,
                     char *err, size_t errlen)
{
    char scratch[1];
    parser p = {text, length, 0, 1, 0, 0, errlen ? err : scratch,
                errlen ? errlen : sizeof scratch};
    int rc = -1;
    ravel_json_value *root = calloc(1, sizeof *root);
    *out = NULL;
    if (!root) {
        out_of_memory(&p);
        goto fn_exit;
    }
    skip_space(&p);
    if (parse_value(&p, root))
        goto fn_fail;
    skip_space(&p);
    if (p.pos < p.length) {
        expected(&p, p.pos, "the end of the input after the top-level value");
        goto fn_fail;
    }
    *out = root;
    rc = 0;
fn_exit:
    return rc;
fn_fail:
    ravel_json_free(root);
    goto fn_exit;
}

void ravel_json_free(ravel_json_value *root)
{
    if (!root)
        return;
    free_value(root);
    free(root);
}

const ravel_json_value *ravel_json_get(const ravel_json_value *v,
                                       const char *name)
{
    if (!v || v->kind != RAVEL_JSON_OBJECT || !name)
        return NULL;
    size_t n = strlen(name);
    for (size_t i = 0; i < v->length; i++)
        if (v->members[i].name_length == n &&
            memcmp(v->members[i].name, name, n) == 0)
            return &v->members[i].value;
    return NULL;
}

const char *ravel_json_kind_name(ravel_json_kind kind)
{
    switch (kind) {
    case RAVEL_JSON_NULL: return "null";
    case RAVEL_JSON_FALSE: return "false";
    case RAVEL_JSON_TRUE: return "true";
    case RAVEL_JSON_NUMBER: return "number";
    case RAVEL_JSON_STRING: return "string";
    case RAVEL_JSON_ARRAY: return "array";
    case RAVEL_JSON_OBJECT: return "object";
    }
    return "?";
}
