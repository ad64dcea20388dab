// pattern_calls.h: whole MPI_Alltoallv calls of byte blocks for the tests
// that compare a backend with the cost model's view of the call (the
// counts, auto's statistics): every rank builds the whole P x P matrix of
// block sizes from a pattern and a seed, and its own call's arguments, with
// data each receiver can check.
#ifndef RAVEL_TEST_PATTERN_CALLS_H
#define RAVEL_TEST_PATTERN_CALLS_H

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "exchange_cases.h"
#include "ravel/comm.h"

// The patterns: the shared shapes plus uniform blocks (the shape where the
// model's estimate of two-phase Bruck's forwarding is exact) and large
// blocks among small ones (Bruck steps over inline-bruck's 64 KiB, and
// under it, on the same rank).
const int kUniform = SHAPE_COUNT, kLarge = SHAPE_COUNT + 1;
const int kPatterns[] = {SHAPE_RANDOM,     SHAPE_SPARSE,       SHAPE_ALL_ZERO,
                         SHAPE_ONE_SENDER, SHAPE_ONE_RECEIVER, SHAPE_SKEWED,
                         kUniform,         kLarge};

inline uint64_t pattern_bytes(int pattern, uint64_t seed, int src, int dst,
                              int P)
{
    if (pattern == kUniform)
        return 40;
    if (pattern == kLarge)
        return (src + 2 * dst + (int)seed) % 3 == 0 ? 70000 : 30;
    return (uint64_t)case_count((exchange_shape)pattern, seed, src, dst, P,
                                300);
}

// Block sizes m[src * P + dst].
inline std::vector<uint64_t> pattern_matrix(int pattern, uint64_t seed, int P)
{
    std::vector<uint64_t> m((size_t)P * P);
    for (int s = 0; s < P; s++)
        for (int d = 0; d < P; d++)
            m[(size_t)s * P + d] = pattern_bytes(pattern, seed, s, d, P);
    return m;
}

// Byte `at` of the block src sends dst.
inline char pattern_byte(int src, int dst, size_t at)
{
    return (char)((src * 31 + dst * 7 + (int)at) & 0xff);
}

struct PatternCall {
    int rank = 0, P = 0;
    std::vector<int> sc, sd, rc, rd;
    std::vector<char> sendbuf, recvbuf;

    int run(const char *backend)
    {
        return ravel_alltoallv_lookup(backend)(
            sendbuf.data(), sc.data(), sd.data(), MPI_BYTE, recvbuf.data(),
            rc.data(), rd.data(), MPI_BYTE, MPI_COMM_WORLD);
    }

    // Whether every block arrived as its sender wrote it.
    bool arrived() const
    {
        for (int p = 0; p < P; p++)
            for (int i = 0; i < rc[p]; i++)
                if (recvbuf[(size_t)rd[p] + i] != pattern_byte(p, rank, i))
                    return false;
        return true;
    }
};

// Rank `rank`'s call in matrix m, blocks back to back.
inline PatternCall pattern_call(const std::vector<uint64_t> &m, int rank,
                                int P)
{
    PatternCall c;
    c.rank = rank;
    c.P = P;
    int out = 0, in = 0;
    c.sc.resize(P);
    c.sd.resize(P);
    c.rc.resize(P);
    c.rd.resize(P);
    for (int p = 0; p < P; p++) {
        c.sc[p] = (int)m[(size_t)rank * P + p];
        c.rc[p] = (int)m[(size_t)p * P + rank];
        c.sd[p] = out;
        c.rd[p] = in;
        out += c.sc[p];
        in += c.rc[p];
    }
    c.sendbuf.resize((size_t)out + 1);
    for (int p = 0; p < P; p++)
        for (int i = 0; i < c.sc[p]; i++)
            c.sendbuf[(size_t)c.sd[p] + i] = pattern_byte(rank, p, i);
    c.recvbuf.assign((size_t)in + 1, 0);
    return c;
}

#endif
