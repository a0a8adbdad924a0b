#!/usr/bin/env bash
# Runs the main job (ci/gate.sh) several times in a row and sums up what the gate said:
# before trusting a runner with merges, see that it does not cry wolf against the committed
# baseline; or gather runs of a new GPU to bless (ci/bless.sh DIR/round*).
#
#   ci/soak.sh ROUNDS [--workspace=WS] [--artifacts=DIR] [BAZEL FLAGS...]   # DIR/round1..N (default soak/)
#   --workspace=WS: the rounds gate that workspace (ci/gate.sh --workspace=WS), and the default DIR is WS/soak.
#   Rounds judge against the baseline (ci/gate.sh --baseline), also on a testbed the baseline has no
#   run of yet: every family is measured, so the rounds can bring that host in (ci/bless.sh --add).
#   --against=REV makes A/B rounds instead.
#   ci/soak.sh --summarize DIR                              # sum up the rounds already in DIR
#   ci/soak.sh --rejudge DIR OUT [--baselines=BDIR] [POLICY] # judge DIR's rounds again into OUT
# A relative DIR is taken from the folder it is run in; the default soak/ is in the repository.
#
# Per round: gate.sh's exit status, the verdicts of every perf test (from its summary.md) and
# the largest slowdown measured; over all rounds: rounds that failed, slower verdicts, and the
# largest slowdown, which is how close the gate came to a false alarm.
# --rejudge: after a change to the gate or a baseline, how the recorded rounds would now be judged.
# Every perf test's run JSON of DIR/round* goes through `gate compare` against the baseline of its GPU
# in BDIR (default baselines/), its re-measure (<bench>.recheck.json) confirming a slower verdict as
# in the gate; the summaries go to OUT/round*/perf/<test>/ (a new folder), then summed up as above.
# A re-judged "slower" the round had not re-measured (no <bench>.recheck.json: its gate saw nothing
# slower, or ran with --no_recheck) cannot be confirmed: its verdict says "(not re-measured:
# unconfirmed)", it still counts as slower and fails its round, and the summary says how many of the
# slower ones are unconfirmed. The gate is $GATE, else //perf/gate:gate built with $BAZEL
# (default bazel).
# Exit status: 0 if every round passed, 1 otherwise, 2 on bad usage.
set -uo pipefail
# The script works from the repository root (gate.sh); paths given to it are the caller's.
caller="$PWD"
from_caller() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$caller" "$1" ;; esac; }
cd "$(dirname "$0")/.." || exit 2

usage() {
  echo "usage: ci/soak.sh ROUNDS [--workspace=WS] [--artifacts=DIR] [BAZEL FLAGS...] | ci/soak.sh --summarize DIR" >&2
  echo "       ci/soak.sh --rejudge DIR OUT [--baselines=BDIR] [POLICY FLAGS...]" >&2
  exit 2
}

# The round folders of DIR in numeric order (round2 before round10).
round_dirs() {
  local r
  for r in "$1"/round*; do [ -d "$r" ] && echo "$r"; done | sort -V
}

# The rows of the perf tests' summary tables, as "round delta allowed verdict name change_us p class re":
# re is "u" for a verdict that says it is unconfirmed (the re-measure lacks it, or there was none), else "-".
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
        /\\\|/ { gsub(/\\\|/, "\034"); $0 = $0 }  # a "|" in a cell is written "\|" (summary_md.c): not a column
        $2 ~ /^ Benchmark / { for (k = 2; k < NF; k++) col[cell(k)] = k; next }
        $2 ~ /^ `/ && ("Verdict" in col) {
          name = $2; gsub(/[ `]/, "", name); gsub(/\034/, "|", name)
          base = cell(col["Baseline (us)"]); now = cell(col["New (us)"])
          delta = cell(col["Delta"]); gsub(/[%+]/, "", delta)
          allowed = cell(col["Allowed"]); gsub(/%/, "", allowed)
          p = ("p" in col) ? cell(col["p"]) : "-"
          verdict = cell(col["Verdict"]); re = verdict ~ /unconfirmed/ ? "u" : "-"
          gsub(/\*/, "", verdict); sub(/[ (:].*/, "", verdict)  # "slower: +8.40 % > ...": the word
          if (delta == "-") delta = "nan"
          if (p == "-" || p == "") p = "nan"
          change = (base + 0 > 0 && now ~ /[0-9]/) ? sprintf("%+.2f", now - base) : "nan"
          class = (base + 0 > 0 && base + 0 < 50) ? "short" : "long"
          print round, delta, allowed, verdict, name, change, p, class, re
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
    # The candidate baselines a round's perf tests wrote: its GPU had no baseline at all, nothing was compared.
    round_dirs "$dir" | while IFS= read -r r; do
      echo "S ${r##*/round} $(cat "$r/exit_status" 2>/dev/null || echo '?') $(ls "$r"/perf/*_perf_test/*.candidate.json 2>/dev/null | wc -l)"
    done
    rows "$dir" | sed 's/^/R /'
  } | awk '
    # The change in time too, and the p of the test on contexts (the gate asks for all three).
    function us(c) { return c == "nan" ? "" : " = " c " us" }
    function pv(p) { return p == "nan" ? "" : ", p " p }
    function label(c) { return c == "short" ? "under 50 us" : "50 us or more" }
    $1 == "S" { order[++nr] = $2; status[$2] = $3; cands[$2] = $4; if ($3 != "0") failed++; next }
    $1 == "R" {
      r = $2; n[r]++; total++; count[r, $5]++; kinds[$5] = 1; if ($5 == "slower") { slower++; unconfirmed += $10 == "u" }
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
        if (!n[r] && cands[r] > 0) {
          printf "no baseline of this GPU yet: %d families measured, nothing compared (runs to bless: ci/bless.sh)\n", cands[r]
          continue
        }
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
      if (unconfirmed) printf " (%d unconfirmed: not re-measured)", unconfirmed
      if (any) printf "; largest slowdown %+.2f%%%s (%s, round %s)", top, us(tus), tname, tround
      printf "\n"
      for (k = 1; k <= 2; k++) {
        c = k == 1 ? "short" : "long"
        if (c in tw) printf "soak: %s: largest slowdown %+.2f%%%s (%s, round %s%s)\n", label(c), tw[c], us(tu[c]), tn[c], tr[c], pv(tp[c])
      }
      exit failed > 0
    }'
}

# Re-judges the rounds of $1 into $2 with gate compare; the rest are --baselines=DIR and POLICY flags.
rejudge() {
  local src="$1" out="$2" baselines=baselines gate r t run rc status bad=0
  shift 2
  local flags=()
  for a in "$@"; do
    case "$a" in
      --baselines=*) baselines="$(from_caller "${a#--baselines=}")" ;;
      *) flags+=("$a") ;;
    esac
  done
  [ -d "$src" ] || { echo "soak: no folder $src (the rounds of an earlier ci/soak.sh --artifacts=DIR)" >&2; exit 2; }
  [ -n "$(round_dirs "$src")" ] || { echo "soak: no round* folders in $src" >&2; exit 2; }
  [ -e "$out" ] && { echo "soak: $out exists; give a new folder for the re-judged rounds (never overwritten)" >&2; exit 2; }
  [ -d "$baselines" ] || { echo "soak: no baselines folder $baselines (--baselines=DIR)" >&2; exit 2; }
  if [ -n "${GATE:-}" ]; then
    gate="$GATE"
  else
    local bazel
    read -r -a bazel <<<"${BAZEL:-bazel}"
    "${bazel[@]}" build //perf/gate:gate >&2 || { echo "soak: //perf/gate:gate did not build" >&2; exit 2; }
    gate="$("${bazel[@]}" info bazel-bin)/perf/gate/gate"
  fi
  while IFS= read -r r; do
    status=0
    for t in "$r"/perf/*_perf_test; do
      [ -d "$t" ] || continue
      run="$(find "$t" -maxdepth 1 -name '*_bench.json' | head -1)"
      if [ -z "$run" ]; then
        echo "soak: $t holds no run JSON (<bench>.json): not re-judged" >&2
        status=2
        continue
      fi
      local dest="$out/${r##*/}/perf/${t##*/}" args=(compare "--baselines=$baselines" "${flags[@]}")
      mkdir -p "$dest" || exit 2
      [ -f "${run%.json}.recheck.json" ] && args+=("--recheck=${run%.json}.recheck.json")
      "$gate" "${args[@]}" "--out_dir=$dest" "$run" >"$dest/compare.log" 2>&1
      rc=$?
      case "$rc" in
        0) ;;
        1) [ "$status" -eq 0 ] && status=3 ;; # as gate.sh: a test failed
        *) echo "soak: could not re-judge $run (exit $rc): $(tail -n 1 "$dest/compare.log")" >&2; status=2 ;;
      esac
    done
    [ "$status" -eq 2 ] && bad=1
    mkdir -p "$out/${r##*/}" && echo "$status" >"$out/${r##*/}/exit_status" || exit 2
  done < <(round_dirs "$src")
  summarize "$out"
  rc=$?
  [ "$bad" -eq 0 ] || exit 2
  exit "$rc"
}

[ $# -ge 1 ] || usage
case "$1" in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac # the header above is the usage
if [ "$1" = --rejudge ]; then
  [ $# -ge 3 ] && [ -n "$2" ] && [ -n "$3" ] || usage
  rejudge "$(from_caller "$2")" "$(from_caller "$3")" "${@:4}"
fi
if [ "$1" = --summarize ]; then
  [ $# -eq 2 ] && [ -n "$2" ] || usage
  summarize "$(from_caller "$2")"
  exit $?
fi
rounds="$1"
shift
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "soak: ROUNDS must be a positive integer, got '$rounds'" >&2; usage; }
dir=""
flags=()
side=(--baseline)
for a in "$@"; do
  case "$a" in
    --artifacts=*) dir="$(from_caller "${a#--artifacts=}")" ;;
    # Another workspace (ci/gate.sh --workspace): given to each round as an absolute path; its rounds go to WS/soak.
    --workspace=*) ws="$(from_caller "${a#--workspace=}")"; flags+=("--workspace=$ws"); [ -n "$dir" ] || dir="$ws/soak" ;;
    # Rounds measure every family against the baseline (a testbed with none yet: measured, not
    # compared), so that they can be blessed; --against=REV makes A/B rounds instead.
    --against=*|--baseline) side=(); flags+=("$a") ;;
    *) flags+=("$a") ;;
  esac
done
flags=("${side[@]}" "${flags[@]}")
[ -n "$dir" ] || dir=soak
# Checked: a folder that could not be made left dir empty, and the rounds went to /round1.
mkdir -p "$dir" && abs="$(cd "$dir" && pwd)" && [ -n "$abs" ] ||
  { echo "soak: --artifacts=$dir: cannot create the folder or enter it" >&2; exit 2; }
dir="$abs"
for ((i = 1; i <= rounds; i++)); do
  out="$dir/round$i"
  [ -e "$out" ] && { echo "soak: $out exists; give an empty --artifacts folder (rounds are never overwritten)" >&2; exit 2; }
  # The round's folder is new and the job's: marked as such (ci/gate.sh writes only into a folder it owns), since
  # its gate.log is made before the job starts.
  mkdir -p "$out" && touch "$out/.cuda-perf-artifacts"
  # Perf tests never come from Bazel's cache; correctness tests do after the first round.
  bash ci/gate.sh --artifacts="$out" "${flags[@]}" >"$out/gate.log" 2>&1
  echo $? >"$out/exit_status"
  echo "soak: round $i of $rounds: gate exit $(cat "$out/exit_status") (log: $out/gate.log)"
done
summarize "$dir"
