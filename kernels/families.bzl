"""The kernel families. A family is its folder under kernels/ (a cuda_library named after it and a
`variants` table), tests/<family>_test.c and perf/<family>_bench.c; this list makes its Check
test, its benchmark binary and its perf test."""

load("//perf:defs.bzl", "perf_test")

FAMILIES = ["elementwise", "copy", "reduce", "dot", "transpose", "matmul"]

def family_test(family):
    """//tests:<family>_test, the family's Check test against an fp64 CPU reference (needs a GPU)."""
    native.cc_test(
        name = family + "_test",
        size = "medium",
        srcs = [family + "_test.c"],
        # The fp64 references of the largest cases (a 1024^3 matmul: ~1e9 multiply-adds) take about a
        # second optimised and far longer at fastbuild's -O0.
        copts = ["-O2"],
        env = {"GPU_SLOT_SHARED": "1"},  # ci/gpu_slot.sh: shares a GPU, never with a perf test
        timeout = "long",  # the wait for the GPU counts: perf tests go first
        tags = ["gpu"],
        deps = [
            "//kernels/%s" % family,
            "//kernels/%s:variants" % family,
            "//tests/support:gpu_check",
            "//tests/support:host_check",
        ],
    )

def family_bench(family):
    """//perf:<family>_bench, the family's benchmark binary, and //perf:<family>_perf_test, which
    runs it through the regression gate."""
    native.cc_binary(
        name = family + "_bench",
        srcs = [family + "_bench.c"],
        deps = [
            ":runner",
            "//kernels/%s" % family,
            "//kernels/%s:variants" % family,
        ],
    )
    perf_test(
        name = family + "_perf_test",
        bench = ":" + family + "_bench",
    )
