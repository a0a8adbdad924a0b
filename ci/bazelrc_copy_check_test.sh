#!/usr/bin/env bash
# CPU test of ci/bazelrc_copy_check.sh, the check behind suite_bazelrc_test (ci/bazelrc.bzl) that a workspace
# pinning the suite with http_archive keeps the pinned suite's .bazelrc as its own: a true copy passes; an edited
# copy, or a suite whose .bazelrc moved on, fails with the differing line and the command that fixes it.
#
#   bazelrc_copy_check_test.sh CHECK_SH SUITE_BAZELRC
set -euo pipefail
check="$1" suite_rc="$2"
work="${TEST_TMPDIR:-$(mktemp -d)}/bazelrc_copy_check_test"
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; echo "--- output:"; cat "$work/out"; exit 1; }

# 1. A true copy.
cp "$suite_rc" "$work/copy"
bash "$check" "$suite_rc" "$work/copy" >"$work/out" 2>&1 || fail "a true copy of the suite's .bazelrc was refused"
grep -q '^ok: ' "$work/out" || fail "no ok line for a true copy"

# 2. A copy a setting behind (the suite's .bazelrc changed after the pin moved).
sed 's/^build --conlyopt=-std=c11$/build --conlyopt=-std=c99/' "$suite_rc" >"$work/copy"
! cmp -s "$suite_rc" "$work/copy" || fail "the suite's .bazelrc has no 'build --conlyopt=-std=c11' line to change"
if bash "$check" "$suite_rc" "$work/copy" >"$work/out" 2>&1; then fail "an edited copy passed"; fi
grep -qxF '+build --conlyopt=-std=c99' "$work/out" || fail "the copy's line is not in the diff"
grep -qxF -- '-build --conlyopt=-std=c11' "$work/out" || fail "the suite's line is not in the diff"
# shellcheck disable=SC2016  # the command as printed, not expanded
grep -qF 'cp "$(bazel info output_base)/external/cuda_perf/.bazelrc" .bazelrc' "$work/out" ||
  fail "the fix is not given"

# 3. No copy at all.
if bash "$check" "$suite_rc" "$work/none" >"$work/out" 2>&1; then fail "a missing copy passed"; fi
grep -qF "$work/none does not exist" "$work/out" || fail "the missing file is not named"

echo "ok: a true copy passes; an edited one fails with its diff and the cp that fixes it; a missing one fails"
