// ravel_memory_start_huge_page_heap (RAVEL_MEMORY_HUGE_PAGE_HEAP_AT_START)
// (core/huge_page_heap.c), through huge_page_heap_probe: how often the probe
// starts, the GLIBC_TUNABLES and arguments it ends up with, and whether the
// kernel lists a block of 8 MiB from its malloc as advised for huge pages
// (VmFlags "hg" in /proc/self/smaps: the kernel's account, not ours).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#ifndef HUGE_PAGE_HEAP_PROBE
#error "HUGE_PAGE_HEAP_PROBE: the probe's path, set by CMake"
#endif

namespace {

struct ProbeRun {
    int starts = 0;
    std::string out;
};

// The probe run by sh with `env_change` (env(1) arguments) before its own
// arguments; stderr and stdout together.
ProbeRun probe(const std::string &env_change, const std::string &args = "")
{
    std::string cmd = "env -u GLIBC_TUNABLES -u RAVEL_HUGE_PAGE_HEAP " +
                      env_change + " " HUGE_PAGE_HEAP_PROBE " " + args +
                      " 2>&1";
    FILE *p = popen(cmd.c_str(), "r");
    ProbeRun r;
    if (!p)
        return r;
    char line[4096];
    while (fgets(line, sizeof line, p)) {
        std::string s(line);
        if (s == "start\n")
            r.starts++;
        else
            r.out += s;
    }
    EXPECT_EQ(pclose(p), 0) << cmd;
    return r;
}

// The kernel's THP mode: "always", "madvise", "never", or "" (none).
std::string thp_mode()
{
    std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string all;
    std::getline(f, all);
    for (const char *m : {"always", "madvise", "never"})
        if (all.find(std::string("[") + m + "]") != std::string::npos)
            return m;
    return "";
}

// AddressSanitizer's allocator reads no glibc tunable: gcc says it is on by
// __SANITIZE_ADDRESS__, clang (the sanitizer pass) by __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

bool restarts_here()
{
#ifdef UNDER_ASAN
    return false;
#else
    std::string m = thp_mode();
    return m == "always" || m == "madvise";
#endif
}

TEST(HugePageHeap, RestartsOnceWithTheTunableAndItsArguments)
{
    bool again = restarts_here();
    // Ten runs: glibc 2.36 honoured the tunable in some runs only until
    // malloc was started on zeroed stack.
    for (int i = 0; i < 10; i++) {
        ProbeRun r = probe("RAVEL_HUGE_PAGE_HEAP=1", "'a b' '' c");
        EXPECT_EQ(r.starts, again ? 2 : 1);
        EXPECT_NE(r.out.find(again ? "tunables=glibc.malloc.hugetlb=1\n"
                                   : "tunables=(unset)\n"),
                  std::string::npos)
            << r.out;
        EXPECT_NE(r.out.find("arg[1]=a b\narg[2]=\narg[3]=c\n"),
                  std::string::npos)
            << r.out;
        if (thp_mode() == "madvise") { // glibc advises only in this mode
            EXPECT_NE(r.out.find(again ? "block_advised_huge=1"
                                       : "block_advised_huge=0"),
                      std::string::npos)
                << "run " << i << ":\n"
                << r.out;
        }
    }
}

TEST(HugePageHeap, KeepsTheOtherTunables)
{
    if (!restarts_here())
        GTEST_SKIP() << "no restart on this build or kernel";
    ProbeRun r = probe("RAVEL_HUGE_PAGE_HEAP=1 "
                       "GLIBC_TUNABLES=glibc.malloc.tcache_count=7");
    EXPECT_EQ(r.starts, 2);
    EXPECT_NE(r.out.find("tunables=glibc.malloc.tcache_count=7:"
                         "glibc.malloc.hugetlb=1\n"),
              std::string::npos)
        << r.out;
}

TEST(HugePageHeap, LeavesAUsersOwnSettingAlone)
{
    ProbeRun r = probe("RAVEL_HUGE_PAGE_HEAP=1 "
                       "GLIBC_TUNABLES=glibc.malloc.hugetlb=0");
    EXPECT_EQ(r.starts, 1);
    EXPECT_NE(r.out.find("tunables=glibc.malloc.hugetlb=0\n"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("block_advised_huge=1"), std::string::npos) << r.out;
}

// Off unless RAVEL_HUGE_PAGE_HEAP is 1: unset, 0, or anything else.
TEST(HugePageHeap, OffUnlessRavelHugePageHeapIsOne)
{
    for (const char *env : {"", "RAVEL_HUGE_PAGE_HEAP=0",
                            "RAVEL_HUGE_PAGE_HEAP=yes"}) {
        ProbeRun r = probe(env);
        EXPECT_EQ(r.starts, 1) << env;
        EXPECT_NE(r.out.find("tunables=(unset)\n"), std::string::npos)
            << env << ": " << r.out;
        EXPECT_EQ(r.out.find("block_advised_huge=1"), std::string::npos)
            << env << ": " << r.out;
    }
}

} // namespace
