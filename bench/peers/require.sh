# require.sh: sourced by the bench/peers scripts.
# peers_require SCRIPT SOUFFLE SHARED BINARY...: exits naming SCRIPT when a
# ravel binary is not built, Soufflé is not installed (and says how to
# build it) or /usr/bin/time is missing.
peers_require() {
  local script=$1 souffle=$2 shared=$3 b
  shift 3
  for b in "$@"; do
    [[ -x $b ]] || { echo "$script: no $b: build first" >&2; exit 1; }
  done
  [[ -x $souffle ]] || {
    echo "$script: no $souffle: run 'bash $shared/peers/souffle/build.sh' once (about 12 minutes)" >&2
    exit 1
  }
  [[ -x /usr/bin/time ]] || { echo "$script: needs /usr/bin/time (Debian package time)" >&2; exit 1; }
}
