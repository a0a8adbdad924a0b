#!/usr/bin/env bash
# CPU test of the main job in another workspace (ci/gate.sh --workspace=DIR, issue #58): a workspace laid out as
# examples/gate_my_kernels (a WORKSPACE, its families.bzl, its baselines/ folder, its families in kernels/<family>/)
# in a folder of a git repository of its own, gated by the suite's scripts with a stand-in Bazel and nvidia-smi.
# The stand-in knows only what Bazel would know in that workspace: the suite's targets are @cuda_perf//...
# (//perf/... and //plots:... do not exist there), their outputs lie under bazel-bin/external/cuda_perf/, and
# the perf tests leave the outputs of a real run (ci/testdata/h100_gate_artifacts.tar.gz, two of its families
# renamed to the example's). The gate and the renderer are the real ones.
#   1. Day one, on a branch: no baseline of the testbed, so every benchmark is A/B-tested against the merge base
#      with main, whose workspace (that folder of the base's worktree) is built; the artifacts (run JSON,
#      verdicts, summaries, logs) are collected from the workspace's testlogs into DIR/artifacts and the report
#      is drawn there; nothing is written into the suite.
#   2. A branch that adds the workspace: the base has none, so every family is new to it (nothing built).
#   3. To a baseline: ci/soak.sh 2 --workspace=DIR (rounds in DIR/soak), ci/bless.sh --workspace=DIR
#      (DIR/baselines/<gpu>.json, with runs of the testbed).
#   4. On main with --history: judged against that baseline; rows appended to DIR/baselines/history/, and the
#      report's over-time charts and Trends read them.
#
#   workspace_gate_test.sh GATE_SH RENDER_BIN GATE_BIN ARTIFACTS_TAR_GZ EXAMPLE_FAMILIES_BZL
set -euo pipefail
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }  # symbolic links kept: runfiles
gate_sh="$(abs "$1")" render="$(abs "$2")" gate_bin="$(abs "$3")" tarball="$(abs "$4")"
example_families="$(abs "$5")"
ci="$(dirname "$gate_sh")"
suite="$(dirname "$ci")"
work="${TEST_TMPDIR:-$(mktemp -d)}/workspace_gate_test"
rm -rf "$work"
mkdir -p "$work"
work="$(cd "$work" && pwd -P)"  # the stand-in compares folders by their physical path
repo="$work/their_repo"
ws="$repo/gpu_perf"  # the workspace is a folder of its repository
mkdir -p "$work/bin" "$work/testlogs" "$work/fixture" "$ws/baselines"
fail() { echo "FAIL: $*"; [ -z "${log:-}" ] || { echo "--- $log:"; cat "$log"; }; echo "--- bazel calls:"; cat "$work/calls"; exit 1; }

# The example's layout: a WORKSPACE that names the suite cuda_perf (the job's @cuda_perf//... labels), its
# families.bzl, baselines/ with a README.md, a kernels/<family>/BUILD per family.
printf 'workspace(name = "my_kernels")\n\nlocal_repository(\n    name = "cuda_perf",\n    path = "%s",\n)\n' \
  "$suite" >"$ws/WORKSPACE"
cp "$example_families" "$ws/families.bzl"
families="$(sed -n 's/^ *"\([a-z0-9_]*\)",\{0,1\} *$/\1/p' "$example_families")"
[ "$(grep -c . <<<"$families")" -ge 2 ] || { echo "FAIL: no families read from $example_families: '$families'"; exit 1; }
echo "# Baselines of this workspace" >"$ws/baselines/README.md"
for fam in $families; do mkdir -p "$ws/kernels/$fam" && echo "kernel_family(name = \"$fam\")" >"$ws/kernels/$fam/BUILD"; done
printf 'artifacts/\nsoak/\nbazel-*\n' >"$ws/.gitignore"

# The example's families get the outputs of two families of a real run, their names changed (scale -> the
# first, elementwise -> the second).
tar -xzf "$tarball" -C "$work"
srcs=(scale elementwise copy)
k=0
for fam in $families; do
  src="${srcs[$((k % ${#srcs[@]}))]}"
  k=$((k + 1))
  mkdir -p "$work/fixture/$fam"
  for f in "$work/artifacts/perf/${src}_perf_test"/{"${src}_bench.json",verdicts.json,summary.md}; do
    out="$(basename "$f")"
    sed -e "s#\"$src/#\"$fam/#g; s#\`$src/#\`$fam/#g; s#${src}_bench#${fam}_bench#g" \
      "$f" >"$work/fixture/$fam/${out/$src/$fam}"
  done
done
run_gpu="$(sed -n 's/^ *"name": *"\(NVIDIA[^"]*\)".*/\1/p' "$work"/fixture/*/verdicts.json | head -1)"
testbed="$(sed -n 's/^ *"testbed": *"\([^"]*\)".*/\1/p' "$work"/fixture/*/*_bench.json | head -1)"
[ -n "$run_gpu" ] && [ -n "$testbed" ] || { echo "FAIL: the fixture names no GPU or testbed"; exit 1; }

# The repository: main has the workspace; the branch "change" edits a kernel; the branch "adds" adds the
# workspace to a main that had none.
git -C "$repo" init -q -b main
gitc() { git -C "$repo" -c user.email=t@t -c user.name=t "$@"; }
echo "their project" >"$repo/README"
gitc add README && gitc commit -qm "before the workspace"
before_sha="$(git -C "$repo" rev-parse --short=12 HEAD)"
gitc add -A && gitc commit -qm "the workspace"
base_sha="$(git -C "$repo" rev-parse --short=12 HEAD)"
gitc checkout -qb change
echo "// faster" >>"$ws/kernels/$(head -1 <<<"$families")/BUILD"
gitc commit -qam "a change to a kernel"
gitc checkout -q -b adds "$before_sha"
gitc checkout -q change -- gpu_perf && gitc commit -qm "adds the workspace"
gitc checkout -q change

# Bazel as it behaves in that workspace. The suite's tools: @cuda_perf//..., built under external/cuda_perf/.
mkdir -p "$work/bazel-bin/external/cuda_perf/perf/tools" "$work/bazel-bin/external/cuda_perf/perf/gate"
printf '#!/bin/sh\necho "%s"\n' "$testbed" >"$work/bazel-bin/external/cuda_perf/perf/tools/testbed"
ln -s "$gate_bin" "$work/bazel-bin/external/cuda_perf/perf/gate/gate"
printf '#!/bin/sh\necho "%s"\n' "$run_gpu" >"$work/bin/nvidia-smi"
# The families' benchmark binaries as the build leaves them, which list their benchmarks (ci/gate.sh asks the gate
# which of them the baseline has no run of this testbed of).
for fam in $families; do
  mkdir -p "$work/bazel-bin/kernels/$fam"
  { printf "#!/bin/sh\ncat <<'NAMES'\n"
    sed -n 's/^ *"run_name": *"\([^"]*\)".*/\1/p' "$work/fixture/$fam/${fam}_bench.json" | sort -u
    printf 'NAMES\n'; } >"$work/bazel-bin/kernels/$fam/${fam}_bench"
  chmod +x "$work/bazel-bin/kernels/$fam/${fam}_bench"
done
cat >"$work/bin/bazel" <<'BAZEL'
#!/usr/bin/env bash
# Stand-in Bazel of the workspace $WS (and of the base's worktree): STANDIN_WORK holds its outputs.
set -u
w="$STANDIN_WORK"
echo "$(pwd -P) $*" >>"$w/calls"
case "$1" in
  build)
    for a in "${@:2}"; do
      case "$a" in //perf/* | //plots*) echo "ERROR: no such package '${a%%:*}': BUILD file not found in $(pwd -P)" >&2; exit 1 ;; esac
    done
    exit 0 ;;
  info)
    case "$2" in
      bazel-bin) if [ "$(pwd -P)" = "$WS" ]; then echo "$w/bazel-bin"; else echo "$w/base-bin"; fi ;;
      bazel-testlogs) echo "$w/testlogs" ;;
      *) echo "stand-in bazel: unexpected info $2" >&2; exit 2 ;;
    esac ;;
  test)
    [ "$(pwd -P)" = "$WS" ] || { echo "stand-in bazel: test run in $(pwd -P), not in the workspace" >&2; exit 2; }
    if [[ "$*" == *--test_tag_filters=-perf* ]]; then  # the Check tests
      for fam in $FAMILIES; do mkdir -p "$w/testlogs/kernels/$fam/${fam}_test" && echo "Check: ran" >"$w/testlogs/kernels/$fam/${fam}_test/test.log"; done
      exit 0
    fi
    # The perf tests: each pass a new run of every family (its own date: a bless takes each process once).
    n=$(( $(cat "$w/perf_passes" 2>/dev/null || echo 0) + 1 ))
    echo "$n" >"$w/perf_passes"
    i=0
    for fam in $FAMILIES; do
      i=$((i + 1))
      d="$w/testlogs/kernels/$fam/${fam}_perf_test"
      mkdir -p "$d/test.outputs"
      date="$(date -u -d "@$(( $(date -u +%s) - 20 * 86400 + n * 3600 + i * 60 ))" +%Y-%m-%dT%H:%M:%S)"
      for f in "$w/fixture/$fam"/*; do
        sed "s/\"2026-11-26T[0-9:]*+00:00\"/\"$date+00:00\"/" "$f" >"$d/test.outputs/$(basename "$f")"
      done
      echo "perf: ran" >"$d/test.log"
      echo "<testsuites/>" >"$d/test.xml"
    done
    exit 0 ;;
  run)
    target="$2"
    shift 2
    while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do shift; done
    shift
    case "$target" in
      @cuda_perf//perf/gate:gate) exec "$REAL_GATE" "$@" ;;
      @cuda_perf//plots:render) exec "$REAL_RENDER" "$@" ;;
    esac
    echo "ERROR: no such package '${target%%:*}' (stand-in bazel: run $target in $(pwd -P))" >&2
    exit 1 ;;
  *) echo "stand-in bazel: unexpected $*" >&2; exit 2 ;;
esac
BAZEL
chmod +x "$work/bin/"* "$work/bazel-bin/external/cuda_perf/perf/tools/testbed"

# run NAME FOLDER SCRIPT ARGS...: a script of the suite run from FOLDER as a user would; its status in $st,
# its output in $work/NAME.log (and $log).
run() {
  local name="$1" from="$2"
  : >"$work/calls"
  log="$work/$name.log"
  set +e
  (cd "$from" && env -u GITHUB_STEP_SUMMARY PATH="$work/bin:$PATH" BAZEL="$work/bin/bazel" STANDIN_WORK="$work" \
    WS="$ws" FAMILIES="$(tr '\n' ' ' <<<"$families")" REAL_GATE="$gate_bin" REAL_RENDER="$render" \
    GPU_SLOT_DIR="$work/slots" PERF_AB_DISK_CACHE="$work/cache" PERF_AB_WORKTREES="$work/worktrees" \
    PERF_AB_WORKTREE="$work/base-$name" PERF_COMMIT="$name" bash "${@:3}") >"$log" 2>&1
  st=$?
  set -e
}
perf_call() { grep -- "--test_tag_filters=perf" "$work/calls" || true; }
slug=""
touch "$work/start"
sleep 1  # a file the jobs write is newer than it

# 1. Day one, on a branch: from the repository's root, the workspace named relative to it.
run day1 "$repo" "$gate_sh" --workspace=gpu_perf
[ "$st" -eq 0 ] || fail "the main job in the workspace exited $st"
grep -q "^$ws build @cuda_perf//perf/tools:testbed @cuda_perf//perf/gate:gate --config=gpu" "$work/calls" ||
  fail "the suite's tools were not built in the workspace as @cuda_perf//..."
grep -q "this runner's testbed: $testbed" "$log" || fail "the job does not name the testbed the suite's tool printed"
grep -q "the baselines have no run of this testbed: every benchmark A/B against the merge base, $base_sha" "$log" ||
  fail "the job does not say that it A/B-tests every benchmark against the merge base $base_sha"
grep -q "^$work/base-day1/gpu_perf build //kernels/\.\.\. --config=gpu --disk_cache=$work/cache" "$work/calls" ||
  fail "the base was not built in the workspace's folder of its worktree"
[ "$(git -C "$work/base-day1" rev-parse --short=12 HEAD)" = "$base_sha" ] || fail "the worktree is not at the merge base"
perf_call | grep -q "^$ws test //\.\.\. --config=gpu --test_tag_filters=perf .*--test_env=PERF_AB_BASE=$work/base-bin --test_env=PERF_AB_AGAINST=$base_sha --test_env=PERF_AB_ALL=1" ||
  fail "the perf pass did not run in the workspace, told where the base's build is, for every benchmark"
arts="$ws/artifacts"
for fam in $families; do
  for f in "${fam}_bench.json" verdicts.json summary.md test.log junit.xml; do
    [ -s "$arts/perf/${fam}_perf_test/$f" ] || fail "no perf/${fam}_perf_test/$f collected into $arts"
  done
  [ -s "$arts/tests/${fam}_test.log" ] || fail "the Check test's log of $fam was not collected"
done
grep -q "Judged A/B against $base_sha" "$arts/summary.md" || fail "summary.md does not say what it was compared with"
report="$arts/report"
[ -s "$report/index.html" ] || fail "no report/index.html in the workspace's artifacts"
slug="$(basename "$(ls "$report"/*-"$(head -1 <<<"$families")"-ladder.png 2>/dev/null | head -1)" "-$(head -1 <<<"$families")-ladder.png")"
[ -n "$slug" ] || fail "no ladder chart of $(head -1 <<<"$families")"
for fam in $families; do
  for kind in ladder size; do [ -f "$report/$slug-$fam-$kind.png" ] || fail "no $kind chart of $fam"; done
done
head -1 "$arts/summary.md" | grep -q "^Report: \`report/index.html\` in the artifacts, [1-9][0-9]* charts" ||
  fail "summary.md does not name the report: $(head -1 "$arts/summary.md")"
grep -q "$run_gpu" "$report/index.html" || fail "index.html does not name $run_gpu"
if grep -n -e "$work" "$report/index.html"; then fail "index.html shows machine paths"; fi
changed="$(find "$suite/" -newer "$work/start" -print -quit)"
[ -z "$changed" ] && [ ! -e "$suite/artifacts" ] || fail "the job wrote into the suite's folder: $changed"
echo "ok: day one: every benchmark A/B against the merge base ($base_sha, its workspace built in the worktree), artifacts of $(tr '\n' ' ' <<<"$families")collected from the workspace's testlogs, the report drawn in gpu_perf/artifacts"

# 2. A branch that adds the workspace: its merge base has none, so every family is new to the base.
git -C "$repo" checkout -q adds
run adds "$ws" "$gate_sh" --workspace=. --artifacts="$work/adds"
git -C "$repo" checkout -q change
[ "$st" -eq 0 ] || fail "the job on a branch that adds the workspace exited $st"
grep -q "the base, $before_sha, has no workspace in gpu_perf/: every family is new to it" "$log" ||
  fail "the job does not say the base has no workspace"
if grep -q "^$work/base-adds" "$work/calls"; then fail "Bazel ran in a base that has no workspace"; fi
perf_call | grep -q -- "--test_env=PERF_AB_BASE=$work/worktrees/no-workspace --test_env=PERF_AB_AGAINST=$before_sha --test_env=PERF_AB_ALL=1" ||
  fail "the perf pass was not given an empty base"
[ -d "$work/worktrees/no-workspace" ] && [ -z "$(ls -A "$work/worktrees/no-workspace")" ] || fail "the empty base is not an empty folder"
echo "ok: a branch that adds the workspace: the base has none, every family is new to it"

# 3. To a baseline: soak rounds (in DIR/soak), blessed into DIR/baselines.
git -C "$repo" checkout -q main
run soak "$ws" "$ci/soak.sh" 2 --workspace=.
[ "$st" -eq 0 ] || fail "ci/soak.sh 2 --workspace=. exited $st"
for r in 1 2; do
  [ "$(cat "$ws/soak/round$r/exit_status")" = 0 ] || fail "soak round $r: $(cat "$ws/soak/round$r/gate.log")"
  grep -q "^$ws test //\.\.\. --config=gpu --test_tag_filters=perf" "$work/calls" || fail "the soak rounds did not test the workspace"
done
if grep -q PERF_AB "$work/calls"; then fail "soak rounds A/B-tested (they are judged against the baseline, --baseline)"; fi
run bless "$ws" "$ci/bless.sh" --workspace=. soak/round1 soak/round2
[ "$st" -eq 0 ] || fail "ci/bless.sh --workspace=. exited $st"
grep -q "^$ws build @cuda_perf//perf/gate:gate" "$work/calls" || fail "bless did not build the gate in the workspace"
[ -s "$ws/baselines/$slug.json" ] || fail "no baselines/$slug.json in the workspace after bless"
runs=$((2 * $(grep -c . <<<"$families")))  # a run is a process: each family's, in each round
[ "$("$gate_bin" testbeds "$ws/baselines/$slug.json")" = "$(printf '%s\t1\t%s' "$runs" "$testbed")" ] ||
  fail "the baseline does not hold the $runs runs of the testbed alone: $("$gate_bin" testbeds "$ws/baselines/$slug.json")"
echo "ok: ci/soak.sh 2 --workspace=. and ci/bless.sh --workspace=. soak/round* wrote baselines/$slug.json of the testbed"

# 4. On main with --history: judged against that baseline, history appended to DIR/baselines/history.
run main "$ws" "$gate_sh" --workspace=. --history
[ "$st" -eq 0 ] || fail "the main job on main with --history exited $st"
grep -q "Judged against the baseline's runs of this testbed." "$arts/summary.md" ||
  fail "the job on main was not judged against the baseline just blessed"
# On main the base is main's previous commit, to settle a reading of other GPU kinds alone; that commit has no
# workspace, so the perf pass is given an empty base and Bazel runs in none.
grep -q "gate: main's previous commit, $before_sha, is built too" "$log" ||
  fail "the job on main does not take main's previous commit as its base"
perf_call | grep -q -- "--test_env=PERF_AB_AGAINST=$before_sha --test_env=PERF_AB_ALL=0" ||
  fail "the perf pass on main was not told of main's previous commit for readings of other kinds alone"
csv="$ws/baselines/history/$slug.csv"
verdicts="$(cat "$arts"/perf/*_perf_test/verdicts.json | grep -c '"verdict":')"
rows="$(grep -cF ",$testbed" "$csv" 2>/dev/null || true)"
[ "${rows:-0}" -eq "$verdicts" ] || fail "$csv has ${rows:-no} rows of the testbed for $verdicts verdicts"
grep -q "^## Trends on $run_gpu" "$arts/summary.md" || fail "the summary's Trends did not read the history"
for fam in $families; do [ -f "$report/$slug-$fam-history.png" ] || fail "no over-time chart of $fam"; done
[ -s "$arts/trends.json" ] || fail "no trends.json (gate trends) in the artifacts"
changed="$(find "$suite/" -newer "$work/start" -print -quit)"
[ -z "$changed" ] || fail "the suite's folder was written to: $changed"
echo "ok: on main --history appended $rows rows to gpu_perf/baselines/history/$slug.csv, and the report's Trends and over-time charts read them"
