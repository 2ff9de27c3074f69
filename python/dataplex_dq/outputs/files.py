"""The result files: per data source its DataQualityResult as proto JSON and binary
(target/dataplex_dq/<data source>.json and .pb), with the post-scan actions' outcomes where the proto has a field.

Files are written atomically (:func:`write_atomic`: a temporary file in the same folder, fsync, rename): a reader
sees the previous file or the new one, never a part. The result files are one set: every new file is written
first, then all are renamed into place, and only then are the previous report's files that this run did not
write removed; when any write fails, the previous set is left as it was (a one-line OutputError, exit 2)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote, unquote

from dataplex_dq.errors import OutputError
from dataplex_dq.outputs.base import OutputContext
from dataplex_dq.run.assemble import result_to_bytes, result_to_json
from dataplex_dq.run.model import Report, SourceReport

MAX_NAME_BYTES = 255  # a file name on ext4, XFS, APFS, NTFS
_LONGEST_SUFFIX = ".json"  # the longer of the two suffixes a base name gets


def result_file_base(data_source_id: str) -> str:
    """A data source's file name without suffix: its unique id, percent-encoded (RFC 3986: letters, digits and
    `-._~` kept; every other byte of its UTF-8 as %XX), so that two ids never share a file (`größe` and `grüe`
    were both `gr_e`), a plain ASCII id keeps its name (`model.shop.orders`) and no name holds `/`, a control
    character or a leading dot. A name longer than a file system allows is cut and ends in `%~` and a hash of
    the whole id (percent-encoding never writes `%~`, so it cannot equal another id's name)."""
    base = quote(data_source_id, safe="")
    if base.startswith("."):
        base = "%2E" + base[1:]
    if len(base) + len(_LONGEST_SUFFIX) <= MAX_NAME_BYTES:
        return base
    digest = hashlib.sha256(data_source_id.encode("utf-8")).hexdigest()[:16]
    keep = MAX_NAME_BYTES - len(_LONGEST_SUFFIX) - len(digest) - 2
    cut = base[:keep]
    if "%" in cut[-2:]:  # never cut inside an escape
        cut = cut[: cut.rindex("%")]
    return f"{cut}%~{digest}"


def data_source_of_file(base: str) -> str:
    """The data source's unique id of a result file's name without suffix (the inverse of
    :func:`result_file_base`; a name cut to fit keeps its readable part, hash included). A name written before
    the names were percent-encoded never holds `%` and is returned as it is."""
    return unquote(base)


def _staged(path: Path, data: bytes) -> Path:
    """``data`` in a new temporary file beside ``path`` (not yet flushed to disk: :func:`_flushed`); removed again
    when it cannot be written."""
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return Path(name)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _flushed(staged: Sequence[Path]) -> None:
    """Every staged file flushed to disk before any is renamed into place, several at once (the file system
    commits them together: 40 result files took ~0.1 s one by one, ~0.03 s so). OSError when one cannot be."""
    if len(staged) <= 1:
        for path in staged:
            _fsync(path)
        return
    with ThreadPoolExecutor(max_workers=min(8, len(staged))) as pool:
        for _ in pool.map(_fsync, staged):
            pass


def _sync_folder(folder: Path) -> None:
    """The renames in ``folder`` made durable (where the platform can open a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_atomic(path: Path, data: bytes) -> None:
    """``path`` replaced by ``data`` at once: a reader, a crash or a full disk leaves the old file or the new
    one, never a part of either. OSError when it cannot be written (the old file is then untouched)."""
    replace_all([(path, data)])


def replace_all(files: Sequence[tuple[Path, bytes]]) -> None:
    """Every (path, data) written, or none: all are staged and flushed to disk first, then renamed into place.
    OSError when one cannot be staged (nothing is then replaced, and no temporary file is left)."""
    staged: list[tuple[Path, Path]] = []
    try:
        for path, data in files:
            staged.append((_staged(path, data), path))
        _flushed([tmp for tmp, _ in staged])
    except BaseException:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        raise
    for tmp, path in staged:
        os.replace(tmp, path)
    for folder in {path.parent for _, path in staged}:
        _sync_folder(folder)


def remove_stale(out_dir: Path, kept: Iterable[Path], *, page: Path | None) -> None:
    """The previous report's result files (`*.pb` and its `.json`) that are not in ``kept`` removed, and its
    page `index.html` unless this run writes ``page`` there. Other files in the folder are kept."""
    keep = {p.resolve() for p in kept}
    if page is not None:
        keep.add(page.resolve())
    for pb in out_dir.glob("*.pb"):
        for old in (pb, pb.with_suffix(".json")):
            if old.resolve() not in keep:
                old.unlink(missing_ok=True)
    index = out_dir / "index.html"
    if index.resolve() not in keep:
        index.unlink(missing_ok=True)


def with_action_results(s: SourceReport) -> bool:
    """Put the outcomes of a source's post-scan actions into its DataQualityResult (the proto has
    fields for the BigQuery export and catalog publishing, none for notifications); True when set."""
    if s.result is None:
        return False
    if s.export_result is not None:
        out = s.result.post_scan_actions_result.bigquery_export_result
        out.CopyFrom(type(out)(state=s.export_result.state, message=s.export_result.message))
    if s.catalog is not None:
        status = s.result.catalog_publishing_status
        status.CopyFrom(type(status)(state=s.catalog.state))
    return s.export_result is not None or s.catalog is not None


def write_result_files(sources: Iterable[SourceReport], out_dir: Path | None = None, page: Path | None = None) -> None:
    """Each source's DataQualityResult as proto JSON and binary (its ``json_path`` and ``pb_path``), all or none;
    then, with ``out_dir``, the previous report's files there that this run did not write are removed (its
    `index.html` unless ``page`` is this run's page there)."""
    files: list[tuple[Path, bytes]] = []
    for s in sources:
        if s.result is None:
            continue
        files.append((s.json_path, (result_to_json(s.result) + "\n").encode("utf-8")))
        files.append((s.pb_path, result_to_bytes(s.result)))
    folder = out_dir or (files[0][0].parent if files else None)
    try:
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
        replace_all(files)
    except OSError as exc:
        where = folder if folder is not None else "the output folder"
        raise OutputError(
            f"cannot write the result files to {where}: {exc.strerror or exc}; the previous result files are kept"
        ) from exc
    if out_dir is not None:
        try:
            remove_stale(out_dir, [p for p, _ in files], page=page)
        except OSError as exc:
            raise OutputError(f"cannot remove the previous result files in {out_dir}: {exc.strerror or exc}") from exc


def result_files_failed(report: Report) -> bool:
    """Whether this report's result files could not be written (the previous ones are then in place)."""
    return any(e.startswith(f"{ResultFiles.name}:") for e in report.output_errors)


class ResultFiles:
    name = "result files"  # run_outputs records its failure as "result files: <error>"

    def write(self, ctx: OutputContext) -> None:
        for s in ctx.report.sources:
            with_action_results(s)
        out_dir = Path(ctx.target_path) / "dataplex_dq"
        write_result_files(ctx.report.sources, out_dir, page=ctx.html.path if ctx.html is not None else None)
