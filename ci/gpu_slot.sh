#!/usr/bin/env bash
# GPU slots: the --run_under wrapper of the GPU configuration (.bazelrc, test:gpu).
#
#   gpu_slot.sh TEST [ARGS...]
#
# Picks one GPU for the test, pins it with CUDA_VISIBLE_DEVICES and holds a lock on it
# while the test runs. A test says what it needs in its env (BUILD):
#   - a perf test (GPU_SLOT_EXCLUSIVE=1, set by perf_test in perf/defs.bzl) takes an
#     EXCLUSIVE flock: nothing else runs on its GPU meanwhile, so timings are clean;
#   - a correctness test on the GPU (GPU_SLOT_SHARED=1, set by kernel_family in kernels/defs.bzl)
#     takes a SHARED flock: correctness tests may share a GPU with each other, never with a perf test;
#   - any other test (CPU unit tests, which --run_under wraps too) runs at once, unlocked:
#     queued behind the perf tests it would time out doing nothing.
# With k GPUs up to k perf tests run at once, one per GPU. When every GPU is taken the
# test polls (GPU_SLOT_POLL seconds, default 1) until one is free. A perf test that waits
# first marks every GPU it waits for (gpu-<G>.wait.<id>, see below); no new correctness test
# starts on a marked GPU, so the perf test gets whichever GPU drains first and a stream of
# correctness tests cannot starve it.
#
# Environment:
#   GPU_SLOT_DIR    lock files and slots.log, shared by every test of the host
#                   (default /tmp/cuda-perf-gpu-locks)
#   GPU_SLOT_COUNT  number of GPUs (tests; default: CUDA_VISIBLE_DEVICES, else nvidia-smi -L)
#   GPU_SLOT_POLL   seconds between tries when all GPUs are busy
# No GPU found (nvidia-smi missing from the test's PATH, failing or listing none), or a GPU_SLOT_COUNT
# that is not a whole number of 1 or more: the test does not run (exit 2, saying how to fix it).
# Run unlocked, perf tests would time each other.
#
# Logs one line per test to stderr and to $GPU_SLOT_DIR/slots.log:
#   gpu_slot test=//kernels/reduce:reduce_perf_test gpu=GPU-1b2c... lock=exclusive start=... end=... status=0
set -uo pipefail

dir="${GPU_SLOT_DIR:-/tmp/cuda-perf-gpu-locks}"
poll="${GPU_SLOT_POLL:-1}"
test_name="${TEST_TARGET:-$1}"

kind=none
if [ "${GPU_SLOT_EXCLUSIVE:-0}" = 1 ]; then kind=exclusive
elif [ "${GPU_SLOT_SHARED:-0}" = 1 ]; then kind=shared; fi
if [ "$kind" = none ]; then exec "$@"; fi

# The GPUs this host offers, as the values CUDA_VISIBLE_DEVICES takes.
no_gpu() {  # no_gpu WHY: stop the test, which must never run unlocked
  echo "gpu_slot: $test_name not run: $1; set GPU_SLOT_COUNT to the number of GPUs of this host (e.g." \
    "--test_env=GPU_SLOT_COUNT=1), or CUDA_VISIBLE_DEVICES, or put a working nvidia-smi on the tests' PATH;" \
    "on a machine without a GPU, test with --config=cpu" >&2
  exit 2
}
gpus=()
if [ -n "${GPU_SLOT_COUNT:-}" ]; then
  [[ "$GPU_SLOT_COUNT" =~ ^[0-9]+$ ]] && [ "$((10#$GPU_SLOT_COUNT))" -ge 1 ] ||
    no_gpu "GPU_SLOT_COUNT='$GPU_SLOT_COUNT' is not a number of GPUs (a whole number, 1 or more)"
  for ((i = 0; i < 10#$GPU_SLOT_COUNT; i++)); do gpus+=("$i"); done
elif [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
  IFS=, read -r -a listed <<<"$CUDA_VISIBLE_DEVICES"
  for g in "${listed[@]}"; do
    g="${g//[[:space:]]/}"
    [ -n "$g" ] && gpus+=("$g")
  done
  [ ${#gpus[@]} -gt 0 ] || no_gpu "CUDA_VISIBLE_DEVICES='$CUDA_VISIBLE_DEVICES' names no GPU"
elif command -v nvidia-smi >/dev/null 2>&1; then
  listing="$(nvidia-smi -L 2>&1)" || no_gpu "no GPU found: 'nvidia-smi -L' failed: ${listing:0:200}"
  n="$(grep -c '^GPU ' <<<"$listing")"
  [ "$n" -ge 1 ] || no_gpu "no GPU found: 'nvidia-smi -L' lists none"
  for ((i = 0; i < n; i++)); do gpus+=("$i"); done
else
  no_gpu "no GPU found: nvidia-smi is not on the test's PATH ($PATH)"
fi

# Name each GPU by its full UUID, so that a runner naming a GPU by index and one naming it by
# UUID (or a UUID prefix, which CUDA accepts) take the same lock. An index is read in
# nvidia-smi's order (PCI bus), which is CUDA's on a host of one GPU model; on a host mixing
# models, give UUIDs. The test is pinned by UUID too. Fake GPUs (GPU_SLOT_COUNT) and MIG devices
# keep their names, and so does every GPU on a host with no nvidia-smi. A name nvidia-smi cannot
# resolve stops the test: under another name its GPU would get a second lock, and a perf test
# could share it.
full_uuid='^GPU-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
needs_lookup() { [[ "$1" =~ ^[0-9]+$ ]] || { [[ "$1" == GPU-* ]] && ! [[ "$1" =~ $full_uuid ]]; }; }
if [ -z "${GPU_SLOT_COUNT:-}" ] && command -v nvidia-smi >/dev/null 2>&1; then
  for attempt in 1 2 3; do
    declare -A uuid_at=()
    uuids=()
    while IFS=', ' read -r idx uuid; do
      [[ "$uuid" =~ $full_uuid ]] || continue
      uuid_at[$idx]="$uuid"
      uuids+=("$uuid")
    done < <(nvidia-smi --query-gpu=index,uuid --format=csv,noheader 2>/dev/null)
    unresolved=""
    for k in "${!gpus[@]}"; do
      g="${gpus[$k]}"
      needs_lookup "$g" || continue
      if [[ "$g" =~ ^[0-9]+$ ]] && [ -n "${uuid_at[$g]:-}" ]; then
        gpus[$k]="${uuid_at[$g]}"
      elif [[ "$g" == GPU-* ]]; then
        for u in "${uuids[@]}"; do [[ "$u" == "$g"* ]] && { gpus[$k]="$u"; break; }; done
      fi
      needs_lookup "${gpus[$k]}" && unresolved+=" $g"
    done
    [ -z "$unresolved" ] && break
    [ "$attempt" -lt 3 ] && sleep 1
  done
  if [ -n "$unresolved" ]; then
    echo "gpu_slot: cannot find the UUID of GPU$unresolved ('nvidia-smi --query-gpu=index,uuid' did not list it);" \
      "check nvidia-smi on this host, or give full GPU UUIDs in CUDA_VISIBLE_DEVICES" >&2
    exit 2
  fi
fi

flag=-s
[ "$kind" = exclusive ] && flag=-x

# Shared by every user and runner of the host: sticky and world-writable, like /tmp.
if [ ! -d "$dir" ]; then
  mkdir -p "$dir" && chmod 1777 "$dir" 2>/dev/null
fi
if [ ! -w "$dir" ]; then
  echo "gpu_slot: cannot write $dir (set GPU_SLOT_DIR, or let the sandbox write it: .bazelrc)" >&2
  exit 2
fi

now() { date -u +%Y-%m-%dT%H:%M:%S.%3NZ; }

# The slot of a GPU is gpu-<G>.lock (flock shared or exclusive). A perf test that finds every
# GPU busy makes a wait mark: a new file $dir/wait.<id> that it holds an exclusive flock on,
# hard-linked as gpu-<G>.wait.<id> for each GPU. A correctness test skips a GPU with a live mark.
#   - Making a mark never waits: the file is locked before it has those names, so no other test
#     can hold its lock. (Taking a lock that correctness tests also take, even briefly, is not
#     enough: Linux flock has no writer preference, and under load their overlapping brief holds
#     made a waiting perf test lose every try until the stream of correctness tests ended.)
#   - Once a GPU is marked, only the correctness tests that had looked at it before can still
#     start there; the perf test gets it (or another GPU) when the running ones finish.
#   - A mark whose lock is free was left by a killed test: ignored, and removed if we may.
slot_file() { printf '%s/gpu-%s.%s' "$dir" "${1//[^A-Za-z0-9._-]/_}" "$2"; }
open_file() {  # open_file PATH: sets fd; a new file is made writable by every user of the host
  local new=0
  [ -e "$1" ] || new=1
  exec {fd}>>"$1" || exit 2
  if [ "$new" = 1 ]; then chmod 666 "$1" 2>/dev/null; fi
}
# The files of each GPU, named once: the loop below may poll often.
declare -A lock_file=() wait_file=()
for g in "${gpus[@]}"; do
  lock_file[$g]="$(slot_file "$g" lock)"
  wait_file[$g]="$(slot_file "$g" wait)"
done
seen_mark=""
marked() {  # marked GPU: true if a live perf test waits for GPU (its mark: $seen_mark)
  local f mfd
  for f in "${wait_file[$1]}".*; do
    { exec {mfd}<"$f"; } 2>/dev/null || continue  # none, or gone: that perf test has its GPU
    if ! flock -n -s "$mfd"; then exec {mfd}<&-; seen_mark="$f"; return 0; fi
    exec {mfd}<&-
    rm -f "$f" "$dir/wait.${f##*.}" 2>/dev/null
  done
  return 1
}
mark=""  # this perf test's wait mark, while it waits
unmark() {
  [ -n "$mark" ] || return 0
  local g
  for g in "${gpus[@]}"; do rm -f "${wait_file[$g]}.${mark##*.}"; done
  rm -f "$mark"
  exec {mark_fd}<&-
  mark=""
}
make_mark() {
  mark="$(mktemp "$dir/wait.XXXXXXXX")" || exit 2
  chmod 644 "$mark"  # readable, so that other users' tests can check its lock
  exec {mark_fd}<"$mark" || exit 2
  flock -x "$mark_fd"  # nobody else knows the file yet: at once
  trap 'unmark; exit 130' INT
  trap 'unmark; exit 143' TERM
  trap 'unmark; exit 129' HUP
  local g
  for g in "${gpus[@]}"; do
    ln -f "$mark" "${wait_file[$g]}.${mark##*.}" ||
      echo "gpu_slot: could not mark GPU $g as awaited by $test_name" >&2
  done
}

# Try every GPU without blocking, from a random start so that shared holders spread over the
# GPUs; keep the first lock obtained (open on fd $lock_fd), else wait and retry. A perf test
# marks the GPUs before its first wait, then tries again at once (one may have freed meanwhile).
gpu=""
while [ -z "$gpu" ]; do
  seen_mark=""
  start=$((RANDOM % ${#gpus[@]}))
  for ((j = 0; j < ${#gpus[@]}; j++)); do
    g="${gpus[$(((start + j) % ${#gpus[@]}))]}"
    [ "$kind" = shared ] && marked "$g" && continue
    open_file "${lock_file[$g]}"
    lock_fd=$fd
    if flock -n "$flag" "$lock_fd"; then gpu="$g"; break; fi
    exec {lock_fd}>&-
  done
  [ -n "$gpu" ] && break
  if [ "$kind" = exclusive ] && [ -z "$mark" ]; then make_mark; continue; fi
  # A correctness test kept off by a mark sleeps in flock until that perf test has its GPU
  # (or for the poll time): many of them polling at once would load the host for nothing.
  if [ -n "$seen_mark" ] && { exec {mfd}<"$seen_mark"; } 2>/dev/null; then
    flock -w "$poll" -s "$mfd"
    exec {mfd}<&-
  else
    sleep "$poll"
  fi
done
unmark
trap - INT TERM HUP

export CUDA_VISIBLE_DEVICES="$gpu"
t0="$(now)"
echo "gpu_slot: test=$test_name gpu=$gpu lock=$kind start=$t0" >&2
# The lock is this wrapper's alone: the test gets no copy of its descriptor, so a process the test leaves
# behind cannot hold the GPU after the test ends (#56 S02: one did, and every later perf test waited forever).
"$@" {lock_fd}>&-
status=$?
line="gpu_slot test=$test_name gpu=$gpu lock=$kind start=$t0 end=$(now) status=$status"
echo "$line" >&2
# One short write with O_APPEND: lines of concurrent tests do not interleave.
echo "$line" >>"$dir/slots.log"
chmod 666 "$dir/slots.log" 2>/dev/null
exit "$status"
