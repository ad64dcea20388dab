#!/usr/bin/env bash
# Installs the Debian packages ravel builds and tests with, if any is missing.
# Run as root (or with sudo) on Debian 12 or later.
# The test scripts call it first; a caller that has already run it (.ci/run)
# sets RAVEL_DEPS_READY=1 so that they skip the check.
set -euo pipefail
if [[ ${RAVEL_DEPS_READY:-} == 1 ]]; then exit 0; fi

# clang-14 and libclang-rt-14-dev: the sanitizer pass and the fuzz targets
# (scripts/test-sanitize.sh, scripts/fuzz.sh); python3: the Datalog tests'
# oracle (tests/datalog/oracle/).
packages=(build-essential cmake pkg-config mpich libmpich-dev libxxhash-dev
          googletest libgtest-dev zlib1g-dev gnuplot-nox libsimgrid-dev
          clang-14 libclang-rt-14-dev python3)

missing=()
for p in "${packages[@]}"; do
  # The status is read whole first: under pipefail, grep -q's early exit
  # could give dpkg-query SIGPIPE and fail the test.
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ $status == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) != 0 ]]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
