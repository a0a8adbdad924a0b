#!/usr/bin/env bash
# shellcheck disable=SC2016,SC2015  # fake script text is literal; fail() exits
# CPU test of ci/gpu_model.sh with a fake nvidia-smi: the model string that keys cached
# correctness results (one model, a mixed host, no GPU, no driver, nvidia-smi's errors, which it prints on stdout).
set -euo pipefail
model="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
bin="${TEST_TMPDIR:-$(mktemp -d)}/bin"
mkdir -p "$bin"
fail() { echo "FAIL: $*"; exit 1; }

fake() {  # fake LINES...: an nvidia-smi that prints LINES for the name query, then exits $fake_status
  { echo '#!/bin/sh'; echo '[ "$1" = --query-gpu=name ] || exit 9'; for l in "$@"; do printf "echo \"%s\"\n" "$l"; done
    echo "exit ${fake_status:-0}"; } >"$bin/nvidia-smi"
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

# nvidia-smi's errors are on stdout, its status says so; some come with status 0 (a field it cannot read). None is a
# model: each is exit 2, saying what nvidia-smi said (they once became the "model" that keys the cache).
bad() {  # bad STATUS LINE: exit 2 naming the line
  fake_status="$1" fake "$2"
  set +e
  err="$(PATH="$bin:$PATH" "$model" 2>&1)"; st=$?
  set -e
  [ "$st" -eq 2 ] && [[ "$err" == *"$2"* ]] || fail "nvidia-smi printing '$2', status $1: status $st, '$err'"
}
bad 6 "No devices were found"
bad 0 "No devices were found"
bad 9 "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running."
bad 255 "Failed to initialize NVML: Driver/library version mismatch"
bad 0 "[Unknown Error]"
fake_status=0 fake "NVIDIA H200" "NVIDIA GeForce RTX 4090" "Tesla V100-SXM2-16GB"
got="$(PATH="$bin:$PATH" "$model")"
[ "$got" = "NVIDIA GeForce RTX 4090+NVIDIA H200+Tesla V100-SXM2-16GB" ] || fail "three models gave '$got'"

rm "$bin/nvidia-smi"
set +e
err="$(PATH="$bin:/usr/bin:/bin" "$model" 2>&1)"; st=$?
set -e
if ! command -v nvidia-smi >/dev/null 2>&1; then
  [ "$st" -eq 2 ] && [[ "$err" == *"nvidia-smi not found"* ]] || fail "no driver: status $st, '$err'"
fi
echo "ok: one model, mixed host, no GPU, no driver, nvidia-smi's errors"
