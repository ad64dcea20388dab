// core/json_read.c: the strict JSON reader on tricky inputs.  Expected trees
// and positions are written out by hand from RFC 8259, not from the parser.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>

#include "ravel/error.h"
#include "ravel/json.h"

namespace {

struct Parsed {
    int rc;
    std::string err;
    ravel_json_value *root;
    ~Parsed() { ravel_json_free(root); }
};

Parsed *parse(const std::string &text)
{
    Parsed *p = new Parsed{0, "", nullptr};
    char err[256] = "";
    p->rc = ravel_json_parse(text.data(), text.size(), &p->root, err,
                             sizeof err);
    p->err = err;
    return p;
}

// The error of text, which must be refused.
std::string error_of(const std::string &text)
{
    std::unique_ptr<Parsed> p(parse(text));
    EXPECT_EQ(p->rc, -1) << "accepted: " << text;
    EXPECT_EQ(p->root, nullptr);
    return p->err;
}

} // namespace

TEST(JsonRead, ScalarsAtTheTop)
{
    std::unique_ptr<Parsed> p(parse("  -0.5e+2 \n"));
    ASSERT_EQ(p->rc, 0) << p->err;
    EXPECT_EQ(p->root->kind, RAVEL_JSON_NUMBER);
    EXPECT_EQ(p->root->number, -50.0);
    EXPECT_EQ(p->root->line, 1);
    EXPECT_EQ(p->root->column, 3);
    for (const char *lit : {"true", "false", "null"}) {
        std::unique_ptr<Parsed> q(parse(lit));
        ASSERT_EQ(q->rc, 0) << lit;
        EXPECT_STREQ(ravel_json_kind_name(q->root->kind), lit);
    }
}

TEST(JsonRead, NestedTreeWithPositions)
{
    std::unique_ptr<Parsed> p(parse("{\n  \"a\": [1, {\"b\": null}, []],\n"
                                    "  \"c\": {}\n}"));
    ASSERT_EQ(p->rc, 0) << p->err;
    const ravel_json_value *r = p->root;
    ASSERT_EQ(r->kind, RAVEL_JSON_OBJECT);
    ASSERT_EQ(r->length, 2u);
    EXPECT_STREQ(r->members[0].name, "a");
    EXPECT_EQ(r->members[0].line, 2);
    EXPECT_EQ(r->members[0].column, 3);
    const ravel_json_value *a = ravel_json_get(r, "a");
    ASSERT_NE(a, nullptr);
    ASSERT_EQ(a->kind, RAVEL_JSON_ARRAY);
    ASSERT_EQ(a->length, 3u);
    EXPECT_EQ(a->line, 2);
    EXPECT_EQ(a->column, 8);
    EXPECT_EQ(a->items[0].number, 1.0);
    EXPECT_EQ(ravel_json_get(&a->items[1], "b")->kind, RAVEL_JSON_NULL);
    EXPECT_EQ(a->items[2].length, 0u);
    const ravel_json_value *c = ravel_json_get(r, "c");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->kind, RAVEL_JSON_OBJECT);
    EXPECT_EQ(c->line, 3);
    EXPECT_EQ(ravel_json_get(r, "missing"), nullptr);
    EXPECT_EQ(ravel_json_get(a, "a"), nullptr); // not an object
}

TEST(JsonRead, StringEscapesDecode)
{
    std::unique_ptr<Parsed> p(
        parse(R"("q\" b\\ s\/ \b\f\n\r\t \u00e9 \u20AC \ud83d\ude00 \u0000.")"));
    ASSERT_EQ(p->rc, 0) << p->err;
    std::string want = "q\" b\\ s/ \b\f\n\r\t \xc3\xa9 \xe2\x82\xac "
                       "\xf0\x9f\x98\x80 ";
    want += '\0';
    want += '.';
    EXPECT_EQ(std::string(p->root->string, p->root->length), want);
    // Raw UTF-8 passes unchanged; an empty string is "" and not NULL.
    std::unique_ptr<Parsed> q(parse("[\"\xc3\xa9\", \"\"]"));
    ASSERT_EQ(q->rc, 0) << q->err;
    EXPECT_STREQ(q->root->items[0].string, "\xc3\xa9");
    ASSERT_NE(q->root->items[1].string, nullptr);
    EXPECT_EQ(q->root->items[1].length, 0u);
}

TEST(JsonRead, NumbersFollowTheGrammar)
{
    std::unique_ptr<Parsed> p(parse("[0, -0, 1.5, 2E3, 1e-400, "
                                    "1.7976931348623157e308]"));
    ASSERT_EQ(p->rc, 0) << p->err;
    EXPECT_EQ(p->root->items[2].number, 1.5);
    EXPECT_EQ(p->root->items[3].number, 2000.0);
    EXPECT_EQ(p->root->items[4].number, 0.0); // underflow is harmless
    EXPECT_TRUE(std::isfinite(p->root->items[5].number));
    EXPECT_EQ(error_of("01"), "1:2: expected the end of the input after the "
                              "top-level value, found '1'");
    EXPECT_EQ(error_of("[+1]"), "1:2: expected a value (object, array, "
                                "string, number, true, false or null), "
                                "found '+'");
    EXPECT_EQ(error_of("[1.]"), "1:4: expected a digit after the decimal "
                                "point, found ']'");
    EXPECT_EQ(error_of(".5"), "1:1: expected a value (object, array, string, "
                              "number, true, false or null), found '.'");
    EXPECT_EQ(error_of("[1e]"), "1:4: expected a digit of the exponent, "
                                "found ']'");
    EXPECT_EQ(error_of("-"), "1:2: expected a digit, found end of input");
    EXPECT_EQ(error_of("[0x10]"), "1:3: expected ',' or ']' after an array "
                                  "item, found 'x'");
    EXPECT_EQ(error_of("\n  1e999"), "2:3: expected a number within the "
                                     "range of a double, found 1e999");
    EXPECT_NE(error_of("NaN").find("1:1: expected a value"), std::string::npos);
    EXPECT_NE(error_of("[Infinity]").find("1:2:"), std::string::npos);
}

TEST(JsonRead, SyntaxErrorsNameLineColumnAndWhatWasExpected)
{
    EXPECT_EQ(error_of(""), "1:1: expected a value (object, array, string, "
                            "number, true, false or null), found end of input");
    EXPECT_EQ(error_of("{\n  \"a\": 1,\n}"),
              "3:1: expected a member name in double quotes, found '}'");
    EXPECT_EQ(error_of("{\"a\" 1}"), "1:6: expected ':' after the member "
                                     "name, found '1'");
    EXPECT_EQ(error_of("{\"a\": 1 \"b\": 2}"),
              "1:9: expected ',' or '}' after an object member, found '\"'");
    EXPECT_EQ(error_of("[1, 2"), "1:6: expected ',' or ']' after an array "
                                 "item, found end of input");
    EXPECT_EQ(error_of("{'a': 1}"), "1:2: expected a member name in double "
                                    "quotes, found '''");
    EXPECT_EQ(error_of("{} {}"), "1:4: expected the end of the input after "
                                 "the top-level value, found '{'");
    EXPECT_EQ(error_of("[tru]"), "1:2: expected a value (object, array, "
                                 "string, number, true, false or null), "
                                 "found 't'");
    EXPECT_EQ(error_of("[true false]"), "1:7: expected ',' or ']' after an "
                                        "array item, found 'f'");
    EXPECT_EQ(error_of("// c\n{}"), "1:1: expected a value (object, array, "
                                    "string, number, true, false or null), "
                                    "found '/'");
    EXPECT_EQ(error_of(std::string("[1,\0]", 5)),
              "1:4: expected a value (object, array, string, number, true, "
              "false or null), found byte 0x00");
    // \r\n ends a line once.
    EXPECT_EQ(error_of("[\r\n\r\n  x]"), "3:3: expected a value (object, "
                                         "array, string, number, true, "
                                         "false or null), found 'x'");
}

TEST(JsonRead, BadStrings)
{
    EXPECT_EQ(error_of("\"abc"), "1:5: expected '\"' closing the string, "
                                 "found end of input");
    EXPECT_EQ(error_of("\"a\nb\""), "1:3: expected a character of the string "
                                    "(control characters must be escaped), "
                                    "found byte 0x0a");
    EXPECT_NE(error_of("\"\\x\"").find("1:3: expected an escape"),
              std::string::npos);
    EXPECT_EQ(error_of("\"\\u12g4\""), "1:6: expected a hexadecimal digit of "
                                       "a \\u escape, found 'g'");
    EXPECT_EQ(error_of("\"\\udc00\""), "1:2: expected a \\u escape other than "
                                       "a lone low surrogate, found \\udc00");
    EXPECT_EQ(error_of("\"\\ud83d.\""), "1:8: expected \\u and the low "
                                        "surrogate after a high surrogate, "
                                        "found '.'");
    EXPECT_EQ(error_of("\"\\ud83d\\u0041\""),
              "1:8: expected a low surrogate (\\udc00..\\udfff), found \\u0041");
    // Malformed UTF-8: a stray continuation byte, an overlong '/', a
    // surrogate encoded directly, a truncated sequence.
    for (const char *bad : {"\"\x80\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"",
                            "\"\xe2\x82\""})
        EXPECT_EQ(error_of(bad).find("1:2: expected well-formed UTF-8"), 0u)
            << bad;
}

TEST(JsonRead, DuplicateMembersAreRefusedWithBothPositions)
{
    EXPECT_EQ(error_of("{\"a\": 1,\n \"b\": 2,\n \"a\": 3}"),
              "3:2: duplicate member \"a\" (first given at 1:2)");
    // The first repeat in document order, among several.
    EXPECT_EQ(error_of("{\"z\":0,\"y\":0,\"y\":1,\"z\":1}"),
              "1:14: duplicate member \"y\" (first given at 1:8)");
    // Nested objects have their own names; equal prefixes are not equal.
    std::unique_ptr<Parsed> p(parse("{\"a\": {\"a\": 1}, \"ab\": 2, \"b\": "
                                    "{\"a\": 2, \"b\": 3}}"));
    EXPECT_EQ(p->rc, 0) << p->err;
}

TEST(JsonRead, DepthIsBounded)
{
    std::string ok(RAVEL_JSON_MAX_DEPTH, '['), deep(RAVEL_JSON_MAX_DEPTH + 1,
                                                    '[');
    ok += std::string(RAVEL_JSON_MAX_DEPTH, ']');
    std::unique_ptr<Parsed> p(parse(ok));
    EXPECT_EQ(p->rc, 0) << p->err;
    EXPECT_EQ(error_of(deep + std::string(RAVEL_JSON_MAX_DEPTH + 1, ']')),
              "1:65: expected at most 64 nested arrays and objects, found "
              "more");
    // A million open brackets fail fast, without exhausting the stack.
    EXPECT_NE(error_of(std::string(1000000, '[')).find("nested"),
              std::string::npos);
}

TEST(JsonRead, ManyMembersStayFast)
{
    std::string text = "{";
    for (int i = 0; i < 100000; i++)
        text += (i ? ",\"" : "\"") + std::to_string(i) + "\":" +
                std::to_string(i);
    text += "}";
    std::unique_ptr<Parsed> p(parse(text));
    ASSERT_EQ(p->rc, 0) << p->err;
    EXPECT_EQ(p->root->length, 100000u);
    EXPECT_EQ(ravel_json_get(p->root, "99999")->number, 99999.0);
}

TEST(JsonReadFile, MessagesNameTheFile)
{
    char dir[] = "/tmp/ravel_json_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    std::string d = dir, good = d + "/good.json", bad = d + "/bad.json",
                empty = d + "/empty.json", big = d + "/big.json";
    auto write = [](const std::string &path, const std::string &text) {
        FILE *f = fopen(path.c_str(), "w");
        ASSERT_NE(f, nullptr);
        fwrite(text.data(), 1, text.size(), f);
        fclose(f);
    };
    write(good, "{\"x\": [1]}\n");
    write(bad, "{\n  \"x\": [1,]\n}\n");
    write(empty, "");
    write(big, "[" + std::string(2000, ' ') + "]");
    ravel_json_value *root = nullptr;
    EXPECT_EQ(ravel_json_read_file(good.c_str(), 1 << 20, &root), 0);
    ASSERT_NE(root, nullptr);
    ravel_json_free(root);
    EXPECT_NE(ravel_json_read_file(bad.c_str(), 1 << 20, &root), 0);
    EXPECT_EQ(root, nullptr);
    EXPECT_EQ(std::string(ravel_error_message()),
              bad + ":2:11: expected a value (object, array, string, number, "
                    "true, false or null), found ']'");
    EXPECT_NE(ravel_json_read_file(empty.c_str(), 1 << 20, &root), 0);
    EXPECT_EQ(std::string(ravel_error_message()), empty + ": the file is empty");
    EXPECT_NE(ravel_json_read_file(big.c_str(), 1000, &root), 0);
    EXPECT_EQ(std::string(ravel_error_message()),
              big + ": 2002 bytes, more than the 1000 this reader accepts");
    EXPECT_NE(ravel_json_read_file(d.c_str(), 1 << 20, &root), 0);
    EXPECT_EQ(std::string(ravel_error_message()),
              d + ": not a regular file (a directory)");
    // A FIFO is refused at once, not waited on for a writer.
    std::string fifo = d + "/fifo.json";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_EQ(ravel_json_read_file(fifo.c_str(), 1 << 20, &root),
              MPI_ERR_FILE);
    EXPECT_EQ(std::string(ravel_error_message()),
              fifo + ": not a regular file");
    unlink(fifo.c_str());
    std::string missing = d + "/missing.json";
    EXPECT_NE(ravel_json_read_file(missing.c_str(), 1 << 20, &root), 0);
    EXPECT_EQ(std::string(ravel_error_message()),
              missing + ": cannot open: No such file or directory");
    for (const std::string &f : {good, bad, empty, big})
        unlink(f.c_str());
    rmdir(dir);
}
