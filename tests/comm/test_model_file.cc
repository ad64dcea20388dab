// comm/model/model_file.c: model files round-trip exactly, and every kind of bad
// file is refused with a message naming the file and the member or position.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include "ravel/cost_model.h"
#include "ravel/error.h"

namespace {

class ModelFile : public ::testing::Test {
protected:
    std::string dir;

    void SetUp() override
    {
        char templ[] = "/tmp/ravel_model_XXXXXX";
        ASSERT_NE(mkdtemp(templ), nullptr);
        dir = templ;
    }
    void TearDown() override
    {
        std::string cmd = "rm -rf '" + dir + "'";
        ASSERT_EQ(system(cmd.c_str()), 0);
    }

    std::string write(const std::string &name, const std::string &text)
    {
        std::string path = dir + "/" + name;
        std::ofstream(path) << text;
        return path;
    }

    // A valid file with `replace` substituted for the line holding `key`
    // (or the line removed when replace is empty).
    static std::string valid_with(const std::string &key,
                                  const std::string &replace)
    {
        std::string lines[] = {
            "{",
            "  \"format\": \"ravel-cost-model\",",
            "  \"version\": 1,",
            "  \"ravel_version\": \"0.1.0\",",
            "  \"alpha\": 1.2e-06,",
            "  \"beta\": 1e-10,",
            "  \"gamma\": 8e-11,",
            "  \"o\": 3e-07,",
            "  \"ranks_per_node\": 2,",
            "  \"fit\": {\"alpha\": [1, {\"x\": null}], \"ok\": true}",
            "}"};
        std::string out;
        for (const std::string &l : lines) {
            if (!key.empty() && l.find("\"" + key + "\":") == 2) {
                if (!replace.empty())
                    out += replace + "\n";
            } else {
                out += l + "\n";
            }
        }
        return out;
    }

    // Loads path, which must be refused with code `code`; returns the message.
    static std::string refused(const std::string &path, int code)
    {
        ravel_cost_params m = {7, 7, 7, 7, 7, 7};
        ravel_error_clear();
        EXPECT_EQ(ravel_cost_model_load(path.c_str(), &m), code) << path;
        EXPECT_EQ(m.alpha, 7.0) << "a refused file must not change *m";
        EXPECT_EQ(m.ranks_per_node, 7);
        return ravel_error_message();
    }
};

#define EXPECT_HAS(haystack, needle)                                          \
    EXPECT_NE(std::string(haystack).find(needle), std::string::npos)          \
        << "'" << (needle) << "' not in: " << (haystack)

TEST_F(ModelFile, SaveThenLoadIsExact)
{
    // Values with no short decimal form, extremes of the range, and the
    // extra members of ravel-calibrate.
    const ravel_cost_params cases[] = {
        {1.2e-6, 1e-10, 8e-11, 3e-7, 6.7e-9, 2},
        {1.0 / 3.0, std::nextafter(1e-10, 1.0), 0.1 + 0.2, 4.9e-324,
         std::nextafter(7e-9, 0.0), 1},
        {1.7976931348623157e308, 2.2250738585072014e-308, 1, 12345.678,
         1e300, 1024},
    };
    std::string path = dir + "/m.json";
    for (const ravel_cost_params &m : cases) {
        ASSERT_EQ(ravel_cost_model_save(path.c_str(), &m,
                                        "\"fit\": {\"n\": 3}, \"host\": "
                                        "\"h\""),
                  0)
            << ravel_error_message();
        ravel_cost_params r = {0, 0, 0, 0, 0, 0};
        ASSERT_EQ(ravel_cost_model_load(path.c_str(), &r), 0)
            << ravel_error_message();
        EXPECT_EQ(r.alpha, m.alpha);
        EXPECT_EQ(r.beta, m.beta);
        EXPECT_EQ(r.gamma, m.gamma);
        EXPECT_EQ(r.o, m.o);
        EXPECT_EQ(r.fresh, m.fresh);
        EXPECT_EQ(r.ranks_per_node, m.ranks_per_node);
    }
    // No temporary is left behind; NULL extra is fine.
    EXPECT_NE(access((path + ".tmp").c_str(), F_OK), 0);
    ASSERT_EQ(ravel_cost_model_save(path.c_str(), &cases[0], nullptr), 0);
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_HAS(text.str(), "\"format\": \"ravel-cost-model\"");
    EXPECT_HAS(text.str(), "\"version\": 1,");
    EXPECT_HAS(text.str(), "\"alpha\": 1.2e-06,");
    EXPECT_HAS(text.str(), "\"ravel_version\": \"");
    EXPECT_HAS(text.str(), "\"date\": \"20");
}

TEST_F(ModelFile, AHandWrittenFileLoads)
{
    ravel_cost_params m;
    std::string path = write("ok.json", valid_with("", ""));
    ASSERT_EQ(ravel_cost_model_load(path.c_str(), &m), 0)
        << ravel_error_message();
    EXPECT_EQ(m.alpha, 1.2e-6);
    EXPECT_EQ(m.o, 3e-7);
    EXPECT_EQ(m.ranks_per_node, 2);
}

// "fresh" came after the four parameters: a file without it (all that
// ravel-calibrate wrote before) takes the built-in figure; one with it
// takes its value, which must be a finite number > 0 like the others.
TEST_F(ModelFile, FreshIsReadOrTakenFromTheBuiltInModel)
{
    ravel_cost_params d, m;
    ravel_cost_params_default(&d);
    ASSERT_GT(d.fresh, 0.0);
    std::string path = write("old.json", valid_with("", ""));
    ASSERT_EQ(ravel_cost_model_load(path.c_str(), &m), 0)
        << ravel_error_message();
    EXPECT_EQ(m.fresh, d.fresh);
    path = write("fresh.json", valid_with("o", "  \"o\": 3e-07, \"fresh\": 2.5e-10,"));
    ASSERT_EQ(ravel_cost_model_load(path.c_str(), &m), 0)
        << ravel_error_message();
    EXPECT_EQ(m.fresh, 2.5e-10);
    EXPECT_EQ(m.o, 3e-7);
    for (const char *bad : {"0", "-1e-9", "\"fast\""}) {
        path = write("bad.json", valid_with("o", std::string("  \"o\": 3e-07, "
                                                             "\"fresh\": ") +
                                                     bad + ","));
        EXPECT_HAS(refused(path, MPI_ERR_ARG), "\"fresh\"");
    }
    m.fresh = 0;
    m.alpha = m.beta = m.gamma = m.o = 1e-9;
    m.ranks_per_node = 1;
    EXPECT_EQ(ravel_cost_model_save((dir + "/m.json").c_str(), &m, nullptr),
              MPI_ERR_ARG);
    EXPECT_HAS(ravel_error_message(), "fresh = 0");
}

TEST_F(ModelFile, SaveRefusesWhatLoadWouldRefuse)
{
    std::string path = dir + "/m.json";
    ravel_cost_params m = {1e-6, 0, 1e-10, 1e-7, 7e-9, 1};
    EXPECT_EQ(ravel_cost_model_save(path.c_str(), &m, nullptr), MPI_ERR_ARG);
    EXPECT_HAS(ravel_error_message(), "beta = 0");
    m.beta = NAN;
    EXPECT_EQ(ravel_cost_model_save(path.c_str(), &m, nullptr), MPI_ERR_ARG);
    m.beta = 1e-10;
    m.ranks_per_node = 0;
    EXPECT_EQ(ravel_cost_model_save(path.c_str(), &m, nullptr), MPI_ERR_ARG);
    EXPECT_HAS(ravel_error_message(), "ranks_per_node = 0");
    m.ranks_per_node = 1;
    // Extra members that would break the file, or repeat a parameter.
    EXPECT_EQ(ravel_cost_model_save(path.c_str(), &m, "\"fit\": {"),
              MPI_ERR_ARG);
    EXPECT_HAS(ravel_error_message(), "invalid JSON");
    EXPECT_EQ(ravel_cost_model_save(path.c_str(), &m, "\"alpha\": 1"),
              MPI_ERR_ARG);
    EXPECT_HAS(ravel_error_message(), "duplicate member \"alpha\"");
    EXPECT_NE(access(path.c_str(), F_OK), 0) << "nothing may be written";
    // An unwritable place names the path.
    EXPECT_EQ(ravel_cost_model_save("/nonexistent/dir/m.json", &m, nullptr),
              MPI_ERR_FILE);
    EXPECT_HAS(ravel_error_message(), "/nonexistent/dir/m.json");
    EXPECT_HAS(ravel_error_message(), "No such file or directory");
}

TEST_F(ModelFile, IoFailuresAreFileErrors)
{
    std::string missing = dir + "/missing.json";
    std::string msg = refused(missing, MPI_ERR_FILE);
    EXPECT_HAS(msg, missing + ": cannot open: No such file or directory");
    msg = refused(dir, MPI_ERR_FILE);
    EXPECT_HAS(msg, dir + ": not a regular file (a directory)");
    std::string big = write("big.json", std::string((1 << 20) + 1, ' '));
    msg = refused(big, MPI_ERR_FILE);
    EXPECT_HAS(msg, big + ": 1048577 bytes, more than the 1048576");
    if (geteuid() != 0) { // root reads anything
        std::string secret = write("secret.json", valid_with("", ""));
        chmod(secret.c_str(), 0);
        msg = refused(secret, MPI_ERR_FILE);
        EXPECT_HAS(msg, secret + ": cannot open: Permission denied");
    }
}

TEST_F(ModelFile, MalformedFilesNameLineAndColumn)
{
    std::string p = write("empty.json", "");
    EXPECT_HAS(refused(p, MPI_ERR_ARG), p + ": the file is empty");
    p = write("comma.json", valid_with("o", "  \"o\": 3e-07,,"));
    EXPECT_HAS(refused(p, MPI_ERR_ARG),
               p + ":8:14: expected a member name in double quotes, "
                   "found ','");
    p = write("trailing.json", valid_with("", "") + "x\n");
    EXPECT_HAS(refused(p, MPI_ERR_ARG),
               p + ":12:1: expected the end of the input after the "
                   "top-level value, found 'x'");
    p = write("truncated.json", valid_with("", "").substr(0, 60));
    EXPECT_HAS(refused(p, MPI_ERR_ARG), p + ":");
    EXPECT_HAS(refused(p, MPI_ERR_ARG), "found end of input");
    p = write("dup.json", valid_with("beta", "  \"beta\": 1e-10, \"beta\": 2,"));
    EXPECT_HAS(refused(p, MPI_ERR_ARG),
               p + ":6:18: duplicate member \"beta\" (first given at 6:3)");
    p = write("array.json", "[1, 2]\n");
    EXPECT_HAS(refused(p, MPI_ERR_ARG), p + ":1:1: expected an object");
}

TEST_F(ModelFile, WrongFormatOrVersion)
{
    std::string p = write("noformat.json", valid_with("format", ""));
    EXPECT_HAS(refused(p, MPI_ERR_ARG), p + ": missing member \"format\"");
    p = write("other.json",
              valid_with("format", "  \"format\": \"something-else\","));
    EXPECT_HAS(refused(p, MPI_ERR_ARG),
               p + ":2:13: \"format\" is \"something-else\"; expected "
                   "\"ravel-cost-model\"");
    p = write("numformat.json", valid_with("format", "  \"format\": 1,"));
    EXPECT_HAS(refused(p, MPI_ERR_ARG), "\"format\" is number");
    p = write("v2.json", valid_with("version", "  \"version\": 2,"));
    EXPECT_HAS(refused(p, MPI_ERR_ARG),
               p + ":3:14: \"version\" is 2; this ravel reads version 1 only");
    p = write("v11.json", valid_with("version", "  \"version\": 1.5,"));
    EXPECT_HAS(refused(p, MPI_ERR_ARG), "\"version\" is 1.5");
    p = write("vstr.json", valid_with("version", "  \"version\": \"1\","));
    EXPECT_HAS(refused(p, MPI_ERR_ARG),
               p + ":3:14: \"version\" must be a number, found string");
    p = write("nov.json", valid_with("version", ""));
    EXPECT_HAS(refused(p, MPI_ERR_ARG), p + ": missing member \"version\"");
}

TEST_F(ModelFile, EveryParameterIsChecked)
{
    for (const char *name : {"alpha", "beta", "gamma", "o"}) {
        std::string key = name, line = "  \"" + key + "\": ";
        std::string p = write(key + "_missing.json", valid_with(key, ""));
        EXPECT_HAS(refused(p, MPI_ERR_ARG),
                   p + ": missing member \"" + key + "\"");
        p = write(key + "_string.json", valid_with(key, line + "\"1e-6\","));
        EXPECT_HAS(refused(p, MPI_ERR_ARG),
                   "\"" + key + "\" must be a number, found string");
        EXPECT_HAS(refused(p, MPI_ERR_ARG), p + ":");
        p = write(key + "_null.json", valid_with(key, line + "null,"));
        EXPECT_HAS(refused(p, MPI_ERR_ARG),
                   "\"" + key + "\" must be a number, found null");
        for (const char *bad : {"0", "-1e-6", "-0"}) {
            p = write(key + "_bad.json", valid_with(key, line + bad + ","));
            std::string msg = refused(p, MPI_ERR_ARG);
            EXPECT_HAS(msg, p + ":");
            EXPECT_HAS(msg, "\"" + key + "\" is ");
            EXPECT_HAS(msg, "expected a finite number > 0");
        }
        p = write(key + "_inf.json", valid_with(key, line + "1e999,"));
        EXPECT_HAS(refused(p, MPI_ERR_ARG), "within the range of a double");
        p = write(key + "_nan.json", valid_with(key, line + "NaN,"));
        EXPECT_HAS(refused(p, MPI_ERR_ARG), "expected a value");
    }
    std::string line = "  \"ranks_per_node\": ";
    for (const char *bad : {"0", "-2", "1.5", "1e12"}) {
        std::string p =
            write("rpn.json", valid_with("ranks_per_node", line + bad + ","));
        EXPECT_HAS(refused(p, MPI_ERR_ARG),
                   p + ":9:21: \"ranks_per_node\" is ");
        EXPECT_HAS(refused(p, MPI_ERR_ARG), "expected a whole number >= 1");
    }
    std::string p = write("rpn_missing.json", valid_with("ranks_per_node", ""));
    EXPECT_HAS(refused(p, MPI_ERR_ARG),
               p + ": missing member \"ranks_per_node\"");
}

} // namespace
