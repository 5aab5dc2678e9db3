# Deadwood: one command to run, one command to test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export HYPOTHESIS_PROFILE ?= ci

.PHONY: up openapi test lint typecheck pytest bench soak clean lock

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

up: $(STAMP)
	$(BIN)/deadwood up

# Regenerate openapi.yaml from the app (tests/integration/api/test_openapi.py compares the two).
openapi: $(STAMP)
	$(BIN)/deadwood openapi > openapi.yaml

# Pin the server's runtime environment as installed here (the Dockerfile installs from it).
lock: $(STAMP)
	$(BIN)/python deploy/lock.py > requirements.lock

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# tests/e2e/browser runs in headless Chromium when Debian's chromium and chromium-driver are there.
CHROMIUM_PRESENT := $(shell command -v chromium >/dev/null && test -x /usr/bin/chromedriver && echo yes)

# tests/e2e/test_typescript_bot.py builds and runs examples/typescript when node and npm are there.
NODE_PRESENT := $(shell command -v node >/dev/null && command -v npm >/dev/null && echo yes)

# The suite runs on PYTEST_WORKERS processes (pytest-xdist), each with its own Redis
# (tests/conftest.py starts one per session); a test file stays on one process (loadfile), so
# a module's served stack and the TypeScript example's node_modules are never shared.
PYTEST_WORKERS ?= 2

pytest: $(STAMP)
ifneq ($(CHROMIUM_PRESENT),yes)
	@echo "browser tests NOT run: no chromium + /usr/bin/chromedriver (apt-get install chromium chromium-driver)"
endif
ifneq ($(NODE_PRESENT),yes)
	@echo "TypeScript bot NOT run: no node + npm (install Node 20+ with npm)"
endif
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile

bench: $(STAMP)
	for b in bench/*.py; do $(BIN)/python $$b || exit 1; done

# Long variants: tests marked `slow` and the DEADWOOD_SOAK=1 figures of tests/e2e
# (16 matches for 30 s, more Redis and worker kills, longer fuzzing, more deals) and of the
# arena ladder (tests/integration/store/test_ladder_arena.py: 480 and 1200 rated matches), with the
# hypothesis soak profile. `make soak SOAK_TESTS=tests/e2e` runs only those.
# Each run explores with a fresh hypothesis seed, echoed first and last; `make soak SEED=<n>`
# repeats a run, and a failure's "Falsifying example" is pinned as an `@example` (issue 10).
SOAK_TESTS ?=
SEED ?=
soak: $(STAMP)
	@seed=$${SEED:-$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}; \
	echo "make soak: hypothesis seed $$seed (repeat with: make soak SEED=$$seed)"; \
	DEADWOOD_SOAK=1 HYPOTHESIS_PROFILE=soak $(BIN)/pytest -m "slow or not slow" -s \
		--hypothesis-seed=$$seed $(SOAK_TESTS); \
	status=$$?; echo "make soak: hypothesis seed $$seed, pytest exit $$status"; exit $$status

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
