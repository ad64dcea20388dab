// kcfa_reference_sizes: prints the reference analysis's relation sizes.
//   kcfa_reference_sizes K (--generate=N | PROGRAM)
// For recording the sizes the engine-based analysis must reproduce.
#include <cstdio>
#include <cstring>

#include "kcfa_generate.h"
#include "kcfa_parse.h"
#include "kcfa_reference.h"
#include "ravel/error.h"
#include "ravel/options.h"

int main(int argc, char **argv)
{
    uint64_t k = 0, n = 0;
    if (argc != 3 || ravel_parse_u64(argv[1], &k) != 0 || k == 0) {
        std::fprintf(stderr,
                     "usage: kcfa_reference_sizes K (--generate=N | FILE)\n");
        return 2;
    }
    ravel_kcfa_program prog;
    int rc;
    if (std::strncmp(argv[2], "--generate=", 11) == 0) {
        if (ravel_parse_u64(argv[2] + 11, &n) != 0) {
            std::fprintf(stderr, "bad N in %s\n", argv[2]);
            return 2;
        }
        rc = ravel_kcfa_generate(n, &prog);
    } else {
        rc = ravel_kcfa_parse_file(argv[2], &prog, nullptr);
    }
    if (rc != 0) {
        std::fprintf(stderr, "%s\n", ravel_error_message());
        return 1;
    }
    kcfa_reference_result result;
    rc = kcfa_reference_run(&prog, k, &result);
    if (rc == 0) {
        kcfa_reference_print_sizes(stdout, &result);
        kcfa_reference_free(&result);
    }
    ravel_kcfa_program_free(&prog);
    return rc == 0 ? 0 : 1;
}
