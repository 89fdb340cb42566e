#!/usr/bin/env bash
# Installs promtool (Debian's `prometheus` package) for the metrics test if it is not there yet.
# Used by test/helpers/promtool.ts when the test runs, and by `make test` beforehand. Installing
# never starts the Prometheus service (policy-rc.d). Exits non-zero when promtool is still missing.
set -u
command -v "${PROMTOOL_PATH:-promtool}" >/dev/null && exit 0

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "ensure-promtool: promtool is missing and apt-get needs root (no password-less sudo)." >&2
  exit 2
fi
echo "ensure-promtool: promtool is missing; running apt-get install -y prometheus" >&2
policy=/usr/sbin/policy-rc.d
made_policy=false
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null && "${sudo[@]}" chmod +x "$policy" && made_policy=true
fi
export DEBIAN_FRONTEND=noninteractive
install=("${sudo[@]}" apt-get install -y -qq --no-install-recommends prometheus)
# A fresh machine may have no package lists yet: update them if the first attempt fails.
status=0
"${install[@]}" >&2 || { "${sudo[@]}" apt-get update -qq >&2 && "${install[@]}" >&2; } || status=3
$made_policy && "${sudo[@]}" rm -f "$policy"
[ $status -eq 0 ] || exit $status
command -v "${PROMTOOL_PATH:-promtool}" >/dev/null || { echo "ensure-promtool: prometheus is installed but promtool is still missing." >&2; exit 4; }
