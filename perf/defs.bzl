"""perf_test: a family's benchmarks run through the regression gate inside `bazel test`."""

def perf_test(name, bench, args = [], **kwargs):
    """Runs `bench` under `gate check` against baselines/<gpu-slug>.json.

    Tagged gpu (needs a GPU), exclusive (nothing else runs on the machine
    meanwhile), perf, and external: Bazel never takes its result from a cache,
    because it depends on the GPU, not only on the code.
    Extra gate flags: --test_arg=--strict, --test_arg=--metric=copy_ratio, ...
    """
    native.sh_test(
        name = name,
        srcs = ["//perf:perf_test.sh"],
        args = [
            "$(location //perf/gate:gate)",
            "check",
            "--bench=$(location %s)" % bench,
            "--baselines=baselines",
        ] + args,
        data = [
            "//perf/gate:gate",
            bench,
            "//baselines",
        ],
        tags = ["gpu", "perf", "exclusive", "external"],
        timeout = "long",
        **kwargs
    )
