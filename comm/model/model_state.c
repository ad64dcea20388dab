/* The cost model this process uses, and what auto is told and chose per
 * communicator.
 *
 * The model is process-wide: a program sets it (ravel_comm_set_model, or
 * ravel_comm_use_model_file for --model=FILE), else the file named by
 * RAVEL_MODEL is loaded on first use, else the built-in default is used and
 * rank 0 says so once.  A bad RAVEL_MODEL is an error on every use, never a
 * silent fallback. */
#include "comm_internal.h"

#include "ravel/error.h"
#include "ravel/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ravel_cost_params model;
static char model_source[4096];
static int model_set;
static int model_is_default; /* the built-in one, not yet announced */
static unsigned model_generation; /* models set so far */

unsigned comm_model_generation(void)
{
    return model_generation;
}

void comm_model_announce_default(void)
{
    if (!model_is_default)
        return;
    model_is_default = 0;
    ravel_log_root(RAVEL_LOG_INFO, "auto: no cost model given (--model=FILE "
                   "or RAVEL_MODEL=FILE, written by ravel-calibrate): using "
                   "the built-in default");
}

void ravel_comm_set_model(const ravel_cost_params *m, const char *source)
{
    model = *m;
    model_generation++;
    model_is_default = 0;
    snprintf(model_source, sizeof model_source, "%s",
             source ? source : "set by the program");
    model_set = 1;
}

int ravel_comm_use_model_file(const char *path)
{
    if (!path || !*path)
        return MPI_SUCCESS;
    ravel_cost_params m;
    int err = ravel_cost_model_load(path, &m);
    if (err == MPI_SUCCESS)
        ravel_comm_set_model(&m, path);
    return err;
}

int ravel_comm_model(const ravel_cost_params **m, const char **source)
{
    if (!model_set) {
        const char *env = getenv("RAVEL_MODEL");
        if (env && *env) {
            int err = ravel_comm_use_model_file(env);
            if (err != MPI_SUCCESS)
                return err; /* and again next time: never a silent default */
        } else {
            ravel_cost_params d;
            ravel_cost_params_default(&d);
            ravel_comm_set_model(&d, "built-in");
            model_is_default = 1;
        }
    }
    *m = &model;
    if (source)
        *source = model_source;
    return MPI_SUCCESS;
}

static int predict_on(MPI_Comm comm, const char *name,
                      const ravel_call_stats *s, int in_exchange,
                      double *seconds)
{
    comm_context *ctx;
    const ravel_cost_params *m;
    int err = comm_context_get(comm, &ctx);
    if (err == MPI_SUCCESS)
        err = ravel_comm_model(&m, NULL);
    if (err != MPI_SUCCESS)
        return err;
    ravel_cost_params here = *m;
    here.ranks_per_node = ctx->node_ranks;
    *seconds = in_exchange ? ravel_cost_predict_exchange(name, &here, s)
                           : ravel_cost_predict(name, &here, s);
    if (*seconds < 0.0)
        return ravel_error_set(MPI_ERR_ARG, "the cost model does not "
                               "describe backend '%s'", name);
    return MPI_SUCCESS;
}

int ravel_comm_predict(MPI_Comm comm, const char *name,
                       const ravel_call_stats *s, double *seconds)
{
    return predict_on(comm, name, s, 0, seconds);
}

int ravel_comm_predict_exchange(MPI_Comm comm, const char *name,
                                const ravel_call_stats *s, double *seconds)
{
    return predict_on(comm, name, s, 1, seconds);
}

int ravel_comm_hint_stats(MPI_Comm comm, const ravel_call_stats *s)
{
    comm_context *ctx;
    int err = comm_context_get(comm, &ctx);
    if (err != MPI_SUCCESS)
        return err;
    ctx->hint = *s;
    ctx->hinted = 1;
    return MPI_SUCCESS;
}

int ravel_comm_last_choice(MPI_Comm comm, int *index, double *predicted)
{
    comm_context *ctx;
    int err = comm_context_get(comm, &ctx);
    if (err != MPI_SUCCESS)
        return err;
    *index = ctx->last_choice;
    if (predicted)
        *predicted = ctx->last_predicted;
    return MPI_SUCCESS;
}

int ravel_comm_auto_memory(MPI_Comm comm, int *known, ravel_call_stats *s,
                           int *carried)
{
    comm_context *ctx;
    int err = comm_context_get(comm, &ctx);
    if (err != MPI_SUCCESS)
        return err;
    if (known)
        *known = ctx->known && ctx->blind_calls == 0;
    if (s)
        *s = ctx->known_stats;
    if (carried)
        *carried = ctx->last_carried;
    return MPI_SUCCESS;
}
