"""kernel_family: everything a kernel family declares, from one call in kernels/<family>/BUILD.

A family is its folder, kernels/<family>/:
  <family>.cu, <family>.h          the kernels, behind an extern "C" launcher per variant
  <family>_variants.c, .h          the table of variants that the Check test and the benchmark loop over
  <family>_test.c                  the Check test (fp64 CPU reference; needs a GPU)
  <family>_bench.c                 the benchmark binary (perf/runner/bench.h)
  BUILD                            kernel_family(name = "<family>")
and, in this suite, its name in FAMILIES (kernels/families.bzl). kernels/scale is the smallest
family to copy.
"""

load("//kernels:families.bzl", "FAMILIES")
load("//perf:defs.bzl", "in_this_suite", "perf_test")
load("//tests/machine_code:defs.bzl", "machine_code_test")
load("//third_party/cuda:cuda.bzl", "cuda_library")

# The keys of a vector_kernels entry besides "name": "loads" and "stores" (16-byte global loads and stores),
# and the instruction kinds of machine_code_check (tests/machine_code/defs.bzl).
_ENTRY_KINDS = {"loads": "vector_loads", "stores": "vector_stores", "tf32_mma": "tf32_mma", "ldmatrix": "ldmatrix",
                "cp_async": "cp_async", "wgmma": "wgmma", "tma": "tma"}

_VECTOR_KERNELS_FORMAT = ('vector_kernels = [{"name": "<k>", "loads": "<ERE>", "stores": "<ERE>"}] ' +
                          '(a list of dicts; "name" names the test :machine_code_<k>; "loads" and "stores", ' +
                          'either of which may be left out, are EREs over the names of the kernels that must ' +
                          "issue 16-byte global loads and stores; as in the suite's kernels/scale/BUILD; " +
                          '"tf32_mma", "ldmatrix", "cp_async", "wgmma" and "tma" likewise name the kernels that ' +
                          "must issue those instructions, as in kernels/matmul/BUILD)")

def families_error(name, families, in_suite):
    """The message when `name` is missing from its families list, else ""."""
    if families == None or name in families:
        return ""
    if in_suite:
        return "kernel family %s: add \"%s\" to FAMILIES in kernels/families.bzl" % (name, name)
    return ("kernel family %s: add \"%s\" to the families argument of kernel_family in this BUILD " +
            "(families = %s), or leave that argument out") % (name, name, families)

def vector_kernels_error(name, vector_kernels):
    """The message when vector_kernels is not a list of dicts in the expected format, else ""."""
    if type(vector_kernels) != "list":
        return "kernel family %s: vector_kernels is a %s; want %s" % (name, type(vector_kernels), _VECTOR_KERNELS_FORMAT)
    names = []
    for i, k in enumerate(vector_kernels):
        what = ""
        if type(k) != "dict":
            what = "is a %s (%r)" % (type(k), k)
        elif type(k.get("name")) != "string" or not k.get("name"):
            what = "has no \"name\" string"
        elif k["name"] in names:
            what = "repeats the name \"%s\"" % k["name"]
        else:
            names.append(k["name"])
            for key in k:
                if key != "name" and key not in _ENTRY_KINDS:
                    what = "has the key %r (known: \"name\", %s)" % (key, ", ".join(['"%s"' % k for k in _ENTRY_KINDS]))
                    break
                if type(k[key]) != "string":
                    what = "has a %s as \"%s\"" % (type(k[key]), key)
                    break
        if what:
            return "kernel family %s: vector_kernels entry %d %s; want %s" % (name, i, what, _VECTOR_KERNELS_FORMAT)
    return ""

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
      :<name>_perf_test    the benchmark run through the regression gate (perf/defs.bzl; tagged gpu),
                           with :<name>_perf_test_baselines, its baselines, checked at analysis
                           time to lie in baselines_dir
      :machine_code_<k>    per entry of vector_kernels, a machine-code check (PTX, CPU) that the kernels matching its
                           patterns issue 16-byte global loads/stores (or the tensor-core, ldmatrix,
                           cp.async, wgmma or TMA instructions it names) and that no kernel of the family
                           spills, and :machine_code_<k>_sass, the same on the SASS (tagged gpu);
                           without vector_kernels, one machine-code check for spills, :machine_code_spills.

    families: the list `name` must be in. In this suite it defaults to FAMILIES (kernels/families.bzl);
      in another workspace it is optional: that workspace's own list of families, e.g.
      families = ["negate"]; when it is given, a name missing from it fails the build.
    baselines, baselines_dir: the filegroup of the workspace's <gpu-slug>.json files and their folder,
      relative to the workspace root (perf/defs.bzl). In this suite they default to //baselines and
      "baselines"; another workspace must give its own (e.g. "//baselines" and "baselines", with a
      baselines/BUILD filegroup holding *.json and a README.md), or the build fails.
    perf_args: extra `gate check` flags of the family's perf test (e.g. ["--warmup=0.1"], matmul's); its
      baselines must then be blessed from runs made with them.
    vector_kernels: a list of dicts {"name": k, "loads": ERE, "stores": ERE} ("loads" or "stores" may
      be left out), e.g. [{"name": "scale_float4", "loads": "scale_float4", "stores": "scale_float4"}];
      an entry may also name kernels that must issue "tf32_mma", "ldmatrix", "cp_async", "wgmma" or
      "tma" instructions (kernels/matmul/BUILD);
      one test target per entry, so a renamed kernel fails its own target instead of hiding
      behind another's match. Anything else fails the build with the expected format.
    """
    in_suite = in_this_suite()
    if families == None and in_suite:
        families = FAMILIES  # this suite's own families
    error = families_error(name, families, in_suite) or vector_kernels_error(name, vector_kernels)
    if error:
        fail(error)
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
            Label("//tests/support:host_check"),
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
            instructions = {_ENTRY_KINDS[key]: k[key] for key in k if key != "name"},
        )
    if not vector_kernels:
        machine_code_test(
            name = "machine_code_spills",
            library = ":" + name,
        )
