# Two commands on a fresh machine:  `make league`  and  `make test`  (both set everything up first).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
NODE_BOT := sample_bots/node
STDIO_BOTS := sample_bots/c/bot.c sample_bots/java/Bot.java sample_bots/rust/bot.rs

.PHONY: setup postgres league test test-all test-pure check codegen-check bench

# setup.py compiles some of dealer/*.py at install, and vendors the web view's uPlot from npm (dealer/web).
CORE := $(wildcard dealer/*.py $(foreach f,engine config stats isolation connect league cli,dealer/$(f)/*.py))
$(BIN)/dealer: pyproject.toml setup.py $(CORE) dealer/web/package-lock.json
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,codegen,lint,profile]'
	$(BIN)/python -m compileall -q dealer poker pokerbot sample_bots  # bots import these from a read-only sandbox (sandbox._PUBLIC_PACKAGES)
	$(BIN)/python -c "from dealer.isolation import sandbox; sandbox.check()" || echo "warning: the bots' sandbox cannot start here (see above)"
	touch $@

$(NODE_BOT)/node_modules: $(NODE_BOT)/package-lock.json
	cd $(NODE_BOT) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The browser tests drive Debian's chromium (Playwright never downloads a browser here).
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	@if [ "$$(id -u)" = 0 ]; then apt-get install -y --no-install-recommends chromium || \
		{ apt-get update && apt-get install -y --no-install-recommends chromium; }; \
	else echo "error: the browser tests need $(CHROMIUM): run 'sudo apt-get install chromium'" >&2; exit 1; fi

# The arena's tests start a throw-away PostgreSQL cluster of their own (tests/arena_db.py): they
# need Debian's server programs, which `make test` installs as root when they are missing.
postgres:
	@if command -v initdb >/dev/null || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ]; then apt-get install -y --no-install-recommends postgresql || \
		{ apt-get update && apt-get install -y --no-install-recommends postgresql; }; \
	else echo "error: the arena tests need PostgreSQL's server programs: run 'sudo apt-get install postgresql'" >&2; exit 1; fi

sample_bots/c/bot: sample_bots/build.sh $(STDIO_BOTS)  # stands for the Java and Rust builds too
	bash sample_bots/build.sh

setup: $(BIN)/dealer $(NODE_BOT)/node_modules $(CHROMIUM) sample_bots/c/bot

league: setup  ## run the league in tournaments.yaml on the sample bots
	$(BIN)/dealer run tournaments.yaml --fresh

# The suite mostly waits (bots and servers starting, clocks running out, browsers), so it runs its
# files in two processes at once (pytest-xdist; TEST_JOBS=0 runs them in this one). Each file stays
# whole in one process (--dist loadfile): its module fixtures (a league run, an arena server, a
# browser) are made once, and the checks across its tests (the ladder's two databases) see each other.
TEST_JOBS ?= 2
XDIST = -n $(TEST_JOBS) --dist loadfile

test: setup postgres  ## the default test run (the long runs are marked slow), its 15 slowest tests listed
	$(BIN)/pytest -q $(XDIST) --durations=15

test-all: setup postgres  ## every test, the slow ones included
	$(BIN)/pytest -q -m '' $(XDIST) --durations=15

# The unit tests of the modules setup.py compiles, run once more on their plain Python source
# (a copy without the compiled .so files, first on the path): compiled and pure semantics must agree.
# The last two play in-process matches (dealer/league/table.py, compiled too) with no bot process: a bot
# launched in the sandbox would not find the copy.
PURE_TESTS := tests/test_rules_scenarios.py tests/test_rules_properties.py tests/test_cards.py \
	tests/test_evaluator.py tests/test_history.py tests/test_wire.py tests/test_equity.py tests/test_differential.py \
	tests/test_crossfit.py tests/test_control.py \
	tests/test_session.py tests/test_link.py tests/test_decision_seeds.py tests/test_strategies.py \
	tests/test_acpc_view.py
test-pure: setup
	rm -rf build/pure && mkdir -p build/pure && cp -r dealer build/pure/ && find build/pure/dealer -name "*.so" -delete
	DEALER_PURE=1 PYTHONPATH=$(CURDIR)/build/pure $(BIN)/pytest -q -p no:cacheprovider $(PURE_TESTS)

BUF := tools/buf/node_modules/.bin/buf
$(BUF): tools/buf/package-lock.json
	cd tools/buf && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# Quality gates: ruff (lint + format), mypy --strict over dealer/ (pyproject.toml), buf lint on
# proto/, and buf breaking against the newest release tag once there is one.
check: setup $(BUF)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy dealer
	cd proto && ../$(BUF) lint
	@tag=$$(git tag -l 'v*' --sort=-v:refname | head -n1); \
	if [ -n "$$tag" ]; then echo "buf breaking against $$tag"; \
		$(BUF) breaking proto --against ".git#tag=$$tag,subdir=proto"; \
	else echo "buf breaking: no release tag yet, skipped"; fi

codegen-check: setup  ## the committed gRPC stubs must be what proto/ generates
	PATH=$(CURDIR)/$(BIN):$$PATH bash scripts/codegen.sh
	git diff --exit-code -- poker/

bench: setup
	$(BIN)/python benchmarks/engine.py
	$(BIN)/python benchmarks/e2e.py
