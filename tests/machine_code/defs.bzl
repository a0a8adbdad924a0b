"""machine_code_test: checks a cuda_library's PTX, SASS and register spills."""

# The instruction kinds machine_code_check knows (its --KIND=ERE options).
MACHINE_CODE_KINDS = ["vector_loads", "vector_stores", "tf32_mma", "ldmatrix", "cp_async", "wgmma", "tma"]

def machine_code_test(name, library, vector_loads = None, vector_stores = None, instructions = {}):
    """Adds `name` (CPU: PTX + ptxas spill report) and `name`_sass (GPU host: SASS via cuobjdump).

    library: a cuda_library label (its objects are library + "_cuda").
    vector_loads / vector_stores: ERE over kernel names that must use 16-byte
    global loads / stores. instructions: {kind: ERE} for the other kinds of MACHINE_CODE_KINDS
    (e.g. {"tf32_mma": "tf32_mma"}): the kernels matching ERE must issue that kind's instructions.
    Every kernel in the library is checked for spills.
    """
    if ":" not in library:
        library = library + ":" + library.rsplit("/", 1)[-1]
    objs = library + "_cuda"
    checker = str(Label("//tests/machine_code:machine_code_check"))
    run_check = Label("//tests/machine_code:run_check.sh")
    for group in ["ptx", "resource_usage"]:
        native.filegroup(name = "%s_%s" % (name, group), srcs = [objs], output_group = group)
    wanted = dict(instructions)
    if vector_loads:
        wanted["vector_loads"] = vector_loads
    if vector_stores:
        wanted["vector_stores"] = vector_stores
    args = []
    for kind in MACHINE_CODE_KINDS:  # a fixed order: the same command line for the same rules
        if wanted.get(kind):
            args.append("--%s='%s'" % (kind, wanted[kind]))
    for kind in wanted:
        if kind not in MACHINE_CODE_KINDS:
            fail("machine_code_test %s: unknown instruction kind %r (known: %s)" % (name, kind, MACHINE_CODE_KINDS))
    native.sh_test(
        name = name,
        size = "small",
        srcs = [run_check],
        args = ["$(location %s)" % checker] + args +
               ["$(locations :%s_ptx)" % name, "$(locations :%s_resource_usage)" % name],
        data = [checker, ":%s_ptx" % name, ":%s_resource_usage" % name],
    )
    if args:
        native.sh_test(
            name = name + "_sass",
            size = "small",
            srcs = [run_check],
            args = ["$(location %s)" % checker] + args + ["$(locations %s)" % objs],
            data = [checker, objs],
            tags = ["gpu"],  # cuobjdump ships with the toolkits on GPU hosts
        )
