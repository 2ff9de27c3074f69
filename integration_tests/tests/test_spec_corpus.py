"""Every spec file of the corpus (integration_tests/specs/) pasted AS IS under a data_quality_scan's
`arguments:` (issue 9, C.1 and C.4): wrapped or bare, a gcloud DataScan resource, either casing at
every depth, explicit unsets. Each builds on its seed, and its counts are the ones of the same spec in
canonical form (the Python loader's snake_case, python/dataplex_dq/spec/reader.py) built next to it."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import duckdb
import pytest
import yaml

from dataplex_dq.spec.reader import load_spec_file
from dbt_harness import INTEGRATION_DIR, DbtProject

SPECS = INTEGRATION_DIR / "specs"
INDEX = yaml.safe_load((SPECS / "index.yml").read_text())["specs"]
# GoogleSQL functions run on BigQuery only; execution_spec.field is an incremental scan (not built here)
SKIP = {
    "googlesql_functions.yaml": "GoogleSQL functions: BigQuery only",
    "terraform_full_quality_state.json": "execution_spec.field: an incremental scan",
}
FILES = sorted(f for f in INDEX if f not in SKIP)
COUNTS = "rule_index, rule_name, rule_status, evaluated_count, passed_count, null_count, passed"


def _stem(name: str) -> str:
    return Path(name).stem


def _read(path: Path):
    text = path.read_text()
    return json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)


@pytest.fixture(scope="module")
def corpus_build(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("spec_corpus")
    proj = tmp / "proj"
    (proj / "models").mkdir(parents=True)
    seeds_cfg = yaml.safe_load((INTEGRATION_DIR / "seeds" / "seeds.yml").read_text())["seeds"]
    used = {INDEX[f]["seed"] for f in FILES}
    (proj / "seeds").mkdir()
    for s in used:
        (proj / "seeds" / f"{s}.csv").write_text((INTEGRATION_DIR / "seeds" / f"{s}.csv").read_text())
    models = []
    for f in FILES:
        seed, stem = INDEX[f]["seed"], _stem(f)
        as_is = _read(SPECS / f)
        canonical = load_spec_file(SPECS / f).spec
        for suffix, args in (("", as_is), ("_canon", canonical)):
            (proj / "models" / f"spec_{stem}{suffix}.sql").write_text(f"select * from {{{{ ref('{seed}') }}}}\n")
            models.append(
                {
                    "name": f"spec_{stem}{suffix}",
                    "data_tests": [
                        {"dataplex_dq.data_quality_scan": {"name": f"scan_{stem}{suffix}", "arguments": args}}
                    ],
                }
            )
    schema = {
        "version": 2,
        "models": models,
        "seeds": [
            {"name": s["name"], "config": {"column_types": s["config"]["column_types"]}}
            for s in seeds_cfg
            if s["name"] in used
        ],
    }
    (proj / "models" / "schema.yml").write_text(yaml.safe_dump(schema, sort_keys=False, allow_unicode=True))
    (proj / "dbt_project.yml").write_text(
        textwrap.dedent("""\
        name: spec_corpus
        version: "1.0"
        config-version: 2
        profile: dataplex_dq_integration_tests
        models:
          spec_corpus:
            +materialized: view
        """)
    )
    (proj / "packages.yml").write_text(f"packages:\n  - local: {INTEGRATION_DIR.parent}\n")
    db = tmp / "corpus.duckdb"
    p = DbtProject(proj, INTEGRATION_DIR, tmp / "target", {"DBT_DUCKDB_PATH": str(db)})
    assert p.run("deps").returncode == 0
    build = p.run("build", "--exclude", "package:dataplex_dq")
    return build, db


def _counts(db: Path, relation: str) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(f"select {COUNTS} from {relation} order by rule_index").fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("spec_file", FILES)
def test_a_pasted_spec_builds_with_the_counts_of_its_canonical_form(corpus_build, spec_file):
    build, db = corpus_build
    nodes = build.manifest["nodes"]
    # keyed by the model the scan is on: dbt takes a DataScan's own `name:` (gcloud describe) in
    # `arguments` as the test's name, so the pasted resource's test is named after the DataScan
    by_model = {
        (nodes[r["unique_id"]].get("attached_node") or "").split(".")[-1]: (r, nodes[r["unique_id"]])
        for r in build.run_results["results"]
        if nodes.get(r["unique_id"], {}).get("resource_type") == "test"
    }
    stem = _stem(spec_file)
    as_is, as_is_node = by_model[f"spec_{stem}"]
    canon, canon_node = by_model[f"spec_{stem}_canon"]
    # evaluated (not errored): dbt fails the test exactly when a rule failed
    assert as_is["status"] == ("fail" if as_is["failures"] else "pass"), as_is["message"]
    assert canon["status"] == ("fail" if canon["failures"] else "pass"), canon["message"]
    got, expected = _counts(db, as_is_node["relation_name"]), _counts(db, canon_node["relation_name"])
    assert len(got) == len(load_spec_file(SPECS / spec_file).rules)
    assert got == expected
    assert as_is["failures"] == canon["failures"] == sum(1 for r in got if r[2] == "FAILED")


@pytest.mark.parametrize("spec_file", sorted(SKIP))
def test_skipped_corpus_files(spec_file):
    pytest.skip(SKIP[spec_file])
