#!/usr/bin/env bash
# System packages `make test` needs beyond the venv: pgbouncer (the Postgres tests run a second time
# through it, in transaction mode), chromium (the session console's browser tests drive it), and
# nodejs and npm (the generated TypeScript client is built and checked with them, tests/clients).
# Installs what is missing with apt-get as root, or through sudo when that works without a password;
# otherwise fails saying what to install.
# Usage: scripts/ensure_system_packages.sh [package...]   (default: the packages the tests need)
set -euo pipefail

if [ $# -gt 0 ]; then PACKAGES=("$@"); else PACKAGES=(pgbouncer chromium nodejs npm); fi
SEARCH_PATH="$PATH:/usr/sbin:/usr/local/sbin"

missing=()
for package in "${PACKAGES[@]}"; do
  PATH="$SEARCH_PATH" command -v "$package" >/dev/null 2>&1 || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "error: missing system package(s): ${missing[*]}" >&2
  echo "install them as root (e.g. 'sudo apt-get install -y ${missing[*]}') and run make again" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "error: missing system package(s): ${missing[*]}; no apt-get here: install them by hand" >&2
  exit 1
fi

echo "installing system package(s): ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2; then
  "${as_root[@]}" apt-get update >&2
  "${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2
fi
for package in "${missing[@]}"; do
  if ! PATH="$SEARCH_PATH" command -v "$package" >/dev/null 2>&1; then
    echo "error: $package is still missing after apt-get install" >&2
    exit 1
  fi
done
