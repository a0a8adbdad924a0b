"""What a workspace that gates its own kernels with this suite declares in its WORKSPACE, after it pulls the
suite in as "cuda_perf": local_repository(name = "cuda_perf", path = ...) (examples/gate_my_kernels/WORKSPACE)
or a pinned archive, http_archive(name = "cuda_perf", urls = ..., sha256 = ..., strip_prefix = ...)
(ci/make-archive.sh prints the stanza). The suite's own WORKSPACE calls it too."""

load("//third_party:repositories.bzl", "local_check", "local_cuda", "local_jansson")

# The offline shims: Bazel asks for these repositories by default and would download them; each is a folder of
# the suite, named here by a file at its root. A label, not a path: the suite has no path in a WORKSPACE that
# takes it from an archive (its files lie in Bazel's output base), and this label resolves to the suite
# however it was pulled in (in the suite's own WORKSPACE, to its main repository).
_SHIMS = {
    "rules_cc": Label("//third_party/rules_cc:WORKSPACE"),
    "rules_java": Label("//third_party/rules_java:WORKSPACE"),
    "remote_coverage_tools": Label("//third_party/remote_coverage_tools:WORKSPACE"),
}

def _suite_shim_impl(ctx):
    # The shim's folder in the suite, entry by entry (a repository's root cannot itself be a link).
    for entry in ctx.path(ctx.attr.marker).dirname.readdir():
        ctx.symlink(entry, entry.basename)

suite_shim = repository_rule(
    implementation = _suite_shim_impl,
    doc = "One of the suite's offline shims (third_party/<name>/) as a repository: links to its files.",
    attrs = {"marker": attr.label(mandatory = True, allow_single_file = True, doc = "a file at the shim's root")},
)

def cuda_perf_dependencies(suite_path = None):
    """The offline shims and the host dependencies (CUDA, Check, jansson) the suite builds with.

    suite_path: not needed; accepted, and unused, so that a WORKSPACE written when it was required (the
      suite's folder, for local_repository shims) keeps working. The shims are found through the suite's
      own labels, so the suite may come from local_repository, http_archive or git_repository alike.
    """
    _ = suite_path  # @unused
    for name, marker in _SHIMS.items():
        suite_shim(name = name, marker = marker)
    local_cuda(name = "local_cuda")  # CUDA_PATH, default /usr/local/cuda
    local_check(name = "local_check")  # CHECK_ROOT, default /usr
    local_jansson(name = "local_jansson")  # JANSSON_ROOT, default /usr
