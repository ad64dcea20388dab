// The reference k-CFA: a worklist abstract interpreter over the syntax tree.
//
// Every derived fact is inserted once into its relation's set (which also
// updates the lookup indexes) and queued; popping a fact fires the rules in
// which it is a premise, joining against everything inserted so far.  A rule
// instance is therefore derived when the last of its premises is popped, so
// the fixpoint is complete.  Contexts are interned to small integers and
// written back out as k call-site columns at the end.
#include "kcfa_reference.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <new>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

using Ctx = uint64_t; // an interned context
using Row = std::array<uint64_t, 6>;

struct RowHash {
    size_t operator()(const Row &r) const
    {
        uint64_t h = 1469598103934665603ull;
        for (uint64_t v : r) {
            h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
            h *= 1099511628211ull;
        }
        return (size_t)h;
    }
};

struct Fact {
    int rel; // a kcfa_reference_relation_id
    Row row; // interned: contexts are Ctx ids, nodes and names are ids
};

class Analysis {
  public:
    Analysis(const ravel_kcfa_program *p, size_t k) : p_(p), k_(k)
    {
        parent_.assign(p->nnodes, UINT64_MAX);
        refs_of_name_.resize(p->nnames);
        for (uint64_t id = 0; id < p->nnodes; id++) {
            const ravel_kcfa_node &n = p->nodes[id];
            if (n.kind == RAVEL_KCFA_APP) {
                parent_[n.as.app.f] = id;
                parent_[n.as.app.a0] = id;
                parent_[n.as.app.a1] = id;
            } else if (n.kind == RAVEL_KCFA_LAM) {
                lams_.push_back(id);
            } else {
                refs_.push_back(id);
                refs_of_name_[n.as.ref.x - p->nnodes].push_back(id);
            }
        }
    }

    void run()
    {
        // Rule 1: ReachesCfg(e, tau0) and Time(tau0).
        Ctx tau0 = intern(std::vector<uint64_t>(k_, RAVEL_KCFA_TOP));
        add(KCFA_REF_REACHES_CFG, {RAVEL_KCFA_TOP, tau0});
        add(KCFA_REF_TIME, {tau0});
        while (!work_.empty()) {
            Fact f = work_.front();
            work_.pop_front();
            fire(f);
        }
    }

    void write(kcfa_reference_result *out) const
    {
        static const char *const names[KCFA_REF_NRELATIONS] = {
            "Time", "ReachesCfg", "AEval", "Store", "Step", "ReachesClo"};
        // Which interned columns are contexts, per relation.
        static const std::vector<bool> is_ctx[KCFA_REF_NRELATIONS] = {
            {true},
            {false, true},
            {false, true, false, true},
            {false, true, false, true},
            {false, true, false, true, false, true},
            {false, true}};
        out->k = k_;
        for (int r = 0; r < KCFA_REF_NRELATIONS; r++) {
            std::vector<std::vector<uint64_t>> rows;
            for (const Row &in : set_[r]) {
                std::vector<uint64_t> row;
                for (size_t c = 0; c < is_ctx[r].size(); c++) {
                    if (is_ctx[r][c])
                        row.insert(row.end(), ctx_[in[c]].begin(),
                                   ctx_[in[c]].end());
                    else
                        row.push_back(in[c]);
                }
                rows.push_back(row);
            }
            std::sort(rows.begin(), rows.end());
            rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
            size_t arity = 0;
            for (bool c : is_ctx[r])
                arity += c ? k_ : 1;
            kcfa_reference_relation &rel = out->rel[r];
            rel.name = names[r];
            rel.arity = arity;
            rel.nrows = rows.size();
            rel.rows = (uint64_t *)malloc((rows.size() * arity + 1) *
                                          sizeof(uint64_t));
            if (!rel.rows)
                throw std::bad_alloc();
            for (size_t i = 0; i < rows.size(); i++)
                std::memcpy(rel.rows + i * arity, rows[i].data(),
                            arity * sizeof(uint64_t));
        }
    }

  private:
    static uint64_t key(uint64_t node, Ctx c) { return node << 32 | c; }

    Ctx intern(const std::vector<uint64_t> &ctx)
    {
        auto it = ctx_id_.find(ctx);
        if (it != ctx_id_.end())
            return it->second;
        if (ctx_.size() >= (uint64_t)1 << 32) // key() packs it in 32 bits
            throw std::bad_alloc();
        ctx_.push_back(ctx);
        ctx_id_.emplace(ctx, ctx_.size() - 1);
        return ctx_.size() - 1;
    }

    Ctx push(uint64_t a, Ctx tau)
    {
        std::vector<uint64_t> c(k_);
        c[0] = a;
        for (size_t i = 1; i < k_; i++)
            c[i] = ctx_[tau][i - 1];
        return intern(c);
    }

    void add(int rel, std::initializer_list<uint64_t> cols)
    {
        Row row{};
        std::copy(cols.begin(), cols.end(), row.begin());
        if (!set_[rel].insert(row).second)
            return;
        if (rel == KCFA_REF_AEVAL)
            values_[key(row[0], row[1])].push_back({row[2], row[3]});
        work_.push_back({rel, row});
    }

    const std::vector<std::pair<uint64_t, Ctx>> &values(uint64_t s, Ctx tau)
    {
        static const std::vector<std::pair<uint64_t, Ctx>> none;
        auto it = values_.find(key(s, tau));
        return it == values_.end() ? none : it->second;
    }

    // Rule 2 for call site a in context tau.  Store(x) needs only the
    // function's and the first argument's values, but like the other
    // conclusions it exists only when all three parts have a value.
    void fire_app(uint64_t a, Ctx tau)
    {
        if (!set_[KCFA_REF_REACHES_CFG].count(Row{a, tau}))
            return;
        const ravel_kcfa_node &app = p_->nodes[a];
        std::vector<std::pair<uint64_t, Ctx>> fs = values(app.as.app.f, tau),
                                              v0 = values(app.as.app.a0, tau),
                                              v1 = values(app.as.app.a1, tau);
        if (v0.empty() || v1.empty())
            return;
        Ctx tau2 = push(a, tau);
        for (auto [l, tauf] : fs) {
            const ravel_kcfa_node &lam = p_->nodes[l];
            add(KCFA_REF_STEP, {a, tau, lam.as.lam.body, tau2, l, tauf});
            add(KCFA_REF_REACHES_CFG, {lam.as.lam.body, tau2});
            add(KCFA_REF_REACHES_CLO, {l, tauf});
            add(KCFA_REF_TIME, {tau2});
            for (auto [l0, tau0] : v0)
                add(KCFA_REF_STORE, {lam.as.lam.x, tau2, l0, tau0});
            for (auto [l1, tau1] : v1)
                add(KCFA_REF_STORE, {lam.as.lam.y, tau2, l1, tau1});
        }
    }

    bool binds(uint64_t lam, uint64_t name) const
    {
        const ravel_kcfa_node &n = p_->nodes[lam];
        return n.as.lam.x == name || n.as.lam.y == name;
    }

    // Rule 5 for one entered closure: (tau2, lc, tauc) and ref node r.
    void copy_free(uint64_t r, Ctx tau2, Ctx tauc)
    {
        std::vector<std::pair<uint64_t, Ctx>> vs = values(r, tauc);
        for (auto [l, taul] : vs)
            add(KCFA_REF_AEVAL, {r, tau2, l, taul});
    }

    void fire(const Fact &f)
    {
        const Row &t = f.row;
        switch (f.rel) {
        case KCFA_REF_REACHES_CFG: fire_app(t[0], t[1]); break;
        case KCFA_REF_TIME: // rule 3
            for (uint64_t l : lams_)
                add(KCFA_REF_AEVAL, {l, t[0], l, t[0]});
            break;
        case KCFA_REF_STORE: // rule 4
            for (uint64_t r : refs_of_name_[t[0] - p_->nnodes])
                add(KCFA_REF_AEVAL, {r, t[1], t[2], t[3]});
            break;
        case KCFA_REF_STEP: { // rule 5, from the closure's side
            Row entry{t[3], t[4], t[5]};
            if (!entered_.insert(entry).second)
                break;
            entered_by_env_[t[5]].push_back({t[4], t[3]});
            for (uint64_t r : refs_)
                if (!binds(t[4], p_->nodes[r].as.ref.x))
                    copy_free(r, t[3], t[5]);
            break;
        }
        case KCFA_REF_AEVAL: {
            uint64_t s = t[0];
            if (parent_[s] != UINT64_MAX) // rule 2, from the value's side
                fire_app(parent_[s], t[1]);
            if (p_->nodes[s].kind != RAVEL_KCFA_REF)
                break;
            auto it = entered_by_env_.find(t[1]); // rule 5, value's side
            if (it == entered_by_env_.end())
                break;
            std::vector<std::pair<uint64_t, Ctx>> entries = it->second;
            for (auto [lc, tau2] : entries)
                if (!binds(lc, p_->nodes[s].as.ref.x))
                    add(KCFA_REF_AEVAL, {s, tau2, t[2], t[3]});
            break;
        }
        default: break; // ReachesClo is a conclusion only
        }
    }

    const ravel_kcfa_program *p_;
    size_t k_;
    std::vector<uint64_t> parent_; // the app holding each lam/ref node
    std::vector<uint64_t> lams_, refs_;
    std::vector<std::vector<uint64_t>> refs_of_name_;
    std::vector<std::vector<uint64_t>> ctx_;
    std::map<std::vector<uint64_t>, Ctx> ctx_id_;
    std::unordered_set<Row, RowHash> set_[KCFA_REF_NRELATIONS];
    // AEval's values by (s, tau): the join key of rules 2 and 5.
    std::unordered_map<uint64_t, std::vector<std::pair<uint64_t, Ctx>>>
        values_;
    // Entered closures (tau2, lc, tauc), and by tauc: (lc, tau2).
    std::unordered_set<Row, RowHash> entered_;
    std::unordered_map<Ctx, std::vector<std::pair<uint64_t, Ctx>>>
        entered_by_env_;
    std::deque<Fact> work_;
};

} // namespace

extern "C" int kcfa_reference_run(const ravel_kcfa_program *prog, size_t k,
                                  kcfa_reference_result *out)
{
    std::memset(out, 0, sizeof *out);
    if (k == 0) {
        fprintf(stderr, "kcfa_reference_run: k must be at least 1\n");
        return -1;
    }
    if (prog->nnodes >= (uint64_t)1 << 31) {
        fprintf(stderr, "kcfa_reference_run: %zu nodes is too many\n",
                prog->nnodes);
        return -1;
    }
    try {
        Analysis a(prog, k);
        a.run();
        a.write(out);
    } catch (const std::bad_alloc &) {
        kcfa_reference_free(out);
        fprintf(stderr, "kcfa_reference_run: out of memory\n");
        return -1;
    }
    return 0;
}

extern "C" void kcfa_reference_free(kcfa_reference_result *result)
{
    for (int r = 0; r < KCFA_REF_NRELATIONS; r++)
        free(result->rel[r].rows);
    std::memset(result, 0, sizeof *result);
}

extern "C" void kcfa_reference_print_sizes(FILE *out,
                                           const kcfa_reference_result *r)
{
    for (int i = 0; i < KCFA_REF_NRELATIONS; i++)
        fprintf(out, "%s\t%zu\n", r->rel[i].name, r->rel[i].nrows);
}
