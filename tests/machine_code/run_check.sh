#!/bin/sh
# Runs machine_code_check (first argument) on the rest; a wrapper so sh_test can call a cc_binary.
exec "$@"
