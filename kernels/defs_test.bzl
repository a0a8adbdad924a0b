"""defs_test: the messages with which kernel_family and perf_test refuse bad arguments, checked on the
CPU without a failing build (a build that fails cannot be a test target in Bazel 4): the checks are
plain functions of kernels/defs.bzl and perf/defs.bzl, called here at analysis time; the test prints
each case whose message lacks the words it must hold, and fails if there is one."""

load("//kernels:defs.bzl", "families_error", "vector_kernels_error")
load("//perf:defs.bzl", "baselines_files_error", "baselines_undeclared_error")

def _cases():
    """(what was called, its message, the words the message must hold; [] for none)."""
    return [
        ('vector_kernels = ["x"]', vector_kernels_error("f", ["x"]), [
            "kernel family f: vector_kernels entry 0 is a string (\"x\")",
            'vector_kernels = [{"name": "<k>", "loads": "<ERE>", "stores": "<ERE>"}]',
        ]),
        ('vector_kernels = {"name": "x"}', vector_kernels_error("f", {"name": "x"}), ["vector_kernels is a dict", "a list of dicts"]),
        ('vector_kernels = [{"loads": "a"}]', vector_kernels_error("f", [{"loads": "a"}]), ["entry 0 has no \"name\" string"]),
        ('a "load" key', vector_kernels_error("f", [{"name": "a"}, {"name": "b", "load": "a"}]), ["entry 1 has the key \"load\""]),
        ("a name twice", vector_kernels_error("f", [{"name": "a"}, {"name": "a"}]), ["entry 1 repeats the name \"a\""]),
        ("a list of loads", vector_kernels_error("f", [{"name": "a", "loads": ["x"]}]), ["entry 0 has a list as \"loads\""]),
        ("scale's vector_kernels", vector_kernels_error("scale", [{"name": "scale_float4", "loads": "scale_float4", "stores": "scale_float4"}]), []),
        ("no vector_kernels", vector_kernels_error("f", []), []),
        ("a tensor-core entry", vector_kernels_error("matmul", [{"name": "t", "tf32_mma": "t", "ldmatrix": "t", "wgmma": "w", "tma": "w"}]), []),
        ('a "hmma" key', vector_kernels_error("f", [{"name": "a", "hmma": "a"}]), ["entry 0 has the key \"hmma\"", '"tf32_mma"']),
        ("a suite family not in FAMILIES", families_error("negate", ["scale"], True), ["add \"negate\" to FAMILIES in kernels/families.bzl"]),
        ("a family of another workspace not in families", families_error("negate", ["other"], False), [
            "add \"negate\" to the families argument of kernel_family",
        ]),
        ("another workspace without families", families_error("negate", None, False), []),
        ("a family in its list", families_error("negate", ["negate"], False), []),
        ("no baselines in another workspace", baselines_undeclared_error("perf test //kernels/negate:negate_perf_test"), [
            "perf test //kernels/negate:negate_perf_test: give kernel_family",
            "baselines = \"//baselines\", baselines_dir = \"baselines\"",
            "baselines/BUILD",
        ]),
        ("the suite's baselines seen from another workspace", baselines_files_error("t", "@cuda_perf//baselines:baselines", "baselines", ["../cuda_perf/baselines/a.json"]), [
            "no file of baselines = \"@cuda_perf//baselines:baselines\" lies in baselines_dir = \"baselines\"",
            "kernel_family",
        ]),
        ("baselines_dir naming another folder", baselines_files_error("t", "//baselines", "perf/baselines", ["baselines/README.md"]), ["lies in baselines_dir = \"perf/baselines\""]),
        ("an empty filegroup", baselines_files_error("t", "//baselines", "baselines", []), ["(its files: none)"]),
        ("a folder with only its README", baselines_files_error("t", "//baselines", "baselines", ["baselines/README.md"]), []),
        ("a nested folder", baselines_files_error("t", "//perf/baselines", "perf/baselines", ["perf/baselines/h100.json"]), []),
    ]

def _defs_test_impl(ctx):
    bad = []
    for what, message, want in _cases():
        if not want and message:
            bad.append("%s: want no message, got: %s" % (what, message))
        for words in want:
            if words not in message:
                bad.append("%s: want a message holding [%s], got: [%s]" % (what, words, message))
    lines = ["#!/bin/sh", "cat <<'END_OF_REPORT'"] + bad + [
        "%d of %d cases as expected" % (len(_cases()) - len(bad), len(_cases())),
        "END_OF_REPORT",
        "exit %d" % (1 if bad else 0),
    ]
    ctx.actions.write(ctx.outputs.executable, "\n".join(lines) + "\n", is_executable = True)
    return [DefaultInfo(executable = ctx.outputs.executable)]

defs_test = rule(implementation = _defs_test_impl, test = True)
