"""Compiles CUDA C (.cu) with nvcc into objects that cc_library/cc_test link."""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

CudaArchsInfo = provider(fields = {"archs": "list of sm_XX / compute_XX strings"})

def _parse_archs(value):
    archs = [a.strip() for a in value.split(",") if a.strip()]
    if not archs:
        fail("--//third_party/cuda:archs is empty; give e.g. sm_80,sm_90,compute_90")
    for a in archs:
        kind, _, num = a.partition("_")
        if kind not in ("sm", "compute") or not num or not num.rstrip("af").isdigit():
            fail("--//third_party/cuda:archs: '%s' is not sm_NN or compute_NN (e.g. sm_90, sm_90a, compute_90)" % a)
    return archs

def _cuda_archs_impl(ctx):
    return CudaArchsInfo(archs = _parse_archs(ctx.build_setting_value))

cuda_archs = rule(
    implementation = _cuda_archs_impl,
    build_setting = config.string(flag = True),
)

def _arch_number(arch):
    return int(arch.partition("_")[2].rstrip("af"))

IntFlagInfo = provider(fields = {"value": "the flag's integer value"})

def _int_flag_impl(ctx):
    return IntFlagInfo(value = ctx.build_setting_value)

# An integer command-line setting a cuda_library can turn into a macro
# (e.g. the controlled slowdown used to prove the regression gate catches one).
int_flag = rule(implementation = _int_flag_impl, build_setting = config.int(flag = True))

def _gencode(arch):
    kind, _, num = arch.partition("_")
    return "-gencode=arch=compute_%s,code=%s" % (num, arch)

# Hopper's arch-specific features (wgmma, setmaxnreg) exist only in sm_90a code: a source listed in
# sm90a_srcs is built for sm_90a / compute_90a wherever the archs say sm_90 / compute_90. Such code runs
# on compute capability 9.0 alone, so its launchers must check the device (and fall back) themselves.
def _sm90a(arch):
    return arch + "a" if arch in ("sm_90", "compute_90") else arch

def _cuda_objects_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    archs = ctx.attr._archs[CudaArchsInfo].archs

    # Headers and include paths of C/C++ dependencies (kernel API headers).
    headers = list(ctx.files.hdrs)
    includes = [".", ctx.bin_dir.path, ctx.genfiles_dir.path]
    root = ctx.label.workspace_root  # "external/<repo>" when another workspace builds this one's kernels
    if root:
        includes += [root, ctx.bin_dir.path + "/" + root]
    for dep in ctx.attr.deps:
        cc = dep[CcInfo].compilation_context
        headers += cc.headers.to_list()
        includes += cc.includes.to_list() + cc.quote_includes.to_list() + cc.system_includes.to_list()

    # Machine-code checks look at the newest SASS arch built (PTX of the same version).
    sm = [a for a in archs if a.startswith("sm_")]
    check_arch = sorted(sm, key = _arch_number)[-1] if sm else "sm_90"
    flag_defines = ["-D%s=%d" % (macro, flag[IntFlagInfo].value) for flag, macro in ctx.attr.defines_from_flags.items()]
    objs, ptx, usage = [], [], []
    for src in ctx.files.srcs:
        sm90a = src.basename in ctx.attr.sm90a_srcs
        src_archs = [_sm90a(a) for a in archs] if sm90a else archs
        src_check_arch = _sm90a(check_arch) if sm90a else check_arch
        obj = ctx.actions.declare_file("_cuda_objs/%s/%s.o" % (ctx.label.name, src.basename[:-len(src.extension) - 1]))
        args = ctx.actions.args()
        args.add("-c", src)
        args.add("-o", obj)
        args.add("-ccbin", cc_toolchain.compiler_executable)
        args.add_all(["-O3", "-lineinfo", "-std=c++17", "-Xcompiler", "-fPIC", "-Werror=all-warnings"])
        args.add_all(src_archs, map_each = _gencode)
        args.add_all(includes, before_each = "-I", uniquify = True)
        args.add_all(ctx.attr.copts)
        args.add_all(flag_defines)
        ctx.actions.run(
            executable = ctx.executable._nvcc,
            arguments = [args],
            inputs = depset([src] + headers, transitive = [ctx.attr._nvcc_files.files, cc_toolchain.all_files] +
                                                          [d.files for d in ctx.attr.data]),
            outputs = [obj],
            mnemonic = "NvccCompile",
            progress_message = "nvcc %s" % src.short_path,
            use_default_shell_env = True,
        )
        objs.append(obj)
        ptx.append(_machine_code_action(ctx, src, headers, includes, flag_defines, "-ptx", "-arch=" + src_check_arch.replace("sm_", "compute_"), "ptx"))
        usage.append(_machine_code_action(ctx, src, headers, includes, flag_defines, "-cubin", "-arch=" + src_check_arch, "resource_usage.txt"))
    return [
        DefaultInfo(files = depset(objs), runfiles = ctx.runfiles(files = objs)),
        OutputGroupInfo(ptx = depset(ptx), resource_usage = depset(usage)),
    ]

def _machine_code_action(ctx, src, headers, includes, flag_defines, mode, arch, suffix):
    """PTX, or ptxas's resource report (registers, spills) for one arch, for the machine-code tests."""
    base = src.basename[:-len(src.extension) - 1]
    out = ctx.actions.declare_file("_cuda_objs/%s/%s.%s" % (ctx.label.name, base, suffix))
    cmd = [ctx.executable._nvcc.path, mode, arch, "-O3", "-std=c++17", "-ccbin", find_cpp_toolchain(ctx).compiler_executable]
    cmd += ["-I" + i for i in _uniq(includes)] + ctx.attr.copts + flag_defines + [src.path]
    if mode == "-ptx":
        cmd += ["-o", out.path]
        shell = " ".join(["'%s'" % c for c in cmd])
    else:
        # ptxas -v writes its report to stderr; keep it, drop the cubin.
        cmd += ["-Xptxas", "-v", "-o", "/dev/null"]
        shell = " ".join(["'%s'" % c for c in cmd]) + " 2> " + out.path + " || { cat " + out.path + " >&2; exit 1; }"
    ctx.actions.run_shell(
        command = shell,
        inputs = depset([src] + headers, transitive = [ctx.attr._nvcc_files.files, find_cpp_toolchain(ctx).all_files] +
                                                      [d.files for d in ctx.attr.data]),
        tools = [ctx.executable._nvcc],
        outputs = [out],
        mnemonic = "NvccMachineCode",
        progress_message = "nvcc %s %s" % (mode, src.short_path),
        use_default_shell_env = True,
    )
    return out

def _uniq(items):
    seen = {}
    for i in items:
        seen[i] = True
    return seen.keys()

cuda_objects = rule(
    implementation = _cuda_objects_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cu"]),
        "hdrs": attr.label_list(allow_files = [".h", ".cuh"]),
        "deps": attr.label_list(providers = [CcInfo]),
        "data": attr.label_list(allow_files = True, doc = "extra inputs, e.g. @local_cuda//:cccl"),
        "copts": attr.string_list(),
        "sm90a_srcs": attr.string_list(doc = "basenames of srcs built for sm_90a / compute_90a in place of sm_90 / compute_90"),
        "defines_from_flags": attr.label_keyed_string_dict(providers = [IntFlagInfo], doc = "int_flag -> macro name"),
        "_nvcc": attr.label(default = "@local_cuda//:nvcc_wrapper.sh", executable = True, allow_single_file = True, cfg = "exec"),
        "_nvcc_files": attr.label(default = "@local_cuda//:nvcc_files"),
        "_archs": attr.label(default = "//third_party/cuda:archs"),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    fragments = ["cpp"],
)

def cuda_library(name, srcs, hdrs = [], deps = [], data = [], copts = [], defines_from_flags = {}, sm90a_srcs = [], **kwargs):
    """A cc_library whose sources are CUDA C files compiled by nvcc.

    `hdrs` is the C API (usable from C11 host code); `deps` are cc_library
    targets whose headers the .cu files include. The CUDA runtime is linked.
    `sm90a_srcs`: basenames of srcs that use Hopper's arch-specific instructions (wgmma), built
    for sm_90a in place of sm_90 (their launchers check the device).
    """
    for a in sm90a_srcs:
        if not [s for s in srcs if s == a or s.endswith("/" + a) or s.endswith(":" + a)]:
            fail("cuda_library %s: sm90a_srcs names %s, which is not in srcs %s" % (name, a, srcs))
    cuda_objects(
        name = name + "_cuda",
        srcs = srcs,
        hdrs = hdrs,
        deps = deps,
        data = data,
        copts = copts,
        defines_from_flags = defines_from_flags,
        sm90a_srcs = sm90a_srcs,
        tags = kwargs.get("tags", []),
    )
    native.cc_library(
        name = name,
        srcs = [":" + name + "_cuda"],
        hdrs = hdrs,
        deps = deps + ["@local_cuda//:cudart"],
        linkstatic = True,
        **kwargs
    )
