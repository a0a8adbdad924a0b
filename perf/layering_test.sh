#!/usr/bin/env bash
# Nothing in perf/ includes or depends on kernels/ or plots/ (#57): kernels/ uses perf/ (the runner, perf_test,
# the gate), and plots/ the gate's libraries, never the other way, so the runner and the gate build and test
# without a kernel or the renderer. Fails naming each C or CUDA include of "kernels/..." or "plots/..." and each
# //kernels or //plots label in a BUILD or .bzl file of perf/ (comments and visibility grants aside: a grant
# lets them use perf/). Args: the files of perf/.
set -euo pipefail
[ $# -gt 0 ] || { echo "layering_test: no files given" >&2; exit 2; }
bad=()
for f in "$@"; do
  case "$f" in
    *.c | *.h | *.cu | *.cuh) hits="$(grep -n '#[[:space:]]*include[[:space:]]*"\(kernels\|plots\)/' "$f" || true)" ;;
    */BUILD | *.bzl) hits="$(grep -n '//\(kernels\|plots\)' "$f" | grep -v '^[0-9]*:[[:space:]]*#' | grep -v '__pkg__\|__subpackages__' || true)" ;;
    *) hits="" ;;
  esac
  [ -z "$hits" ] || while IFS= read -r h; do bad+=("$f:$h"); done <<<"$hits"
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "layering_test: perf/ reaches into kernels/ or plots/ (move the piece to where both may use it, e.g. tests/support):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "layering_test: $# files of perf/, none reaches into kernels/ or plots/"
