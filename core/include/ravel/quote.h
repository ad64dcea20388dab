/* ravel/quote.h: a value from an input file, shown in an error message. */
#ifndef RAVEL_QUOTE_H
#define RAVEL_QUOTE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes s[0..n) into out (outlen bytes, terminated if outlen > 0)
 * between single quotes, at most `max` bytes of it and then "...".  Bytes
 * a terminal would not show as themselves are escaped: \t, \r, \n, \\ and
 * \xNN for the other control bytes and for every byte >= 0x80.  A
 * byte-order mark or a CR read into a number's field otherwise printed as
 * '1' or '2' in a message saying that '1' is not a number.  An escape is
 * never cut in two: with too little room the text ends early, marked
 * "...", and a room under 6 bytes gets "".  Returns out. */
const char *ravel_quote(const char *s, size_t n, size_t max, char *out,
                        size_t outlen);

/* Room for ravel_quote's output of `max` bytes: each byte at most 4
 * characters, the quotes, "..." and the terminator. */
#define RAVEL_QUOTE_ROOM(max) (4 * (size_t)(max) + 6)

#ifdef __cplusplus
}
#endif
#endif
