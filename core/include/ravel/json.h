/* ravel/json.h: the little JSON the tools' --json summaries need. */
#ifndef RAVEL_JSON_H
#define RAVEL_JSON_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes s as a JSON string literal, quotes included: '"' and '\' escaped,
 * control characters as \u00XX, other bytes as they are (UTF-8 passes). */
void ravel_json_string(FILE *out, const char *s);

#ifdef __cplusplus
}
#endif
#endif
