# Deadwood: one command to run, one command to test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export HYPOTHESIS_PROFILE ?= ci

.PHONY: up openapi test lint typecheck pytest bench soak clean

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

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest

bench: $(STAMP)
	for b in bench/*.py; do $(BIN)/python $$b || exit 1; done

# Long variants: tests marked `slow` and the DEADWOOD_SOAK=1 figures of tests/reliability
# (16 matches for 30 s, more Redis and worker kills, longer fuzzing, more deals), with the
# hypothesis soak profile. `make soak SOAK_TESTS=tests/reliability` runs only those.
SOAK_TESTS ?=
soak: $(STAMP)
	DEADWOOD_SOAK=1 HYPOTHESIS_PROFILE=soak $(BIN)/pytest -m "slow or not slow" -s $(SOAK_TESTS)

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
