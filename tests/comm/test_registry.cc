// The backend table: names, lookup, listing.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ravel/comm.h"
#include "ravel/error.h"

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
    EXPECT_EQ(ravel_alltoallv_lookup("radix-bruck"),
              &ravel_alltoallv_radix_bruck);
    EXPECT_EQ(ravel_alltoallv_lookup("auto"), &ravel_alltoallv_auto);
}

TEST(Registry, UnknownNamesAreNull)
{
    EXPECT_EQ(ravel_alltoallv_lookup("bruck"), nullptr);
    EXPECT_EQ(ravel_alltoallv_lookup(""), nullptr);
    EXPECT_EQ(ravel_alltoallv_lookup("Vendor"), nullptr);
    EXPECT_EQ(ravel_alltoallv_lookup(nullptr), nullptr);
    EXPECT_EQ(ravel_alltoallv_lookup("bruck"), nullptr);
    // The message names the culprit and every accepted name.
    std::string why = ravel_error_message();
    EXPECT_NE(why.find("'bruck' is not a backend"), std::string::npos) << why;
    EXPECT_NE(why.find("inline-bruck"), std::string::npos) << why;
    EXPECT_NE(why.find("radix-bruck:R"), std::string::npos) << why;
}

TEST(Registry, RadixNamesAreCheckedAndJoinTheTable)
{
    size_t fixed = ravel_alltoallv_fixed_count();
    size_t before = ravel_alltoallv_count();
    EXPECT_EQ(std::string(ravel_alltoallv_name(fixed - 1)), "auto");
    for (const char *bad :
         {"radix-bruck:", "radix-bruck:1", "radix-bruck:0", "radix-bruck:-4",
          "radix-bruck:+4", "radix-bruck:04", "radix-bruck:4x",
          "radix-bruck:x", "radix-bruck: 4", "radix-bruck:4.0",
          "radix-bruck:2147483648", "radix-bruck:99999999999999999999"}) {
        EXPECT_EQ(ravel_alltoallv_lookup(bad), nullptr) << bad;
        std::string why = ravel_error_message();
        EXPECT_NE(why.find(std::string("'") + bad + "' is not a backend"),
                  std::string::npos)
            << why;
        EXPECT_NE(why.find("radix-bruck:R for a whole number R >= 2"),
                  std::string::npos)
            << why;
    }
    EXPECT_EQ(ravel_alltoallv_count(), before) << "a bad name joined";

    ravel_alltoallv_fn eight = ravel_alltoallv_lookup("radix-bruck:8");
    ASSERT_NE(eight, nullptr) << ravel_error_message();
    EXPECT_EQ(ravel_alltoallv_lookup("radix-bruck:8"), eight); // once
    ravel_alltoallv_fn two = ravel_alltoallv_lookup("radix-bruck:2");
    ASSERT_NE(two, nullptr);
    EXPECT_NE(two, eight);
    EXPECT_NE(two, &ravel_alltoallv_radix_bruck);
    ASSERT_NE(ravel_alltoallv_lookup("radix-bruck:2147483647"), nullptr);
    EXPECT_EQ(ravel_alltoallv_count(), before + 3);
    EXPECT_EQ(std::string(ravel_alltoallv_name(before)), "radix-bruck:8");
    EXPECT_EQ(std::string(ravel_alltoallv_name(before + 1)), "radix-bruck:2");
}

TEST(Registry, PaddedBruckVariants)
{
    size_t before = ravel_alltoallv_count();
    EXPECT_EQ(ravel_alltoallv_lookup("padded-bruck:modified"),
              &ravel_alltoallv_padded_bruck);
    ravel_alltoallv_fn basic = ravel_alltoallv_lookup("padded-bruck:basic");
    ASSERT_NE(basic, nullptr) << ravel_error_message();
    EXPECT_NE(basic, &ravel_alltoallv_padded_bruck);
    for (const char *bad : {"padded-bruck:", "padded-bruck:Basic",
                            "padded-bruck:basic ", "padded-bruck:4"}) {
        EXPECT_EQ(ravel_alltoallv_lookup(bad), nullptr) << bad;
        std::string why = ravel_error_message();
        EXPECT_NE(why.find(std::string("'") + bad + "' is not a backend"),
                  std::string::npos)
            << why;
        EXPECT_NE(why.find("padded-bruck:basic (rotations) or "
                           "padded-bruck:modified"),
                  std::string::npos)
            << why;
    }
    EXPECT_EQ(ravel_alltoallv_count(), before + 2); // both good names
}

TEST(Registry, AutoVariants)
{
    size_t before = ravel_alltoallv_count();
    ravel_alltoallv_fn agree = ravel_alltoallv_lookup("auto:agree");
    ASSERT_NE(agree, nullptr) << ravel_error_message();
    EXPECT_NE(agree, &ravel_alltoallv_auto);
    for (const char *bad : {"auto:", "auto:Agree", "auto:carry", "auto:2"}) {
        EXPECT_EQ(ravel_alltoallv_lookup(bad), nullptr) << bad;
        std::string why = ravel_error_message();
        EXPECT_NE(why.find(std::string("'") + bad + "' is not a backend"),
                  std::string::npos)
            << why;
        EXPECT_NE(why.find("auto:agree (an allreduce before every call"),
                  std::string::npos)
            << why;
    }
    EXPECT_EQ(ravel_alltoallv_count(), before + 1);
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
              "two-phase-bruck, pairwise, inline-bruck, radix-bruck, shm, auto");
    EXPECT_EQ(need, std::string(list).size() + 1);
    char small[8];
    EXPECT_EQ(ravel_alltoallv_names(small, sizeof small, ", "), need);
    EXPECT_EQ(std::string(small), "vendor"); // cut at a whole name
}
