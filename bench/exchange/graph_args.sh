# graph_args.sh: sourced by the bash scripts of bench/exchange, bench/shm
# and bench/peers/mpi_floor.sh and two_builds.sh.
# graph_args TOP SCRIPT GRAPH: sets `file` to the shared SuiteSparse graph
# GRAPH and `flags` to the ravel-tc options it needs (0-based files read
# with --indices=zero-tolerant, per datasets/manifest.tsv); exits naming
# SCRIPT when the file is missing.
graph_args() {
  local top=$1 script=$2 graph=$3 base
  file=$top/../shared/datasets/suitesparse/$graph.mtx
  [[ -f $file ]] || { echo "$script: no $file" >&2; exit 1; }
  flags=()
  base=$(awk -F'\t' -v n="$graph" '$1 == n { print $5 }' "$top/datasets/manifest.tsv")
  [[ $base == 0 ]] && flags+=(--indices=zero-tolerant)
  return 0
}
