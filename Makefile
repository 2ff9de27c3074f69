# dataplex_dq developer tasks. Everything runs in .venv, installed from constraints.txt.
SHELL := /bin/bash
.DEFAULT_GOAL := test

PYTHON_BOOTSTRAP ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
VENV_STAMP := $(VENV)/.stamp-install
TEST_DIRS := $(wildcard python/tests integration_tests/tests)

.PHONY: venv test demo protos protos-check clean

venv: $(VENV_STAMP)

$(VENV_STAMP): pyproject.toml constraints.txt
	@test -n "$(PYTHON_BOOTSTRAP)" || { echo "python3.11 or python3 is required" >&2; exit 1; }
	test -x $(PY) || $(PYTHON_BOOTSTRAP) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[test,dev]'
	touch $@

test: venv
	@if [ -z "$(TEST_DIRS)" ]; then echo "no test directories" >&2; exit 1; fi
	$(PY) -m pytest $(TEST_DIRS) -q

demo: venv
	$(PY) demo/run_demo.py

# Regenerate python/dataplex_dq/proto/*_pb2.py[i] from protos/ (private descriptor pool).
protos: venv
	$(PY) scripts/gen_protos.py

protos-check: venv
	$(PY) scripts/gen_protos.py --check

clean:
	rm -rf $(VENV) build dist python/*.egg-info .pytest_cache target dbt_packages logs
	find . -name __pycache__ -type d -not -path './.git/*' -prune -exec rm -rf {} +
