#!/usr/bin/env bash
# Adopts the perf runs of one or more ci/gate.sh artifacts directories as the baseline of
# their GPU (one directory = one run of every family; give three or more, preferably from
# more than one machine). Prints the changes; the new baselines/<gpu>.json is for review
# and commit.
#
#   ci/bless.sh [--baselines=DIR] ARTIFACTS_DIR [ARTIFACTS_DIR...]
set -euo pipefail
baselines=baselines
dirs=()
for a in "$@"; do
  case "$a" in
    --baselines=*) baselines="${a#--baselines=}" ;;
    *) dirs+=("$(cd "$a" && pwd)") ;;
  esac
done
[ ${#dirs[@]} -gt 0 ] || { echo "usage: ci/bless.sh [--baselines=DIR] ARTIFACTS_DIR..." >&2; exit 2; }
runs=()
for d in "${dirs[@]}"; do
  found=0
  for f in "$d"/perf/*_perf_test/*_bench.json; do [ -f "$f" ] && runs+=("$f") && found=1; done
  [ "$found" -eq 1 ] || { echo "bless: no perf/*_perf_test/*_bench.json under $d" >&2; exit 2; }
done
baselines="$(mkdir -p "$baselines" && cd "$baselines" && pwd)"
cd "$(dirname "$0")/.."
read -r -a bazel <<<"${BAZEL:-bazel}"
"${bazel[@]}" build //perf/gate:gate
exec "$("${bazel[@]}" info bazel-bin 2>/dev/null)/perf/gate/gate" bless --baselines="$baselines" "${runs[@]}"
