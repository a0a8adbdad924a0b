#!/bin/sh
# Runs the regression gate (first argument) with the rest; see perf/defs.bzl.
exec "$@"
