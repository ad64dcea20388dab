# app_result.sh: sourced by tc_apps.sh and kcfa_apps.sh (bash).
# app_result LOG WHAT CMD...: runs CMD (an application under smpi_run.sh)
# with its stderr in LOG.stderr and prints the JSON line it wrote.  A run
# that ends without one (SimGrid's own aborts among them) is reported as
# WHAT with the end of LOG.stderr, which is kept, and returns 1, so that
# the study goes on with the next backend instead of stopping silently.
app_result() {
  local log=$1 what=$2 j
  shift 2
  j=$("$@" 2>"$log.stderr" | grep '^{') || true
  if [[ -z $j ]]; then
    echo "$what ended without a result; the end of $log.stderr:" >&2
    tail -n 3 "$log.stderr" >&2
    return 1
  fi
  rm -f "$log.stderr"
  echo "$j"
}
