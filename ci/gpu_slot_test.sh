#!/usr/bin/env bash
# CPU test of ci/gpu_slot.sh with two fake GPUs: many wrapped "tests" run at once and
# record their GPU and start/end times; then the exclusion rules are checked:
#   - two exclusive (perf) holders of one GPU never overlap;
#   - a shared holder never overlaps an exclusive one on the same GPU;
#   - the exclusive holders use both GPUs;
#   - shared holders do overlap each other (correctness tests share a GPU);
#   - a test that asks for no GPU runs at once, even while every GPU is held exclusively;
#   - a perf test is not starved by a stream of correctness tests on its GPU;
#   - a waiting perf test's wait mark holds correctness tests back; a stale one does not;
#   - a GPU named by index and by UUID is one GPU (one lock), with a fake nvidia-smi.
# Each check compares events with each other, not with the clock, so that a loaded machine
# passes it; the only time limits (10-30 s) are there to end a run that would otherwise hang.
set -euo pipefail
slot="$1"
work="${TEST_TMPDIR:-$(mktemp -d)}"
export GPU_SLOT_DIR="$work/locks" GPU_SLOT_COUNT=2 GPU_SLOT_POLL=0.02
unset CUDA_VISIBLE_DEVICES
record="$work/record"
: >"$record"

# A fake test: fake.sh KIND SECONDS RECORD holds its slot for SECONDS and appends
# "KIND gpu start_ns end_ns" to RECORD. SECONDS "meet:N" instead holds it until N fake tests
# have started (at most 10 s): tests that share a GPU then surely overlap, however slow the machine.
fake="$work/fake.sh"
cat >"$fake" <<'FAKE'
#!/usr/bin/env bash
s=$(date +%s%N)
case "$2" in
  meet:*)
    echo "$s" >>"$3.started"
    for _ in $(seq 500); do [ "$(wc -l <"$3.started")" -ge "${2#meet:}" ] && break; sleep 0.02; done ;;
  *) sleep "$2" ;;
esac
e=$(date +%s%N)
echo "$1 $CUDA_VISIBLE_DEVICES $s $e" >>"$3"
FAKE
chmod +x "$fake"

run() {  # run KIND SECONDS
  if [ "$1" = exclusive ]; then
    GPU_SLOT_EXCLUSIVE=1 TEST_TARGET="//fake:perf_$RANDOM" "$slot" "$fake" "$1" "$2" "$record" 2>/dev/null
  else
    GPU_SLOT_SHARED=1 TEST_TARGET="//fake:test_$RANDOM" "$slot" "$fake" "$1" "$2" "$record" 2>/dev/null
  fi
}

# Phase 1: shared holders only; they must run together, not one after another.
for _ in 1 2 3 4; do run shared meet:2 & done
wait
# Phase 2: 7 perf tests and 8 correctness tests at once, in mixed order.
for i in 1 2 3 4 5 6 7; do
  run exclusive 0.25 &
  run shared 0.15 &
  [ "$i" -eq 7 ] && run shared 0.15 &
done
wait
# A CPU test (no GPU_SLOT_* in its env) does not wait while both GPUs are held exclusively:
# two perf tests hold them until it has run, so a wrapper that made it wait would hang (ended
# after 30 s by timeout).
release="$work/release"
for _ in 1 2; do
  GPU_SLOT_EXCLUSIVE=1 "$slot" sh -c 'touch "$1.held.$$"; until [ -e "$1" ]; do sleep 0.02; done' sh "$release" 2>/dev/null &
done
for _ in $(seq 1500); do [ "$(ls "$work" | grep -c '^release\.held\.')" -eq 2 ] && break; sleep 0.02; done
out="$(TEST_TARGET=//fake:cpu_test timeout 30 "$slot" sh -c 'echo "gpu=${CUDA_VISIBLE_DEVICES:-none}"' 2>/dev/null)" || true
touch "$release"
wait
[ "$(ls "$work" | grep -c '^release\.held\.')" -eq 2 ] || { echo "FAIL: the two perf tests did not hold both GPUs"; exit 1; }
[ -n "$out" ] || { echo "FAIL: a CPU test waited for GPUs it does not use"; exit 1; }
[ "$out" = "gpu=none" ] || { echo "FAIL: a CPU test was pinned to a GPU ($out)"; exit 1; }
echo "ok: a CPU test ran without waiting, unpinned, while both GPUs were held by perf tests"
# The wrapper passes the test's exit status through.
set +e
GPU_SLOT_EXCLUSIVE=1 "$slot" sh -c 'exit 7' 2>/dev/null
st=$?
set -e
[ "$st" -eq 7 ] || { echo "FAIL: exit status $st passed through, expected 7"; exit 1; }

cat "$record"
awk '
  { kind[NR] = $1; gpu[NR] = $2; s[NR] = $3; e[NR] = $4
    if ($1 == "exclusive") { excl++; used[$2] = 1 } else shared++ }
  END {
    bad = 0
    for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) {
      overlap = s[i] < e[j] && s[j] < e[i]
      if (!overlap) continue
      if (kind[i] == "shared" && kind[j] == "shared") { shared_overlap++; continue }
      if (gpu[i] == gpu[j]) {
        printf "FAIL: %s on GPU %s overlaps %s on GPU %s (records %d, %d)\n", kind[i], gpu[i], kind[j], gpu[j], i, j
        bad = 1
      }
    }
    if (excl != 7 || shared != 12) { printf "FAIL: %d exclusive and %d shared records, expected 7 and 12\n", excl, shared; bad = 1 }
    if (!(("0" in used) && ("1" in used))) { print "FAIL: the perf tests did not use both GPUs"; bad = 1 }
    if (shared_overlap == 0) { print "FAIL: no two shared holders overlapped"; bad = 1 }
    if (!bad) printf "ok: %d exclusive, %d shared, %d overlapping shared pairs, both GPUs used\n", excl, shared, shared_overlap
    exit bad
  }' "$record"

# One log line per test, with GPU, lock kind and times.
n="$(grep -c '^gpu_slot test=.* gpu=[01] lock=\(exclusive\|shared\) start=.* end=.* status=' "$GPU_SLOT_DIR/slots.log")"
[ "$n" -eq 22 ] || { echo "FAIL: $n lines in slots.log, expected 22 (19 + 2 holders + the exit-status run)"; exit 1; }
echo "ok: slots.log has a line per test"

# Starvation: on one GPU, correctness tests arrive every 0.1 s, 30 of them, each holding it
# 0.4 s, so that some always holds it. A perf test asks after the third. It must get the GPU once
# those already running finish, holding back the ones that arrive meanwhile, not after the
# stream: some correctness test must start after it ended. (A protocol that starves it runs it
# only once the stream is over. Comparing with the stream, not the clock, holds under load.)
export GPU_SLOT_DIR="$work/locks1" GPU_SLOT_COUNT=1
record1="$work/record1"
: >"$record1"
for i in $(seq 1 30); do
  GPU_SLOT_SHARED=1 "$slot" "$fake" shared 0.4 "$record1" 2>/dev/null &
  sleep 0.1
  if [ "$i" -eq 3 ]; then
    (asked=$(date +%s%N); GPU_SLOT_EXCLUSIVE=1 "$slot" "$fake" exclusive 0.1 "$record1" 2>/dev/null
     echo "asked $asked" >>"$record1") &
  fi
done
wait
awk '$1 == "asked" { asked = $2 } $1 == "exclusive" { s = $3; e = $4 } $1 == "shared" { n++; S[n] = $3; E[n] = $4 }
  END {
    for (i = 1; i <= n; i++) {
      if (S[i] < e && s < E[i]) { print "FAIL: the perf test overlapped a correctness test"; exit 1 }
      if (S[i] > asked && S[i] < s) during++
      if (S[i] >= e) after++
    }
    printf "the perf test waited %d ms; of the correctness tests, %d started while it waited, %d after it ended\n",
      (s - asked) / 1e6, during, after
    if (after == 0) { print "FAIL: the perf test was starved by the stream of correctness tests"; exit 1 }
    print "ok: the perf test ran before the stream of correctness tests ended"
  }' "$record1"
[ -z "$(ls "$GPU_SLOT_DIR" | grep wait)" ] || { echo "FAIL: wait marks left:" $(ls "$GPU_SLOT_DIR" | grep wait); exit 1; }

# Wait marks directly: a live one (its lock held) keeps a correctness test off its GPU until it
# goes; one left by a killed perf test (lock free) is ignored and removed; a perf test stopped
# while it waits takes its marks away.
export GPU_SLOT_DIR="$work/locks3" GPU_SLOT_COUNT=1
mkdir -p "$GPU_SLOT_DIR"
touch "$GPU_SLOT_DIR/gpu-0.wait.stale01" "$GPU_SLOT_DIR/wait.stale01"
GPU_SLOT_SHARED=1 timeout 30 "$slot" true 2>/dev/null || { echo "FAIL: a stale wait mark kept a correctness test off"; exit 1; }
[ ! -e "$GPU_SLOT_DIR/gpu-0.wait.stale01" ] && [ ! -e "$GPU_SLOT_DIR/wait.stale01" ] ||
  { echo "FAIL: a stale wait mark was not removed"; exit 1; }
touch "$GPU_SLOT_DIR/gpu-0.wait.live01"
(exec 9<"$GPU_SLOT_DIR/gpu-0.wait.live01"; flock -x 9; touch "$work/marked"; sleep 0.5; touch "$work/unmarked") &
until [ -e "$work/marked" ]; do sleep 0.02; done
out="$(GPU_SLOT_SHARED=1 "$slot" sh -c '[ -e "$1" ] && echo after || echo during' sh "$work/unmarked" 2>/dev/null)"
wait
[ "$out" = after ] || { echo "FAIL: a correctness test ran on a GPU marked by a waiting perf test"; exit 1; }
rm -f "$GPU_SLOT_DIR/gpu-0.wait.live01"
GPU_SLOT_EXCLUSIVE=1 "$slot" sh -c 'touch "$1.held"; until [ -e "$1" ]; do sleep 0.02; done' sh "$work/release3" 2>/dev/null &
holder=$!
until [ -e "$work/release3.held" ]; do sleep 0.02; done
GPU_SLOT_EXCLUSIVE=1 "$slot" true 2>/dev/null &
waiter=$!
for _ in $(seq 1500); do ls "$GPU_SLOT_DIR" | grep -q '^gpu-0\.wait\.' && break; sleep 0.02; done
ls "$GPU_SLOT_DIR" | grep -q '^gpu-0\.wait\.' || { echo "FAIL: a waiting perf test did not mark its GPU"; exit 1; }
kill -TERM "$waiter"
wait "$waiter" || true
touch "$work/release3"
wait "$holder"
[ -z "$(ls "$GPU_SLOT_DIR" | grep wait)" ] || { echo "FAIL: a perf test stopped while waiting left" $(ls "$GPU_SLOT_DIR" | grep wait); exit 1; }
echo "ok: a live wait mark holds correctness tests back, a stale one does not; a stopped perf test leaves none"

# Names: with nvidia-smi present, a GPU named by index and the same GPU named by UUID (or a
# UUID prefix) take one lock, and the test is pinned by the full UUID.
unset GPU_SLOT_COUNT
export GPU_SLOT_DIR="$work/locks2"
A=GPU-aaaaaaaa-1111-2222-3333-444444444444
B=GPU-bbbbbbbb-1111-2222-3333-444444444444
bin="$work/bin"
mkdir -p "$bin"
cat >"$bin/nvidia-smi" <<SMI
#!/bin/sh
case "\$*" in
  *--query-gpu=index,uuid*) printf '0, $A\n1, $B\n' ;;
  -L) printf 'GPU 0: Fake (UUID: $A)\nGPU 1: Fake (UUID: $B)\n' ;;
esac
SMI
chmod +x "$bin/nvidia-smi"
record2="$work/record2"
: >"$record2"
PATH="$bin:$PATH" CUDA_VISIBLE_DEVICES=1 GPU_SLOT_EXCLUSIVE=1 "$slot" "$fake" by_index 0.6 "$record2" 2>/dev/null &
sleep 0.2
PATH="$bin:$PATH" CUDA_VISIBLE_DEVICES=GPU-bbbb GPU_SLOT_EXCLUSIVE=1 "$slot" "$fake" by_uuid 0.1 "$record2" 2>/dev/null
wait
PATH="$bin:$PATH" GPU_SLOT_SHARED=1 "$slot" "$fake" all_gpus 0.0 "$record2" 2>/dev/null
PATH="$bin:$PATH" CUDA_VISIBLE_DEVICES=" 1, 0" GPU_SLOT_SHARED=1 "$slot" "$fake" spaced 0.0 "$record2" 2>/dev/null
cat "$record2"
awk -v A="$A" -v B="$B" '
  $1 == "by_index" { gi = $2; si = $3; ei = $4 }
  $1 == "by_uuid" { gu = $2; su = $3; eu = $4 }
  $1 == "all_gpus" { ga = $2 }
  $1 == "spaced" { gs = $2 }
  END {
    if (gi != B || gu != B) { printf "FAIL: pinned to %s and %s, expected %s twice\n", gi, gu, B; exit 1 }
    if (su < ei && si < eu) { print "FAIL: GPU 1 named by index and by UUID prefix was held by two perf tests at once"; exit 1 }
    if (ga != A && ga != B) { printf "FAIL: with no CUDA_VISIBLE_DEVICES the test was pinned to %s, not a UUID\n", ga; exit 1 }
    if (gs != A && gs != B) { printf "FAIL: with CUDA_VISIBLE_DEVICES=\" 1, 0\" the test was pinned to \"%s\"\n", gs; exit 1 }
    print "ok: index 1 and UUID prefix GPU-bbbb took one lock; tests are pinned by UUID, spaces ignored"
  }' "$record2"

# nvidia-smi present but not answering: the test stops (exit 2) and says why, rather than lock
# the GPU under a second name.
cat >"$bin/nvidia-smi" <<'SMI'
#!/bin/sh
echo "Failed to initialize NVML: Driver/library version mismatch"
exit 18
SMI
set +e
msg="$(PATH="$bin:$PATH" CUDA_VISIBLE_DEVICES=0 GPU_SLOT_EXCLUSIVE=1 "$slot" true 2>&1)"
st=$?
set -e
[ "$st" -eq 2 ] || { echo "FAIL: an unresolvable GPU name gave exit $st, expected 2"; exit 1; }
grep -q "cannot find the UUID of GPU 0" <<<"$msg" || { echo "FAIL: message: $msg"; exit 1; }
echo "ok: with nvidia-smi failing, a GPU named by index stops the test: $msg"

# No GPU found, or a GPU_SLOT_COUNT that is no number of GPUs: a GPU test is never run unlocked.
# The wrapper stops it (exit 2) naming GPU_SLOT_COUNT and the fix; the test does not start.
no_gpu() {  # no_gpu WHAT TEXT ENV...: the wrapper run with ENV exits 2 saying TEXT and GPU_SLOT_COUNT
  local what="$1" text="$2" msg st
  shift 2
  rm -f "$work/ran"
  set +e
  msg="$(env -u GPU_SLOT_COUNT -u CUDA_VISIBLE_DEVICES GPU_SLOT_DIR="$work/locks4" GPU_SLOT_EXCLUSIVE=1 \
    TEST_TARGET=//fake:perf "$@" "$BASH" "$slot" /bin/touch "$work/ran" 2>&1)"
  st=$?
  set -e
  [ "$st" -eq 2 ] || { echo "FAIL: $what: exit $st, expected 2 ($msg)"; exit 1; }
  [ ! -e "$work/ran" ] || { echo "FAIL: $what: the test ran with no GPU lock"; exit 1; }
  grep -qF -- "$text" <<<"$msg" || { echo "FAIL: $what: the message does not say '$text': $msg"; exit 1; }
  grep -q 'set GPU_SLOT_COUNT to the number of GPUs' <<<"$msg" || { echo "FAIL: $what: no fix named: $msg"; exit 1; }
  grep -q 'without a GPU, test with --config=cpu' <<<"$msg" || { echo "FAIL: $what: --config=cpu not named: $msg"; exit 1; }
  ! grep -q 'unbound variable' <<<"$msg" || { echo "FAIL: $what: $msg"; exit 1; }
  echo "ok: $what: $msg"
}
for count in abc 0 -1 1.5 " 2" 00; do
  no_gpu "GPU_SLOT_COUNT='$count'" "GPU_SLOT_COUNT='$count' is not a number of GPUs" GPU_SLOT_COUNT="$count"
done
mkdir -p "$work/nobin"  # a PATH without nvidia-smi (the wrapper needs no other program to get that far)
no_gpu "nvidia-smi not on the PATH" "nvidia-smi is not on the test's PATH" PATH="$work/nobin"
no_gpu "nvidia-smi -L failing" "'nvidia-smi -L' failed: Failed to initialize NVML" PATH="$bin:$PATH"
printf '#!/bin/sh\nexit 0\n' >"$bin/nvidia-smi"
no_gpu "nvidia-smi -L listing none" "'nvidia-smi -L' lists none" PATH="$bin:$PATH"
no_gpu "CUDA_VISIBLE_DEVICES naming none" "CUDA_VISIBLE_DEVICES=' , ' names no GPU" CUDA_VISIBLE_DEVICES=" , "
# GPU_SLOT_COUNT=01 is one GPU; a CPU test (no GPU_SLOT_*) still runs at once with none.
GPU_SLOT_DIR="$work/locks4" GPU_SLOT_COUNT=01 GPU_SLOT_EXCLUSIVE=1 "$slot" true 2>/dev/null ||
  { echo "FAIL: GPU_SLOT_COUNT=01 was refused"; exit 1; }
env -u GPU_SLOT_COUNT PATH="$work/nobin" "$BASH" "$slot" /bin/true 2>/dev/null ||
  { echo "FAIL: a CPU test did not run on a host with no GPU"; exit 1; }
echo "ok: no GPU or a bad GPU_SLOT_COUNT stops a GPU test (exit 2); a CPU test still runs"

# A perf test that leaves a process behind (it keeps every descriptor it was given) does not keep its GPU: the
# next perf test of a one-GPU host starts while that process lives (#56 S02). The 60 s only end a hang.
leftover="$work/leftover.sh"
printf '#!/bin/sh
sleep 300 &
echo $! > "%s/leftover.pid"
' "$work" >"$leftover"
chmod +x "$leftover"
GPU_SLOT_DIR="$work/locks5" GPU_SLOT_COUNT=1 GPU_SLOT_EXCLUSIVE=1 TEST_TARGET=//fake:perf_a "$slot" "$leftover" \
  2>/dev/null || { echo "FAIL: the test that leaves a process behind did not run"; exit 1; }
st=0
GPU_SLOT_DIR="$work/locks5" GPU_SLOT_COUNT=1 GPU_SLOT_EXCLUSIVE=1 TEST_TARGET=//fake:perf_b timeout 60 "$slot" true \
  2>/dev/null || st=$?
kill "$(cat "$work/leftover.pid")" 2>/dev/null || true
[ "$st" -eq 0 ] || { echo "FAIL: a process left by a finished perf test held its GPU (exit $st)"; exit 1; }
echo "ok: a process left by a perf test does not hold its GPU"
