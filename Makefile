# Two commands do all set-up on a fresh machine: `make run` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PORT ?= 8000
STAGE ?= dev

# python3.12 on PATH if it runs, else the newest 3.12 under pyenv's versions directory.
PYTHON312 := $(shell \
  if python3.12 --version >/dev/null 2>&1; then command -v python3.12; \
  else root=$$(pyenv root 2>/dev/null || echo $$HOME/.pyenv); \
    ls -d $$root/versions/3.12*/bin/python3.12 2>/dev/null | sort -V | tail -n 1; fi)

.PHONY: lock upgrade help venv setup system-packages clients run test test-unit test-integration test-direct test-e2e screenshots test-scenarios eval lint bench schedule-hourly schedule-daily load capacity build deploy clean

help:
	@echo "make run    - start the local stack (embedded Postgres, moto, API on 127.0.0.1:$(PORT))"
	@echo "make test   - run the whole test suite (generates and checks the TypeScript and Python clients too)"
	@echo "make lint   - ruff + mypy"
	@echo "make bench  - benchmarks (figures in docs/testing.md#benchmarks)"
	@echo "make schedule-hourly | schedule-daily - run a program schedule now on the local stack's data"
	@echo "make load   - 1, 20 and 50 simulated phones against the local stack (PHONES=1,5 to choose)"
	@echo "make capacity - measure real turns and regenerate docs/capacity.md"
	@echo "make screenshots - rerun the console browser tests and rewrite docs/screenshots"
	@echo "make eval   - the conversation scenarios against the live APIs, K=3 runs each (a dry run on the fake server without keys)"
	@echo "make lock   - refresh the locks after editing pyproject.toml (moves nothing else)"
	@echo "make upgrade - every lock to the newest allowed versions, what changed, then the suite"
	@echo "make build  - sam build, then the layer's and functions' sizes (no development code in the layer);  make deploy STAGE=dev|prod - sam deploy"

# uv installs every Python environment from its lock; uv itself comes from PyPI, pinned with its hashes
# (dev/locks/uv.txt), into a venv of its own. No environment is ever resolved anew by an install: only
# `make lock` (after editing pyproject.toml or dev/locks/*.in) and `make upgrade` move a version.
UV_VENV := .venv-uv
UV := $(UV_VENV)/bin/uv
export UV_PYTHON_DOWNLOADS := never
export UV_NO_PROGRESS := 1

$(UV): dev/locks/uv.txt
	@if [ -z "$(PYTHON312)" ]; then \
	  echo "error: Python 3.12 not found (need python3.12 on PATH or \$$(pyenv root)/versions/3.12*)" >&2; exit 1; fi
	@test -x $(UV_VENV)/bin/python || $(PYTHON312) -m venv $(UV_VENV)
	@$(UV_VENV)/bin/python -m pip install -q --disable-pip-version-check --require-hashes --no-deps -r dev/locks/uv.txt
	@touch $(UV)

# --locked: install exactly uv.lock, and stop when pyproject.toml asks for something the lock lacks.
$(STAMP): pyproject.toml uv.lock $(UV)
	@$(UV) sync --locked --quiet --python $(PYTHON312)
	@touch $(STAMP)

venv: $(STAMP) system-packages

# pgbouncer for the integration tests' Postgres connections, chromium for the console's, node and npm for
# the generated TypeScript client (apt-get as root or via sudo when missing).
system-packages:
	@scripts/ensure_system_packages.sh

# The generated clients' npm toolchain, at the versions package-lock.json pins (tests/clients).
CLIENTS := tests/clients
$(CLIENTS)/node_modules/.package-lock.json: $(CLIENTS)/package-lock.json | system-packages
	cd $(CLIENTS) && npm ci --no-audit --no-fund --prefer-offline
	@touch $@

clients: $(CLIENTS)/node_modules/.package-lock.json

run: $(STAMP)
	PORT=$(PORT) $(VENV)/bin/trainer local

# One pass on two workers. --dist loadscope keeps each test module on one worker (its module fixtures
# start once) and hands each class of tests/scenarios (one per model) to a worker of its own.
# tests/integration reaches Postgres through PgBouncer in transaction mode (tests/integration/conftest.py).
# Everything the tests need installed: the locked venv, the system packages, the npm clients.
setup: $(STAMP) system-packages clients

test: setup
	$(VENV)/bin/pytest -q -n 2 --dist loadscope tests

test-unit: $(STAMP)
	$(VENV)/bin/pytest -q tests/unit

test-integration: $(STAMP) system-packages
	$(VENV)/bin/pytest -q tests/integration

# The integration tests on a direct connection to the embedded Postgres instead of PgBouncer.
test-direct: $(STAMP)
	$(VENV)/bin/pytest -q -n 2 --dist loadscope --direct-postgres tests/integration

test-e2e: $(STAMP) clients
	$(VENV)/bin/pytest -q tests/e2e

screenshots: $(STAMP)
	UPDATE_SCREENSHOTS=1 $(VENV)/bin/pytest -q tests/e2e/test_console.py

test-scenarios: $(STAMP)
	$(VENV)/bin/pytest -q tests/scenarios

# Live when ANTHROPIC_API_KEY is set (OPENAI_API_KEY for the initializer), else a dry run against the
# loopback fake server. EVAL_ARGS="--dry-run", "--only id1,id2", "--show". The one target told to reach a
# real model: `make test` runs with model requests off (tests/model_requests.py, trainer/model_guard.py).
K ?= 3
EVAL_ARGS ?=
eval: $(STAMP)
	TRAINER_ALLOW_MODEL_REQUESTS=1 $(PY) -m tests.scenarios.eval --k $(K) $(EVAL_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

bench: $(STAMP)
	$(PY) -m bench

# The program schedules now, on the local stack's data (.local; DATA_DIR=... to change), events in-process.
DATA_DIR ?= .local
schedule-hourly: $(STAMP)
	$(VENV)/bin/trainer schedule run-hourly --data-dir $(DATA_DIR)

schedule-daily: $(STAMP)
	$(VENV)/bin/trainer schedule run-daily --data-dir $(DATA_DIR)

PHONES ?= 1,20,50
load: $(STAMP)
	$(PY) -m bench.load --phones $(PHONES)

capacity: $(STAMP)
	$(PY) scripts/capacity_model.py

# SAM CLI pins its own dependencies, so it lives in a venv of its own, installed from its lock.
SAM_VENV := .venv-sam
$(SAM_VENV)/.installed: dev/locks/sam.txt $(UV)
	@test -x $(SAM_VENV)/bin/python || $(UV) venv --quiet --python $(PYTHON312) $(SAM_VENV)
	@$(UV) pip sync --quiet --require-hashes --python $(SAM_VENV)/bin/python dev/locks/sam.txt
	@touch $@

# The layer's runtime dependencies, exported from uv.lock: what sam build installs is what the tests ran on.
define LAYER_REQUIREMENTS
{ echo "# The core layer's runtime dependencies (sam build: BuildMethod python3.12, x86_64), exported from"; \
	  echo "# uv.lock by make lock: do not edit (tests/unit/project/test_locks.py checks it against the lock)."; \
	  $(UV) export --frozen --no-dev --no-emit-project --no-header --format requirements-txt --quiet; \
	} > layers/core/requirements.txt
endef

# The locks after a change to pyproject.toml or dev/locks/*.in, moving nothing else.
lock: $(UV)
	$(UV) lock --python $(PYTHON312)
	$(LAYER_REQUIREMENTS)
	$(UV) pip compile --quiet --universal --python-version 3.12 --generate-hashes \
	  --custom-compile-command "make lock" dev/locks/uv.in -o dev/locks/uv.txt
	$(UV) pip compile --quiet --universal --python-version 3.12 --generate-hashes \
	  --custom-compile-command "make lock" dev/locks/sam.in -o dev/locks/sam.txt

# Every lock to the newest versions pyproject.toml and dev/locks/*.in allow (the npm clients' too), then
# what moved and what the upgrade checks say (the model catalogue against the SDKs' deprecation data),
# then the whole suite. Commit the result on its own.
upgrade: $(UV)
	@$(PYTHON312) scripts/lock_versions.py snapshot > .lock-before.json
	$(UV) lock --upgrade --python $(PYTHON312)
	$(LAYER_REQUIREMENTS)
	$(UV) pip compile --quiet --upgrade --universal --python-version 3.12 --generate-hashes \
	  --custom-compile-command "make lock" dev/locks/uv.in -o dev/locks/uv.txt
	$(UV) pip compile --quiet --upgrade --universal --python-version 3.12 --generate-hashes \
	  --custom-compile-command "make lock" dev/locks/sam.in -o dev/locks/sam.txt
	cd $(CLIENTS) && npm update --no-audit --no-fund --package-lock-only
	@$(PYTHON312) scripts/lock_versions.py diff .lock-before.json
	@rm -f .lock-before.json
	$(MAKE) $(STAMP)
	$(PY) scripts/model_deprecations.py
	$(MAKE) test

# Lambda's code and layers are read-only: what ships without bytecode is compiled at every cold start.
# Hash-based .pyc, never checked against the sources, survive the zip's timestamps.
build: $(STAMP) $(SAM_VENV)/.installed
	PATH="$(dir $(PYTHON312)):$$PATH" $(SAM_VENV)/bin/sam build --template-file template.yaml
	$(PYTHON312) -m compileall -q -j 0 --invalidation-mode unchecked-hash .aws-sam/build
	$(PY) scripts/layer_sizes.py .aws-sam/build

deploy: build
	$(SAM_VENV)/bin/sam deploy --config-env $(STAGE)

clean:
	rm -rf .aws-sam .venv-sam .venv-uv .local .pytest_cache .mypy_cache .ruff_cache
