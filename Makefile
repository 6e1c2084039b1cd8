# docsagent: `make run` opens the TUI on the bundled manual; `make test` runs every check.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench docs install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/docsagent

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest

# The README's sample outputs, rewritten from real runs (a test checks they still match).
docs: $(STAMP)
	$(BIN)/python -m tests.readme_samples

# Every benchmark runs even when an earlier one fails; bench fails at the end if any did.
bench: $(STAMP)
	@status=0; \
	$(BIN)/python -m pytest tests/bench -q -s -p no:cacheprovider -o addopts="" || status=1; \
	$(BIN)/python tests/bench/bench_replay.py || status=1; \
	$(BIN)/python tests/bench/bench_streaming.py || status=1; \
	$(BIN)/python tests/bench/bench_long_answer.py || status=1; \
	$(BIN)/python tests/bench/bench_quit.py || status=1; \
	$(BIN)/python tests/bench/bench_eval.py || status=1; \
	$(BIN)/python tests/bench/bench_compaction_eval.py || status=1; \
	exit $$status

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache .pytest_cache
