"""The result files and the HTML page are written atomically and never collide (issue 30 item 9): a write that
fails (a file-size limit, a full disk) leaves the previous set as it was, byte for byte, with no temporary file
left; the previous files are removed only once every new one is in place; two data sources never share a file
name, and a plain ASCII one keeps the name it always had."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from dataplex_dq.errors import OutputError
from dataplex_dq.outputs.files import (
    MAX_NAME_BYTES,
    data_source_of_file,
    result_file_base,
    write_atomic,
    write_result_files,
)
from dataplex_dq.proto import DataQualityResult

REPO_PYTHON = Path(__file__).resolve().parents[1]


def _md5s(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.md5(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_names_are_injective_and_plain_ascii_names_unchanged():
    # both were "model.hx.gr_e" (one file overwrote the other)
    assert result_file_base("model.hx.größe") == "model.hx.gr%C3%B6%C3%9Fe"
    assert result_file_base("model.hx.grüe") == "model.hx.gr%C3%BCe"
    # the names users and tests reference are unchanged
    for uid in ("model.shop.orders", "seed.report_errors.items", "source.p.raw.events_2024", "model.p.a-b~c"):
        assert result_file_base(uid) == uid
    # the old sanitizer merged each of these pairs; every name reads back as its data source's id
    pairs = [("model.p.a b", "model.p.a_b"), ("model.p.a/b", "model.p.a_b"), ("model.p.a%20b", "model.p.a b")]
    for left, right in pairs:
        assert result_file_base(left) != result_file_base(right)
        assert data_source_of_file(result_file_base(left)) == left
        assert data_source_of_file(result_file_base(right)) == right


@pytest.mark.parametrize(
    "uid",
    ["../../etc/passwd", ".hidden", "model.p.a\x00b\nc\x7f", "model.p.C:\\x", "model.p." + "é" * 300, "m" * 1000],
)
def test_names_are_safe(uid):
    base = result_file_base(uid)
    for name in (base + ".json", base + ".pb"):
        assert "/" not in name and "\\" not in name and not name.startswith(".")
        assert all(0x20 < ord(c) < 0x7F for c in name), name  # printable ASCII only: no control character
        assert len(name.encode("utf-8")) <= MAX_NAME_BYTES
    if len(uid) < 200:
        assert data_source_of_file(base) == uid


def test_long_names_that_differ_only_at_the_end_do_not_collide():
    a, b = "model.p." + "x" * 400 + "a", "model.p." + "x" * 400 + "b"
    assert result_file_base(a) != result_file_base(b)
    assert result_file_base(a).startswith("model.p.xxx") and "%~" in result_file_base(a)
    assert len(result_file_base(a) + ".json") == MAX_NAME_BYTES


def _source(folder: Path, uid: str, rows: int) -> SimpleNamespace:
    result = DataQualityResult(row_count=rows, passed=True, score=100.0)
    base = result_file_base(uid)
    return SimpleNamespace(result=result, json_path=folder / f"{base}.json", pb_path=folder / f"{base}.pb")


def _previous_report(out: Path) -> dict[str, str]:
    out.mkdir(parents=True)
    files = {
        "model.p.kept.json": '{"rowCount": "1"}\n',
        "model.p.kept.pb": "\x10\x01",
        "model.p.gone.json": '{"rowCount": "2"}\n',
        "model.p.gone.pb": "\x10\x02",
        "index.html": "<html>old page</html>\n",
        "notes.txt": "a user's file\n",
        "other.json": "{}\n",
    }
    for name, text in files.items():
        (out / name).write_text(text)
    return _md5s(out)


_UNDER_LIMIT = """
import resource, sys
from pathlib import Path
from types import SimpleNamespace
sys.path.insert(0, {python!r})
from dataplex_dq.errors import OutputError
from dataplex_dq.outputs.files import result_file_base, write_result_files
from dataplex_dq.proto import DataQualityResult

out = Path({out!r})
resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))  # larger than any old file, smaller than the new JSON
sources = []
for uid, rows in (("model.p.kept", 7), ("model.p.new", 8)):
    result = DataQualityResult(row_count=rows, passed=True, score=100.0)
    for i in range(20):
        result.rules.add().rule.name = f"rule-{{i}}"
    base = result_file_base(uid)
    sources.append(SimpleNamespace(result=result, json_path=out / f"{{base}}.json", pb_path=out / f"{{base}}.pb"))
try:
    write_result_files(sources, out, page=None)
except OutputError as exc:
    print(exc)
    sys.exit(2)
"""


def test_a_file_size_limit_leaves_the_previous_set_intact(tmp_path):
    """Under RLIMIT_FSIZE (in a subprocess) the new JSON cannot be written: one line, and every previous file
    byte-identical (the old code removed them first, then left a truncated JSON)."""
    out = tmp_path / "dataplex_dq"
    before = _previous_report(out)
    script = textwrap.dedent(_UNDER_LIMIT).format(python=str(REPO_PYTHON), out=str(out))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    assert lines[0].startswith(f"cannot write the result files to {out}: File too large"), lines[0]
    assert lines[0].endswith("the previous result files are kept")
    assert _md5s(out) == before  # nothing removed, replaced, truncated or left behind (no temporary file)


def test_previous_files_are_removed_only_once_the_new_ones_are_in_place(tmp_path, monkeypatch):
    out = tmp_path / "dataplex_dq"
    before = _previous_report(out)
    kept, new = _source(out, "model.p.kept", 7), _source(out, "model.p.new", 8)
    # the second file cannot be staged (a full disk): nothing of the set is replaced or removed
    from dataplex_dq.outputs import files

    real_staged = files._staged
    calls = []

    def full_disk(path: Path, data: bytes) -> Path:
        calls.append(path.name)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real_staged(path, data)

    monkeypatch.setattr(files, "_staged", full_disk)
    with pytest.raises(OutputError, match=r"No space left on device; the previous result files are kept$"):
        write_result_files([kept, new], out, page=None)
    assert _md5s(out) == before
    monkeypatch.undo()
    write_result_files([kept, new], out, page=None)
    after = _md5s(out)
    # the new set, the stale pair and the stale page gone, other files kept
    assert sorted(after) == ["model.p.kept.json", "model.p.kept.pb", "model.p.new.json", "model.p.new.pb",
                             "notes.txt", "other.json"]  # fmt: skip
    assert '"rowCount": "7"' in (out / "model.p.kept.json").read_text()
    assert DataQualityResult.FromString((out / "model.p.new.pb").read_bytes()).row_count == 8
    assert after["notes.txt"] == before["notes.txt"] and after["other.json"] == before["other.json"]


def test_this_runs_page_is_not_removed_as_stale(tmp_path):
    out = tmp_path / "dataplex_dq"
    _previous_report(out)
    write_result_files([_source(out, "model.p.kept", 7)], out, page=out / "index.html")
    assert (out / "index.html").read_text() == "<html>old page</html>\n"  # the HTML output replaces it next


def test_write_atomic_replaces_whole_or_not_at_all(tmp_path, monkeypatch):
    page = tmp_path / "index.html"
    page.write_text("old")
    write_atomic(page, b"new page")
    assert page.read_bytes() == b"new page"
    import os

    def failing_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError):
        write_atomic(page, b"x" * 10_000)
    assert page.read_bytes() == b"new page"
    assert [p.name for p in tmp_path.iterdir()] == ["index.html"]
