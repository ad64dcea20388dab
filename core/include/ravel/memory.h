/* ravel/memory.h: checked size arithmetic and the process's peak memory. */
#ifndef RAVEL_MEMORY_H
#define RAVEL_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* *out = a * b; returns 0, or -1 (and leaves *out alone) on overflow. */
static inline int ravel_mul_size(size_t a, size_t b, size_t *out)
{
    size_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return -1;
    *out = r;
    return 0;
}

/* *out = a + b; returns 0, or -1 on overflow. */
static inline int ravel_add_size(size_t a, size_t b, size_t *out)
{
    size_t r;
    if (__builtin_add_overflow(a, b, &r))
        return -1;
    *out = r;
    return 0;
}

/* Makes room for at least `need` elements of `elem` bytes in *data, which
 * holds *cap: grows by half again (at least to 16), so that appending one
 * element at a time costs amortised constant time; a block of 2 MiB or
 * more is then rounded up to whole huge pages
 * (ravel_memory_huge_block_bytes, the room going to *cap) and advised to
 * use them (ravel_memory_prefer_huge_pages).  Returns 0, or -1 on size_t
 * overflow or when memory runs out (then *data and *cap are left as they
 * were). */
int ravel_grow(void **data, size_t *cap, size_t need, size_t elem);

/* The capacity ravel_grow would give an array of `cap` elements that must
 * hold `need` (cap itself when it already does), before the rounding of a
 * block of 2 MiB or more to whole huge pages. */
size_t ravel_grown_capacity(size_t cap, size_t need);

/* The bytes ravel_grow would allocate for that capacity of `elem`-byte
 * elements, rounding included (SIZE_MAX on overflow): what a caller checks
 * against a memory budget before growing. */
size_t ravel_grown_bytes(size_t cap, size_t need, size_t elem);

/* Asks the C library to serve every block of at least `bytes` by its own
 * mapping, returned to the system as soon as it is freed.  glibc otherwise
 * raises its threshold to the size of each large block freed (up to 32 MiB
 * on 64-bit) and keeps freed heap memory resident: for programs whose
 * buffers of hundreds of MiB come and go every iteration, a peak resident
 * memory that varies from run to run by a tenth.  A process-wide policy, so
 * programs call it, not the library; a no-op outside glibc. */
void ravel_memory_map_large_blocks(size_t bytes);

/* Asks the kernel to back the pages of a block of at least 2 MiB with
 * transparent huge pages where it can (madvise MADV_HUGEPAGE, the "madvise"
 * THP mode Debian runs by default): one page fault per 2 MiB instead of
 * 512.  For the engine's buffers that come and go every iteration, each
 * its own mapping (ravel_memory_map_large_blocks), the faults on fresh pages
 * took a fifth of a closure's time on a VM where a fault costs some 10 us.
 * The whole pages around the block are advised, so that a block that is
 * its own mapping stays one mapping (mremap can still grow it in place).
 * Advice only: a no-op where unsupported, and failures are ignored. */
void ravel_memory_prefer_huge_pages(void *block, size_t bytes);

/* A size to ask malloc for in place of `bytes` (at least as large), so that
 * a block of 2 MiB or more fills whole 2 MiB pages: glibc serves such a
 * block by a mapping of its size plus a small header, and Linux places a
 * mapping whose length is a multiple of 2 MiB at a 2 MiB boundary, where
 * huge pages can back all of it (else only its aligned middle).  Smaller
 * sizes come back as they are. */
size_t ravel_memory_huge_block_bytes(size_t bytes);

/* A block of `bytes` that huge pages back from its first byte: from 2 MiB
 * on it is aligned to a huge page, whole huge pages long, and advised
 * before anything touches it.  ravel_memory_prefer_huge_pages alone comes
 * too late for the first 2 MiB of a block that is its own mapping: glibc
 * writes the block's header into its first page when it maps it, and a
 * 2 MiB block, advised after, faulted in 512 pages of 4 KiB where an
 * aligned one faulted 3 (a throwaway test on the AMD EPYC VM of
 * 2026-11-28, where a fault costs some 10 us).  For blocks written whole
 * soon after, such as a packed set's chunks: every huge page the block
 * spans is resident once touched, so a sparse block costs more than
 * malloc's.  Smaller blocks come from malloc.  Freed with free(); NULL
 * when out of memory. */
void *ravel_memory_huge_alloc(size_t bytes);

/* Puts this program's malloc on transparent huge pages, as the program
 * starts: runs the program again from its start, once, with glibc's malloc
 * told to advise them on its heap and on every block it maps
 * (GLIBC_TUNABLES gains glibc.malloc.hugetlb=1, which glibc reads only as
 * a process starts): fresh memory then costs a fault per 2 MiB, not per 4
 * KiB.  Other tunables in GLIBC_TUNABLES are kept.  It does not run the
 * program again outside glibc's malloc (SimGrid's SMPI,
 * AddressSanitizer), under valgrind, where the kernel has no transparent
 * huge pages, when GLIBC_TUNABLES names the tunable already (so a program
 * runs again at most once, and a user's own setting stands), unless
 * RAVEL_HUGE_PAGE_HEAP=1 (off by default: relalg/README.md, "The heap on
 * small pages again"), or when the exec fails; then it starts glibc's
 * malloc (its first call) on freshly zeroed stack, where glibc 2.36's
 * reading of the THP mode, which forgets to end its string, finds a zero
 * after it (core/huge_page_heap.c says more).
 * So it must run before anything else calls malloc, library constructors
 * included: a program runs it from its .preinit_array, which glibc calls
 * with main's arguments before any library's constructor, by writing
 * RAVEL_MEMORY_HUGE_PAGE_HEAP_AT_START once at file scope in a source file
 * of the executable itself (not of a shared library).  A process-wide
 * policy, so programs ask for it, not the library. */
void ravel_memory_start_huge_page_heap(int argc, char **argv, char **envp);

/* Defined where malloc is glibc's own: not under SimGrid's SMPI (whose
 * helpers replace it) nor AddressSanitizer (gcc says so by
 * __SANITIZE_ADDRESS__, clang by __has_feature). */
#if defined(__SANITIZE_ADDRESS__)
#define RAVEL_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RAVEL_UNDER_ASAN 1
#endif
#endif
#if defined(__GLIBC__) && !defined(SMPI_HELPERS_H) && !defined(RAVEL_UNDER_ASAN)
#define RAVEL_GLIBC_OWN_MALLOC 1
#endif

#ifdef RAVEL_GLIBC_OWN_MALLOC
#define RAVEL_MEMORY_HUGE_PAGE_HEAP_AT_START                                  \
    __attribute__((used, section(".preinit_array"))) static void (            \
        *const ravel_huge_page_heap_at_start)(int, char **, char **) =        \
        ravel_memory_start_huge_page_heap
#else
#define RAVEL_MEMORY_HUGE_PAGE_HEAP_AT_START                                  \
    typedef int ravel_huge_page_heap_at_start_unused
#endif

/* The largest resident set this process has had, in bytes (getrusage). */
uint64_t ravel_peak_rss_bytes(void);

/* Memory the kernel says is available for new allocations without swapping
 * (MemAvailable in /proc/meminfo), in bytes; 0 when it cannot be read. */
uint64_t ravel_available_memory_bytes(void);

/* Writes `bytes` for a person into buf: "812 B", "3.5 KiB", "1.25 GiB". */
void ravel_format_bytes(char *buf, size_t len, uint64_t bytes);

#ifdef __cplusplus
}
#endif
#endif
