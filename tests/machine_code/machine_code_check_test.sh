#!/bin/bash
# The checker must pass good input and fail each kind of bad input.
check="$1"
d="$(dirname "$0")/testdata"
[ -d "$d" ] || d="tests/machine_code/testdata"
failures=0
expect() {  # expect EXIT_CODE description -- args...
  want=$1; what=$2; shift 3
  "$check" "$@" >/tmp/mcc.$$ 2>&1; got=$?
  if [ "$got" -eq "$want" ]; then echo "ok   $what"; else echo "FAIL $what: exit $got, want $want"; cat /tmp/mcc.$$; failures=$((failures+1)); fi
}
expect 0 "vectorised kernel with v4 loads and stores passes" -- --vector_loads=add_float4 --vector_stores=add_float4 "$d/vec.ptx"
expect 0 "v4 loads and stores with a cache operator (.cg) pass" -- --vector_loads=copy_float4 --vector_stores=copy_float4 "$d/cache_ops.ptx"
expect 1 "scalar loads with a cache operator fail" -- --vector_loads=copy_cg_scalar "$d/cache_ops.ptx"
expect 1 "scalar stores with a cache operator fail" -- --vector_stores=copy_cg_scalar "$d/cache_ops.ptx"
expect 1 "scalar loads in a kernel meant to be vectorised fail" -- --vector_loads=add_float4 "$d/scalar.ptx"
expect 1 "scalar stores in a kernel meant to be vectorised fail" -- --vector_stores=add_float4 "$d/scalar.ptx"
expect 1 "a pattern matching no kernel fails (no vacuous pass)" -- --vector_loads=renamed_kernel "$d/vec.ptx"
expect 0 "a report without spills passes" -- "$d/clean.resource_usage.txt"
expect 1 "a report with spills fails" -- "$d/spills.resource_usage.txt"
expect 0 "a report of a file with no kernels (host code only) passes" -- "$d/hostonly.resource_usage.txt"
expect 0 "a kernel found in one of several PTX files is enough" -- --vector_loads=add_float4 "$d/other.ptx" "$d/vec.ptx"
expect 1 "an empty report fails" -- "$d/empty.resource_usage.txt"
expect 2 "a missing file is a usage error" -- "$d/missing.ptx"
expect 2 "no files is a usage error" --
expect 2 "a bad regex is a usage error" -- --vector_loads='(' "$d/vec.ptx"
expect 0 "a TF32 mma.sync kernel with ldmatrix and cp.async passes" -- --tf32_mma=tf32_mma --ldmatrix=tf32_mma --cp_async=tf32_mma "$d/tensor.ptx"
expect 0 "a wgmma kernel fed by TMA passes" -- --wgmma=tf32_wgmma --tma=tf32_wgmma "$d/tensor.ptx"
expect 1 "a kernel claimed to use mma.sync that does not fails" -- --tf32_mma=fp32_kernel "$d/tensor.ptx"
expect 1 "a kernel claimed to use wgmma that does not (mma.sync only) fails" -- --wgmma=tf32_mma "$d/tensor.ptx"
expect 1 "a kernel claimed to use TMA that does not fails" -- --tma='tf32_mma|fp32' "$d/tensor.ptx"
expect 1 "a kernel claimed to use ldmatrix that does not fails" -- --ldmatrix=tf32_wgmma "$d/tensor.ptx"
expect 0 "SASS: only the newest arch is checked (an sm_90a-only kernel is empty for sm_80)" -- --wgmma=tf32_wgmma --tma=tf32_wgmma "$d/two_archs.sass"
expect 1 "SASS: a kernel without HGMMA in the newest arch fails" -- --wgmma='wgmma|fp32' "$d/two_archs.sass"
expect 0 "SASS: an m16n8k8 TF32 HMMA (HMMA.1688.F32.TF32), LDSM and LDGSTS pass" -- --tf32_mma=tf32_mma --ldmatrix=tf32_mma --cp_async=tf32_mma "$d/two_archs.sass"
expect 1 "SASS: a kernel without HMMA fails the TF32 mma check" -- --tf32_mma=fp32_kernel "$d/two_archs.sass"
expect 2 "an unknown kind is a usage error" -- --hmma=tf32_mma "$d/tensor.ptx"
rm -f /tmp/mcc.$$
echo "$failures failed"
[ "$failures" -eq 0 ]
