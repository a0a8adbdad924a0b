#!/bin/sh
echo "coverage is not supported in this offline workspace (remote_coverage_tools is a stub)" >&2
exit 1
