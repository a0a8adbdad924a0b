"""perf_test: a family's benchmarks run through the regression gate inside `bazel test`."""

def in_this_suite():
    """True when the BUILD file being loaded belongs to this suite's own repository (the main
    workspace when the suite is built on its own, @cuda_perf when another workspace pulls it in)."""
    return native.repository_name() == "@" + Label("//perf:defs.bzl").workspace_name

def baselines_undeclared_error(test):
    """The message for a perf test of another workspace that names no baselines (defaults are this
    suite's own, which another workspace cannot read)."""
    return ("%s: give kernel_family (or perf_test) this workspace's own baselines: " % test +
            "baselines = \"//baselines\", baselines_dir = \"baselines\", and a baselines/BUILD with " +
            "filegroup(name = \"baselines\", srcs = glob([\"*.json\"]) + [\"README.md\"], " +
            "visibility = [\"//visibility:public\"]) and a baselines/README.md " +
            "(see the suite's examples/gate_my_kernels/README.md)")

def baselines_files_error(test, baselines, baselines_dir, short_paths):
    """The message when no file of the baselines filegroup lies in baselines_dir (relative to the
    workspace root, as the perf test reads it), else ""."""
    inside = [p for p in short_paths if p.startswith(baselines_dir + "/")]
    if inside:
        return ""
    found = ", ".join(short_paths[:3]) if short_paths else "none"
    where = "%s: no file of baselines = \"%s\" lies in baselines_dir = \"%s\" (its files: %s), so " % (
        test,
        baselines,
        baselines_dir,
        found,
    )
    return where + ("the perf test would find no baselines folder on the GPU. Fix the kernel_family " +
                    "(or perf_test) arguments: baselines is a filegroup of the folder's <gpu-slug>.json " +
                    "files and a README.md (which keeps the folder there before the first bless), " +
                    "baselines_dir that folder, relative to the workspace root (e.g. \"//baselines\" " +
                    "and \"baselines\")")

def _baselines_folder_impl(ctx):
    files = ctx.files.srcs
    error = baselines_files_error(
        ctx.attr.test,
        ctx.attr.label,
        ctx.attr.dir,
        [f.short_path for f in files],
    )
    if error:
        fail(error)
    return [DefaultInfo(files = depset(files), runfiles = ctx.runfiles(files = files))]

# The baselines filegroup, checked at analysis time (so on the CPU, by any build) to lie in the
# folder that the perf test is told to read.
_baselines_folder = rule(
    implementation = _baselines_folder_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = True),
        "dir": attr.string(mandatory = True),
        "label": attr.string(),
        "test": attr.string(),
    },
)

def perf_test(name, bench, args = [], baselines = None, baselines_dir = "baselines", **kwargs):
    """Runs `bench` under `gate check` against baselines/<gpu-slug>.json.

    Tagged gpu (needs a GPU), perf, external and no-remote-cache: Bazel never takes
    its result from a cache, local or remote, because it depends on the GPU,
    not only on the code. GPU_SLOT_EXCLUSIVE makes ci/gpu_slot.sh (the
    --run_under wrapper of --config=gpu) give it a GPU of its own: no other
    test runs on that GPU meanwhile, while other GPUs run other tests.
    Extra gate flags: --test_arg=--strict, --test_arg=--metric=copy_ratio, ...
    baselines, baselines_dir: the filegroup of <gpu-slug>.json files and their folder, relative to
    the workspace that holds them. In this suite they default to its //baselines, "baselines";
    another workspace must give its own, e.g. "//baselines" and "baselines" in its root, or the
    build fails. The build also fails (on the CPU too) when no file of the filegroup lies in
    baselines_dir: keep a README.md in the filegroup for the time before the first bless.
    """
    repo = native.repository_name()
    test = "perf test %s//%s:%s" % (repo if repo != "@" else "", native.package_name(), name)
    if baselines == None:
        if not in_this_suite():
            fail(baselines_undeclared_error(test))
        baselines = str(Label("//baselines"))
    _baselines_folder(
        name = name + "_baselines",
        srcs = [baselines],
        dir = baselines_dir,
        label = baselines,
        test = test,
        testonly = True,
    )
    gate = str(Label("//perf/gate:gate"))
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
            ":" + name + "_baselines",
        ],
        env = {"GPU_SLOT_EXCLUSIVE": "1"},
        tags = ["gpu", "perf", "external", "no-remote-cache"],
        timeout = "long",
        **kwargs
    )
