/* Fuzz target of the Datalog front end (datalog/lexer.c, parse.c,
 * aggregate.c, check.c, stratify.c, plan.c): any text is either refused
 * with a message "<name>:line:col: ..." whose line lies inside the input,
 * or loaded into a plan that --explain can print.  The sanitizers catch
 * the rest. */
#include <ravel/datalog.h>
#include <ravel/error.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "oracle failed: %s\n", what);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ravel_dl_program *p;
    int rc = ravel_dl_load_text("in.dl", (const char *)data, size, &p);
    if (rc) {
        const char *msg = ravel_error_message();
        check(p == NULL, "a failed load returns no program");
        if (!strncmp(msg, "in.dl:", 6)) {
            size_t lines = 1;
            for (size_t i = 0; i < size; i++)
                lines += data[i] == '\n';
            long line = strtol(msg + 6, NULL, 10);
            check(line >= 1 && (size_t)line <= lines,
                  "the error's line lies inside the input");
        } else {
            check(strstr(msg, "out of memory") != NULL,
                  "every other message is about memory");
        }
        return 0;
    }
    FILE *null = fopen("/dev/null", "w");
    if (null) {
        ravel_dl_explain(p, null);
        fclose(null);
    }
    ravel_dl_free(p);
    return 0;
}
