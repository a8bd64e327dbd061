# Every target is a thin call of the CLI; all depend on set-up, so a fresh clone needs no manual step.
SHELL := /bin/bash
FANLAKE := bin/fanlake
SOURCES := $(shell find src -name '*.ts' 2>/dev/null)

.PHONY: setup demo test docs simulate extract load build check report run shell bench typecheck clean

setup: dist/.built

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

dist/.built: node_modules/.installed tsconfig.json scripts/build.mjs scripts/lazy-string-width.js $(SOURCES)
	node scripts/build.mjs
	@touch $@

demo: setup
	scripts/demo.sh

# The type check runs beside the tests (its CPU fills their waits); either failing fails the target.
test: setup
	@npx tsc -p tsconfig.test.json --noEmit & typecheck=$$!; \
	npx vitest run; tests=$$?; \
	wait $$typecheck || { echo 'make test: the type check failed (npx tsc -p tsconfig.test.json --noEmit)' >&2; exit 1; }; \
	exit $$tests

# The generated parts of docs/ (settings, error codes), from the declarations in src/.
docs: setup
	node scripts/generate-docs.mjs

simulate: setup
	$(FANLAKE) simulate $(ARGS)

extract: setup
	$(FANLAKE) extract $(ARGS)

load: setup
	$(FANLAKE) load $(ARGS)

build: setup
	$(FANLAKE) build $(ARGS)

check: setup
	$(FANLAKE) check $(ARGS)

report: setup
	$(FANLAKE) report $(ARGS)

run: setup
	$(FANLAKE) run $(ARGS)

shell: setup
	$(FANLAKE) shell $(ARGS)

bench: setup
	node bench/run.mjs $(ARGS)

clean:
	rm -rf dist node_modules/.installed
