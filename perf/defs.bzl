"""perf_test: a family's benchmarks run through the regression gate inside `bazel test`."""

def perf_test(name, bench, args = [], baselines = None, baselines_dir = "baselines", **kwargs):
    """Runs `bench` under `gate check` against baselines/<gpu-slug>.json.

    Tagged gpu (needs a GPU), perf, external and no-remote-cache: Bazel never takes
    its result from a cache, local or remote, because it depends on the GPU,
    not only on the code. GPU_SLOT_EXCLUSIVE makes ci/gpu_slot.sh (the
    --run_under wrapper of --config=gpu) give it a GPU of its own: no other
    test runs on that GPU meanwhile, while other GPUs run other tests.
    Extra gate flags: --test_arg=--strict, --test_arg=--metric=copy_ratio, ...
    baselines, baselines_dir: the filegroup of <gpu-slug>.json files and their folder, relative to
    the workspace that holds them (default: this suite's //baselines, "baselines"); another
    workspace gives its own, e.g. "//baselines" and "baselines" in its root.
    """
    gate = str(Label("//perf/gate:gate"))
    if baselines == None:
        baselines = str(Label("//baselines"))
    native.sh_test(
        name = name,
        srcs = [Label("//perf:perf_test.sh")],
        args = [
            "$(location %s)" % gate,
            "check",
            "--bench=$(location %s)" % bench,
            "--baselines=" + baselines_dir,
        ] + args,
        data = [
            gate,
            bench,
            baselines,
        ],
        env = {"GPU_SLOT_EXCLUSIVE": "1"},
        tags = ["gpu", "perf", "external", "no-remote-cache"],
        timeout = "long",
        **kwargs
    )
