"""The kernel families: the one list of them. A family is its folder, kernels/<family>/, whose BUILD
calls kernel_family (kernels/defs.bzl); its name here puts its benchmark binary in the CLI test
(//kernels:cli_test)."""

FAMILIES = ["elementwise", "copy", "reduce", "dot", "transpose", "matmul", "scale"]

def family_targets(suffix):
    """The label of each family's target <family><suffix>, e.g. family_targets("_bench")."""
    return ["//kernels/%s:%s%s" % (f, f, suffix) for f in FAMILIES]
