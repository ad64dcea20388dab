// The backend table: names, lookup, listing.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ravel/comm.h"

TEST(Registry, EveryDocumentedBackendIsThere)
{
    EXPECT_EQ(ravel_alltoallv_lookup("vendor"), &ravel_alltoallv_vendor);
    EXPECT_EQ(ravel_alltoallv_lookup("spread-out"), &ravel_alltoallv_spread_out);
    EXPECT_EQ(ravel_alltoallv_lookup("padded-alltoall"),
              &ravel_alltoallv_padded_alltoall);
    EXPECT_EQ(ravel_alltoallv_lookup("padded-bruck"),
              &ravel_alltoallv_padded_bruck);
    EXPECT_EQ(ravel_alltoallv_lookup("two-phase-bruck"),
              &ravel_alltoallv_two_phase_bruck);
    EXPECT_EQ(ravel_alltoallv_lookup("pairwise"), &ravel_alltoallv_pairwise);
    EXPECT_EQ(ravel_alltoallv_lookup("inline-bruck"),
              &ravel_alltoallv_inline_bruck);
    EXPECT_EQ(ravel_alltoallv_lookup("auto"), &ravel_alltoallv_auto);
}

TEST(Registry, UnknownNamesAreNull)
{
    EXPECT_EQ(ravel_alltoallv_lookup("bruck"), nullptr);
    EXPECT_EQ(ravel_alltoallv_lookup(""), nullptr);
    EXPECT_EQ(ravel_alltoallv_lookup("Vendor"), nullptr);
    EXPECT_EQ(ravel_alltoallv_lookup(nullptr), nullptr);
}

TEST(Registry, NamesAreUniqueAndListed)
{
    std::set<std::string> names;
    for (size_t i = 0; i < ravel_alltoallv_count(); i++) {
        const char *name = ravel_alltoallv_name(i);
        ASSERT_NE(name, nullptr);
        EXPECT_NE(ravel_alltoallv_lookup(name), nullptr) << name;
        names.insert(name);
    }
    EXPECT_EQ(names.size(), ravel_alltoallv_count());
    EXPECT_EQ(ravel_alltoallv_name(ravel_alltoallv_count()), nullptr);

    char list[256];
    size_t need = ravel_alltoallv_names(list, sizeof list, ", ");
    EXPECT_EQ(std::string(list),
              "vendor, spread-out, padded-alltoall, padded-bruck, "
              "two-phase-bruck, pairwise, inline-bruck, auto");
    EXPECT_EQ(need, std::string(list).size() + 1);
    char small[8];
    EXPECT_EQ(ravel_alltoallv_names(small, sizeof small, ", "), need);
    EXPECT_EQ(std::string(small), "vendor"); // cut at a whole name
}
