"""run/record.py, its pure parts: the run results the writer is given, and the refusal of stale artifacts
(recording itself, `dbt run-operation dataplex_dq.record_run`, is integration_tests/tests/test_one_run.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dataplex_dq.errors import StaleArtifactsError, WarehouseError
from dataplex_dq.record.artifacts import Artifacts, RuleTest
from dataplex_dq.record.artifacts import TestRun as Run
from dataplex_dq.record.run_operation import check_not_stale, recorded_results


def _test(name: str, relation: str | None = None, order: int = 0) -> RuleTest:
    return RuleTest(f"test.p.{name}.1", name, "non_null_expectation", "seed.p.s", "id", relation, {}, None, order)


def _artifacts(*tests_and_status: tuple[RuleTest, str]) -> Artifacts:
    tests = {t.unique_id: t for t, _ in tests_and_status}
    runs = {t.unique_id: Run(t.unique_id, s, None, None, None, None) for t, s in tests_and_status}
    return Artifacts(Path("."), "p", "inv-now", None, None, tests, {}, runs)


class _Wh:
    """A warehouse that answers the one query check_not_stale may run."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.queries: list[str] = []

    def query(self, sql: str) -> list[dict[str, Any]]:
        self.queries.append(sql)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer  # type: ignore[no-any-return]


def test_metrics_of_another_invocation_are_refused():
    skipped, ran = _test("skipped", '"db"."audit"."dq_skipped"', 0), _test("ran", '"db"."audit"."dq_ran"', 1)
    wh = _Wh([{"dq_invocation_id": "inv-before"}])
    with pytest.raises(
        StaleArtifactsError, match=r"comes from dbt invocation inv-before, but run_results.json is from "
    ):
        check_not_stale(wh, _artifacts((skipped, "skipped"), (ran, "fail")))  # type: ignore[arg-type]
    # the first test that ran a query is read (a skipped one left no row of this run), one row of it
    assert wh.queries == ['select dq_invocation_id from "db"."audit"."dq_ran" limit 1']


@pytest.mark.parametrize("answer", [[{"dq_invocation_id": "inv-now"}], [], [{"dq_invocation_id": None}]])
def test_metrics_of_this_invocation_or_none_pass(answer):
    check_not_stale(_Wh(answer), _artifacts((_test("ran", '"audit"."dq_ran"'), "pass")))  # type: ignore[arg-type]


def test_nothing_is_read_without_a_test_that_ran_a_query():
    wh = _Wh(AssertionError("no query expected"))
    check_not_stale(wh, _artifacts((_test("a", '"audit"."a"'), "error"), (_test("b", None), "pass")))  # type: ignore[arg-type]
    assert wh.queries == []


def test_an_unreadable_relation_is_left_to_the_writer():
    wh = _Wh(WarehouseError("Catalog Error: Table dq_ran does not exist"))
    check_not_stale(wh, _artifacts((_test("ran", '"audit"."dq_ran"'), "warn")))  # type: ignore[arg-type]
    assert len(wh.queries) == 1


def test_the_writer_gets_the_dataplex_dq_tests_results_as_dbt_gives_them():
    mine = _test("mine")
    run_results = {
        "results": [
            {
                "unique_id": mine.unique_id,
                "status": "fail",
                "message": "Got 1 result",
                "timing": [
                    {"name": "compile", "started_at": "2024-01-02T03:04:05.000001Z", "completed_at": None},
                    {
                        "name": "execute",
                        "started_at": "2024-01-02T03:04:05.5+00:00",
                        "completed_at": "2024-01-02T03:04:06Z",
                    },
                    "not a timing",
                ],
                "execution_time": 1.25,
                "adapter_response": {"_message": "OK", "rows_affected": 1},
            },
            {"unique_id": "model.p.orders", "status": "success"},  # not a dataplex_dq test
            {"unique_id": "test.p.other.2", "status": "pass"},  # not one of the project's dataplex_dq tests
            "garbage",
            {"unique_id": mine.unique_id, "status": "skipped", "adapter_response": None, "timing": None},
        ]
    }
    assert recorded_results(run_results, _artifacts((mine, "fail"))) == [
        {
            "node": {"unique_id": mine.unique_id},
            "status": "fail",
            "message": "Got 1 result",
            "timing": [
                {"name": "compile", "started_at": "2024-01-02T03:04:05.000001", "completed_at": None},
                {"name": "execute", "started_at": "2024-01-02T03:04:05.5", "completed_at": "2024-01-02T03:04:06"},
            ],
            "execution_time": 1.25,
            "adapter_response": {"_message": "OK", "rows_affected": 1},
        },
        {
            "node": {"unique_id": mine.unique_id},
            "status": "skipped",
            "message": None,
            "timing": [],
            "execution_time": None,
            "adapter_response": {},
        },
    ]
    assert recorded_results({}, _artifacts()) == []
