#!/usr/bin/env bash
# CPU test of ci/bless.sh's input checks: a missing folder and a folder with no perf runs are
# exit 2 with a message that names the folder and says what to give instead, before Bazel runs
# (BAZEL is a fake that records being called).
set -euo pipefail
bless="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"  # the checks run from $work
work="${TEST_TMPDIR:-$(mktemp -d)}/bless"
mkdir -p "$work/empty"
fake_bazel="$work/fake_bazel"
printf '#!/bin/sh\ntouch "%s/bazel_called"\nexit 1\n' "$work" >"$fake_bazel"
chmod +x "$fake_bazel"
fail() { echo "FAIL: $*"; exit 1; }

# exit2 WHAT TEXT ARGS...: runs ci/bless.sh ARGS (fake Bazel); it must exit 2 with TEXT in its
# message, which is left in $out for the caller's further checks.
out=""
exit2() {
  local what="$1" text="$2" st
  shift 2
  set +e
  out="$(cd "$work" && BAZEL="$fake_bazel" bash "$bless" --baselines="$work/baselines" "$@" 2>&1)"
  st=$?
  set -e
  echo "$what: exit $st: $out"
  [ "$st" -eq 2 ] || fail "$what: exit $st, expected 2"
  grep -qF -- "$text" <<<"$out" || fail "$what: the message does not say '$text'"
}
check() {  # check WHAT EXPECTED_TEXT ARGS...: exit 2, the text in the message, no Bazel
  exit2 "$@"
  grep -q 'artifacts folder of a gate run' <<<"$out" || fail "$1: the message does not say what to give"
  [ ! -e "$work/bazel_called" ] || fail "$1: Bazel was started before the folders were checked"
}
check "missing folder" "no folder no-such-artifacts" no-such-artifacts
check "folder with no runs" "no perf runs in $work/empty" empty
# A missing folder after a good-looking one is still caught before Bazel.
mkdir -p "$work/run1/perf/x_perf_test"
echo '{}' >"$work/run1/perf/x_perf_test/x_bench.json"
check "missing second folder" "no folder run2" run1 run2

# A round whose gate failed (ci/soak.sh's exit_status, a slower or missing verdict) is refused
# before Bazel, naming the folder, the benchmarks and --accept-slower; with the flag it goes on.
round() {  # round DIR STATUS VERDICT [CUBLAS_VERDICT CUBLAS_FAILS]: a soak round folder with one perf test
  mkdir -p "$work/$1/perf/dot_perf_test"
  echo '{}' >"$work/$1/perf/dot_perf_test/dot_bench.json"
  echo "$2" >"$work/$1/exit_status"
  printf '{\n "metric": "time",\n "verdicts": [\n  {\n   "name": "dot/cublas/N:1048576",\n   "verdict": "%s"%b\n  },\n  {\n   "name": "dot/tree_host_finish/N:1048576",\n   "verdict": "%s",\n   "delta": 0.1\n  }\n ]\n}\n' \
    "${4:-same}" "${5:+,\n   \"fails\": $5}" "$3" >"$work/$1/perf/dot_perf_test/verdicts.json"
}
refused() {  # refused WHAT TEXT ARGS...: exit 2 naming TEXT and --accept-slower, no Bazel
  exit2 "$@"
  grep -qF -- "--accept-slower" <<<"$out" || fail "$1: the message does not name --accept-slower"
  [ ! -e "$work/bazel_called" ] || fail "$1: Bazel was started for a failed round"
}
round good 0 same
round slow 1 slower
round failed 3 same
round unwritten 5 same
refused "slower verdict" "dot/tree_host_finish/N:1048576: slower" --add good slow
refused "slower verdict, no --add" "the gate failed in $work/slow (exit status 1" good slow
refused "failed round" "the gate failed in $work/failed (exit status 3)" good failed
round missing 0 missing
refused "missing verdict" "dot/tree_host_finish/N:1048576: missing" good missing
# With --only, a failing verdict outside the pattern is named and not counted (it is not blessed); one inside is.
round slowonly 0 slower
refused "slower verdict inside --only" "dot/tree_host_finish/N:1048576: slower" --only='^dot/tree_host_finish/' good slowonly
rm -f "$work/bazel_called"
(cd "$work" && BAZEL="$fake_bazel" bash "$bless" --baselines="$work/baselines" --only='^dot/cublas/' good slowonly >"$work/out" 2>&1) || true
cat "$work/out"
[ -e "$work/bazel_called" ] || fail "a slower verdict outside --only refused the bless"
grep -qF "$work/slowonly: not blessed (outside --only), so not counted:" "$work/out" &&
  grep -qF "  dot/tree_host_finish/N:1048576: slower" "$work/out" || fail "the verdict outside --only was not named"
rm -f "$work/bazel_called"
refused "a failed round's exit status, --only" "the gate failed in $work/slow (exit status 1" --only='^dot/cublas/' good slow
# A slower library reference ("fails": false) passed the gate (environment changed): not a failed round (#56 M12).
round libref 0 same slower false
# With --accept-slower, or with rounds that passed (exit 5: tests passed, report not written), Bazel runs.
for args in "--add --accept-slower good slow failed" "--add good unwritten" "--add good libref"; do
  rm -f "$work/bazel_called"
  # shellcheck disable=SC2086
  (cd "$work" && BAZEL="$fake_bazel" bash "$bless" --baselines="$work/baselines" $args >"$work/out" 2>&1) || true
  cat "$work/out"
  [ -e "$work/bazel_called" ] || fail "$args: Bazel was not started"
done
grep -qF "blessed anyway (--accept-slower)" "$work/out" && fail "a passed round was called failed"
echo "ok"
