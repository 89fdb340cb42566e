#!/usr/bin/env bash
# Runs every suite on SQLite, then on MariaDB, and ends with one line: "N passed, N failed".
# Under CI=true the MariaDB run always happens (an unreachable MariaDB or Redis fails it) and a
# skipped test fails the run; elsewhere an unreachable MariaDB is reported and its run left out.
set -u
cd "$(dirname "$0")/.."
stats=.test-stats
rm -rf "$stats" && mkdir -p "$stats"
mocha=(node_modules/.bin/mocha)
[ "${CI:-}" = "true" ] && mocha+=(--forbid-pending)
status=0

# The webhook load test measures its own process's heap and forces a full collection twice a
# second: it runs in a process of its own, after the rest. Behind the other suites' leftovers (a
# heap of ~480 MB: the loaded code generators, fast-check's tables, the apps' caches) each of those
# collections took most of the run, and the test three times as long (775 s, not 250 s).
LOAD_TEST=test/webhooks/load.test.ts
LOAD_CONFIG=test/webhooks/load.mocharc.cjs

run_suite() {
  local engine=$1
  echo "=== Test run on ${engine} ==="
  TEST_DB=$engine TEST_STATS_FILE="$stats/$engine.json" "${mocha[@]}" --ignore "$LOAD_TEST" || status=1
  [ -f "$stats/$engine.json" ] || echo '{"passes":0,"failures":1,"pending":0}' >"$stats/$engine.json"
  echo "=== The webhook load test on ${engine}, in a process of its own ==="
  TEST_DB=$engine TEST_STATS_FILE="$stats/$engine-load.json" "${mocha[@]}" --config "$LOAD_CONFIG" || status=1
  [ -f "$stats/$engine-load.json" ] || echo '{"passes":0,"failures":1,"pending":0}' >"$stats/$engine-load.json"
}

mysql_reachable() {
  node -e '
    const u = new URL(process.env.MYSQL_TEST_URL || "mysql://root@127.0.0.1:3306/test");
    const s = require("net").connect(Number(u.port || 3306), u.hostname);
    s.setTimeout(2000, () => process.exit(1));
    s.on("connect", () => process.exit(0)).on("error", () => process.exit(1));'
}

run_suite sqlite
if [ "${CI:-}" = "true" ] || mysql_reachable; then
  run_suite mysql
else
  echo "MariaDB is not reachable: the MariaDB run is left out (under CI=true it fails instead)."
fi

node -e '
  const fs = require("fs"); const dir = process.argv[1];
  let passed = 0, failed = 0, pending = 0;
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith(".json"))) {
    const s = JSON.parse(fs.readFileSync(dir + "/" + f, "utf8"));
    passed += s.passes; failed += s.failures; pending += s.pending;
    for (const title of s.failed ?? []) console.log(`Failed on ${f.replace(/\.json$/, "")}: ${title}`);
  }
  if (process.env.CI === "true") failed += pending;
  const line = `${passed} passed, ${failed} failed` + (pending && process.env.CI !== "true" ? ` (${pending} skipped)` : "");
  fs.writeFileSync(dir + "/summary.txt", line + "\n");' "$stats"
[ "$(cut -d' ' -f3 "$stats/summary.txt")" = "0" ] || status=1
exit $status
