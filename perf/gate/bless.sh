#!/bin/sh
# `bazel run //perf/gate:bless -- --baselines=DIR RUN.json...`: the gate's bless command.
gate="$1"
shift
exec "$gate" bless "$@"
