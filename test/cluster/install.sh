#!/usr/bin/env bash
# What `make cluster-test` needs from Debian, installed when missing: mariadb-server (mariadbd,
# mariadb-install-db, the mysql user), galera-4 (the wsrep provider), rsync (state transfers) and
# haproxy. Installing never starts a service here (policy-rc.d), so the MariaDB already running on
# 3306 is left alone. A failed install is reported; the test then says what it cannot do.
set -u
missing=()
[ -x /usr/sbin/mariadbd ] && command -v mariadb-install-db >/dev/null || missing+=(mariadb-server)
[ -f /usr/lib/galera/libgalera_smm.so ] || missing+=(galera-4)
command -v rsync >/dev/null || missing+=(rsync)
command -v haproxy >/dev/null || missing+=(haproxy)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing ${missing[*]} (Debian packages) for the cluster test"
sudo=()
[ "$(id -u)" = "0" ] || sudo=(sudo -n)
policy=/usr/sbin/policy-rc.d
made_policy=false
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null && "${sudo[@]}" chmod +x "$policy" && made_policy=true
fi
export DEBIAN_FRONTEND=noninteractive
status=0
"${sudo[@]}" apt-get update -qq && "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || status=$?
$made_policy && "${sudo[@]}" rm -f "$policy"
[ $status -eq 0 ] || echo "Could not install ${missing[*]} (apt-get exit $status): the cluster test falls back or fails, and says which."
exit 0
