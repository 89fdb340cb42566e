#!/usr/bin/env bash
# Installs Debian's Chromium for the browser test (test/browser) if it is not there yet.
# Used by test/browser/chromium.ts when the test runs; a CI set-up may also call it beforehand.
# Exits non-zero when Chromium is still missing afterwards.
set -u
chromium=${CHROMIUM_PATH:-/usr/bin/chromium}
[ -x "$chromium" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  apt=(apt-get)
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  apt=(sudo -n apt-get)
else
  echo "ensure-chromium: $chromium is missing and apt-get needs root (no password-less sudo)." >&2
  exit 2
fi
export DEBIAN_FRONTEND=noninteractive
echo "ensure-chromium: $chromium is missing; running apt-get install -y chromium" >&2
# A fresh machine may have no package lists yet: update them if the first attempt fails.
"${apt[@]}" install -y chromium >&2 || { "${apt[@]}" update >&2 && "${apt[@]}" install -y chromium >&2; } || exit 3
[ -x "$chromium" ] || { echo "ensure-chromium: apt-get installed chromium but $chromium is still missing." >&2; exit 4; }
