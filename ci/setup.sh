#!/usr/bin/env bash
# Installs what the build needs on a Debian 12 machine (idempotent; root or sudo).
# The CUDA toolkit is not a Debian package: it must already be at $CUDA_PATH.
set -euo pipefail

# zip: Bazel packs the tests' undeclared outputs (perf run JSON, verdicts) with it; without it they are lost.
# python3-yaml: ci/workflow_check.py reads the GitHub workflows.
bash "$(dirname "$0")/apt_install.sh" bazel-bootstrap check libsubunit-dev libjansson-dev gnuplot-nox \
  fonts-liberation zip python3-yaml

cuda="${CUDA_PATH:-/usr/local/cuda}"
if [ ! -x "$cuda/bin/nvcc" ]; then
  echo "setup: no CUDA toolkit at $cuda (bin/nvcc missing): install CUDA 13 there or set CUDA_PATH" >&2
  exit 2
fi
