/* cost_model.c: the one place that knows what each backend costs.
 *
 * Notation.  P ranks, L = ceil(log2 P) Bruck steps, n_k = the number of
 * j in [1, P) with bit k set (blocks moved at step k), W = sum_k n_k =
 * sum_{j<P} popcount(j).  s(i,j) = bytes rank i sends rank j.  For rank r:
 * S_r = sum_{j!=r} s(r,j) and R_r = sum_{i!=r} s(i,r) (self excluded),
 * Z_r = s(r,r), M = max_{i,j} s(i,j) (self included: the padded backends
 * pad to it).
 *
 * COUNTS (exact; checked against the instrumented backends by the tests).
 *  vendor           one message per non-empty block to another rank,
 *                   carrying it; nothing posted or copied by ravel.
 *  spread-out       the same messages; posted = non-empty blocks sent +
 *                   non-empty blocks received; copied = Z_r.
 *  pairwise         the same as spread-out (the same messages, in another
 *                   order and one pair at a time).
 *  padded-alltoall  (M > 0) P-1 messages of M bytes; copied = every send
 *                   block into its slot and every receive block out of its
 *                   slot, self included: S_r + R_r + 2 Z_r.
 *  padded-bruck     (P > 1, M > 0) L messages, step k carrying n_k M bytes;
 *                   2 posted per step.  Copies: a block at distance j moves
 *                   at each of the popcount(j) steps whose bit j has set.  It
 *                   is packed from the send buffer at the first (its real
 *                   size) and from its slot of M bytes at the others; it is
 *                   unpacked into its slot of M at all but the last, where
 *                   its real size goes to the receive buffer.  So
 *                   copied = Z_r + S_r + R_r + 2 (W - (P - 1)) M.
 *  padded-bruck:basic  (P > 1, M > 0) padded-bruck's messages; copies of
 *                   the classical algorithm: pad (S_r + Z_r), rotate (P M),
 *                   pack and unpack every step (2 W M), rotate back (P M),
 *                   unpad (R_r + Z_r): copied = S_r + R_r + 2 Z_r
 *                   + 2 (P + W) M.  (P = 1: Z_r.)
 *  two-phase-bruck  (P > 1) 2 L messages: at step k, n_k * 8 bytes of sizes,
 *                   then D_k(r) bytes of data, where D_k(r) is the sum of the
 *                   blocks at r's moving positions before step k: position j
 *                   holds the block from src = r - (j mod 2^k) to src + j
 *                   (bruck_schedule.h).  4 posted per step.  Every block
 *                   sent is packed once and every block received unpacked
 *                   once: copied = Z_r + sum_k D_k(r) + sum_k D_k(r - 2^k).
 *  inline-bruck     (P > 1) two-phase Bruck's bytes in one message per step:
 *                   n_k * 8 bytes of sizes (counted as metadata bytes, in no
 *                   metadata message) and D_k(r) of data, plus a second
 *                   message at each step where D_k(r) > E (E =
 *                   INLINE_BRUCK_EAGER, 64 KiB) with the bytes past the
 *                   first n_k * 8 + E.  Posted: 2 per step, plus 1 where
 *                   D_k(r) > E and 1 where D_k(r - 2^k) > E.  Copies as
 *                   two-phase Bruck's.
 *  radix-bruck      (P > 1) radix r' = min(r, P), K = ceil(log_r' P) rounds.
 *                   n_kd = the j in [1, P) whose base-r' digit k is d;
 *                   D_kd(r) the sum of the blocks at those positions before
 *                   round k (position j holds the block from src = r - (j
 *                   mod r'^k) to src + j).  For every (k, d) with n_kd > 0:
 *                   one message of n_kd * 8 bytes of sizes (metadata bytes,
 *                   no metadata message) and D_kd(r) of data, plus a second
 *                   where D_kd(r) > E_r' = max(E / (r' - 1), 1 KiB);
 *                   posted 2, plus 1 where D_kd(r) > E_r' and 1 where
 *                   D_kd(r - d r'^k) > E_r'.  copied = Z_r + sum_kd D_kd(r)
 *                   + sum_kd D_kd(r - d r'^k): every block packed and
 *                   unpacked once per hop.  With r' = 2 these are
 *                   inline-bruck's counts (up to the eager bound: 64 KiB
 *                   there, the same here).
 *  shm              no message: each non-empty block to another rank
 *                   reaches it through shared memory, counted as a
 *                   collective counts a delivery (one message, with its
 *                   bytes); posted 0;
 *                   copied = S_r (into the segment) + R_r (out of the
 *                   others') + Z_r (the own block, directly).  Inside
 *                   ravel_exchange_run: copied = S_r + Z_r (the own block
 *                   goes into the segment too, and nothing is read out)
 *                   when every rank's blocks fit a half of its segment,
 *                   else S_r + Z_r + R_r + Z_r (in rounds, copied out).
 *  two-level:INNER  (ravel_cost_counts_on_nodes: nodes of q consecutive
 *                   ranks, the last one shorter when q does not divide P)
 *                   rank r, slot i of node a of k_a ranks.  Column i is
 *                   slot i of every node that has one; its relay on node x
 *                   carries C[x][y] = the blocks of x's ranks for the slots
 *                   q of node y with q = i mod k_x.  INNER's counts on the
 *                   column (P' = its nodes, rank a, blocks C), plus copies:
 *                   r's blocks into its segment (S_r + Z_r), its column
 *                   row packed (sum_y C[a][y]), and each block that
 *                   arrives to its place (R_r + Z_r on even nodes).  On
 *                   uneven nodes a block for slot q of node a from node d
 *                   with q >= k_d arrives at slot q mod k_d and is passed
 *                   on in step 3: the intra-node backend's counts (shm;
 *                   spread-out under SMPI) on the node's k_a ranks with
 *                   those blocks' sums, and the receiver copies them to
 *                   their places once more.  The node's allreduce and
 *                   barrier are not point-to-point and not counted.
 *
 * PREDICTIONS (from ravel_call_stats only: the slowest rank's time).
 *  Network sharing: ranks of a node share one interface.  With one node
 *  nothing is shared (share = 1).  Otherwise in a direct exchange every
 *  rank of a node sends off-node at once the fraction f = (P-q)/(P-1) of
 *  its bytes, the rest staying on the node (unshared): the interface of
 *  the busiest node carries f (X + (q-1) T/P), X = max(S, R) the busiest
 *  rank's bytes and T/P the mean rank's (q X if every rank sends alike),
 *  and that rank's own on-node bytes (1-f) X follow.  At a Bruck step of
 *  distance d the ranks whose partner is off-node are min(d, q) of the
 *  node's q (consecutive placement): share_d.  A Bruck step (or a radix
 *  round's first messages) of m messages carrying X bytes of one rank
 *  costs
 *      step(m, X, share) = alpha + max(2 o m + beta X, beta share X):
 *  the rank's own postings, completions and bytes, or the node's
 *  interface carrying its share of ranks' messages, whichever is longer.
 *  They overlap because the ranks are not in step: a rank whose partner
 *  is on its node finishes a step early and posts the next while the
 *  interface still carries the others' messages.  Measured by
 *  bench/simgrid/bruck_steps.c (binary Bruck's messages alone, P = 128 to
 *  512, 256 B to 25 KB a step): this form within 1.5 to 5% low, the sum
 *  alpha + 2 o m + beta share X (the model before) 3 to 27% high.  An
 *  allreduce of a few words costs
 *  L (alpha + 2 o) (recursive doubling) on one node, and (2 ceil(log2 q)
 *  + ceil(log2 nodes)) (alpha + 2 o) across nodes (reduce in the node,
 *  allreduce among leaders, broadcast in the node: MPICH's SMP-aware
 *  allreduce).
 *  Batches: a direct exchange posting b peers at a time (distances 1..b,
 *  then b+1..2b, ...) and waiting for each batch before the next overlaps
 *  postings with bytes only within a batch: batches(b, cpu, cpu_1) =
 *  sum_j max(cpu b_j / (P-1) (+ cpu_1 in the first), N share_j /
 *  share_all), N the whole call's interface time below, share_j the sum
 *  of share(i) over the batch's distances i (near distances stay on the
 *  node, far ones leave it; share_all over all P-1).  A batch the
 *  interface bounds also pays its receives' completions that trail its
 *  last byte: half of cpu b_j / (P-1) is the sends' postings (post_j),
 *  half the completions; the messages still in flight when the postings
 *  end finish together, so all completions but the fraction post_j /
 *  N_j (N_j the batch's interface time) follow it one by one:
 *  max(cpu_j, N_j + even post_j (1 - post_j / N_j)), where N_j > post_j.
 *  even = mean block / largest block: messages of unequal sizes finish
 *  apart, so fewer of them bunch at the end (1 for equal blocks).
 *  Measured by bench/simgrid/direct_batches.c (equal blocks, P = 256):
 *  the batches' form without the trail 0.88 (1 KiB) and 0.93 (8 KiB) of
 *  the simulated time, with it 1.016 and 0.996; with blocks of 0 to SIZE
 *  bytes (even = 0.5) see bench/results/auto/README.md ("Completions
 *  trail a batch").
 *  vendor (MPICH)   scattered, 32 peers per batch, empty blocks skipped:
 *                   ceil(P/32) alpha + batches(32, o (Es + Er), 0)
 *                   + gamma Z (posting overlaps the transfers), with
 *                   Es/Er the most non-empty blocks a rank sends/receives
 *                   and N = beta q' max(S, R) short for the direct-exchange
 *                   bytes above, beta (f (X + (q-1) T/P) + (1-f) X).
 *  vendor (SMPI)    SimGrid's "mpich" alltoallv: batches of 4 peers, empty
 *                   blocks posted too: ceil(P/4) alpha + batches(4,
 *                   2 o (P-1), 0) + gamma Z.
 *  spread-out       B alpha + batches(b, o (Es + Er), gamma Z),
 *                   with B = min(ceil((P-1)/b), Es + Er) the batches that
 *                   hold a message (b = throttle/2 rounds per batch; a
 *                   batch without one waits for nothing): the own block is
 *                   copied while the first batch is on the wire.  MPICH's
 *                   vendor call copies it before posting (the self message
 *                   comes first in its schedule), so where the two
 *                   otherwise tie, spread-out is the cheaper by up to
 *                   gamma Z: at 2 ranks and 4 MiB blocks on this project's
 *                   machine 316 against 344 us
 *                   (bench/results/auto/README.md).
 *  pairwise         one step per peer, each waiting for the one before: a
 *                   step costs alpha + 2 o + beta times its block, so
 *                   E alpha + o (Es + Er) + beta q' max(S, R) + gamma Z,
 *                   E = min(P - 1, Es + Er) the steps in which the busiest
 *                   rank sends or receives: the true count lies between
 *                   max(Es, Er) and E, and the upper bound errs toward the
 *                   slower.  The own block's copy overlaps the first step;
 *                   that saving (at most one step) is not credited.
 *  padded-alltoall  allreduce + MPI_Alltoall of M-byte blocks as MPICH
 *                   picks it (Bruck for M <= 256 and P >= 8: sum_k
 *                   step(1, n_k M, share_k) + gamma (2 P M + 2 W M) for
 *                   its rotations and packing; scattered up to 32 KiB:
 *                   ceil(P/32) alpha + batches(32, 2 o (P-1), 0) with
 *                   N = beta q' (P-1) M;
 *                   pairwise
 *                   beyond: (P-1) (alpha + 2 o) + beta q' (P-1) M) + gamma
 *                   (S + R + 2 Z) for ravel's own copies.  (SimGrid's
 *                   selector differs a little: vendor_alltoall says how.)
 *  padded-bruck     allreduce + sum_k step(1, n_k M, share_k)
 *                   + gamma (Z + S + R + 2 (W - P + 1) M).
 *  padded-bruck:basic  padded-bruck's time with its copies,
 *                   gamma (S + R + 2 Z + 2 (P + W) M) in place of gamma (Z +
 *                   S + R + 2 (W - P + 1) M).
 *  two-phase-bruck  sum_k [alpha + step(2, 8 n_k + D_k, share_k)]
 *                   + gamma (Z + 2 sum_k D_k).  D_k is not known from the
 *                   statistics: it is estimated as n_k times the mean block
 *                   b = total / (P (P-1)), and at step 0 (which moves only
 *                   the rank's own blocks) as n_0 max(b, S / (P-1)).  For
 *                   uniform blocks the estimate is exact.
 *  inline-bruck     sum_k [step(1, 8 n_k + min(D_k, E), share_k)
 *                   + (alpha + max(2 o, beta share_k (D_k - E)) if D_k >
 *                   E)] + gamma (Z + 2 sum_k D_k), with two-phase Bruck's
 *                   estimate of D_k: the second message's bytes move once
 *                   the header has come, overlapping its posting and
 *                   completion (as radix-bruck's second messages, below).
 *  radix-bruck      a round's messages are in flight together, so a round
 *                   pays one latency and every message's posting: its
 *                   first messages cost alpha + max(2 o m_k + beta sum_d
 *                   (8 n_kd + min(D_kd, E_r')), beta sum_d share_kd (8 n_kd
 *                   + min(D_kd, E_r'))) (step() over distances of
 *                   different shares), so sum_k [that
 *                   + (alpha + max(2 o x_k, beta sum_d
 *                   share_kd (D_kd - E_r')+) if x_k > 0)] + gamma (Z + 2
 *                   sum D_kd), m_k the digits with positions, x_k those
 *                   whose estimated D_kd exceeds E_r' (a second message,
 *                   whose receive is posted once the header has come: its
 *                   bytes then move while the CPU posts and completes the
 *                   x_k second messages one after another, so the two
 *                   overlap), share_kd the share at distance d r'^k, and
 *                   D_kd estimated as two-phase Bruck's D_k (n_kd mean
 *                   blocks; at round 0 of max(mean, S / (P-1))).  When
 *                   postings, latency and the interface's bytes were all
 *                   added, every Bruck exchange erred high on the
 *                   simulated grid (median 1.13 to 1.17); with step()
 *                   0.98 to 1.04 (bench/results/auto/README.md, "Bruck
 *                   steps overlap the interface").
 *  shm              one node only (+infinity otherwise, and under SMPI,
 *                   where it refuses to run): (P-1) alpha per
 *                   synchronisation, each rank reading the P-1 others'
 *                   control lines (a line another core wrote is one
 *                   cache-to-cache transfer, taken as a latency), plus
 *                   gamma (S + R + Z).  One synchronisation when the
 *                   largest stream (a rank's blocks, its own one only in
 *                   ravel_exchange_run) fits a half of the segment
 *                   (header H = 64 ceil(8 (P+2) / 64) bytes, half at most
 *                   the limit C = ravel_comm_shm_chunk), else 1 +
 *                   ceil(S / (C - H)): one to learn the need, one per
 *                   round.  Inside ravel_exchange_run, stream S + Z (a
 *                   bound: the largest sender need not have the largest
 *                   own block): gamma (S + Z), the receiver reading in
 *                   place, when it fits; else in rounds, copied out,
 *                   gamma (S + R + 2 Z).  Every rank copies on its own
 *                   core at once, so the copies do not add over ranks.
 *                   Left out (bench/results/shm/README.md): a reader's
 *                   copy pulls another core's lines, dearer than the
 *                   in-cache copies gamma is mostly fitted on (at 2 ranks
 *                   here the model predicts 15 to 60% low).  The window's
 *                   growth (doubling from 64 KiB, to C, or for outboxes
 *                   written in place to ravel_comm_shm_outboxes, 16 MiB;
 *                   fresh shared memory, about 7 ms a MiB on this
 *                   project's VM) is not in these predictions: auto weighs
 *                   it apart, renting until the calls that declined it
 *                   add up to its price (ravel_cost_choose_renting, with
 *                   the fresh bytes comm_shm_fresh_bytes counts); left
 *                   out, it made auto 1.4 times the fastest fixed backend
 *                   on ego-Facebook's closure (bench/results/auto/
 *                   README.md, "ego-Facebook").
 *  two-level:INNER  (estimated from the statistics; the counts above are
 *                   exact) q ranks a node, n =
 *                   ceil(P / q) nodes.  Within the node two
 *                   synchronisations (an allreduce of the segments' need
 *                   and a barrier), each taken as the model's allreduce
 *                   on q ranks of one node; then INNER among the n relays
 *                   of one slot (P' = n, one per node), each sending about
 *                   what one rank sends to other nodes (S (P - q) / (P -
 *                   1): its node's q ranks' blocks for the n - 1 other
 *                   ranks of its slot; receiving R likewise; the column's
 *                   total 1/q of the bytes between nodes, total (P - q) /
 *                   ((P - 1) q)), blocks q times the mean, its own (the
 *                   node's data for it) q times the mean (all exact for
 *                   uniform blocks), the
 *                   bandwidth of a node's interface shared by its q relays
 *                   at once (beta q).  What that interface carries is the
 *                   node's bytes, so a relay is charged its share of the
 *                   busiest node, (X + (q-1) T/P) / q for X = S (sends)
 *                   or R (receives), not the busiest rank's X (as the
 *                   direct exchange's Network sharing above; under
 *                   power-law blocks at P = 512 q X was 17% over the
 *                   busiest node's bytes and two-level's estimate up to
 *                   9% high); plus the copies: each rank's blocks
 *                   into its segment (S + Z), the relays' packing (S + Z)
 *                   and the blocks to their places (R + Z).  Uneven
 *                   nodes' extra relay step is left out.
 *  Inside ravel_exchange_run (ravel_cost_predict_exchange and
 *  _choose_exchange) every backend outside the Bruck family first waits
 *  for the count exchange that call makes, an MPI_Ialltoall of 8 bytes per
 *  pair: as MPICH picks it, MPI_Alltoall's time for M = 8 (Bruck from 8
 *  ranks: L (alpha + 2 o) + its bytes and copies); under SimGrid, whose
 *  MPI_Ialltoall posts everything at once, alpha + max(2 o (P-1), the
 *  direct-exchange bytes of 8 (P-1)).  two-level:INNER exchanges the
 *  counts as a call of its own, blocks of 8 bytes: its prediction for
 *  those statistics.  Two-phase, inline and radix Bruck learn the counts
 *  on the way and pay nothing more.
 *  Here S, R, Z are max_send, max_recv, max_self and M = max(max_block,
 *  max_self).  Each step of a Bruck exchange waits for the previous one,
 *  so step times add; a direct exchange overlaps its messages within a
 *  batch, so it pays one latency per batch.
 *
 * What the model leaves out: contention inside the network (a non-blocking
 * fabric is assumed), the first-touch cost of fresh staging pages, the MPI
 * library's internal copies of a direct exchange, and skew beyond the
 * per-rank maxima. */
#include "ravel/cost_model.h"

#include "bruck_schedule.h"
#include "bruck_transit.h"
#include "comm_internal.h"
#include "ravel/comm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- statistics of a call ---------------------------------------------- */

void ravel_call_stats_of(int P, const uint64_t sizes[], ravel_call_stats *s)
{
    memset(s, 0, sizeof *s);
    s->P = P;
    for (int r = 0; r < P; r++) {
        uint64_t send = 0, recv = 0, ns = 0, nr = 0;
        for (int j = 0; j < P; j++) {
            uint64_t out = sizes[(size_t)r * P + j];
            uint64_t in = sizes[(size_t)j * P + r];
            if (j == r) {
                s->max_self = out > s->max_self ? out : s->max_self;
                continue;
            }
            send += out;
            recv += in;
            ns += out > 0;
            nr += in > 0;
            s->max_block = out > s->max_block ? out : s->max_block;
        }
        s->total += send;
        s->nonempty += ns;
        s->max_send = send > s->max_send ? send : s->max_send;
        s->max_recv = recv > s->max_recv ? recv : s->max_recv;
        s->max_nonempty_send = ns > s->max_nonempty_send ? ns
                                                         : s->max_nonempty_send;
        s->max_nonempty_recv = nr > s->max_nonempty_recv ? nr
                                                         : s->max_nonempty_recv;
    }
}

/* ---- exact counts ------------------------------------------------------ */

typedef struct {
    int P, r;
    const uint64_t *s;
    uint64_t S, R, Z, M, sent_blocks, recv_blocks;
} call_view;

static uint64_t block(const call_view *v, int src, int dst)
{
    return v->s[(size_t)src * v->P + dst];
}

static call_view view_of(int P, int r, const uint64_t sizes[])
{
    call_view v = {P, r, sizes, 0, 0, 0, 0, 0, 0};
    for (int j = 0; j < P; j++)
        for (int i = 0; i < P; i++)
            v.M = block(&v, i, j) > v.M ? block(&v, i, j) : v.M;
    v.Z = block(&v, r, r);
    for (int j = 0; j < P; j++) {
        if (j == r)
            continue;
        v.S += block(&v, r, j);
        v.R += block(&v, j, r);
        v.sent_blocks += block(&v, r, j) > 0;
        v.recv_blocks += block(&v, j, r) > 0;
    }
    return v;
}

static int mod(int a, int P) { return ((a % P) + P) % P; }

/* D_k(r): data bytes rank r sends at two-phase Bruck step k. */
static uint64_t bruck_step_data(const call_view *v, int r, int k)
{
    uint64_t d = 0;
    for (int j = 1; j < v->P; j++) {
        if (!((j >> k) & 1))
            continue;
        int src, dst;
        ravel_bruck_block_at(r, j, k, v->P, &src, &dst);
        d += block(v, src, dst);
    }
    return d;
}

static uint64_t popcount_sum(int P)
{
    uint64_t w = 0;
    for (int j = 1; j < P; j++)
        w += (uint64_t)__builtin_popcount((unsigned)j);
    return w;
}

static void counts_direct(const call_view *v, int posts,
                          ravel_cost_counts *c)
{
    c->messages = v->sent_blocks;
    c->bytes = v->S;
    if (posts) {
        c->posted = v->sent_blocks + v->recv_blocks;
        c->copied = v->Z;
    }
}

static void counts_padded_alltoall(const call_view *v, ravel_cost_counts *c)
{
    if (v->M == 0)
        return;
    c->messages = (uint64_t)(v->P - 1);
    c->bytes = (uint64_t)(v->P - 1) * v->M;
    c->copied = v->S + v->R + 2 * v->Z;
}

/* Padded Bruck's messages (P > 1, M > 0), either variant: L of them,
 * step k carrying n_k M bytes, 2 posted per step. */
static uint64_t padded_bruck_messages_counts(const call_view *v,
                                             ravel_cost_counts *c)
{
    int L = ravel_bruck_steps(v->P);
    uint64_t W = popcount_sum(v->P);
    c->messages = (uint64_t)L;
    c->bytes = W * v->M;
    c->posted = 2 * (uint64_t)L;
    return W;
}

static void counts_padded_bruck(const call_view *v, ravel_cost_counts *c)
{
    c->copied = v->Z;
    if (v->P == 1 || v->M == 0)
        return;
    uint64_t W = padded_bruck_messages_counts(v, c);
    c->copied += v->S + v->R + 2 * (W - (uint64_t)(v->P - 1)) * v->M;
}

static void counts_padded_bruck_basic(const call_view *v,
                                      ravel_cost_counts *c)
{
    if (v->P == 1) {
        c->copied = v->Z;
        return;
    }
    if (v->M == 0)
        return;
    uint64_t W = padded_bruck_messages_counts(v, c);
    c->copied = v->S + v->R + 2 * v->Z + 2 * ((uint64_t)v->P + W) * v->M;
}

/* two-phase-bruck (sizes in a message of their own) or inline-bruck (in a
 * header in front of the data, one message per step up to E bytes). */
static void counts_exact_bruck(const call_view *v, int inline_sizes,
                               ravel_cost_counts *c)
{
    c->copied = v->Z;
    if (v->P == 1)
        return;
    int L = ravel_bruck_steps(v->P);
    for (int k = 0; k < L; k++) {
        uint64_t n = (uint64_t)ravel_bruck_step_positions(v->P, k, NULL);
        uint64_t out = bruck_step_data(v, v->r, k);
        uint64_t in = bruck_step_data(v, mod(v->r - (1 << k), v->P), k);
        if (inline_sizes) {
            c->messages += 1 + (out > INLINE_BRUCK_EAGER);
            c->posted += 2 + (out > INLINE_BRUCK_EAGER) +
                         (in > INLINE_BRUCK_EAGER);
        } else {
            c->messages += 2;
            c->metadata_messages += 1;
            c->posted += 4;
        }
        c->metadata_bytes += 8 * n;
        c->bytes += 8 * n + out;
        c->copied += out + in;
    }
}

/* D_kd(r): data bytes rank r sends in radix-bruck's message (k, d). */
static uint64_t radix_message_data(const call_view *v, int radix, int r,
                                   int k, int d)
{
    uint64_t data = 0;
    for (int j = 1; j < v->P; j++) {
        if (ravel_radix_digit(j, radix, k) != d)
            continue;
        int src, dst;
        ravel_radix_block_at(r, j, k, radix, v->P, &src, &dst);
        data += block(v, src, dst);
    }
    return data;
}

static void counts_radix_bruck(const call_view *v, int radix,
                               ravel_cost_counts *c)
{
    c->copied = v->Z;
    if (v->P == 1)
        return;
    int r = radix < v->P ? radix : v->P;
    uint64_t eager = radix_bruck_eager(r);
    for (int k = 0; k < ravel_radix_rounds(v->P, r); k++) {
        int stride = ravel_radix_stride(r, k);
        for (int d = 1; d < r; d++) {
            uint64_t n = (uint64_t)ravel_radix_count(v->P, r, k, d);
            if (n == 0)
                break; /* no higher digit occurs in this round either */
            int from = mod(v->r - (int)((long long)d * stride % v->P), v->P);
            uint64_t out = radix_message_data(v, r, v->r, k, d);
            uint64_t in = radix_message_data(v, r, from, k, d);
            c->messages += 1 + (out > eager);
            c->posted += 2 + (out > eager) + (in > eager);
            c->metadata_bytes += 8 * n;
            c->bytes += 8 * n + out;
            c->copied += out + in;
        }
    }
}

/* ---- two-level:INNER's counts ------------------------------------------ */

/* Nodes of q consecutive ranks, the last one shorter when q does not
 * divide P (RAVEL_NODE_SIZE's layout; MPI_Comm_split_type's on a machine
 * that places ranks by node). */
typedef struct {
    int P, q, n;
} node_layout;

static int node_ranks(const node_layout *l, int b)
{
    int left = l->P - b * l->q;
    return left < l->q ? left : l->q;
}

static void counts_add(ravel_cost_counts *c, const ravel_cost_counts *d)
{
    c->messages += d->messages;
    c->bytes += d->bytes;
    c->metadata_messages += d->metadata_messages;
    c->metadata_bytes += d->metadata_bytes;
    c->posted += d->posted;
    c->copied += d->copied;
}

/* Slot q of node b receives node d's blocks through this node's slot i
 * in step 3 (alltoallv_two_level.c's relayed_via). */
static int relayed(int q, int kd, int i) { return q >= kd && q % kd == i; }

/* Rank `rank`, slot i of node a: its own bytes into its segment (S + Z);
 * as relay of column i (slot i of every node that has one), the blocks of
 * its node's ranks for the slots q of node b with q mod k_a == i packed
 * for b, then INNER on the column with those sums as blocks; each block
 * that arrives copied to its place, or (slot q of this node with
 * relayed(q, k_d, i)) to step 3, which runs the node's intra-node backend
 * on the relayed sums and copies them to their places. */
static int counts_two_level(const char *inner, const node_layout *l,
                            int rank, const uint64_t sizes[],
                            ravel_cost_counts *c)
{
    const int P = l->P, n = l->n, a = rank / l->q, i = rank % l->q;
    const int ka = node_ranks(l, a);
    call_view v = view_of(P, rank, sizes);
    c->copied = v.S + v.Z;
    int *column = malloc((size_t)n * sizeof *column);
    int m = 0, me = 0;
    for (int b = 0; b < n; b++)
        if (i < node_ranks(l, b)) {
            me = b == a ? m : me;
            column[m++] = b;
        }
    uint64_t *C = calloc((size_t)m * m, sizeof *C);
    uint64_t *T = calloc((size_t)ka * ka, sizeof *T); /* [relay][slot] */
    if (!column || !C || !T) {
        free(T);
        free(C);
        free(column);
        return -1;
    }
    for (int x = 0; x < m; x++) {
        const int from = column[x], kx = node_ranks(l, from);
        for (int y = 0; y < m; y++) {
            const int to = column[y];
            for (int s = 0; s < kx; s++)
                for (int q = i; q < node_ranks(l, to); q += kx)
                    C[(size_t)x * m + y] +=
                        sizes[(size_t)(from * l->q + s) * P + to * l->q + q];
        }
    }
    for (int y = 0; y < m; y++)
        c->copied += C[(size_t)me * m + y];
    ravel_cost_counts part;
    int err = ravel_cost_counts_of(inner, m, me, C, &part);
    counts_add(c, &part);
    /* What arrives is copied out: this rank's blocks, and those it
     * relays in step 3 (slots q = i mod k_d of this node). */
    for (int y = 0; y < m; y++) {
        const int d = column[y], kd = node_ranks(l, d);
        for (int s = 0; s < kd; s++)
            for (int q = i; q < ka; q += kd)
                c->copied += sizes[(size_t)(d * l->q + s) * P + a * l->q + q];
    }
    if (P % l->q != 0 && err == 0) { /* uneven nodes: step 3 */
        for (int r = 0; r < ka; r++)
            for (int q = 0; q < ka; q++)
                for (int d = 0; d < n; d++)
                    if (relayed(q, node_ranks(l, d), r))
                        for (int s = 0; s < node_ranks(l, d); s++)
                            T[(size_t)r * ka + q] +=
                                sizes[(size_t)(d * l->q + s) * P +
                                      a * l->q + q];
        err = ravel_cost_counts_of(comm_two_level_intra_name(), ka, i, T,
                                   &part);
        counts_add(c, &part);
        for (int r = 0; r < ka; r++)
            c->copied += T[(size_t)r * ka + i];
    }
    free(T);
    free(C);
    free(column);
    return err;
}

int ravel_cost_counts_on_nodes(const char *name, int P, int node_size,
                               int rank, const uint64_t sizes[],
                               ravel_cost_counts *out)
{
    const char *inner = comm_two_level_inner(name);
    if (!inner)
        return ravel_cost_counts_of(name, P, rank, sizes, out);
    memset(out, 0, sizeof *out);
    if (strcmp(inner, "shm") == 0 || strncmp(inner, "two-level", 9) == 0)
        return -1; /* refused by the registry */
    node_layout l = {P, node_size < 1 || node_size > P ? P : node_size, 0};
    l.n = (P + l.q - 1) / l.q;
    return counts_two_level(inner, &l, rank, sizes, out);
}

int ravel_cost_counts_of(const char *name, int P, int rank,
                         const uint64_t sizes[], ravel_cost_counts *out)
{
    if (comm_two_level_inner(name))
        return ravel_cost_counts_on_nodes(name, P, P, rank, sizes, out);
    memset(out, 0, sizeof *out);
    call_view v = view_of(P, rank, sizes);
    if (strcmp(name, "vendor") == 0)
        counts_direct(&v, 0, out);
    else if (strcmp(name, "spread-out") == 0 ||
             strcmp(name, "pairwise") == 0)
        counts_direct(&v, 1, out);
    else if (strcmp(name, "padded-alltoall") == 0)
        counts_padded_alltoall(&v, out);
    else if (strcmp(name, "padded-bruck") == 0 ||
             strcmp(name, "padded-bruck:modified") == 0)
        counts_padded_bruck(&v, out);
    else if (strcmp(name, "padded-bruck:basic") == 0)
        counts_padded_bruck_basic(&v, out);
    else if (strcmp(name, "two-phase-bruck") == 0)
        counts_exact_bruck(&v, 0, out);
    else if (strcmp(name, "inline-bruck") == 0)
        counts_exact_bruck(&v, 1, out);
    else if (comm_radix_of_name(name) > 0)
        counts_radix_bruck(&v, comm_radix_of_name(name), out);
    else if (strcmp(name, "shm") == 0) {
        counts_direct(&v, 0, out);
        out->copied = v.S + v.R + v.Z;
    } else
        return -1;
    return 0;
}

/* ---- predictions ------------------------------------------------------- */

typedef struct {
    const ravel_cost_params *m;
    const ravel_call_stats *s;
    int P, L, nodes;
    double S, R, Z, M, E_send, E_recv, mean_block;
} call_model;

static call_model model_of(const ravel_cost_params *m,
                           const ravel_call_stats *s)
{
    call_model c;
    c.m = m;
    c.s = s;
    c.P = s->P < 1 ? 1 : s->P;
    c.L = ravel_bruck_steps(c.P);
    int q = m->ranks_per_node < 1 ? 1 : m->ranks_per_node;
    c.nodes = (c.P + q - 1) / q;
    c.S = (double)s->max_send;
    c.R = (double)s->max_recv;
    c.Z = (double)s->max_self;
    c.M = (double)(s->max_block > s->max_self ? s->max_block : s->max_self);
    c.E_send = (double)s->max_nonempty_send;
    c.E_recv = (double)s->max_nonempty_recv;
    c.mean_block = c.P > 1 ? (double)s->total / ((double)c.P * (c.P - 1))
                           : 0.0;
    return c;
}

/* Ranks of a node sending off-node at once, at partner distance d (0: a
 * direct exchange, every peer): of the first node's q ranks r (ranks are
 * placed on nodes consecutively), those whose partner (r + d) mod P is on
 * another node.  That is min(d, q) for d < q, but past q the distance
 * wraps: at P = 2q, distance q + e sends q - e ranks to the other node and
 * e back to their own.  At least 1: a step whose partners are all on the
 * node still moves its bytes, at the unshared rate. */
static double share(const call_model *c, int d)
{
    int q = c->m->ranks_per_node < 1 ? 1 : c->m->ranks_per_node;
    if (c->nodes <= 1)
        return 1.0;
    if (d <= 0)
        return (double)q;
    d %= c->P;
    /* r + d < P + q <= 2P, so (r + d) mod P >= q means q <= r + d < P:
     * r from max(0, q - d) to min(q, P - d), exclusive (q < P here). */
    int hi = c->P - d < q ? c->P - d : q, lo = q - d > 0 ? q - d : 0;
    return hi > lo ? (double)(hi - lo) : 1.0;
}

/* A few words: recursive doubling on one node; across nodes MPICH (and
 * SimGrid's "mpich" selector) reduce within the node, allreduce among
 * the node leaders and broadcast within the node. */
static double allreduce_time(const call_model *c)
{
    int q = c->m->ranks_per_node < 1 ? 1 : c->m->ranks_per_node;
    int rounds = c->L;
    if (c->nodes > 1 && q > 1)
        rounds = 2 * ravel_bruck_steps(q) + ravel_bruck_steps(c->nodes);
    return rounds * (c->m->alpha + 2 * c->m->o);
}

static double batches(int peers, int per_batch)
{
    return peers <= 0 ? 0.0 : (double)((peers + per_batch - 1) / per_batch);
}

/* What a node's interface carries is the node's total, not q times the
 * busiest rank's: the busiest node is taken as the busiest rank plus q-1
 * ranks of the mean (total / P), which is q times the busiest for uniform
 * blocks and far less when one rank holds most of the data (skewed
 * relations).  `busiest` and `mean` are bytes of one rank.  Used by a
 * direct exchange and by two-level's relays. */
static double busiest_node(double busiest, double mean, double q)
{
    return busiest + (q - 1) * fmin(mean, busiest);
}

/* A direct exchange's bytes.  Of a rank's P-1 peers, P-q are off-node
 * (when there are several nodes); those bytes go through the interface the
 * node's q ranks share (the busiest node's), the bytes to its q-1 node
 * mates do not. */
static double direct_bandwidth_bytes(const call_model *c, double busiest,
                                     double mean)
{
    double q = share(c, 0);
    if (c->nodes <= 1 || c->P <= 1)
        return c->m->beta * busiest;
    double off = (c->P - q) / (c->P - 1);
    return c->m->beta *
           (off * busiest_node(busiest, mean, q) + (1.0 - off) * busiest);
}

/* A direct exchange posts its messages while earlier ones are on the wire:
 * the CPU's posting and the network's transfer overlap. */
static double overlap(double cpu, double network)
{
    return cpu > network ? cpu : network;
}

static double direct_bandwidth(const call_model *c)
{
    double mean = (double)c->s->total / c->P;
    return direct_bandwidth_bytes(c, c->S > c->R ? c->S : c->R, mean);
}

/* A direct exchange in batches of `per_batch` peers (distances 1 to
 * per_batch, then the next ones), each batch waited for before the next is
 * posted: within a batch the CPU's postings overlap the transfers, across
 * batches they cannot.  The CPU's `cpu` seconds spread evenly over the
 * peers, plus `cpu_first` (the own block's copy) in the first batch; the
 * whole call's `network` seconds spread over the batches as the ranks of
 * a node sending off it do (share(d) at distance d): the batches of near
 * distances stay mostly on the node, the far ones leave it. */
static double batched_transfers(const call_model *c, int per_batch,
                                double cpu, double cpu_first, double network)
{
    /* share(d) summed over d = 1 .. P-1: each of a node's q ranks has
     * P - q partners off it (and share() is never raised to 1 there: a
     * distance 0 < d < P always sends some rank off the node), or P - 1
     * distances of share 1 on one node. */
    int q = c->m->ranks_per_node < 1 ? 1 : c->m->ranks_per_node;
    double all_shares = c->nodes > 1 ? (double)q * (c->P - q) : c->P - 1;
    /* the trail's share for unequal blocks (below, and the header) */
    double even = c->M > 0 ? fmin(1.0, c->mean_block / c->M) : 1.0;
    double t = 0.0;
    for (int first = 1; first < c->P; first += per_batch) {
        int end = first + per_batch < c->P ? first + per_batch : c->P;
        double shares = 0.0;
        for (int d = first; d < end; d++)
            shares += share(c, d);
        double mine = cpu * (end - first) / (c->P - 1);
        double bytes = network * shares / all_shares;
        /* Half of the CPU is the sends' postings, half the receives'
         * completions.  Where the bytes outlast the postings, the
         * messages still in flight when the postings end share the
         * interface and finish together, and their completions follow
         * the last byte one by one: all of them but the fraction the
         * postings' time covers, fewer where blocks are unequal (the
         * header's `even`). */
        double post = mine / 2;
        double trail =
            bytes > post ? even * post * (1.0 - post / bytes) : 0.0;
        t += overlap(mine + (first == 1 ? cpu_first : 0.0), bytes + trail);
    }
    return t;
}

static double predict_vendor(const call_model *c)
{
    if (c->P == 1)
        return c->m->gamma * c->Z;
#ifdef SMPI_SHARED_MALLOC
    /* SimGrid's alltoallv under the "mpich" selector (alltoallv-bruck.cpp,
     * despite its name): batches of 4 peers, empty blocks posted too. */
    double t = batches(c->P, 4) * c->m->alpha +
               batched_transfers(c, 4, 2 * c->m->o * (c->P - 1), 0.0,
                                 direct_bandwidth(c));
#else
    /* MPICH's scattered alltoallv, MPIR_CVAR_ALLTOALL_THROTTLE = 32. */
    double t = batches(c->P, 32) * c->m->alpha +
               batched_transfers(c, 32, c->m->o * (c->E_send + c->E_recv),
                                 0.0, direct_bandwidth(c));
#endif
    return t + c->m->gamma * c->Z;
}

static double predict_spread_out(const call_model *c)
{
    if (c->P == 1)
        return c->m->gamma * c->Z;
    int per_batch = ravel_comm_spread_out_throttle() / 2;
    double waits = batches(c->P - 1, per_batch); /* an empty batch: none */
    if (waits > c->E_send + c->E_recv)
        waits = c->E_send + c->E_recv;
    return waits * c->m->alpha +
           batched_transfers(c, per_batch, c->m->o * (c->E_send + c->E_recv),
                             c->m->gamma * c->Z, direct_bandwidth(c));
}

static double predict_pairwise(const call_model *c)
{
    if (c->P == 1)
        return c->m->gamma * c->Z;
    double steps = c->E_send + c->E_recv;
    if (steps > c->P - 1)
        steps = c->P - 1;
    return steps * c->m->alpha + c->m->o * (c->E_send + c->E_recv) +
           direct_bandwidth(c) + c->m->gamma * c->Z;
}

/* A round (or step) of the Bruck family: its first messages, all in flight
 * at once, cost a latency and the longer of the rank's own postings,
 * completions and bytes (`first_own`, unshared) and the node's interface
 * carrying them times their share (`first_bytes`): step() of the header
 * comment.  Where `second` of them carry more than the eager bound, the
 * rest follows once the headers have come (the receives for it are posted
 * then), and those second messages' postings and completions, one after
 * another on the CPU, overlap their own bytes on the wire. */
static double bruck_round_time(const call_model *c, int first, int second,
                               double first_own, double first_bytes,
                               double rest_bytes)
{
    const ravel_cost_params *m = c->m;
    double t = m->alpha + overlap(2 * m->o * first + m->beta * first_own,
                                  m->beta * first_bytes);
    if (second)
        t += m->alpha + overlap(2 * m->o * second, m->beta * rest_bytes);
    return t;
}

/* MPI_Alltoall of M-byte blocks as the MPI library chooses it.  MPICH:
 * Bruck up to MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE = 256 bytes (P >= 8), the
 * scattered exchange (32 peers a batch) up to MEDIUM_MSG_SIZE = 32768,
 * pairwise beyond.  SimGrid's "mpich" selector: Bruck below 256, every
 * message posted at once below 32768, pairwise beyond; and the copies of
 * its Bruck are free there (SMPI charges no local work of its own). */
static double vendor_alltoall(const call_model *c, double M)
{
    const ravel_cost_params *m = c->m;
    double per_rank = (c->P - 1) * M;
#ifdef SMPI_SHARED_MALLOC
    int bruck = M < 256 && c->P >= 8;
    int medium_batch = c->P; /* all at once */
    double medium_batches = 1.0, bruck_copies = 0.0;
#else
    int bruck = M <= 256 && c->P >= 8;
    int medium_batch = 32;
    double medium_batches = batches(c->P, 32);
    double bruck_copies = 2 * c->P * M + 2 * popcount_sum(c->P) * M;
#endif
    if (bruck) {
        double t = 0.0;
        for (int k = 0; k < c->L; k++) {
            double own = ravel_bruck_step_positions(c->P, k, NULL) * M;
            t += bruck_round_time(c, 1, 0, own, share(c, 1 << k) * own,
                                  0.0);
        }
        return t + m->gamma * bruck_copies;
    }
    if (M < 32768)
        return medium_batches * m->alpha +
               batched_transfers(c, medium_batch, 2 * m->o * (c->P - 1), 0.0,
                                 direct_bandwidth_bytes(c, per_rank,
                                                        per_rank));
    return (c->P - 1) * (m->alpha + 2 * m->o) +
           direct_bandwidth_bytes(c, per_rank, per_rank);
}

/* The count exchange that ravel_exchange_run makes before a backend that
 * needs every receive count (exchange.c: an MPI_Ialltoall of one 8-byte
 * count per pair; the Bruck family discovers the counts and makes none).
 * MPICH picks MPI_Ialltoall's algorithm by MPI_Alltoall's thresholds
 * (MPIR_Ialltoall_intra_sched_auto: Bruck for blocks of at most 256 bytes
 * on 8 ranks or more), so vendor_alltoall's time for M = 8.  SimGrid's
 * MPI_Ialltoall posts every receive and send at once whatever the size
 * (colls::ialltoall, smpi_nbc_impl.cpp): one latency, and 2 (P-1) postings
 * against the bytes of the direct exchange. */
static double count_exchange_time(const call_model *c)
{
    if (c->P == 1)
        return 0.0;
#ifdef SMPI_SHARED_MALLOC
    double per_rank = 8.0 * (c->P - 1);
    return c->m->alpha +
           overlap(2 * c->m->o * (c->P - 1),
                   direct_bandwidth_bytes(c, per_rank, per_rank));
#else
    return vendor_alltoall(c, 8.0);
#endif
}

static double predict_padded_alltoall(const call_model *c)
{
    double t = allreduce_time(c);
    if (c->M == 0)
        return t;
    return t + vendor_alltoall(c, c->M) +
           c->m->gamma * (c->S + c->R + 2 * c->Z);
}

/* Padded Bruck: the allreduce and the steps, without the copies. */
static double padded_bruck_messages(const call_model *c)
{
    double t = allreduce_time(c);
    if (c->M == 0)
        return t;
    for (int k = 0; k < c->L; k++) {
        double own = ravel_bruck_step_positions(c->P, k, NULL) * c->M;
        t += bruck_round_time(c, 1, 0, own, share(c, 1 << k) * own, 0.0);
    }
    return t;
}

static double predict_padded_bruck(const call_model *c)
{
    if (c->P == 1)
        return c->m->gamma * c->Z;
    double W = (double)popcount_sum(c->P);
    double copies = c->M == 0 ? c->Z
                              : c->Z + c->S + c->R + 2 * (W - c->P + 1) * c->M;
    return padded_bruck_messages(c) + c->m->gamma * copies;
}

static double predict_padded_bruck_basic(const call_model *c)
{
    if (c->P == 1)
        return c->m->gamma * c->Z;
    double W = (double)popcount_sum(c->P);
    double copies = c->M == 0 ? 0.0
                              : c->S + c->R + 2 * c->Z + 2 * (c->P + W) * c->M;
    return padded_bruck_messages(c) + c->m->gamma * copies;
}

/* The data a rank sends at Bruck step k, D_k, estimated from the
 * statistics: n_k blocks of the mean size, and at step 0 (which moves only
 * the rank's own blocks) of max(mean, S / (P - 1)). */
static double bruck_step_data_estimate(const call_model *c, int k, double n)
{
    double b = c->mean_block;
    if (k == 0 && c->S / (c->P - 1) > b)
        b = c->S / (c->P - 1);
    return n * b;
}

/* A Bruck exchange of exact sizes: `messages` per step, one after the
 * other, and with `eager` > 0 a second message at a step whose data
 * exceeds `eager` bytes, as in bruck_round_time. */
static double predict_exact_bruck(const call_model *c, int messages,
                                  double eager)
{
    if (c->P == 1)
        return c->m->gamma * c->Z;
    double t = 0.0, forwarded = 0.0;
    for (int k = 0; k < c->L; k++) {
        double n = ravel_bruck_step_positions(c->P, k, NULL);
        double data = bruck_step_data_estimate(c, k, n);
        double sh = share(c, 1 << k);
        forwarded += data;
        if (eager > 0) {
            int second = data > eager;
            double own = 8 * n + (second ? eager : data);
            t += bruck_round_time(c, messages, second, own, sh * own,
                                  second ? sh * (data - eager) : 0.0);
        } else {
            t += (messages - 1) * c->m->alpha +
                 bruck_round_time(c, messages, 0, 8 * n + data,
                                  sh * (8 * n + data), 0.0);
        }
    }
    return t + c->m->gamma * (c->Z + 2 * forwarded);
}

static double predict_two_phase_bruck(const call_model *c)
{
    return predict_exact_bruck(c, 2, 0.0);
}

static double predict_inline_bruck(const call_model *c)
{
    return predict_exact_bruck(c, 1, (double)INLINE_BRUCK_EAGER);
}

static double predict_radix(const call_model *c, int radix)
{
    if (c->P == 1)
        return c->m->gamma * c->Z;
    int r = radix < c->P ? radix : c->P;
    double eager = (double)radix_bruck_eager(r), t = 0.0, forwarded = 0.0;
    for (int k = 0; k < ravel_radix_rounds(c->P, r); k++) {
        int stride = ravel_radix_stride(r, k), messages = 0, second = 0;
        double first = 0.0, first_own = 0.0, rest = 0.0;
        for (int d = 1; d < r; d++) {
            double n = ravel_radix_count(c->P, r, k, d);
            if (n == 0)
                break;
            double data = bruck_step_data_estimate(c, k, n);
            double sh = share(c, (int)((long long)d * stride % c->P));
            messages++;
            forwarded += data;
            first_own += 8 * n + (data > eager ? eager : data);
            first += sh * (8 * n + (data > eager ? eager : data));
            if (data > eager) {
                second++;
                rest += sh * (data - eager);
            }
        }
        t += bruck_round_time(c, messages, second, first_own, first, rest);
    }
    return t + c->m->gamma * (c->Z + 2 * forwarded);
}

static double predict_radix_bruck(const call_model *c)
{
    return predict_radix(c, RADIX_BRUCK_DEFAULT);
}

/* The backends the model describes, in the order auto prefers them when
 * predictions tie: ravel's own before the vendor's, whose internals the
 * model only estimates (at 2 ranks with no own block MPICH's
 * MPI_Ialltoallv and spread-out tie, and the vendor call's schedule costs
 * some 0.06 us more on this project's machine), then registry order. */
/* shm's synchronisations for a call whose largest stream (a rank's blocks
 * in its segment) is `stream` bytes: one where it fits a half, else one
 * to learn that it does not and one per round. */
static double shm_syncs(const call_model *c, double stream)
{
    double header = (double)comm_shm_header(c->P);
    double limit = (double)comm_shm_limit(c->P);
    if (header + stream <= limit)
        return 1.0;
    return 1.0 + ceil(stream / (limit - header));
}

/* shm: its synchronisations and its copies, on one node only. */
static double shm_time(const call_model *c, double syncs, double copied)
{
#ifdef SMPI_SHARED_MALLOC
    (void)c;
    (void)syncs;
    (void)copied;
    return INFINITY; /* refused under SMPI */
#else
    if (c->nodes > 1)
        return INFINITY; /* refused across nodes */
    if (c->P == 1)
        return c->m->gamma * c->Z;
    return syncs * (c->P - 1) * c->m->alpha + c->m->gamma * copied;
#endif
}

static double predict_shm(const call_model *c)
{
    return shm_time(c, shm_syncs(c, c->S), c->S + c->R + c->Z);
}

/* Inside ravel_exchange_run: in place when the blocks fit a half (own
 * block included: S + Z, a bound), else in rounds and copied out. */
static double predict_shm_exchange(const call_model *c)
{
    double syncs = shm_syncs(c, c->S + c->Z);
    if (syncs == 1.0)
        return shm_time(c, syncs, c->S + c->Z);
    return shm_time(c, syncs, c->S + c->Z + c->R + c->Z);
}

typedef double (*predictor)(const call_model *c);
static const struct {
    const char *name;
    predictor predict;
} predictors[] = {
    {"spread-out", predict_spread_out},
    {"padded-alltoall", predict_padded_alltoall},
    {"padded-bruck", predict_padded_bruck},
    {"two-phase-bruck", predict_two_phase_bruck},
    {"pairwise", predict_pairwise},
    {"inline-bruck", predict_inline_bruck},
    {"radix-bruck", predict_radix_bruck},
    {"shm", predict_shm},
    {"vendor", predict_vendor},
};
enum { PREDICTORS = sizeof predictors / sizeof predictors[0] };
static const double TIE_TOLERANCE = 1e-9; /* relative */

/* two-level:INNER (the header's estimate): INNER's prediction on the
 * relays' call, the two intra-node exchanges', and the packing. */
static double predict_two_level(const call_model *c, const char *inner)
{
    const ravel_cost_params *m = c->m;
    const double q = m->ranks_per_node < 1 ? 1 : m->ranks_per_node;
    const double n = c->nodes, data = c->S + c->Z;
    if (c->P == 1)
        return m->gamma * c->Z * 3;
    ravel_cost_params node = *m;
    node.ranks_per_node = (int)q;
    /* within the node: an allreduce of the needs and a barrier */
    double t = q > 1 ? 2 * ravel_cost_agreement(&node, (int)q) : 0.0;
    ravel_cost_params relays = *m;
    relays.ranks_per_node = 1;
    relays.beta = m->beta * q;
    double mean = c->mean_block;
    /* A relay's column carries 1/q of what its node sends: of a rank's S,
     * the part for other nodes (the rest, its node's blocks for the
     * relay's own rank, is the column's own block, q means). */
    double off = n > 1 ? (c->P - q) / (c->P - 1.0) : 0.0;
    /* The q relays of a node share its interface (beta q), so what bounds
     * them is the node's total, not q times the busiest rank's bytes: as
     * for a direct exchange, the busiest rank plus q-1 ranks of the mean,
     * spread over the node's q relays (one rank's S for uniform blocks;
     * under power-law:0.99 at P = 512, 15% under q S, and 0.5% from the
     * busiest node's actual total). */
    double rank_mean = (double)c->s->total / c->P;
    double relay_send = busiest_node(c->S, rank_mean, q) / q;
    double relay_recv = busiest_node(c->R, rank_mean, q) / q;
    ravel_call_stats across = {
        .P = (int)n,
        .max_block = (uint64_t)fmin(c->S, q * c->M),
        .max_send = (uint64_t)(relay_send * off),
        .max_recv = (uint64_t)(relay_recv * off),
        .total = (uint64_t)((double)c->s->total * off / q),
        .nonempty = (uint64_t)fmin((double)c->s->nonempty, n * (n - 1)),
        .max_nonempty_send = (uint64_t)fmin(c->E_send, n - 1),
        .max_nonempty_recv = (uint64_t)fmin(c->E_recv, n - 1),
        .max_self = (uint64_t)(q * mean)};
    double inner_time;
    if (strcmp(inner, "auto") == 0) {
        ravel_cost_choose(&relays, &across, &inner_time);
        inner_time += ravel_cost_agreement(&relays, (int)n);
    } else {
        inner_time = n > 1 ? ravel_cost_predict(inner, &relays, &across)
                           : m->gamma * (double)across.max_self;
    }
    if (inner_time < 0)
        return -1.0;
    return t + inner_time + m->gamma * (2 * data + c->R + c->Z);
}

double ravel_cost_predict(const char *name, const ravel_cost_params *m,
                          const ravel_call_stats *s)
{
    call_model c = model_of(m, s);
    const char *inner = name ? comm_two_level_inner(name) : NULL;
    if (inner)
        return predict_two_level(&c, inner);
    for (size_t i = 0; name && i < PREDICTORS; i++)
        if (strcmp(predictors[i].name, name) == 0)
            return predictors[i].predict(&c);
    if (name && strcmp(name, "padded-bruck:modified") == 0)
        return predict_padded_bruck(&c);
    if (name && strcmp(name, "padded-bruck:basic") == 0)
        return predict_padded_bruck_basic(&c);
    int radix = name ? comm_radix_of_name(name) : 0;
    return radix > 0 ? predict_radix(&c, radix) : -1.0;
}

double ravel_cost_agreement(const ravel_cost_params *m, int P)
{
    ravel_call_stats s = {.P = P};
    call_model c = model_of(m, &s);
    return c.P > 1 ? allreduce_time(&c) : 0.0;
}

/* A backend's time inside ravel_exchange_run: its call, plus the count
 * exchange when it cannot discover its receive counts; shm's own. */
static double in_exchange(int is_shm, int discovers, double call,
                          const call_model *c)
{
    if (is_shm)
        return predict_shm_exchange(c);
    if (call < 0.0 || discovers)
        return call;
    return call + count_exchange_time(c);
}

/* two-level:INNER's count exchange inside ravel_exchange_run: a call of
 * its own with 8 bytes from every rank to every rank (exchange.c). */
static double two_level_counts_time(const call_model *c, const char *inner)
{
    uint64_t P = (uint64_t)c->P, peers = P - 1;
    ravel_call_stats s = {.P = c->P,
                          .max_block = 8,
                          .max_send = 8 * peers,
                          .max_recv = 8 * peers,
                          .total = 8 * P * peers,
                          .nonempty = P * peers,
                          .max_nonempty_send = peers,
                          .max_nonempty_recv = peers,
                          .max_self = 8};
    call_model counts = model_of(c->m, &s);
    return predict_two_level(&counts, inner);
}

static double predict_in_exchange(const char *name, double call,
                                  const call_model *c)
{
    int param;
    const char *inner = comm_two_level_inner(name);
    if (call >= 0.0 && inner)
        return call + two_level_counts_time(c, inner);
    return in_exchange(strcmp(name, "shm") == 0,
                       comm_discovering_kernel(name, &param) != NULL, call, c);
}

double ravel_cost_predict_exchange(const char *name,
                                   const ravel_cost_params *m,
                                   const ravel_call_stats *s)
{
    call_model c = model_of(m, s);
    double call = ravel_cost_predict(name, m, s);
    return name ? predict_in_exchange(name, call, &c) : call;
}

/* The radices weighed besides the registry's radix-bruck (r = 4), after
 * every row of predictors[] (a tie keeps the row): small blocks want a
 * small radix, larger ones a large radix, whose blocks hop fewer times
 * (bench/results/comm_family/README.md: at P = 128 to 512 the best radix
 * is 8 to 32 from N = 256 on, 0.59 to 0.82 of radix 2's time at N >=
 * 1024).  Radix 2 is inline-bruck's schedule. */
static const struct {
    const char *name;
    int radix;
} more_radices[] = {
    {"radix-bruck:8", 8}, {"radix-bruck:16", 16}, {"radix-bruck:32", 32}};
enum { MORE_RADICES = sizeof more_radices / sizeof more_radices[0] };

/* Whether row i of predictors[] discovers its receive counts, asked of the
 * registry once: asking by name for every row at every choice (strcmp
 * down the registry) was a seventh of auto's time in an engine's call of
 * small blocks at 2 ranks (perf of 0.5 us calls). */
static int row_discovers(size_t i)
{
    static signed char known[PREDICTORS]; /* 0 not asked, 1 no, 2 yes */
    if (!known[i]) {
        int param;
        known[i] = comm_discovering_kernel(predictors[i].name, &param) ? 2 : 1;
    }
    return known[i] == 2;
}

/* predict_in_exchange for row i. */
static double row_in_exchange(size_t i, double call, const call_model *c)
{
    return in_exchange(predictors[i].predict == predict_shm,
                       row_discovers(i), call, c);
}

/* two-level over each inner backend the choice weighs but shm (which runs
 * within one node), weighed where the layout has several nodes of several
 * ranks.  Spelt once: auto knows names by address.  On the simulated
 * Theta-like platform two-level took 0.53 to 0.86 of the fastest flat
 * backend's time up to N = 256 and tied it at N = 2048
 * (bench/results/two_level/README.md), and its estimate (predict_two_level)
 * came within 0.93 to 1.07 of the simulated time on the 67 runs of
 * two-level:spread-out there and on the auto grid, and 0.96 to 1.06 on the
 * other inner backends but radix 8 at N = 16, 1.23
 * (bench/results/auto/README.md, "A relay's share of its node").  After the radices: a tie keeps the flat
 * backend. */
static const char *const two_level_rows[] = {
    "two-level:spread-out",     "two-level:padded-alltoall",
    "two-level:padded-bruck",   "two-level:two-phase-bruck",
    "two-level:pairwise",       "two-level:inline-bruck",
    "two-level:radix-bruck",    "two-level:vendor",
    "two-level:radix-bruck:8",  "two-level:radix-bruck:16",
    "two-level:radix-bruck:32"};
enum { TWO_LEVEL_ROWS = sizeof two_level_rows / sizeof two_level_rows[0] };

static int several_nodes_of_several(const call_model *c)
{
    return c->nodes > 1 && c->m->ranks_per_node > 1;
}

static void consider(const char *name, double t, const char **best,
                     double *best_time)
{
    /* Less by more than rounding: a tie keeps the earlier candidate.  Two
     * formulas equal on paper (vendor's and spread-out's at 2 ranks)
     * differ in the last bit as the terms are added in another order. */
    if (t >= 0.0 && t < *best_time * (1.0 - TIE_TOLERANCE)) {
        *best = name;
        *best_time = t;
    }
}

/* looked_up: weigh the backends that join the registry when first looked
 * up (the extra radices, two-level), not only its fixed rows. */
static const char *choose(const ravel_cost_params *m,
                          const ravel_call_stats *s, int in_exchange,
                          int looked_up, const char *skip, double *predicted)
{
    call_model c = model_of(m, s);
    const char *best = NULL;
    double best_time = INFINITY;
    for (size_t i = 0; i < PREDICTORS; i++) {
        if (predictors[i].name == skip)
            continue;
        double t = predictors[i].predict(&c);
        if (in_exchange)
            t = row_in_exchange(i, t, &c);
        consider(predictors[i].name, t, &best, &best_time);
    }
    for (size_t i = 0; looked_up && i < MORE_RADICES; i++) /* they discover */
        consider(more_radices[i].name, predict_radix(&c, more_radices[i].radix),
                 &best, &best_time);
    for (size_t i = 0; looked_up && several_nodes_of_several(&c) &&
                       i < TWO_LEVEL_ROWS;
         i++) {
        const char *name = two_level_rows[i];
        double t = predict_two_level(&c, comm_two_level_inner(name));
        consider(name, in_exchange ? predict_in_exchange(name, t, &c) : t,
                 &best, &best_time);
    }
    if (predicted)
        *predicted = best_time;
    return best;
}

const char *ravel_cost_choose(const ravel_cost_params *m,
                              const ravel_call_stats *s, double *predicted)
{
    return choose(m, s, 0, 1, NULL, predicted);
}

const char *ravel_cost_choose_exchange(const ravel_cost_params *m,
                                       const ravel_call_stats *s,
                                       double *predicted)
{
    return choose(m, s, 1, 1, NULL, predicted);
}

const char *ravel_cost_choose_fixed(const ravel_cost_params *m,
                                    const ravel_call_stats *s,
                                    int in_exchange, double *predicted)
{
    return choose(m, s, in_exchange, 0, NULL, predicted);
}

double ravel_cost_shm_growth(const ravel_cost_params *m, uint64_t fresh_bytes)
{
    return m->fresh * (double)fresh_bytes;
}

/* Why rent or buy: shm's window grows the first time a call needs more
 * than it holds (doubling from 64 KiB, to 1 MiB halves, to 16 MiB for
 * outboxes written in place), and fresh shared memory is dear: about 7 ms
 * a MiB on this project's VM.  Charged in full to the call that grows it,
 * auto would never take shm for a large call again, though later calls
 * repay the growth many times over (fe_sphere's 188 iterations); left out,
 * auto took it on ego-Facebook's closure, whose growths cost 27 ms and
 * whose 17 iterations saved 2 to 3 (bench/results/auto/README.md,
 * "ego-Facebook").  A choice per call cannot know how many calls follow;
 * renting until the rent paid equals the price is the classic answer,
 * within twice the cost of the best choice in hindsight. */
const char *ravel_cost_choose_renting(const ravel_cost_params *m,
                                      const ravel_call_stats *s,
                                      int in_exchange, int looked_up,
                                      uint64_t fresh_bytes, double *rent,
                                      double *predicted)
{
    double t;
    const char *best = choose(m, s, in_exchange, looked_up, NULL, &t);
    if (!best || fresh_bytes == 0 || strcmp(best, "shm") != 0) {
        if (predicted)
            *predicted = t;
        return best;
    }
    double growth = ravel_cost_shm_growth(m, fresh_bytes), other_time;
    const char *other =
        choose(m, s, in_exchange, looked_up, best, &other_time);
    double loss = other_time - t; /* what declining the growth costs now */
    if (!other || *rent + loss >= growth) {
        *rent = 0.0;
        if (predicted)
            *predicted = t + growth;
        return best;
    }
    *rent += loss;
    if (predicted)
        *predicted = other_time;
    return other;
}

/* Rough figures of one multi-core node, for runs without a model file.
 * alpha, beta and o: this project's 2-core development machine,
 * ravel-calibrate at 2 ranks under some load (0.89 us, 1.57e-10 s/B,
 * 0.21 us), rounded up; idle, it measured less (0.10 us, 7.1e-11 s/B,
 * 0.13 us: bench/results/auto/model-this-machine.json), so the default
 * errs on the slow side.  gamma: 1e-10 s/B (10 GB/s) lies between the
 * fits, which in-cache copies dominate (about 1e-11), and the 3 to 13 GB/s
 * of 64 MiB copies. */
/* fresh: this project's VM, 2 ranks (bench/shm/fresh_window.sh,
 * bench/results/shm/fresh_window_2026-11-29.txt): MPI_Win_allocate_shared
 * 2.1 to 2.2 ms a MiB a rank and the first write 4.9 ms a MiB (17 to 19 us
 * a 4 KiB page; the second write 0.03 ms), so 7 ms a MiB.  A machine whose
 * page faults cost less (no hypervisor in between) measures far less with
 * ravel-calibrate. */
#define FRESH_DEFAULT 6.7e-9

void ravel_cost_params_default(ravel_cost_params *m)
{
    m->alpha = 1.0e-6;
    m->beta = 2.0e-10;
    m->gamma = 1.0e-10;
    m->o = 2.0e-7;
    m->fresh = FRESH_DEFAULT;
    m->ranks_per_node = 1;
}
