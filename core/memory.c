/* Growing arrays, the process's peak resident memory (getrusage, which
 * Linux reports in KiB), the memory available to it, and sizes for people. */
/* madvise's MADV_HUGEPAGE: Linux, past POSIX.  SimGrid's SMPI build
 * defines it already (its helpers are included first). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include "ravel/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
/* Not under SimGrid's SMPI, whose helpers redefine malloc and friends as
 * macros (and where the simulated ranks share one process anyway). */
#if defined(__GLIBC__) && !defined(SMPI_HELPERS_H)
#define RAVEL_GLIBC_MALLOC 1
#include <malloc.h>
#endif

/* A transparent huge page on x86-64 and most Linux targets. */
static const size_t huge_page_bytes = (size_t)2 << 20;

size_t ravel_grown_capacity(size_t cap, size_t need)
{
    if (need <= cap)
        return cap;
    size_t grown = cap < 16 ? 16 : cap + cap / 2;
    return grown < cap || grown < need ? need : grown;
}

size_t ravel_grown_bytes(size_t cap, size_t need, size_t elem)
{
    size_t bytes;
    if (ravel_mul_size(ravel_grown_capacity(cap, need), elem, &bytes) != 0)
        return SIZE_MAX;
    return ravel_memory_huge_block_bytes(bytes);
}

int ravel_grow(void **data, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t bytes = ravel_grown_bytes(*cap, need, elem);
    if (bytes == SIZE_MAX)
        return -1;
    size_t grown = elem ? bytes / elem : ravel_grown_capacity(*cap, need);
    void *d = realloc(*data, bytes ? bytes : 1);
    if (!d)
        return -1;
    ravel_memory_prefer_huge_pages(d, bytes);
    *data = d;
    *cap = grown;
    return 0;
}

#ifdef RAVEL_GLIBC_MALLOC
/* mallopt takes an int: sizes past it are set to the largest it takes. */
static void set_malloc_bytes(int option, size_t bytes)
{
    (void)mallopt(option, bytes > INT32_MAX ? INT32_MAX : (int)bytes);
}
#endif

void ravel_memory_map_large_blocks(size_t bytes)
{
#ifdef RAVEL_GLIBC_MALLOC
    /* A fixed threshold also fixes the trim threshold, which glibc no
     * longer moves either. */
    set_malloc_bytes(M_MMAP_THRESHOLD, bytes);
#else
    (void)bytes;
#endif
}

void ravel_memory_prefer_huge_pages(void *block, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (!block || bytes < huge_page_bytes)
        return;
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0)
        return;
    uintptr_t mask = (uintptr_t)page - 1;
    uintptr_t start = (uintptr_t)block & ~mask;
    uintptr_t end = ((uintptr_t)block + bytes + mask) & ~mask;
    (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
    (void)block;
    (void)bytes;
#endif
}

size_t ravel_memory_huge_block_bytes(size_t bytes)
{
    const size_t huge = huge_page_bytes;
    /* glibc's mapping is the request plus an 8-byte size field, rounded up
     * to 16 and then to the page: 32 bytes under a multiple of 2 MiB make
     * a mapping of exactly that multiple. */
    const size_t header = 32;
    if (bytes < huge - header || bytes > SIZE_MAX - huge)
        return bytes;
    return (bytes + header + huge - 1) / huge * huge - header;
}

void *ravel_memory_huge_alloc(size_t bytes)
{
#if defined(RAVEL_GLIBC_MALLOC) && defined(MADV_HUGEPAGE)
    const size_t huge = huge_page_bytes;
    if (bytes >= huge && bytes <= SIZE_MAX - huge) {
        size_t whole = (bytes + huge - 1) / huge * huge;
        void *block = aligned_alloc(huge, whole);
        if (block)
            (void)madvise(block, whole, MADV_HUGEPAGE);
        return block;
    }
#endif
    return malloc(bytes ? bytes : 1);
}

uint64_t ravel_peak_rss_bytes(void)
{
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0)
        return 0;
    return (uint64_t)usage.ru_maxrss * 1024u;
}

uint64_t ravel_available_memory_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kib = 0;
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        found = sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
    fclose(f);
    return found ? (uint64_t)kib * 1024u : 0;
}

void ravel_format_bytes(char *buf, size_t len, uint64_t bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB",
                                        "PiB", "EiB"};
    double v = (double)bytes;
    unsigned u = 0;
    while (v >= 1024.0 && u + 1 < sizeof units / sizeof *units) {
        v /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%llu B", (unsigned long long)bytes);
    else
        snprintf(buf, len, "%.*f %s", v < 10.0 ? 2 : v < 100.0 ? 1 : 0, v,
                 units[u]);
}
