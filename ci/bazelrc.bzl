"""suite_bazelrc_test: in a workspace that pins the suite with http_archive, a test that its .bazelrc is the
pinned suite's (examples/gate_my_kernels/README.md, "Depending on a pinned version")."""

_SUITE_BAZELRC = Label("//:.bazelrc")
_CHECK = Label("//ci:bazelrc_copy_check.sh")

def suite_bazelrc_test(name, bazelrc = ":.bazelrc", **kwargs):
    """A CPU test that fails when `bazelrc` (the workspace's .bazelrc: call it in the root BUILD) differs from
    the suite's .bazelrc at the pinned version, and says how to copy that one.

    Args:
      name: the test's name.
      bazelrc: the copy, a file of the calling package (default: its .bazelrc).
      **kwargs: more sh_test attributes (tags, size, ...).
    """
    suite_rc = str(_SUITE_BAZELRC)
    native.sh_test(
        name = name,
        size = kwargs.pop("size", "small"),
        srcs = [str(_CHECK)],
        args = ["$(location %s)" % suite_rc, "$(location %s)" % bazelrc],
        data = [suite_rc, bazelrc],
        **kwargs
    )
