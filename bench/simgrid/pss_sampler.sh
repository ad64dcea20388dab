#!/bin/sh
# pss_sampler.sh: the real memory of running simulations.  Every 2 s, one
# line per smpimain process: "time np:P csv=FILE pss_kB rss_kB".  PSS counts
# a shared page once; RSS (and /usr/bin/time's max RSS) counts it once per
# mapping, so with SMPI's shared malloc RSS overstates what a run needs.
#
# usage: pss_sampler.sh >> pss.log &     (stop it with kill)
while true; do
    for pid in $(pgrep smpimain); do
        args=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || continue
        np=$(printf '%s\n' "$args" | grep -o 'np:[0-9]*' | head -1)
        csv=$(printf '%s\n' "$args" | grep -o 'csv=[^ ]*' | head -1)
        mem=$(awk '/^Pss:/ { p = $2 } /^Rss:/ { r = $2 } END { print p, r }' \
              "/proc/$pid/smaps_rollup" 2>/dev/null) || continue
        [ -n "$mem" ] && echo "$(date +%T) $np $csv $mem"
    done
    sleep 2
done
