#!/usr/bin/env bash
# The test command: sets up a fresh Debian 12 machine, checks the sources' format, then runs every test.
#   ci/test.sh                 # on a GPU host: all tests, GPU ones included
#   ci/test.sh --config=cpu    # no GPU: GPU-tagged tests are built but not run
# Extra arguments go to `bazel test`; --config=gpu is added unless --config=cpu or --config=gpu is among them.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac # the header above is the usage
cd "$(dirname "$0")/.."
bash ci/setup.sh
# The sources' format first (.clang-format): a misformatted file fails the test command, says which and how to fix.
bash ci/apt_install.sh clang-format
bash ci/check_format.sh
# --config=gpu unless the caller chose the configuration: another --config (werror, remote) on a GPU host still
# needs the GPU slots and the GPU model's cache key.
config=(--config=gpu)
for a in "$@"; do case "$a" in --config=cpu | --config=gpu) config=() ;; esac; done
# On a GPU host: cached correctness results are keyed by the GPU model (.bazelrc, test:gpu).
if [ ${#config[@]} -gt 0 ] || [[ " $* " == *" --config=gpu "* ]]; then
  CUDA_PERF_GPU_MODEL="$(bash ci/gpu_model.sh)"
  export CUDA_PERF_GPU_MODEL
fi
exec bazel test //... "${config[@]}" "$@"
