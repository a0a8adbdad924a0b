#!/usr/bin/env bash
# The report step of the main job (ci/gate.sh): charts and a static index.html in
# ARTIFACTS/report from this job's perf runs and verdicts (ARTIFACTS/perf/<test>/), the
# baselines and their history. The renderer leaves out the baselines and history of GPUs
# this job did not run on, and says so.
#
#   ci/report.sh ARTIFACTS_DIR [--baselines=DIR] [--title=TEXT]
#
# RENDER names the renderer to run (a command; default: `bazel run //plots:render --`,
# through $BAZEL if set, so that it sees the environment Bazel was started with, e.g. an
# offline bundle's GNUPLOT). //ci:report_test runs this script on the tree's real baselines.
# Exit status: the renderer's (0 drawn, 1 drawing failed, 2 bad input), or 2 on bad usage.
set -euo pipefail

artifacts=""
baselines=baselines
title="Kernel performance"
for a in "$@"; do
  case "$a" in
    --baselines=*) baselines="${a#--baselines=}" ;;
    --title=*) title="${a#--title=}" ;;
    -*) echo "report: unknown flag $a (usage: ci/report.sh ARTIFACTS_DIR [--baselines=DIR] [--title=TEXT])" >&2; exit 2 ;;
    *) [ -z "$artifacts" ] || { echo "report: one ARTIFACTS_DIR, not '$artifacts' and '$a'" >&2; exit 2; }
       artifacts="$a" ;;
  esac
done
[ -n "$artifacts" ] || { echo "usage: ci/report.sh ARTIFACTS_DIR [--baselines=DIR] [--title=TEXT]" >&2; exit 2; }
[ -d "$artifacts" ] || { echo "report: $artifacts: no such folder (the artifacts of ci/gate.sh)" >&2; exit 2; }
[ -d "$baselines" ] || { echo "report: $baselines: no such folder (--baselines=DIR: the baselines folder)" >&2; exit 2; }

inputs=()
for out in "$artifacts"/perf/*_perf_test; do
  for f in "$out"/*_bench.json "$out"/verdicts.json; do [ -f "$f" ] && inputs+=("$f"); done
done
for f in "$baselines"/*.json "$baselines"/history/*.csv; do [ -f "$f" ] && inputs+=("$f"); done
# A baseline kept as a folder of a file per family (baselines/<gpu>/<family>.json, docs/gate.md).
for f in "$baselines"/*/; do [ -d "$f" ] && [ "$f" != "$baselines/history/" ] && inputs+=("${f%/}"); done
if [ ${#inputs[@]} -eq 0 ]; then
  echo "report: nothing to draw: no perf run under $artifacts/perf/ and no baseline in $baselines" >&2
  exit 2
fi

if [ -n "${RENDER:-}" ]; then
  read -r -a render <<<"$RENDER"
else
  read -r -a bazel <<<"${BAZEL:-bazel}"
  render=("${bazel[@]}" run //plots:render --)
fi
exec "${render[@]}" --title="$title" "${inputs[@]}" "$artifacts/report"
