#!/usr/bin/env bash
# CPU test of ci/slots_report.sh on made-up slot logs: a clean two-GPU run (perf tests in
# parallel on both GPUs, correctness tests sharing one), an overlap, a bad line, a record that
# ends before it starts, and paths that are not a readable file (exit 2, never 1, which means
# an overlap).
set -uo pipefail
report="$1"
work="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }
rec() {  # rec TEST GPU LOCK START END
  echo "gpu_slot test=$1 gpu=$2 lock=$3 start=2026-11-23T10:00:$4Z end=2026-11-23T10:00:$5Z status=0"
}

# Clean: two perf tests at once on two GPUs, then two correctness tests together on GPU A, and a
# perf test on A that starts the moment the last of them ends (touching is not overlapping).
{
  rec //kernels/a:a_perf_test GPU-a exclusive 00.000 04.000
  rec //kernels/b:b_perf_test GPU-b exclusive 00.500 06.000
  rec //kernels/x:x_test GPU-a shared 04.100 07.000
  rec //kernels/y:y_test GPU-a shared 04.200 08.000
  rec //kernels/c:c_perf_test GPU-a exclusive 08.000 10.000
} >"$work/clean.log"
out="$(bash "$report" "$work/clean.log")"; st=$?
echo "$out"
[ "$st" -eq 0 ] || fail "clean log: exit $st, expected 0"
grep -q '^gpu GPU-a: 4 tests (2 exclusive), 12.7 s of test time$' <<<"$out" || fail "clean log: GPU-a line"
grep -q '^gpu GPU-b: 1 tests (1 exclusive), 5.5 s of test time$' <<<"$out" || fail "clean log: GPU-b line"
grep -q '^wall: 10.0 s from the first start to the last end, 2 GPUs$' <<<"$out" || fail "clean log: wall line"
grep -q '^no overlap' <<<"$out" || fail "clean log: no 'no overlap' line"

# Overlap: a correctness test ran on GPU-b while its perf test held it.
{ cat "$work/clean.log"; rec //kernels/z:z_test GPU-b shared 05.000 05.500; } >"$work/overlap.log"
out="$(bash "$report" "$work/overlap.log")"; st=$?
[ "$st" -eq 1 ] || fail "overlap log: exit $st, expected 1"
grep -q '^OVERLAP on gpu GPU-b: //kernels/b:b_perf_test (exclusive) and //kernels/z:z_test (shared)$' <<<"$out" ||
  fail "overlap log: no OVERLAP line naming both tests: $out"

# Bad input: a line that is not a record, and a missing file.
{ cat "$work/clean.log"; echo "gpu_slot test=//x gpu=0 lock=whatever"; } >"$work/bad.log"
err="$(bash "$report" "$work/bad.log" 2>&1)"; st=$?
[ "$st" -eq 2 ] || fail "bad log: exit $st, expected 2"
grep -q 'line 6 is not a slot record' <<<"$err" || fail "bad log: message does not name line 6: $err"
bash "$report" "$work/missing.log" 2>/dev/null; st=$?
[ "$st" -eq 2 ] || fail "missing log: exit $st, expected 2"

# A record whose end is before its start would give a negative duration: refused, line named.
{ cat "$work/clean.log"; rec //kernels/w:w_test GPU-b shared 09.000 08.500; } >"$work/backwards.log"
err="$(bash "$report" "$work/backwards.log" 2>&1)"; st=$?
[ "$st" -eq 2 ] || fail "end before start: exit $st, expected 2: $err"
grep -q 'backwards.log line 6 ends before it starts' <<<"$err" || fail "end before start: message does not name line 6: $err"

# A directory, or a file that cannot be read: exit 2 with the path, not 1 ("overlap found").
mkdir -p "$work/logdir"
err="$(bash "$report" "$work/logdir" 2>&1)"; st=$?
[ "$st" -eq 2 ] || fail "directory: exit $st, expected 2: $err"
grep -q "$work/logdir is a directory" <<<"$err" || fail "directory: message does not name it: $err"
cp "$work/clean.log" "$work/unreadable.log"
chmod 000 "$work/unreadable.log"
if [ -r "$work/unreadable.log" ]; then
  echo "skipped: an unreadable file (this user reads every file)"
else
  err="$(bash "$report" "$work/unreadable.log" 2>&1)"; st=$?
  [ "$st" -eq 2 ] || fail "unreadable file: exit $st, expected 2: $err"
  grep -q "cannot read $work/unreadable.log" <<<"$err" || fail "unreadable file: message does not name it: $err"
fi
echo "ok: clean run summed up, overlap found (exit 1), bad line, backwards record, directory named (exit 2)"
