/* Writes a program's input tables as fact files that ravel-datalog and
 * Soufflé read (.input with the default tab delimiter), so that the k-CFA
 * rules written as Datalog (examples/datalog/kcfa_k*.dl) run on the same
 * program as ravel-kcfa.  Each file goes to NAME.facts.tmp first and is
 * renamed into place once complete: a failed write leaves no file that
 * looks whole. */
#include "kcfa_facts.h"

#include <errno.h>
#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "ravel/error.h"

static int write_table(const char *dir, const char *name,
                       const uint64_t *rows, size_t n, size_t arity)
{
    char path[4096], tmp[4096 + 8];
    int len = snprintf(path, sizeof path, "%s/%s.facts", dir, name);
    if (len < 0 || (size_t)len >= sizeof path)
        return ravel_error_set(MPI_ERR_ARG, "fact directory name too long: "
                               "%.64s...", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *out = fopen(tmp, "w");
    if (!out)
        return ravel_error_set(MPI_ERR_IO, "%s: cannot create: %s", tmp,
                               strerror(errno));
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++)
        for (size_t c = 0; c < arity && ok; c++)
            ok = fprintf(out, "%" PRIu64 "%c", rows[i * arity + c],
                         c + 1 < arity ? '\t' : '\n') > 0;
    int saved = errno;
    if (fclose(out) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    if (!ok) {
        remove(tmp);
        return ravel_error_set(MPI_ERR_IO, "%s: write failed: %s", tmp,
                               strerror(saved));
    }
    if (rename(tmp, path) != 0) {
        saved = errno;
        remove(tmp);
        return ravel_error_set(MPI_ERR_IO, "%s: cannot rename to %s: %s",
                               tmp, path, strerror(saved));
    }
    return MPI_SUCCESS;
}

int ravel_kcfa_facts_write(const ravel_kcfa_facts *facts, const char *dir)
{
    int err = write_table(dir, "Prog", facts->prog, 1, RAVEL_KCFA_PROG_ARITY);
    if (err == MPI_SUCCESS)
        err = write_table(dir, "Lam", facts->lam, facts->nlam,
                          RAVEL_KCFA_LAM_ARITY);
    if (err == MPI_SUCCESS)
        err = write_table(dir, "App", facts->app, facts->napp,
                          RAVEL_KCFA_APP_ARITY);
    if (err == MPI_SUCCESS)
        err = write_table(dir, "Var", facts->var, facts->nvar,
                          RAVEL_KCFA_VAR_ARITY);
    return err;
}
