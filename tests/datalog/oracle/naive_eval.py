#!/usr/bin/env python3
"""naive_eval.py: an independent test oracle for ravel-datalog.

This is a deliberately naive bottom-up Datalog evaluator, written from scratch
and sharing no code with ravel. It is used only to produce the expected
outputs of the test corpus in tests/datalog/corpus/. Simple and obviously
correct beats fast: every stratum is iterated to a fixpoint by re-running all
of its rules on the whole database (no semi-naive deltas).

    python3 naive_eval.py [-F FACT_DIR] [-D OUT_DIR] PROGRAM.dl

It implements the meaning Souffle (commit a1303be3c) gives to this subset:
  * `.decl`, `.type T <: base` and `.type T = base` (base number, unsigned,
    symbol or another such type; only the base kind is tracked, so subtypes
    are NOT checked against each other as strictly as Souffle does),
  * `.input` (IO=file, filename=, delimiter=), `.output` (same keys),
    `.printsize`, inline facts, rules with several heads,
  * body atoms with constants, `_`, repeated variables and expressions,
    `!atom`, comparisons = != < <= > >=, `;` and parentheses (expanded to
    disjunctive normal form exactly as Souffle's parser does, `!` of a
    parenthesised body included),
  * arithmetic + - * / % and unary minus, and aggregates count, sum, min, max
    (`count : { body }`, `count : atom`, `sum e : { body }`, ...).
Decisions (each mirrors Souffle's C++ unless said otherwise):
  * number is signed 64-bit and unsigned is unsigned 64-bit (Souffle built
    with a 64-bit domain; its default build is 32-bit). + - * and sums wrap
    around modulo 2^64; / truncates toward zero and % takes the sign of the
    dividend (C++). Division or modulo by zero, and INT64_MIN / -1 or % -1,
    crash Souffle with SIGFPE: the oracle stops with an error instead.
  * Symbols may be ordered with < <= > >=: Souffle compares std::strings,
    i.e. byte-wise on the UTF-8 bytes, and so does the oracle.
  * Aggregates: a variable of the aggregate that is grounded outside it is
    injected (a grouping key fixed from outside); all others are local.
    A variable that occurs outside the aggregate without being grounded
    there (a "witness") is refused. count and sum of nothing are 0; min and
    max of nothing produce no tuple. What is counted follows Souffle's
    MaterializeAggregationQueries: if the body is one positive atom (no
    repeated variable in it, no inner aggregate), every matching tuple of
    that relation counts once (so `count : { r(x, _) }` counts tuples);
    otherwise each distinct assignment of the body's named local variables
    counts once (`_` positions are projected away, so
    `count : { a(x, _), b(x) }` counts distinct x). Bodies where Souffle's
    alias resolution would flip between those two meanings are refused.
  * Output files are written sorted (numbers numerically, symbols by UTF-8
    bytes); Souffle's order differs, so compare outputs sorted.
    `.printsize` lines are printed in the order of the directives.
  * Fact files: fields split on the delimiter (tab by default), a trailing
    CR is dropped, numbers are decimal with an optional sign, unsigned are
    0x.. or 0b.., or decimal with an optional '+' (Souffle's std::stoll and
    std::stoull: decimal ones may start with white space), symbols are
    taken raw. A line with more fields
    than the arity is refused (Souffle silently ignores the extra fields).
Anything outside this subset (floats, records, ADTs, components, functors,
bitwise operators, `^`, mean, eqrel, choice-domain, the C preprocessor, ...)
is an error, never a guess. Errors are printed as `file:line:col: message`
and the exit status is 1.
"""
import copy
import os
import re
import sys

MIN64, MAX64, MOD64 = -(1 << 63), (1 << 63) - 1, 1 << 64
KINDS = ("number", "unsigned", "symbol")
AGG_OPS = ("count", "sum", "min", "max", "mean")
# Words Souffle's scanner turns into keywords: never identifiers.
RESERVED = set("""debug_delta autoinc band bor bxor bnot bshl bshr bshru land lor
lxor lnot match mean cat ord range strlen substr stateful contains output input
overridable printsize eqrel inline no_inline magic no_magic brie btree_delete btree
min max as nil count sum true false to_float to_number to_string to_unsigned
recursive_iteration_cnt __FILE__ __LINE__ __INCL__""".split())
DIRECTIVES = set("decl input output printsize limitsize type functor comp init "
                 "number_type symbol_type override pragma plan lattice include".split())


class DLError(Exception):
    def __init__(self, loc, msg):
        super().__init__(msg)
        self.loc, self.msg = loc, msg


class NoValue(Exception):
    """min/max of an empty set: the literal holding it does not hold."""


def fail(loc, msg):
    raise DLError(loc, msg)


# ----------------------------------------------------------------- lexer ---
TOKEN_RE = re.compile(r"""
   (?P<ws>[ \t\r\n\v\f]+)
 | (?P<lcom>//[^\n]*)
 | (?P<bcom>/\*)
 | (?P<dir>\.[a-z_]+(?=[ \t\r\v\f]))
 | (?P<float>[0-9]+\.[0-9]+)
 | (?P<num>0x[0-9a-fA-F]+u?|0b[01]+u?|[0-9]+u?)
 | (?P<ident>[?a-zA-Z][_?a-zA-Z0-9]*|_[_?a-zA-Z0-9]+)
 | (?P<str>"(?:\\.|[^"\\])*")
 | (?P<punct>:-|<:|<=|>=|!=|->|::|@!|[()\[\],.:;{}=<>!+\-*/%^_|$@])
""", re.X | re.S)
ESCAPES = {'"': '"', "'": "'", "\\": "\\", "a": "\a", "b": "\b", "f": "\f",
           "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


class Tok:
    __slots__ = ("kind", "val", "loc")

    def __init__(self, kind, val, loc):
        self.kind, self.val, self.loc = kind, val, loc

    def __repr__(self):
        return "end of input" if self.kind == "eof" else repr(self.val)


def lex(text, fname):
    toks, pos, line, lstart = [], 0, 1, 0
    while pos < len(text):
        loc = (fname, line, pos - lstart + 1)
        m = TOKEN_RE.match(text, pos)
        if not m:
            fail(loc, "unexpected character %r" % text[pos] if text[pos] != "#" else
                 "the C preprocessor (#...) is not supported")
        kind, val = m.lastgroup, m.group()
        end = m.end()
        if kind == "bcom":
            close = text.find("*/", pos + 2)
            if close < 0:
                fail(loc, "unterminated comment block, missing '*/'")
            end, val = close + 2, text[pos:close + 2]
        elif kind == "float":
            fail(loc, "float constants are not supported")
        elif kind == "dir":
            if val[1:] not in DIRECTIVES:
                kind, val, end = "punct", ".", pos + 1
        elif kind == "str":
            out, i, body = [], 0, val[1:-1]
            while i < len(body):
                if body[i] == "\\":
                    if body[i + 1] not in ESCAPES:
                        fail(loc, "unknown escape sequence \\" + body[i + 1])
                    out.append(ESCAPES[body[i + 1]])
                    i += 2
                else:
                    out.append(body[i])
                    i += 1
            toks.append(Tok("str", "".join(out), loc))
        if kind in ("num", "ident", "dir", "punct"):
            toks.append(Tok(kind, val, loc))
        chunk = text[pos:end]
        if "\n" in chunk:
            line += chunk.count("\n")
            lstart = pos + chunk.rindex("\n") + 1
        pos = end
    toks.append(Tok("eof", None, (fname, line, pos - lstart + 1)))
    return toks


# ------------------------------------------------------------------- AST ---
class Node:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def Var(name, loc): return Node(t="var", name=name, loc=loc)
def Wild(loc): return Node(t="wild", loc=loc)
def Num(text, loc): return Node(t="num", text=text, loc=loc)
def Str(val, loc): return Node(t="str", val=val, loc=loc)
def BinOp(op, l, r, loc): return Node(t="bin", op=op, l=l, r=r, loc=loc)
def Neg(e, loc): return Node(t="neg", e=e, loc=loc)
def Atom(name, args, loc): return Node(t="atom", name=name, args=args, loc=loc)
def NegAtom(atom): return Node(t="negatom", atom=atom, loc=atom.loc)
def Cmp(op, l, r, loc): return Node(t="cmp", op=op, l=l, r=r, loc=loc)
def Bool(val, loc): return Node(t="bool", val=val, loc=loc)
def Agg(op, target, body, loc): return Node(t="agg", op=op, target=target, body=body, loc=loc)


NEGATE_CMP = {"=": "!=", "!=": "=", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
# A body is in disjunctive normal form: a list of clauses, each a list of
# (negated, literal) pairs, as in Souffle's RuleBody.
DNF_TRUE = [[]]


def dnf_and(a, b):
    return [ca + cb for ca in a for cb in b]


def dnf_not(d):
    res = DNF_TRUE
    for clause in d:
        res = dnf_and(res, [[(not neg, lit)] for neg, lit in clause])
    return res


def dnf_to_conj(clause):
    out = []
    for neg, lit in clause:
        if not neg:
            out.append(lit)
        elif lit.t == "atom":
            out.append(NegAtom(lit))
        elif lit.t == "cmp":
            out.append(Cmp(NEGATE_CMP[lit.op], lit.l, lit.r, lit.loc))
        else:
            out.append(Bool(not lit.val, lit.loc))
    return out


# ---------------------------------------------------------------- parser ---
class Parser:
    def __init__(self, toks):
        self.toks, self.pos = toks, 0
        self.types, self.rels, self.directives, self.clauses = {}, {}, [], []

    def peek(self, k=0):
        return self.toks[min(self.pos + k, len(self.toks) - 1)]

    def next(self):
        t = self.peek()
        self.pos += 1
        return t

    def at(self, val, k=0):
        t = self.peek(k)
        return t.kind in ("punct", "dir") and t.val == val

    def expect(self, val):
        t = self.next()
        if t.kind not in ("punct", "dir") or t.val != val:
            fail(t.loc, "expected '%s', got %r" % (val, t))
        return t

    def ident(self, what):
        t = self.next()
        if t.kind != "ident":
            fail(t.loc, "expected %s, got %r" % (what, t))
        if t.val in RESERVED:
            fail(t.loc, "'%s' is a Souffle keyword, not usable as %s" % (t.val, what))
        return t

    def program(self):
        while self.peek().kind != "eof":
            t = self.peek()
            if t.kind == "dir":
                {"decl": self.decl, "type": self.typedecl, "input": self.io,
                 "output": self.io, "printsize": self.io}.get(
                    t.val[1:], lambda: fail(t.loc, "directive %s is not supported" % t.val))()
            else:
                self.clause()
        return self

    def decl(self):
        self.next()
        names = [self.ident("a relation name")]
        while self.at(","):
            self.next()
            names.append(self.ident("a relation name"))
        self.expect("(")
        attrs = []
        while not self.at(")"):
            if attrs:
                self.expect(",")
            self.ident("an attribute name")
            self.expect(":")
            ty = self.next()
            if ty.kind != "ident":
                fail(ty.loc, "expected a type name, got %r" % ty)
            if self.at(".") and self.peek(1).kind == "ident" or self.at("<"):
                fail(ty.loc, "qualified or lattice attribute types are not supported")
            attrs.append(ty)
        self.expect(")")
        qualifiers = []
        while self.peek().kind == "ident" and self.peek().val in (
                "input", "output", "printsize", "btree", "brie", "btree_delete", "eqrel",
                "overridable", "inline", "no_inline", "magic", "no_magic"):
            q = self.next()
            if q.val in ("input", "output", "printsize"):
                qualifiers.append(q)
            elif q.val not in ("btree", "brie"):
                fail(q.loc, "relation qualifier '%s' is not supported" % q.val)
        if self.peek().kind == "ident" and self.peek().val == "choice":
            fail(self.peek().loc, "choice-domain is not supported")
        for n in names:
            if n.val in self.rels:
                fail(n.loc, "redefinition of relation %s" % n.val)
            self.rels[n.val] = Node(name=n.val, attrs=attrs, loc=n.loc, kinds=None)
            for q in qualifiers:   # deprecated `.decl r(...) output` form
                self.directives.append(Node(kind=q.val, name=n.val, params={}, loc=q.loc))

    def typedecl(self):
        self.next()
        name = self.ident("a type name")
        if name.val in KINDS or name.val in self.types:
            fail(name.loc, "redefinition of type %s" % name.val)
        if not (self.at("<:") or self.at("=")):
            fail(self.peek().loc, "only `.type T <: base` and `.type T = base` are supported")
        self.next()
        base = self.next()
        if base.kind != "ident" or self.at("|") or self.at("{") or self.at("."):
            fail(base.loc, "only subset and alias types of number, unsigned, symbol are supported")
        self.types[name.val] = Node(base=base.val, loc=base.loc)

    def io(self):
        d = self.next()
        names = [self.ident("a relation name")]
        while self.at(","):
            self.next()
            names.append(self.ident("a relation name"))
        params = {}
        if self.at("("):
            self.next()
            while not self.at(")"):
                if params:
                    self.expect(",")
                k = self.next()
                if k.kind != "ident":
                    fail(k.loc, "expected a parameter name, got %r" % k)
                self.expect("=")
                v = self.next()
                if v.kind not in ("str", "ident", "num"):
                    fail(v.loc, "expected a parameter value, got %r" % v)
                params[k.val] = (v.val, k.loc)
            self.expect(")")
        for n in names:
            self.directives.append(Node(kind=d.val[1:], name=n.val, params=params, loc=n.loc))

    def clause(self):
        heads = [self.atom()]
        while self.at(","):
            self.next()
            heads.append(self.atom())
        if self.at(":-"):
            self.next()
            body = self.disjunction()
        elif len(heads) > 1:
            fail(self.peek().loc, "expected ':-' after several head atoms")
        else:
            body = None
        self.expect(".")
        if self.at("plan"):
            fail(self.peek().loc, ".plan is not supported")
        # every (head, DNF clause) pair becomes a rule with its own copy of the
        # nodes: the analysis annotates and rewrites them per rule
        for h in heads:
            if body is None:
                self.clauses.append(Node(head=h, body=[], fact=True, loc=h.loc))
            for c in body or []:
                head, conj = copy.deepcopy((h, dnf_to_conj(c)))
                self.clauses.append(Node(head=head, body=conj, fact=False, loc=h.loc))

    def atom(self):
        name = self.ident("a relation name")
        if self.at(".") and self.peek(1).kind == "ident" and self.at("(", 2):
            fail(name.loc, "qualified relation names (components) are not supported")
        self.expect("(")
        args = []
        while not self.at(")"):
            if args:
                self.expect(",")
            args.append(self.expr())
        self.expect(")")
        return Atom(name.val, args, name.loc)

    def disjunction(self):
        d = self.conjunction()
        while self.at(";"):
            self.next()
            d = d + self.conjunction()
        return d

    def conjunction(self):
        d = self.term()
        while self.at(","):
            self.next()
            d = dnf_and(d, self.term())
        return d

    def term(self):
        t = self.peek()
        if self.at("!"):
            self.next()
            return dnf_not(self.term())
        if self.at("("):   # `( body )` or a constraint starting with `(`
            start, errors = self.pos, []
            try:
                self.next()
                d = self.disjunction()
                self.expect(")")
                if self.peek().val in (",", ";", ")", ".", "}") and self.peek().kind == "punct":
                    return d
            except DLError as e:
                errors.append((self.pos, e))
            self.pos = start
            try:
                return [[(False, self.constraint())]]
            except DLError as e:
                errors.append((self.pos, e))
                raise max(errors, key=lambda pe: pe[0])[1]
        if t.kind == "ident" and t.val in ("true", "false"):
            self.next()
            return [[(False, Bool(t.val == "true", t.loc))]]
        if t.kind == "ident" and self.at("(", 1) and t.val not in RESERVED:
            return [[(False, self.atom())]]
        return [[(False, self.constraint())]]

    def constraint(self):
        l = self.expr()
        op = self.next()
        if op.kind != "punct" or op.val not in NEGATE_CMP:
            fail(op.loc, "expected a comparison operator (= != < <= > >=), got %r" % op)
        return Cmp(op.val, l, self.expr(), op.loc)

    def expr(self):
        e = self.mul()
        while self.at("+") or self.at("-"):
            op = self.next()
            e = BinOp(op.val, e, self.mul(), op.loc)
        t = self.peek()
        if t.kind == "ident" and t.val in ("band", "bor", "bxor", "bshl", "bshr", "bshru",
                                           "land", "lor", "lxor"):
            fail(t.loc, "operator %s is not supported" % t.val)
        return e

    def mul(self):
        e = self.unary()
        while self.at("*") or self.at("/") or self.at("%"):
            op = self.next()
            e = BinOp(op.val, e, self.unary(), op.loc)
        if self.at("^"):
            fail(self.peek().loc, "operator ^ (power) is not supported")
        return e

    def unary(self):
        if self.at("-"):
            op = self.next()
            e = self.unary()
            if e.t == "num" and not e.text.startswith("-"):   # Souffle folds -<constant>
                return Num("-" + e.text, e.loc)
            return Neg(e, op.loc)
        return self.primary()

    def primary(self):
        t = self.next()
        if t.kind == "num":
            return Num(t.val, t.loc)
        if t.kind == "str":
            return Str(t.val, t.loc)
        if t.kind == "punct" and t.val == "_":
            return Wild(t.loc)
        if t.kind == "punct" and t.val == "(":
            e = self.expr()
            self.expect(")")
            return e
        if t.kind == "ident":
            if t.val in AGG_OPS:
                return self.aggregate(t)
            if t.val in RESERVED:
                fail(t.loc, "'%s' (a Souffle functor or keyword) is not supported here" % t.val)
            if self.at("("):
                fail(t.loc, "an atom cannot be used as a value")
            return Var(t.val, t.loc)
        fail(t.loc, "expected a value, got %r" % t)

    def aggregate(self, t):
        if t.val == "mean":
            fail(t.loc, "the mean aggregate is not supported")
        target = None
        if t.val != "count":
            if self.at(":"):
                fail(t.loc, "%s needs an expression: `%s e : { ... }`" % (t.val, t.val))
            target = self.expr()
            if self.at(","):
                fail(t.loc, "the %s(a, b, ...) functor is not supported" % t.val)
        self.expect(":")
        if self.at("{"):
            self.next()
            body = self.disjunction()
            self.expect("}")
        else:
            body = [[(False, self.atom())]]
        if len(body) != 1:
            fail(t.loc, "disjunctions in aggregation clauses are not supported (as in Souffle)")
        return Agg(t.val, target, dnf_to_conj(body[0]), t.loc)


# --------------------------------------------------------- AST utilities ---
def lit_exprs(lit):
    if lit.t == "atom":
        return lit.args
    if lit.t == "negatom":
        return lit.atom.args
    if lit.t == "cmp":
        return [lit.l, lit.r]
    return []


def subexprs(e, into_aggs):
    """All nodes of expression e (aggregate bodies only if into_aggs)."""
    yield e
    if e.t == "bin":
        yield from subexprs(e.l, into_aggs)
        yield from subexprs(e.r, into_aggs)
    elif e.t == "neg":
        yield from subexprs(e.e, into_aggs)
    elif e.t == "agg" and into_aggs:
        if e.target is not None:
            yield from subexprs(e.target, True)
        for lit in e.body:
            for x in lit_exprs(lit):
                yield from subexprs(x, True)


def level_nodes(exprs):
    """Nodes of the given expressions outside any aggregate (aggregates included)."""
    for e in exprs:
        yield from subexprs(e, False)


def top_aggs(exprs):
    return [n for n in level_nodes(exprs) if n.t == "agg"]


def all_vars(e):
    return {n.name for n in subexprs(e, True) if n.t == "var"}


def level_vars(exprs):
    return {n.name for n in level_nodes(exprs) if n.t == "var"}


def conj_exprs(conj):
    return [x for lit in conj for x in lit_exprs(lit)]


def inner_aggs(agg):
    return [n for n in subexprs(agg, True) if n.t == "agg" and n is not agg]


# ------------------------------------------------------- clause analysis ---
class ClauseAnalysis:
    """Checks one rule (one DNF clause) and prepares it for evaluation."""

    def __init__(self, prog, clause):
        self.prog, self.clause, self.fresh = prog, clause, 0
        head, body = clause.head, clause.body
        for n in level_nodes(head.args):
            if n.t == "wild":
                fail(n.loc, "underscore in head of rule")
        if clause.fact:
            for n in level_nodes(head.args):
                if n.t in ("var", "agg"):
                    fail(n.loc, "argument in fact is not constant")
        self.check_atoms([head], body)
        for agg in top_aggs(head.args) + top_aggs(conj_exprs(body)):
            self.prepare_agg(agg)
        clause.body = self.normalise(body)
        self.scope(clause.body, set(), head.args)
        self.infer_types()

    def check_atoms(self, extra, conj):
        for lit in extra + conj:
            atom = lit.atom if lit.t == "negatom" else lit
            if atom.t == "atom":
                rel = self.prog.rels.get(atom.name)
                if rel is None:
                    fail(atom.loc, "undefined relation %s" % atom.name)
                if len(rel.kinds) != len(atom.args):
                    fail(atom.loc, "mismatching arity of relation %s (expected %d, got %d)"
                         % (atom.name, len(rel.kinds), len(atom.args)))
            for x in lit_exprs(lit):
                for n in subexprs(x, False):
                    if n.t == "wild" and (lit.t == "cmp" or n is not x):
                        fail(n.loc, "underscore in an expression or comparison")
                    if n.t == "agg":
                        self.check_atoms([], n.body)

    def prepare_agg(self, agg):
        """Decides Souffle's materialisation, names the `_` that count."""
        atoms = [l for l in agg.body if l.t == "atom"]
        for inner in top_aggs(conj_exprs(agg.body)) + top_aggs([agg.target] if agg.target else []):
            self.prepare_agg(inner)
        repeated = False
        if len(atoms) == 1:
            names = [n.name for x in atoms[0].args for n in subexprs(x, True) if n.t == "var"]
            repeated = len(names) != len(set(names))
        agg.materialised = len(atoms) > 1 or repeated or bool(inner_aggs(agg))
        if agg.materialised:
            if agg.op == "count" and any(
                    n.t == "wild" for l in agg.body if l.t == "negatom" for n in l.atom.args):
                fail(agg.loc, "`_` in a negation inside a count whose body Souffle materialises: "
                     "Souffle names it and reports it ungrounded; refused")
            return
        if atoms and any(a.t == "wild" for a in atoms[0].args):
            for l in agg.body:
                if l.t == "cmp" and l.op == "=" and l.l.t == "var" and l.r.t == "var":
                    fail(l.loc, "an equality between variables in a one-atom aggregate body "
                         "with `_`: "
                         "Souffle's alias resolution changes what is counted; refused")
            for i, a in enumerate(atoms[0].args):   # each matching tuple counts once
                if a.t == "wild":
                    atoms[0].args[i] = self.new_var("#w", a.loc)

    def new_var(self, prefix, loc):
        self.fresh += 1
        return Var("%s%d" % (prefix, self.fresh), loc)

    def normalise(self, conj):
        """r(x+1) becomes r(#e), #e = x+1, as Souffle does; recursively in aggregates."""
        out, extra = [], []
        for lit in conj:
            for n in level_nodes(lit_exprs(lit)):
                if n.t == "agg":
                    n.body = self.normalise(n.body)
            if lit.t == "atom":
                for i, a in enumerate(lit.args):
                    if a.t not in ("var", "wild", "num", "str"):
                        v = self.new_var("#e", a.loc)
                        extra.append(Cmp("=", v, a, a.loc))
                        lit.args[i] = v
            out.append(lit)
        return out + extra

    def scope(self, conj, inherited, extras):
        """Souffle's grounding: which variables a conjunction binds."""
        grounded, changed = set(inherited), True
        while changed:
            changed = False
            for lit in conj:
                if lit.t == "atom":
                    new = {a.name for a in lit.args if a.t == "var"} - grounded
                elif lit.t == "cmp" and lit.op == "=":
                    new = set()
                    for a, b in ((lit.l, lit.r), (lit.r, lit.l)):
                        if a.t == "var" and a.name not in grounded and level_vars([b]) <= grounded:
                            new.add(a.name)
                else:
                    new = set()
                if new:
                    grounded |= new
                    changed = True
        for n in level_nodes(conj_exprs(conj) + list(extras)):
            if n.t == "var" and n.name not in grounded:
                hint = ""
                if any(n.name in all_vars(a) for a in top_aggs(conj_exprs(conj) + list(extras))):
                    hint = " (it is only bound inside an aggregate: witnesses are not supported)"
                fail(n.loc, "ungrounded variable %s%s" % (n.name, hint))
        for agg in top_aggs(conj_exprs(conj) + list(extras)):
            agg.injected = sorted(all_vars(agg) & grounded)
            self.scope(agg.body, set(agg.injected), [agg.target] if agg.target else [])
            local = all_vars(agg) - set(agg.injected)
            if agg.materialised:
                for inner in inner_aggs(agg):
                    local -= all_vars(inner) - set(inner.injected)
            agg.keys = sorted(local)
        return grounded

    def infer_types(self):
        """Gives every variable a kind; checks every expression against it."""
        vk, cl = {}, self.clause
        atoms = [cl.head] + [l.atom if l.t == "negatom" else l for l in self.clause_lits()]
        for atom in atoms:
            if atom.t != "atom":
                continue
            for a, k in zip(atom.args, self.prog.rels[atom.name].kinds):
                if a.t == "var":
                    if vk.setdefault(a.name, k) != k:
                        fail(a.loc, "variable %s used as %s and as %s" % (a.name, vk[a.name], k))
        self.vk, changed = vk, True
        while changed:
            changed = False
            for lit in self.clause_lits():
                if lit.t == "cmp" and lit.op == "=":
                    for a, b in ((lit.l, lit.r), (lit.r, lit.l)):
                        if a.t == "var" and a.name not in vk and self.infer(b):
                            vk[a.name] = self.infer(b)
                            changed = True
        for e in cl.head.args + conj_exprs(cl.body):
            for n in subexprs(e, True):
                if n.t == "var" and n.name not in vk:
                    fail(n.loc, "unable to deduce the type of variable %s" % n.name)
        for a, k in zip(cl.head.args, self.prog.rels[cl.head.name].kinds):
            self.check(a, k)
        self.check_conj(cl.body)

    def clause_lits(self):
        yield from self.all_lits(self.clause.body)
        for agg in top_aggs(self.clause.head.args):
            yield from self.all_lits(agg.body)

    def all_lits(self, conj):
        for lit in conj:
            yield lit
            for n in subexprs_of_lit(lit):
                if n.t == "agg":
                    yield from self.all_lits(n.body)

    def check_conj(self, conj):
        for lit in conj:
            if lit.t in ("atom", "negatom"):
                atom = lit.atom if lit.t == "negatom" else lit
                for a, k in zip(atom.args, self.prog.rels[atom.name].kinds):
                    self.check(a, k)
            elif lit.t == "cmp":
                kl, kr = self.infer(lit.l), self.infer(lit.r)
                if kl and kr and kl != kr:
                    fail(lit.loc, "cannot compare different types (%s and %s)" % (kl, kr))
                lit.kind = kl or kr or "number"
                self.check(lit.l, lit.kind)
                self.check(lit.r, lit.kind)

    def infer(self, e):
        """The kind of e, or None if it is made of untyped numeric constants only."""
        if e.t == "var":
            return self.vk.get(e.name)
        if e.t == "num":
            return "unsigned" if e.text.endswith("u") else None
        if e.t == "str":
            return "symbol"
        if e.t == "bin":
            a, b = self.infer(e.l), self.infer(e.r)
            if a and b and a != b:
                fail(e.loc, "operands of %s have different types (%s and %s)" % (e.op, a, b))
            if (a or b) == "symbol":
                fail(e.loc, "arithmetic on symbols")
            return a or b
        if e.t == "neg":
            if self.infer(e.e) in ("symbol", "unsigned"):
                fail(e.loc, "unary minus is only defined on number")
            return "number"
        if e.t == "agg":
            if e.op == "count":
                return "number"
            k = self.infer(e.target) or "number"
            if k == "symbol":
                fail(e.loc, "%s over symbols is not supported" % e.op)
            return k
        fail(e.loc, "unexpected expression")

    def check(self, e, k):
        """Checks that e has kind k; fixes the kind of numeric constants."""
        e.kind = k
        if e.t == "var" and self.vk[e.name] != k:
            fail(e.loc, "variable %s has type %s, %s expected" % (e.name, self.vk[e.name], k))
        elif e.t == "num":
            e.value = const_value(e, k)
        elif e.t == "str" and k != "symbol":
            fail(e.loc, "symbol constant where %s expected" % k)
        elif e.t == "bin":
            if k == "symbol":
                fail(e.loc, "arithmetic where symbol expected")
            self.check(e.l, k)
            self.check(e.r, k)
        elif e.t == "neg":
            if k != "number":
                fail(e.loc, "unary minus is only defined on number (%s expected)" % k)
            self.check(e.e, k)
        elif e.t == "agg":
            ak = self.infer(e)
            if e.op != "count" and self.infer(e.target) is None:
                ak = k if k != "symbol" else "number"
            if ak != k:
                fail(e.loc, "%s yields %s, %s expected" % (e.op, ak, k))
            if e.target is not None:
                self.check(e.target, k)
            self.check_conj(e.body)


def subexprs_of_lit(lit):
    for x in lit_exprs(lit):
        yield from subexprs(x, False)


def parse_int(text):
    neg = text.startswith("-")
    t = text[1:] if neg else text
    t = t[:-1] if t.endswith("u") else t
    v = int(t[2:], 16) if t.startswith("0x") else int(t[2:], 2) if t.startswith("0b") else int(t)
    return -v if neg else v


def const_value(e, k):
    if k == "symbol":
        fail(e.loc, "number constant where symbol expected")
    if e.text.endswith("u") and k != "unsigned":
        fail(e.loc, "unsigned constant where %s expected" % k)
    v = parse_int(e.text)
    if k == "number" and not MIN64 <= v <= MAX64:
        fail(e.loc, "number constant %s out of the signed 64-bit range" % e.text)
    if k == "unsigned" and (e.text.startswith("-") or v >= MOD64):
        fail(e.loc, "unsigned constant %s out of the unsigned 64-bit range" % e.text)
    return v


# -------------------------------------------------------------- compiler ---
def wrap(v, k):
    if k == "unsigned":
        return v % MOD64
    return (v - MIN64) % MOD64 + MIN64


def symkey(s):
    return s.encode("utf-8", "surrogateescape")


def arith(op, k, loc):
    def div(a, b, mod):
        if b == 0:
            fail(loc, "division by zero (Souffle dies with SIGFPE)")
        if k == "number" and a == MIN64 and b == -1:
            fail(loc, "INT64_MIN %s -1 overflows (Souffle dies with SIGFPE)" % op)
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)   # C: toward zero
        return a - b * q if mod else q
    return {"+": lambda a, b: wrap(a + b, k), "-": lambda a, b: wrap(a - b, k),
            "*": lambda a, b: wrap(a * b, k), "/": lambda a, b: div(a, b, False),
            "%": lambda a, b: div(a, b, True)}[op]


def compare(op, k):
    if k == "symbol" and op not in ("=", "!="):
        f = compare(op, "number")
        return lambda a, b: f(symkey(a), symkey(b))
    return {"=": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}[op]


class Compiler:
    """Turns an analysed clause into a chain of closures over a slot array."""

    def __init__(self, db):
        self.db, self.slots = db, {}

    def slot(self, name):
        return self.slots.setdefault(name, len(self.slots))

    def expr(self, e):
        if e.t == "var":
            s = self.slot(e.name)
            return lambda env: env[s]
        if e.t in ("num", "str"):
            v = e.value if e.t == "num" else e.val
            return lambda env: v
        if e.t == "bin":
            f, l, r = arith(e.op, e.kind, e.loc), self.expr(e.l), self.expr(e.r)
            return lambda env: f(l(env), r(env))
        if e.t == "neg":
            x = self.expr(e.e)
            return lambda env: wrap(-x(env), "number")
        if e.t == "agg":
            return self.aggregate(e)
        fail(e.loc, "unexpected expression")

    def aggregate(self, agg):
        inj = [self.slot(v) for v in agg.injected]
        keys = [self.slot(v) for v in agg.keys]
        target = self.expr(agg.target) if agg.target is not None else None
        seen_stack, db, slots = [], self.db, self.slots

        def emit(env):
            k = tuple(env[s] for s in keys)
            if k not in seen_stack[-1]:
                seen_stack[-1][k] = target(env) if target else 1
        body = self.conj(agg.body, set(agg.injected), emit)

        def run(env):
            ck = (id(agg), tuple(env[s] for s in inj))
            if ck not in db.agg_cache:
                env2 = [None] * len(slots)
                for s in inj:
                    env2[s] = env[s]
                seen_stack.append({})
                body(env2)
                vals = list(seen_stack.pop().values())
                if agg.op == "count":
                    res = len(vals)
                elif agg.op == "sum":
                    res = wrap(sum(vals), agg.kind)
                elif not vals:
                    res = NoValue
                else:
                    res = min(vals) if agg.op == "min" else max(vals)
                db.agg_cache[ck] = res
            res = db.agg_cache[ck]
            if res is NoValue:
                raise NoValue()
            return res
        return run

    def needs(self, exprs):
        """Variables that must be bound before exprs can be evaluated."""
        out = level_vars(exprs)
        for agg in top_aggs(exprs):
            out |= set(agg.injected)
        return out

    def conj(self, conj, bound, final):
        """Orders the literals (filters first, then assignments, then the atom
        with most bound arguments) and chains them in front of final."""
        steps, rest, bound = [], list(conj), set(bound)
        while rest:
            pick = None
            for lit in rest:
                if lit.t in ("bool", "negatom", "cmp") and self.needs(lit_exprs(lit)) <= bound:
                    pick = lit
                    break
            if pick is None:
                for lit in rest:
                    if lit.t == "cmp" and lit.op == "=":
                        for a, b in ((lit.l, lit.r), (lit.r, lit.l)):
                            if a.t == "var" and a.name not in bound and self.needs([b]) <= bound:
                                pick = Node(t="assign", var=a.name, e=b, lit=lit)
                                break
                    if pick:
                        break
            if pick is None:
                atoms = [l for l in rest if l.t == "atom"]
                if not atoms:
                    fail(rest[0].loc, "cannot order the body: a value is needed before it is bound")
                pick = max(atoms, key=lambda a: sum(x.t in ("num", "str") or
                                                    (x.t == "var" and x.name in bound)
                                                    for x in a.args))
            rest.remove(pick.lit if pick.t == "assign" else pick)
            steps.append((pick, set(bound)))
            if pick.t == "assign":
                bound.add(pick.var)
            elif pick.t == "atom":
                bound |= {a.name for a in pick.args if a.t == "var"}
        chain = final
        for lit, b in reversed(steps):
            chain = self.step(lit, b, chain)
        return chain

    def step(self, lit, bound, nxt):
        db = self.db
        if lit.t == "bool":
            return nxt if lit.val else (lambda env: None)
        if lit.t == "cmp":
            f, l, r = compare(lit.op, lit.kind), self.expr(lit.l), self.expr(lit.r)

            def filt(env):
                try:
                    ok = f(l(env), r(env))
                except NoValue:
                    return
                if ok:
                    nxt(env)
            return filt
        if lit.t == "assign":
            s, f = self.slot(lit.var), self.expr(lit.e)

            def assign(env):
                try:
                    env[s] = f(env)
                except NoValue:
                    return
                nxt(env)
            return assign
        if lit.t == "negatom":
            name = lit.atom.name
            pos = tuple(i for i, a in enumerate(lit.atom.args) if a.t != "wild")
            fns = [self.expr(lit.atom.args[i]) for i in pos]

            def negation(env):
                try:
                    key = tuple(f(env) for f in fns)
                except NoValue:
                    return
                if not db.lookup(name, pos, key):
                    nxt(env)
            return negation
        # positive atom: bound positions form the index key, the others bind
        name, keypos, keyfns, binds, eqs, first = lit.name, [], [], [], [], {}
        for i, a in enumerate(lit.args):
            if a.t in ("num", "str") or (a.t == "var" and a.name in bound):
                keypos.append(i)
                keyfns.append(self.expr(a))
            elif a.t == "var" and a.name in first:
                eqs.append((i, first[a.name]))
            elif a.t == "var":
                first[a.name] = i
                binds.append((i, self.slot(a.name)))
        keypos = tuple(keypos)

        def scan(env):
            for t in db.lookup(name, keypos, tuple(f(env) for f in keyfns)):
                for i, s in binds:
                    env[s] = t[i]
                for i, j in eqs:
                    if t[i] != t[j]:
                        break
                else:
                    nxt(env)
        return scan

    def rule(self, clause, out):
        head = [self.expr(a) for a in clause.head.args]

        def emit(env):
            try:
                out.add(tuple(f(env) for f in head))
            except NoValue:
                pass
        body = self.conj(clause.body, set(), emit)
        slots = self.slots
        return lambda: body([None] * len(slots))


# -------------------------------------------------------------- database ---
class Database:
    def __init__(self, rels):
        self.rels = {name: set() for name in rels}
        self.index, self.agg_cache = {}, {}

    def lookup(self, name, positions, key):
        if not positions:
            return self.rels[name]
        idx = self.index.get((name, positions))
        if idx is None:
            idx = self.index[(name, positions)] = {}
            for t in self.rels[name]:
                idx.setdefault(tuple(t[p] for p in positions), []).append(t)
        return idx.get(key, ())

    def add(self, name, tuples):
        new = tuples - self.rels[name]
        if new:
            self.rels[name] |= new
            self.index = {k: v for k, v in self.index.items() if k[0] != name}
            self.agg_cache = {}
        return bool(new)


# C's isspace, which std::stoll and std::stoull skip before a number.
SPACE = r"[ \t\n\v\f\r]*"


def read_facts(path, rel, delim, loc):
    try:
        data = open(path, "rb").read().decode("utf-8", "surrogateescape")
    except OSError as e:
        fail(loc, "cannot open fact file %s: %s" % (path, e.strerror))
    lines = data.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out = set()
    for ln, line in enumerate(lines, 1):
        where = (path, ln, 1)
        if line.endswith("\r"):
            line = line[:-1]
        fields = line.split(delim)
        if len(fields) < len(rel.kinds):
            fail(where, "values missing (%d fields, arity %d)" % (len(fields), len(rel.kinds)))
        if len(fields) > len(rel.kinds):
            fail(where, "%d fields for arity %d (Souffle would ignore the extra ones; refused)"
                 % (len(fields), len(rel.kinds)))
        tup = []
        for f, k in zip(fields, rel.kinds):
            if "," in delim and ("[" in f or "]" in f):
                fail(where, "[ or ] in a field with a ',' delimiter (Souffle reads records)")
            if k == "symbol":
                tup.append(f)
            elif k == "number" and re.fullmatch(SPACE + r"[+-]?[0-9]+", f) \
                    and MIN64 <= int(f) <= MAX64:
                tup.append(int(f))
            elif k == "unsigned" and re.fullmatch(r"0x[0-9a-fA-F]+|0b[01]+", f) \
                    and parse_int(f) < MOD64:
                tup.append(parse_int(f))
            elif k == "unsigned" and re.fullmatch(SPACE + r"\+?[0-9]+", f) \
                    and int(f) < MOD64:
                tup.append(int(f))
            else:
                fail(where, "cannot read %r as %s" % (f, k))
        out.add(tuple(tup))
    return out


def io_params(d, defaults):
    out = dict(defaults)
    for k, (v, loc) in d.params.items():
        if k == "IO" and v != "file":
            fail(loc, "only IO=file is supported")
        elif k not in ("IO", "filename", "delimiter"):
            fail(loc, "I/O parameter %s is not supported" % k)
        out[k] = v
    if out["delimiter"] == "":
        fail(d.loc, "empty delimiter")
    return out


# ----------------------------------------------------------------- main ---
def kind_of(prog, tyname, loc, seen=()):
    if tyname in KINDS:
        return tyname
    if tyname not in prog.types:
        fail(loc, "undefined type %s" % tyname)
    if tyname in seen:
        fail(loc, "cyclic type definition %s" % tyname)
    t = prog.types[tyname]
    return kind_of(prog, t.base, t.loc, seen + (tyname,))


def stratify(prog):
    """SCCs of the dependency graph, dependencies first (Tarjan)."""
    edges = {r: [] for r in prog.rels}   # head -> [(body relation, negative, loc)]
    for cl in prog.clauses:
        def walk(conj, negative):
            for lit in conj:
                if lit.t == "atom":
                    edges[cl.head.name].append((lit.name, negative, lit.loc))
                elif lit.t == "negatom":
                    edges[cl.head.name].append((lit.atom.name, True, lit.loc))
                for n in subexprs_of_lit(lit):
                    if n.t == "agg":
                        walk(n.body, True)
        walk(cl.body, False)
        for n in level_nodes(cl.head.args):
            if n.t == "agg":
                walk(n.body, True)
    index, low, stack, on, sccs = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w, _, _ in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            sccs.append(sorted(scc))
    sys.setrecursionlimit(max(1000, 4 * len(prog.rels) + 100))
    for v in sorted(prog.rels):
        if v not in index:
            visit(v)
    for scc in sccs:
        for v in scc:
            for w, negative, loc in edges[v]:
                if negative and w in scc:
                    fail(loc, "unable to stratify relation(s) {%s}: %s depends on %s through "
                         "negation or aggregation within a cycle" % (",".join(scc), v, w))
    return sccs


def run(path, fact_dir, out_dir):
    try:
        text = open(path, "rb").read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        fail((path, 1, 1), "cannot read program: %s" % e)
    prog = Parser(lex(text, path)).program()
    for rel in prog.rels.values():
        rel.kinds = [kind_of(prog, t.val, t.loc) for t in rel.attrs]
    for cl in prog.clauses:
        ClauseAnalysis(prog, cl)
    for d in prog.directives:
        if d.name not in prog.rels:
            fail(d.loc, "undefined relation %s in .%s" % (d.name, d.kind))
    sccs = stratify(prog)
    db = Database(prog.rels)
    for d in prog.directives:
        if d.kind == "input":
            rel = prog.rels[d.name]
            if not rel.kinds:
                fail(d.loc, ".input of a nullary relation is not supported")
            p = io_params(d, {"filename": d.name + ".facts", "delimiter": "\t"})
            db.add(d.name, read_facts(os.path.join(fact_dir, p["filename"]), rel,
                                      p["delimiter"], d.loc))
    for scc in sccs:
        rules = []
        for cl in prog.clauses:
            if cl.head.name in scc:
                out = set()
                rules.append((cl.head.name, out, Compiler(db).rule(cl, out)))
        changed = True
        while changed:   # naive iteration: all rules on the whole database
            for _, out, fn in rules:
                out.clear()
                fn()
            changed = False
            for name, out, _ in rules:
                changed |= db.add(name, set(out))
    os.makedirs(out_dir, exist_ok=True)
    for d in prog.directives:
        rel, tuples = prog.rels[d.name], db.rels[d.name]
        if d.kind == "printsize":
            if d.params:
                fail(d.loc, ".printsize takes no parameters")
            print("%s\t%d" % (d.name, len(tuples)))
        elif d.kind == "output":
            p = io_params(d, {"filename": d.name + ".csv", "delimiter": "\t"})
            key = [(lambda v: symkey(v)) if k == "symbol" else (lambda v: v) for k in rel.kinds]
            rows = sorted(tuples, key=lambda t: tuple(f(v) for f, v in zip(key, t)))
            with open(os.path.join(out_dir, p["filename"]), "wb") as f:
                if not rel.kinds:   # Souffle writes "()" for a true nullary relation
                    rows = [("()",)] if tuples else []
                for t in rows:
                    f.write((p["delimiter"].join(str(v) for v in t) + "\n")
                            .encode("utf-8", "surrogateescape"))


def main(argv):
    fact_dir, out_dir, args = ".", ".", list(argv)
    prog = None
    while args:
        a = args.pop(0)
        if a in ("-F", "-D") and args:
            if a == "-F":
                fact_dir = args.pop(0)
            else:
                out_dir = args.pop(0)
        elif a.startswith("-F") and len(a) > 2:
            fact_dir = a[2:]
        elif a.startswith("-D") and len(a) > 2:
            out_dir = a[2:]
        elif prog is None and not a.startswith("-"):
            prog = a
        else:
            prog = None
            break
    if prog is None:
        sys.stderr.write("usage: naive_eval.py [-F FACT_DIR] [-D OUT_DIR] PROGRAM.dl\n")
        return 2
    try:
        run(prog, fact_dir, out_dir)
    except DLError as e:
        sys.stdout.flush()
        sys.stderr.write("%s:%d:%d: %s\n" % (e.loc + (e.msg,)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
