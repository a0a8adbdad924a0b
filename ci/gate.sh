#!/usr/bin/env bash
# The main job on a GPU runner: build every kernel, prove it correct, run each
# family's benchmarks through the regression gate against the baseline of this
# GPU, then gather the artifacts (run JSON, verdicts, summaries, JUnit, logs),
# append history rows for an accepted run on the main branch, and render charts
# and an HTML report (artifacts/report/index.html).
#
#   ci/gate.sh [--workspace=DIR] [--artifacts=DIR] [--history] [--against=REV | --baseline] [--dry_run] [BAZEL FLAGS...]
#
#   --dry_run        a rehearsal that needs no GPU: builds the tools (and the base, where A/B needs it), says the
#                    testbed (PERF_TESTBED names the runner's) and how each benchmark would be judged, runs no test
#
#   --workspace=DIR  the Bazel workspace to gate (default: this suite's own checkout). Another workspace pulls
#                    the suite in as repository "cuda_perf" (local_repository, or a pinned http_archive) and
#                    declares its families with the suite's kernel_family, in kernels/<family>/
#                    (examples/gate_my_kernels): the job builds
#                    the suite's tools there as @cuda_perf//perf/tools:testbed, @cuda_perf//perf/gate:gate and
#                    @cuda_perf//plots:render, reads DIR/baselines/ (history: DIR/baselines/history/), runs git
#                    in DIR's repository (DIR may be a folder of it: the base is built in that folder of its
#                    worktree), and takes its own helper scripts (report.sh, ...) from this script's folder.
#                    Paths given to the job (--artifacts) are taken from DIR, as they are from the suite's root.
#   --artifacts=DIR  where to put results (default: artifacts/): a new or empty folder, or one an
#                    earlier job wrote (.cuda-perf-artifacts); the job replaces its results there
#   --history        append this run to baselines/history/<gpu>.csv if the gate passed
#                    (CI does this on the main branch only; not in A/B mode)
#   --against=REV    A/B: judge every benchmark against revision REV measured on this runner's own GPU
#                    instead of against the baseline: REV is built in a worktree (sharing a disk
#                    cache, so unchanged targets are not rebuilt), and each family's benchmarks of both
#                    sides run in turn in one perf test (perf/gate/ab.c). Only benchmarks whose timed
#                    work differs (kernels' machine code, launches, memsets, copies: BENCH
#                    --fingerprint_out) are measured; the rest are "unchanged". The default when the
#                    baselines have no run of this runner's testbed (its class of host,
#                    perf/runner/testbed.h), with REV the merge base with $PERF_MAIN_BRANCH (default:
#                    origin/main, else main; on the main branch itself, main's previous commit, HEAD^1).
#                    When they have runs of it, the benchmarks they have no run of (gate testbeds
#                    --uncovered) are judged A/B against that base in the same perf tests; the base is
#                    built whenever there is one, and a reading against other GPU kinds alone is settled
#                    A/B too. BAZEL FLAGS apply to the change only;
#                    the base is built with --config=gpu and $PERF_AB_BAZEL_FLAGS.
#   --baseline       never A/B: judge against the baseline alone (a benchmark it has no run of this
#                    testbed of is then NOT JUDGED, and each perf test says so)
# Also keeps the GPU slot records of the run (artifacts/slots.log: test, GPU, lock, start, end)
# and their summary by ci/slots_report.sh (artifacts/slots.txt).
# The exit status is also written to artifacts/exit_status (ci/bless.sh reads it).
# Exit status: Bazel's (0 all passed, 3 a test failed: a regression or a wrong kernel), except
# 5 when every test passed but the report could not be rendered or history rows could not be
# appended, or the GPU slot records show a perf test sharing its GPU (then no history row is
# appended) (summary.md says which, at the top); 2 bad input or a tool that cannot be found.
# BAZEL may name another Bazel command (e.g. an offline bundle's, see docs/ci.md); then
# no packages are installed.
set -euo pipefail
suite="$(cd "$(dirname "$0")/.." && pwd)"  # the suite's checkout: its scripts (ci/*.sh) come from here
workspace="$suite"

artifacts=artifacts
history=0
dry_run=0
against=""
mode=auto
bazel_flags=()
for a in "$@"; do
  case "$a" in
    -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; # the header above is the usage
    --workspace=*) workspace="${a#--workspace=}"
                   [ -n "$workspace" ] || { echo "gate: --workspace= needs a folder (the Bazel workspace to gate)" >&2; exit 2; } ;;
    --artifacts=*) artifacts="${a#--artifacts=}" ;;
    --history) history=1 ;;
    --against=*) [ "$mode" != baseline ] || { echo "gate: --against and --baseline: choose one (A/B, or never A/B)" >&2; exit 2; }
                 against="${a#--against=}"; mode=ab
                 [ -n "$against" ] || { echo "gate: --against= needs a revision (e.g. --against=origin/main)" >&2; exit 2; } ;;
    --baseline) [ "$mode" != ab ] || { echo "gate: --against and --baseline: choose one (A/B, or never A/B)" >&2; exit 2; }
                mode=baseline ;;
    --dry_run) dry_run=1 ;;
    *) bazel_flags+=("$a") ;;
  esac
done
[ "$workspace" = "$suite" ] || [ -f "$workspace/WORKSPACE" ] || [ -f "$workspace/WORKSPACE.bazel" ] ||
  { echo "gate: --workspace=$workspace: not a Bazel workspace (no WORKSPACE file in it)" >&2; exit 2; }
cd "$workspace"
# The suite's targets: //perf/gate:gate here in the suite, @cuda_perf//perf/gate:gate in a workspace that pulls it
# in (its WORKSPACE names it cuda_perf, as its .bazelrc and BUILD files do); their outputs lie under
# bazel-bin/external/cuda_perf/ there.
suite_repo="" suite_bin=""
if [ "$(pwd -P)" != "$(cd "$suite" && pwd -P)" ]; then suite_repo="@cuda_perf" suite_bin="external/cuda_perf/"; fi

read -r -a bazel <<<"${BAZEL:-bazel}"
# A/B builds the base in another folder: a Bazel command given as a path in this repository
# (an offline bundle's run-bazel.sh) must work from there too.
for i in "${!bazel[@]}"; do
  case "${bazel[$i]}" in /*) ;; *) [ -f "${bazel[$i]}" ] && bazel[$i]="$PWD/${bazel[$i]}" ;; esac
done
[ -n "${BAZEL:-}" ] || bash "$suite/ci/setup.sh"
# The job removes the results of an earlier job from its folder, so it writes only into a folder it owns: a new or
# empty one, or one an earlier job marked (.cuda-perf-artifacts). --artifacts=. once deleted ./perf and ./tests,
# sources and all (#56 D12).
if [ -d "$artifacts" ] && [ ! -f "$artifacts/.cuda-perf-artifacts" ] && [ -n "$(ls -A "$artifacts")" ]; then
  echo "gate: --artifacts=$artifacts: the folder holds files no earlier job of ci/gate.sh wrote (it has no" \
    ".cuda-perf-artifacts), and the job replaces what it finds there: give a new or empty folder" >&2
  exit 2
fi
mkdir -p "$artifacts" && touch "$artifacts/.cuda-perf-artifacts" ||
  { echo "gate: --artifacts=$artifacts: cannot create the folder or write in it" >&2; exit 2; }
artifacts="$(cd "$artifacts" && pwd)"
# Results of an earlier job must not mix with this one's.
rm -rf "$artifacts/perf" "$artifacts/tests" "$artifacts/report" "$artifacts/summary.md" "$artifacts/bazel_test.log" \
  "$artifacts/slots.log" "$artifacts/slots.txt" "$artifacts/report.log" "$artifacts/trends.json" "$artifacts/trends.log" \
  "$artifacts/exit_status"
# The job's final status, on every way out from here: ci/bless.sh reads it, so that it never blesses the runs of a
# failed job. Written whole (temp + mv); a status that cannot be written fails a job that passed (5).
# shellcheck disable=SC2317  # run by the trap
write_status() {
  local st="$1"
  { echo "$st" >"$artifacts/exit_status.tmp" && mv -f "$artifacts/exit_status.tmp" "$artifacts/exit_status"; } 2>/dev/null || {
    echo "gate: cannot write $artifacts/exit_status" >&2
    [ "$st" -ne 0 ] || st=5
  }
  exit "$st"
}
trap 'write_status $?' EXIT
# CI systems name the commit (e.g. GITHUB_SHA -> PERF_COMMIT); else ask git.
PERF_COMMIT="${PERF_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}"
export PERF_COMMIT
# Cached correctness results are keyed by the GPU model (.bazelrc, test:gpu); no GPU stops here.
if [ "$dry_run" -eq 1 ]; then  # a rehearsal may run where there is no GPU: it runs no test
  CUDA_PERF_GPU_MODEL="$(bash "$suite/ci/gpu_model.sh" 2>/dev/null)" || CUDA_PERF_GPU_MODEL="none (dry run)"
else
  CUDA_PERF_GPU_MODEL="$(bash "$suite/ci/gpu_model.sh")" || exit 2
fi
export CUDA_PERF_GPU_MODEL

# The runner's testbed, and whether the baselines have runs of it: if not, A/B against the merge base.
"${bazel[@]}" build "$suite_repo//perf/tools:testbed" "$suite_repo//perf/gate:gate" --config=gpu "${bazel_flags[@]}" \
  >"$artifacts/build_tools.log" 2>&1 ||
  { cat "$artifacts/build_tools.log"
    echo "gate: $suite_repo//perf/tools:testbed or $suite_repo//perf/gate:gate did not build${suite_repo:+ (does $PWD/WORKSPACE pull the suite in as repository \"cuda_perf\"?)}" >&2
    exit 2; }
# Checked: under set -e a failed assignment would end the job without a word.
bin="$("${bazel[@]}" info bazel-bin --config=gpu "${bazel_flags[@]}" 2>/dev/null)" ||
  { echo "gate: bazel info bazel-bin failed (exit $?), so the suite's tools cannot be found" >&2; exit 2; }
gate_bin="$bin/${suite_bin}perf/gate/gate"
testbed="$("$bin/${suite_bin}perf/tools/testbed")" || exit 2
echo "gate: this runner's testbed: $testbed"
main_branch() {
  local main="${PERF_MAIN_BRANCH:-}"
  if [ -z "$main" ]; then
    main=main
    git rev-parse -q --verify origin/main >/dev/null && main=origin/main
  fi
  echo "$main"
}
# The base to A/B against: the merge base of HEAD with the main branch; on the main branch itself (HEAD is that
# merge base, the work tree unchanged) HEAD's first parent, the change that landed last, so that a main-branch job on
# a GPU kind the baseline has no run of settles its readings as a branch's job does (an unchanged H200 of a new
# kind read 3.8-5.7 % slower than the baseline's other kind and failed, 2026-11-28). Empty when there is none (no
# merge base, or HEAD is the first commit).
on_main_itself() {
  [ "$(git rev-parse HEAD 2>/dev/null)" = "$(git merge-base HEAD "$(main_branch)" 2>/dev/null)" ] &&
    git diff --quiet HEAD -- 2>/dev/null
}
base_revision() {
  if on_main_itself; then
    git rev-parse -q --verify 'HEAD^1^{commit}' 2>/dev/null || true
  else
    git merge-base HEAD "$(main_branch)" 2>/dev/null || true
  fi
}
base_words="the merge base"
! on_main_itself || base_words="main's previous commit"
merge_base() {  # the base (above), or exit 2 saying what to do
  local b
  b="$(base_revision)"
  [ -n "$b" ] ||
    { echo "gate: $1, and there is nothing to A/B against (no merge base of HEAD and $(main_branch), or HEAD is its first commit): give --against=REV, set PERF_MAIN_BRANCH, or pass --baseline to leave them unjudged (docs/gate.md)" >&2; exit 2; }
  echo "$b"
}
# Which comparison side judges each benchmark (docs/gate.md): the baseline's runs of this testbed; where it has none
# of a benchmark, A/B against the merge base in the same perf test; with no run of the testbed at all, A/B for
# every benchmark. The base is built only when some benchmark needs it.
ab_all=0
uncovered=""
kinds_only=0
# Both builds of an A/B share a disk cache, so the base rebuilds only what the change touched.
cache="${PERF_AB_DISK_CACHE:-${HOME:-${TMPDIR:-/tmp}}/.cache/cuda-perf-ab}"
mkdir -p "$cache"
if [ "$mode" = auto ]; then
  baseline_file=""
  for f in baselines/*.json baselines/*/; do  # a file, or a folder of a file per family (docs/gate.md)
    [ -e "$f" ] && [ "$f" != baselines/history/ ] || continue
    f="${f%/}"
    st=0
    "$gate_bin" testbeds --has_runs="$testbed" "$f" || st=$?
    [ "$st" -le 1 ] || { echo "gate: $f: the baseline could not be read (gate testbeds, exit $st)" >&2; exit 2; }
    if [ "$st" -eq 0 ]; then baseline_file="$f"; break; fi
  done
  if [ -z "$baseline_file" ]; then
    mode=ab
    ab_all=1
    against="$(merge_base "the baselines have no run of this testbed")"
    echo "gate: the baselines have no run of this testbed: every benchmark A/B against $base_words, $(git rev-parse --short=12 "$against")"
  else
    mode=baseline
    "${bazel[@]}" build //kernels/... --config=gpu --disk_cache="$cache" "${bazel_flags[@]}" >>"$artifacts/build_tools.log" 2>&1 ||
      { tail -20 "$artifacts/build_tools.log"; echo "gate: //kernels/... did not build" >&2; exit 1; }
    benches=()
    for b in "$bin"/kernels/*/*_bench; do [ -x "$b" ] && benches+=("$b"); done
    uncovered="$("$gate_bin" testbeds --uncovered="$testbed" "$baseline_file" ${benches[@]+"${benches[@]}"})" || exit 2
    if [ -n "$uncovered" ]; then
      against="$(merge_base "$(grep -c . <<<"$uncovered") benchmark(s) have no run of this testbed in $baseline_file")"
      echo "gate: $(grep -c . <<<"$uncovered") benchmark(s) have no run of this testbed in $baseline_file: judged A/B against $base_words, $(git rev-parse --short=12 "$against"):"
      sed 's/^/  /' <<<"$uncovered"
    elif against="$(base_revision)" && [ -n "$against" ]; then
      # Not needed to judge, but at hand: a reading of other GPU kinds alone (the GPU kind of this GPU
      # has no run in the baseline) is settled A/B against it (docs/gate.md).
      kinds_only=1
      echo "gate: $base_words, $(git rev-parse --short=12 "$against"), is built too: a reading of other kinds of GPU alone is settled A/B against it"
    else
      against=""
      ! on_main_itself ||
        echo "gate: main's previous commit is not in this clone (HEAD is the first commit, or the clone is shallow): a reading of other kinds of GPU alone is judged as measured, against them"
    fi
  fi
elif [ "$mode" = ab ]; then
  ab_all=1
fi
ab_flags=(--disk_cache="$cache")
ab_perf_flags=()
if [ -n "$against" ]; then
  base_rev="$(git rev-parse --verify -q "$against^{commit}")" ||
    { echo "gate: --against=$against: not a revision of this repository (fetch it, or give a commit)" >&2; exit 2; }
  base_short="$(git rev-parse --short=12 "$base_rev")"
  # The base's worktree is the job's own ground: under the user's cache folder (not a shared /tmp where anyone
  # can plant one: #56 A11), set up one job at a time (A04), and reused only when it is a worktree of this
  # repository at the base with nothing changed in it (A01); a stale registration is pruned first (A02).
  wt_root="${PERF_AB_WORKTREES:-${XDG_CACHE_HOME:-${HOME:-${TMPDIR:-/tmp}}/.cache}/cuda-perf-ab-worktrees}"
  worktree="${PERF_AB_WORKTREE:-$wt_root/$base_short}"
  mkdir -p "$wt_root" "$(dirname "$worktree")" && chmod 700 "$wt_root" ||
    { echo "gate: cannot create $wt_root for the base's worktree" >&2; exit 2; }
  exec 9>"$wt_root/.lock" && flock 9 || { echo "gate: cannot lock $wt_root/.lock" >&2; exit 2; }
  git worktree prune
  # The workspace's folder in the base's worktree: the workspace may be a folder of its repository.
  prefix="$(git rev-parse --show-prefix)"
  if [ -e "$worktree" ] && [ -n "$(ls -A "$worktree" 2>/dev/null)" ]; then
    registered="$(git worktree list --porcelain)"
    if ! { grep -qxF "worktree $(cd "$worktree" && pwd -P)" <<<"$registered" ||
           grep -qxF "worktree $(cd "$worktree" && pwd)" <<<"$registered"; } || [ ! -O "$worktree" ]; then
      echo "gate: $worktree is not a worktree of this repository made by this user: move it away, or set" \
        "PERF_AB_WORKTREE to another folder (its files are left as they are)" >&2
      exit 2
    fi
    if [ "$(git -C "$worktree" rev-parse HEAD 2>/dev/null)" != "$base_rev" ] ||
       [ -n "$(git -C "$worktree" status --porcelain --untracked-files=normal 2>/dev/null)" ]; then
      echo "gate: the worktree $worktree is not $base_short as committed (another commit, or changes): made anew"
      git worktree remove --force "$worktree" ||
        { echo "gate: could not remove the stale worktree $worktree" >&2; exit 2; }
    else
      # Ignored files are not in that status, yet Bazel reads some (a user.bazelrc planted there is imported by
      # .bazelrc's try-import): all go, but the bazel-* links of the base's workspace.
      git -C "$worktree" clean -ffdxq -e "/${prefix}bazel-*" ||
        { echo "gate: could not clean the worktree $worktree of its untracked and ignored files" >&2; exit 2; }
    fi
  fi
  if [ ! -e "$worktree" ] || [ -z "$(ls -A "$worktree" 2>/dev/null)" ]; then
    git worktree add --detach "$worktree" "$base_rev" >/dev/null ||
      { echo "gate: could not make a worktree of $base_short at $worktree" >&2; exit 2; }
  fi
  read -r -a base_flags <<<"${PERF_AB_BAZEL_FLAGS:-}"
  base_ws="$worktree${prefix:+/${prefix%/}}"
  if [ -n "$suite_repo" ] && [ ! -f "$base_ws/WORKSPACE" ] && [ ! -f "$base_ws/WORKSPACE.bazel" ]; then
    # The change adds the workspace: the base has no benchmark, so every family is new to it (perf/gate/ab.c).
    echo "gate: the base, $base_short, has no workspace in ${prefix:-the root of its repository}: every family is new to it"
    base_bin="$wt_root/no-workspace"
    mkdir -p "$base_bin"
  else
    echo "gate: building the base, $base_short, in $base_ws"
    # The lock is held until the base is built (another job must not remove or clean the worktree under this
    # build); Bazel does not get its descriptor, or a server it starts would hold the lock after the job.
    (cd "$base_ws" && "${bazel[@]}" build //kernels/... --config=gpu --disk_cache="$cache" ${base_flags[@]+"${base_flags[@]}"}) \
      >"$artifacts/build_base.log" 2>&1 9>&- ||
      { tail -20 "$artifacts/build_base.log"; echo "gate: the base, $base_short, did not build (artifacts/build_base.log)" >&2; exit 2; }
    base_bin="$(cd "$base_ws" && "${bazel[@]}" info bazel-bin --config=gpu ${base_flags[@]+"${base_flags[@]}"} 2>/dev/null 9>&-)" ||
      { echo "gate: bazel info bazel-bin failed in $base_ws, so the base's build cannot be found" >&2; exit 2; }
  fi
  flock -u 9
  # Only the perf tests need to know the base (the correctness tests' cached results stay valid).
  ab_perf_flags=(--test_env=PERF_AB_BASE="$base_bin" --test_env=PERF_AB_AGAINST="$base_short"
                 --test_env=PERF_AB_ALL="$ab_all")
fi

if [ "$dry_run" -eq 1 ]; then
  # What the job would do, without a GPU: its testbed (PERF_TESTBED names the runner's), how each benchmark would
  # be judged, the base built where A/B needs one; no test runs, nothing is collected or appended.
  echo "gate: dry run: GPU model: $CUDA_PERF_GPU_MODEL; testbed: $testbed"
  if [ "$mode" = ab ]; then
    echo "gate: dry run: every benchmark would be A/B-tested against ${base_short:-$against} on the runner's GPU"
  elif [ -n "$uncovered" ]; then
    echo "gate: dry run: judged against $baseline_file; $(grep -c . <<<"$uncovered") benchmark(s) A/B against ${base_short:-$against}"
  else
    echo "gate: dry run: judged against ${baseline_file:-the baselines}${against:+; a reading of other GPU kinds alone A/B against $against}"
  fi
  echo "gate: dry run: the tests it would run: bazel test //... --config=gpu (the correctness tests, then the perf tests)"
  echo "gate: dry run: nothing was tested, collected or appended"
  exit 0
fi

# Outputs of this job's tests only: a perf test that ran writes its test.log anew; the logs of earlier jobs
# are removed first, so one filtered out this time (or a family since removed) is never collected or appended
# to the history. (A stamp's mtime did that once; a clock stepping back, or a test in the stamp's second, fooled it.)
testlogs="$("${bazel[@]}" info bazel-testlogs --config=gpu "${bazel_flags[@]}" 2>/dev/null)" || { echo "gate: bazel info bazel-testlogs failed" >&2; exit 2; }
rm -f "$testlogs"/kernels/*/*_perf_test/test.log
slot_log="${GPU_SLOT_DIR:-/tmp/cuda-perf-gpu-locks}/slots.log"
since="$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)"
# Two passes of one command: first everything but the perf tests (they build every target, and the
# correctness tests share the GPU with each other), then the perf tests, each alone on its GPU. In one
# pass the correctness tests built after the first perf test queued waited for every perf test (the slot
# rule that keeps perf tests from starving), and ran after them: 18 of 156 s of an H100's test wall.
# A build failure stops the job; failed tests do not keep the perf tests from running. Tag filters
# of the caller's choosing make one pass of them (two would run the perf tests twice).
passes=(--test_tag_filters=-perf --test_tag_filters=perf)
for f in "${bazel_flags[@]}"; do case "$f" in --test_tag_filters=*) passes=("$f") ;; esac; done
first=("${ab_flags[@]}")
[ ${#passes[@]} -eq 2 ] || first+=("${ab_perf_flags[@]}")  # one pass: the perf tests are in it
# --test_arg is for the perf tests (the gate's policy: --test_arg=--family_tolerance=reduce=0.07); given to the
# correctness tests too, it made 42 of them fail on their unknown argument (2026-11-28, a 2-GPU H200).
first_flags=()
for f in ${bazel_flags[@]+"${bazel_flags[@]}"}; do
  case "$f" in --test_arg=*) [ ${#passes[@]} -eq 1 ] && first_flags+=("$f") ;; *) first_flags+=("$f") ;; esac
done
set +e
"${bazel[@]}" test //... --config=gpu "${passes[0]}" "${first[@]}" ${first_flags[@]+"${first_flags[@]}"} 2>&1 |
  tee "$artifacts/bazel_test.log"
status=${PIPESTATUS[0]}
if [ ${#passes[@]} -eq 2 ] && { [ "$status" -eq 0 ] || [ "$status" -eq 3 ]; }; then
  "${bazel[@]}" test //... --config=gpu "${passes[1]}" "${ab_flags[@]}" "${ab_perf_flags[@]}" "${bazel_flags[@]}" 2>&1 |
    tee -a "$artifacts/bazel_test.log"
  perf_status=${PIPESTATUS[0]}
  [ "$status" -ne 0 ] || status=$perf_status
fi
set -e

# Problems of the job itself (slot records, collecting, history, report): summary.md lists them first, and a job
# whose tests passed fails with exit 5.
problems=()
# Which test ran on which GPU, and when: the slot records of this run (those that started after
# it began; ISO times compare as strings), and their summary. Tests of other jobs on this host in
# that time are in it too: they shared the GPUs.
if [ -r "$slot_log" ]; then
  awk -v since="$since" '{ for (i = 1; i <= NF; i++) if ($i ~ /^start=/ && substr($i, 7) >= since) print }' \
    "$slot_log" >"$artifacts/slots.log" || problems+=("slots: could not read the GPU slot records in $slot_log")
  if [ -s "$artifacts/slots.log" ]; then
    st=0
    bash "$suite/ci/slots_report.sh" "$artifacts/slots.log" >"$artifacts/slots.txt" 2>&1 || st=$?
    tail -n 4 "$artifacts/slots.txt"
    # An overlap means a perf test did not have its GPU to itself: its timings, and any history row from them,
    # cannot be trusted (docs/ci.md).
    if [ "$st" -eq 1 ]; then
      problems+=("slots: a perf test shared its GPU with another test (OVERLAP in slots.txt): its timings may be contaminated")
    elif [ "$st" -ne 0 ]; then
      problems+=("slots: the GPU slot records could not be summed up (slots_report.sh exit $st; see slots.txt)")
    fi
  fi
fi

# Bazel keeps each test's undeclared outputs (zipped by some versions); gather the perf tests' (run JSON,
# verdicts, summary) next to their logs and JUnit XML, as perf/<family>_perf_test/ (each family's perf
# test is //kernels/<family>:<family>_perf_test). A failed gate keeps its data too.
unpack() {
  if command -v unzip >/dev/null; then unzip -qo "$1" -d "$2"
  else python3 -m zipfile -e "$1" "$2"; fi
}
stale=0
for dir in "$testlogs"/kernels/*/*_perf_test; do
  [ -d "$dir" ] || continue
  if [ ! -f "$dir/test.log" ]; then stale=$((stale + 1)); continue; fi
  name="$(basename "$dir")"
  out="$artifacts/perf/$name"
  mkdir -p "$out"
  cp -L "$dir/test.log" "$out/" 2>/dev/null || true
  cp -L "$dir/test.xml" "$out/junit.xml" 2>/dev/null || true
  # A corrupt zip is a problem of the job (not an end with unzip's status), and its run stays out of the history.
  if [ -f "$dir/test.outputs/outputs.zip" ]; then
    unpack "$dir/test.outputs/outputs.zip" "$out" ||
      problems+=("perf: $name: its outputs.zip could not be unpacked (corrupt or cut short?): its run JSON and verdicts may be missing")
  elif [ -d "$dir/test.outputs" ]; then cp -rL "$dir/test.outputs/." "$out/"; fi
done
[ "$stale" -eq 0 ] || echo "gate: $stale perf test(s) did not run in this job; their older outputs were left out"
# The logs of the tests in tests/ and of each family's Check test (//kernels/<family>:<family>_test),
# as tests/<test>.log.
mkdir -p "$artifacts/tests"
for log in "$testlogs"/tests/*/test.log "$testlogs"/kernels/*/*_test/test.log; do
  case "$log" in */*_perf_test/test.log) continue ;; esac
  [ -f "$log" ] && cp -L "$log" "$artifacts/tests/$(basename "$(dirname "$log")").log"
done

# History: one row per benchmark of an accepted run (main branch only). A row that cannot be
# appended is lost data: the job says so and fails (exit 5), though the tests passed.
runs_found=0
for f in "$artifacts"/perf/*_perf_test/*_bench.json "$artifacts"/perf/*_perf_test/summary.md; do
  [ -f "$f" ] && runs_found=$((runs_found + 1))
done
[ "$runs_found" -gt 0 ] || problems+=("perf: no run JSON or summary was collected from the perf tests (see bazel_test.log)")
if [ "$history" -eq 1 ] && [ "$mode" = ab ]; then
  echo "gate: --history: not appended in A/B mode (history rows are runs judged against the baseline)"
elif [ "$history" -eq 1 ] && [ "$status" -eq 0 ] && [ ${#problems[@]} -gt 0 ]; then
  # A run whose records are in doubt (a GPU shared, outputs not collected) stays out of the history.
  problems+=("history: not appended: the problems above put this run's records in doubt")
elif [ "$history" -eq 1 ] && [ "$status" -eq 0 ]; then
  gate=""
  no_gate="$suite_repo//perf/gate:gate did not build"
  if "${bazel[@]}" build "$suite_repo//perf/gate:gate" >/dev/null 2>&1; then
    # Checked: under set -e a failed `bazel info` would end the job without a word.
    if gate_dir="$("${bazel[@]}" info bazel-bin 2>/dev/null)"; then gate="$gate_dir/${suite_bin}perf/gate/gate"
    else no_gate="bazel info bazel-bin failed"; fi
  fi
  mkdir -p baselines/history
  # All families' rows or none: each family appends in a call of its own, so the history is saved first and
  # put back when any fails (#56 D16: a disk that filled midway left 4 of 7 families, which CI committed).
  saved="$artifacts/history.saved"
  earlier=${#problems[@]}  # the problems of the job before this step
  rm -rf "$saved" && mkdir -p "$saved" || problems+=("history: cannot save a copy of baselines/history in $saved")
  before=("$(ls baselines/history)")
  for f in baselines/history/*.csv; do
    [ -f "$f" ] && { cp -pL "$f" "$saved/" || problems+=("history: cannot save a copy of $f (a full disk?)"); }
  done
  appended=0
  for out in "$artifacts"/perf/*_perf_test; do
    [ -d "$out" ] && [ ${#problems[@]} -eq "$earlier" ] || continue
    run="$(find "$out" -maxdepth 1 -name '*_bench.json' | head -1)"
    if [ -z "$gate" ]; then
      problems+=("history: $no_gate, so no row was appended")
    elif [ -z "$run" ] || [ ! -f "$out/verdicts.json" ]; then
      problems+=("history: $(basename "$out") left no run JSON or verdicts.json, so its rows were not appended")
    elif ! "$gate" history --history_dir=baselines/history --verdicts="$out/verdicts.json" "$run"; then
      problems+=("history: not appended for $(basename "$out") (the reason is in the log)")
    else
      appended=$((appended + 1))
    fi
  done
  kept_saved=0
  if [ ${#problems[@]} -gt "$earlier" ] && [ "$appended" -gt 0 ]; then
    for f in baselines/history/*.csv; do  # back as it was: the copy, or gone if this job made the file
      if [ -f "$saved/$(basename "$f")" ]; then cp "$saved/$(basename "$f")" "$f"
      elif ! grep -qxF "$(basename "$f")" <<<"${before[0]}"; then rm -f "$f"; fi ||
        { problems+=("history: $f could not be put back as it was: restore it from $saved"); kept_saved=1; }
    done
    problems+=("history: the rows of the $appended family(ies) appended were taken back: all families or none")
  fi
  [ "$kept_saved" -eq 1 ] || rm -rf "$saved"
fi

# Charts and a static index.html (artifacts/report/) of this job's runs and verdicts, with the
# baselines and history of the GPU(s) it ran on. A report that cannot be drawn does not change
# the gate's verdicts, but it is said at the top of summary.md and fails a job whose tests passed.
report_status=0
# The policy the perf tests were given (--test_arg=--family_tolerance=reduce=0.07, ...) is the one the trends and
# the charts' band are decided with.
policy=()
for f in ${bazel_flags[@]+"${bazel_flags[@]}"}; do
  case "$f" in --test_arg=--tolerance=* | --test_arg=--family_tolerance=* | --test_arg=--k_noise=*) policy+=("${f#--test_arg=}") ;; esac
done
report_flags=()
[ -z "$suite_repo" ] || report_flags+=(--suite_repo="$suite_repo")
bash "$suite/ci/report.sh" "$artifacts" --title="Kernel performance at $PERF_COMMIT" ${report_flags[@]+"${report_flags[@]}"} \
  ${policy[@]+"${policy[@]}"} 2>&1 |
  tee "$artifacts/report.log" || report_status=${PIPESTATUS[0]}
charts="$(sed -n 's/^render: \([0-9]*\) charts.*/\1/p' "$artifacts/report.log" | tail -1)"
if [ "$report_status" -ne 0 ]; then
  # No such line (the renderer killed, or `bazel run` failing to build it) must not end the job under pipefail:
  # then Bazel's first ERROR line says why, if any.
  why="$(grep -E '^(render|report):' "$artifacts/report.log" | tail -1 || true)"
  [ -n "$why" ] || why="$(grep -m 1 '^ERROR:' "$artifacts/report.log" || true)"
  problems+=("report: not rendered (exit $report_status): ${why:-see report.log}")
fi

# A summary for people: GitHub Actions shows it on the run's page. Problems of the job itself
# (report, history) come first, then each perf test's table.
summary="$artifacts/summary.md"
{
  if [ ${#problems[@]} -gt 0 ]; then
    echo "## The main job has problems"
    echo
    for p in "${problems[@]}"; do echo "- **${p%%:*}**:${p#*:}"; done
    echo
    echo "The gate's verdicts below stand; see report.log and bazel_test.log in the artifacts."
    echo
  elif [ -f "$artifacts/report/index.html" ]; then
    echo "Report: \`report/index.html\` in the artifacts, ${charts:-0} charts."
    echo
  else
    echo "Report: none: this job measured nothing (every benchmark unchanged) and there is no history to chart."
    echo
  fi
  echo "Testbed: \`$testbed\`."
  if [ "$mode" = ab ]; then
    echo "Judged A/B against $base_short on this runner's own GPU (no baseline of this testbed, or --against)."
  elif [ -n "$uncovered" ]; then
    echo "Judged against the baseline's runs of this testbed; the $(grep -c . <<<"$uncovered") benchmark(s) it has no run of A/B against $base_short on this runner's own GPU (each perf test's table says which)."
  elif [ "$kinds_only" -eq 1 ]; then
    echo "Judged against the baseline's runs of this testbed; a reading of other kinds of GPU alone A/B against $base_short on this runner's own GPU (each perf test's table says which)."
  else
    echo "Judged against the baseline's runs of this testbed."
  fi
  echo
  # Library references beyond their threshold: the environment changed, or (against other GPUs than this one) their
  # difference; not a failure of the change.
  env_lines="$(grep -h -e '^\*\*Environment changed:' -e "^\*\*Library references slower than the baseline's other GPUs:" \
    "$artifacts"/perf/*/summary.md 2>/dev/null || true)"
  if [ -n "$env_lines" ]; then
    echo "## Library references slower (not a failure)"
    echo
    echo "$env_lines"
    echo
  fi
  # Change points and creep over the history (the renderer's trends.md, from gate trends' detector).
  if [ -s "$artifacts/report/trends.md" ]; then cat "$artifacts/report/trends.md"; echo; fi
  for md in "$artifacts"/perf/*/summary.md; do [ -f "$md" ] && { cat "$md"; echo; }; done
} >"$summary"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$summary" >> "$GITHUB_STEP_SUMMARY"; fi
for p in "${problems[@]}"; do echo "gate: $p" >&2; done

echo "gate: bazel exit status $status; artifacts in $artifacts:"
# Parameter expansion, not sed: a path may hold | or [.
find "$artifacts" -type f | sort | while IFS= read -r f; do echo "  ${f#"$artifacts"/}"; done
# Bazel's status when a test failed; else 5 if the report or the history could not be written.
if [ "$status" -eq 0 ] && [ ${#problems[@]} -gt 0 ]; then exit 5; fi
exit "$status"
