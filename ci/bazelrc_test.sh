#!/usr/bin/env bash
# The suite's .bazelrc is the one source of the build settings and configs (cpu, gpu, werror, remote,
# remote-exec) for the suite and for a workspace that gates its own kernels with it
# (examples/gate_my_kernels, issue #58: the example's copy had drifted):
#   - the example's .bazelrc imports the suite's, from the suite's folder as seen from the example
#     (its WORKSPACE takes the suite from there too: local_repository path "../..") with `import`, not
#     `try-import`: a wrong path must stop Bazel, not leave every setting out;
#   - it sets nothing itself: a copy of a setting is what drifted;
#   - every label in the suite's .bazelrc names the suite's repository (@cuda_perf//...), so that it
#     means the same target in a workspace that imports it (//ci:gpu_slot there is that workspace's).
#
#   bazelrc_test.sh SUITE_BAZELRC EXAMPLE_BAZELRC EXAMPLE_DIR (the example's folder in the suite)
set -euo pipefail
suite_rc="$1" example_rc="$2" example_dir="$3"
fail=0
problem() { echo "FAIL: $*"; fail=1; }

# Settings lines: neither comments nor blank.
settings() { grep -vE '^[[:space:]]*(#|$)' "$1" || true; }

# 1. The import: from the example's folder up to the suite's root.
up="$(sed 's#[^/][^/]*#..#g' <<<"${example_dir%/}")"
want="import %workspace%/$up/.bazelrc"
settings "$example_rc" | grep -qxF "$want" ||
  problem "the example's .bazelrc does not import the suite's: add the line '$want' ($example_dir in the suite)"

# 2. Nothing else: every setting comes from the suite's .bazelrc.
others="$(settings "$example_rc" | grep -vxF "$want" || true)"
[ -z "$others" ] || problem "the example's .bazelrc sets these itself; put them in the suite's .bazelrc (one source for both workspaces):
$others"

# 3. Labels in the suite's .bazelrc name its repository.
bare="$(grep -nE '(^|[[:space:]=,])//' "$suite_rc" | grep -vE '^[0-9]+:[[:space:]]*#' || true)"
[ -z "$bare" ] || problem "the suite's .bazelrc names labels of whichever workspace imports it; write them @cuda_perf//...:
$bare"

[ "$fail" -eq 0 ] || exit 1
echo "ok: the example's .bazelrc is the line '$want' and nothing else; the suite's names its labels @cuda_perf//"
