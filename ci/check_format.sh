#!/usr/bin/env bash
# The C and CUDA sources follow .clang-format (clang-format 14, Debian 12's): lists the files that do not, and
# exits 1; `ci/check_format.sh --fix` formats them. ci/test.sh runs it first.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check_format: clang-format is not installed (ci/setup.sh installs it)" >&2; exit 2; }
# Not in a process substitution, whose failure went unseen: a tree without .git passed with "0 files".
listed="$(git ls-files '*.c' '*.h' '*.cu' '*.cuh')" ||
  { echo "check_format: git ls-files failed: run it in a git checkout of the suite" >&2; exit 2; }
files=()
[ -z "$listed" ] || mapfile -t files < <(grep -v '^third_party/\|^examples/' <<<"$listed")
if [ "${1:-}" = --fix ]; then clang-format -i "${files[@]}"; exit 0; fi
bad=()
for f in "${files[@]}"; do clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f"); done
if [ ${#bad[@]} -gt 0 ]; then
  echo "check_format: ${#bad[@]} file(s) do not follow .clang-format; run ci/check_format.sh --fix:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check_format: ${#files[@]} C and CUDA files follow .clang-format"
