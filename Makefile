# Two commands on a fresh machine:  `make league`  and  `make test`  (both set everything up first).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
NODE_BOT := sample_bots/node

.PHONY: setup league test test-all codegen-check bench

$(BIN)/dealer: pyproject.toml setup.py $(wildcard dealer/*.py)  # setup.py compiles some of them at install
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,codegen]'
	touch $@

$(NODE_BOT)/node_modules: $(NODE_BOT)/package-lock.json
	cd $(NODE_BOT) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

setup: $(BIN)/dealer $(NODE_BOT)/node_modules

league: setup  ## run the league in tournaments.yaml on the sample bots
	$(BIN)/dealer run tournaments.yaml

test: setup  ## the default test run (the long differential and e2e runs are marked slow)
	$(BIN)/pytest -q

test-all: setup  ## every test, the slow ones included
	$(BIN)/pytest -q -m ''

codegen-check: setup  ## the committed gRPC stubs must be what proto/ generates
	PATH=$(CURDIR)/$(BIN):$$PATH bash scripts/codegen.sh
	git diff --exit-code -- poker/

bench: setup
	$(BIN)/python benchmarks/engine.py
	$(BIN)/python benchmarks/e2e.py
