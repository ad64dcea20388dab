// The parser's ids, names, fact tables and printer round trip, checked
// against hand-numbered trees.
#include <gtest/gtest.h>

#include <string>

#include "kcfa_facts.h"
#include "kcfa_generate.h"
#include "kcfa_test_util.h"

namespace {

const char *const kSmall =
    "(program (app (lam x k (app (ref k) (ref x) (ref x)))\n"
    "              (lam a b (app (ref b) (ref a) (ref a)))\n"
    "              (ref free)))\n";

TEST(KcfaParse, NumbersNodesInPreorderAndNamesAfterThem)
{
    ravel_kcfa_program p = parse_ok(kSmall);
    // 0 app; 1 lam x k; 2 app; 3 ref k; 4 ref x; 5 ref x; 6 lam a b; 7 app;
    // 8 ref b; 9 ref a; 10 ref a; 11 ref free.  Names from 12: x k a b free.
    ASSERT_EQ(p.nnodes, 12u);
    ASSERT_EQ(p.nnames, 5u);
    EXPECT_EQ(p.nlam, 2u);
    EXPECT_EQ(p.napp, 3u);
    EXPECT_EQ(p.nref, 7u);
    EXPECT_EQ(ravel_kcfa_first_name_id(&p), 12u);
    const char *names[] = {"x", "k", "a", "b", "free"};
    for (int i = 0; i < 5; i++)
        EXPECT_STREQ(ravel_kcfa_name(&p, 12 + i), names[i]);
    EXPECT_EQ(ravel_kcfa_name(&p, 11), nullptr);
    EXPECT_EQ(ravel_kcfa_name(&p, 17), nullptr);
    EXPECT_EQ(p.nodes[0].kind, RAVEL_KCFA_APP);
    EXPECT_EQ(p.nodes[0].as.app.f, 1u);
    EXPECT_EQ(p.nodes[0].as.app.a0, 6u);
    EXPECT_EQ(p.nodes[0].as.app.a1, 11u);
    EXPECT_EQ(p.nodes[1].kind, RAVEL_KCFA_LAM);
    EXPECT_EQ(p.nodes[1].as.lam.x, 12u);
    EXPECT_EQ(p.nodes[1].as.lam.y, 13u);
    EXPECT_EQ(p.nodes[1].as.lam.body, 2u);
    EXPECT_EQ(p.nodes[7].as.app.f, 8u);
    EXPECT_EQ(p.nodes[8].as.ref.x, 15u); // b
    EXPECT_EQ(p.nodes[11].kind, RAVEL_KCFA_REF);
    EXPECT_EQ(p.nodes[11].as.ref.x, 16u); // free
    ravel_kcfa_program_free(&p);
}

TEST(KcfaParse, FactTablesListEveryNodeOnce)
{
    ravel_kcfa_program p = parse_ok(kSmall);
    ravel_kcfa_facts f;
    ASSERT_EQ(ravel_kcfa_facts_build(&p, &f), 0);
    EXPECT_EQ(f.prog[0], 0u);
    const std::vector<uint64_t> lam = {1, 12, 13, 2, 6, 14, 15, 7};
    const std::vector<uint64_t> app = {0, 1, 6, 11, 2, 3, 4, 5, 7, 8, 9, 10};
    const std::vector<uint64_t> var = {3, 13, 4, 12, 5, 12, 8, 15,
                                       9, 14, 10, 14, 11, 16};
    ASSERT_EQ(f.nlam, 2u);
    ASSERT_EQ(f.napp, 3u);
    ASSERT_EQ(f.nvar, 7u);
    EXPECT_EQ(std::vector<uint64_t>(f.lam, f.lam + 8), lam);
    EXPECT_EQ(std::vector<uint64_t>(f.app, f.app + 12), app);
    EXPECT_EQ(std::vector<uint64_t>(f.var, f.var + 14), var);
    ravel_kcfa_facts_free(&f);
    ravel_kcfa_program_free(&p);
}

TEST(KcfaParse, StringsCommentsAndKeywordsAsNames)
{
    // "x" and x are one name; a string may hold spaces, parentheses, ';',
    // escaped quotes and backslashes; form names are ordinary names in name
    // position; comments run to the end of the line.
    ravel_kcfa_program p = parse_ok(
        "; a comment before\n(program ; and after the head\n"
        "  (app (lam \"x\" lam (app (ref x) (ref \"a b(;)\") (ref \"q\\\"\\\\\")))\n"
        "       (ref ref) (ref app)))  ; trailing comment, no newline");
    ASSERT_EQ(p.nnodes, 8u);
    const char *names[] = {"x", "lam", "a b(;)", "q\"\\", "ref", "app"};
    ASSERT_EQ(p.nnames, 6u);
    for (int i = 0; i < 6; i++)
        EXPECT_STREQ(ravel_kcfa_name(&p, 8 + i), names[i]);
    EXPECT_EQ(p.nodes[3].as.ref.x, 8u); // (ref x) is the parameter "x"
    // The printer quotes what cannot be a symbol, and reads back the same.
    std::string text = emit_to_string(p);
    ravel_kcfa_program q = parse_ok(text);
    expect_same_program(p, q);
    EXPECT_NE(text.find("\"a b(;)\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"q\\\"\\\\\""), std::string::npos) << text;
    ravel_kcfa_program_free(&q);
    ravel_kcfa_program_free(&p);
}

TEST(KcfaParse, EmitRoundTripsHandWrittenPrograms)
{
    const char *programs[] = {
        kSmall,
        "(program (app (ref f) (ref f) (ref f)))",
        "(program (app (lam k k (app (ref k) (ref free) (ref k)))\n"
        "  (lam p q (app (ref q) (ref p) (ref free)))\n"
        "  (lam p r (app (ref p) (ref r) (ref r)))))",
    };
    for (const char *text : programs) {
        ravel_kcfa_program p = parse_ok(text);
        std::string out = emit_to_string(p);
        ravel_kcfa_program q = parse_ok(out);
        expect_same_program(p, q);
        EXPECT_EQ(node_text(p, 0), node_text(q, 0));
        EXPECT_EQ(emit_to_string(q), out); // printing is deterministic
        ravel_kcfa_program_free(&q);
        ravel_kcfa_program_free(&p);
    }
}

TEST(KcfaParse, EmitRoundTripsGeneratedPrograms)
{
    for (uint64_t n : {1, 2, 3, 4, 7, 50}) {
        ravel_kcfa_program p;
        ASSERT_EQ(ravel_kcfa_generate(n, &p), 0);
        std::string out = emit_to_string(p);
        ravel_kcfa_program q = parse_ok(out);
        expect_same_program(p, q);
        ravel_kcfa_program_free(&q);
        ravel_kcfa_program_free(&p);
    }
}

TEST(KcfaParse, DeepNestingNeedsNoRecursion)
{
    // 200,000 nested lams (400,000 levels of forms): far more than a
    // recursive parser's C stack would survive.
    const size_t depth = 200000;
    std::string text = "(program ";
    for (size_t i = 0; i < depth; i++)
        text += "(app (ref f) (ref f) (lam x k ";
    text += "(app (ref k) (ref k) (ref k))";
    for (size_t i = 0; i < depth; i++)
        text += "))";
    text += ")";
    ravel_kcfa_program p = parse_ok(text);
    ASSERT_EQ(p.nnodes, depth * 4 + 4);
    EXPECT_EQ(p.nodes[p.nnodes - 4].kind, RAVEL_KCFA_APP);
    std::string out = emit_to_string(p);
    ravel_kcfa_program q = parse_ok(out);
    expect_same_program(p, q);
    ravel_kcfa_program_free(&q);
    ravel_kcfa_program_free(&p);

    ravel_kcfa_program g;
    ASSERT_EQ(ravel_kcfa_generate(20000, &g), 0);
    EXPECT_EQ(g.nnodes, 32u + 24u * 20000u);
    ravel_kcfa_program_free(&g);
}

TEST(KcfaParse, ReadsFilesAndNamesMissingOnes)
{
    char path[] = "/tmp/kcfa_parse_XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    FILE *f = fdopen(fd, "w");
    ASSERT_NE(f, nullptr);
    fputs(kSmall, f);
    fclose(f);
    ravel_kcfa_program p;
    ASSERT_EQ(ravel_kcfa_parse_file(path, &p, nullptr), 0);
    EXPECT_EQ(p.nnodes, 12u);
    ravel_kcfa_program_free(&p);
    remove(path);
    ravel_kcfa_parse_error err;
    EXPECT_NE(ravel_kcfa_parse_file(path, &p, &err), 0);
    EXPECT_EQ(err.line, 0u);
    EXPECT_NE(std::string(err.message).find(path), std::string::npos);
    EXPECT_EQ(p.nodes, nullptr);
}

} // namespace
