#!/usr/bin/env bash
# The report step of the main job (ci/gate.sh): charts and a static index.html in
# ARTIFACTS/report from this job's perf runs and verdicts (ARTIFACTS/perf/<test>/), the
# baselines and their history. The renderer leaves out the baselines and history of GPUs
# this job did not run on, and says so.
#
#   ci/report.sh ARTIFACTS_DIR [--baselines=DIR] [--title=TEXT] [--suite_repo=@cuda_perf] [POLICY FLAG...]
#
# First `gate trends --json=ARTIFACTS/trends.json` decides, from the history and the baselines, what the
# over-time charts show (each row's threshold, each benchmark's reference level, change points, creep) under the
# gate's policy (POLICY FLAG: --tolerance=F, --family_tolerance=FAMILY=F, --k_noise=K, as given to the perf
# tests); the renderer draws that and decides nothing. GATE and RENDER name the programs (commands; default:
# `bazel run //perf/gate:gate --` and `bazel run //plots:render --`, through $BAZEL if set, so that they see the
# environment Bazel was started with, e.g. an offline bundle's GNUPLOT). In a workspace that pulls the suite in, run
# from that workspace's root with --suite_repo=@cuda_perf (ci/gate.sh --workspace=DIR does): the targets are then
# @cuda_perf//perf/gate:gate and @cuda_perf//plots:render. //ci:report_test runs this script on the
# tree's real baselines.
# Exit status: the renderer's (0 drawn, 1 drawing failed, 2 bad input), or 2 on bad usage or when the trends
# cannot be decided; --help prints the usage on stdout (exit 0).
set -euo pipefail

usage_text="usage: ci/report.sh ARTIFACTS_DIR [--baselines=DIR] [--title=TEXT] [--suite_repo=@cuda_perf] [--tolerance=F] [--family_tolerance=FAMILY=F] [--k_noise=K]"
artifacts=""
baselines=baselines
title="Kernel performance"
suite_repo=""
policy=()
for a in "$@"; do
  case "$a" in
    --baselines=*) baselines="${a#--baselines=}" ;;
    --title=*) title="${a#--title=}" ;;
    --suite_repo=*) suite_repo="${a#--suite_repo=}" ;;
    --tolerance=* | --family_tolerance=* | --k_noise=*) policy+=("$a") ;;
    -h | --help) echo "$usage_text"; exit 0 ;;
    -*) echo "report: unknown flag $a ($usage_text)" >&2; exit 2 ;;
    *) [ -z "$artifacts" ] || { echo "report: one ARTIFACTS_DIR, not '$artifacts' and '$a'" >&2; exit 2; }
       artifacts="$a" ;;
  esac
done
[ -n "$artifacts" ] || { echo "$usage_text" >&2; exit 2; }
[ -d "$artifacts" ] || { echo "report: $artifacts: no such folder (the artifacts of ci/gate.sh)" >&2; exit 2; }
[ -d "$baselines" ] || { echo "report: $baselines: no such folder (--baselines=DIR: the baselines folder)" >&2; exit 2; }

inputs=()
runs=0
for out in "$artifacts"/perf/*_perf_test; do
  found=0
  for f in "$out"/*_bench.json; do [ -f "$f" ] && { inputs+=("$f"); found=1; }; done
  # Judged A/B (every benchmark, as on a workspace's first day): the change's runs are this job's runs (of what it
  # measured; an unchanged benchmark was not run). The renderer takes each benchmark's latest.
  if [ "$found" -eq 0 ]; then
    for f in "$out"/*_bench.change[0-9]*.json; do [ -f "$f" ] && { inputs+=("$f"); found=1; }; done
  fi
  runs=$((runs + found))
  [ -f "$out/verdicts.json" ] && inputs+=("$out/verdicts.json")
done
bases=() histories=()
for f in "$baselines"/*.json; do [ -f "$f" ] && bases+=("$f"); done
# A baseline kept as a folder of a file per family (baselines/<gpu>/<family>.json, docs/gate.md).
for f in "$baselines"/*/; do [ -d "$f" ] && [ "$f" != "$baselines/history/" ] && bases+=("${f%/}"); done
for f in "$baselines"/history/*.csv; do [ -f "$f" ] && histories+=("$f"); done
inputs+=(${bases[@]+"${bases[@]}"} ${histories[@]+"${histories[@]}"})
if [ ${#inputs[@]} -eq 0 ]; then
  echo "report: nothing to draw: no perf run under $artifacts/perf/ and no baseline in $baselines" >&2
  exit 2
fi
# Nothing measured (every benchmark unchanged A/B) and no history: no chart to draw, which is no failure.
if [ "$runs" -eq 0 ] && [ ${#histories[@]} -eq 0 ]; then
  echo "report: none: this job measured nothing (every benchmark unchanged) and $baselines has no history to chart"
  exit 0
fi

read -r -a bazel <<<"${BAZEL:-bazel}"
if [ -n "${GATE:-}" ]; then read -r -a gate <<<"$GATE"; else gate=("${bazel[@]}" run "$suite_repo//perf/gate:gate" --); fi
if [ -n "${RENDER:-}" ]; then read -r -a render <<<"$RENDER"; else render=("${bazel[@]}" run "$suite_repo//plots:render" --); fi

# The trends of each history, decided by the gate (the renderer computes no threshold and detects nothing).
if [ ${#histories[@]} -gt 0 ]; then
  trends="$artifacts/trends.json"
  base_flags=()
  for b in ${bases[@]+"${bases[@]}"}; do base_flags+=("--baseline=$b"); done
  st=0
  "${gate[@]}" trends --json="$trends" ${base_flags[@]+"${base_flags[@]}"} ${policy[@]+"${policy[@]}"} \
    "${histories[@]}" >"$artifacts/trends.log" 2>&1 || st=$?
  if [ "$st" -ne 0 ]; then
    cat "$artifacts/trends.log" >&2
    echo "report: gate trends failed (exit $st), so the over-time charts have nothing to draw: see trends.log" >&2
    exit 2
  fi
  inputs+=("$trends")
fi
exec "${render[@]}" --title="$title" "${inputs[@]}" "$artifacts/report"
