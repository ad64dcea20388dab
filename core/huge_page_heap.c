/* Starting a program again with glibc's malloc on transparent huge pages.
 *
 * glibc reads its tunables once, as a process starts, from GLIBC_TUNABLES;
 * glibc.malloc.hugetlb=1 makes malloc advise MADV_HUGEPAGE on every stretch
 * of heap it takes from the kernel and on every block it maps, so that one
 * page fault brings in 2 MiB instead of 4 KiB.  No call made after the
 * start can turn it on (the heap's growth happens inside malloc, which
 * nothing outside it can advise in time), so a program that wants it runs
 * itself again with the tunable set, before anything else: from its
 * .preinit_array, which glibc runs before any library's constructor (the
 * libraries' start-up, MPI's included, is then not done twice).
 *
 * glibc 2.36 (Debian 12) reads the kernel's THP mode into a stack buffer
 * without ending the string, then compares it with strcmp: the tunable
 * takes effect only when the byte after the 23 read happens to be zero,
 * which varied from run to run and from rank to rank (one rank of a run
 * faulted 19,000 times, the other 7,000).  Later glibc ends the string.
 * So the restarted program also starts malloc itself, from the same
 * .preinit_array, before any library constructor does (the first malloc
 * of ravel-tc was libnuma's, before main), on stack it has just zeroed.
 *
 * Why: the engine's buffers come and go every iteration, and fresh pages
 * are faulted in as they are first written.  On the AMD EPYC VM of these
 * benchmarks a 4 KiB fault costs 11 to 15 us (a throwaway program:
 * touching 256 MiB page by page took 0.71 to 0.98 s, the same memory
 * warm 0.014 s, advised for huge pages 0.24 s); TC of cti at 2 ranks
 * faulted 30,000 times a rank.  With the restart the closures took 0.70
 * (fe_sphere) to 0.98 (luxembourg_osm) of the time, the smallest 1.11 for
 * the restart's own 20 ms (relalg/README.md, "The heap on huge pages").
 *
 * Why only when asked (RAVEL_HUGE_PAGE_HEAP=1): since every block from 128
 * KiB is mapped on its own and ravel advises its own from 2 MiB, the heap
 * holds only small blocks, and on huge pages it is resident in whole 2 MiB
 * pages: 1 to 3 MiB more a run, where small pages took 1.00 to 1.04 of
 * the time on the Intel VM of the later benchmarks (a fresh 4 KiB page
 * there costs 1.3 to 1.6 us), the largest closures included
 * (relalg/README.md, "The heap on small pages again"). */
#define _GNU_SOURCE /* setenv, execv, explicit_bzero */
#include "ravel/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TUNABLE "glibc.malloc.hugetlb"

#ifdef RAVEL_GLIBC_OWN_MALLOC
/* Whether the kernel can give transparent huge pages to a region that asks
 * (THP mode "always" or "madvise"). */
static int huge_pages_on_advice(void)
{
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f)
        return 0;
    char mode[128] = "";
    int ok = fgets(mode, sizeof mode, f) != NULL;
    fclose(f);
    return ok && !strstr(mode, "[never]");
}
#endif

/* Why not to run again, or NULL.  Only a glibc build that uses glibc's own
 * malloc gains: not SimGrid's SMPI (its ranks are threads of one process,
 * and its helpers replace malloc), not AddressSanitizer's allocator, not
 * valgrind (an exec leaves it: the program would go on unchecked). */
static const char *reason_not_to(void)
{
#ifndef RAVEL_GLIBC_OWN_MALLOC
    return "not glibc's malloc";
#else
    const char *on = getenv("RAVEL_HUGE_PAGE_HEAP");
    if (!on || strcmp(on, "1") != 0)
        return "RAVEL_HUGE_PAGE_HEAP is not 1";
    const char *tunables = getenv("GLIBC_TUNABLES");
    if (tunables && strstr(tunables, TUNABLE))
        return "GLIBC_TUNABLES sets it already";
    const char *preload = getenv("LD_PRELOAD");
    if (preload && strstr(preload, "vgpreload"))
        return "under valgrind";
    if (!huge_pages_on_advice())
        return "no transparent huge pages";
    return NULL;
#endif
}

/* Runs the program again with the tunable added to GLIBC_TUNABLES;
 * returns only when it does not (reason_not_to, or the exec failed). */
static void restart_with_huge_page_heap(char **argv)
{
    if (!argv || !argv[0] || reason_not_to())
        return;
    const char *before = getenv("GLIBC_TUNABLES");
    size_t n = (before ? strlen(before) + 1 : 0) + sizeof TUNABLE "=1";
    char *value = malloc(n);
    if (!value)
        return;
    snprintf(value, n, "%s%s" TUNABLE "=1", before ? before : "",
             before && *before ? ":" : "");
    char *saved = before ? strdup(before) : NULL;
    if ((saved || !before) && setenv("GLIBC_TUNABLES", value, 1) == 0)
        execv("/proc/self/exe", argv);
    /* Still here: no /proc, or the exec failed.  Go on as started. */
    if (saved)
        setenv("GLIBC_TUNABLES", saved, 1);
    else
        unsetenv("GLIBC_TUNABLES");
    free(saved);
    free(value);
}

/* Zeroes 32 KiB of stack below the caller's frame, where the frames of the
 * caller's next call will lie.  Not inlined, so that its frame is there. */
static __attribute__((noinline)) void zero_stack_below(void)
{
    char pad[32768];
    explicit_bzero(pad, sizeof pad);
}

void ravel_memory_start_huge_page_heap(int argc, char **argv, char **envp)
{
    (void)argc;
    /* From .preinit_array, before libc's own start-up has set environ
     * (getenv found nothing, and a restart never saw its tunable and
     * restarted for ever): set it as that start-up will. */
    if (!environ)
        environ = envp;
    restart_with_huge_page_heap(argv);
    zero_stack_below();
    void *volatile first = malloc(1); /* volatile: a pair compilers keep */
    free(first); /* glibc's malloc has read its tunables */
}
