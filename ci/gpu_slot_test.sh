#!/usr/bin/env bash
# CPU test of ci/gpu_slot.sh with two fake GPUs: many wrapped "tests" run at once and
# record their GPU and start/end times; then the exclusion rules are checked:
#   - two exclusive (perf) holders of one GPU never overlap;
#   - a shared holder never overlaps an exclusive one on the same GPU;
#   - the exclusive holders use both GPUs;
#   - shared holders do overlap each other (correctness tests share a GPU);
#   - a test that asks for no GPU runs at once, even while every GPU is held exclusively;
#   - a perf test is not starved by a stream of correctness tests on its GPU;
#   - a GPU named by index and by UUID is one GPU (one lock), with a fake nvidia-smi.
set -euo pipefail
slot="$1"
work="${TEST_TMPDIR:-$(mktemp -d)}"
export GPU_SLOT_DIR="$work/locks" GPU_SLOT_COUNT=2 GPU_SLOT_POLL=0.02
unset CUDA_VISIBLE_DEVICES
record="$work/record"
: >"$record"

# A fake test: holds its slot for $1 seconds and appends "kind gpu start_ns end_ns".
fake="$work/fake.sh"
cat >"$fake" <<'FAKE'
#!/usr/bin/env bash
s=$(date +%s%N); sleep "$2"; e=$(date +%s%N)
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
for _ in 1 2 3 4; do run shared 0.4 & done
wait
# Phase 2: 6 perf tests and 8 correctness tests at once, in mixed order.
for i in 1 2 3 4 5 6 7; do
  run exclusive 0.25 &
  run shared 0.15 &
  [ "$i" -eq 7 ] && run shared 0.15 &
done
wait
# A CPU test (no GPU_SLOT_* in its env) does not wait while both GPUs are held exclusively.
GPU_SLOT_EXCLUSIVE=1 "$slot" sleep 2 2>/dev/null &
GPU_SLOT_EXCLUSIVE=1 "$slot" sleep 2 2>/dev/null &
sleep 0.5
t0=$(date +%s%N)
out="$(TEST_TARGET=//fake:cpu_test "$slot" sh -c 'echo "gpu=${CUDA_VISIBLE_DEVICES:-none}"' 2>/dev/null)"
waited_ms=$((($(date +%s%N) - t0) / 1000000))
wait
[ "$out" = "gpu=none" ] || { echo "FAIL: a CPU test was pinned to a GPU ($out)"; exit 1; }
[ "$waited_ms" -lt 1000 ] || { echo "FAIL: a CPU test waited ${waited_ms} ms for GPUs it does not use"; exit 1; }
echo "ok: a CPU test ran at once (${waited_ms} ms) while both GPUs were held by perf tests"
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

# Starvation: on one GPU, correctness tests arrive every 0.1 s for 3 s, each holding it
# 0.4 s, so that some always holds it. A perf test arriving at 0.3 s must get the GPU once
# those already running finish (about 0.4 s later), not after the stream (about 3 s).
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
asked=$(awk '$1 == "asked" { print $2 }' "$record1")
began=$(awk '$1 == "exclusive" { print $3 }' "$record1")
last_shared_end=$(awk '$1 == "shared" && $4 > m { m = $4 } END { print m }' "$record1")
waited_ms=$(((began - asked) / 1000000))
awk '$1 == "exclusive" { s = $3; e = $4 } $1 == "shared" { n++; S[n] = $3; E[n] = $4 }
  END { for (i = 1; i <= n; i++) if (S[i] < e && s < E[i]) { print "FAIL: the perf test overlapped a correctness test"; exit 1 } }' "$record1"
[ "$waited_ms" -lt 2000 ] || { echo "FAIL: the perf test waited ${waited_ms} ms behind a stream of correctness tests"; exit 1; }
[ "$began" -lt "$last_shared_end" ] || { echo "FAIL: the perf test ran only after the whole stream"; exit 1; }
echo "ok: the perf test waited ${waited_ms} ms, then ran before the stream of correctness tests ended"

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
