#!/bin/sh
# auto_table.sh CSV...: for every (P, distribution, N) of ravel-a2a CSVs
# (bench/simgrid/auto_grid.sh's) that have auto and fixed backends, the
# fastest fixed backend, auto's choice and each form of auto's time against
# the fastest (a Markdown table), then how many points each form is within
# 5% and 10% of the fastest.  The forms, by row:
#   "auto"        a plain caller's auto: its mean time per call (mean_us),
#                 which includes the allreduces it makes;
#   "auto:agree"  an allreduce before every call;
#   "auto+hint"   told the statistics (--hint-stats), as inside the engine.
# A CSV written before ravel-a2a had mean_us holds auto from before it
# carried its agreement: its "auto" rows are read as auto:agree.  Several
# CSVs may be given (the fixed backends of one run, auto of another): the
# simulation is deterministic, so the same point gives the same time.  A
# CSV named as fixed:PATH gives its fixed backends only (auto there is of
# older code).
set -eu
[ $# -ge 1 ] || { echo "usage: auto_table.sh [fixed:]CSV..." >&2; exit 2; }
files= fixed=
for a in "$@"; do
    case $a in
    fixed:*) files="$files ${a#fixed:}" fixed="$fixed ${a#fixed:}" ;;
    *) files="$files $a" ;;
    esac
done
# shellcheck disable=SC2086 # the paths are words
awk -F, -v fixed="$fixed" '
BEGIN { n = split(fixed, f, " "); for (i = 1; i <= n; i++) only_fixed[f[i]] = 1 }
FNR == 1 { delete col; for (i = 1; i <= NF; i++) col[$i] = i; next }
FILENAME in only_fixed && $col["backend"] ~ /^auto/ { next }
{
    key = $col["P"] SUBSEP $col["dist"] SUBSEP $col["N"]
    if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    t = $col["median_us"] + 0
    b = $col["backend"]
    if (b == "auto" && !("mean_us" in col)) b = "auto:agree"
    if (b == "auto") {
        carry[key] = $col["mean_us"] + 0; chose[key] = $col["chose"]
    } else if (b == "auto:agree") {
        agree[key] = t; chose[key] = $col["chose"]
    } else if (b == "auto+hint") {
        hint[key] = t; chose[key] = $col["chose"]
    } else if (!(key in best) || t < best[key]) {
        best[key] = t; winner[key] = b
    }
}
# (k in a) first: reading a[k] would make it exist.
function ratio(a, k) { return (k in a) ? sprintf("%.3f", a[k] / best[k]) : "-" }
function tally(name, a, k) {
    if (!(k in a)) return
    pts[name]++
    if (a[k] <= 1.05 * best[k]) in5[name]++
    if (a[k] <= 1.10 * best[k]) in10[name]++
}
END {
    print "| P | dist | N | fastest fixed | its us | auto chose | auto+hint / fastest | auto:agree / fastest | auto / fastest |"
    print "|---:|---|---:|---|---:|---|---:|---:|---:|"
    for (i = 1; i <= n; i++) {
        k = order[i]
        if (!(k in best) || (!(k in carry) && !(k in agree) && !(k in hint)))
            continue
        split(k, f, SUBSEP)
        printf "| %s | %s | %s | %s | %.1f | %s | %s | %s | %s |\n", f[1], f[2],
            f[3], winner[k], best[k], chose[k], ratio(hint, k),
            ratio(agree, k), ratio(carry, k)
        points++
        if (chose[k] == winner[k]) right++
        tally("auto+hint (told the statistics)", hint, k)
        tally("auto:agree (an allreduce every call)", agree, k)
        tally("auto (a plain caller, agreement carried)", carry, k)
    }
    printf "\n%d points; auto chose the fastest fixed backend at %d.\n", points, right
    for (name in pts)
        printf "%s: within 5%% of the fastest at %d of %d points, within 10%% at %d.\n", name, in5[name], pts[name], in10[name]
}' $files
