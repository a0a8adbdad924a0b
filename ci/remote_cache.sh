#!/usr/bin/env bash
# Shows the remote cache at work on one machine (docs/ci.md, "Scale-out"): a real HTTP cache, two
# fresh clones, and the second one's build and test actions served from the cache, while the
# perf tests still run every time.
#
#   ci/remote_cache.sh [--repo=PATH] [--keep] [--min_hit_pct=N] [BAZEL FLAGS...]
#
# 1. Starts nginx (Debian's package, WebDAV PUT) as its own process on a free 127.0.0.1 port,
#    with its config, logs and store in a temp dir. Bazel's HTTP cache protocol is plain
#    GET/PUT of /ac/<sha256> (action results) and /cas/<sha256> (file contents).
# 2. Clones PATH (default: the repository this script lives in) twice at its HEAD commit and in
#    each clone, with an output base of its own, runs
#      bazel test //... --config=cpu --config=remote --remote_cache=http://127.0.0.1:PORT
#    plus BAZEL FLAGS, writing a JSON execution log. Then it runs the perf tests
#    (//kernels/<family>:<family>_perf_test, filtered out by --config=cpu) explicitly with --test_tag_filters=,
#    together with a passing control test that carries the perf tests' tags (written into the
#    clone only). Without a GPU the perf tests fail; that is expected.
# 3. Counts, from Bazel's "INFO: N processes" line, the execution logs (remoteCacheHit) and
#    nginx's access log, how many spawns each clone took from the cache, and checks that every
#    perf test spawn was executed, is marked remoteCacheable=false and was never a cache hit.
# 4. Shuts down both clones' Bazel servers, stops nginx, removes the temp dir (unless --keep).
#
# --min_hit_pct=N: at least N % of clone 2's build actions and test runs must be cache hits
#   (default 95). test.xml spawns are counted apart: their command line holds the test's
#   duration, 0 after a cache hit, so they miss for tests that ran 1 s or more (bazel#14426).
# --keep: keep the temp dir (clones, logs, execution logs, nginx store) and say where.
# BAZEL may name another Bazel command (as for ci/gate.sh); then ci/setup.sh is not run.
# Exit status: 0 shown; 1 too few hits in clone 2, a perf test spawn cacheable or from the
# cache, or `bazel test //...` failed other than by failing tests (exit 3: failed tests are
# reported; they are never cached, so they run again in clone 2); 2 bad usage or set-up failure.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
keep=0
min_hit_pct=95
bazel_flags=()
for a in "$@"; do
  case "$a" in
    --repo=*) repo="${a#--repo=}" ;;
    --keep) keep=1 ;;
    --min_hit_pct=*) min_hit_pct="${a#--min_hit_pct=}" ;;
    -h | --help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) bazel_flags+=("$a") ;;
  esac
done
[[ "$min_hit_pct" =~ ^[0-9]+$ ]] || { echo "remote_cache: --min_hit_pct wants a whole number" >&2; exit 2; }
commit="$(git -C "$repo" rev-parse HEAD)" || { echo "remote_cache: $repo is not a git repository" >&2; exit 2; }

# Debian 12's nginx package is built with the WebDAV module (nginx -V: --with-http_dav_module);
# jq reads the execution logs, ss finds a free port (iproute2). On a host with an init system,
# installing nginx may also start Debian's own nginx service on port 80: this script neither
# uses nor stops it.
bash "$here/apt_install.sh" nginx jq git curl iproute2
read -r -a bazel <<<"${BAZEL:-bazel}"
[ -n "${BAZEL:-}" ] || bash "$here/setup.sh" # bazel, Check, jansson, zip; nvcc must be there
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
case "$("$nginx_bin" -V 2>&1)" in
  *--with-http_dav_module*) ;;
  *) echo "remote_cache: $nginx_bin has no WebDAV module (--with-http_dav_module)" >&2; exit 2 ;;
esac

tmp="$(mktemp -d "${TMPDIR:-/tmp}/remote_cache.XXXXXX")"
ng="$tmp/nginx"
nginx_pid=""
# Bazel in clone $1, with the clone's own output base (so its own server). The same startup
# options for every call, so `shutdown` reaches the server that ran the build; an idle server
# exits by itself after 15 minutes should this script be killed outright.
bz() {
  local n="$1"
  shift
  (cd "$tmp/clone$n" && "${bazel[@]}" "--output_base=$tmp/output_base$n" --max_idle_secs=900 "$@")
}

cleanup() {
  local rc=$?
  set +e
  for n in 1 2; do
    [ ! -d "$tmp/output_base$n" ] || bz "$n" shutdown >/dev/null 2>&1
  done
  if [ -n "$nginx_pid" ]; then
    kill -QUIT "$nginx_pid" 2>/dev/null # graceful stop: the master ends its worker
    wait "$nginx_pid" 2>/dev/null
  fi
  if [ "$keep" -eq 1 ]; then
    echo "remote_cache: kept $tmp (clones, output bases, logs, nginx store)"
  else
    chmod -R u+w "$tmp" 2>/dev/null # Bazel leaves its outputs read-only
    rm -rf "$tmp"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------- 1. the cache server ----------

write_nginx_conf() {
  local port="$1" user=""
  # As root, nginx would run its worker as nobody, which cannot write into our temp dir.
  [ "$(id -u)" -ne 0 ] || user="user $(id -un) $(id -gn);"
  cat >"$ng/nginx.conf" <<EOF
$user
daemon off;
worker_processes 2;
pid $ng/nginx.pid;
error_log $ng/error.log;
events { worker_connections 1024; }
http {
  # One line per request, for counting GET/PUT of /ac and /cas per clone.
  log_format cache '\$request_method \$uri \$status';
  access_log $ng/access.log cache;
  # nginx creates every temp path at start: keep them all out of /var/lib/nginx.
  client_body_temp_path $ng/tmp/body;
  proxy_temp_path $ng/tmp/proxy;
  fastcgi_temp_path $ng/tmp/fastcgi;
  uwsgi_temp_path $ng/tmp/uwsgi;
  scgi_temp_path $ng/tmp/scgi;
  client_max_body_size 0;    # no limit: static test binaries are large CAS blobs
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:$port;
    root $ng/store;
    location / {
      # PUT writes to a temp file and renames it, so a concurrent GET never sees half a blob;
      # a missing key is a plain 404, which Bazel reads as a cache miss.
      dav_methods PUT;
      create_full_put_path on;
      dav_access user:rw;
    }
  }
}
EOF
}

mkdir -p "$ng/store" "$ng/tmp"
port=""
for _ in 1 2 3 4 5 6 7 8; do
  p=$((20000 + RANDOM % 40000))
  [ -z "$(ss -Htln "sport = :$p")" ] || continue
  write_nginx_conf "$p"
  "$nginx_bin" -p "$ng/" -e "$ng/error.log" -c "$ng/nginx.conf" &
  nginx_pid=$!
  for _ in $(seq 50); do
    kill -0 "$nginx_pid" 2>/dev/null || break # port taken meanwhile: try another
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$p/ac/0")" = 404 ]; then port="$p"; break; fi
    sleep 0.1
  done
  [ -z "$port" ] || break
  kill "$nginx_pid" 2>/dev/null || true
  wait "$nginx_pid" 2>/dev/null || true
  nginx_pid=""
done
[ -n "$port" ] || { echo "remote_cache: nginx did not start:" >&2; cat "$ng/error.log" >&2; exit 2; }
url="http://127.0.0.1:$port"
# A PUT then GET round trip, outside /ac and /cas, proves the server stores what Bazel sends.
echo "$commit" >"$tmp/selftest"
[ "$(curl -s -o /dev/null -w '%{http_code}' -T "$tmp/selftest" "$url/selftest/blob")" = 201 ] &&
  [ "$(curl -s "$url/selftest/blob")" = "$commit" ] ||
  { echo "remote_cache: nginx at $url does not store PUT blobs" >&2; exit 2; }
echo "remote_cache: nginx $("$nginx_bin" -v 2>&1 | sed 's,.*/,,') (pid $nginx_pid) serves $url from $ng/store"

# ---------- 2. two clones, one cache ----------

# nginx log lines (GET/PUT of /ac and /cas) written since line $1, as one summary.
nginx_counts() {
  tail -n +"$(($1 + 1))" "$ng/access.log" | awk '
    $2 ~ /^\/ac\// && $1 == "GET" { if ($3 == 200) ah++; else am++ }
    $2 ~ /^\/cas\// && $1 == "GET" && $3 == 200 { cg++ }
    $2 ~ /^\/ac\// && $1 == "PUT" { ap++ }
    $2 ~ /^\/cas\// && $1 == "PUT" { cp++ }
    END { printf "GET /ac %d hit %d miss, GET /cas %d, PUT /ac %d, PUT /cas %d\n", ah, am, cg, ap, cp }'
}

declare -A secs rc processes nginx_main perf_secs perf_rc nginx_perf
# Runs Bazel in clone $1 with the output in $2; returns Bazel's exit status, never stops the script.
run_bazel() {
  local n="$1" log="$2"
  shift 2
  local status=0
  bz "$n" "$@" 2>&1 | tee "$log" || status=${PIPESTATUS[0]}
  return "$status"
}

common=(--config=remote "--remote_cache=$url"
  --disk_cache= # hits must come from the HTTP cache, not from a disk cache in a user's bazelrc
  --show_progress_rate_limit=10)

for n in 1 2; do
  echo
  echo "===== clone $n: $commit ====="
  git clone -q "$repo" "$tmp/clone$n"
  git -C "$tmp/clone$n" checkout -q --detach "$commit" # both clones at one commit, whatever lands meanwhile

  before=$(wc -l <"$ng/access.log")
  start=$SECONDS
  s=0
  run_bazel "$n" "$tmp/bazel$n-main.log" test //... --config=cpu "${common[@]}" \
    "--execution_log_json_file=$tmp/exec$n-main.json" "${bazel_flags[@]}" || s=$?
  secs[$n]=$((SECONDS - start))
  rc[$n]=$s
  processes[$n]="$(grep -E '^INFO: [0-9]+ process' "$tmp/bazel$n-main.log" | tail -1 || true)"
  nginx_main[$n]="$(nginx_counts "$before")"

  # The perf tests, named explicitly since --config=cpu filters them (tag gpu). The control is
  # an always-passing test with their exact tags: a failed test is never cached anyway, a
  # passing one shows what the tags themselves do.
  mapfile -t perf_tests < <(bz "$n" query --noshow_progress 'attr(name, "_perf_test$", tests(//kernels/...))' 2>/dev/null)
  tags="$(bz "$n" query --noshow_progress --output=build "${perf_tests[0]:-//kernels/elementwise:elementwise_perf_test}" 2>/dev/null |
    sed -n 's/^ *tags = \(\[.*\]\),$/\1/p')"
  [ ${#perf_tests[@]} -gt 0 ] && [ -n "$tags" ] || { echo "remote_cache: no //kernels/...:*_perf_test found" >&2; exit 2; }
  mkdir -p "$tmp/clone$n/remote_cache_control"
  printf '#!/bin/sh\nexit 0\n' >"$tmp/clone$n/remote_cache_control/pass.sh"
  chmod +x "$tmp/clone$n/remote_cache_control/pass.sh"
  printf 'sh_test(\n    name = "perf_tags_test",\n    srcs = ["pass.sh"],\n    tags = %s,\n)\n' "$tags" \
    >"$tmp/clone$n/remote_cache_control/BUILD"
  before=$(wc -l <"$ng/access.log")
  start=$SECONDS
  s=0
  run_bazel "$n" "$tmp/bazel$n-perf.log" test "${perf_tests[@]}" //remote_cache_control:perf_tags_test \
    --config=cpu --test_tag_filters= "${common[@]}" "--execution_log_json_file=$tmp/exec$n-perf.json" \
    "${bazel_flags[@]}" || s=$?
  perf_secs[$n]=$((SECONDS - start))
  perf_rc[$n]=$s
  nginx_perf[$n]="$(nginx_counts "$before")"
done

# ---------- 3. what the logs say ----------

# Each spawn of an execution log (a stream of SpawnExec objects) as one line:
#   kind hit exit label/message, kind = build, test (the test run, test-setup.sh) or xml (its
#   test.xml, generate-xml.sh), hit = remoteCacheHit; then remoteCacheable and the runner.
spawns() {
  [ -s "$1" ] || return 0
  jq -rs '.[] | [
      (if .mnemonic != "TestRunner" then "build"
       elif (.commandArgs[0] // "") | endswith("generate-xml.sh") then "xml" else "test" end),
      (.remoteCacheHit // false), (.exitCode // 0), (.remoteCacheable // false), (.runner // "?"),
      ((.progressMessage // .mnemonic) | sub("^Testing "; ""))] | map(tostring) | join("\t")' "$1"
}
# "N of M" spawns of kind $2 in the spawn list $1 that were cache hits.
hits() { awk -F'\t' -v k="$2" '$1 == k { m++; if ($2 == "true") n++ } END { printf "%d of %d", n, m }' <<<"$1"; }

failed=0
echo
echo "===== summary: commit ${commit:0:12}, cache $url ====="
for n in 1 2; do
  list="$(spawns "$tmp/exec$n-main.json")"
  echo "clone $n: bazel test //... --config=cpu --config=remote: exit ${rc[$n]} in ${secs[$n]} s"
  echo "  bazel:  ${processes[$n]:-no 'INFO: N processes' line}"
  echo "  log:    remote cache hits: build actions $(hits "$list" build), test runs $(hits "$list" test), test.xml $(hits "$list" xml)"
  echo "  nginx:  ${nginx_main[$n]}"
  failing="$(awk -F'\t' '$1 == "test" && $3 != 0 { print $6 }' <<<"$list" | sort -u | paste -sd' ' -)"
  case "${rc[$n]}" in
    0) ;;
    3) echo "  note:   tests failed: $failing (a failed test is never cached: it runs again in the next clone)" ;;
    *) echo "  FAIL:   bazel did not build or test everything (exit ${rc[$n]}), so the check is incomplete"; failed=1 ;;
  esac
  [ "$n" -eq 2 ] || continue
  # The threshold counts build actions and test runs. A test.xml spawn takes the test's duration
  # in seconds as an argument, 0 after a cache hit, so it misses for every test that ran 1 s or
  # more in clone 1 (bazelbuild/bazel#14426); it only rewrites the log as XML.
  read -r nh nt <<<"$(awk -F'\t' '$1 != "xml" { t++; if ($2 == "true") h++ } END { print h + 0, t + 0 }' <<<"$list")"
  echo "  hits:   $nh of $nt build actions and test runs were remote cache hits, $((nt - nh)) executed (at least $min_hit_pct % wanted)"
  if [ "$nh" -eq 0 ] || [ $((nh * 100)) -lt $((nt * min_hit_pct)) ]; then
    echo "  FAIL: too few cache hits in clone 2"
    failed=1
  fi
  awk -F'\t' '$1 != "xml" && $2 != "true" { printf "    executed: %s %s (exit %s)\n", $1, $6, $3 }' <<<"$list" | head -20 || true
  nx=$(awk -F'\t' '$1 == "xml" && $2 != "true"' <<<"$list" | grep -c . || true)
  [ "$nx" -eq 0 ] || echo "    executed: $nx test.xml spawns (the test duration is in their command line, bazelbuild/bazel#14426)"
done

echo "perf tests, run explicitly with --test_tag_filters= (${#perf_tests[@]}: ${perf_tests[*]##*:})"
echo "  and the control //remote_cache_control:perf_tags_test (passes; same tags: $tags):"
for n in 1 2; do
  list="$(spawns "$tmp/exec$n-perf.json")"
  perf="$(awk -F'\t' '$6 ~ /^\/\/kernels\/[A-Za-z0-9_]+:[A-Za-z0-9_]+_perf_test$/' <<<"$list")"
  control="$(awk -F'\t' '$1 == "test" && $6 == "//remote_cache_control:perf_tags_test"' <<<"$list")"
  np=$(grep -c . <<<"$perf" || true)
  runs=$(awk -F'\t' '$1 == "test"' <<<"$perf" | grep -c . || true)
  ncacheable=$(awk -F'\t' '$4 == "true"' <<<"$perf" | grep -c . || true)
  nhit=$(awk -F'\t' '$2 == "true"' <<<"$perf" | grep -c . || true)
  bad=$(awk -F'\t' '($6 ~ /^\/\/kernels\/[A-Za-z0-9_]+:[A-Za-z0-9_]+_perf_test$/ || $6 ~ /^\/\/remote_cache_control:/) && ($2 == "true" || $4 == "true")' <<<"$list" | grep -c . || true)
  runners="$(awk -F'\t' '{ print $5 }' <<<"$perf" | sort -u | paste -sd, -)"
  exits="$(awk -F'\t' '$1 == "test" { print $3 }' <<<"$perf" | sort | uniq -c | awk '{ printf "%s%d exit %s", (NR > 1 ? ", " : ""), $1, $2 }')"
  echo "  clone $n: $np perf test spawns ($runs test runs + their test.xml): executed ($runners); remoteCacheable=true: $ncacheable, remote cache hits: $nhit; test runs: $exits"
  echo "           control: $(awk -F'\t' '{ printf "executed (%s), exit %s, remoteCacheable=%s, remoteCacheHit=%s", $5, $3, $4, $2 }' <<<"$control")"
  echo "           bazel exit ${perf_rc[$n]} in ${perf_secs[$n]} s (3: tests failed, expected without a GPU); nginx: ${nginx_perf[$n]}"
  if [ "$runs" -ne ${#perf_tests[@]} ] || [ -z "$control" ] || [ "$bad" -ne 0 ]; then
    echo "  FAIL: clone $n: a perf test run is missing from the log, or a perf/control spawn is remote-cacheable or a cache hit:"
    sed 's/^/    /' <<<"$list"
    failed=1
  fi
done
if [ "$failed" -eq 0 ]; then
  echo "verdict: OK: clone 2 was served by the HTTP cache; the perf tests ran every time and never touched it"
else
  echo "verdict: FAILED (see above)"
fi
exit "$failed"
