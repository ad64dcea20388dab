/* Values from input files in error messages, escaped (ravel/quote.h).
 * The values the parsers refuse are numbers, ids and header words, all
 * ASCII: a byte outside printable ASCII is likely the very fault, so it is
 * shown as an escape, never raw. */
#include "ravel/quote.h"

#include <stdio.h>
#include <string.h>

/* How byte c is shown, into piece[8]. */
static const char *shown_as(unsigned char c, char piece[8])
{
    switch (c) {
    case '\t': return "\\t";
    case '\r': return "\\r";
    case '\n': return "\\n";
    case '\\': return "\\\\";
    default: break;
    }
    if (c < 0x20 || c >= 0x7f)
        snprintf(piece, 8, "\\x%02x", c);
    else
        piece[0] = (char)c, piece[1] = '\0';
    return piece;
}

const char *ravel_quote(const char *s, size_t n, size_t max, char *out,
                        size_t outlen)
{
    /* The end, "...'" and the terminator at most, is always kept room
     * for; a byte whose escape does not fit before it ends the text, cut
     * as if by max (an escape is never cut in two). */
    const size_t tail = 5;
    if (outlen < tail + 1) {
        if (outlen > 0)
            out[0] = '\0';
        return out;
    }
    size_t at = 0;
    out[at++] = '\'';
    int cut = n > max;
    size_t shown = cut ? max : n;
    for (size_t i = 0; i < shown; i++) {
        char piece[8];
        const char *p = shown_as((unsigned char)s[i], piece);
        size_t len = strlen(p);
        if (at + len + tail > outlen) {
            cut = 1;
            break;
        }
        memcpy(out + at, p, len);
        at += len;
    }
    const char *end = cut ? "...'" : "'";
    memcpy(out + at, end, strlen(end) + 1);
    return out;
}
