#!/usr/bin/env bash
# The suite as a release archive, for a workspace that pins it with http_archive (issue #58;
# examples/gate_my_kernels/README.md, "Depending on a pinned version"):
#
#   ci/make-archive.sh [--mirror=URL] [COMMIT] [OUT_DIR]
#
# writes OUT_DIR/cuda_perf-<commit12>.tar.gz (default COMMIT: HEAD; OUT_DIR: the current folder) and its
# sha256 beside it (cuda_perf-<commit12>.tar.gz.sha256, sha256sum's format), and prints the sha256 and the
# WORKSPACE stanza to paste. The archive holds the commit's committed files only (git archive: never the
# worktree's changes or ignored files), under one folder, cuda_perf-<commit12>/ (the stanza's strip_prefix).
# It is reproducible: the same commit gives the same bytes, so the same sha256, on any machine (entries carry
# the commit's time, modes from a fixed umask; gzip -n stores no name or time; git's own gzip, whose output
# changed with git 2.38, is not used).
#   --mirror=URL  the folder on your mirror the archive will be served from: the stanza lists
#                 URL/cuda_perf-<commit12>.tar.gz after the local file:// URL (default: a placeholder line)
set -euo pipefail
suite="$(cd "$(dirname "$0")/.." && pwd)"
usage() { sed -n '4,5p' "$0" | sed 's/^# *//' >&2; exit 2; }
mirror="" args=()
for a in "$@"; do
  case "$a" in
    --mirror=*) mirror="${a#--mirror=}" ;;
    -h | --help) usage ;;
    -*) echo "make-archive: unknown option $a" >&2; usage ;;
    *) args+=("$a") ;;
  esac
done
[ "${#args[@]}" -le 2 ] || usage
rev="${args[0]:-HEAD}" out_dir="${args[1]:-.}"

commit="$(git -C "$suite" rev-parse --verify --quiet "$rev^{commit}")" ||
  { echo "make-archive: $rev is not a commit of $suite" >&2; exit 2; }
short="${commit:0:12}"
name="cuda_perf-$short"
mkdir -p "$out_dir"
out_dir="$(cd "$out_dir" && pwd)"
archive="$out_dir/$name.tar.gz"

tmp="$(mktemp "$out_dir/.$name.tar.gz.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
git -C "$suite" -c tar.umask=0022 -c core.autocrlf=false archive --format=tar --prefix="$name/" "$commit" |
  gzip -n -9 >"$tmp"
# The archive must carry what a workspace that pins it loads first.
tar -tzf "$tmp" "$name/WORKSPACE" "$name/third_party/deps.bzl" >/dev/null ||
  { echo "make-archive: $archive would lack WORKSPACE or third_party/deps.bzl" >&2; exit 1; }
chmod 0644 "$tmp"
mv -f "$tmp" "$archive"
trap - EXIT
sha="$(sha256sum "$archive" | cut -d' ' -f1)"
echo "$sha  $name.tar.gz" >"$archive.sha256"

if [ -n "$mirror" ]; then
  mirror_line="        \"${mirror%/}/$name.tar.gz\","
else
  mirror_line="        # \"https://your-mirror.example/cuda_perf/$name.tar.gz\",  # where CI and the team fetch it"
fi
cat <<EOF
$archive
sha256 $sha
commit $commit

# WORKSPACE (examples/gate_my_kernels/README.md, "Depending on a pinned version"):
load("@bazel_tools//tools/build_defs/repo:http.bzl", "http_archive")

http_archive(
    name = "cuda_perf",
    sha256 = "$sha",
    strip_prefix = "$name",
    urls = [
        "file://$archive",
$mirror_line
    ],
)

load("@cuda_perf//third_party:deps.bzl", "cuda_perf_dependencies")

cuda_perf_dependencies()
EOF
