#!/usr/bin/env bash
# Runs the main job (ci/gate.sh) several times in a row and sums up what the gate said:
# before trusting a runner with merges, see that it does not cry wolf against the committed
# baseline; or gather runs of a new GPU to bless (ci/bless.sh DIR/round*).
#
#   ci/soak.sh ROUNDS [--artifacts=DIR] [BAZEL FLAGS...]   # DIR/round1..N (default soak/)
#   ci/soak.sh --summarize DIR                              # sum up the rounds already in DIR
# A relative DIR is taken from the folder it is run in; the default soak/ is in the repository.
#
# Per round: gate.sh's exit status, the verdicts of every perf test (from its summary.md) and
# the largest slowdown measured; over all rounds: rounds that failed, slower verdicts, and the
# largest slowdown, which is how close the gate came to a false alarm.
# Exit status: 0 if every round passed, 1 otherwise, 2 on bad usage.
set -uo pipefail
# The script works from the repository root (gate.sh); paths given to it are the caller's.
caller="$PWD"
from_caller() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$caller" "$1" ;; esac; }
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

# The rows of the perf tests' summary tables, as "round delta allowed verdict name change_us".
rows() {
  local dir="$1" r
  # Line by line: the caller's folder may have spaces in its path.
  round_dirs "$dir" | while IFS= read -r r; do
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
          change = ($3 + 0 > 0 && $4 ~ /[0-9]/) ? sprintf("%+.2f", $4 - $3) : "nan"
          print round, delta, allowed, verdict, name, change
        }' "$md"
    done
  done
}

summarize() {
  local dir="$1" r
  [ -d "$dir" ] || { echo "soak: no folder $dir (the rounds of an earlier ci/soak.sh --artifacts=DIR)" >&2; exit 2; }
  [ -n "$(round_dirs "$dir")" ] || { echo "soak: no round* folders in $dir" >&2; exit 2; }
  # One pass over "S round exit-status" lines (one per round, in order) and the summary rows.
  {
    round_dirs "$dir" | while IFS= read -r r; do echo "S ${r##*/round} $(cat "$r/exit_status" 2>/dev/null || echo '?')"; done
    rows "$dir" | sed 's/^/R /'
  } | awk '
    # The change in time too: the gate also asks for more than its floor (3 us by default).
    function us(c) { return c == "nan" ? "" : " = " c " us" }
    $1 == "S" { order[++nr] = $2; status[$2] = $3; if ($3 != "0") failed++; next }
    $1 == "R" {
      r = $2; n[r]++; total++; count[r, $5]++; kinds[$5] = 1; if ($5 == "slower") slower++
      if ($3 != "nan" && (!(r in worst) || $3 + 0 > worst[r])) { worst[r] = $3 + 0; wname[r] = $6; wallowed[r] = $4; wus[r] = $7 }
      if ($3 != "nan" && (!any || $3 + 0 > top)) { top = $3 + 0; tname = $6; tround = r; tus = $7; any = 1 }
    }
    END {
      for (i = 1; i <= nr; i++) {
        r = order[i]
        printf "round %s: gate exit %s; ", r, status[r]
        if (!n[r]) { print "no perf summaries"; continue }
        printf "%d benchmarks:", n[r]
        for (k in kinds) if ((r, k) in count) printf " %d %s", count[r, k], k
        if (r in worst) printf "; largest slowdown %+.2f%%%s (%s, allowed %s%%)", worst[r], us(wus[r]), wname[r], wallowed[r]
        printf "\n"
      }
      printf "soak: %d rounds, %d failed; %d verdicts, %d slower", nr, failed, total, slower
      if (any) printf "; largest slowdown %+.2f%%%s (%s, round %s)", top, us(tus), tname, tround
      printf "\n"
      exit failed > 0
    }'
}

[ $# -ge 1 ] || usage
if [ "$1" = --summarize ]; then
  [ $# -eq 2 ] && [ -n "$2" ] || usage
  summarize "$(from_caller "$2")"
  exit $?
fi
rounds="$1"
shift
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "soak: ROUNDS must be a positive integer, got '$rounds'" >&2; usage; }
dir=soak
flags=()
for a in "$@"; do
  case "$a" in
    --artifacts=*) dir="$(from_caller "${a#--artifacts=}")" ;;
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
