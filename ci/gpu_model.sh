#!/usr/bin/env bash
# Prints the GPU model(s) of this host, e.g. "NVIDIA H200" or "NVIDIA A100-SXM4-80GB+NVIDIA H200"
# for a mixed host. --config=gpu passes it to every test as CUDA_PERF_GPU_MODEL, so Bazel's
# cached correctness results are keyed by the GPU model. Exits 2, saying why, with no GPU or when nvidia-smi fails
# or prints something that is not a model name.
set -euo pipefail
if ! command -v nvidia-smi >/dev/null 2>&1; then
  echo "gpu_model: nvidia-smi not found: no NVIDIA driver on this host (without a GPU use --config=cpu)" >&2
  exit 2
fi
# nvidia-smi prints its errors on stdout ("No devices were found", a driver's failure): its status is checked, and
# each line must look like a model name (no "[Unknown Error]" field either), or the error became the cache key.
st=0
out="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)" || st=$?
names="$(sed 's/^ *//; s/ *$//' <<<"$out" | grep . || true)"
if [ "$st" -ne 0 ]; then
  echo "gpu_model: nvidia-smi failed (exit $st)${names:+: $(head -1 <<<"$names")} (without a GPU use --config=cpu)" >&2
  exit 2
fi
if [ -z "$names" ]; then
  echo "gpu_model: nvidia-smi lists no GPU (without a GPU use --config=cpu)" >&2
  exit 2
fi
bad="$(grep -v -E '^[A-Za-z0-9][A-Za-z0-9 ._()/-]{0,95}$' <<<"$names" || true)"
[ -n "$bad" ] || bad="$(grep -x 'No devices were found' <<<"$names" || true)"
if [ -n "$bad" ]; then
  echo "gpu_model: nvidia-smi printed what is not a GPU model name: $(head -1 <<<"$bad") (without a GPU use --config=cpu)" >&2
  exit 2
fi
sort -u <<<"$names" | paste -sd+
