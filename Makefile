# The two commands: `make run` (the server with demo data on SQLite) and `make test` (the whole
# suite, on SQLite and on MariaDB). Each does all its own set-up on a fresh clone.
SHELL := /bin/bash
TSX := node_modules/.bin/tsx
INSTALLED := node_modules/.install-stamp

.PHONY: help run test cluster-test fuzz install codegen codegen-check lint typecheck migrate build bench clean
.DEFAULT_GOAL := help

## make help: list every target with what it does (read from the `## make <target>:` comments of this file)
help:
	@awk '/^## make [a-z-]+:/ { if (t) printf "  make %-14s %s\n", t, d; t = $$3; sub(/:$$/, "", t); d = substr($$0, index($$0, ":") + 2); next } \
	     /^## / && t { d = d " " substr($$0, 4); next } \
	     { if (t) printf "  make %-14s %s\n", t, d; t = "" }' $(firstword $(MAKEFILE_LIST))

$(INSTALLED): package.json package-lock.json
	npm ci --no-audit --no-fund
	@test -f node_modules/better-sqlite3/build/Release/better_sqlite3.node || { echo "better-sqlite3 was not built (install scripts blocked?)"; exit 1; }
	@touch $@

## make install: npm ci when package.json or package-lock.json changed since the last install
install: $(INSTALLED)

## make run: install, check generated files, migrate and seed the demo (SQLite), serve on PORT (3000).
## The demo lets webhooks go to http receivers on this machine (production refuses both by default).
run: install codegen-check
	$(TSX) bin/tpl.ts seed-demo
	WEBHOOK_ALLOW_HTTP=$${WEBHOOK_ALLOW_HTTP:-true} WEBHOOK_ALLOW_PRIVATE_TARGETS=$${WEBHOOK_ALLOW_PRIVATE_TARGETS:-true} $(TSX) src/main.ts

## make test: install, check generated files, typecheck src/ and test/ (the generated types' narrowing
## tests are compile-time checks), run every suite on SQLite and on MariaDB
## (promtool, for the metrics test, is installed from Debian's prometheus package when missing)
test: install codegen-check typecheck
	bash test/helpers/ensure-promtool.sh
	bash test/run.sh

## make cluster-test: a 3-node MariaDB Galera cluster, three API instances, two webhook workers,
## Redis and HAProxy on this machine (test/cluster/run.ts; Debian packages installed when missing),
## the multi-instance scenarios through them, a summary line, and everything torn down.
## Falls back, loudly, to the MariaDB on 3306 with two instances when Galera cannot start.
cluster-test: install codegen-check
	bash test/cluster/install.sh
	$(TSX) test/cluster/run.ts

## make fuzz: the long schema-driven fuzz run (test/fuzz/fuzz.test.ts), FUZZ_SECONDS (600) on each
## engine of FUZZ_DB ("sqlite mysql"); FUZZ_SEED picks the seed. A failure prints how to replay it.
fuzz: install codegen-check
	@for engine in $${FUZZ_DB:-sqlite mysql}; do \
	  echo "=== Fuzz on $$engine: $${FUZZ_SECONDS:-600} s, FUZZ_SEED=$${FUZZ_SEED:-20261122} ==="; \
	  TEST_DB=$$engine FUZZ_SECONDS=$${FUZZ_SECONDS:-600} FUZZ_STATS=1 node_modules/.bin/mocha --no-config -n import=tsx \
	    --require test/helpers/hooks.ts test/fuzz/fuzz.test.ts || exit 1; \
	done

## make codegen: bundle openapi/ into openapi/openapi.json; regenerate src/generated/ (types, GraphQL schema)
codegen: install
	$(TSX) codegen/generate.ts

## make codegen-check: fail when openapi/openapi.json or src/generated/ is stale (run make codegen)
codegen-check: install
	$(TSX) codegen/generate.ts --check

## make typecheck: tsc --noEmit over src/ and test/
typecheck: install
	node_modules/.bin/tsc --noEmit

## make lint: typecheck and lint the OpenAPI document (Redocly, recommended rules)
lint: typecheck codegen-check
	node_modules/.bin/redocly lint openapi/openapi.json --config redocly.yaml

## make migrate: migrate DATABASE_URL (MySQL/MariaDB; SQLite also migrates at start)
migrate: install
	$(TSX) bin/tpl.ts migrate

## make build: compile to dist/ (npm start runs the server, npm run start:worker the worker, npm run tpl -- <command> the CLI; none needs a dev dependency)
build: install codegen-check
	node_modules/.bin/tsc -p tsconfig.build.json

## make bench: seed a realistic volume, run the compiled API and a bare node:http baseline side by
## side under autocannon, print every scenario and target, write test/bench/results.json.
## Every engine decides (SQLite, and MariaDB when it answers; BENCH_DB=sqlite,mysql), each against its own baseline.
bench: install codegen-check
	node_modules/.bin/tsc -p tsconfig.bench.json
	node dist/test/bench/run.js

## make clean: remove dist/ and the test statistics
clean:
	rm -rf dist .test-stats
