// The worst-case generator against the family written out by hand from the
// issue's definition, for N = 1, 2, 3.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <mpi.h>
#include <string>
#include <vector>

#include "ravel/error.h"

#include "kcfa_generate.h"
#include "kcfa_test_util.h"

namespace {

const char *const kN1 = R"(
(program
 (app (lam x k
       (app (lam f_1 k (app (ref f_1) (lam x k (app (ref k) (ref x) (ref x)))
                            (lam na0 na1 (app (ref f_1) (lam y k (app (ref k) (ref y) (ref y))) (ref k)))))
            (lam z_1 k
             (app (ref k)
                  (lam w k (app (ref w) (ref z_1) (lam v na (app (ref k) (ref v) (ref v)))))
                  (ref k)))
            (ref k)))
      (lam u k (app (ref u) (ref u) (ref k)))
      (lam na0 na1 (app (lam u0 k (app (ref u0) (ref u0) (ref k)))
                        (lam u1 k (app (ref u1) (ref u1) (ref k)))
                        (lam u2 k (app (ref u2) (ref u2) (ref k)))))))
)";

const char *const kN2 = R"(
(program
 (app (lam x k
       (app (lam f_1 k (app (ref f_1) (lam x k (app (ref k) (ref x) (ref x)))
                            (lam na0 na1 (app (ref f_1) (lam y k (app (ref k) (ref y) (ref y))) (ref k)))))
            (lam z_1 k
             (app (lam f_2 k (app (ref f_2) (lam x k (app (ref k) (ref x) (ref x)))
                                  (lam na0 na1 (app (ref f_2) (lam y k (app (ref k) (ref y) (ref y))) (ref k)))))
                  (lam z_2 k
                   (app (ref k)
                        (lam w k (app (ref w) (ref z_2)
                                      (lam w na (app (ref w) (ref z_1)
                                                     (lam v na (app (ref k) (ref v) (ref v)))))))
                        (ref k)))
                  (ref k)))
            (ref k)))
      (lam u k (app (ref u) (ref u) (ref k)))
      (lam na0 na1 (app (lam u0 k (app (ref u0) (ref u0) (ref k)))
                        (lam u1 k (app (ref u1) (ref u1) (ref k)))
                        (lam u2 k (app (ref u2) (ref u2) (ref k)))))))
)";

const char *const kN3 = R"(
(program
 (app (lam x k
       (app (lam f_1 k (app (ref f_1) (lam x k (app (ref k) (ref x) (ref x)))
                            (lam na0 na1 (app (ref f_1) (lam y k (app (ref k) (ref y) (ref y))) (ref k)))))
            (lam z_1 k
             (app (lam f_2 k (app (ref f_2) (lam x k (app (ref k) (ref x) (ref x)))
                                  (lam na0 na1 (app (ref f_2) (lam y k (app (ref k) (ref y) (ref y))) (ref k)))))
                  (lam z_2 k
                   (app (lam f_3 k (app (ref f_3) (lam x k (app (ref k) (ref x) (ref x)))
                                        (lam na0 na1 (app (ref f_3) (lam y k (app (ref k) (ref y) (ref y))) (ref k)))))
                        (lam z_3 k
                         (app (ref k)
                              (lam w k (app (ref w) (ref z_3)
                                            (lam w na (app (ref w) (ref z_2)
                                                           (lam w na (app (ref w) (ref z_1)
                                                                          (lam v na (app (ref k) (ref v) (ref v)))))))))
                              (ref k)))
                        (ref k)))
                  (ref k)))
            (ref k)))
      (lam u k (app (ref u) (ref u) (ref k)))
      (lam na0 na1 (app (lam u0 k (app (ref u0) (ref u0) (ref k)))
                        (lam u1 k (app (ref u1) (ref u1) (ref k)))
                        (lam u2 k (app (ref u2) (ref u2) (ref k)))))))
)";

TEST(KcfaGenerate, MatchesTheFamilyWrittenByHand)
{
    const char *expected[] = {kN1, kN2, kN3};
    for (uint64_t n = 1; n <= 3; n++) {
        SCOPED_TRACE("N = " + std::to_string(n));
        ravel_kcfa_program want = parse_ok(expected[n - 1]);
        ravel_kcfa_program got;
        ASSERT_EQ(ravel_kcfa_generate(n, &got), 0);
        expect_same_program(want, got);
        EXPECT_EQ(node_text(want, 0), node_text(got, 0));
        // Counted by hand: 24 nodes around W_1, 20 per W_i, 7 in W_{N+1}
        // besides V_{N-1}, and V_{N-1} has 5 + 4 (N - 1).
        EXPECT_EQ(got.nnodes, 32 + 24 * n);
        // Lams: 6 around W_1, 5 per W_i, lam w, one per V_j (j < N).
        EXPECT_EQ(got.nlam, 7 + 6 * n);
        // Apps: 6 around W_1, 5 per W_i, 2 in W_{N+1}, one per V_j.
        EXPECT_EQ(got.napp, 8 + 6 * n);
        EXPECT_EQ(got.nref, 17 + 12 * n);
        // x k na0 na1 y w v na u u0 u1 u2, and f_i, z_i.
        EXPECT_EQ(got.nnames, 12 + 2 * n);
        ravel_kcfa_program_free(&got);
        ravel_kcfa_program_free(&want);
    }
}

TEST(KcfaGenerate, RejectsZero)
{
    char *text = nullptr;
    size_t len = 0;
    EXPECT_NE(ravel_kcfa_generate_text(0, &text, &len), 0);
    EXPECT_EQ(text, nullptr);
    ravel_kcfa_program p;
    EXPECT_NE(ravel_kcfa_generate(0, &p), 0);
}

// The size the generator checks against memory is the text's length: for
// every digit count of N and its boundaries.
TEST(KcfaGenerate, TextBytesIsTheLengthOfTheText)
{
    std::vector<uint64_t> ns;
    for (uint64_t n = 1; n <= 120; n++)
        ns.push_back(n);
    for (uint64_t n : {999, 1000, 1001, 9999, 10000, 12345})
        ns.push_back(n);
    for (uint64_t n : ns) {
        char *text = nullptr;
        size_t len = 0;
        ASSERT_EQ(ravel_kcfa_generate_text(n, &text, &len), 0) << n;
        EXPECT_EQ(ravel_kcfa_generate_text_bytes(n), len) << "N = " << n;
        EXPECT_EQ(strlen(text), len) << "N = " << n;
        free(text);
    }
}

// N = 2^40 was accepted, and the writer then looped through 2^40 levels
// after its allocations had failed.  Its text (about 200 TiB) is now
// refused before anything is allocated, with the limit in the message.
TEST(KcfaGenerate, RefusesATextLargerThanMemory)
{
    const uint64_t n = uint64_t(1) << 40;
    char *text = nullptr;
    size_t len = 0;
    EXPECT_EQ(ravel_kcfa_generate_text(n, &text, &len), MPI_ERR_ARG);
    EXPECT_EQ(text, nullptr);
    std::string m = ravel_error_message();
    EXPECT_NE(m.find("--generate=1099511627776: the program's text alone "
                     "would take " +
                     std::to_string(ravel_kcfa_generate_text_bytes(n)) +
                     " bytes, more than this machine's "),
              std::string::npos)
        << m;
    // The largest N named fits, and the next does not.
    size_t at = m.find("the largest N whose text fits is ");
    ASSERT_NE(at, std::string::npos) << m;
    uint64_t largest = std::stoull(m.substr(at + 33));
    uint64_t memory = std::stoull(m.substr(m.find("machine's ") + 10));
    EXPECT_LE(ravel_kcfa_generate_text_bytes(largest), memory);
    EXPECT_GT(ravel_kcfa_generate_text_bytes(largest + 1), memory);
    EXPECT_EQ(ravel_kcfa_generate_text(n + 1, &text, &len), MPI_ERR_ARG);
}

} // namespace
