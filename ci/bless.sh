#!/usr/bin/env bash
# Adopts the perf runs of one or more ci/gate.sh artifacts directories as the baseline of
# their GPU (one directory = one run of every family; give three or more, preferably from
# more than one machine). Prints the changes; the new baselines/<gpu>.json is for review
# and commit.
#
#   ci/bless.sh [--workspace=DIR] [--baselines=DIR] [--add] [--only=REGEX] ARTIFACTS_DIR [ARTIFACTS_DIR...]
#
# --workspace=DIR: the Bazel workspace whose baselines these are (default: this suite's own), one that pulls the
# suite in as "cuda_perf" (ci/gate.sh --workspace=DIR): its baselines are DIR/baselines (unless --baselines), and
# the gate is built there as @cuda_perf//perf/gate:gate.
#
# --add: the runs join the baseline's runs of their families instead of replacing them. That is
# how a runner enters the baseline (ci/soak.sh 2 on it, then ci/bless.sh --add soak/round*): the
# gate then compares that runner with its own runs, held to the tolerance (docs/gate.md).
#
# --only=REGEX: only the benchmarks whose name matches (POSIX extended, e.g. '^dot/tree_host_finish/')
# are replaced (or, with --add, joined); every other benchmark keeps its runs. That is how a variant
# changed on purpose is re-blessed without dropping its family's other runs. Such runs can later
# join with the rest of their benchmarks (--add --only=THE_OTHERS, or --add): a run counts once per
# benchmark, and a benchmark it already holds is refused.
#
# A folder whose gate failed is refused (exit 2, naming it and the benchmarks), unless
# --accept-slower: its exit_status (ci/gate.sh, ci/soak.sh) other than 0 (or 5: the tests passed,
# the report or history was not written), or a perf test's verdicts.json with a slower or missing
# verdict. Blessed in, a slowdown becomes the baseline's noise and widens every GPU's threshold.
# With --add, --accept-slower is passed on to gate bless, which refuses a run it judges slower
# against the current baseline too.
#
# With --only, a slower or missing verdict of a benchmark outside the pattern is named and not counted: it is not
# blessed. The folder's exit_status still counts.
#
# The verdicts are read by the gate (`gate failing`, a JSON parser): a perf test's verdicts.json that is missing
# beside its run JSON (unless its summary.md says NOT JUDGED: nothing was compared, as for a GPU or testbed with
# no baseline yet), empty, cut short or not the gate's is exit 2, naming it, --accept-slower or not: whether that
# round's gate passed is unknown. So is a folder with no exit_status (a job killed, or older than ci/gate.sh writing it).
#
# Every folder, and --baselines (default: the workspace's baselines/, which must exist), is checked before Bazel
# is started: exit 2, naming it, if one is missing or holds no perf runs. The gate is $GATE, else
# //perf/gate:gate built with $BAZEL.
set -euo pipefail
usage_text="usage: ci/bless.sh [--workspace=DIR] [--baselines=DIR] [--add] [--accept-slower] [--only=REGEX] ARTIFACTS_DIR..."
usage() { echo "$usage_text" >&2; exit 2; }
baselines=""
workspace=""
add=()
accept=()
only=()
dirs=()
for a in "$@"; do
  case "$a" in
    --baselines=*)
      baselines="${a#--baselines=}"
      [ -n "$baselines" ] || { echo "bless: --baselines= is empty: give the folder that holds the baselines" >&2; exit 2; } ;;
    --workspace=*)
      workspace="${a#--workspace=}"
      [ -f "$workspace/WORKSPACE" ] || [ -f "$workspace/WORKSPACE.bazel" ] ||
        { echo "bless: --workspace=$workspace: not a Bazel workspace (no WORKSPACE file in it)" >&2; exit 2; }
      workspace="$(cd "$workspace" && pwd)" ;;
    --add) add=(--add) ;;
    --accept-slower) accept=(--accept-slower) ;;
    --only=*) only=("$a") ;;
    -h | --help) echo "$usage_text"; echo "(the header of ci/bless.sh says more)"; exit 0 ;;
    -*) echo "bless: unknown option $a" >&2; usage ;;
    *)
      [ -d "$a" ] || {
        echo "bless: no folder $a; give the artifacts folder of a gate run (ci/gate.sh --artifacts=DIR," \
          "or the artifacts/ downloaded from CI), one per run" >&2
        exit 2
      }
      dirs+=("$(cd "$a" && pwd)") ;;
  esac
done
[ ${#dirs[@]} -gt 0 ] || usage
runs=()
for d in "${dirs[@]}"; do
  found=0
  for f in "$d"/perf/*_perf_test/*_bench.json; do [ -f "$f" ] && runs+=("$f") && found=1; done
  [ "$found" -eq 1 ] || {
    echo "bless: no perf runs in $d (no perf/*_perf_test/*_bench.json); give the artifacts folder" \
      "of a gate run whose perf tests ran (ci/gate.sh keeps their run JSON there, failures included)" >&2
    exit 2
  }
done
[ -n "$baselines" ] || baselines="${workspace:-.}/baselines"
# A typo must not make a new, empty baselines folder (gate bless refuses a missing one too).
[ -d "$baselines" ] || {
  echo "bless: --baselines=$baselines: no such folder (a typo?); give the folder that holds the baselines" \
    "(<gpu-slug>.json), or create it first for the first baseline" >&2
  exit 2
}
baselines="$(cd "$baselines" && pwd)"
suite="$(cd "$(dirname "$0")/.." && pwd)"
cd "${workspace:-$suite}"
# The gate: $GATE, else //perf/gate:gate in the suite, @cuda_perf//perf/gate:gate in a workspace that pulls it in.
if [ -n "${GATE:-}" ]; then
  gate="$GATE"
else
  suite_repo="" suite_bin=""
  if [ "$(pwd -P)" != "$(cd "$suite" && pwd -P)" ]; then suite_repo="@cuda_perf" suite_bin="external/cuda_perf/"; fi
  read -r -a bazel <<<"${BAZEL:-bazel}"
  "${bazel[@]}" build "$suite_repo//perf/gate:gate"
  gate="$("${bazel[@]}" info bazel-bin 2>/dev/null)/${suite_bin}perf/gate/gate"
fi
# A perf test whose summary.md says NOT JUDGED compared nothing and wrote no verdicts.json (gate check: no baseline
# of this GPU or testbed yet).
not_judged() {
  local first=""
  [ -f "$1/summary.md" ] && IFS= read -r first <"$1/summary.md"
  [[ "$first" == *": NOT JUDGED ("* ]]
}
# A round whose gate failed: its exit status, and the benchmarks its verdicts fail ("  NAME: VERDICT", from
# `gate failing`). A slower library reference does not fail ("environment changed"), and is not called a failure.
# With --only, a failing verdict of a benchmark the pattern leaves out is not blessed and widens nothing: it is named,
# not counted (a 4-GPU H200's unchanged matmul/naive read slower than the baseline's other GPU kind, and refused the
# bless of the new matmul steps, 2026-11-28). The round's exit status still counts.
only_re="${only[0]:-}"; only_re="${only_re#--only=}"
failed=0
for d in "${dirs[@]}"; do
  # ci/gate.sh and ci/soak.sh write it; without it whether the gate passed is unknown (it once counted as passed).
  status="$(cat "$d/exit_status" 2>/dev/null)" || {
    echo "bless: $d has no exit_status, so whether its gate passed is unknown (ci/gate.sh and ci/soak.sh write it;" \
      "a job killed, or one older than that, does not); re-run that round, or leave $d out" >&2
    exit 2
  }
  verdicts=()
  for t in "$d"/perf/*_perf_test; do
    if [ -e "$t/verdicts.json" ]; then
      verdicts+=("$t/verdicts.json")
    elif compgen -G "$t/*_bench.json" >/dev/null && ! not_judged "$t"; then
      echo "bless: $t/verdicts.json: missing beside its run JSON, so whether its gate passed is unknown (the perf" \
        "test killed, or its reports not written); re-run that round, or leave $d out" >&2
      exit 2
    fi
  done
  bad=""
  if [ ${#verdicts[@]} -gt 0 ]; then
    bad="$("$gate" failing "${verdicts[@]}")" || {
      echo "bless: $d: a verdicts.json that is not the gate's (above), so whether its gate passed is unknown;" \
        "re-run that round, or leave it out" >&2
      exit 2
    }
    [ -z "$bad" ] || bad="$(sed 's/^/  /' <<<"$bad")"
  fi
  if [ ${#only[@]} -gt 0 ] && [ -n "$bad" ]; then
    inside="" outside=""
    while IFS= read -r line; do
      name="${line#  }"; name="${name%: *}"
      if [[ "$name" =~ $only_re ]]; then inside+="$line"$'\n'; else outside+="$line"$'\n'; fi
    done <<<"$bad"
    [ -z "$outside" ] || printf 'bless: %s: not blessed (outside --only), so not counted:\n%s' "$d" "$outside" >&2
    bad="${inside%$'\n'}"
  fi
  if { [ "$status" != 0 ] && [ "$status" != 5 ]; } || [ -n "$bad" ]; then
    failed=1
    if [ ${#accept[@]} -gt 0 ]; then
      echo "bless: warning: the gate failed in $d (exit status $status), blessed anyway (--accept-slower)${bad:+:}" >&2
    else
      echo "bless: the gate failed in $d (exit status $status${bad:+; its verdicts:})" >&2
    fi
    [ -z "$bad" ] || echo "$bad" >&2
  fi
done
if [ "$failed" -eq 1 ] && [ ${#accept[@]} -eq 0 ]; then
  echo "bless: refused: blessed in, a slower run becomes the baseline's noise and widens every GPU's threshold;" \
    "find out why (look at the round's gate.log, re-run it), leave that folder out, or give --accept-slower" \
    "to bless it anyway" >&2
  exit 2
fi
# Without --add, --accept-slower has done its part (the failed folders above): gate bless takes it only with --add.
[ ${#add[@]} -gt 0 ] || accept=()
exec "$gate" bless --baselines="$baselines" "${add[@]}" "${accept[@]}" "${only[@]}" "${runs[@]}"
