#!/usr/bin/env bash
# Installs those of the named Debian packages that are missing (root or sudo; apt-get update
# first). Shared by ci/setup.sh and the scripts that need more than it installs.
#
#   ci/apt_install.sh PACKAGE...
set -euo pipefail
missing=()
for p in "$@"; do
  # Installed, not only known: dpkg -s exits 0 for a package removed with its config files left.
  dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
