/* The program's accessors and its release; building happens in parse.c. */
#include "kcfa_program.h"

#include <stdlib.h>
#include <string.h>

const char *ravel_kcfa_name(const ravel_kcfa_program *p, uint64_t name)
{
    if (name < (uint64_t)p->nnodes || name - p->nnodes >= p->nnames)
        return NULL;
    return p->name_bytes + p->name_offset[name - p->nnodes];
}

void ravel_kcfa_program_free(ravel_kcfa_program *p)
{
    free(p->nodes);
    free(p->name_bytes);
    free(p->name_offset);
    memset(p, 0, sizeof *p);
}
