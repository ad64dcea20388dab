// Malformed programs, each with its expected error: position and text.
#include <gtest/gtest.h>

#include <string>

#include "kcfa_parse.h"
#include "ravel/error.h"

namespace {

struct BadProgram {
    const char *what;
    std::string text;
    size_t line, column;
    const char *message; // the whole message, without the position
};

const BadProgram kBad[] = {
    {"empty input", "", 1, 1, "empty input: expected (program ...)"},
    {"only a comment", "  ; nothing\n\n", 3, 1,
     "empty input: expected (program ...)"},
    {"missing ')'", "(program (app (ref f) (ref x)\n (ref k)", 2, 9,
     "unexpected end of input: the '(' of (app ...) at line 1, column 10 "
     "is never closed"},
    {"extra ')'", "(program (app (ref f) (ref x) (ref k)))\n)", 2, 1,
     "unbalanced ')' after the end of the program"},
    {"trailing garbage", "(program (app (ref f) (ref x) (ref k))) extra", 1,
     41, "trailing text after the end of the program: name 'extra'"},
    {"a second program",
     "(program (app (ref f) (ref x) (ref k)))(program)", 1, 40,
     "trailing text after the end of the program: '('"},
    {"not a program", "(app (ref f) (ref x) (ref k))", 1, 2,
     "expected (program ...), found name 'app' after '('"},
    {"bare name", "program", 1, 1, "expected (program ...), found name 'program'"},
    {"unknown form", "(program (app (ref f) (lamb x k (ref x)) (ref k)))", 1,
     24, "unknown form 'lamb'"},
    {"lam where a call goes", "(program (lam x k (app (ref k) (ref x) (ref x))))",
     1, 11, "expected a call (app ...), found (lam ...)"},
    {"app where an atom goes",
     "(program (app (app (ref f) (ref x) (ref k)) (ref x) (ref k)))", 1, 16,
     "expected (lam ...) or (ref ...), found (app ...)"},
    {"name where an atom goes", "(program (app f (ref x) (ref k)))", 1, 15,
     "expected (lam ...) or (ref ...), found name 'f'"},
    {"app with two parts", "(program (app (ref f) (ref x)))", 1, 30,
     "too few parts in (app ...): it takes a function and two arguments, "
     "found 2"},
    {"app with four parts",
     "(program (app (ref f) (ref x) (ref k) (ref k)))", 1, 39,
     "too many parts in (app ...): it takes a function and two arguments, "
     "found another: '('"},
    {"lam with one name", "(program (app (lam x (app (ref x) (ref x) (ref x))) (ref x) (ref x)))",
     1, 22, "bad name in (lam ...): expected a symbol or a string, found '('"},
    {"lam without body", "(program (app (lam x k) (ref x) (ref x)))", 1, 23,
     "too few parts in (lam ...): it takes two names and a call, found 2"},
    {"ref with two names", "(program (app (ref f g) (ref x) (ref x)))", 1, 22,
     "too many parts in (ref ...): it takes one name, found another: name 'g'"},
    {"ref without name", "(program (app (ref) (ref x) (ref x)))", 1, 19,
     "too few parts in (ref ...): it takes one name, found 0"},
    {"empty string name", "(program (app (ref \"\") (ref x) (ref x)))", 1, 20,
     "bad name in (ref ...): the empty string"},
    {"list as a name", "(program (app (ref (x)) (ref x) (ref x)))", 1, 20,
     "bad name in (ref ...): expected a symbol or a string, found '('"},
    {"empty form", "(program (app () (ref x) (ref x)))", 1, 16,
     "expected a form name (program, app, lam or ref) after '(', found ')'"},
    {"string as a form name", "(program (app (\"ref\" x) (ref x) (ref x)))", 1,
     16, "expected a form name (program, app, lam or ref) after '(', found "
         "name 'ref'"},
    {"nested program", "(program (program (app (ref f) (ref x) (ref x))))", 1,
     11, "expected a call (app ...), found (program ...)"},
    {"empty program", "(program)", 1, 9,
     "too few parts in (program ...): it takes one call, found 0"},
    {"unterminated string", "(program (app (ref \"abc) (ref x) (ref x)))\n", 1,
     20, "unterminated string"},
    {"bad escape", "(program (app (ref \"a\\nb\") (ref x) (ref x)))", 1, 22,
     "bad escape in a string: only \\\" and \\\\ are allowed"},
    {"NUL byte", std::string("(program (app (ref f\0) (ref x) (ref x)))", 41),
     1, 21, "unexpected NUL byte"},
    {"NUL in a string", std::string("(program (app (ref \"f\0\") (ref x) (ref x)))", 43),
     1, 22, "a NUL byte inside a string"},
    {"error after a string with a newline",
     "(program (app (ref \"two\nlines\") (ref x)\n   (ref x) (ref y)))", 3,
     12, "too many parts in (app ...): it takes a function and two "
         "arguments, found another: '('"},
};

TEST(KcfaParseErrors, EachMalformedProgramNamesFileLineAndColumn)
{
    for (const BadProgram &bad : kBad) {
        SCOPED_TRACE(bad.what);
        ravel_kcfa_program p;
        ravel_kcfa_parse_error err;
        int rc = ravel_kcfa_parse_text(bad.text.data(), bad.text.size(),
                                       "bad.kcfa", &p, &err);
        EXPECT_NE(rc, 0);
        EXPECT_EQ(err.line, bad.line);
        EXPECT_EQ(err.column, bad.column);
        EXPECT_STREQ(err.message, bad.message);
        std::string full = "bad.kcfa:" + std::to_string(bad.line) + ":" +
                           std::to_string(bad.column) + ": " + bad.message;
        EXPECT_EQ(std::string(ravel_error_message()), full);
        EXPECT_EQ(p.nodes, nullptr); // nothing is left allocated
        EXPECT_EQ(p.nnodes, 0u);
    }
}

TEST(KcfaParseErrors, WorksWithoutAnErrorStruct)
{
    ravel_kcfa_program p;
    EXPECT_NE(ravel_kcfa_parse_text("(program", 8, "x.kcfa", &p, nullptr), 0);
    EXPECT_EQ(std::string(ravel_error_message()).rfind("x.kcfa:1:9: ", 0), 0u)
        << ravel_error_message();
}

} // namespace
