#!/usr/bin/env bash
# Runs the main job (ci/gate.sh) several times in a row and sums up what the gate said:
# before trusting a runner with merges, see that it does not cry wolf against the committed
# baseline; or gather runs of a new GPU to bless (ci/bless.sh DIR/round*).
#
#   ci/soak.sh ROUNDS [--artifacts=DIR] [BAZEL FLAGS...]   # DIR/round1..N (default soak/)
#   ci/soak.sh --summarize DIR                              # sum up the rounds already in DIR
#
# Per round: gate.sh's exit status, the verdicts of every perf test (from its summary.md) and
# the largest slowdown measured; over all rounds: rounds that failed, slower verdicts, and the
# largest slowdown, which is how close the gate came to a false alarm.
# Exit status: 0 if every round passed, 1 otherwise, 2 on bad usage.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

usage() {
  echo "usage: ci/soak.sh ROUNDS [--artifacts=DIR] [BAZEL FLAGS...] | ci/soak.sh --summarize DIR" >&2
  exit 2
}

# The round folders of DIR in numeric order (round2 before round10).
round_dirs() {
  local r
  for r in "$1"/round*; do [ -d "$r" ] && echo "$r"; done | sort -V
}

# The rows of the perf tests' summary tables, as "round delta allowed verdict name".
rows() {
  local dir="$1" r
  for r in $(round_dirs "$dir"); do
    for md in "$r"/perf/*_perf_test/summary.md; do
      [ -f "$md" ] || continue
      # | `name` | base | new | +1.23% | 3.0% | GB/s | of copy | verdict (note) |
      awk -F'|' -v round="${r##*/round}" '
        $2 ~ /^ `/ && NF >= 10 {
          name = $2; gsub(/[ `]/, "", name)
          delta = $5; gsub(/[ %+]/, "", delta)
          allowed = $6; gsub(/[ %]/, "", allowed)
          verdict = $9; gsub(/\*/, "", verdict); sub(/^ */, "", verdict); sub(/[ (].*/, "", verdict)
          if (delta == "-") delta = "nan"
          print round, delta, allowed, verdict, name
        }' "$md"
    done
  done
}

summarize() {
  local dir="$1" r status failed=0 nrounds=0
  [ -d "$dir" ] || { echo "soak: no folder $dir" >&2; exit 2; }
  local all
  all="$(rows "$dir")"
  for r in $(round_dirs "$dir"); do
    nrounds=$((nrounds + 1))
    status="$(cat "$r/exit_status" 2>/dev/null || echo '?')"
    [ "$status" = 0 ] || failed=$((failed + 1))
    printf 'round %s: gate exit %s; ' "${r##*/round}" "$status"
    awk -v round="${r##*/round}" '
      NF > 0 && $1 == round { n++; count[$4]++; if ($2 != "nan" && (!seen || $2 + 0 > worst)) { worst = $2 + 0; name = $5; allowed = $3; seen = 1 } }
      END {
        if (!n) { print "no perf summaries"; exit }
        printf "%d benchmarks:", n
        for (v in count) printf " %d %s", count[v], v
        if (seen) printf "; largest slowdown %+.2f%% (%s, allowed %s%%)", worst, name, allowed
        printf "\n"
      }' <<<"$all"
  done
  [ "$nrounds" -gt 0 ] || { echo "soak: no round* folders in $dir" >&2; exit 2; }
  awk -v rounds="$nrounds" -v failed="$failed" '
    NF == 0 { next }
    { n++; if ($4 == "slower") slower++; if ($2 != "nan" && (!seen || $2 + 0 > worst)) { worst = $2 + 0; name = $5; round = $1; seen = 1 } }
    END {
      printf "soak: %d rounds, %d failed; %d verdicts, %d slower", rounds, failed, n, slower
      if (seen) printf "; largest slowdown %+.2f%% (%s, round %s)", worst, name, round
      printf "\n"
    }' <<<"$all"
  [ "$failed" -eq 0 ]
}

[ $# -ge 1 ] || usage
if [ "$1" = --summarize ]; then
  [ $# -eq 2 ] || usage
  summarize "$2"
  exit $?
fi
rounds="$1"
shift
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "soak: ROUNDS must be a positive integer, got '$rounds'" >&2; usage; }
dir=soak
flags=()
for a in "$@"; do
  case "$a" in
    --artifacts=*) dir="${a#--artifacts=}" ;;
    *) flags+=("$a") ;;
  esac
done
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
for ((i = 1; i <= rounds; i++)); do
  out="$dir/round$i"
  [ -e "$out" ] && { echo "soak: $out exists; give an empty --artifacts folder (rounds are never overwritten)" >&2; exit 2; }
  mkdir -p "$out"
  # Perf tests never come from Bazel's cache; correctness tests do after the first round.
  bash ci/gate.sh --artifacts="$out" "${flags[@]}" >"$out/gate.log" 2>&1
  echo $? >"$out/exit_status"
  echo "soak: round $i of $rounds: gate exit $(cat "$out/exit_status") (log: $out/gate.log)"
done
summarize "$dir"
