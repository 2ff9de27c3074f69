# dataplex_dq developer tasks. Everything runs in .venv, installed from constraints.txt.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON_BOOTSTRAP ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
VENV_STAMP := $(VENV)/.stamp-install
# The local BigQuery emulator (crucible) pins its own duckdb/sqlglot: a venv of its own.
VENV_EMULATOR := .venv-emulator
EMULATOR_STAMP := $(VENV_EMULATOR)/.stamp-install
# pandas beside it: the emulator's DuckDB client imports pandas again for every value bound to a statement when
# it is missing (a search of sys.path each time: ~40% of the emulator's CPU in a BigQuery demo build)
EMULATOR_PKG := crucible-emulator[server]==0.1.0a2 pandas
TEST_DIRS := $(wildcard python/tests integration_tests/tests)
# Starts PostgreSQL (installed with apt-get when missing and root) and the BigQuery emulator, runs the
# command with DBT_PG_* / DBT_BQ_* set, and stops both on exit.
WITH_SERVICES := CRUCIBLE=$(VENV_EMULATOR)/bin/crucible scripts/test_services.sh

.PHONY: help venv emulator lint test test-duckdb golden demo protos protos-check clean

# `make` alone: the targets below with their one-line descriptions (the `## ` text after each).
help:
	@echo "dataplex_dq developer tasks (make TARGET):"
	@grep -E '^[a-z][a-z-]*:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## (.*)$$/  \1\t\2/' | expand -t 16

venv: $(VENV_STAMP) ## create .venv and install the project with its pinned dependencies

$(VENV_STAMP): pyproject.toml constraints.txt
	@test -n "$(PYTHON_BOOTSTRAP)" || { echo "python3.11 or python3 is required" >&2; exit 1; }
	test -x $(PY) || $(PYTHON_BOOTSTRAP) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[test,dev,postgres,bigquery]'
	touch $@

emulator: $(EMULATOR_STAMP) ## create .venv-emulator with the local BigQuery emulator (crucible)

$(EMULATOR_STAMP): constraints-emulator.txt
	@test -n "$(PYTHON_BOOTSTRAP)" || { echo "python3.11 or python3 is required" >&2; exit 1; }
	test -x $(VENV_EMULATOR)/bin/python || $(PYTHON_BOOTSTRAP) -m venv $(VENV_EMULATOR)
	$(VENV_EMULATOR)/bin/python -m pip install --quiet -c constraints-emulator.txt $(foreach p,$(EMULATOR_PKG),'$(p)')
	touch $@

# The lint and type gate: ruff (lint and format) on all Python, mypy --strict on python/dataplex_dq.
lint: venv lint-fusion ## ruff check, ruff format --check and mypy --strict (configured in pyproject.toml)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# Everything: the lint and type gate first (a minute), then unit tests and the integration suite on
# DuckDB, PostgreSQL and BigQuery (emulator). One pytest worker more than cores: the workers spend part of
# their time waiting on the PostgreSQL server and the emulator, which a third worker fills on 2 cores.
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null) && echo $$((n + 1)) || echo auto)
test: lint emulator matrix ## lint, then unit and integration tests on DuckDB, PostgreSQL and the BigQuery emulator (CI)
	@if [ -z "$(TEST_DIRS)" ]; then echo "no test directories" >&2; exit 1; fi
	$(WITH_SERVICES) $(PY) -m pytest $(TEST_DIRS) -q -rs -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder

# Quick loop: no servers, so the postgres and bigquery targets are skipped (with the reason).
test-duckdb: venv ## unit and integration tests on DuckDB only (no servers)
	$(PY) -m pytest $(TEST_DIRS) -q -rs -n auto --dist loadgroup --no-loadscope-reorder

# Rewrite integration_tests/golden/bigquery/ from the SQL compiled now (review the diff after).
golden: venv emulator ## rewrite integration_tests/golden/bigquery/ from the SQL compiled now
	DATAPLEX_DQ_UPDATE_GOLDEN=1 DATAPLEX_DQ_SKIP_POSTGRES=1 $(WITH_SERVICES) $(PY) -m pytest integration_tests/tests/test_bigquery_sql.py "integration_tests/tests/test_post_scan_actions.py::test_bigquery_catalog_sql_golden" -q

demo: venv ## build the demo project and print its scores
	$(PY) demo/run_demo.py

# Regenerate python/dataplex_dq/proto/*_pb2.py[i] from protos/ (private descriptor pool).
protos: venv ## regenerate python/dataplex_dq/proto from protos/
	$(PY) scripts/gen_protos.py

protos-check: venv ## fail when python/dataplex_dq/proto is not what protos/ generates
	$(PY) scripts/gen_protos.py --check

clean: ## remove the virtualenvs, build output and caches
	rm -rf $(VENV) $(VENV_EMULATOR) build dist python/*.egg-info .pytest_cache target dbt_packages logs
	find . -name __pycache__ -type d -not -path './.git/*' -prune -exec rm -rf {} +

# --- versions (docs/SUPPORTED_VERSIONS.md) -------------------------------------------------------
# The version matrix: each cell (dbt-core 1.12.0, the oldest dbt-core 1.10.x, Python 3.10, Python 3.13)
# is a venv of its own under .venv-matrix/<cell>/ (rebuilt only when pyproject.toml's dependencies,
# constraints.txt or the cell change), where the demo and the integration project are built on DuckDB;
# every cell's numbers and result rows must equal the pinned .venv's, with no deprecation warning from
# dbt. Added time: docs/SUPPORTED_VERSIONS.md.
# `make matrix MATRIX_CELLS="py3.13"` runs some cells; scripts/version_matrix.py --list names them.
VENV_MATRIX := .venv-matrix
MATRIX_CELLS ?=

.PHONY: matrix matrix-clean lint-fusion

matrix: venv ## the version matrix: demo + integration project on dbt 1.10/1.12, Python 3.10/3.13 = the pinned run
	$(PY) scripts/version_matrix.py $(MATRIX_CELLS)

matrix-clean: ## remove the version matrix's venvs (.venv-matrix/)
	rm -rf $(VENV_MATRIX)

# dbt Fusion's JSON schemas (schemas/dbt-fusion/, from dbt-labs/dbt-jsonschema) over the YAML of the
# package, the demo, the integration projects and the README's examples (run by `make lint`).
lint-fusion: venv ## validate the projects' dbt YAML against dbt Fusion's JSON schemas (schemas/dbt-fusion/)
	$(PY) scripts/check_fusion_yaml.py --require-schemas
