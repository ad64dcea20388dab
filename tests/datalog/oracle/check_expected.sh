#!/usr/bin/env bash
# Self-check of the Datalog test corpus: reruns the oracle (naive_eval.py) on
# every tests/datalog/corpus/NAME/program.dl into a temporary directory and
# compares each output, sorted, with NAME/expected/ (the .csv files and
# printsize.txt, the oracle's stdout). Exits 1 on any difference.
#     bash tests/datalog/oracle/check_expected.sh [NAME...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
corpus=$(cd "$here/../corpus" && pwd)
oracle=$here/naive_eval.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C

if [ $# -gt 0 ]; then names=("$@"); else
    names=()
    for d in "$corpus"/*/; do [ -f "$d/program.dl" ] && names+=("$(basename "$d")"); done
fi

failed=0
for name in "${names[@]}"; do
    dir=$corpus/$name
    out=$tmp/$name
    mkdir -p "$out/got"
    if ! (cd "$dir" && "${PYTHON:-python3}" "$oracle" -F facts -D "$out/got" program.dl \
            >"$out/got/printsize.txt" 2>"$out/stderr"); then
        echo "FAIL $name: the oracle failed:"; sed 's/^/    /' "$out/stderr"
        failed=1; continue
    fi
    [ -s "$out/got/printsize.txt" ] || rm "$out/got/printsize.txt"
    files=$( (cd "$out/got" && ls; [ -d "$dir/expected" ] && cd "$dir/expected" && ls) | sort -u)
    bad=0
    for f in $files; do
        if [ ! -f "$dir/expected/$f" ]; then echo "FAIL $name: $f is not in expected/"; bad=1
        elif [ ! -f "$out/got/$f" ]; then echo "FAIL $name: $f was not produced"; bad=1
        elif ! diff <(sort "$dir/expected/$f") <(sort "$out/got/$f") >"$out/diff"; then
            echo "FAIL $name: $f differs (< expected, > oracle):"; head -20 "$out/diff" | sed 's/^/    /'
            bad=1
        fi
    done
    if [ $bad = 0 ]; then echo "ok   $name"; else failed=1; fi
done
exit $failed
