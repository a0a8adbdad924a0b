#!/usr/bin/env bash
# shellcheck disable=SC2016  # fake script text is literal
# CPU test of the test command, ci/test.sh, and the steps it runs first, in a copy of the scripts in a git
# repository of their own, with stand-ins for bazel, nvidia-smi, clang-format, apt-get and sudo, real dpkg-query
# reading a made-up package database (DPKG_ADMINDIR) and a CUDA_PATH with a fake nvcc:
#   - ci/test.sh adds --config=gpu unless --config=cpu or --config=gpu is given: another --config (werror, remote)
#     on a GPU host keeps it, with the GPU model for the cache key;
#   - ci/check_format.sh checks the repository's C files, and outside a git checkout is exit 2 (not "0 files").
#   - ci/apt_install.sh installs a package that is missing or removed with its config files left ("deinstall ok
#     config-files", for which dpkg -s exits 0), and not one installed.
#
#   test_command_test.sh TEST_SH SETUP_SH APT_INSTALL_SH CHECK_FORMAT_SH GPU_MODEL_SH
set -euo pipefail
work="${TEST_TMPDIR:-$(mktemp -d)}/test_command_test"
rm -rf "$work"
mkdir -p "$work/repo/ci" "$work/bin" "$work/cuda/bin" "$work/dpkg/info" "$work/dpkg/updates"
for f in "$@"; do cp -L "$f" "$work/repo/ci/"; done
repo="$work/repo"
export GIT_CEILING_DIRECTORIES="$work"  # no repository above the test's folder is ever found
unset CUDA_PERF_GPU_MODEL  # a GPU host's test run passes its own (.bazelrc, test:gpu): only ci/test.sh may set it here
git -C "$repo" init -q -b main
git -C "$repo" -c user.email=t@t -c user.name=t add -A
git -C "$repo" -c user.email=t@t -c user.name=t commit -qm scripts
fail() { echo "FAIL: $*"; exit 1; }

# Every package the scripts ask for, installed.
: >"$work/dpkg/status"
for p in bazel-bootstrap check libsubunit-dev libjansson-dev gnuplot-nox fonts-liberation zip python3-yaml clang-format; do
  printf 'Package: %s\nStatus: install ok installed\nMaintainer: t <t@t>\nArchitecture: all\nVersion: 1\nDescription: fake\n\n' \
    "$p" >>"$work/dpkg/status"
done
: >"$work/dpkg/available"
export DPKG_ADMINDIR="$work/dpkg"
command -v dpkg-query >/dev/null || fail "dpkg-query is not installed (Debian's dpkg)"
printf '#!/bin/sh\n' >"$work/cuda/bin/nvcc"
printf '#!/bin/sh\necho "$*" >>"%s/bazel_calls"\necho "CUDA_PERF_GPU_MODEL=${CUDA_PERF_GPU_MODEL:-}" >>"%s/bazel_calls"\n' \
  "$work" "$work" >"$work/bin/bazel"
printf '#!/bin/sh\necho "NVIDIA H200"\n' >"$work/bin/nvidia-smi"
printf '#!/bin/sh\nexit 0\n' >"$work/bin/clang-format"
printf '#!/bin/sh\necho "apt-get $*" >>"%s/apt_calls"\n' "$work" >"$work/bin/apt-get"
printf '#!/bin/sh\nexec "$@"\n' >"$work/bin/sudo"
chmod +x "$work/bin/"* "$work/cuda/bin/nvcc"
run() {  # run SCRIPT ARGS...: the script of the copy with the stand-ins; its status in $st, its output in $out
  local s="$1"
  shift
  set +e
  out="$(PATH="$work/bin:$PATH" CUDA_PATH="$work/cuda" bash "$repo/ci/$s" "$@" 2>&1)"
  st=$?
  set -e
}

# ci/test.sh: the configuration given to bazel test.
config() {  # config EXPECTED_BAZEL_ARGS EXPECTED_MODEL ARGS...
  local want="$1" model="$2"
  shift 2
  : >"$work/bazel_calls"
  run test.sh "$@"
  [ "$st" -eq 0 ] || fail "ci/test.sh $*: exit $st: $out"
  [ "$(cat "$work/bazel_calls")" = "test //... $want"$'\n'"CUDA_PERF_GPU_MODEL=$model" ] ||
    fail "ci/test.sh $*: bazel was run as: $(cat "$work/bazel_calls")"
}
config "--config=gpu" "NVIDIA H200"
config "--config=gpu --config=werror" "NVIDIA H200" --config=werror
config "--config=gpu --config=remote --remote_cache=grpc://c:9092" "NVIDIA H200" --config=remote --remote_cache=grpc://c:9092
config "--config=cpu --config=werror" "" --config=cpu --config=werror
config "--config=werror --config=gpu" "NVIDIA H200" --config=werror --config=gpu
echo "ok: ci/test.sh adds --config=gpu (and the GPU model) unless --config=cpu or --config=gpu is given"

# ci/check_format.sh: the files git lists; with no git checkout that is an error, not "0 files" that pass.
echo 'int x;' >"$repo/a.c"
git -C "$repo" -c user.email=t@t -c user.name=t add a.c
git -C "$repo" -c user.email=t@t -c user.name=t commit -qm a.c
run check_format.sh
[ "$st" -eq 0 ] && grep -q "check_format: 1 C and CUDA files follow" <<<"$out" || fail "check_format.sh in the repository: exit $st: $out"
mkdir -p "$work/nogit/ci"
cp "$repo/ci/check_format.sh" "$work/nogit/ci/"
echo 'int x;' >"$work/nogit/a.c"
set +e
out="$(PATH="$work/bin:$PATH" bash "$work/nogit/ci/check_format.sh" 2>&1)"; st=$?
set -e
[ "$st" -eq 2 ] && grep -q "check_format: git ls-files failed" <<<"$out" || fail "check_format.sh outside a git checkout: exit $st: $out"
echo "ok: ci/check_format.sh checks the files git lists; outside a git checkout it is exit 2"

# ci/apt_install.sh: only packages dpkg has installed count (dpkg -s exits 0 for one removed with its config files).
printf 'Package: %s\nStatus: deinstall ok config-files\nMaintainer: t <t@t>\nArchitecture: all\nVersion: 1\nDescription: fake\n\n' \
  removed-pkg >>"$work/dpkg/status"
: >"$work/apt_calls"
run apt_install.sh zip removed-pkg not-known-pkg
[ "$st" -eq 0 ] && grep -qx "setup: installing removed-pkg not-known-pkg" <<<"$out" &&
  grep -qx "apt-get install -y -qq --no-install-recommends removed-pkg not-known-pkg" "$work/apt_calls" ||
  fail "apt_install.sh zip removed-pkg not-known-pkg: exit $st: $out; apt-get calls: $(cat "$work/apt_calls")"
: >"$work/apt_calls"
run apt_install.sh zip clang-format
[ "$st" -eq 0 ] && [ ! -s "$work/apt_calls" ] || fail "apt_install.sh of installed packages ran apt-get: $(cat "$work/apt_calls")"
echo "ok: ci/apt_install.sh installs packages missing or removed (config files left), not installed ones"
