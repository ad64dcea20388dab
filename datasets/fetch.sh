#!/usr/bin/env bash
# fetch.sh: downloads a graph of datasets/manifest.tsv from the SuiteSparse
# Matrix Collection, verifies the tarball's SHA-256 when the manifest lists
# one, unpacks it and checks the Matrix Market file (banner, size line, and
# the entry count against the size line and the manifest).
#
#   datasets/fetch.sh [--dest DIR] [--dry-run] NAME   (NAME or Group/NAME)
#   datasets/fetch.sh --check FILE [ENTRIES]          (check a local .mtx)
#   datasets/fetch.sh --list                          (names it knows)
#
# Exit status: 0 success, 1 a check failed or the download failed, 2 usage.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
manifest="$here/manifest.tsv"
mirrors=(
  "https://suitesparse-collection-website.herokuapp.com/MM"
  "https://sparse.tamu.edu/MM"
)

die() { printf 'fetch.sh: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# check_mtx FILE [ENTRIES]: the banner, the size line and the entry count,
# with the file and line at fault in every message.
check_mtx() {
  local file=$1 expected=${2:-}
  [[ -f $file && -r $file ]] || die "$file: cannot read"
  LC_ALL=C awk -v file="$file" -v expected="$expected" '
    function fail(line, msg) { printf "%s:%d: %s\n", file, line, msg > "/dev/stderr"; bad = 1; exit 1 }
    { sub(/\r$/, "") }
    NR == 1 {
      if (tolower($0) !~ /^%%matrixmarket[ \t]+matrix[ \t]+coordinate[ \t]+(pattern|integer|real|complex)[ \t]+(general|symmetric|skew-symmetric|hermitian)[ \t]*$/)
        fail(1, "expected the banner %%MatrixMarket matrix coordinate FIELD SYMMETRY, found \x27" substr($0, 1, 60) "\x27")
      next
    }
    /^[ \t]*$/ { next }
    /^[ \t]*%/ { next }
    !sized {
      if (NF != 3 || $1 !~ /^[0-9]+$/ || $2 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+$/)
        fail(NR, "expected the size line \x27rows columns entries\x27, found \x27" substr($0, 1, 60) "\x27")
      sized = 1; declared = $3; size_line = NR; next
    }
    { entries++; if (entries > declared) fail(NR, "expected " declared " entries as the size line (line " size_line ") declares, found more") }
    END {
      if (bad) exit 1
      if (NR == 0) fail(1, "expected the banner, found an empty file")
      if (!sized) fail(NR + 1, "expected the size line, found end of file")
      if (entries + 0 != declared + 0) fail(NR + 1, "expected " declared " entries as the size line (line " size_line ") declares, found " entries + 0)
      if (expected != "" && declared + 0 != expected + 0) fail(size_line, "expected " expected " entries as manifest.tsv lists, the size line declares " declared)
      printf "%s: ok, %d entries\n", file, entries
    }' "$file"
}

# manifest_row NAME: prints "name group entries sha256" of the graph.
manifest_row() {
  local want=${1##*/}
  awk -F'\t' -v want="$want" '
    /^#/ || $1 == "name" { next }
    $1 == want { print $1, $2, $4, ($8 == "" ? "-" : $8); found = 1; exit }
    END { exit !found }' "$manifest"
}

download() { # URL OUT
  if command -v curl >/dev/null 2>&1; then
    curl --fail --location --silent --show-error --retry 3 --output "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget --quiet --tries=3 --output-document="$2" "$1"
  else
    die "neither curl nor wget is installed"
  fi
}

fetch() { # NAME DEST DRY_RUN
  local name group entries sha row
  row=$(manifest_row "$1") || die "$1: not in $manifest (see --list)"
  read -r name group entries sha <<<"$row"
  [[ $group != "-" ]] ||
    die "$name: not in the SuiteSparse collection (see the note in manifest.tsv)"
  if [[ $3 == 1 ]]; then
    for m in "${mirrors[@]}"; do printf '%s/%s/%s.tar.gz\n' "$m" "$group" "$name"; done
    return 0
  fi
  mkdir -p "$2"
  local tarball="$2/$name.tar.gz" ok=0
  for m in "${mirrors[@]}"; do
    if download "$m/$group/$name.tar.gz" "$tarball.part"; then ok=1; break; fi
    printf 'fetch.sh: %s/%s/%s.tar.gz failed, trying the next mirror\n' "$m" "$group" "$name" >&2
  done
  [[ $ok == 1 ]] || { rm -f "$tarball.part"; die "$name: download failed from every mirror"; }
  mv "$tarball.part" "$tarball"
  if [[ $sha == "-" ]]; then
    printf 'fetch.sh: %s: could not verify: manifest.tsv lists no SHA-256 (this one is %s)\n' \
      "$name" "$(sha256sum "$tarball" | cut -d' ' -f1)" >&2
  else
    printf '%s  %s\n' "$sha" "$tarball" | sha256sum --check --status ||
      die "$tarball: SHA-256 mismatch (expected $sha)"
  fi
  tar -xzf "$tarball" -C "$2"
  local mtx="$2/$name/$name.mtx"
  [[ -f $mtx ]] || die "$tarball: no $name/$name.mtx inside"
  check_mtx "$mtx" "$entries"
}

dest="$here/suitesparse"
dry_run=0
[[ $# -gt 0 ]] || usage
while [[ $# -gt 0 ]]; do
  case $1 in
    --check) [[ $# -ge 2 && $# -le 3 ]] || usage; check_mtx "$2" "${3:-}"; exit ;;
    --list) awk -F'\t' '!/^#/ && $1 != "name" { print ($2 == "-" ? "" : $2 "/") $1 }' "$manifest"; exit 0 ;;
    --dest) [[ $# -ge 2 ]] || usage; dest=$2; shift 2 ;;
    --dest=*) dest=${1#--dest=}; shift ;;
    --dry-run) dry_run=1; shift ;;
    -h|--help) usage ;;
    -*) printf 'fetch.sh: unknown option %s\n' "$1" >&2; usage ;;
    *) [[ $# -eq 1 ]] || usage; fetch "$1" "$dest" "$dry_run"; exit ;;
  esac
done
usage
