#!/usr/bin/env bash
# Each CI script's --help prints its usage on stdout, names the script, writes nothing on stderr and exits 0,
# before it sets anything up (ci/test.sh installs packages, ci/gate.sh builds). Args: the scripts.
set -uo pipefail
[ $# -gt 0 ] || { echo "help_test: no scripts given" >&2; exit 2; }
for s in "$@"; do
  name="ci/$(basename "$s")"
  out="$(bash "$s" --help 2>"$TEST_TMPDIR/err")"
  rc=$?
  [ "$rc" -eq 0 ] || { echo "FAIL: $name --help exited $rc"; cat "$TEST_TMPDIR/err"; exit 1; }
  [ ! -s "$TEST_TMPDIR/err" ] || { echo "FAIL: $name --help wrote on stderr:"; cat "$TEST_TMPDIR/err"; exit 1; }
  grep -qF "$name" <<<"$out" || { echo "FAIL: $name --help does not name $name:"; printf '%s\n' "$out"; exit 1; }
  echo "ok: $name --help ($(wc -l <<<"$out") lines)"
done
