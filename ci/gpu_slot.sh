#!/usr/bin/env bash
# GPU slots: the --run_under wrapper of the GPU configuration (.bazelrc, test:gpu).
#
#   gpu_slot.sh TEST [ARGS...]
#
# Picks one GPU for the test, pins it with CUDA_VISIBLE_DEVICES and holds a lock on it
# while the test runs. A test says what it needs in its env (BUILD):
#   - a perf test (GPU_SLOT_EXCLUSIVE=1, set by perf_test in perf/defs.bzl) takes an
#     EXCLUSIVE flock: nothing else runs on its GPU meanwhile, so timings are clean;
#   - a correctness test on the GPU (GPU_SLOT_SHARED=1, tests/BUILD) takes a SHARED flock:
#     correctness tests may share a GPU with each other, never with a perf test;
#   - any other test (CPU unit tests, which --run_under wraps too) runs at once, unlocked:
#     queued behind the perf tests it would time out doing nothing.
# With k GPUs up to k perf tests run at once, one per GPU. When every GPU is taken the
# test polls (GPU_SLOT_POLL seconds, default 1) until one is free; a waiting perf test
# meanwhile keeps new correctness tests off the GPUs it waits for, so it is not starved.
#
# Environment:
#   GPU_SLOT_DIR    lock files and slots.log, shared by every test of the host
#                   (default /tmp/cuda-perf-gpu-locks)
#   GPU_SLOT_COUNT  number of GPUs (tests; default: CUDA_VISIBLE_DEVICES, else nvidia-smi -L)
#   GPU_SLOT_POLL   seconds between tries when all GPUs are busy
# No GPU found: the test runs unpinned and unlocked (GPU tests then fail with their own message).
#
# Logs one line per test to stderr and to $GPU_SLOT_DIR/slots.log:
#   gpu_slot test=//perf:reduce_perf_test gpu=GPU-1b2c... lock=exclusive start=... end=... status=0
set -uo pipefail

dir="${GPU_SLOT_DIR:-/tmp/cuda-perf-gpu-locks}"
poll="${GPU_SLOT_POLL:-1}"
test_name="${TEST_TARGET:-$1}"

kind=none
if [ "${GPU_SLOT_EXCLUSIVE:-0}" = 1 ]; then kind=exclusive
elif [ "${GPU_SLOT_SHARED:-0}" = 1 ]; then kind=shared; fi
if [ "$kind" = none ]; then exec "$@"; fi

# The GPUs this host offers, as the values CUDA_VISIBLE_DEVICES takes.
gpus=()
if [ -n "${GPU_SLOT_COUNT:-}" ]; then
  for ((i = 0; i < GPU_SLOT_COUNT; i++)); do gpus+=("$i"); done
elif [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
  IFS=, read -r -a listed <<<"$CUDA_VISIBLE_DEVICES"
  for g in "${listed[@]}"; do
    g="${g//[[:space:]]/}"
    [ -n "$g" ] && gpus+=("$g")
  done
elif command -v nvidia-smi >/dev/null 2>&1; then
  n="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')"
  for ((i = 0; i < n; i++)); do gpus+=("$i"); done
fi
if [ ${#gpus[@]} -eq 0 ]; then
  echo "gpu_slot: no GPU found; $test_name runs unpinned" >&2
  exec "$@"
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
    sleep 1
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

# Lock files of a GPU: "lock" is the slot itself (shared or exclusive); "turn" is a
# turnstile that a waiting perf test holds so that no new correctness test starts on
# that GPU while the ones running drain (else a stream of them could starve it).
slot_file() { printf '%s/gpu-%s.%s' "$dir" "$(printf '%s' "$1" | tr -c 'A-Za-z0-9._-' _)" "$2"; }
open_file() {  # open_file PATH: sets fd
  exec {fd}>>"$1" || exit 2
  chmod 666 "$1" 2>/dev/null
}

# Try every GPU without blocking, from a random start so that shared holders spread
# over the GPUs; keep the first lock obtained (open on fd $lock_fd), else wait and retry.
gpu=""
declare -A waiting=() # GPU -> fd of the turnstile this perf test holds while it waits
while [ -z "$gpu" ]; do
  start=$((RANDOM % ${#gpus[@]}))
  for ((j = 0; j < ${#gpus[@]}; j++)); do
    g="${gpus[$(((start + j) % ${#gpus[@]}))]}"
    turn_fd=""
    if [ "$kind" = shared ]; then
      open_file "$(slot_file "$g" turn)"
      turn_fd=$fd
      # Held exclusively: a perf test is waiting for this GPU; do not go ahead of it.
      if ! flock -n -s "$turn_fd"; then exec {turn_fd}>&-; continue; fi
    fi
    open_file "$(slot_file "$g" lock)"
    lock_fd=$fd
    if flock -n "$flag" "$lock_fd"; then gpu="$g"; else exec {lock_fd}>&-; fi
    [ -n "$turn_fd" ] && exec {turn_fd}>&-
    [ -n "$gpu" ] && break
  done
  if [ -z "$gpu" ] && [ "$kind" = exclusive ]; then
    # Every GPU is busy: hold the turnstile of each GPU that no other perf test holds.
    for g in "${gpus[@]}"; do
      [ -n "${waiting[$g]:-}" ] && continue
      open_file "$(slot_file "$g" turn)"
      if flock -n -x "$fd"; then waiting[$g]=$fd; else exec {fd}>&-; fi
    done
  fi
  [ -n "$gpu" ] || sleep "$poll"
done
for turn_fd in "${waiting[@]}"; do exec {turn_fd}>&-; done

export CUDA_VISIBLE_DEVICES="$gpu"
t0="$(now)"
echo "gpu_slot: test=$test_name gpu=$gpu lock=$kind start=$t0" >&2
"$@"
status=$?
line="gpu_slot test=$test_name gpu=$gpu lock=$kind start=$t0 end=$(now) status=$status"
echo "$line" >&2
# One short write with O_APPEND: lines of concurrent tests do not interleave.
echo "$line" >>"$dir/slots.log"
chmod 666 "$dir/slots.log" 2>/dev/null
exit "$status"
