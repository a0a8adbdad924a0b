#!/usr/bin/env bash
# GPU test of shared set-ups (bench.h, reuse): the cases of one size share a set-up, each later
# variant's output is poisoned again (a variant that writes nothing fails its self-check, though
# the variant before it left the right answer there), and a failed case's state is not reused.
# Fails if the runner hands a state on without calling reuse, or reuses a failed case's state.
set -u
bench=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; echo "--- stderr"; cat "$out/err"; exit 1; }

"$bench" --benchmark_min_time=0.002s --contexts=2 --benchmark_format=json >"$out/json" 2>"$out/err"
rc=$?
# No GPU: say so, as the other GPU tests do (tests/support/gpu_check.c), not as a failed check.
if grep -q "no usable CUDA device" "$out/err"; then
  echo "FAIL reuse_test: this is a GPU test and no CUDA GPU is usable here ($(grep -o 'cudaGetDeviceCount: [^)]*' "$out/err"))."
  echo "  Run it on a GPU host, or leave GPU-tagged tests out: bazel test //... --config=cpu"
  exit 1
fi
[ "$rc" -eq 1 ] || fail "exit status $rc, want 1 (writes_nothing fails its self-check)"
for n in 4097 3; do
  grep -q "reuse/writes_nothing/N:$n.*self-check failed" "$out/err" || fail "writes_nothing N:$n passed its self-check"
  for v in copies copies_again; do
    grep -q "reuse/$v/N:$n.*ERROR" "$out/err" && fail "$v N:$n failed"
    grep -q "\"name\": \"reuse/$v/N:$n\"" "$out/json" || fail "$v N:$n is not in the report"
  done
done
# The first context: copies sets up each size, writes_nothing reuses it and fails (torn down),
# copies_again sets up anew. Each of the 2 more contexts measures the two copying variants (the
# failed one is left out): one set-up per size, reused by copies_again.
want="set up for copies N:4097
set up for copies N:3
reused for writes_nothing N:4097
reused for writes_nothing N:3
set up for copies_again N:4097
set up for copies_again N:3
set up for copies N:4097
set up for copies N:3
reused for copies_again N:4097
reused for copies_again N:3
set up for copies N:4097
set up for copies N:3
reused for copies_again N:4097
reused for copies_again N:3"
got=$(sed -n 's/^reuse_bench: //p' "$out/err")
[ "$got" = "$want" ] || fail "set-ups and reuses, got:
$got
want:
$want"
echo "PASS: shared set-ups, outputs poisoned again, failed states not reused"
