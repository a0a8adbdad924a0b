#!/usr/bin/env bash
# Builds a bundle that runs this project's Bazel on a GPU host with no network (the host has
# the NVIDIA driver and the CUDA toolkit, but no Bazel, Java, Check or jansson).
#
#   ci/make-gpu-bundle.sh [OUT_DIR]        # on a Debian 12 machine with network; default .gpu-bundle
#
# OUT_DIR gets Debian's packages (bazel-bootstrap 4.2.3 and its data, bazel-rules-java, check,
# libsubunit-dev, libjansson-dev, libjansson4, python3-yaml), a jlink-ed Java runtime (jre.tar.xz), the shared
# libraries Bazel's launcher and tools link against (lib.tar.xz), gnuplot with its libraries and a
# font (gnuplot.tar.xz: the charts and //plots:render_*_test need it) and run-bazel.sh. On the GPU host:
#
#   bash OUT_DIR/run-bazel.sh test //... --config=gpu
#   BAZEL="bash OUT_DIR/run-bazel.sh" ci/gate.sh
set -euo pipefail
out="${1:-.gpu-bundle}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# Bazel's launcher (for its libraries) and a JDK with jlink must be installed here.
need=()
for p in bazel-bootstrap openjdk-17-jdk-headless gnuplot-nox fonts-liberation zip; do dpkg -s "$p" >/dev/null 2>&1 || need+=("$p"); done
if [ ${#need[@]} -gt 0 ]; then
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# python3-yaml: //ci:workflow_test reads the workflows with it (its pure-Python half runs on the host's python3).
packages=(bazel-bootstrap bazel-bootstrap-data bazel-rules-java check libsubunit-dev libjansson-dev libjansson4 python3-yaml)
if ! (cd "$work" && apt-get download -qq "${packages[@]}"); then
  $sudo apt-get update -qq
  (cd "$work" && apt-get download -qq "${packages[@]}")
fi
rm -f "$out"/*.deb
cp "$work"/*.deb "$out/"

# Java runtime for Bazel's server: the modules its jar uses, nothing else. Stored uncompressed
# (--compress=0) so that xz packs it to about 13 MB.
jlink="/usr/lib/jvm/java-17-openjdk-amd64/bin/jlink"
"$jlink" --add-modules java.base,java.compiler,java.instrument,java.logging,java.management,java.naming,java.net.http,java.sql,java.xml,jdk.crypto.ec,jdk.management,jdk.sctp,jdk.unsupported,jdk.zipfs \
  --strip-debug --no-header-files --no-man-pages --compress=0 --output "$work/jre"
XZ_OPT=-9 tar -C "$work" -cJf "$out/jre.tar.xz" jre

# Shared libraries of Bazel's launcher and helper tools (e.g. libarchive, libprotobuf) that a
# non-Debian host lacks; the C runtime and libstdc++ come from the host.
mkdir -p "$work/lib"
for b in /usr/bin/bazel-4 /usr/libexec/x86_64-linux-gnu/bazel/*; do
  [ -f "$b" ] && ldd "$b" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'
done | sort -u | grep -Ev '/(libc|libm|libgcc_s|libstdc\+\+|libpthread|libdl|librt|ld-linux-x86-64)\.so' |
  while read -r lib; do cp -L "$lib" "$work/lib/"; done
tar -C "$work" -cJf "$out/lib.tar.xz" lib

# gnuplot: the binary, every library it loads but the C runtime (a GPU image rarely has cairo,
# pango or libgd), and Liberation Sans for pngcairo's "Sans" through a fontconfig file that
# run-bazel.sh writes at unpacking.
mkdir -p "$work/gnuplot/bin" "$work/gnuplot/lib" "$work/gnuplot/fonts"
cp -L /usr/bin/gnuplot-nox "$work/gnuplot/bin/gnuplot.real"
ldd /usr/bin/gnuplot-nox | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
  grep -Ev '/(libc|libm|libgcc_s|libstdc\+\+|libpthread|libdl|librt|ld-linux-x86-64)\.so' |
  while read -r lib; do cp -L "$lib" "$work/gnuplot/lib/"; done
cp -L /usr/share/fonts/truetype/liberation/LiberationSans-*.ttf "$work/gnuplot/fonts/"
XZ_OPT=-9 tar -C "$work" -cJf "$out/gnuplot.tar.xz" gnuplot

# zip: Bazel's test runner packs each test's undeclared outputs (the perf tests' run JSON,
# verdicts and summary) with it, and without it they are lost. Its one library, libbz2, is
# on every glibc system, but goes along anyway.
mkdir -p "$work/zip/bin" "$work/zip/lib"
cp -L /usr/bin/zip "$work/zip/bin/zip.real"
cp -L "$(ldd /usr/bin/zip | awk '$1 ~ /^libbz2/ { print $3 }')" "$work/zip/lib/"
tar -C "$work" -cJf "$out/zip.tar.xz" zip

cat >"$out/run-bazel.sh" <<'RUN'
#!/usr/bin/env bash
# Runs Bazel from this bundle (made by ci/make-gpu-bundle.sh), from the project root:
#   bash path/to/bundle/run-bazel.sh test //... --config=gpu
# Unpacks once into $GPU_BUNDLE_ROOT (default /opt/gpu-bundle); Bazel's outputs go to
# $BAZEL_OUTPUT_USER_ROOT (default /tmp/bazel-gpu-bundle).
set -euo pipefail
bundle="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="${GPU_BUNDLE_ROOT:-/opt/gpu-bundle}"
# The marker names this bundle's files and sizes: a root unpacked from another version of the
# bundle (say, one without zip) is unpacked again.
stamp="$(cd "$bundle" && stat -c '%n %s' -- *.deb *.tar.xz run-bazel.sh | md5sum | cut -d' ' -f1)"
# Runs started together (one per GPU) unpack one at a time: the others wait, then see the stamp.
mkdir -p "$root"
exec 9>"$root/.lock"
flock 9
if [ "$(cat "$root/.unpacked" 2>/dev/null)" != "$stamp" ]; then
  for deb in "$bundle"/*.deb; do dpkg-deb -x "$deb" "$root"; done
  tar -C "$root" -xJf "$bundle/jre.tar.xz"
  tar -C "$root" -xJf "$bundle/lib.tar.xz"
  tar -C "$root" -xJf "$bundle/gnuplot.tar.xz"
  tar -C "$root" -xJf "$bundle/zip.tar.xz"
  cat >"$root/zip/bin/zip" <<WRAP
#!/bin/sh
export LD_LIBRARY_PATH="$root/zip/lib"
exec "$root/zip/bin/zip.real" "\$@"
WRAP
  chmod +x "$root/zip/bin/zip"
  # gnuplot runs through a wrapper that finds its libraries and font, also inside Bazel's sandbox.
  cat >"$root/gnuplot/fonts.conf" <<FONTS
<?xml version="1.0"?>
<fontconfig>
  <dir>$root/gnuplot/fonts</dir>
  <cachedir>/tmp/gpu-bundle-fontconfig</cachedir>
  <alias><family>Sans</family><prefer><family>Liberation Sans</family></prefer></alias>
  <alias><family>Helvetica</family><prefer><family>Liberation Sans</family></prefer></alias>
</fontconfig>
FONTS
  cat >"$root/gnuplot/bin/gnuplot" <<WRAP
#!/bin/sh
export LD_LIBRARY_PATH="$root/gnuplot/lib" FONTCONFIG_FILE="$root/gnuplot/fonts.conf"
exec "$root/gnuplot/bin/gnuplot.real" "\$@"
WRAP
  chmod +x "$root/gnuplot/bin/gnuplot"
  echo "$stamp" >"$root/.unpacked"
fi
flock -u 9
exec 9>&-
# The repository rules find Check, subunit and jansson through these (third_party/repositories.bzl).
export CHECK_ROOT="$root/usr" JANSSON_ROOT="$root/usr" JAVA_HOME="$root/jre"
# Some GPU images put a private gcc first on PATH whose libstdc++ is incomplete; prefer the system's.
if [ -x /usr/bin/gcc ]; then export CC=/usr/bin/gcc; fi
export LD_LIBRARY_PATH="$root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The charts' renderer runs $GNUPLOT (bazel run passes this environment on); tests get it from
# an extra rc file, as the sandbox's PATH does not reach the bundle.
export GNUPLOT="$root/gnuplot/bin/gnuplot"
# Tests run with PATH=/bin:/usr/bin:/usr/local/bin; the bundle's zip goes first (see above).
# Written whole and renamed into place: two runs sharing the root (one per GPU of a host) must never
# read it half-written (a truncated rc loses GNUPLOT, and the chart tests fail).
rc="$root/bundle.bazelrc.$$"
{
  echo "test --test_env=GNUPLOT=$GNUPLOT"
  echo "test --test_env=PATH=$root/zip/bin:/bin:/usr/bin:/usr/local/bin"
  echo "test --test_env=PYTHONPATH=$root/usr/lib/python3/dist-packages"
} >"$rc"
mv -f "$rc" "$root/bundle.bazelrc"
exec "$root/usr/bin/bazel-4" --install_base="$root/usr/share/bazel" --trust_install_base \
  --server_javabase="$root/jre" --output_user_root="${BAZEL_OUTPUT_USER_ROOT:-/tmp/bazel-gpu-bundle}" \
  --bazelrc="$root/bundle.bazelrc" "$@"
RUN
chmod +x "$out/run-bazel.sh"
du -sh "$out"
