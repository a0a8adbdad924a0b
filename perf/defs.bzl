"""perf_test: a family's benchmarks run through the regression gate inside `bazel test`."""

def perf_test(name, bench, args = [], **kwargs):
    """Runs `bench` under `gate check` against baselines/<gpu-slug>.json.

    Tagged gpu (needs a GPU), perf, external and no-remote-cache: Bazel never takes
    its result from a cache, local or remote, because it depends on the GPU,
    not only on the code. GPU_SLOT_EXCLUSIVE makes ci/gpu_slot.sh (the
    --run_under wrapper of --config=gpu) give it a GPU of its own: no other
    test runs on that GPU meanwhile, while other GPUs run other tests.
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
        env = {"GPU_SLOT_EXCLUSIVE": "1"},
        tags = ["gpu", "perf", "external", "no-remote-cache"],
        timeout = "long",
        **kwargs
    )
