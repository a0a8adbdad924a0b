#!/usr/bin/env bash
# The main job on a GPU runner: build every kernel, prove it correct, run each
# family's benchmarks through the regression gate against the baseline of this
# GPU, then gather the artifacts (run JSON, verdicts, summaries, JUnit, logs),
# append history rows for an accepted run on the main branch, and render charts
# and an HTML report (artifacts/report/index.html).
#
#   ci/gate.sh [--artifacts=DIR] [--history] [BAZEL FLAGS...]
#
#   --artifacts=DIR  where to put results (default: artifacts/)
#   --history        append this run to baselines/history/<gpu>.csv if the gate passed
#                    (CI does this on the main branch only)
# Also keeps the GPU slot records of the run (artifacts/slots.log: test, GPU, lock, start, end)
# and their summary by ci/slots_report.sh (artifacts/slots.txt).
# Exit status: Bazel's (0 all passed, 3 a test failed: a regression or a wrong kernel).
# BAZEL may name another Bazel command (e.g. an offline bundle's, see README); then
# no packages are installed.
set -euo pipefail
cd "$(dirname "$0")/.."

artifacts=artifacts
history=0
bazel_flags=()
for a in "$@"; do
  case "$a" in
    --artifacts=*) artifacts="${a#--artifacts=}" ;;
    --history) history=1 ;;
    *) bazel_flags+=("$a") ;;
  esac
done

read -r -a bazel <<<"${BAZEL:-bazel}"
[ -n "${BAZEL:-}" ] || bash ci/setup.sh
mkdir -p "$artifacts"
artifacts="$(cd "$artifacts" && pwd)"
# Results of an earlier job must not mix with this one's.
rm -rf "$artifacts/perf" "$artifacts/tests" "$artifacts/report" "$artifacts/summary.md" "$artifacts/bazel_test.log" \
  "$artifacts/slots.log" "$artifacts/slots.txt"
# CI systems name the commit (e.g. GITHUB_SHA -> PERF_COMMIT); else ask git.
PERF_COMMIT="${PERF_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}"
export PERF_COMMIT
# Cached correctness results are keyed by the GPU model (.bazelrc, test:gpu); no GPU stops here.
CUDA_PERF_GPU_MODEL="$(bash ci/gpu_model.sh)" || exit 2
export CUDA_PERF_GPU_MODEL

slot_log="${GPU_SLOT_DIR:-/tmp/cuda-perf-gpu-locks}/slots.log"
since="$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)"
set +e
"${bazel[@]}" test //... --config=gpu "${bazel_flags[@]}" 2>&1 | tee "$artifacts/bazel_test.log"
status=${PIPESTATUS[0]}
set -e

# Which test ran on which GPU, and when: the slot records of this run (those that started after
# it began; ISO times compare as strings), and their summary. Tests of other jobs on this host in
# that time are in it too: they shared the GPUs.
if [ -r "$slot_log" ]; then
  awk -v since="$since" '{ for (i = 1; i <= NF; i++) if ($i ~ /^start=/ && substr($i, 7) >= since) print }' \
    "$slot_log" >"$artifacts/slots.log" || echo "gate: could not read the GPU slot records in $slot_log"
  if [ -s "$artifacts/slots.log" ]; then
    bash ci/slots_report.sh "$artifacts/slots.log" >"$artifacts/slots.txt" 2>&1 ||
      echo "gate: GPU slot records show an overlap or could not be read: see $artifacts/slots.txt"
    tail -n 4 "$artifacts/slots.txt"
  fi
fi

# Bazel keeps each test's undeclared outputs (zipped by some versions); gather the perf tests' (run JSON,
# verdicts, summary) next to their logs and JUnit XML. A failed gate keeps its data too.
unpack() {
  if command -v unzip >/dev/null; then unzip -qo "$1" -d "$2"
  else python3 -m zipfile -e "$1" "$2"; fi
}
testlogs="$("${bazel[@]}" info bazel-testlogs --config=gpu 2>/dev/null)" || echo "gate: bazel info failed: no test logs collected"
for dir in "$testlogs"/perf/*_perf_test; do
  [ -d "$dir" ] || continue
  name="$(basename "$dir")"
  out="$artifacts/perf/$name"
  mkdir -p "$out"
  cp -L "$dir/test.log" "$out/" 2>/dev/null || true
  cp -L "$dir/test.xml" "$out/junit.xml" 2>/dev/null || true
  if [ -f "$dir/test.outputs/outputs.zip" ]; then unpack "$dir/test.outputs/outputs.zip" "$out"
  elif [ -d "$dir/test.outputs" ]; then cp -rL "$dir/test.outputs/." "$out/"; fi
done
mkdir -p "$artifacts/tests"
for log in "$testlogs"/tests/*/test.log; do
  [ -f "$log" ] && cp -L "$log" "$artifacts/tests/$(basename "$(dirname "$log")").log"
done

# History: one row per benchmark of an accepted run (main branch only).
if [ "$history" -eq 1 ] && [ "$status" -eq 0 ]; then
  "${bazel[@]}" build //perf/gate:gate >/dev/null 2>&1
  gate="$("${bazel[@]}" info bazel-bin 2>/dev/null)/perf/gate/gate"
  mkdir -p baselines/history
  for out in "$artifacts"/perf/*_perf_test; do
    run="$(find "$out" -maxdepth 1 -name '*_bench.json' | head -1)"
    if [ -n "$run" ] && [ -f "$out/verdicts.json" ]; then
      "$gate" history --history_dir=baselines/history --verdicts="$out/verdicts.json" "$run" ||
        echo "gate: history not appended for $run (the reason is above)"
    fi
  done
fi

# Charts and a static index.html (artifacts/report/): this job's runs and verdicts,
# the baselines and their history. A report that cannot be drawn is said, not fatal:
# the gate's verdict above stands.
report_inputs=()
for out in "$artifacts"/perf/*_perf_test; do
  for f in "$out"/*_bench.json "$out"/verdicts.json; do [ -f "$f" ] && report_inputs+=("$f"); done
done
for f in baselines/*.json baselines/history/*.csv; do [ -f "$f" ] && report_inputs+=("$f"); done
if [ ${#report_inputs[@]} -gt 0 ]; then
  # Through `bazel run`, so that the renderer sees the environment Bazel was started with
  # (an offline bundle's GNUPLOT, for one).
  "${bazel[@]}" run //plots:render -- --title="Kernel performance at $PERF_COMMIT" \
    "${report_inputs[@]}" "$artifacts/report" || echo "gate: the report was not rendered (the reason is above)"
fi

# A summary for people: GitHub Actions shows it on the run's page.
summary="$artifacts/summary.md"
: > "$summary"
for md in "$artifacts"/perf/*/summary.md; do [ -f "$md" ] && { cat "$md"; echo; } >> "$summary"; done
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$summary" >> "$GITHUB_STEP_SUMMARY"; fi

echo "gate: bazel exit status $status; artifacts in $artifacts:"
find "$artifacts" -type f | sort | sed "s|^$artifacts/|  |"
exit "$status"
