#!/usr/bin/env bash
# CPU test of ci/soak.sh --summarize on two made-up rounds: one clean, one with a
# confirmed regression (and a row in the format of summaries written before 2026-11-23), then
# a round in today's format (p and evidence columns) with a short and a long benchmark; --rejudge with
# a stand-in gate, then with the real one ($2) on made-up runs.
set -euo pipefail
soak="$1"
real_gate="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
work="${TEST_TMPDIR:-$(mktemp -d)}/soak"
# expect_line LINE WHAT: the last output ($out) has LINE as a whole line, else the test fails.
expect_line() { grep -qx -- "$1" <<<"$out" || { echo "FAIL: $2"; exit 1; }; }
mkdir -p "$work/round1/perf/x_perf_test" "$work/round2/perf/x_perf_test"
table='| Benchmark | Baseline (us) | New (us) | Delta | Allowed | GB/s | of copy | Verdict |
|---|---:|---:|---:|---:|---:|---:|---|'
cat >"$work/round1/perf/x_perf_test/summary.md" <<MD
## x_bench on Test GPU: passed

$table
| \`x/a/N:1\` | 10.000 | 10.100 | +1.00% | 3.0% | 1.0 | 1.0% | same |
| \`x/b/N:1\` | 20.000 | 19.900 | -0.50% | 3.0% | 1.0 | 1.0% | same (first +5.00%, not confirmed: re-measured -0.50%) |
MD
echo 0 >"$work/round1/exit_status"
cat >"$work/round2/perf/x_perf_test/summary.md" <<MD
## x_bench on Test GPU: FAILED

$table
| \`x/a/N:1\` | 10.000 | 10.525 | +5.25% | 3.0% | 1.0 | 1.0% | **slower** (confirmed: first +5.25%, re-measured +5.25%) |
| \`x/b/N:1\` | 20.000 | 20.100 | +0.50% | 3.0% | 1.0 | 1.0% | same(first +4.00%, not confirmed: re-measured +0.50%) |
| \`x/c/N:1\` | 20.000 | - | - | - | - | - | **missing** |
MD
echo 3 >"$work/round2/exit_status"

set +e
out="$(bash "$soak" --summarize "$work" 2>&1)"
status=$?
set -e
echo "$out"
[ "$status" -eq 1 ] || { echo "FAIL: exit status $status with a failed round, expected 1"; exit 1; }
expect_line 'round 1: gate exit 0; 2 benchmarks: 2 same; largest slowdown +1.00% = +0.10 us (x/a/N:1, allowed 3.0%)' "round 1 line"
grep -q '^round 2: gate exit 3; 3 benchmarks:.* 1 slower.*largest slowdown +5.25% = +0.53 us (x/a/N:1, allowed 3.0%)$' <<<"$out" ||
  { echo "FAIL: round 2 line"; exit 1; }
expect_line 'soak: 2 rounds, 1 failed; 5 verdicts, 1 slower; largest slowdown +5.25% = +0.53 us (x/a/N:1, round 2)' "overall line"
expect_line '  under 50 us: largest slowdown +5.25% = +0.53 us (x/a/N:1, allowed 3.0%)' "round 2 short-class line"
# Today's columns: p and the evidence; worst per size class, with p.
mkdir -p "$work/round4/perf/y_perf_test"
cat >"$work/round4/perf/y_perf_test/summary.md" <<MD
## y_bench on Test GPU: passed

| Benchmark | Baseline (us) | New (us) | Delta | Allowed | p | GB/s | of copy | Evidence | Verdict |
|---|---:|---:|---:|---:|---:|---:|---:|---|---|
| \`y/a/N:1\` | 7.000 | 7.140 | +2.00% | 3.0% | 0.004 | 1.0 | 1.0% | 64 ctx/9k vs 16 ctx/2k | same |
| \`y/a/N:2\` | 7.000 | 7.070 | +1.00% | 3.0% | 0.2 | 1.0 | 1.0% | 64 ctx/9k vs 16 ctx/2k | same |
| \`y/b/N:1\` | 300.000 | 303.600 | +1.20% | 3.0% | 0.03 | 1.0 | 1.0% | 4 ctx/900 vs 1 ctx/300 | same |
MD
echo 0 >"$work/round4/exit_status"
out="$(bash "$soak" --summarize "$work" 2>&1)" || true
echo "$out"
expect_line 'round 4: gate exit 0; 3 benchmarks: 3 same; largest slowdown +2.00% = +0.14 us (y/a/N:1, allowed 3.0%)' "round 4 line"
expect_line '  under 50 us: largest slowdown +2.00% = +0.14 us (y/a/N:1, allowed 3.0%, p 0.004)' "round 4 short line"
expect_line '  50 us or more: largest slowdown +1.20% = +3.60 us (y/b/N:1, allowed 3.0%, p 0.03)' "round 4 long line"
expect_line 'soak: under 50 us: largest slowdown +5.25% = +0.53 us (x/a/N:1, round 2)' "overall short line"
expect_line 'soak: 50 us or more: largest slowdown +1.20% = +3.60 us (y/b/N:1, round 4, p 0.03)' "overall long line"

# A "|" in a benchmark name is written "\|" in summary.md (perf/gate/summary_md.c): still one column,
# and its slower verdict is counted.
mkdir -p "$work/pipe/round1/perf/z_perf_test"
cat >"$work/pipe/round1/perf/z_perf_test/summary.md" <<'MD'
## z_bench on Test GPU: FAILED

| Benchmark | Baseline (us) | New (us) | Delta | Allowed | p | GB/s | of copy | Evidence | Verdict |
|---|---:|---:|---:|---:|---:|---:|---:|---|---|
| `z/a\|b/N:1` | 100.000 | 110.000 | +10.00% | 3.0% | 0.001 | 1.0 | 1.0% | 4 ctx/900 vs 4 ctx/300 | **slower** (confirmed: a\|b) |
| `z/c/N:1` | 7.000 | 7.070 | +1.00% | 3.0% | 0.2 | 1.0 | 1.0% | 64 ctx/9k vs 16 ctx/2k | same |
MD
echo 3 >"$work/pipe/round1/exit_status"
out="$(bash "$soak" --summarize "$work/pipe" 2>&1)" || true
echo "$out"
expect_line 'soak: 1 rounds, 1 failed; 2 verdicts, 1 slower; largest slowdown +10.00% = +10.00 us (z/a|b/N:1, round 1)' \
  "a | in a name"
rm -rf "$work/round4"
# A clean soak exits 0; rounds come in numeric order; a round with no summaries is said so.
rm -rf "$work/round2"
mkdir -p "$work/round10" "$work/round3"
echo 0 >"$work/round10/exit_status"
echo 0 >"$work/round3/exit_status"
out="$(bash "$soak" --summarize "$work")" || { echo "FAIL: a clean soak did not exit 0"; exit 1; }
echo "$out"
[ "$(grep -o '^round [0-9]*' <<<"$out" | tr '\n' ' ')" = "round 1 round 3 round 10 " ] ||
  { echo "FAIL: rounds out of order"; exit 1; }
expect_line 'round 10: gate exit 0; no perf summaries' "empty round line"
# A round on a GPU with no baseline at all: each perf test wrote a candidate and compared nothing (the runs to bless).
mkdir -p "$work/round3/perf/x_perf_test" "$work/round3/perf/y_perf_test"
touch "$work/round3/perf/x_perf_test/test-gpu.candidate.json" "$work/round3/perf/y_perf_test/test-gpu.candidate.json"
out="$(bash "$soak" --summarize "$work")" || { echo "FAIL: a soak with a first-GPU round did not exit 0"; exit 1; }
expect_line 'round 3: gate exit 0; no baseline of this GPU yet: 2 families measured, nothing compared (runs to bless: ci/bless.sh)' \
  "a round of a GPU with no baseline"
rm -rf "$work/round3/perf"
expect_line 'soak: 3 rounds, 0 failed; 2 verdicts, 0 slower; largest slowdown +1.00% = +0.10 us (x/a/N:1, round 1)' "overall line with empty rounds"
rm -rf "$work/round1"
out="$(bash "$soak" --summarize "$work")"
expect_line 'soak: 2 rounds, 0 failed; 0 verdicts, 0 slower' "overall line with no summaries"
set +e
bash "$soak" 0 >/dev/null 2>&1; s1=$?
bash "$soak" --summarize "$work/none" >/dev/null 2>&1; s2=$?
set -e
[ "$s1" -eq 2 ] && [ "$s2" -eq 2 ] || { echo "FAIL: bad usage gave $s1 and $s2, expected 2"; exit 1; }
# An --artifacts folder that cannot be made (under a file) is exit 2 naming it, before any round: its rounds once
# went to /round1.
: >"$work/afile"
set +e
out="$(bash "$soak" 1 --artifacts="$work/afile/soak" 2>&1)"; s3=$?
set -e
[ "$s3" -eq 2 ] && grep -qF -- "--artifacts=$work/afile/soak: cannot create" <<<"$out" && ! grep -q "round 1 of" <<<"$out" ||
  { echo "FAIL: an --artifacts folder that cannot be made: exit $s3: $out"; exit 1; }

# --rejudge: each perf test's run JSON (not its re-measure) goes to gate compare (a stand-in here,
# $GATE) with the baselines folder, the re-measure when there is one and an out_dir; compare's exit 1
# is a failed round (3, as gate.sh), its exit 2 makes the whole re-judge exit 2.
rj="$(dirname "$work")/rejudge"
mkdir -p "$rj/src/round1/perf/x_perf_test" "$rj/src/round2/perf/x_perf_test" "$rj/bl"
echo SAME >"$rj/src/round1/perf/x_perf_test/x_bench.json"
echo SLOW >"$rj/src/round2/perf/x_perf_test/x_bench.json"
echo SLOW >"$rj/src/round2/perf/x_perf_test/x_bench.recheck.json"
cat >"$rj/gate" <<'SH'
#!/usr/bin/env bash
for a in "$@"; do case "$a" in --out_dir=*) out="${a#--out_dir=}" ;; --*) ;; *) run="$a" ;; esac; done
echo "$*" >"$out/args"
[ "$1" = compare ] && grep -q 'SAME\|SLOW' "$run" || exit 2
if grep -q SLOW "$run"; then row='10.900 | +9.00% | 3.0% | 0.001 | **slower** (confirmed) |'; st=1
else row='10.100 | +1.00% | 3.0% | 0.2 | same |'; st=0; fi
printf '| Benchmark | Baseline (us) | New (us) | Delta | Allowed | p | Verdict |\n|---|---:|---:|---:|---:|---:|---|\n| `x/a/N:1` | 10.000 | %s\n' "$row" >"$out/summary.md"
exit "$st"
SH
chmod +x "$rj/gate"
set +e
out="$(GATE="$rj/gate" bash "$soak" --rejudge "$rj/src" "$rj/out" "--baselines=$rj/bl" --tolerance=0.04 2>&1)"; st=$?
set -e
echo "$out"
[ "$st" -eq 1 ] || { echo "FAIL: --rejudge with a slower round: exit $st, expected 1"; exit 1; }
expect_line 'round 1: gate exit 0; 1 benchmarks: 1 same; largest slowdown +1.00% = +0.10 us (x/a/N:1, allowed 3.0%)' "--rejudge round 1 line"
expect_line 'round 2: gate exit 3; 1 benchmarks: 1 slower; largest slowdown +9.00% = +0.90 us (x/a/N:1, allowed 3.0%)' "--rejudge round 2 line"
want1="compare --baselines=$rj/bl --tolerance=0.04 --out_dir=$rj/out/round1/perf/x_perf_test $rj/src/round1/perf/x_perf_test/x_bench.json"
want2="compare --baselines=$rj/bl --tolerance=0.04 --recheck=$rj/src/round2/perf/x_perf_test/x_bench.recheck.json --out_dir=$rj/out/round2/perf/x_perf_test $rj/src/round2/perf/x_perf_test/x_bench.json"
[ "$(cat "$rj/out/round1/perf/x_perf_test/args")" = "$want1" ] || { echo "FAIL: --rejudge round 1 arguments"; exit 1; }
[ "$(cat "$rj/out/round2/perf/x_perf_test/args")" = "$want2" ] || { echo "FAIL: --rejudge round 2 arguments"; exit 1; }
# An existing OUT is never overwritten; a run compare cannot read, or no baselines folder, is exit 2.
set +e
GATE="$rj/gate" bash "$soak" --rejudge "$rj/src" "$rj/out" "--baselines=$rj/bl" >/dev/null 2>&1; s1=$?
echo BAD >"$rj/src/round1/perf/x_perf_test/x_bench.json"
GATE="$rj/gate" bash "$soak" --rejudge "$rj/src" "$rj/out2" "--baselines=$rj/bl" >/dev/null 2>&1; s2=$?
GATE="$rj/gate" bash "$soak" --rejudge "$rj/src" "$rj/out3" "--baselines=$rj/none" >/dev/null 2>&1; s3=$?
set -e
[ "$s1" -eq 2 ] && [ "$s2" -eq 2 ] && [ "$s3" -eq 2 ] ||
  { echo "FAIL: --rejudge bad input gave $s1, $s2, $s3, expected 2"; exit 1; }

# --rejudge with the real gate: a slower verdict of a round that wrote no re-measure (its gate saw nothing
# slower then) is unconfirmed, said in its verdict and in the summary; one whose re-measure is slower too is
# confirmed. Runs of three benchmarks x/a, x/b, x/c (1, 2, 3 us), 25 samples each spread +-1 %.
# mkrun FILE SEED SCALE: x/a's time scaled by SCALE; SEED sets the run's date and GPU.
mkrun() {
  local file="$1" seed="$2" scale="$3" b median first=1
  {
    printf '{"context": {"json_schema_version": 1, "date": "2026-11-22T00:00:%02d+00:00", "host_name": "h",' "$seed"
    printf ' "copy_bandwidth_GBps": 3000.0, "gpu": {"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-soak-%04d",' "$seed"
    printf ' "sm_count": 132, "mem_clock_max_mhz": 2619.0, "bus_width_bits": 5120, "ecc": true,'
    printf ' "driver_version": "580.159.04", "runtime_version": "13.0"}}, "benchmarks": ['
    for b in a:1000 b:2000 c:3000; do
      median="${b#*:}"
      [ "${b%%:*}" = a ] && median="$(awk -v m="$median" -v s="$scale" 'BEGIN { printf "%.3f", m * s }')"
      [ -n "$first" ] || printf ', '
      first=
      printf '{"name": "x/%s/N:1", "run_name": "x/%s/N:1", "run_type": "iteration", "iterations": 25,' "${b%%:*}" "${b%%:*}"
      printf ' "real_time": %s, "time_unit": "ns", "bytes_per_second": 1e12, "samples": [%s]}' "$median" \
        "$(awk -v m="$median" 'BEGIN { for (k = 0; k < 25; k++) printf "%s%.3f", k ? ", " : "", m * (0.99 + 0.02 * k / 24) }')"
    done
    printf ']}\n'
  } >"$file"
}
real="$(dirname "$work")/real"
mkdir -p "$real/bl" "$real/src/round1/perf/x_perf_test" "$real/src/round2/perf/x_perf_test"
mkrun "$real/r1.json" 1 1.0
mkrun "$real/r2.json" 2 1.005
mkrun "$real/r3.json" 3 0.995
"$real_gate" bless --baselines="$real/bl" "$real/r1.json" "$real/r2.json" "$real/r3.json" >/dev/null 2>&1 ||
  { echo "FAIL: the made-up runs could not be blessed"; exit 1; }
mkrun "$real/src/round1/perf/x_perf_test/x_bench.json" 4 1.2 # no re-measure
mkrun "$real/src/round2/perf/x_perf_test/x_bench.json" 5 1.2
mkrun "$real/src/round2/perf/x_perf_test/x_bench.recheck.json" 5 1.2
echo 0 >"$real/src/round1/exit_status"
echo 0 >"$real/src/round2/exit_status"
set +e
out="$(GATE="$real_gate" bash "$soak" --rejudge "$real/src" "$real/out" "--baselines=$real/bl" --min_delta_us=0 2>&1)"; st=$?
set -e
echo "$out"
[ "$st" -eq 1 ] || { echo "FAIL: --rejudge with the real gate: exit $st, expected 1"; exit 1; }
grep -q '| `x/a/N:1` |.*| \*\*slower\*\*: .* (not re-measured: unconfirmed) |$' "$real/out/round1/perf/x_perf_test/summary.md" ||
  { echo "FAIL: a slower verdict that was not re-measured does not say it is unconfirmed"; exit 1; }
grep -q '| `x/a/N:1` |.*| \*\*slower\*\*: .* (confirmed: first +' "$real/out/round2/perf/x_perf_test/summary.md" ||
  { echo "FAIL: a slower verdict with a slower re-measure is not confirmed"; exit 1; }
grep -q 'unconfirmed' "$real/out/round2/perf/x_perf_test/summary.md" &&
  { echo "FAIL: a re-measured verdict is called unconfirmed"; exit 1; }
grep -q '^soak: 2 rounds, 2 failed; 6 verdicts, 2 slower (1 unconfirmed: not re-measured); ' <<<"$out" ||
  { echo "FAIL: the soak summary does not count the unconfirmed slower verdict"; exit 1; }

# Relative folders are the caller's, not the repository's (the script cd's there), spaces and all.
soak_abs="$(cd "$(dirname "$soak")" && pwd)/$(basename "$soak")"
caller="$(dirname "$work")/a caller"
mkdir -p "$caller"
mv "$work" "$caller/my soak"
set +e
out="$(cd "$caller" && BAZEL=false bash "$soak_abs" --summarize "my soak" 2>&1)"; st=$?
set -e
[ "$st" -eq 0 ] || { echo "FAIL: --summarize with a folder relative to the caller: exit $st: $out"; exit 1; }
grep -qx 'soak: 2 rounds, 0 failed; 0 verdicts, 0 slower' <<<"$out" || { echo "FAIL: relative folder: $out"; exit 1; }
set +e
out="$(cd "$caller" && BAZEL=false bash "$soak_abs" --summarize "no such soak" 2>&1)"; st=$?
set -e
[ "$st" -eq 2 ] || { echo "FAIL: a missing folder gave exit $st, expected 2"; exit 1; }
grep -q "no folder $caller/no such soak" <<<"$out" || { echo "FAIL: a missing folder is not named: $out"; exit 1; }
# --artifacts too: a round already there is refused (exit 2) before any gate runs.
mkdir "$caller/my soak/round1"
set +e
out="$(cd "$caller" && BAZEL=false bash "$soak_abs" 1 "--artifacts=my soak" 2>&1)"; st=$?
set -e
[ "$st" -eq 2 ] || { echo "FAIL: --artifacts with an existing round: exit $st, expected 2: $out"; exit 1; }
grep -q "$caller/my soak/round1 exists" <<<"$out" || { echo "FAIL: --artifacts relative to the caller: $out"; exit 1; }
echo "ok"
