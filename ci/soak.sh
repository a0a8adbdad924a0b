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

# The rows of the perf tests' summary tables, as "round delta allowed verdict name change_us p class".
# Columns are found by their titles, so summaries with and without the p column both read.
# class: "short" for a baseline under 50 us (measured in several CUDA contexts), else "long".
rows() {
  local dir="$1" r
  # Line by line: the caller's folder may have spaces in its path.
  round_dirs "$dir" | while IFS= read -r r; do
    for md in "$r"/perf/*_perf_test/summary.md; do
      [ -f "$md" ] || continue
      awk -F'|' -v round="${r##*/round}" '
        function cell(k) { v = $k; gsub(/^ +| +$/, "", v); return v }
        $2 ~ /^ Benchmark / { for (k = 2; k < NF; k++) col[cell(k)] = k; next }
        $2 ~ /^ `/ && ("Verdict" in col) {
          name = $2; gsub(/[ `]/, "", name)
          base = cell(col["Baseline (us)"]); now = cell(col["New (us)"])
          delta = cell(col["Delta"]); gsub(/[%+]/, "", delta)
          allowed = cell(col["Allowed"]); gsub(/%/, "", allowed)
          p = ("p" in col) ? cell(col["p"]) : "-"
          verdict = cell(col["Verdict"]); gsub(/\*/, "", verdict); sub(/[ (].*/, "", verdict)
          if (delta == "-") delta = "nan"
          if (p == "-" || p == "") p = "nan"
          change = (base + 0 > 0 && now ~ /[0-9]/) ? sprintf("%+.2f", now - base) : "nan"
          class = (base + 0 > 0 && base + 0 < 50) ? "short" : "long"
          print round, delta, allowed, verdict, name, change, p, class
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
    # The change in time too, and the p of the test on contexts (the gate asks for all three).
    function us(c) { return c == "nan" ? "" : " = " c " us" }
    function pv(p) { return p == "nan" ? "" : ", p " p }
    function label(c) { return c == "short" ? "under 50 us" : "50 us or more" }
    $1 == "S" { order[++nr] = $2; status[$2] = $3; if ($3 != "0") failed++; next }
    $1 == "R" {
      r = $2; n[r]++; total++; count[r, $5]++; kinds[$5] = 1; if ($5 == "slower") slower++
      if ($3 != "nan" && (!(r in worst) || $3 + 0 > worst[r])) { worst[r] = $3 + 0; wname[r] = $6; wallowed[r] = $4; wus[r] = $7 }
      if ($3 != "nan" && (!any || $3 + 0 > top)) { top = $3 + 0; tname = $6; tround = r; tus = $7; any = 1 }
      c = $9; seen[c] = 1
      if ($3 != "nan" && (!((r, c) in cw) || $3 + 0 > cw[r, c])) { cw[r, c] = $3 + 0; cn[r, c] = $6; ca[r, c] = $4; cu[r, c] = $7; cp[r, c] = $8 }
      if ($3 != "nan" && (!(c in tw) || $3 + 0 > tw[c])) { tw[c] = $3 + 0; tn[c] = $6; tr[c] = r; tu[c] = $7; tp[c] = $8 }
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
        for (k = 1; k <= 2; k++) {
          c = k == 1 ? "short" : "long"
          if ((r, c) in cw)
            printf "  %s: largest slowdown %+.2f%%%s (%s, allowed %s%%%s)\n", label(c), cw[r, c], us(cu[r, c]), cn[r, c], ca[r, c], pv(cp[r, c])
        }
      }
      printf "soak: %d rounds, %d failed; %d verdicts, %d slower", nr, failed, total, slower
      if (any) printf "; largest slowdown %+.2f%%%s (%s, round %s)", top, us(tus), tname, tround
      printf "\n"
      for (k = 1; k <= 2; k++) {
        c = k == 1 ? "short" : "long"
        if (c in tw) printf "soak: %s: largest slowdown %+.2f%%%s (%s, round %s%s)\n", label(c), tw[c], us(tu[c]), tn[c], tr[c], pv(tp[c])
      }
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
