# souffle_tc.sh: sourced by bench/peers/tc_vs_souffle.sh and launch_floor.sh.
# souffle_tc_compile SOUFFLE SHARED OUT: compiles ../shared/peers/souffle/
#   tc.dl (ravel-tc's program) into the binary OUT (souffle -o: the
#   generated C++ is what Soufflé's users run).
# souffle_tc_facts MTX DIR: writes DIR/edge.facts, the Matrix Market file's
#   entries as they are (after the comments and the size line), as
#   tab-separated pairs (the ids' base does not change the closure).
souffle_tc_compile() {
  "$1" -o "$3" "$2/peers/souffle/tc.dl"
}
souffle_tc_facts() {
  mkdir -p "$2"
  awk '/^%/ { next } !seen { seen = 1; next } { print $1 "\t" $2 }' \
    "$1" >"$2/edge.facts"
}
