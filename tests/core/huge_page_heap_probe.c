/* huge_page_heap_probe: what ravel_memory_start_huge_page_heap did to
 * this process, for test_huge_page_heap.cc.  Writes "start" to stderr
 * each time it starts (before the restart, which happens before main),
 * then on stdout: GLIBC_TUNABLES as the program finally runs with
 * it, its arguments, and whether a block of 8 MiB just taken from malloc
 * is advised for huge pages (glibc advises MADV_HUGEPAGE on the blocks it
 * maps only under the tunable, and only in THP mode "madvise"). */
#include "ravel/memory.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether the mapping that holds `at` is advised MADV_HUGEPAGE ("hg" among
 * its VmFlags in /proc/self/smaps), or -1 when not found.  (Not
 * THPeligible: the kernel reports that only for a mapping that starts on a
 * 2 MiB boundary, which an 8 MiB block from malloc may or may not.) */
static int advised_huge(const void *at)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[1024];
    int inside = 0, advised = -1;
    uintptr_t a = (uintptr_t)at;
    while (advised < 0 && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
            inside = lo <= a && a < hi;
        else if (inside && strncmp(line, "VmFlags:", 8) == 0)
            advised = strstr(line, " hg") != NULL;
    }
    fclose(f);
    return advised;
}

/* "start" on stderr, then what the apps run at start
 * (RAVEL_MEMORY_HUGE_PAGE_HEAP_AT_START), from the .preinit_array: a
 * restart happens there, before main.  Where malloc is not glibc's own
 * (AddressSanitizer) the apps run nothing then, and main says "start". */
#ifdef RAVEL_GLIBC_OWN_MALLOC
static void start_probe(int argc, char **argv, char **envp)
{
    if (write(2, "start\n", 6) != 6) /* unbuffered, and no malloc yet */
        _exit(1);
    ravel_memory_start_huge_page_heap(argc, argv, envp);
}
__attribute__((used, section(".preinit_array"))) static void (
    *const probe_at_start)(int, char **, char **) = start_probe;
#endif

int main(int argc, char **argv)
{
#ifndef RAVEL_GLIBC_OWN_MALLOC
    fputs("start\n", stderr);
#endif
    const char *tunables = getenv("GLIBC_TUNABLES");
    printf("tunables=%s\n", tunables ? tunables : "(unset)");
    for (int i = 1; i < argc; i++)
        printf("arg[%d]=%s\n", i, argv[i]);
    size_t bytes = (size_t)8 << 20;
    char *volatile block = malloc(bytes); /* volatile: kept and touched */
    if (!block)
        return 1;
    block[bytes / 2] = 1;
    printf("block_advised_huge=%d\n", advised_huge(block + bytes / 2));
    free(block);
    return 0;
}
