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

check() {  # check WHAT EXPECTED_TEXT ARGS...: exit 2, the text in the message, no Bazel
  local what="$1" text="$2" out st
  shift 2
  set +e
  out="$(cd "$work" && BAZEL="$fake_bazel" bash "$bless" --baselines="$work/baselines" "$@" 2>&1)"
  st=$?
  set -e
  echo "$what: exit $st: $out"
  [ "$st" -eq 2 ] || fail "$what: exit $st, expected 2"
  grep -qF "$text" <<<"$out" || fail "$what: the message does not say '$text'"
  grep -q 'artifacts folder of a gate run' <<<"$out" || fail "$what: the message does not say what to give"
  [ ! -e "$work/bazel_called" ] || fail "$what: Bazel was started before the folders were checked"
}
check "missing folder" "no folder no-such-artifacts" no-such-artifacts
check "folder with no runs" "no perf runs in $work/empty" empty
# A missing folder after a good-looking one is still caught before Bazel.
mkdir -p "$work/run1/perf/x_perf_test"
echo '{}' >"$work/run1/perf/x_perf_test/x_bench.json"
check "missing second folder" "no folder run2" run1 run2
echo "ok"
