#!/usr/bin/env bash
# shellcheck disable=SC2016,SC2015  # fake script text is literal; fail() exits
# CPU test of ci/gpu_model.sh with a fake nvidia-smi: the model string that keys cached
# correctness results (one model, a mixed host, no GPU, no driver).
set -euo pipefail
model="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
bin="${TEST_TMPDIR:-$(mktemp -d)}/bin"
mkdir -p "$bin"
fail() { echo "FAIL: $*"; exit 1; }

fake() {  # fake LINES...: an nvidia-smi that prints LINES for the name query
  { echo '#!/bin/sh'; echo '[ "$1" = --query-gpu=name ] || exit 9'; for l in "$@"; do printf "echo '%s'\n" "$l"; done; } >"$bin/nvidia-smi"
  chmod +x "$bin/nvidia-smi"
}

fake "NVIDIA H200" "NVIDIA H200"
got="$(PATH="$bin:$PATH" "$model")"
[ "$got" = "NVIDIA H200" ] || fail "two H200s gave '$got'"

fake "NVIDIA H200" "NVIDIA A100-SXM4-80GB" "NVIDIA H200"
got="$(PATH="$bin:$PATH" "$model")"
[ "$got" = "NVIDIA A100-SXM4-80GB+NVIDIA H200" ] || fail "mixed host gave '$got'"

fake
set +e
err="$(PATH="$bin:$PATH" "$model" 2>&1)"; st=$?
set -e
[ "$st" -eq 2 ] && [[ "$err" == *"no GPU"* ]] || fail "no GPU: status $st, '$err'"

rm "$bin/nvidia-smi"
set +e
err="$(PATH="$bin:/usr/bin:/bin" "$model" 2>&1)"; st=$?
set -e
if ! command -v nvidia-smi >/dev/null 2>&1; then
  [ "$st" -eq 2 ] && [[ "$err" == *"nvidia-smi not found"* ]] || fail "no driver: status $st, '$err'"
fi
echo "ok: one model, mixed host, no GPU, no driver"
