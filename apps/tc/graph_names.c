/* Names of formats, fields and symmetries, and the parsers of the reader's
 * command-line modes, shared by every program that reads graphs. */
#include "graph_input.h"

#include <string.h>

const char *ravel_tc_format_name(ravel_tc_format format)
{
    switch (format) {
    case RAVEL_TC_FORMAT_AUTO: return "auto";
    case RAVEL_TC_FORMAT_MATRIX_MARKET: return "matrix-market";
    case RAVEL_TC_FORMAT_EDGE_LIST: return "edge-list";
    case RAVEL_TC_FORMAT_GENERATED: return "generated";
    }
    return "unknown";
}

const char *ravel_tc_field_name(ravel_tc_field field)
{
    switch (field) {
    case RAVEL_TC_FIELD_NONE: return "none";
    case RAVEL_TC_FIELD_PATTERN: return "pattern";
    case RAVEL_TC_FIELD_INTEGER: return "integer";
    case RAVEL_TC_FIELD_REAL: return "real";
    case RAVEL_TC_FIELD_COMPLEX: return "complex";
    }
    return "unknown";
}

const char *ravel_tc_symmetry_name(ravel_tc_symmetry symmetry)
{
    switch (symmetry) {
    case RAVEL_TC_SYMMETRY_GENERAL: return "general";
    case RAVEL_TC_SYMMETRY_SYMMETRIC: return "symmetric";
    case RAVEL_TC_SYMMETRY_SKEW_SYMMETRIC: return "skew-symmetric";
    case RAVEL_TC_SYMMETRY_HERMITIAN: return "hermitian";
    }
    return "unknown";
}

int ravel_tc_parse_symmetric_mode(const char *text,
                                  ravel_tc_symmetric_mode *mode)
{
    if (text && strcmp(text, "stored") == 0)
        *mode = RAVEL_TC_SYMMETRIC_STORED;
    else if (text && strcmp(text, "both") == 0)
        *mode = RAVEL_TC_SYMMETRIC_BOTH;
    else
        return -1;
    return 0;
}

int ravel_tc_parse_index_mode(const char *text, ravel_tc_index_mode *mode)
{
    if (text && strcmp(text, "strict") == 0)
        *mode = RAVEL_TC_INDICES_STRICT;
    else if (text && strcmp(text, "zero-tolerant") == 0)
        *mode = RAVEL_TC_INDICES_ZERO_TOLERANT;
    else
        return -1;
    return 0;
}
