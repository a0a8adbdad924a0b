"""The build settings of the injected slowdowns (kernels/common/slowdown.cuh), as the
defines_from_flags of a cuda_library that has an injection point."""

SLOWDOWN_DEFINES = {
    "//kernels/common:slowdown_work_pct": "SLOWDOWN_WORK_PCT",
    "//kernels/common:slowdown_grid_pct": "SLOWDOWN_GRID_PCT",
    "//kernels/common:slowdown_launch_pct": "SLOWDOWN_LAUNCH_PCT",
}
