// core: strict option parsing, JSON strings, the placement hash, checked
// size arithmetic.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <xxhash.h>

#include "ravel/hash.h"
#include "ravel/json.h"
#include "ravel/memory.h"
#include "ravel/mpi_start.h"
#include "ravel/options.h"
#include "ravel/quote.h"

namespace {

struct Parsed {
    int rc = 0, npos = 0;
    std::string err;
    std::vector<std::string> positional;
};

struct Targets {
    int flag = 0, count = 7;
    uint64_t big = 0;
    double ratio = 0;
    const char *name = "default";
    // The command line parsed into these targets: name points into it, so
    // it lives as long as they do (it once lived in parse()'s by-value
    // parameter, and the test read freed memory through name).
    std::vector<std::string> args;
};

Parsed parse(std::vector<std::string> args, Targets &t)
{
    const ravel_option options[] = {
        {"flag", RAVEL_OPT_FLAG, &t.flag, nullptr, "a flag"},
        {"count", RAVEL_OPT_INT, &t.count, "N", "an int"},
        {"big", RAVEL_OPT_U64, &t.big, "N", "a u64"},
        {"ratio", RAVEL_OPT_DOUBLE, &t.ratio, "X", "a double"},
        {"name", RAVEL_OPT_STRING, &t.name, "S", "a string"},
    };
    args.insert(args.begin(), "prog");
    t.args = std::move(args);
    std::vector<char *> argv;
    for (auto &a : t.args)
        argv.push_back(a.data());
    Parsed p;
    char err[256] = "";
    p.rc = ravel_options_parse((int)argv.size(), argv.data(), options, 5,
                               &p.npos, err, sizeof err);
    p.err = err;
    for (int i = 0; p.rc == 0 && i < p.npos; i++)
        p.positional.push_back(argv[1 + i]);
    return p;
}

} // namespace

TEST(Options, ParsesBothFormsAndKeepsPositionalsInOrder)
{
    Targets t;
    Parsed p = parse({"a", "--count=3", "b", "--big", "18446744073709551615",
                      "--flag", "--ratio=0.5", "--name", "x y", "--", "--c"},
                     t);
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(t.count, 3);
    EXPECT_EQ(t.big, UINT64_MAX);
    EXPECT_EQ(t.flag, 1);
    EXPECT_EQ(t.ratio, 0.5);
    EXPECT_STREQ(t.name, "x y");
    EXPECT_EQ(p.positional, (std::vector<std::string>{"a", "b", "--c"}));
}

TEST(Options, RefusesWhatWouldBeTruncatedOrWrapped)
{
    const char *bad[][2] = {
        {"--count=1e3", "'1e3' is not a whole number"},
        {"--count=99999999999", "is not a whole number"},
        {"--count=", "'' is not a whole number"},
        {"--big=-1", "'-1' is not a non-negative whole number"},
        {"--big=18446744073709551616", "is not a non-negative whole number"},
        {"--big= 5", "is not a non-negative"},
        {"--ratio=inf", "'inf' is not a finite number"},
        {"--ratio=1.5x", "is not a finite number"},
        {"--flag=1", "takes no value"},
        {"--nope", "unknown option '--nope'"},
        {"-x", "unknown option '-x'"},
    };
    for (auto &c : bad) {
        Targets t;
        Parsed p = parse({c[0]}, t);
        EXPECT_EQ(p.rc, -1) << c[0];
        EXPECT_NE(p.err.find(c[1]), std::string::npos) << c[0] << ": " << p.err;
    }
    Targets t;
    Parsed p = parse({"--count"}, t);
    EXPECT_EQ(p.rc, -1);
    EXPECT_NE(p.err.find("needs a value"), std::string::npos) << p.err;
}

TEST(Json, EscapesQuotesBackslashesAndControls)
{
    char *buf = nullptr;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    ravel_json_string(out, "a\"b\\c\nd\x01é");
    fclose(out);
    EXPECT_EQ(std::string(buf, len), "\"a\\\"b\\\\c\\u000ad\\u0001é\"");
    free(buf);
}

// What an error message shows of a refused input value.
static std::string quoted(const std::string &s, size_t max, size_t room)
{
    std::vector<char> out(room + 1, '#');
    ravel_quote(s.data(), s.size(), max, out.data(), room);
    EXPECT_EQ(out[room], '#') << "wrote past the room given";
    return std::string(out.data());
}

TEST(Quote, EscapesWhatATerminalWouldNotShow)
{
    const size_t big = RAVEL_QUOTE_ROOM(40);
    EXPECT_EQ(quoted("12x", 40, big), "'12x'");
    EXPECT_EQ(quoted("", 40, big), "''");
    EXPECT_EQ(quoted("\xef\xbb\xbf" "1", 40, big), "'\\xef\\xbb\\xbf1'");
    EXPECT_EQ(quoted("2\r", 40, big), "'2\\r'");
    EXPECT_EQ(quoted(std::string("a\tb\nc\\d\x01\x7f", 9), 40, big),
              "'a\\tb\\nc\\\\d\\x01\\x7f'");
    EXPECT_EQ(quoted(std::string("a\0b", 3), 40, big), "'a\\x00b'");
}

TEST(Quote, CutsAtMaxAndNeverSplitsAnEscape)
{
    EXPECT_EQ(quoted("abcdef", 3, 64), "'abc...'");
    EXPECT_EQ(quoted("abc", 3, 64), "'abc'");
    // Every byte escaped (4 characters each) fits the room the macro gives.
    std::string all(40, '\x80');
    std::string want = "'";
    for (int i = 0; i < 40; i++)
        want += "\\x80";
    EXPECT_EQ(quoted(all + "z", 40, RAVEL_QUOTE_ROOM(40)), want + "...'");
    // Too little room: whole escapes only, then the cut mark.
    EXPECT_EQ(quoted("\x01\x02\x03", 40, 14), "'\\x01\\x02...'");
    EXPECT_EQ(quoted("abc", 40, 6), "'...'");
    EXPECT_EQ(quoted("abc", 40, 3), "");
}

TEST(Hash, IsXxh3OfTheLittleEndianColumnBytes)
{
    // xxHash's own published vector: XXH3_64bits of no bytes.
    EXPECT_EQ(ravel_hash_columns(nullptr, 0, 0), 0x2D06800538D394C2ull);
    const uint64_t cols[3] = {1, 0x0102030405060708ull, UINT64_MAX};
    unsigned char bytes[24];
    for (int c = 0; c < 3; c++)
        for (int b = 0; b < 8; b++)
            bytes[8 * c + b] = (unsigned char)(cols[c] >> (8 * b));
    EXPECT_EQ(ravel_hash_columns(cols, 3, 0), XXH3_64bits(bytes, sizeof bytes));
    EXPECT_EQ(ravel_hash_columns(cols, 3, 42),
              XXH3_64bits_withSeed(bytes, sizeof bytes, 42));
}

TEST(Memory, CheckedArithmeticRefusesOverflow)
{
    size_t r = 0;
    EXPECT_EQ(ravel_mul_size(SIZE_MAX / 2, 2, &r), 0);
    EXPECT_EQ(ravel_mul_size(SIZE_MAX / 2 + 1, 2, &r), -1);
    EXPECT_EQ(ravel_add_size(SIZE_MAX, 1, &r), -1);
    EXPECT_EQ(ravel_add_size(1, 2, &r), 0);
    EXPECT_EQ(r, 3u);
    EXPECT_GT(ravel_peak_rss_bytes(), 0u);
}

namespace {

TEST(Grow, GrowsGeometricallyKeepsContentsAndRefusesOverflow)
{
    int *data = nullptr;
    size_t cap = 0;
    ASSERT_EQ(ravel_grow(reinterpret_cast<void **>(&data), &cap, 1,
                         sizeof *data), 0);
    EXPECT_EQ(cap, 16u);
    for (int i = 0; i < 16; i++)
        data[i] = i;
    ASSERT_EQ(ravel_grow(reinterpret_cast<void **>(&data), &cap, 17,
                         sizeof *data), 0);
    EXPECT_EQ(cap, 24u); // half again
    ASSERT_EQ(ravel_grow(reinterpret_cast<void **>(&data), &cap, 100,
                         sizeof *data), 0);
    EXPECT_EQ(cap, 100u); // at least what is needed
    for (int i = 0; i < 16; i++)
        EXPECT_EQ(data[i], i);
    size_t before = cap;
    EXPECT_EQ(ravel_grow(reinterpret_cast<void **>(&data), &cap, 50,
                         sizeof *data), 0);
    EXPECT_EQ(cap, before); // no shrinking
    int *kept = data;
    EXPECT_EQ(ravel_grow(reinterpret_cast<void **>(&data), &cap,
                         SIZE_MAX / 2, sizeof *data), -1);
    EXPECT_EQ(data, kept);
    EXPECT_EQ(cap, before);
    free(data);
}

} // namespace

TEST(Options, ReadsSizesWithBinaryUnitsAndRefusesTheRest)
{
    uint64_t v = 0;
    EXPECT_EQ(ravel_parse_bytes("0", &v), 0);
    EXPECT_EQ(v, 0u);
    EXPECT_EQ(ravel_parse_bytes("4096", &v), 0);
    EXPECT_EQ(v, 4096u);
    EXPECT_EQ(ravel_parse_bytes("4096B", &v), 0);
    EXPECT_EQ(v, 4096u);
    EXPECT_EQ(ravel_parse_bytes("3k", &v), 0);
    EXPECT_EQ(v, 3u * 1024);
    EXPECT_EQ(ravel_parse_bytes("512M", &v), 0);
    EXPECT_EQ(v, 512ull << 20);
    EXPECT_EQ(ravel_parse_bytes("2GiB", &v), 0);
    EXPECT_EQ(v, 2ull << 30);
    EXPECT_EQ(ravel_parse_bytes("7TB", &v), 0);
    EXPECT_EQ(v, 7ull << 40);
    // 2^24 T is 2^64 bytes: one past the largest.
    EXPECT_EQ(ravel_parse_bytes("16777215T", &v), 0);
    EXPECT_EQ(v, 16777215ull << 40);
    v = 99;
    for (const char *bad : {"", "G", "-1", " 1G", "1.5G", "1 G", "1Gb", "1GiBs",
                            "1Q", "16777216T", "18446744073709551616"}) {
        EXPECT_EQ(ravel_parse_bytes(bad, &v), -1) << bad;
        EXPECT_EQ(v, 99u) << bad;
    }
}

TEST(Memory, FormatsSizesForPeople)
{
    char b[32];
    ravel_format_bytes(b, sizeof b, 0);
    EXPECT_STREQ(b, "0 B");
    ravel_format_bytes(b, sizeof b, 1023);
    EXPECT_STREQ(b, "1023 B");
    ravel_format_bytes(b, sizeof b, 1536);
    EXPECT_STREQ(b, "1.50 KiB");
    ravel_format_bytes(b, sizeof b, 110832);
    EXPECT_STREQ(b, "108 KiB");
    ravel_format_bytes(b, sizeof b, 21567744);
    EXPECT_STREQ(b, "20.6 MiB");
    ravel_format_bytes(b, sizeof b, UINT64_MAX);
    EXPECT_STREQ(b, "16.0 EiB");
}

TEST(Memory, HugeBlockSizesFillWholeHugePages)
{
    const size_t huge = size_t{2} << 20, header = 32;
    // Below a huge page (header included), sizes are left alone.
    for (size_t b : {size_t{0}, size_t{1}, size_t{1} << 20, huge - header - 1})
        EXPECT_EQ(ravel_memory_huge_block_bytes(b), b) << b;
    // From there on: never smaller, less than a huge page more, and with
    // glibc's 32 bytes a whole number of huge pages.
    for (size_t b : {huge - header, huge - header + 1, huge, huge + 1,
                     3 * huge - 100, 3 * huge - header, (size_t{1} << 34) + 7}) {
        size_t r = ravel_memory_huge_block_bytes(b);
        EXPECT_GE(r, b) << b;
        EXPECT_LT(r - b, huge) << b;
        EXPECT_EQ((r + header) % huge, 0u) << b;
    }
    EXPECT_EQ(ravel_memory_huge_block_bytes(huge - header), huge - header);
    // Sizes that rounding would wrap are left alone.
    EXPECT_EQ(ravel_memory_huge_block_bytes(SIZE_MAX - 5), SIZE_MAX - 5);
}

TEST(Memory, HugeBlocksStartOnAHugePage)
{
    const size_t huge = size_t{2} << 20;
    for (size_t b : {huge, huge + 1, 3 * huge - 5}) {
        char *p = static_cast<char *>(ravel_memory_huge_alloc(b));
        ASSERT_NE(p, nullptr) << b;
#if defined(__GLIBC__)
        // Where huge pages can back it from its first byte.
        EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % huge, 0u) << b;
#endif
        p[0] = 1;
        p[b - 1] = 2; // all of it is there to use
        free(p);
    }
    // Small ones are malloc's.
    char *small = static_cast<char *>(ravel_memory_huge_alloc(100));
    ASSERT_NE(small, nullptr);
    small[99] = 1;
    free(small);
}

TEST(Grow, ALargeArrayTakesWholeHugePagesAndKeepsItsContents)
{
    uint64_t *data = nullptr;
    size_t cap = 0;
    const size_t n = 300000; // 2.3 MiB
    ASSERT_EQ(ravel_grow(reinterpret_cast<void **>(&data), &cap, 1000,
                         sizeof *data), 0);
    for (size_t i = 0; i < 1000; i++)
        data[i] = i * 7;
    const size_t told = ravel_grown_bytes(cap, n, sizeof *data);
    ASSERT_EQ(ravel_grow(reinterpret_cast<void **>(&data), &cap, n,
                         sizeof *data), 0);
    EXPECT_GE(cap, n);
    EXPECT_EQ(cap * sizeof *data, told); // what a budget check was told
    EXPECT_EQ((cap * sizeof *data + 32) % (size_t{2} << 20), 0u);
    for (size_t i = 0; i < 1000; i++)
        ASSERT_EQ(data[i], i * 7);
    data[cap - 1] = 1; // the whole capacity is there to use
    free(data);
}

// glibc's own heap only: a sanitizer's allocator keeps no such heap (GCC
// says so by __SANITIZE_*__, clang, which the sanitizer pass uses, only by
// __has_feature).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RAVEL_TEST_OWN_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define RAVEL_TEST_OWN_ALLOCATOR 1
#endif
#endif
#if defined(__GLIBC__) && !defined(RAVEL_TEST_OWN_ALLOCATOR)
TEST(Memory, BlocksFromTheThresholdAreMappedAndGoBack)
{
    // The apps' policy (engine_cli_init): blocks of 128 KiB and more each
    // their own mapping, unmapped when freed.  A large block freed first
    // raises glibc's moving threshold to its size, so without the call
    // the blocks below come from the heap and this fails.
    ravel_memory_map_large_blocks(size_t{128} << 10);
    char *large = static_cast<char *>(malloc(size_t{8} << 20));
    ASSERT_NE(large, nullptr);
    memset(large, 1, size_t{8} << 20); // not elided with its free
    free(large);
    const size_t mapped_before = mallinfo2().hblkhd;
    std::vector<char *> blocks;
    for (int i = 0; i < 32; i++) { // 8 MiB in blocks of 256 KiB
        blocks.push_back(static_cast<char *>(malloc(size_t{256} << 10)));
        ASSERT_NE(blocks.back(), nullptr);
        memset(blocks.back(), i, size_t{256} << 10);
    }
    EXPECT_GE(mallinfo2().hblkhd, mapped_before + (size_t{8} << 20));
    for (char *b : blocks)
        free(b);
    EXPECT_EQ(mallinfo2().hblkhd, mapped_before);
}
#endif

TEST(Memory, GrownCapacityMatchesGrow)
{
    EXPECT_EQ(ravel_grown_capacity(100, 50), 100u);
    EXPECT_EQ(ravel_grown_capacity(0, 1), 16u);
    EXPECT_EQ(ravel_grown_capacity(100, 101), 150u);
    EXPECT_EQ(ravel_grown_capacity(100, 1000), 1000u);
    EXPECT_EQ(ravel_grown_bytes(100, 101, 4), 600u);
    EXPECT_EQ(ravel_grown_bytes(100, SIZE_MAX / 2, 4), SIZE_MAX);
    void *d = nullptr;
    size_t cap = 100;
    d = malloc(100);
    ASSERT_EQ(ravel_grow(&d, &cap, 101, 1), 0);
    EXPECT_EQ(cap, ravel_grown_capacity(100, 101));
    free(d);
}

// When ravel_mpi_init (core/mpi_start.c) leaves out what only a job over
// several nodes needs: only when every rank is on this node, by the
// launcher's own counts, or there is no launcher.  (That the user's values
// stand is core.mpi_start's to check: setenv without overwriting.)
TEST(MpiStart, EveryRankHereOnlyByTheLaunchersOwnCounts)
{
    EXPECT_TRUE(ravel_every_rank_here("2", "2", 1));
    EXPECT_TRUE(ravel_every_rank_here("1", "1", 1));
    EXPECT_TRUE(ravel_every_rank_here("64", "64", 1));
    EXPECT_TRUE(ravel_every_rank_here(nullptr, nullptr, 0)); // a singleton
    // Ranks on other nodes.
    EXPECT_FALSE(ravel_every_rank_here("2", "4", 1));
    EXPECT_FALSE(ravel_every_rank_here("1", "2", 1));
    // A launcher that does not say where the ranks are (PMIx, Slurm's).
    EXPECT_FALSE(ravel_every_rank_here(nullptr, nullptr, 1));
    EXPECT_FALSE(ravel_every_rank_here(nullptr, "2", 1));
    EXPECT_FALSE(ravel_every_rank_here("2", nullptr, 1));
    // Counts that are not counts.
    EXPECT_FALSE(ravel_every_rank_here("", "", 1));
    EXPECT_FALSE(ravel_every_rank_here("0", "0", 1));
    EXPECT_FALSE(ravel_every_rank_here("2x", "2x", 1));
    EXPECT_FALSE(ravel_every_rank_here("-2", "-2", 1));
    EXPECT_FALSE(ravel_every_rank_here(" 2", " 2", 1));
    EXPECT_FALSE(ravel_every_rank_here("99999999999999999999999",
                                       "99999999999999999999999", 1));
}
