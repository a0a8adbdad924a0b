#!/usr/bin/env bash
# CPU test of ci/gate.sh's choice of comparison side and its A/B mode, with a stand-in Bazel, nvidia-smi,
# testbed tool and gate, in a git repository of two commits (main, and a change on a branch):
#   1. a runner whose testbed the baselines have no run of is A/B-tested against the merge base with
#      main: the base is built in a worktree, only the perf pass is told where its build is, and the
#      summary says what it was compared with;
#   2. a runner whose testbed is in the baselines is judged against them; on a branch the merge base is
#      built and named to the perf pass (A/B for what the baseline cannot judge or settle alone: a benchmark
#      the testbed has no run of, a reading of other GPU kinds alone); on main it is main's previous commit,
#      none on main's first commit;
#   3. --against=REV A/B-tests against REV whatever the baselines hold; --baseline never A/B-tests;
#   4. a revision that is not one is bad input (exit 2); --history appends nothing in A/B mode.
#
#   ab_test.sh GATE_SH
set -euo pipefail
src="$(cd "$(dirname "$1")" && pwd)"
work="${TEST_TMPDIR:-$(mktemp -d)}/ab_test"
rm -rf "$work"
mkdir -p "$work/repo/ci" "$work/repo/baselines" "$work/bin" "$work/bazel-bin/perf/tools" "$work/bazel-bin/perf/gate" \
  "$work/testlogs/kernels/copy/copy_perf_test"
for f in gate.sh gpu_model.sh report.sh slots_report.sh; do cp -L "$src/$f" "$work/repo/ci/"; done
echo '{}' >"$work/repo/baselines/nvidia-h100-80gb-hbm3.json"
printf '/bazel-*\n/user.bazelrc\n' >"$work/repo/.gitignore"  # as the suite's: git status does not show these
repo="$work/repo"
git -C "$repo" init -q -b main
git -C "$repo" -c user.email=t@t -c user.name=t add -A
git -C "$repo" -c user.email=t@t -c user.name=t commit -qm base
base_sha="$(git -C "$repo" rev-parse --short=12 HEAD)"
git -C "$repo" checkout -qb change
echo change >"$repo/CHANGE"
git -C "$repo" -c user.email=t@t -c user.name=t add -A
git -C "$repo" -c user.email=t@t -c user.name=t commit -qm change
change_sha="$(git -C "$repo" rev-parse --short=12 HEAD)"

printf '#!/bin/sh\n[ -z "$NO_GPU" ] || exit 9\necho "NVIDIA H100 80GB HBM3"\n' >"$work/bin/nvidia-smi"
printf '#!/bin/sh\necho "$TESTBED"\n' >"$work/bazel-bin/perf/tools/testbed"
# gate testbeds FILE: the baselines hold runs of "fixture x1" only; --uncovered lists $UNCOVERED.
printf '#!/bin/sh\ncase "$2" in --uncovered=*) [ -z "$UNCOVERED" ] || echo "$UNCOVERED"; exit 0 ;; --has_runs=*) [ "$2" = "--has_runs=fixture x1" ]; exit $? ;; esac\n[ "$1" = testbeds ] && printf "3\\t1\\tfixture x1\\n"\n' >"$work/bazel-bin/perf/gate/gate"
cat >"$work/bin/bazel" <<BAZEL
#!/bin/sh
echo "\$(pwd) \$*" >>"$work/calls"
tl="\${TESTLOGS:-$work/testlogs}"  # -c dbg: another output folder, as Bazel's
case " \$* " in *" -c dbg "*) tl="$work/testlogs-dbg" ;; esac
case "\$1" in
  build) # The base is built with the worktrees' lock held (no other job may clean or remove its worktree).
         [ "\$(pwd)" = "$repo" ] || ! flock -n "$work/worktrees/.lock" true || echo "UNLOCKED base build" >>"$work/calls"
         exit 0 ;;
  info) [ "\$*" != "\${INFO_FAILS:-}" ] && [ "\$(pwd) \$*" != "\${INFO_FAILS_AT:-}" ] || exit 37
        case "\$2" in
          bazel-bin) case "\$(pwd)" in "$repo") echo "$work/bazel-bin" ;; *) echo "$work/base-bin" ;; esac ;;
          *) echo "\$tl" ;;
        esac ;;
  test) case "\$*" in *--test_tag_filters=-perf*) exit 0 ;; esac
        d="\$tl/kernels/copy/copy_perf_test"; mkdir -p "\$d/test.outputs"; echo ran >"\$d/test.log"
        [ -z "\${CORRUPT_ZIP:-}" ] || { printf 'PK\\003\\004junk' >"\$d/test.outputs/outputs.zip"; exit 0; }
        echo "## copy_bench: stand-in" >"\$d/test.outputs/summary.md"; exit 0 ;;
  *) echo "stand-in bazel: unexpected \$*" >&2; exit 2 ;;
esac
BAZEL
chmod +x "$work/bin/"* "$work/bazel-bin/perf/tools/testbed" "$work/bazel-bin/perf/gate/gate"

job() {  # job NAME TESTBED [GATE ARGS]: runs the main job in the repository; its status in $st
  : >"$work/calls"
  set +e
  (cd "$repo" && PATH="$work/bin:$PATH" BAZEL="$work/bin/bazel" TESTBED="$2" RENDER=true PERF_COMMIT=fixture \
    GPU_SLOT_DIR="$work/slots" PERF_AB_WORKTREE="${WORKTREE:-$work/base-$1}" PERF_AB_WORKTREES="$work/worktrees" \
    PERF_AB_DISK_CACHE="$work/cache" \
    bash ci/gate.sh --artifacts="$work/$1" "${@:3}") >"$work/$1.log" 2>&1
  st=$?
  set -e
}
fail() { echo "FAIL: $*"; cat "$work/$name.log"; echo "--- bazel calls:"; cat "$work/calls"; exit 1; }
perf_call() { grep -- "--test_tag_filters=perf" "$work/calls" || true; }

# 1. A testbed without a baseline: A/B against the merge base with main.
name=auto; job auto "fixture x2"
[ "$st" -eq 0 ] || fail "the A/B job exited $st"
grep -q "the baselines have no run of this testbed: every benchmark A/B against the merge base, $base_sha" "$work/auto.log" ||
  fail "the job does not say it A/B-tests against the merge base $base_sha"
grep -q "^$work/base-auto build //kernels/\.\.\. --config=gpu --disk_cache=$work/cache" "$work/calls" ||
  fail "the base was not built in its worktree with the shared disk cache"
[ "$(git -C "$work/base-auto" rev-parse --short=12 HEAD)" = "$base_sha" ] || fail "the worktree is not at the merge base"
perf_call | grep -q -- "--test_env=PERF_AB_BASE=$work/base-bin --test_env=PERF_AB_AGAINST=$base_sha --test_env=PERF_AB_ALL=1" ||
  fail "the perf pass was not told where the base's build is, for every benchmark"
if grep -- "--test_tag_filters=-perf" "$work/calls" | grep -q PERF_AB_BASE; then
  fail "the correctness pass was given the base (its cached results would be lost)"
fi
grep -q "Judged A/B against $base_sha" "$work/auto/summary.md" || fail "summary.md does not say what it was compared with"
grep -q 'Testbed: `fixture x2`' "$work/auto/summary.md" || fail "summary.md does not name the testbed"
[ "$(cat "$work/auto/exit_status")" = 0 ] || fail "the job did not write its status 0 to exit_status (ci/bless.sh reads it)"
! grep -q "UNLOCKED" "$work/calls" || fail "the base was built after the worktrees' lock was released"
echo "ok: a testbed without a baseline is A/B-tested against the merge base, built in a worktree"

# 1a. A dry run needs no GPU: it says the testbed and how the benchmarks would be judged, builds the base, runs no
#     test (a new user's rehearsal on a CPU; without it the job stops at nvidia-smi, exit 2).
name=dry; NO_GPU=1 job dry "fixture x2" --dry_run
[ "$st" -eq 0 ] || fail "a dry run without a GPU exited $st"
grep -q "gate: dry run: every benchmark would be A/B-tested against $base_sha" "$work/dry.log" ||
  fail "the dry run does not say how the benchmarks would be judged"
grep -q "^$work/base-dry build //kernels/" "$work/calls" || fail "the dry run did not build the base"
if grep -q " test " "$work/calls"; then fail "the dry run ran tests"; fi
name=nogpu; NO_GPU=1 job nogpu "fixture x2"
[ "$st" -eq 2 ] || fail "without a GPU the job (not a dry run) exited $st, expected 2"
[ "$(cat "$work/nogpu/exit_status")" = 2 ] || fail "a job that stopped early did not write its status 2 to exit_status"
echo "ok: a dry run needs no GPU, builds the base and says how each benchmark would be judged; a real run without a GPU stops (exit 2)"

# 1b. The base's worktree is reused only as the job left it (#56 A01: one at another commit with changes was
# trusted); a folder that is not a worktree of this repository is refused, its files kept (A11); an empty folder
# or a worktree deleted under its registration does not stop later jobs (A02).
git -C "$work/base-auto" checkout -q --detach "$change_sha" && echo planted >"$work/base-auto/CHANGE"
name=auto; job auto "fixture x2"
[ "$st" -eq 0 ] && [ "$(git -C "$work/base-auto" rev-parse --short=12 HEAD)" = "$base_sha" ] &&
  [ -z "$(git -C "$work/base-auto" status --porcelain)" ] || fail "a stale worktree was used as the base (exit $st)"
grep -q "is not $base_sha as committed (another commit, or changes): made anew" "$work/auto.log" ||
  fail "the job does not say it made the stale worktree anew"
# Ignored files are not in git status: a planted user.bazelrc (.bazelrc's try-import) goes; the bazel-* links stay.
echo "build --config=planted" >"$work/base-auto/user.bazelrc"
ln -s "$work/base-bin" "$work/base-auto/bazel-bin"
name=auto; job auto "fixture x2"
[ "$st" -eq 0 ] && [ ! -e "$work/base-auto/user.bazelrc" ] && [ -L "$work/base-auto/bazel-bin" ] ||
  fail "a reused worktree kept an ignored user.bazelrc, or lost its bazel-* link (exit $st)"
mkdir -p "$work/base-planted" && echo mine >"$work/base-planted/file"
name=planted; job planted "fixture x2"
[ "$st" -eq 2 ] && [ "$(cat "$work/base-planted/file")" = mine ] || fail "a planted folder: exit $st"
grep -q "is not a worktree of this repository" "$work/planted.log" || fail "a planted folder: not said"
mkdir -p "$work/base-empty"
name=empty; job empty "fixture x2"
[ "$st" -eq 0 ] || fail "an empty worktree folder: exit $st"
rm -rf "$work/base-empty"
name=empty; job empty "fixture x2"
[ "$st" -eq 0 ] || fail "a worktree deleted under its registration: exit $st"
# Jobs at once share the base's worktree; each has its own test logs, as a job in a checkout of its own has (one
# job removing another's perf test.log made this case fail 1 run in 6 on a loaded machine).
for k in 1 2 3 4; do
  (name=both$k; TESTLOGS="$work/testlogs-both$k" WORKTREE="$work/base-shared" job "both$k" "fixture x2"
   echo "$st" >"$work/both$k.st") &
done
wait
for k in 1 2 3 4; do [ "$(cat "$work/both$k.st")" = 0 ] || { name=both$k; fail "jobs at once for one base (#56 A04)"; }; done
echo "ok: the base's worktree is checked before it is trusted: stale ones made anew, foreign ones refused; jobs at once share it"

# 2. A testbed the baselines hold: judged against them; on a branch the merge base is built too, to settle a
# slower reading against other GPU kinds alone (PERF_AB_ALL=0); on the main branch itself nothing is.
name=baseline; job baseline "fixture x1"
[ "$st" -eq 0 ] || fail "the baseline job exited $st"
grep -q "^$work/base-baseline build //kernels/\.\.\. --config=gpu --disk_cache=$work/cache" "$work/calls" ||
  fail "the merge base was not built to settle readings against other kinds of GPU"
perf_call | grep -q -- "--test_env=PERF_AB_AGAINST=$base_sha --test_env=PERF_AB_ALL=0" ||
  fail "the perf pass was not told of the merge base for what the baseline cannot settle alone"
grep -q "a reading of other kinds of GPU alone A/B against $base_sha" "$work/baseline/summary.md" ||
  fail "summary.md does not say what settles a reading against other kinds"
git -C "$repo" checkout -q main
name=onmain; job onmain "fixture x1"
git -C "$repo" checkout -q change
[ "$st" -eq 0 ] || fail "the baseline job on main exited $st"
if grep -q "^$work/base-onmain " "$work/calls" || grep -q PERF_AB "$work/calls"; then fail "a base was built on main's first commit"; fi
grep -q "main's previous commit is not in this clone" "$work/onmain.log" ||
  fail "on main's first commit the job does not say that other kinds' readings are judged as measured"
grep -q "Judged against the baseline's runs of this testbed." "$work/onmain/summary.md" ||
  fail "summary.md does not say it was judged against the baseline"
# On main's first commit there is nothing to A/B against: a testbed without a baseline is refused, named.
git -C "$repo" checkout -q main
name=rootab; job rootab "fixture x2"
git -C "$repo" checkout -q change
[ "$st" -eq 2 ] && grep -q "nothing to A/B against (no merge base of HEAD and main, or HEAD is its first commit)" \
  "$work/rootab.log" || fail "on main's first commit, with no baseline of the testbed: exit $st"
echo "ok: a testbed in the baselines is judged against them; a branch's merge base settles other kinds' readings"

# 2a. On the main branch after a merge, main's previous commit is the base: it settles a reading of other GPU kinds
# alone (an unchanged H200 of a kind the baseline had no run of read 3.8-5.7 % slower and failed on main,
# 2026-11-28), and judges what the testbed has no run of.
git -C "$repo" checkout -q main
git -C "$repo" -c user.email=t@t -c user.name=t merge -q --no-ff -m merge change
merge_sha="$(git -C "$repo" rev-parse --short=12 HEAD)"
name=mainkinds; job mainkinds "fixture x1"
[ "$st" -eq 0 ] || fail "the baseline job on main after a merge exited $st"
grep -q "gate: main's previous commit, $base_sha, is built too" "$work/mainkinds.log" ||
  fail "on main, the previous commit was not taken as the base"
grep -q "^$work/base-mainkinds build //kernels/" "$work/calls" || fail "on main, the previous commit was not built"
perf_call | grep -q -- "--test_env=PERF_AB_AGAINST=$base_sha --test_env=PERF_AB_ALL=0" ||
  fail "on main, the perf pass was not told of the previous commit for readings of other kinds alone"
name=mainab; job mainab "fixture x2"
[ "$st" -eq 0 ] && grep -q "every benchmark A/B against main's previous commit, $base_sha" "$work/mainab.log" &&
  perf_call | grep -q -- "--test_env=PERF_AB_AGAINST=$base_sha --test_env=PERF_AB_ALL=1" ||
  fail "on main, a testbed without a baseline was not A/B-tested against the previous commit (exit $st)"
# A change in the work tree on main is the change: HEAD is its base, as before.
echo dirty >>"$repo/CHANGE"
name=maindirty; job maindirty "fixture x1"
git -C "$repo" checkout -q -- CHANGE
perf_call | grep -q -- "--test_env=PERF_AB_AGAINST=$merge_sha --test_env=PERF_AB_ALL=0" ||
  fail "on main with a changed work tree, HEAD was not the base"
git -C "$repo" reset -q --hard "$base_sha"
git -C "$repo" checkout -q change
echo "ok: on main after a merge, main's previous commit is the base (other kinds' readings, testbeds without a baseline)"
name=uncovered; UNCOVERED="matmul/splitk/M:1024/N:1024/K:1024" job uncovered "fixture x1"
[ "$st" -eq 0 ] || fail "the job with a benchmark the testbed has no run of exited $st"
grep -q "^$work/base-uncovered build //kernels/\.\.\. --config=gpu --disk_cache=$work/cache" "$work/calls" ||
  fail "the base was not built for the benchmark the testbed has no run of"
perf_call | grep -q -- "--test_env=PERF_AB_AGAINST=$base_sha --test_env=PERF_AB_ALL=0" ||
  fail "the perf pass was not told to A/B only what the baseline cannot judge"
grep -q "the 1 benchmark(s) it has no run of A/B against $base_sha" "$work/uncovered/summary.md" ||
  fail "summary.md does not say which reference judged what"
echo "ok: a benchmark the testbed has no run of is judged A/B against the merge base in the same job"

# 3. --against=REV whatever the baselines hold; --baseline never A/B.
name=against; job against "fixture x1" --against=main
[ "$st" -eq 0 ] && perf_call | grep -q -- "--test_env=PERF_AB_AGAINST=$base_sha" || fail "--against=main did not A/B"
name=forced; job forced "fixture x2" --baseline
[ "$st" -eq 0 ] && ! grep -q PERF_AB "$work/calls" || fail "--baseline A/B-tested"
echo "ok: --against=REV A/B-tests, --baseline does not"

# 4. Bad revision; no history in A/B mode.
name=bad; job bad "fixture x1" --against=no-such-rev
[ "$st" -eq 2 ] && grep -q "no-such-rev: not a revision" "$work/bad.log" || fail "a bad revision: exit $st"
name=hist; job hist "fixture x2" --history
grep -q "not appended in A/B mode" "$work/hist.log" || fail "--history in A/B mode does not say it appends nothing"
[ ! -e "$repo/baselines/history" ] || fail "history rows were appended in A/B mode"
echo "ok: a bad revision is exit 2; A/B appends no history"
name=dbg; job dbg "fixture x1" -c dbg
[ "$st" -eq 0 ] && [ -f "$work/dbg/perf/copy_perf_test/summary.md" ] ||
  fail "with -c dbg the perf tests' outputs were looked for in another folder (exit $st; #56 A13)"
echo "ok: the perf tests' outputs are collected from the folder of the flags given (-c dbg)"

# 5. --against with --baseline is refused (#56 A09: the last one won); so is an artifacts folder the job does not
# own, the repository itself, and nothing in it is deleted (#56 D12: ./perf and ./tests were).
name=both; job both "fixture x1" --against=main --baseline
[ "$st" -eq 2 ] && grep -q "choose one" "$work/both.log" || fail "--against with --baseline: exit $st"
name=both2; job both2 "fixture x1" --baseline --against=main
[ "$st" -eq 2 ] || fail "--baseline with --against: exit $st"
mkdir -p "$repo/perf" "$repo/tests" && echo keep >"$repo/perf/source.c" && echo keep >"$repo/tests/test.c"
name=owned
set +e
(cd "$repo" && PATH="$work/bin:$PATH" BAZEL="$work/bin/bazel" TESTBED="fixture x1" bash ci/gate.sh --artifacts=.) \
  >"$work/owned.log" 2>&1
st=$?
set -e
[ "$st" -eq 2 ] && [ -f "$repo/perf/source.c" ] && [ -f "$repo/tests/test.c" ] || fail "--artifacts=. exited $st"
grep -q "holds files no earlier job of ci/gate.sh wrote" "$work/owned.log" || fail "--artifacts=. does not say why"
rm -rf "$repo/perf" "$repo/tests"
echo "ok: --against with --baseline and an artifacts folder the job does not own are refused, nothing deleted"

# 6. A failed `bazel info` is said, never a silent end of the job under set -e: where the tools are (exit 2), and in
# the history step (exit 5: the tests passed, no row appended; summary.md says so).
name=noinfo; INFO_FAILS="info bazel-bin --config=gpu" job noinfo "fixture x1" --baseline
[ "$st" -eq 2 ] && grep -q "gate: bazel info bazel-bin failed" "$work/noinfo.log" || fail "bazel info failing: exit $st"
name=noinfo2; INFO_FAILS="info bazel-bin" job noinfo2 "fixture x1" --baseline --history
rm -rf "$repo/baselines/history"
[ "$st" -eq 5 ] && grep -q "history.*bazel info bazel-bin failed, so no row was appended" "$work/noinfo2/summary.md" ||
  fail "bazel info failing in the history step: exit $st"
name=noinfo3; INFO_FAILS_AT="$work/base-noinfo3 info bazel-bin --config=gpu" job noinfo3 "fixture x2"
[ "$st" -eq 2 ] && grep -q "gate: bazel info bazel-bin failed in $work/base-noinfo3" "$work/noinfo3.log" ||
  fail "bazel info failing in the base's worktree: exit $st"
echo "ok: a failed bazel info stops the job saying so (exit 2), or is a problem of the history step (exit 5)"

# 7. A perf test's outputs.zip that cannot be unpacked is a problem of the job (exit 5, said in summary.md), not an
# end of the job with unzip's status and no summary.
name=zip; CORRUPT_ZIP=1 TESTLOGS="$work/testlogs-zip" job zip "fixture x1" --baseline
[ "$st" -eq 5 ] && grep -q "perf.*copy_perf_test: its outputs.zip could not be unpacked" "$work/zip/summary.md" ||
  fail "a corrupt outputs.zip: exit $st"
[ "$(cat "$work/zip/exit_status")" = 5 ] && [ ! -e "$work/zip/exit_status.tmp" ] ||
  fail "a job with a problem did not write its status 5 to exit_status"
# A status that cannot be written fails a job that passed (5).
mkdir -p "$work/nostatus/exit_status.tmp" && touch "$work/nostatus/.cuda-perf-artifacts"
name=nostatus; job nostatus "fixture x1" --baseline
[ "$st" -eq 5 ] && grep -q "gate: cannot write $work/nostatus/exit_status" "$work/nostatus.log" ||
  fail "a job whose exit_status cannot be written: exit $st"
echo "ok: a corrupt outputs.zip is a problem the summary names (exit 5)"

# 8. An artifacts path with | and [ in it (the listing at the end was a sed s|...| of it: exit 1).
name='odd|[1'; job "$name" "fixture x1" --baseline
[ "$st" -eq 0 ] && grep -qx "  summary.md" "$work/$name.log" || fail "an artifacts path with | and [: exit $st"
echo "ok: an artifacts path with | and [ in it"
[ "$change_sha" != "$base_sha" ]
