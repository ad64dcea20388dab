#!/bin/sh
# table.sh CSV: shm against vendor from run_real.sh's CSV: per N, the
# median over the runs of each row's median time (us), and the ratios
# shm / vendor in each API form and exchange-form shm / alltoallv vendor;
# then, when the CSV has them, the outbox form's (the exchange on outboxes
# the caller writes its blocks into: shm's lie in its shared window)
# against vendor in every form and against memcpy.
set -eu
[ $# -eq 1 ] || { echo "usage: table.sh CSV" >&2; exit 2; }
awk -F, 'NR > 1 { k = $2 "|" $5; v[k] = v[k] " " $10; if (!($5 in seen)) { seen[$5] = 1; order[++ns] = $5 } }
function median(list,    a, m, i, j, t) {
    m = split(list, a, " ")
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
        if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
END {
    print "| N (B) | vendor | shm | shm / vendor | vendor/exchange | shm/exchange | shm/exchange / vendor/exchange | shm/exchange / vendor | memcpy |"
    print "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (i = 1; i <= ns; i++) {
        s = order[i]
        vd = median(v["vendor|" s]); sh = median(v["shm|" s])
        vx = median(v["vendor/exchange|" s]); sx = median(v["shm/exchange|" s])
        mc = median(v["memcpy|" s])
        printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", \
            s, vd, sh, sh / vd, vx, sx, sx / vx, sx / vd, mc
    }
    if (!(("shm/outbox|" order[1]) in v)) exit
    print ""
    print "| N (B) | vendor | vendor/exchange | vendor/outbox | shm/outbox | memcpy | shm/outbox / vendor/outbox | shm/outbox / vendor/exchange | shm/outbox / vendor | shm/outbox / memcpy |"
    print "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (i = 1; i <= ns; i++) {
        s = order[i]
        vd = median(v["vendor|" s]); vx = median(v["vendor/exchange|" s])
        vo = median(v["vendor/outbox|" s]); so = median(v["shm/outbox|" s])
        mc = median(v["memcpy|" s])
        printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", \
            s, vd, vx, vo, so, mc, so / vo, so / vx, so / vd, so / mc
    }
}' "$1"
