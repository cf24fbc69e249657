# Speltafel: `make run` starts everything, `make test` runs every check and test tier.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: web web-unit run test lint typecheck layers unit integration e2e faults browser migrate bench install clean

$(STAMP): pyproject.toml
	@echo "speltafel: installing into $(VENV)" >&2
	@$(PYTHON) -m venv $(VENV)
	@$(BIN)/pip install --quiet --upgrade pip >&2
	@$(BIN)/pip install --quiet -e '.[dev]' >&2
	@touch $(STAMP)

# the web client's npm packages (services/web/package-lock.json, pinned) copied into static/vendor: no CDN at run time
WEB     := services/web
VENDOR  := $(WEB)/static/vendor/.installed
$(VENDOR): $(WEB)/package.json $(WEB)/package-lock.json
	@echo "speltafel: vendoring the web client's packages into $(WEB)/static/vendor" >&2
	@cd $(WEB) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2
	@mkdir -p $(WEB)/static/vendor
	@cp $(WEB)/node_modules/preact/dist/preact.mjs $(WEB)/node_modules/preact/hooks/dist/hooks.mjs \
	    $(WEB)/node_modules/htm/dist/htm.mjs $(WEB)/static/vendor/
	@touch $(VENDOR)

web: $(VENDOR)

# the web client's pure helpers (SSE parser, problem errors, 409 retry) under node's own test runner
web-unit: $(VENDOR)
	cd $(WEB) && node --test test/

install: $(STAMP) $(VENDOR)

run: $(STAMP) $(VENDOR)  ## start the four services, their workers, the outbox relay and the index page
	$(BIN)/speltafel run

migrate: $(STAMP)
	$(BIN)/speltafel migrate

lint: $(STAMP)
	$(BIN)/ruff check services shared tests bench

typecheck: $(STAMP)
	$(BIN)/mypy services shared

layers: $(STAMP)
	$(BIN)/lint-imports

unit: $(STAMP)
	$(BIN)/pytest tests/unit

integration: $(STAMP)
	$(BIN)/pytest tests/integration

e2e: $(STAMP)
	$(BIN)/pytest tests/e2e

# the fault tier (tests/faults): its own PostgreSQL, Redis and the real stack, broken on purpose
faults: $(STAMP)
	$(BIN)/pytest tests/faults -s

# the browser tier (tests/browser): Debian's Chromium headless through chromedriver against the real stack
browser: $(STAMP) $(VENDOR)
	$(BIN)/pytest tests/browser -s

# migrate runs against DATABASE_URL (or the local default); the tests migrate their own fresh database
test: $(STAMP) $(VENDOR) lint typecheck layers web-unit
	$(BIN)/speltafel migrate
	@# the main tiers run beside the fault tier and, once it ends, the browser tier; all must pass. With
	@# all three side by side, each starting its own stack, make test took 26-28 min on the idle 2-core
	@# machine (the main tiers 28, the browser tier 13); this way 16.5 (main 16.5, faults 5.6, browser 6.9)
	@# (on 2026-12-05 a machine of the same kind, serving moves about 3 x slower than the night before, took
	@# 43 min: main 42.6, faults 10.9, browser 12.7; the largest part of the main tiers' CPU is the bots'
	@# strength tests, minutes of CPU each, tests/unit/bots/strength.py; later that morning, in its fast state,
	@# 13.5 min: main 13.4, faults 4.9, browser 5.1)
	@flog=$$(mktemp /tmp/speltafel-faults.XXXXXX); blog=$$(mktemp /tmp/speltafel-browser.XXXXXX); \
	( $(BIN)/pytest tests/faults -s > $$flog 2>&1; echo $$? > $$flog.rc; \
	  $(BIN)/pytest tests/browser tests/web -s > $$blog 2>&1; echo $$? > $$blog.rc ) & slow=$$!; \
	$(BIN)/pytest -n 2 --dist loadfile --no-loadscope-reorder tests --ignore=tests/faults --ignore=tests/browser --ignore=tests/web; main=$$?; \
	wait $$slow; rc=$$(cat $$flog.rc 2>/dev/null || echo 1); brc=$$(cat $$blog.rc 2>/dev/null || echo 1); \
	rm -f $$flog.rc $$blog.rc; \
	echo "--- the fault tier (tests/faults), log $$flog:"; \
	if [ $$rc -ne 0 ]; then tail -n 120 $$flog; else grep -E 'faults: |passed|failed' $$flog; fi; \
	echo "--- the browser tier (tests/browser, tests/web), log $$blog:"; \
	if [ $$brc -ne 0 ]; then tail -n 120 $$blog; else grep -E 'browser: |passed|failed|skipped' $$blog; fi; \
	test $$main -eq 0 && test $$rc -eq 0 && test $$brc -eq 0

# the rebuild benchmark's peer (the eventsourcing library) lives in its own venv, not the project's deps
BENCH_VENV := .bench-venv
$(BENCH_VENV)/.installed:
	@$(PYTHON) -m venv $(BENCH_VENV) >&2
	@$(BENCH_VENV)/bin/pip install --quiet 'eventsourcing[postgres]>=9.5,<10' >&2
	@touch $@

bench: $(STAMP) $(BENCH_VENV)/.installed
	@$(BIN)/python -m bench.run

clean:
	rm -rf $(VENV) $(WEB)/node_modules $(WEB)/static/vendor .data .pytest_cache .mypy_cache .ruff_cache
