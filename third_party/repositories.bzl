"""Repository rules that find the host's CUDA toolkit, Check and jansson.

Nothing is downloaded: each rule looks under a root given by an environment
variable (with a Debian default) and fails with one line naming that variable.
"""

def _root(ctx, var, default):
    return ctx.os.environ.get(var, default).rstrip("/") or "/"

def _find(ctx, root, names, subdirs, var, what):
    """Returns the first existing root/subdir/name, or fails naming `var`."""
    for sub in subdirs:
        for name in names:
            p = ctx.path(root + "/" + sub + "/" + name)
            if p.exists:
                return p
    fail("%s not found under %s (looked for %s in %s): install it or set %s to its root" %
         (what, root, " or ".join(names), ", ".join(subdirs), var))

_LIB_DIRS = ["lib/x86_64-linux-gnu", "lib64", "lib"]

def _local_cuda_impl(ctx):
    root = _root(ctx, "CUDA_PATH", "/usr/local/cuda")
    nvcc = ctx.path(root + "/bin/nvcc")
    if not nvcc.exists:
        fail("CUDA toolkit not found: %s/bin/nvcc does not exist; set CUDA_PATH to the toolkit root" % root)
    libdir = "lib64" if ctx.path(root + "/lib64/libcudart_static.a").exists else "lib"
    for d in ["bin", "include", "nvvm"]:
        ctx.symlink(root + "/" + d, d)
    ctx.symlink(root + "/" + libdir, "lib")
    for lib in ["libcudart_static.a"]:
        if not ctx.path("lib/" + lib).exists:
            fail("CUDA toolkit at %s has no %s/%s; set CUDA_PATH to a complete toolkit" % (root, libdir, lib))
    version = ctx.execute([str(nvcc), "--version"]).stdout
    # nvcc finds cicc, ptxas and its headers relative to the path it is run by,
    # so run it by its real path (absolute paths live only in this generated repository).
    # Each nvcc gets its own TMPDIR: its temporary names derive from the pid, and
    # sandboxed actions in separate pid namespaces would otherwise collide in /tmp.
    ctx.file("nvcc_wrapper.sh", """#!/bin/sh
tmp="$(mktemp -d "${TMPDIR:-/tmp}/nvcc.XXXXXXXX")" || exit 1
TMPDIR="$tmp" '%s' "$@"
rc=$?
rm -rf "$tmp"
exit $rc
""" % nvcc.realpath, executable = True)
    ctx.file("version.txt", version)
    ctx.template("BUILD", ctx.attr._build_tpl, {"%{cuda_lib_dir}": root + "/" + libdir})

local_cuda = repository_rule(
    implementation = _local_cuda_impl,
    environ = ["CUDA_PATH"],
    local = True,
    attrs = {"_build_tpl": attr.label(default = "//third_party:cuda.BUILD.tpl")},
)

def _static_lib_repo(ctx, var, what, headers, libs, build):
    root = _root(ctx, var, "/usr")
    for h in headers:
        found = _find(ctx, root, [h], ["include"], var, what + " header")
        ctx.symlink(found, "include/" + h)
    for lib in libs:
        found = _find(ctx, root, [lib], _LIB_DIRS, var, what + " static library")
        ctx.symlink(found, "lib/" + lib)
    ctx.file("BUILD", build)

def _local_check_impl(ctx):
    _static_lib_repo(
        ctx,
        "CHECK_ROOT",
        "Check (Debian: check, libsubunit-dev)",
        ["check.h", "check_stdint.h"],
        ["libcheck.a", "libsubunit.a"],
        """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "check",
    srcs = ["lib/libcheck.a", "lib/libsubunit.a"],
    hdrs = ["include/check.h", "include/check_stdint.h"],
    includes = ["include"],
    linkopts = ["-lm", "-lrt", "-lpthread"],
)
""",
    )

local_check = repository_rule(
    implementation = _local_check_impl,
    environ = ["CHECK_ROOT"],
    local = True,
)

def _local_jansson_impl(ctx):
    _static_lib_repo(
        ctx,
        "JANSSON_ROOT",
        "jansson (Debian: libjansson-dev)",
        ["jansson.h", "jansson_config.h"],
        ["libjansson.a"],
        """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "jansson",
    srcs = ["lib/libjansson.a"],
    hdrs = ["include/jansson.h", "include/jansson_config.h"],
    includes = ["include"],
)
""",
    )

local_jansson = repository_rule(
    implementation = _local_jansson_impl,
    environ = ["JANSSON_ROOT"],
    local = True,
)
