#!/usr/bin/env bash
# Reads a GPU slot log (lines written by ci/gpu_slot.sh) and shows how the GPU tests used the GPUs:
# each test with its GPU, lock, start, end and duration; per GPU the tests and busy time; the wall
# time from the first start to the last end; and every overlap of an exclusive (perf) test with
# another test on the same GPU, which must never happen.
#
#   ci/slots_report.sh SLOTS_LOG
#
# ci/gate.sh keeps the lines of its own run as artifacts/slots.log. Exit status: 0 no overlap,
# 1 an overlap, 2 bad usage, a log that cannot be read, or a line that is not a slot record
# (or ends before it starts). Only 1 means an overlap, so every other failure is 2.
set -uo pipefail
[ $# -eq 1 ] || { echo "usage: ci/slots_report.sh SLOTS_LOG" >&2; exit 2; }
log="$1"
[ -d "$log" ] && { echo "slots_report: $log is a directory; give the slot log file (e.g. artifacts/slots.log)" >&2; exit 2; }
# Opened once here, so that a file that cannot be read is exit 2, not a failure of the loop.
{ exec {in}<"$log"; } 2>/dev/null && [ -r "$log" ] || { echo "slots_report: cannot read $log" >&2; exit 2; }

# "start_s end_s test gpu lock status" per record, times in seconds since the epoch.
records="$(mktemp)"
trap 'rm -f "$records"' EXIT
n=0
while IFS= read -r line || [ -n "$line" ]; do
  n=$((n + 1))
  [ -z "$line" ] && continue
  re='^gpu_slot test=([^ ]+) gpu=([^ ]+) lock=(exclusive|shared) start=([0-9T:.Z-]+) end=([0-9T:.Z-]+) status=([0-9]+)$'
  if ! [[ "$line" =~ $re ]]; then
    echo "slots_report: $log line $n is not a slot record (want 'gpu_slot test=... gpu=... lock=exclusive|shared start=... end=... status=N'): $line" >&2
    exit 2
  fi
  s="$(date -u -d "${BASH_REMATCH[4]}" +%s.%3N 2>/dev/null)" && e="$(date -u -d "${BASH_REMATCH[5]}" +%s.%3N 2>/dev/null)" || {
    echo "slots_report: $log line $n: bad start or end time" >&2
    exit 2
  }
  # Both have three decimals: compare them as milliseconds.
  if ((10#${e/./} < 10#${s/./})); then
    echo "slots_report: $log line $n ends before it starts (${BASH_REMATCH[5]} < ${BASH_REMATCH[4]}): $line" >&2
    exit 2
  fi
  echo "$s $e ${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]} ${BASH_REMATCH[6]}" >>"$records"
done <&"$in"
[ -s "$records" ] || { echo "slots_report: $log holds no slot records" >&2; exit 2; }

sort -n "$records" | awk '
  { s[NR] = $1; e[NR] = $2; t[NR] = $3; g[NR] = $4; k[NR] = $5; st[NR] = $6
    if (NR == 1 || $1 < t0) t0 = $1
    if ($2 > t1) t1 = $2 }
  END {
    printf "%-44s %-20s %-9s %9s %9s %8s %s\n", "test", "gpu", "lock", "start_s", "end_s", "secs", "status"
    for (i = 1; i <= NR; i++) {
      printf "%-44s %-20s %-9s %9.3f %9.3f %8.3f %s\n", t[i], g[i], k[i], s[i] - t0, e[i] - t0, e[i] - s[i], st[i]
      busy[g[i]] += e[i] - s[i]; tests[g[i]]++; if (k[i] == "exclusive") perf[g[i]]++
    }
    print ""
    for (x in tests)
      printf "gpu %s: %d tests (%d exclusive), %.1f s of test time\n", x, tests[x], perf[x], busy[x]
    printf "wall: %.1f s from the first start to the last end, %d GPUs\n", t1 - t0, length(tests)
    bad = 0
    for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) {
      if (g[i] != g[j] || !(s[j] < e[i] && s[i] < e[j])) continue
      if (k[i] != "exclusive" && k[j] != "exclusive") continue
      printf "OVERLAP on gpu %s: %s (%s) and %s (%s)\n", g[i], t[i], k[i], t[j], k[j]
      bad = 1
    }
    if (!bad) print "no overlap: no exclusive test shared its GPU"
    exit bad
  }'
