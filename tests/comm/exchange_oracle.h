// exchange_oracle.h: what every rank must find in an exchange's views,
// computed without any exchange: every byte is a function of (seed,
// sender, receiver, position), and every block's length is an exchange
// shape's count (exchange_cases.h) times 3 (odd sizes), so each rank knows
// what it sends and what it must receive.
#ifndef RAVEL_TEST_EXCHANGE_ORACLE_H
#define RAVEL_TEST_EXCHANGE_ORACLE_H

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "exchange_cases.h"
#include "ravel/comm.h"
#include "ravel/error.h"

namespace exchange_oracle {

inline int rank_, size_; // MPI_COMM_WORLD's, set by main

inline unsigned char byte_of(uint64_t seed, int src, int dst, size_t i)
{
    return (unsigned char)case_mix(seed * 131 + (uint64_t)src * 8191 +
                                   (uint64_t)dst * 127 + i);
}

// Bytes src sends dst: the shape's count times 3 (odd sizes).
inline size_t length_of(int shape, uint64_t seed, int src, int dst)
{
    return 3 * (size_t)case_count((exchange_shape)shape, seed, src, dst,
                                  size_, 700);
}

// Fills the outboxes in up to three appends per destination.
inline void fill_outboxes(ravel_exchange *x, int shape, uint64_t seed)
{
    for (int dst = 0; dst < size_; dst++) {
        size_t len = length_of(shape, seed, rank_, dst), done = 0;
        for (int part = 0; part < 3 && done < len; part++) {
            size_t n = part == 2 ? len - done : (len - done + 1) / 2;
            auto *p = static_cast<unsigned char *>(
                ravel_exchange_outbox(x, dst, n));
            ASSERT_NE(p, nullptr) << ravel_error_message();
            for (size_t i = 0; i < n; i++)
                p[i] = byte_of(seed, rank_, dst, done + i);
            done += n;
        }
    }
}

// The same blocks in one send buffer, in rank order, for
// ravel_exchange_send.
struct send_buffer {
    std::vector<unsigned char> bytes_of_all;
    std::vector<size_t> bytes, offsets;
    send_buffer(int shape, uint64_t seed) : bytes(size_), offsets(size_)
    {
        size_t at = 0;
        for (int dst = 0; dst < size_; dst++) {
            bytes[dst] = length_of(shape, seed, rank_, dst);
            offsets[dst] = at;
            at += bytes[dst];
        }
        bytes_of_all.resize(at + 1);
        for (int dst = 0; dst < size_; dst++)
            for (size_t i = 0; i < bytes[dst]; i++)
                bytes_of_all[offsets[dst] + i] = byte_of(seed, rank_, dst, i);
    }
    int send(ravel_exchange *x) const
    {
        return ravel_exchange_send(x, bytes_of_all.data(), bytes.data(),
                                   offsets.data());
    }
};

inline void check_inbox(const ravel_exchange *x, int shape, uint64_t seed,
                        const std::string &what)
{
    for (int src = 0; src < size_; src++) {
        size_t got = 0;
        auto *p = static_cast<const unsigned char *>(
            ravel_exchange_inbox(x, src, &got));
        size_t want = length_of(shape, seed, src, rank_);
        ASSERT_EQ(got, want) << what << " from rank " << src;
        if (want) {
            ASSERT_NE(p, nullptr) << what;
        }
        for (size_t i = 0; i < want; i++)
            if (p[i] != byte_of(seed, src, rank_, i)) {
                ADD_FAILURE() << what << " from rank " << src << ": byte "
                              << i << " differs";
                return;
            }
    }
}

} // namespace exchange_oracle

#endif
