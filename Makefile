# The two commands: `make run` (the server with demo data on SQLite) and `make test` (the whole
# suite, on SQLite and on MariaDB). Each does all its own set-up on a fresh clone.
SHELL := /bin/bash
TSX := node_modules/.bin/tsx
INSTALLED := node_modules/.install-stamp

.PHONY: run test install codegen codegen-check lint typecheck migrate build clean

$(INSTALLED): package.json package-lock.json
	npm ci --no-audit --no-fund
	@test -f node_modules/better-sqlite3/build/Release/better_sqlite3.node || { echo "better-sqlite3 was not built (install scripts blocked?)"; exit 1; }
	@touch $@

install: $(INSTALLED)

## make run: install, check generated files, migrate and seed the demo (SQLite), serve on PORT (3000).
## The demo lets webhooks go to http receivers on this machine (production refuses both by default).
run: install codegen-check
	$(TSX) db/cli.ts seed-demo
	WEBHOOK_ALLOW_HTTP=$${WEBHOOK_ALLOW_HTTP:-true} WEBHOOK_ALLOW_PRIVATE_TARGETS=$${WEBHOOK_ALLOW_PRIVATE_TARGETS:-true} $(TSX) src/main.ts

## make test: install, check generated files, run every suite on SQLite and on MariaDB
test: install codegen-check
	bash test/run.sh

codegen: install
	$(TSX) codegen/generate.ts

codegen-check: install
	$(TSX) codegen/generate.ts --check

typecheck: install
	node_modules/.bin/tsc --noEmit

## make lint: typecheck and lint the OpenAPI document (Redocly, recommended rules)
lint: typecheck codegen-check
	node_modules/.bin/redocly lint openapi/openapi.json --config redocly.yaml

## make migrate: migrate DATABASE_URL (MySQL/MariaDB; SQLite also migrates at start)
migrate: install
	$(TSX) db/cli.ts migrate

build: install codegen-check
	node_modules/.bin/tsc -p tsconfig.build.json

clean:
	rm -rf dist .test-stats
