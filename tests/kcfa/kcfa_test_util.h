// kcfa_test_util.h: helpers shared by the k-CFA unit tests: parse or emit a
// program through strings, and compare two programs node by node.
#ifndef KCFA_TEST_UTIL_H
#define KCFA_TEST_UTIL_H

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kcfa_emit.h"
#include "kcfa_parse.h"
#include "kcfa_program.h"

// Parses text, failing the test (with the parser's message) on error.
inline ravel_kcfa_program parse_ok(const std::string &text)
{
    ravel_kcfa_program p;
    ravel_kcfa_parse_error err;
    int rc = ravel_kcfa_parse_text(text.data(), text.size(), "test.kcfa", &p,
                                   &err);
    EXPECT_EQ(rc, 0) << err.line << ":" << err.column << ": " << err.message;
    return p;
}

inline std::string emit_to_string(const ravel_kcfa_program &p)
{
    char *buf = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    EXPECT_NE(f, nullptr);
    if (!f)
        return "";
    EXPECT_EQ(ravel_kcfa_emit(f, &p), 0);
    fclose(f);
    std::string s(buf, len);
    free(buf);
    return s;
}

// The tree of node `id` as text with names resolved, built independently of
// the emitter: a second printer, iterative, one line.
inline std::string node_text(const ravel_kcfa_program &p, uint64_t id)
{
    std::string out;
    std::vector<std::pair<uint64_t, int>> todo{{id, 0}}; // (node, or text)
    std::vector<std::string> texts;
    while (!todo.empty()) {
        auto [n, kind] = todo.back();
        todo.pop_back();
        if (kind == 1) {
            out += texts[n];
            continue;
        }
        const ravel_kcfa_node &node = p.nodes[n];
        auto lit = [&](const std::string &s) {
            texts.push_back(s);
            return std::make_pair((uint64_t)texts.size() - 1, 1);
        };
        if (node.kind == RAVEL_KCFA_REF) {
            out += std::string("(ref ") + ravel_kcfa_name(&p, node.as.ref.x) +
                   ")";
        } else if (node.kind == RAVEL_KCFA_LAM) {
            out += std::string("(lam ") + ravel_kcfa_name(&p, node.as.lam.x) +
                   " " + ravel_kcfa_name(&p, node.as.lam.y) + " ";
            todo.push_back(lit(")"));
            todo.push_back({node.as.lam.body, 0});
        } else {
            out += "(app ";
            todo.push_back(lit(")"));
            todo.push_back({node.as.app.a1, 0});
            todo.push_back(lit(" "));
            todo.push_back({node.as.app.a0, 0});
            todo.push_back(lit(" "));
            todo.push_back({node.as.app.f, 0});
        }
    }
    return out;
}

// Expects a and b to be the same tree with the same ids and names.
inline void expect_same_program(const ravel_kcfa_program &a,
                                const ravel_kcfa_program &b)
{
    ASSERT_EQ(a.nnodes, b.nnodes);
    ASSERT_EQ(a.nnames, b.nnames);
    EXPECT_EQ(a.nlam, b.nlam);
    EXPECT_EQ(a.napp, b.napp);
    EXPECT_EQ(a.nref, b.nref);
    for (size_t i = 0; i < a.nnames; i++)
        EXPECT_STREQ(ravel_kcfa_name(&a, a.nnodes + i),
                     ravel_kcfa_name(&b, b.nnodes + i));
    for (size_t i = 0; i < a.nnodes; i++) {
        const ravel_kcfa_node &x = a.nodes[i], &y = b.nodes[i];
        ASSERT_EQ(x.kind, y.kind) << "node " << i;
        if (x.kind == RAVEL_KCFA_LAM) {
            EXPECT_EQ(x.as.lam.x, y.as.lam.x) << "node " << i;
            EXPECT_EQ(x.as.lam.y, y.as.lam.y) << "node " << i;
            EXPECT_EQ(x.as.lam.body, y.as.lam.body) << "node " << i;
        } else if (x.kind == RAVEL_KCFA_APP) {
            EXPECT_EQ(x.as.app.f, y.as.app.f) << "node " << i;
            EXPECT_EQ(x.as.app.a0, y.as.app.a0) << "node " << i;
            EXPECT_EQ(x.as.app.a1, y.as.app.a1) << "node " << i;
        } else {
            EXPECT_EQ(x.as.ref.x, y.as.ref.x) << "node " << i;
        }
    }
}

#endif
