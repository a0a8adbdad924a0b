"""machine_code_test: checks a cuda_library's PTX, SASS and register spills."""

def machine_code_test(name, library, vector_loads = None, vector_stores = None):
    """Adds `name` (CPU: PTX + ptxas spill report) and `name`_sass (GPU host: SASS via cuobjdump).

    library: a cuda_library label (its objects are library + "_cuda").
    vector_loads / vector_stores: ERE over kernel names that must use 16-byte
    global loads / stores. Every kernel in the library is checked for spills.
    """
    if ":" not in library:
        library = library + ":" + library.rsplit("/", 1)[-1]
    objs = library + "_cuda"
    checker = str(Label("//tests/machine_code:machine_code_check"))
    run_check = Label("//tests/machine_code:run_check.sh")
    for group in ["ptx", "resource_usage"]:
        native.filegroup(name = "%s_%s" % (name, group), srcs = [objs], output_group = group)
    args = []
    if vector_loads:
        args.append("--vector_loads='%s'" % vector_loads)
    if vector_stores:
        args.append("--vector_stores='%s'" % vector_stores)
    native.sh_test(
        name = name,
        size = "small",
        srcs = [run_check],
        args = ["$(location %s)" % checker] + args +
               ["$(locations :%s_ptx)" % name, "$(locations :%s_resource_usage)" % name],
        data = [checker, ":%s_ptx" % name, ":%s_resource_usage" % name],
    )
    if vector_loads or vector_stores:
        native.sh_test(
            name = name + "_sass",
            size = "small",
            srcs = [run_check],
            args = ["$(location %s)" % checker] + args + ["$(locations %s)" % objs],
            data = [checker, objs],
            tags = ["gpu"],  # cuobjdump ships with the toolkits on GPU hosts
        )
