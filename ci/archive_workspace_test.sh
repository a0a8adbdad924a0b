#!/usr/bin/env bash
# The suite consumed as a pinned release archive, offline, end to end (issue #58; .ci/run runs it after the
# example workspace's tests; examples/gate_my_kernels/README.md, "Depending on a pinned version"):
#   1. ci/make-archive.sh makes the archive of HEAD (committed files only) in WORKDIR/archive, twice: the same
#      bytes both times (the sha256 is a pin);
#   2. WORKDIR/my_kernels becomes the archive's examples/gate_my_kernels, set up as that section says: its
#      WORKSPACE is the stanza make-archive.sh printed (http_archive from a file:// URL, its sha256 and
#      strip_prefix; cuda_perf_dependencies() with no path), its .bazelrc the archive's .bazelrc, and its root
#      BUILD has suite_bazelrc_test;
#   3. a wrong sha256 in that WORKSPACE must stop Bazel ("Checksum was ... but wanted ...");
#   4. with the right one, `bazel test //... --config=cpu --config=werror` (and BAZEL_FLAGS) there: the
#      example's CPU tests and suite_bazelrc_test, its output on stdout (.ci/run counts its PASSED lines).
# Exit status: Bazel's from step 4; 1 if a step before it failed.
#
#   ci/archive_workspace_test.sh [--cleanup] [--sha256=HEX] WORKDIR [BAZEL_FLAGS...]
#
#   WORKDIR       a folder outside the suite's checkout (made if missing; its archive/ and my_kernels/ are made
#                 anew). Run again with the same WORKDIR, Bazel reuses that workspace's outputs.
#   --cleanup     afterwards remove the workspace's Bazel outputs (bazel clean --expunge there) and WORKDIR's
#                 archive/ and my_kernels/ (.ci/run: a temporary WORKDIR)
#   --sha256=HEX  pin this sha256 in step 4 instead of the archive's: a wrong one must fail the run (by hand)
# BAZEL names the Bazel command (default: bazel).
set -uo pipefail
suite="$(cd "$(dirname "$0")/.." && pwd -P)"
usage() { sed -n '14,15p' "$0" | sed 's/^# *//' >&2; exit 2; }
cleanup=0 pin_sha="" workdir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --cleanup) cleanup=1 ;;
    --sha256=*) pin_sha="${1#--sha256=}" ;;
    -h | --help) usage ;;
    -*) [ -n "$workdir" ] && break; echo "archive_workspace_test: unknown option $1" >&2; usage ;;
    *) [ -n "$workdir" ] && break; workdir="$1" ;;
  esac
  shift
done
[ -n "$workdir" ] || usage
bazel_flags=("$@")
read -r -a bazel <<<"${BAZEL:-bazel}"
mkdir -p "$workdir" && workdir="$(cd "$workdir" && pwd -P)" || exit 2
case "$workdir/" in
  "$suite"/*) echo "archive_workspace_test: WORKDIR $workdir lies in the suite's checkout; give a folder outside it" >&2
    exit 2 ;;
esac
say() { echo "archive_workspace_test: $*"; }
die() { echo "archive_workspace_test: FAIL: $*" >&2; exit 1; }
archive_dir="$workdir/archive" ws="$workdir/my_kernels"

# 1. The archive, twice.
rm -rf "$archive_dir" "$archive_dir.again" && mkdir -p "$archive_dir" || exit 2
start=$SECONDS
bash "$suite/ci/make-archive.sh" HEAD "$archive_dir" >"$archive_dir/stanza.txt" ||
  die "ci/make-archive.sh HEAD $archive_dir failed"
archive="$(sed -n 1p "$archive_dir/stanza.txt")"
sha="$(sed -n 's/^sha256 \([0-9a-f]\{64\}\)$/\1/p' "$archive_dir/stanza.txt")"
name="$(basename "$archive" .tar.gz)"
{ [ -f "$archive" ] && [ -n "$sha" ]; } || die "ci/make-archive.sh printed no archive and sha256:
$(cat "$archive_dir/stanza.txt")"
bash "$suite/ci/make-archive.sh" HEAD "$archive_dir.again" >/dev/null || die "ci/make-archive.sh failed the second time"
cmp -s "$archive" "$archive_dir.again/$name.tar.gz" ||
  die "two archives of the same commit differ: $archive, $archive_dir.again/$name.tar.gz"
rm -rf "$archive_dir.again"
[ "$(sha256sum "$archive" | cut -d' ' -f1)" = "$sha" ] || die "the printed sha256 is not the archive's"
say "$archive ($(du -k "$archive" | cut -f1) KiB), sha256 $sha, the same bytes made twice"
[ -z "$(git -C "$suite" status --porcelain --untracked-files=no)" ] ||
  say "note: the suite's checkout has uncommitted changes; the archive, and so this test, has HEAD without them"

# 2. The workspace: the archive's example, pinned to the archive as its README says.
rm -rf "$ws" && mkdir -p "$ws" || exit 2
tar -xzf "$archive" -C "$ws" --strip-components=3 "$name/examples/gate_my_kernels" ||
  die "the archive has no examples/gate_my_kernels"
tar -xzOf "$archive" "$name/.bazelrc" >"$ws/.bazelrc" || die "the archive has no .bazelrc"
write_workspace() {  # SHA256: the WORKSPACE of the stanza make-archive.sh printed, pinned to SHA256
  {
    printf 'workspace(name = "my_kernels")\n\n'
    printf '# The suite pinned to a release archive (ci/make-archive.sh HEAD; ci/archive_workspace_test.sh).\n'
    sed -n '/^load("@bazel_tools/,$p' "$archive_dir/stanza.txt" | sed "s/^\(    sha256 = \"\)[0-9a-f]*\"/\1$1\"/"
  } >"$ws/WORKSPACE"
}
write_workspace "$sha"
{ grep -qF "\"file://$archive\"" "$ws/WORKSPACE" && grep -qF "strip_prefix = \"$name\"" "$ws/WORKSPACE" &&
  grep -qx 'cuda_perf_dependencies()' "$ws/WORKSPACE"; } || die "the printed stanza is not as expected:
$(cat "$ws/WORKSPACE")"
cat >>"$ws/BUILD" <<'EOF'
load("@cuda_perf//ci:bazelrc.bzl", "suite_bazelrc_test")

# This workspace's .bazelrc is a copy of the pinned suite's: this test fails when they differ.
suite_bazelrc_test(name = "suite_bazelrc_test")
EOF
say "workspace $ws: the archive's examples/gate_my_kernels, WORKSPACE pinned to $name.tar.gz (file://), the archive's .bazelrc"

# 3. A wrong sha256 must stop Bazel before anything is built.
last=0
[ "${sha: -1}" != 0 ] || last=1
wrong="${sha%?}$last"  # the last digit changed
write_workspace "$wrong"
(cd "$ws" && "${bazel[@]}" query //... >"$workdir/wrong_sha256.log" 2>&1)
rc=$?
[ "$rc" -ne 0 ] || die "Bazel accepted the archive under a wrong sha256 ($wrong): $workdir/wrong_sha256.log"
grep -qF "Checksum was $sha but wanted $wrong" "$workdir/wrong_sha256.log" ||
  die "with a wrong sha256, Bazel failed (exit $rc) but not on the checksum: $(tail -5 "$workdir/wrong_sha256.log")"
say "a wrong sha256 stops Bazel (exit $rc): Checksum was $sha but wanted $wrong"

# 4. The pinned workspace's CPU tests.
write_workspace "${pin_sha:-$sha}"
[ -z "$pin_sha" ] || say "pinning the sha256 given, $pin_sha (the archive's is $sha)"
(cd "$ws" && "${bazel[@]}" test //... --config=cpu --config=werror ${bazel_flags[@]+"${bazel_flags[@]}"}) 2>&1 |
  tee "$workdir/test.log"
status=${PIPESTATUS[0]}
if [ "$status" -eq 0 ]; then
  (cd "$ws" && "${bazel[@]}" query --output=build //external:cuda_perf 2>/dev/null) | grep -q '^http_archive(' ||
    { say "FAIL: the tests passed, but @cuda_perf is not the http_archive"; status=1; }
  grep -qE '^//:suite_bazelrc_test +(\(cached\) )?PASSED' "$workdir/test.log" ||
    { say "FAIL: //:suite_bazelrc_test did not pass"; status=1; }
fi
if [ "$cleanup" -eq 1 ]; then
  (cd "$ws" && "${bazel[@]}" clean --expunge >/dev/null 2>&1)
  rm -rf "$archive_dir" "$ws"
else
  (cd "$ws" && "${bazel[@]}" shutdown >/dev/null 2>&1)
fi
if [ "$status" -eq 0 ]; then
  say "ok: the suite pinned to its archive of HEAD builds and passes the CPU tests offline ($((SECONDS - start)) s)"
else
  say "FAIL: the workspace pinned to the archive did not pass (exit $status)$([ "$cleanup" -eq 1 ] || echo "; $workdir/test.log")"
fi
exit "$status"
