"""kernel_family: everything a kernel family declares, from one call in kernels/<family>/BUILD.

A family is its folder, kernels/<family>/:
  <family>.cu, <family>.h          the kernels, behind an extern "C" launcher per variant
  <family>_variants.c, .h          the table of variants that the Check test and the benchmark loop over
  <family>_test.c                  the Check test (fp64 CPU reference; needs a GPU)
  <family>_bench.c                 the benchmark binary (perf/runner/bench.h)
  BUILD                            kernel_family(name = "<family>")
and its name in FAMILIES (kernels/families.bzl).
"""

load("//kernels:families.bzl", "FAMILIES")
load("//perf:defs.bzl", "perf_test")
load("//tests/machine_code:defs.bzl", "machine_code_test")
load("//third_party/cuda:cuda.bzl", "cuda_library")

def kernel_family(
        name,
        families = None,
        baselines = None,
        baselines_dir = "baselines",
        srcs = None,
        hdrs = None,
        deps = [],
        variants_deps = [],
        vector_kernels = [],
        perf_args = [],
        **kwargs):
    """Declares, in kernels/<name>/:

      :<name>              the cuda_library (srcs, default <name>.cu; hdrs, default <name>.h;
                           //kernels/common:launch and `deps`; other arguments, such as data or
                           defines_from_flags, go to cuda_library)
      :variants            the variant table, <name>_variants.c/.h (deps: the family, variants_deps)
      :<name>_test         the Check test, <name>_test.c (tagged gpu)
      :<name>_bench        the benchmark binary, <name>_bench.c
      :<name>_perf_test    the benchmark run through the regression gate (perf/defs.bzl; tagged gpu)
      :machine_code_<k>    per entry of vector_kernels, a PTX check (CPU) that the kernels matching its
                           patterns issue 16-byte global loads/stores and that no kernel of the family
                           spills, and :machine_code_<k>_sass, the same on the SASS (tagged gpu);
                           without vector_kernels, one spill check, :machine_code_spills.

    families: the list `name` must be in (default: FAMILIES, for this suite's own families; another
      workspace that calls kernel_family gives its own list, or leaves it out).
    baselines, baselines_dir: where the perf test finds <gpu-slug>.json (perf/defs.bzl).
    perf_args: extra `gate check` flags of the family's perf test (e.g. ["--warmup=0.1"], matmul's); its
      baselines must then be blessed from runs made with them.
    vector_kernels: dicts {"name": k, "loads": ERE, "stores": ERE} ("loads" or "stores" may be left
      out); one test target per entry, so a renamed kernel fails its own target instead of hiding
      behind another's match.
    """
    if families == None and native.repository_name() == "@":
        families = FAMILIES  # this suite's own families
    if families != None and name not in families:
        fail("kernel family %s: add its name to FAMILIES in kernels/families.bzl (or to the list given as families)" % name)
    launch = Label("//kernels/common:launch")
    public = ["//visibility:public"]  # the kernels, the table and the benchmark: tools and tests use them
    cuda_library(
        name = name,
        srcs = srcs if srcs != None else [name + ".cu"],
        hdrs = hdrs if hdrs != None else [name + ".h"],
        deps = [launch] + [d for d in deps if d != "//kernels/common:launch" and d != launch],
        visibility = public,
        **kwargs
    )

    # The variant table(s) that the Check test and the benchmark share.
    native.cc_library(
        name = "variants",
        srcs = [name + "_variants.c"],
        hdrs = [name + "_variants.h"],
        deps = [":" + name] + variants_deps,
        visibility = public,
    )

    native.cc_test(
        name = name + "_test",
        size = "medium",
        srcs = [name + "_test.c"],
        # The fp64 references of the largest cases (a 1024^3 matmul: ~1e9 multiply-adds) take about a
        # second optimised and far longer at fastbuild's -O0.
        copts = ["-O2"],
        env = {"GPU_SLOT_SHARED": "1"},  # ci/gpu_slot.sh: shares a GPU, never with a perf test
        timeout = "long",  # the wait for the GPU counts: perf tests go first
        tags = ["gpu"],
        deps = [
            ":" + name,
            ":variants",
            Label("//kernels/common:host_check"),
            Label("//tests/support:gpu_check"),
        ],
    )

    native.cc_binary(
        name = name + "_bench",
        srcs = [name + "_bench.c"],
        deps = [
            ":" + name,
            ":variants",
            Label("//perf/runner"),
        ],
        visibility = public,
    )

    perf_test(
        name = name + "_perf_test",
        bench = ":" + name + "_bench",
        args = perf_args,
        baselines = baselines,
        baselines_dir = baselines_dir,
    )

    for k in vector_kernels:
        machine_code_test(
            name = "machine_code_" + k["name"],
            library = ":" + name,
            vector_loads = k.get("loads"),
            vector_stores = k.get("stores"),
        )
    if not vector_kernels:
        machine_code_test(
            name = "machine_code_spills",
            library = ":" + name,
        )
