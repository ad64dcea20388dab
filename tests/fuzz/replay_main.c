/* Runs a fuzz target's LLVMFuzzerTestOneInput once per input file, without
 * libFuzzer: how every build (gcc, plain or sanitized) replays the seed
 * corpus and the inputs that once crashed a target (regressions/), as
 * ctest tests.  Arguments are files or directories of files.  A target
 * whose oracle fails aborts, which fails the test; the file being run is
 * printed first, so the culprit is named. */
#define _DEFAULT_SOURCE /* DT_REG */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *data = malloc(cap);
    for (size_t got; data && (got = fread(data + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap)
            data = realloc(data, cap *= 2);
    }
    fclose(f);
    if (!data) {
        fprintf(stderr, "%s: out of memory\n", path);
        return 1;
    }
    fprintf(stderr, "replay %s (%zu bytes)\n", path, n);
    LLVMFuzzerTestOneInput(data, n);
    free(data);
    return 0;
}

/* Runs every regular file of dir but dot files (.gitkeep), in name order
 * (reproducible). */
static int run_dir(const char *dir, size_t *count)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    if (n < 0) {
        perror(dir);
        return 1;
    }
    int bad = 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        if (names[i]->d_type == DT_REG && names[i]->d_name[0] != '.') {
            bad |= run_file(path);
            (*count)++;
        }
        free(names[i]);
    }
    free(names);
    return bad;
}

int main(int argc, char **argv)
{
    LLVMFuzzerInitialize(&argc, &argv);
    size_t count = 0;
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        DIR *d = opendir(argv[i]);
        if (d) {
            closedir(d);
            bad |= run_dir(argv[i], &count);
        } else {
            bad |= run_file(argv[i]);
            count++;
        }
    }
    printf("%s: %zu inputs replayed\n", argv[0], count);
    return bad;
}
