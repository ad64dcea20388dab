#!/usr/bin/env python3
"""Prints the feature tags of every corpus program, in the format of
corpus/FEATURES.tsv (the file was made with it):

    python3 features.py > ../corpus/FEATURES.tsv

A program is tagged with a feature when some rule (or fact) of it uses it:
  join            two positive atoms of one body (or aggregate body) share a variable
  multiway        a body with three or more positive atoms
  constants       a number or symbol constant as an argument of an atom of a rule
  comparisons     = != < <= > >= (not counting `v = aggregate`)
  symbol_ordering < <= > >= with a string or a symbol-typed variable
  arithmetic_body + - * / % or unary minus in a body
  arithmetic_head the same in a head (or in an inline fact)
  disjunction     `;` anywhere
  negation        `!` anywhere (negated atoms, or `!( ... )` groups)
  aggregate       count, sum, min, max
  symbols / unsigned  a relation with a column of that kind
  inline_facts    facts written in the program
  input_params    an .input directive with parameters
  cartesian       a body whose positive atoms fall in groups sharing no variable
  printsize       a .printsize directive
It parses with naive_eval.py's parser, so it accepts what the oracle accepts.
"""
import os
import sys

sys.dont_write_bytecode = True   # leave no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import naive_eval as ne  # noqa: E402

ORDER = ("join multiway constants comparisons symbol_ordering arithmetic_body "
         "arithmetic_head disjunction "
         "negation aggregate symbols unsigned inline_facts input_params cartesian printsize").split()


def features(path):
    toks = ne.lex(open(path, encoding="utf-8").read(), path)
    prog = ne.Parser(toks).program()
    for rel in prog.rels.values():
        rel.kinds = [ne.kind_of(prog, t.val, t.loc) for t in rel.attrs]
    f = set()
    if any(t.kind == "punct" and t.val == ";" for t in toks):
        f.add("disjunction")
    if any(t.kind == "punct" and t.val == "!" for t in toks):
        f.add("negation")
    for rel in prog.rels.values():
        f.update(k for k in ("symbol", "unsigned") if k in rel.kinds)
    f = {"symbols" if x == "symbol" else x for x in f}
    for d in prog.directives:
        if d.kind == "printsize":
            f.add("printsize")
        if d.kind == "input" and d.params:
            f.add("input_params")

    def expr(e, where):
        for n in ne.subexprs(e, False):
            if n.t in ("bin", "neg"):
                f.add(where)
            if n.t == "agg":
                f.add("aggregate")
                if n.target is not None:
                    expr(n.target, "arithmetic_body")
                conj(n.body)

    def conj(lits):
        atoms = [l for l in lits if l.t == "atom"]
        if len(atoms) >= 3:
            f.add("multiway")
        vs = [{a.name for a in at.args if a.t == "var"} for at in atoms]
        if any(vs[i] & vs[j] for i in range(len(vs)) for j in range(i + 1, len(vs))):
            f.add("join")
        if len(vs) >= 2:   # connected groups of atoms
            group, rest, grew = set(vs[0]), vs[1:], True
            while grew:
                grew = False
                for v in list(rest):
                    if v & group:
                        group |= v
                        rest.remove(v)
                        grew = True
            if rest:
                f.add("cartesian")
        symvars = set()
        for at in atoms:
            kinds = prog.rels[at.name].kinds
            symvars.update(a.name for i, a in enumerate(at.args)
                           if a.t == "var" and kinds[i] == "symbol")
        for l in lits:
            if l.t == "cmp" and l.l.t != "agg" and l.r.t != "agg":
                f.add("comparisons")
                if l.op in ("<", "<=", ">", ">=") and any(
                        x.t == "str" or (x.t == "var" and x.name in symvars)
                        for x in (l.l, l.r)):
                    f.add("symbol_ordering")
            if l.t == "negatom":
                f.add("negation")
            for x in ne.lit_exprs(l):
                if l.t in ("atom", "negatom") and x.t in ("num", "str"):
                    f.add("constants")
                expr(x, "arithmetic_body")

    for c in prog.clauses:
        if c.fact:
            f.add("inline_facts")
        for a in c.head.args:
            expr(a, "arithmetic_head")
            if not c.fact and a.t in ("num", "str"):
                f.add("constants")
        conj(c.body)
    return [x for x in ORDER if x in f]


def main():
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus")
    print("name\tfeatures")
    for name in sorted(os.listdir(corpus)):
        path = os.path.join(corpus, name, "program.dl")
        if os.path.isfile(path):
            print("%s\t%s" % (name, ",".join(features(path))))


if __name__ == "__main__":
    main()
