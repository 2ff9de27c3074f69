"""Failing-row samples that help (issue 34 item 4; outputs/sample_keys.py, outputs/html_data.py): the key columns
a sample lists first (primary key, else unique-tested columns, else meta.dataplex_dq.sample_keys), the masked
columns the sample query is asked to replace, N from the macro, and the page naming both. The SQL itself (masked
values never selected) and N on each warehouse: integration_tests/tests/test_samples_lineage.py."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from test_html_render import SOURCE, _FakeWarehouse, outcome, page, report_of

from dataplex_dq.outputs.html_data import fetch_samples, sample_from_rows, shown_columns
from dataplex_dq.outputs.sample_keys import SamplePlan, key_columns, plan_of, primary_key, sample_plans, unique_tested


def test_primary_key_from_model_or_column_constraints():
    assert primary_key({"constraints": [{"type": "not_null"}, {"type": "primary_key", "columns": ["a", "b"]}]}) == (
        "a",
        "b",
    )
    node = {
        "columns": {
            "id": {"name": "id", "constraints": [{"type": "primary_key"}]},
            "x": {"name": "x", "constraints": [{"type": "unique"}]},
        }
    }
    assert primary_key(node) == ("id",)
    assert primary_key({"constraints": [], "columns": {}}) == ()


def test_keys_precedence_primary_then_unique_then_meta():
    pk = {"constraints": [{"type": "primary_key", "columns": ["order_id"]}]}
    meta = {"sample_keys": ["tenant", "ref"]}
    assert key_columns(pk, ["code"], meta) == ("order_id",)
    assert key_columns({}, ["code", "CODE", "sku"], meta) == ("code", "sku")  # folded like the warehouse
    assert key_columns(None, [], meta) == ("tenant", "ref")
    assert key_columns(None, [], {"sample_keys": "ref"}) == ("ref",)
    assert key_columns(None, [], {}) == ()


def test_unique_tests_of_the_manifest_by_data_source():
    manifest = {
        "nodes": {
            "test.p.unique_orders_code": {
                "resource_type": "test",
                "test_metadata": {"name": "unique", "kwargs": {"column_name": "code"}},
                "attached_node": "model.p.orders",
                "column_name": "code",
            },
            "test.p.dq_sku": {
                "resource_type": "test",
                "test_metadata": {"name": "uniqueness_expectation", "namespace": "dataplex_dq"},
                "depends_on": {"nodes": ["source.p.raw.items"]},
                "column_name": "sku",
            },
            "test.p.not_null_orders_id": {
                "resource_type": "test",
                "test_metadata": {"name": "not_null"},
                "attached_node": "model.p.orders",
                "column_name": "id",
            },
        }
    }
    assert unique_tested(manifest) == {"model.p.orders": ("code",), "source.p.raw.items": ("sku",)}


def _source_with(settings: dict[str, Any], *outcomes):
    report = report_of(*(outcomes or (outcome("f1", "FAILED", passed=50),)))
    s = report.sources[0]
    s.data_source = replace(s.data_source, settings=settings)
    return report


def test_plan_takes_mask_and_uniqueness_rules_of_the_report():
    rule = outcome("id-unique", "PASSED", column="id", rule_type="uniqueness_expectation")
    report = _source_with({"sample_mask": ["email", "Phone"], "sample_keys": ["ref"]}, rule)
    assert plan_of(report.sources[0], None) == SamplePlan(("id",), ("email", "Phone"))
    assert sample_plans(report, {})[SOURCE] == SamplePlan(("id",), ("email", "Phone"))
    bad = plan_of(_source_with({"sample_mask": {"email": True}}).sources[0], None)
    assert bad.mask == () and bad.error is not None
    assert "model 'orders': meta.dataplex_dq.sample_mask must be a list of column names" in bad.error


def test_key_columns_come_first_and_masked_columns_are_named():
    assert shown_columns(["a", "b", "ID", "c"], "b", keys=("id",)) == ["ID", "a", "b", "c"]
    wide = [f"c{i}" for i in range(30)]
    assert shown_columns(wide, "c25", max_columns=5, keys=("c20",)) == ["c20", "c25", "c0", "c1", "c2"]
    rows = [{"note": "n", "email": "***", "id": 7}]
    s = sample_from_rows(rows, plan=SamplePlan(("id",), ("EMAIL",)))
    assert (s.columns, s.rows, s.keys, s.masked) == (("id", "note", "email"), (("7", "n", "***"),), ("id",), ("email",))
    html = page(report_of(outcome("f1", "FAILED", passed=50)), samples={(SOURCE, "f1"): s})
    assert "First 1 failing rows; key id; masked email</caption>" in html
    assert '<th scope="col" class="key">id</th>' in html and '<th scope="col" class="masked">email</th>' in html


class _MaskingWarehouse(_FakeWarehouse):
    """Records the macro's items; renders a query listing the item's mask; N is 3."""

    def __init__(self) -> None:
        super().__init__()
        self.items: list[dict[str, Any]] = []
        self.manifest_path = None

    def macro(self, name: str, **kwargs: Any) -> dict[str, Any]:
        self.items.extend(kwargs["items"])
        return {"max_rows": 3, "samples": [{"sql": f"q{i}", "error": None} for i, _ in enumerate(kwargs["items"])]}

    def query(self, sql: str) -> list[dict[str, Any]]:
        self.queries.append(sql)
        return [{"note": f"n{i}", "email": "***", "id": i} for i in range(5)]


def test_fetch_samples_asks_the_macro_to_mask_and_keeps_n_rows_keys_first():
    report = _source_with({"sample_mask": ["email", "fax"], "sample_keys": ["id"]})
    wh = _MaskingWarehouse()
    samples, notes = fetch_samples(wh, report)
    (item,) = wh.items
    assert item["mask"] == ["email", "fax"] and item["columns"] is None
    assert item["relation"] == {"database": "db", "schema": "main", "identifier": "orders"}
    s = samples[(SOURCE, "f1")]
    assert s.columns[0] == "id" and len(s.rows) == 3 and s.masked == ("email",)
    assert notes == [
        f"sample_mask of {SOURCE} names columns its failing rows do not have: fax (check the spelling: nothing of "
        "that name was masked)."
    ]


def test_a_bad_mask_takes_no_sample_at_all():
    wh = _MaskingWarehouse()
    samples, _ = fetch_samples(wh, _source_with({"sample_mask": 3}))
    assert samples[(SOURCE, "f1")].error is not None and samples[(SOURCE, "f1")].rows == ()
    assert wh.queries == []
