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
rm -f /tmp/mcc.$$
echo "$failures failed"
[ "$failures" -eq 0 ]
