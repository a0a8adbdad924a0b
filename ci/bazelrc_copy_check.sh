#!/usr/bin/env bash
# A workspace that pins the suite with http_archive keeps a copy of the suite's .bazelrc as its own: Bazel reads
# .bazelrc files before it fetches anything, so an `import` cannot reach the pinned suite's file in Bazel's output
# base on a fresh clone (examples/gate_my_kernels/README.md, "Depending on a pinned version"). This check, the
# test of suite_bazelrc_test (ci/bazelrc.bzl), fails when the copy is not the pinned suite's file byte for byte,
# and says how to bring it back in line: after the pin moves, the suite's settings may have changed.
#
#   bazelrc_copy_check.sh SUITE_BAZELRC COPY   (exit 0: the same; 1: they differ, with the diff and the fix)
set -uo pipefail
suite_rc="$1" copy="$2"
for f in "$suite_rc" "$copy"; do
  [ -f "$f" ] || { echo "FAIL: $f does not exist"; exit 1; }
done
if cmp -s "$suite_rc" "$copy"; then
  echo "ok: this workspace's .bazelrc is the pinned suite's .bazelrc (@cuda_perf//:.bazelrc)"
  exit 0
fi
echo "FAIL: this workspace's .bazelrc is not the pinned suite's .bazelrc (@cuda_perf//:.bazelrc): the pin moved,"
echo "or the copy was edited (your own settings go in user.bazelrc, which the suite's .bazelrc reads). From the"
echo "workspace's root, take the pinned suite's file:"
echo "  cp \"\$(bazel info output_base)/external/cuda_perf/.bazelrc\" .bazelrc"
echo "--- the differences (- the pinned suite's, + this workspace's):"
diff -u --label "@cuda_perf//:.bazelrc" --label ".bazelrc" "$suite_rc" "$copy"
exit 1
