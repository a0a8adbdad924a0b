#!/usr/bin/env bash
# Prints the GPU model(s) of this host, e.g. "NVIDIA H200" or "NVIDIA A100-SXM4-80GB+NVIDIA H200"
# for a mixed host. --config=gpu passes it to every test as CUDA_PERF_GPU_MODEL, so Bazel's
# cached correctness results are keyed by the GPU model. Exits 2, saying why, with no GPU.
set -euo pipefail
if ! command -v nvidia-smi >/dev/null 2>&1; then
  echo "gpu_model: nvidia-smi not found: no NVIDIA driver on this host (without a GPU use --config=cpu)" >&2
  exit 2
fi
model="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sed 's/^ *//; s/ *$//' | grep . | sort -u | paste -sd+ || true)"
if [ -z "$model" ]; then
  echo "gpu_model: nvidia-smi lists no GPU (without a GPU use --config=cpu)" >&2
  exit 2
fi
printf '%s\n' "$model"
