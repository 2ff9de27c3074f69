# dataplex_dq developer tasks. Everything runs in .venv, installed from constraints.txt.
SHELL := /bin/bash
.DEFAULT_GOAL := test

PYTHON_BOOTSTRAP ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
VENV_STAMP := $(VENV)/.stamp-install
# The local BigQuery emulator (crucible) pins its own duckdb/sqlglot: a venv of its own.
VENV_EMULATOR := .venv-emulator
EMULATOR_STAMP := $(VENV_EMULATOR)/.stamp-install
EMULATOR_PKG := crucible-emulator[server]==0.1.0a2
TEST_DIRS := $(wildcard python/tests integration_tests/tests)
# Starts PostgreSQL (installed with apt-get when missing and root) and the BigQuery emulator, runs the
# command with DBT_PG_* / DBT_BQ_* set, and stops both on exit.
WITH_SERVICES := CRUCIBLE=$(VENV_EMULATOR)/bin/crucible scripts/test_services.sh

.PHONY: venv emulator test test-duckdb golden demo protos protos-check clean

venv: $(VENV_STAMP)

$(VENV_STAMP): pyproject.toml constraints.txt
	@test -n "$(PYTHON_BOOTSTRAP)" || { echo "python3.11 or python3 is required" >&2; exit 1; }
	test -x $(PY) || $(PYTHON_BOOTSTRAP) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[test,dev,postgres,bigquery]'
	touch $@

emulator: $(EMULATOR_STAMP)

$(EMULATOR_STAMP): constraints-emulator.txt
	@test -n "$(PYTHON_BOOTSTRAP)" || { echo "python3.11 or python3 is required" >&2; exit 1; }
	test -x $(VENV_EMULATOR)/bin/python || $(PYTHON_BOOTSTRAP) -m venv $(VENV_EMULATOR)
	$(VENV_EMULATOR)/bin/python -m pip install --quiet -c constraints-emulator.txt '$(EMULATOR_PKG)'
	touch $@

# Everything: unit tests, and the integration suite on DuckDB, PostgreSQL and BigQuery (emulator).
test: venv emulator
	@if [ -z "$(TEST_DIRS)" ]; then echo "no test directories" >&2; exit 1; fi
	$(WITH_SERVICES) $(PY) -m pytest $(TEST_DIRS) -q -rs

# Quick loop: no servers, so the postgres and bigquery targets are skipped (with the reason).
test-duckdb: venv
	$(PY) -m pytest $(TEST_DIRS) -q -rs

# Rewrite integration_tests/golden/bigquery/ from the SQL compiled now (review the diff after).
golden: venv emulator
	DATAPLEX_DQ_UPDATE_GOLDEN=1 DATAPLEX_DQ_SKIP_POSTGRES=1 $(WITH_SERVICES) $(PY) -m pytest integration_tests/tests/test_bigquery_sql.py "integration_tests/tests/test_post_scan_actions.py::test_bigquery_catalog_sql_golden" -q

demo: venv
	$(PY) demo/run_demo.py

# Regenerate python/dataplex_dq/proto/*_pb2.py[i] from protos/ (private descriptor pool).
protos: venv
	$(PY) scripts/gen_protos.py

protos-check: venv
	$(PY) scripts/gen_protos.py --check

clean:
	rm -rf $(VENV) $(VENV_EMULATOR) build dist python/*.egg-info .pytest_cache target dbt_packages logs
	find . -name __pycache__ -type d -not -path './.git/*' -prune -exec rm -rf {} +
