// The reference k-CFA against relations derived by hand for tiny programs,
// against a second, naive evaluation of the five rules (every rule applied
// to whole relations until nothing changes), and against invariants that
// follow from the rules, for generated N = 1..4 and k = 1..3.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kcfa_generate.h"
#include "kcfa_reference.h"
#include "kcfa_test_util.h"

namespace {

using Tuple = std::vector<uint64_t>;
using Relation = std::set<Tuple>;

Relation as_set(const kcfa_reference_relation &r)
{
    Relation s;
    for (size_t i = 0; i < r.nrows; i++)
        s.insert(Tuple(r.rows + i * r.arity, r.rows + (i + 1) * r.arity));
    return s;
}

// Rows must be sorted and distinct, as the header promises.
void expect_sorted_and_distinct(const kcfa_reference_relation &r)
{
    for (size_t i = 1; i < r.nrows; i++) {
        Tuple prev(r.rows + (i - 1) * r.arity, r.rows + i * r.arity);
        Tuple cur(r.rows + i * r.arity, r.rows + (i + 1) * r.arity);
        EXPECT_LT(prev, cur) << r.name << " row " << i;
    }
}

Tuple cat(std::initializer_list<Tuple> parts)
{
    Tuple t;
    for (const Tuple &p : parts)
        t.insert(t.end(), p.begin(), p.end());
    return t;
}

// ---------------------------------------------------------------------------
// Program A, numbered by hand (preorder):
//   0 (app 1 6 11)
//   1 (lam x k 2)    2 (app 3 4 5)    3 (ref k)  4 (ref x)  5 (ref x)
//   6 (lam a b 7)    7 (app 8 9 10)   8 (ref b)  9 (ref a) 10 (ref a)
//  11 (lam c d 12)  12 (app 13 14 15) 13 (ref d) 14 (ref c) 15 (ref c)
// Names: x 16, k 17, a 18, b 19, c 20, d 21.  The run: 0 enters 1 with
// x = 6, k = 11; 2 calls k: enters 11 with c = d = 6; 12 calls d: enters 6
// with a = b = 6; 7 calls b: enters 6 again, forever at call site 7.
const char *const kProgramA =
    "(program (app (lam x k (app (ref k) (ref x) (ref x)))\n"
    "              (lam a b (app (ref b) (ref a) (ref a)))\n"
    "              (lam c d (app (ref d) (ref c) (ref c)))))";

TEST(KcfaReference, ProgramAWithK1MatchesTheHandDerivation)
{
    const uint64_t x = 16, k = 17, a = 18, b = 19, c = 20, d = 21;
    ravel_kcfa_program p = parse_ok(kProgramA);
    kcfa_reference_result r;
    ASSERT_EQ(kcfa_reference_run(&p, 1, &r), 0);
    // Contexts with k = 1 are one call site: tau0 = (0), then (2), (12), (7).
    EXPECT_EQ(as_set(r.rel[KCFA_REF_TIME]), (Relation{{0}, {2}, {12}, {7}}));
    EXPECT_EQ(as_set(r.rel[KCFA_REF_REACHES_CFG]),
              (Relation{{0, 0}, {2, 0}, {12, 2}, {7, 12}, {7, 7}}));
    EXPECT_EQ(as_set(r.rel[KCFA_REF_STORE]),
              (Relation{{x, 0, 6, 0},
                        {k, 0, 11, 0},
                        {c, 2, 6, 0},
                        {d, 2, 6, 0},
                        {a, 12, 6, 0},
                        {b, 12, 6, 0},
                        {a, 7, 6, 0},
                        {b, 7, 6, 0}}));
    EXPECT_EQ(as_set(r.rel[KCFA_REF_STEP]),
              (Relation{{0, 0, 2, 0, 1, 0},
                        {2, 0, 12, 2, 11, 0},
                        {12, 2, 7, 12, 6, 0},
                        {7, 12, 7, 7, 6, 0},
                        {7, 7, 7, 7, 6, 0}}));
    EXPECT_EQ(as_set(r.rel[KCFA_REF_REACHES_CLO]),
              (Relation{{1, 0}, {11, 0}, {6, 0}}));
    Relation aeval;
    for (uint64_t t : {0, 2, 12, 7}) // rule 3: every lam in every context
        for (uint64_t l : {1, 6, 11})
            aeval.insert({l, t, l, t});
    // In every context, x (refs 4, 5) is 6 and k (ref 3) is 11: stored at
    // (0), then carried by rule 5 into (2), (12) and (7), where neither is a
    // parameter of the entered lambda.
    for (uint64_t t : {0, 2, 12, 7}) {
        aeval.insert({4, t, 6, 0});
        aeval.insert({5, t, 6, 0});
        aeval.insert({3, t, 11, 0});
    }
    for (uint64_t ref : {13, 14, 15}) // c, d stored at (2)
        aeval.insert({ref, 2, 6, 0});
    for (uint64_t t : {12, 7}) // a, b stored at (12) and (7)
        for (uint64_t ref : {8, 9, 10})
            aeval.insert({ref, t, 6, 0});
    EXPECT_EQ(as_set(r.rel[KCFA_REF_AEVAL]), aeval);
    for (const auto &rel : r.rel)
        expect_sorted_and_distinct(rel);
    kcfa_reference_free(&r);
    ravel_kcfa_program_free(&p);
}

TEST(KcfaReference, ProgramAWithK2KeepsTwoCallSites)
{
    ravel_kcfa_program p = parse_ok(kProgramA);
    kcfa_reference_result r;
    ASSERT_EQ(kcfa_reference_run(&p, 2, &r), 0);
    // push(a, (t1, t2)) = (a, t1): (0,0) -> (0,0) -> (2,0) -> (12,2) ->
    // (7,12) -> (7,7) -> (7,7).
    EXPECT_EQ(as_set(r.rel[KCFA_REF_TIME]),
              (Relation{{0, 0}, {2, 0}, {12, 2}, {7, 12}, {7, 7}}));
    const Tuple t00{0, 0}, t20{2, 0}, t122{12, 2}, t712{7, 12}, t77{7, 7};
    EXPECT_EQ(as_set(r.rel[KCFA_REF_STEP]),
              (Relation{cat({{0}, t00, {2}, t00, {1}, t00}),
                        cat({{2}, t00, {12}, t20, {11}, t00}),
                        cat({{12}, t20, {7}, t122, {6}, t00}),
                        cat({{7}, t122, {7}, t712, {6}, t00}),
                        cat({{7}, t712, {7}, t77, {6}, t00}),
                        cat({{7}, t77, {7}, t77, {6}, t00})}));
    EXPECT_EQ(r.rel[KCFA_REF_REACHES_CFG].nrows, 6u);
    EXPECT_EQ(r.rel[KCFA_REF_STORE].nrows, 2u + 2u + 2u * 3u);
    EXPECT_EQ(r.rel[KCFA_REF_AEVAL].nrows, 3u * 5u + 3u + 6u * 4u);
    EXPECT_EQ(r.rel[KCFA_REF_REACHES_CLO].nrows, 3u);
    EXPECT_EQ(r.rel[KCFA_REF_STEP].arity, 3u + 3u * 2u);
    EXPECT_EQ(r.rel[KCFA_REF_AEVAL].arity, 2u + 2u * 2u);
    kcfa_reference_free(&r);
    ravel_kcfa_program_free(&p);
}

// ---------------------------------------------------------------------------
// Program B: two lams bind p (one variable, shared), and `free` is bound by
// nothing, so the call (app (ref q) (ref p) (ref free)) is reached but never
// steps.  Numbering:
//   0 (app 1 6 11)
//   1 (lam f g 2)    2 (app 3 4 5)    3 (ref f)  4 (ref g)  5 (ref g)
//   6 (lam p q 7)    7 (app 8 9 10)   8 (ref q)  9 (ref p) 10 (ref free)
//  11 (lam p r 12)  12 (app 13 14 15) 13 (ref p) 14 (ref r) 15 (ref r)
// Names: f 16, g 17, p 18, q 19, free 20, r 21.
const char *const kProgramB =
    "(program (app (lam f g (app (ref f) (ref g) (ref g)))\n"
    "              (lam p q (app (ref q) (ref p) (ref free)))\n"
    "              (lam p r (app (ref p) (ref r) (ref r)))))";

TEST(KcfaReference, ProgramBSharesShadowedNamesAndStopsAtFreeVariables)
{
    const uint64_t f = 16, g = 17, pp = 18, q = 19;
    ravel_kcfa_program p = parse_ok(kProgramB);
    ASSERT_EQ(p.nnodes, 16u);
    ASSERT_EQ(p.nnames, 6u);
    kcfa_reference_result r;
    ASSERT_EQ(kcfa_reference_run(&p, 1, &r), 0);
    EXPECT_EQ(as_set(r.rel[KCFA_REF_TIME]), (Relation{{0}, {2}}));
    EXPECT_EQ(as_set(r.rel[KCFA_REF_REACHES_CFG]),
              (Relation{{0, 0}, {2, 0}, {7, 2}}));
    EXPECT_EQ(as_set(r.rel[KCFA_REF_STORE]),
              (Relation{{f, 0, 6, 0}, {g, 0, 11, 0}, {pp, 2, 11, 0},
                        {q, 2, 11, 0}}));
    EXPECT_EQ(as_set(r.rel[KCFA_REF_STEP]),
              (Relation{{0, 0, 2, 0, 1, 0}, {2, 0, 7, 2, 6, 0}}));
    EXPECT_EQ(as_set(r.rel[KCFA_REF_REACHES_CLO]),
              (Relation{{1, 0}, {6, 0}}));
    Relation aeval;
    for (uint64_t t : {0, 2})
        for (uint64_t l : {1, 6, 11})
            aeval.insert({l, t, l, t});
    for (uint64_t t : {0, 2}) { // f, g: stored at (0), carried into (2)
        aeval.insert({3, t, 6, 0});
        aeval.insert({4, t, 11, 0});
        aeval.insert({5, t, 11, 0});
    }
    // p is stored at (2) by entering lam 6, and ref 13 (inside lam 11, which
    // also binds p) sees it: variables are names.  ref 10 (free) has none.
    aeval.insert({9, 2, 11, 0});
    aeval.insert({13, 2, 11, 0});
    aeval.insert({8, 2, 11, 0});
    EXPECT_EQ(as_set(r.rel[KCFA_REF_AEVAL]), aeval);
    kcfa_reference_free(&r);
    ravel_kcfa_program_free(&p);
}

TEST(KcfaReference, RejectsKZero)
{
    ravel_kcfa_program p = parse_ok(kProgramA);
    kcfa_reference_result r;
    EXPECT_NE(kcfa_reference_run(&p, 0, &r), 0);
    ravel_kcfa_program_free(&p);
}

// ---------------------------------------------------------------------------
// A second oracle: the five rules applied naively to whole relations, with
// contexts kept as tuples, until a round adds nothing.
struct Naive {
    Relation time, rcfg, aeval, store, step, rclo;
};

Tuple slice(const Tuple &t, size_t from, size_t n)
{
    return Tuple(t.begin() + from, t.begin() + from + n);
}

Naive naive_kcfa(const ravel_kcfa_program &p, size_t k)
{
    Naive n;
    const Tuple tau0(k, 0);
    n.rcfg.insert(cat({{0}, tau0}));
    n.time.insert(tau0);
    for (;;) {
        size_t before = n.time.size() + n.rcfg.size() + n.aeval.size() +
                        n.store.size() + n.step.size() + n.rclo.size();
        // AEval by (s, tau) for the joins of rules 2 and 5.
        std::map<Tuple, std::vector<Tuple>> values;
        for (const Tuple &t : n.aeval)
            values[slice(t, 0, 1 + k)].push_back(slice(t, 1 + k, 1 + k));
        Naive next = n;
        for (const Tuple &t : n.time) // rule 3
            for (uint64_t l = 0; l < p.nnodes; l++)
                if (p.nodes[l].kind == RAVEL_KCFA_LAM)
                    next.aeval.insert(cat({{l}, t, {l}, t}));
        for (const Tuple &s : n.store) // rule 4
            for (uint64_t r = 0; r < p.nnodes; r++)
                if (p.nodes[r].kind == RAVEL_KCFA_REF &&
                    p.nodes[r].as.ref.x == s[0])
                    next.aeval.insert(cat({{r}, slice(s, 1, 1 + 2 * k)}));
        for (const Tuple &st : n.step) { // rule 5
            Tuple tau = slice(st, 2 + k, k), tauc = slice(st, 3 + 2 * k, k);
            const ravel_kcfa_node &lc = p.nodes[st[2 + 2 * k]];
            for (uint64_t r = 0; r < p.nnodes; r++) {
                const ravel_kcfa_node &ref = p.nodes[r];
                if (ref.kind != RAVEL_KCFA_REF || ref.as.ref.x == lc.as.lam.x ||
                    ref.as.ref.x == lc.as.lam.y)
                    continue;
                for (const Tuple &v : values[cat({{r}, tauc})])
                    next.aeval.insert(cat({{r}, tau, v}));
            }
        }
        for (const Tuple &rc : n.rcfg) { // rule 2
            const ravel_kcfa_node &app = p.nodes[rc[0]];
            Tuple tau = slice(rc, 1, k);
            Tuple tau2 = cat({{rc[0]}, slice(tau, 0, k - 1)});
            for (const Tuple &fv : values[cat({{app.as.app.f}, tau})]) {
                const ravel_kcfa_node &lam = p.nodes[fv[0]];
                Tuple tauf = slice(fv, 1, k);
                for (const Tuple &v0 : values[cat({{app.as.app.a0}, tau})])
                    for (const Tuple &v1 :
                         values[cat({{app.as.app.a1}, tau})]) {
                        next.store.insert(cat({{lam.as.lam.x}, tau2, v0}));
                        next.store.insert(cat({{lam.as.lam.y}, tau2, v1}));
                        next.step.insert(cat({{rc[0]}, tau, {lam.as.lam.body},
                                              tau2, {fv[0]}, tauf}));
                        next.rcfg.insert(cat({{lam.as.lam.body}, tau2}));
                        next.rclo.insert(cat({{fv[0]}, tauf}));
                        next.time.insert(tau2);
                    }
            }
        }
        n = next;
        size_t after = n.time.size() + n.rcfg.size() + n.aeval.size() +
                       n.store.size() + n.step.size() + n.rclo.size();
        if (after == before)
            return n;
    }
}

void expect_equals_naive(const ravel_kcfa_program &p, size_t k)
{
    kcfa_reference_result r;
    ASSERT_EQ(kcfa_reference_run(&p, k, &r), 0);
    Naive n = naive_kcfa(p, k);
    EXPECT_EQ(as_set(r.rel[KCFA_REF_TIME]), n.time);
    EXPECT_EQ(as_set(r.rel[KCFA_REF_REACHES_CFG]), n.rcfg);
    EXPECT_EQ(as_set(r.rel[KCFA_REF_AEVAL]), n.aeval);
    EXPECT_EQ(as_set(r.rel[KCFA_REF_STORE]), n.store);
    EXPECT_EQ(as_set(r.rel[KCFA_REF_STEP]), n.step);
    EXPECT_EQ(as_set(r.rel[KCFA_REF_REACHES_CLO]), n.rclo);
    kcfa_reference_free(&r);
}

TEST(KcfaReference, EqualsNaiveEvaluationOnHandWrittenPrograms)
{
    for (const char *text : {kProgramA, kProgramB}) {
        ravel_kcfa_program p = parse_ok(text);
        for (size_t k = 1; k <= 3; k++)
            expect_equals_naive(p, k);
        ravel_kcfa_program_free(&p);
    }
}

TEST(KcfaReference, EqualsNaiveEvaluationOnGeneratedPrograms)
{
    for (uint64_t n = 1; n <= 4; n++) {
        ravel_kcfa_program p;
        ASSERT_EQ(ravel_kcfa_generate(n, &p), 0);
        for (size_t k = 1; k <= 3; k++) {
            SCOPED_TRACE("N = " + std::to_string(n) +
                         ", k = " + std::to_string(k));
            expect_equals_naive(p, k);
        }
        ravel_kcfa_program_free(&p);
    }
}

// ---------------------------------------------------------------------------
// Invariants that follow from the rules alone.
void check_invariants(const ravel_kcfa_program &p, const kcfa_reference_result
                                                       &r)
{
    const size_t k = r.k;
    Relation time = as_set(r.rel[KCFA_REF_TIME]),
             rcfg = as_set(r.rel[KCFA_REF_REACHES_CFG]),
             aeval = as_set(r.rel[KCFA_REF_AEVAL]),
             store = as_set(r.rel[KCFA_REF_STORE]),
             step = as_set(r.rel[KCFA_REF_STEP]),
             rclo = as_set(r.rel[KCFA_REF_REACHES_CLO]);
    // Time, ReachesCfg and ReachesClo are only ever derived together with a
    // Step (rule 2) or by rule 1.
    Relation want_time{Tuple(k, 0)}, want_rcfg{cat({{0}, Tuple(k, 0)})},
        want_rclo;
    for (const Tuple &st : step) {
        want_time.insert(slice(st, 2 + k, k));
        want_rcfg.insert(slice(st, 1 + k, 1 + k));
        want_rclo.insert(slice(st, 2 + 2 * k, 1 + k));
    }
    EXPECT_EQ(time, want_time);
    EXPECT_EQ(rcfg, want_rcfg);
    EXPECT_EQ(rclo, want_rclo);
    // Each Step is a reached call entering a value of its function part,
    // in the pushed context.
    for (const Tuple &st : step) {
        const ravel_kcfa_node &app = p.nodes[st[0]];
        const ravel_kcfa_node &lam = p.nodes[st[2 + 2 * k]];
        ASSERT_EQ(app.kind, RAVEL_KCFA_APP);
        ASSERT_EQ(lam.kind, RAVEL_KCFA_LAM);
        EXPECT_EQ(lam.as.lam.body, st[1 + k]);
        EXPECT_TRUE(rcfg.count(slice(st, 0, 1 + k)));
        Tuple pushed = cat({{st[0]}, slice(st, 1, k - 1)});
        EXPECT_EQ(slice(st, 2 + k, k), pushed);
        EXPECT_TRUE(aeval.count(cat({{app.as.app.f}, slice(st, 1, k),
                                     slice(st, 2 + 2 * k, 1 + k)})));
    }
    // Lambdas evaluate only to themselves, in every context (rule 3); refs
    // only in contexts and to closures whose contexts exist.
    size_t lam_rows = 0;
    for (const Tuple &t : aeval) {
        EXPECT_TRUE(time.count(slice(t, 1, k)));
        EXPECT_TRUE(time.count(slice(t, 2 + k, k)));
        EXPECT_EQ(p.nodes[t[1 + k]].kind, RAVEL_KCFA_LAM);
        if (p.nodes[t[0]].kind == RAVEL_KCFA_LAM) {
            EXPECT_EQ(t[0], t[1 + k]);
            EXPECT_EQ(slice(t, 1, k), slice(t, 2 + k, k));
            lam_rows++;
        }
    }
    EXPECT_EQ(lam_rows, time.size() * p.nlam);
    // Every stored variable is some lambda's parameter.
    std::set<uint64_t> params;
    for (size_t i = 0; i < p.nnodes; i++)
        if (p.nodes[i].kind == RAVEL_KCFA_LAM) {
            params.insert(p.nodes[i].as.lam.x);
            params.insert(p.nodes[i].as.lam.y);
        }
    for (const Tuple &t : store) {
        EXPECT_TRUE(params.count(t[0]));
        EXPECT_TRUE(time.count(slice(t, 1, k)));
        EXPECT_EQ(p.nodes[t[1 + k]].kind, RAVEL_KCFA_LAM);
    }
}

TEST(KcfaReference, GeneratedProgramsSizesAndInvariants)
{
    for (uint64_t n = 1; n <= 4; n++) {
        ravel_kcfa_program p;
        ASSERT_EQ(ravel_kcfa_generate(n, &p), 0);
        for (size_t k = 1; k <= 3; k++) {
            SCOPED_TRACE("N = " + std::to_string(n) +
                         ", k = " + std::to_string(k));
            kcfa_reference_result r;
            ASSERT_EQ(kcfa_reference_run(&p, k, &r), 0);
            printf("generated N=%zu k=%zu:", (size_t)n, k);
            for (const auto &rel : r.rel) {
                printf(" %s %zu", rel.name, rel.nrows);
                expect_sorted_and_distinct(rel);
            }
            printf("\n");
            check_invariants(p, r);
            kcfa_reference_free(&r);
        }
        ravel_kcfa_program_free(&p);
    }
}

} // namespace
