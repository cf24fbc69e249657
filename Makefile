# Speltafel: `make run` starts everything, `make test` runs every check and test tier.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint typecheck layers unit integration e2e faults migrate bench install clean

$(STAMP): pyproject.toml
	@echo "speltafel: installing into $(VENV)" >&2
	@$(PYTHON) -m venv $(VENV)
	@$(BIN)/pip install --quiet --upgrade pip >&2
	@$(BIN)/pip install --quiet -e '.[dev]' >&2
	@touch $(STAMP)

install: $(STAMP)

run: $(STAMP)  ## start the four services, their workers, the outbox relay and the index page
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

# migrate runs against DATABASE_URL (or the local default); the tests migrate their own fresh database
test: $(STAMP) lint typecheck layers
	$(BIN)/speltafel migrate
	@# the main tiers and the fault tier run side by side; both must pass
	@log=$$(mktemp /tmp/speltafel-faults.XXXXXX); \
	$(BIN)/pytest tests/faults -s > $$log 2>&1 & faults=$$!; \
	$(BIN)/pytest -n 2 --dist loadfile tests --ignore=tests/faults; main=$$?; \
	wait $$faults; rc=$$?; echo "--- the fault tier (tests/faults), log $$log:"; \
	if [ $$rc -ne 0 ]; then tail -n 120 $$log; else grep -E 'faults: |passed|failed' $$log; fi; \
	test $$main -eq 0 && test $$rc -eq 0

bench: $(STAMP)
	@$(BIN)/python -m bench.run

clean:
	rm -rf $(VENV) .data .pytest_cache .mypy_cache .ruff_cache
