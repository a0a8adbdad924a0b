#!/usr/bin/env bash
# CPU test of ci/bless.sh's input checks: a missing folder, a folder with no perf runs and a missing --baselines
# folder are exit 2 with a message that names it and says what to give instead, before Bazel runs (BAZEL is a fake
# that records being called); a round whose gate failed, or whose verdicts.json or exit_status is missing, or
# verdicts.json not the gate's, is refused, read by the real gate (GATE: a wrapper that runs `gate failing` and records `gate bless`).
set -euo pipefail
bless="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"  # the checks run from $work
real_gate="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
work="${TEST_TMPDIR:-$(mktemp -d)}/bless"
mkdir -p "$work/empty" "$work/baselines"
fake_bazel="$work/fake_bazel"
printf '#!/bin/sh\ntouch "%s/bazel_called"\nexit 1\n' "$work" >"$fake_bazel"
fake_gate="$work/fake_gate"
printf '#!/bin/sh\n[ "$1" = bless ] && { echo "$*" >"%s/bless_called"; exit 0; }\nexec "%s" "$@"\n' "$work" "$real_gate" >"$fake_gate"
chmod +x "$fake_bazel" "$fake_gate"
fail() { echo "FAIL: $*"; exit 1; }

# exit2 WHAT TEXT ARGS...: runs ci/bless.sh ARGS (fake Bazel; the gate $use_gate, none: built by Bazel); it must
# exit 2 with TEXT in its message, which is left in $out for the caller's further checks.
out=""
use_gate=""
exit2() {
  local what="$1" text="$2" st
  shift 2
  set +e
  out="$(cd "$work" && GATE="$use_gate" BAZEL="$fake_bazel" bash "$bless" --baselines="$work/baselines" "$@" 2>&1)"
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
# --help is no error: the usage on stdout, exit 0.
help="$(bash "$bless" --help 2>/dev/null)" || fail "ci/bless.sh --help exited $?"
grep -q '^usage: ci/bless.sh ' <<<"$help" || fail "ci/bless.sh --help printed: $help"
check "missing folder" "no folder no-such-artifacts" no-such-artifacts
check "folder with no runs" "no perf runs in $work/empty" empty
# A missing folder after a good-looking one is still caught before Bazel.
mkdir -p "$work/run1/perf/x_perf_test"
echo '{}' >"$work/run1/perf/x_perf_test/x_bench.json"
check "missing second folder" "no folder run2" run1 run2
# A --baselines folder that does not exist (a typo) is refused, named, and not made.
exit2 "missing --baselines" "--baselines=$work/no-such-baselines: no such folder" --baselines="$work/no-such-baselines" run1
[ ! -e "$work/bazel_called" ] || fail "missing --baselines: Bazel was started"
[ ! -e "$work/no-such-baselines" ] || fail "missing --baselines: the folder was made"
exit2 "empty --baselines" "--baselines= is empty" --baselines= run1

# A round whose gate failed (ci/soak.sh's exit_status, a slower or missing verdict) is refused, naming the folder,
# the benchmarks and --accept-slower; with the flag it goes on.
use_gate="$fake_gate"
round() {  # round DIR STATUS VERDICT [CUBLAS_VERDICT CUBLAS_FAILS]: a soak round folder with one perf test
  mkdir -p "$work/$1/perf/dot_perf_test"
  echo '{}' >"$work/$1/perf/dot_perf_test/dot_bench.json"
  echo "$2" >"$work/$1/exit_status"
  printf '{\n "metric": "time",\n "verdicts": [\n  {\n   "name": "dot/cublas/N:1048576",\n   "verdict": "%s"%b\n  },\n  {\n   "name": "dot/tree_host_finish/N:1048576",\n   "verdict": "%s",\n   "delta": 0.1\n  }\n ]\n}\n' \
    "${4:-same}" "${5:+,\n   \"fails\": $5}" "$3" >"$work/$1/perf/dot_perf_test/verdicts.json"
}
refused() {  # refused WHAT TEXT ARGS...: exit 2 naming TEXT and --accept-slower, no bless
  exit2 "$@"
  grep -qF -- "--accept-slower" <<<"$out" || fail "$1: the message does not name --accept-slower"
  [ ! -e "$work/bless_called" ] || fail "$1: gate bless was started for a failed round"
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
# The verdicts are JSON, not lines: a slower verdict in a file of one line is found.
round compact 0 same
printf '{"metric":"time","verdicts":[{"name":"dot/cublas/N:1048576","verdict":"slower","fails":true}]}' \
  >"$work/compact/perf/dot_perf_test/verdicts.json"
refused "slower verdict in compact JSON" "dot/cublas/N:1048576: slower" good compact
# A verdicts.json that is empty, cut short or missing beside its run: whether the gate passed is unknown. Exit 2,
# naming the file, with --accept-slower too.
vf() { echo "$work/$1/perf/dot_perf_test/verdicts.json"; }
round empty0 0 same
: >"$(vf empty0)"
round cut 0 same
head -c 60 "$(vf good)" >"$(vf cut)"
round gone 0 same
rm "$(vf gone)"
for r in empty0 cut gone; do
  exit2 "verdicts.json of $r" "$(vf "$r")" --accept-slower good "$r"
  [ ! -e "$work/bless_called" ] || fail "verdicts.json of $r: gate bless was started"
done
grep -qF "missing beside its run JSON" <<<"$out" || fail "a missing verdicts.json is not called missing"
# A folder without exit_status (a CI job's artifacts before ci/gate.sh wrote it, a job killed): whether its gate
# passed is unknown, so it is refused, named, --accept-slower or not (it once counted as passed).
round nostatus 0 same
rm "$work/nostatus/exit_status"
exit2 "no exit_status" "$work/nostatus has no exit_status" good nostatus
[ ! -e "$work/bless_called" ] || fail "no exit_status: gate bless was started"
exit2 "no exit_status, --accept-slower" "$work/nostatus has no exit_status" --accept-slower good nostatus
[ ! -e "$work/bless_called" ] || fail "no exit_status, --accept-slower: gate bless was started"
# With --only, a failing verdict outside the pattern is named and not counted (it is not blessed); one inside is.
round slowonly 0 slower
refused "slower verdict inside --only" "dot/tree_host_finish/N:1048576: slower" --only='^dot/tree_host_finish/' good slowonly
rm -f "$work/bless_called"
(cd "$work" && GATE="$fake_gate" bash "$bless" --baselines="$work/baselines" --only='^dot/cublas/' good slowonly >"$work/out" 2>&1) || true
cat "$work/out"
[ -e "$work/bless_called" ] || fail "a slower verdict outside --only refused the bless"
grep -qF "$work/slowonly: not blessed (outside --only), so not counted:" "$work/out" &&
  grep -qF "  dot/tree_host_finish/N:1048576: slower" "$work/out" || fail "the verdict outside --only was not named"
rm -f "$work/bless_called"
refused "a failed round's exit status, --only" "the gate failed in $work/slow (exit status 1" --only='^dot/cublas/' good slow
# A slower library reference ("fails": false) passed the gate (environment changed): not a failed round (#56 M12).
round libref 0 same slower false
# A perf test NOT JUDGED (no baseline of its GPU yet) wrote a summary.md and no verdicts.json: its runs bless.
round new_gpu 0 same
rm "$(vf new_gpu)"
printf '## dot_bench on NVIDIA H100 80GB HBM3: NOT JUDGED (no baseline of this GPU yet)\n' \
  >"$work/new_gpu/perf/dot_perf_test/summary.md"
# With --accept-slower, or with rounds that passed (exit 5: tests passed, report not written), gate bless runs.
# gate bless takes --accept-slower only with --add (without it, nothing is judged slower there).
for args in "--add --accept-slower good slow failed" "--accept-slower good slow" "--add good unwritten" \
  "--add good libref" "good new_gpu"; do
  rm -f "$work/bless_called"
  # shellcheck disable=SC2086
  (cd "$work" && GATE="$fake_gate" bash "$bless" --baselines="$work/baselines" $args >"$work/out" 2>&1) || true
  cat "$work/out"
  [ -e "$work/bless_called" ] || fail "$args: gate bless was not started"
  case "$args" in
    --add\ --accept-slower*) grep -q -- "--add --accept-slower" "$work/bless_called" ;;
    *) ! grep -q -- "--accept-slower" "$work/bless_called" ;;
  esac || fail "$args: gate bless was given: $(cat "$work/bless_called")"
done
grep -qF "blessed anyway (--accept-slower)" "$work/out" && fail "a passed round was called failed"
echo "ok"
