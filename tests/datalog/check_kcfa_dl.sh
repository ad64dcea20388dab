#!/usr/bin/env bash
# check_kcfa_dl.sh DATALOG KCFA REFERENCE_SIZES MPIEXEC SOURCE_DIR: the
# k-CFA rules written as Datalog (examples/datalog/kcfa_k{1,2,3}.dl) on
# ravel-datalog give, relation for relation and tuple for tuple, what
# ravel-kcfa's hand-planned rules give, and the sizes of the independent
# reference analysis (tests/kcfa/kcfa_reference.cc), on generated programs
# at 2 and 3 ranks.  The fact files come from ravel-kcfa --write-facts, so
# its failures (a directory it cannot make) are checked here too.
set -euo pipefail
datalog=$1 kcfa=$2 ref_sizes=$3 mpiexec=$4 src=$5
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
die() { echo "check_kcfa_dl: $*" >&2; exit 1; }
rels="Time ReachesCfg AEval Store Step ReachesClo"
for n in 3 5; do
  facts=$scratch/facts$n
  "$mpiexec" -n 2 "$kcfa" --generate=$n --write-facts="$facts" >/dev/null
  for f in Prog Lam App Var; do
    [[ -s $facts/$f.facts ]] || die "N=$n: no $f.facts"
  done
  [[ -z $(find "$facts" -name '*.tmp') ]] || die "N=$n: a .tmp file was left"
  for k in 1 2 3; do
    ref=$scratch/ref$n.$k
    "$mpiexec" -n 2 "$kcfa" --generate=$n --k=$k --comm=vendor --quiet \
      --output="$ref" >/dev/null 2>&1 || die "ravel-kcfa N=$n k=$k failed"
    sizes=$("$ref_sizes" $k --generate=$n)
    for P in 2 3; do
      out=$scratch/dl$n.$k.$P
      mkdir -p "$out"
      printed=$("$mpiexec" -n $P "$datalog" --quiet --comm=vendor -F "$facts" \
                  -D "$out" "$src/examples/datalog/kcfa_k$k.dl")
      for r in $rels; do
        cmp -s <(sort "$ref/$r.tsv") <(sort "$out/$r.csv") ||
          die "N=$n k=$k P=$P: $r differs from ravel-kcfa's"
        want=$(awk -v r="$r" '$1 == r { print $2 }' <<<"$sizes")
        got=$(awk -F'\t' -v r="$r" '$1 == r { print $2 }' <<<"$printed")
        [[ -n $want && $got == "$want" ]] ||
          die "N=$n k=$k P=$P: $r has $got tuples, the reference $want"
      done
    done
  done
done
# A fact directory that cannot be made: one message, non-zero status.
rc=0
msg=$("$mpiexec" -n 2 "$kcfa" --generate=3 --write-facts=/proc/no/such 2>&1) || rc=$?
[[ $rc != 0 ]] || die "--write-facts into /proc/no/such succeeded"
grep -q "/proc/no/such: cannot create the directory" <<<"$msg" ||
  die "--write-facts error does not name the directory: $msg"
[[ $(grep -c "cannot create" <<<"$msg") == 1 ]] || die "error not reported once: $msg"
echo "check_kcfa_dl: kcfa_k1..3.dl equal ravel-kcfa and the reference at P = 2, 3"
