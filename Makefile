# docsagent: `make run` opens the TUI on the bundled manual; `make test` runs every check.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := PYTHONWARNINGS=ignore $(BIN)/python -m pip --disable-pip-version-check
# The tested set: every install here takes its versions from it (`make lock` refreshes it).
CONSTRAINTS := constraints.txt
RUNTIME := $(VENV)/.installed-runtime
DEV := $(VENV)/.installed-dev
# `make minimums`: the lowest versions pyproject.toml admits, on the oldest Python it admits.
OLDEST := 3.10
MIN_VENV ?= .venv-minimums
MIN_PYTHON ?= $(or $(wildcard /usr/bin/python$(OLDEST)),$(lastword $(wildcard \
	$(HOME)/.pyenv/versions/$(OLDEST).*/bin/python$(OLDEST))),$(OLDEST))
MIN_TESTS := tests/agent/test_openai_model.py tests/test_cli_endpoint.py \
	tests/tui/test_live_app.py tests/test_cli.py tests/test_cli_replay_print.py \
	tests/test_cli_settings.py tests/test_cli_usage.py

.PHONY: run test lint bench docs install lock minimums clean realserver

$(BIN)/python:
	@echo "docsagent: creating $(VENV)"
	$(PYTHON) -m venv $(VENV)

# Only what the program needs, with the mcp extra (`docsagent mcp`): pip's own lines and bars
# show the progress. Python compiles the modules the program imports when it first runs,
# not all of them now (--no-compile).
$(RUNTIME): $(BIN)/python pyproject.toml $(CONSTRAINTS)
	@echo "docsagent: installing docsagent and what it needs into $(VENV)"
	$(PIP) install --no-compile -c $(CONSTRAINTS) -e '.[mcp]'
	touch $@

$(DEV): $(RUNTIME)
	@echo "docsagent: installing the dev tools (pytest, ruff, mypy, ...)"
	$(PIP) install --quiet -c $(CONSTRAINTS) -e '.[dev]'
	touch $@

install: $(DEV)

run: $(RUNTIME)
	$(BIN)/docsagent

lint: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest

# constraints.txt anew: the newest versions pyproject.toml admits, for every Python it
# admits (then run `make test` on them before committing it).
lock: $(DEV)
	$(BIN)/uv pip compile pyproject.toml --all-extras --universal --upgrade --quiet \
		--python-version $(OLDEST) --no-header -o $(CONSTRAINTS)

# The endpoint, TUI and CLI tests on the declared minimums (pyproject.toml's lower bounds,
# resolved by uv's lowest-direct) and the oldest Python; the test tools from constraints.txt.
# A socket the garbage collector finds unclosed fails `make test`, not this: on these
# versions one was seen once (Python 3.10, httpx2 2.12, openai 3.14), in no test's own code.
minimums: $(DEV)
	rm -rf $(MIN_VENV)
	$(BIN)/uv venv --quiet --python $(MIN_PYTHON) $(MIN_VENV)
	grep -E '^(pytest|pytest-asyncio|hypothesis|pytest-textual-snapshot|syrupy)==' \
		$(CONSTRAINTS) > $(MIN_VENV)/test-tools.txt
	VIRTUAL_ENV=$(MIN_VENV) $(BIN)/uv pip install --quiet --resolution lowest-direct \
		-e . -r $(MIN_VENV)/test-tools.txt
	VIRTUAL_ENV=$(MIN_VENV) $(BIN)/uv pip list 2>/dev/null \
		| grep -E '^(openai|httpx2|textual|typer|rich|markdown-it-py) '
	$(MIN_VENV)/bin/python --version
	$(MIN_VENV)/bin/python -m pytest -p no:cacheprovider $(MIN_TESTS) \
		-W "ignore::pytest.PytestUnraisableExceptionWarning"

# The README's sample outputs, rewritten from real runs (a test checks they still match).
docs: $(DEV)
	$(BIN)/python -m tests.readme_samples

# Every benchmark runs even when an earlier one fails; bench fails at the end if any did.
# It installs nothing on the system unless BENCH_INSTALL=1 (Debian's doc packages for the
# eval sets, rg, chromium): without it, a bench that lacks one says which and how to get it.
export BENCH_INSTALL
bench: $(DEV)
	@status=0; \
	$(BIN)/python -m pytest tests/bench -q -s -rs -p no:cacheprovider -o addopts="" || status=1; \
	$(BIN)/python tests/bench/bench_replay.py || status=1; \
	$(BIN)/python tests/bench/bench_streaming.py || status=1; \
	$(BIN)/python tests/bench/bench_long_answer.py || status=1; \
	$(BIN)/python tests/bench/bench_quit.py || status=1; \
	$(BIN)/python tests/bench/bench_endless_line.py || status=1; \
	$(BIN)/python tests/bench/bench_first_frame.py || status=1; \
	$(BIN)/python tests/bench/bench_session.py || status=1; \
	$(BIN)/python tests/bench/bench_eval.py || status=1; \
	$(BIN)/python tests/bench/bench_quality.py || status=1; \
	$(BIN)/python tests/bench/bench_compaction_eval.py || status=1; \
	$(BIN)/python tests/bench/bench_follow.py || status=1; \
	$(BIN)/python tests/bench/smoke_mcp_clone.py || status=1; \
	$(BIN)/python tests/realserver/check.py --if-built || status=1; \
	exit $$status

# docsagent against a real server (llama-cpp-python + SmolLM2-135M), built once into
# ${XDG_CACHE_HOME:-~/.cache}/docsagent-realserver (about an hour); see tests/realserver/check.py.
realserver: $(STAMP)
	$(BIN)/python tests/realserver/check.py --build

clean:
	rm -rf $(VENV) $(MIN_VENV) build *.egg-info .mypy_cache .ruff_cache .pytest_cache
