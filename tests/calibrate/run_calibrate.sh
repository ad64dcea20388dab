#!/usr/bin/env bash
# ravel-calibrate --quick on P ranks writes a model that loads and is
# plausible (check_model_file), and leaves no temporary file behind.  With
# NODES, the environment must make the MPI library see that many nodes
# (MPICH: MPIR_CVAR_NUM_CLIQUES); the test is skipped (77) when it does not.
# usage: run_calibrate.sh MPIEXEC RAVEL_CALIBRATE CHECK_MODEL_FILE P [NODES]
set -u
mpiexec=$1 calibrate=$2 checker=$3 p=$4 nodes=${5:-1}
dir=$(mktemp -d "${TMPDIR:-/tmp}/ravel_calibrate.XXXXXX")
trap 'rm -rf "$dir"' EXIT
die() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

timeout 300 "$mpiexec" -n "$p" "$calibrate" --quick --output="$dir/model.json" \
  >"$dir/out" 2>"$dir/err" || die "P=$p: exit $?: $(cat "$dir/out" "$dir/err")"
cat "$dir/out"
if [[ $nodes != 1 ]] && grep -q "on 1 node," "$dir/out"; then
  echo "SKIP: this MPI library does not emulate $nodes nodes"
  exit 77
fi
grep -q "^alpha " "$dir/out" || die "P=$p: no parameter table: $(cat "$dir/out")"
grep -q "wrote $dir/model.json" "$dir/out" || die "P=$p: no 'wrote' line"
if [[ $p == 1 ]]; then
  grep -q "one rank: alpha, beta and o need a partner" "$dir/err" ||
    die "P=1: no notice that alpha, beta and o are not measured: $(cat "$dir/err")"
fi
[[ ! -e $dir/model.json.tmp ]] || die "P=$p: model.json.tmp left behind"
"$checker" "$dir/model.json" "$p" "$nodes" || die "P=$p: $(cat "$dir/model.json")"

# --quiet prints nothing on stdout and still writes the file.
timeout 300 "$mpiexec" -n "$p" "$calibrate" --quick --quiet \
  --output="$dir/quiet.json" >"$dir/out" 2>"$dir/err" || die "P=$p --quiet: exit $?"
[[ ! -s $dir/out ]] || die "P=$p --quiet printed: $(cat "$dir/out")"
"$checker" "$dir/quiet.json" "$p" "$nodes" >/dev/null || die "P=$p --quiet: bad file"
echo "P=$p: ok"
