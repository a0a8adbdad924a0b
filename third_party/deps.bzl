"""What a workspace that gates its own kernels with this suite declares in its WORKSPACE, after
local_repository(name = "cuda_perf", path = ...) (examples/gate_my_kernels/WORKSPACE)."""

load("//third_party:repositories.bzl", "local_check", "local_cuda", "local_jansson")

def cuda_perf_dependencies(suite_path):
    """The offline shims and the host dependencies (CUDA, Check, jansson) the suite builds with.

    suite_path: the suite's folder relative to the calling workspace, as given to local_repository
      (local_repository paths are relative to the main workspace, not to this file).
    """
    for shim in ["rules_cc", "rules_java", "remote_coverage_tools"]:
        native.local_repository(name = shim, path = suite_path + "/third_party/" + shim)
    local_cuda(name = "local_cuda")  # CUDA_PATH, default /usr/local/cuda
    local_check(name = "local_check")  # CHECK_ROOT, default /usr
    local_jansson(name = "local_jansson")  # JANSSON_ROOT, default /usr
