#!/usr/bin/env bash
# CPU test of reuse_test.sh on a host without a GPU (a stand-in benchmark that fails as the runner
# does there): it says that it is a GPU test and names --config=cpu, as the other GPU tests do,
# rather than report the failed self-checks of a run that never started.
set -u
reuse_test="$1"
work="${TEST_TMPDIR:-$(mktemp -d)}"
cat >"$work/bench" <<'BENCH'
#!/bin/sh
echo "$0: error: no usable CUDA device (cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime version): no CUDA device is visible. The benchmarks need an NVIDIA GPU with its driver: check CUDA_VISIBLE_DEVICES and nvidia-smi, or run the tests with --config=cpu (GPU tests left out); --benchmark_list_tests and --help work without one." >&2
exit 2
BENCH
chmod +x "$work/bench"
out="$(bash "$reuse_test" "$work/bench" 2>&1)"
rc=$?
echo "$out"
[ "$rc" -ne 0 ] || { echo "FAIL: exit 0 without a GPU"; exit 1; }
grep -q -- "--config=cpu" <<<"$out" || { echo "FAIL: the message does not name --config=cpu"; exit 1; }
grep -q "no CUDA GPU is usable here" <<<"$out" || { echo "FAIL: the message does not say there is no GPU"; exit 1; }
! grep -q "passed its self-check" <<<"$out" || { echo "FAIL: a run that never started reported as a failed check"; exit 1; }
echo "ok"
