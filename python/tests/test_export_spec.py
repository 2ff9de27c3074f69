"""export-spec on a hand-made manifest (rules as the package records them at parse time): both forms,
scan settings, names, tests without a rule type.
The round trip through a real `dbt parse` is integration_tests/tests/test_spec_roundtrip.py."""

from __future__ import annotations

from dataplex_dq.spec.export_spec import export_specs, render
from dataplex_dq.spec.reader import spec_to_dict


def dq_test_node(uid, name, test_name, kwargs, *, column=None, where=None, recorded=()):
    """A test node; `recorded`: (name_given, rule) of each rule as the package records them when dbt
    parses the project (config.meta.dataplex_dq_rules, macros/identity.sql)."""
    rules = [{"rule_index": i, "name_given": given, "rule": rule} for i, (given, rule) in enumerate(recorded)]
    return uid, {
        "resource_type": "test",
        "name": name,
        "unique_id": uid,
        "attached_node": "model.shop.orders",
        "column_name": column,
        "description": "",
        "config": {"meta": {"dataplex_dq_rules": rules}, **({"where": where} if where else {})},
        "test_metadata": {"namespace": "dataplex_dq", "name": test_name, "kwargs": kwargs},
    }


def manifest():
    nodes = dict(
        [
            (
                "model.shop.orders",
                {
                    "resource_type": "model",
                    "name": "orders",
                    "unique_id": "model.shop.orders",
                    "config": {
                        "meta": {"dataplex_dq": {"row_filter": "status <> 'test'", "incremental_field": "updated_at"}}
                    },
                },
            ),
            dq_test_node(
                "test.shop.a",
                "amount-positive",
                "range_expectation",
                {"min_value": 0, "threshold": "0.9", "dimension": "VALIDITY"},
                column="amount",
                recorded=[
                    (
                        True,
                        {
                            "name": "amount-positive",
                            "column": "amount",
                            "dimension": "VALIDITY",
                            "threshold": "0.9",
                            "range_expectation": {"min_value": "0"},
                        },
                    )
                ],
            ),
            dq_test_node(
                "test.shop.b",
                "dataplex_dq_non_null_expectation_orders_id",
                "non_null_expectation",
                {},
                column="id",
                where="id > 0",
                recorded=[(False, {"name": "non-null-id-4d2a1b", "column": "id", "non_null_expectation": {}})],
            ),
            dq_test_node("test.shop.c", "orders_anomalies", "anomaly_detection", {"volume": {}}),
            dq_test_node(
                "test.shop.d",
                "orders_scan",
                "data_quality_scan",
                {
                    "catalogPublishingEnabled": True,
                    "rules": [
                        {"name": "status-known", "column": "status", "setExpectation": {"values": ["a", "b"]}},
                        {"column": "id", "uniqueness_expectation": {}, "debugQueries": [{"sqlStatement": "select 1"}]},
                    ],
                },
                recorded=[
                    (True, {"name": "status-known", "column": "status", "set_expectation": {"values": ["a", "b"]}}),
                    (
                        False,
                        {
                            "name": "uniqueness-id-1",
                            "column": "id",
                            "uniqueness_expectation": {},
                            "debug_queries": [{"sql_statement": "select 1"}],
                        },
                    ),
                ],
            ),
        ]
    )
    return {"nodes": nodes, "sources": {}}


def test_export_combines_both_forms_and_the_settings():
    (exported,) = export_specs(manifest())
    assert spec_to_dict(exported.spec) == {
        "rules": [
            {
                "rangeExpectation": {"minValue": "0"},
                "column": "amount",
                "dimension": "VALIDITY",
                "threshold": 0.9,
                "name": "amount-positive",
            },
            {"nonNullExpectation": {}, "column": "id"},  # the derived name is left out
            {"setExpectation": {"values": ["a", "b"]}, "column": "status", "name": "status-known"},
            {"uniquenessExpectation": {}, "column": "id", "debugQueries": [{"sqlStatement": "select 1"}]},
        ],
        "rowFilter": "status <> 'test'",
        "catalogPublishingEnabled": True,
    }
    assert exported.notes == [
        "rule 'dataplex_dq_non_null_expectation_orders_id' has a dbt `where` config (id > 0), which a "
        "DataQualitySpec cannot express; exported without it",
        "test 'orders_anomalies' (anomaly_detection) has no DataQualitySpec rule type; left out",
        "incremental_field 'updated_at' is not part of a DataQualitySpec: pass --incremental-field=updated_at to "
        "gcloud",
    ]
    text = render(exported, "yaml")
    assert (
        text.splitlines()[0]
        == "# Dataplex DataQualitySpec of model 'orders' (model.shop.orders), exported by dataplex-dq export-spec."
    )
    assert "rowFilter: status <> 'test'\n" in text
    assert export_specs(manifest(), selected={"model.shop.other"}) == []


def test_a_data_source_with_only_an_anomaly_test_is_left_out_with_a_note_not_a_refusal():
    """issue 30 item 12: one such model made export-spec refuse the whole project ("no rules")."""
    m = manifest()
    m["nodes"]["model.shop.events"] = {
        "resource_type": "model",
        "name": "events",
        "unique_id": "model.shop.events",
        "config": {"meta": {}},
    }
    uid, node = dq_test_node("test.shop.e", "events_anomalies", "anomaly_detection", {"volume": {}})
    node["attached_node"] = "model.shop.events"
    m["nodes"][uid] = node
    events, orders = export_specs(m)
    assert events.data_source.name == "events" and events.spec is None
    assert events.notes == [
        "test 'events_anomalies' (anomaly_detection) has no DataQualitySpec rule type; left out",
        "no rule a DataQualitySpec can hold (only anomaly_detection or tests without a rule type); left out",
    ]
    assert orders.spec is not None and len(orders.spec["rules"]) == 4


def test_the_webhook_extension_is_left_out_with_a_note():
    """issue 30 item 12: the README's own `webhook` made export-spec fail (unknown field)."""
    m = manifest()
    m["nodes"]["model.shop.orders"]["config"]["meta"]["dataplex_dq"]["post_scan_actions"] = {
        "notification_report": {
            "recipients": {"emails": ["data-owner@example.com"]},
            "job_end_trigger": {},
            "webhook": {"url": "https://hooks.slack.com/services/T/B/X"},
        }
    }
    (exported,) = export_specs(m)
    assert spec_to_dict(exported.spec)["postScanActions"] == {
        "notificationReport": {"recipients": {"emails": ["data-owner@example.com"]}, "jobEndTrigger": {}}
    }
    assert (
        "post_scan_actions.notification_report.webhook (https://hooks.slack.com/services/T/B/X) is dataplex_dq's "
        "extension, which a DataQualitySpec has no field for; left out (Dataplex sends the notification report by "
        "email only)" in exported.notes
    )


def test_spec_files_of_names_that_differ_only_outside_ascii_never_collide(tmp_path):
    """Issue 30 item 9 for export-spec: größe, grüe and gr_e each get their own file (percent-encoded as result
    files are), an ASCII name keeps its plain file name, and every file holds its own data source's spec."""
    import dataclasses

    from dataplex_dq.spec.export_spec import ExportedSpec, write_specs

    (orders,) = [e for e in export_specs(manifest()) if e.data_source.name == "orders"]
    specs = [
        ExportedSpec(dataclasses.replace(orders.data_source, name=name, unique_id=f"model.hx.{name}"), orders.spec)
        for name in ("größe", "grüe", "gr_e", "gr_e")  # the last: a second project's model of the same name
    ]
    specs[3] = ExportedSpec(dataclasses.replace(specs[3].data_source, unique_id="model.other.gr_e"), orders.spec)
    write_specs(specs, tmp_path, "yaml")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["gr%C3%B6%C3%9Fe.yaml", "gr%C3%BCe.yaml", "gr_e.yaml", "model.other.gr_e.yaml"]
    for exported in specs:
        assert exported.path is not None and f"({exported.data_source.unique_id})" in exported.path.read_text()
