# Two commands do all the set-up on a fresh machine:
#   make demo   - the main job (creates .venv, installs codeact, runs the demo)
#   make test   - lint, type-check and run the whole test suite (what .ci/run calls)
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip

.PHONY: setup demo test lint bench clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	@echo "==> creating $(VENV) and installing codeact with its dev extras"
	python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e '.[dev]'
	@touch $@

demo: setup
	$(PY) examples/demo.py

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

test: lint
	$(VENV)/bin/pytest -q

bench: setup
	$(PY) benchmarks/loop_overhead.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
