"""Compiled Jinja templates kept between `dataplex-dq` processes (`dataplex-dq build` and `report`).

dbt compiles every macro it calls from its source once per process (Jinja: parse, generate Python,
compile it): the 20-rule scan of the anchor calls ~190 of the package's macros, ~2 s of a fresh
process's ~7 s at 1M rows, more than the scan's query. While `dataplex-dq` runs dbt in its own process,
Jinja's compile step looks the template up here first: the code object marshalled to a file named by
a digest of the source and of everything in the environment that changes the generated code (Jinja's
and Python's versions, the environment's class, syntax options, extensions, and each filter's and
test's name, implementation and pass-argument kind, which Jinja reads while generating). Jinja's own
bytecode cache does the same for templates from a loader; dbt builds templates from strings, which it
never consults. Anything the cache cannot read is compiled as before; `DATAPLEX_DQ_TEMPLATE_CACHE=0`
switches it off; plain `dbt` commands never use it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import CodeType
from typing import Any

CACHE_DIR = "dataplex_dq_template_cache"
"""Beside the result files in dbt's target path (so `dbt clean` removes it)."""
MAX_FILES = 4000
"""Above this many files, the ones this process did not use are removed when it ends."""


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0


def _callable_id(f: Any) -> str:
    return f"{getattr(f, '__module__', '')}.{getattr(f, '__qualname__', type(f).__qualname__)}"


def environment_key(env: Any) -> bytes:
    """What of ``env`` the generated code depends on, besides the source."""
    import jinja2
    from jinja2.utils import _PassArg

    parts = [
        sys.version,
        importlib.util.MAGIC_NUMBER.hex(),
        str(jinja2.__version__),
        _callable_id(type(env)),
        repr(
            (
                env.block_start_string,
                env.block_end_string,
                env.variable_start_string,
                env.variable_end_string,
                env.comment_start_string,
                env.comment_end_string,
                env.line_statement_prefix,
                env.line_comment_prefix,
                env.trim_blocks,
                env.lstrip_blocks,
                env.newline_sequence,
                env.keep_trailing_newline,
                env.optimized,
                env.is_async,
                env.autoescape if not callable(env.autoescape) else _callable_id(env.autoescape),
                env.finalize is not None and _callable_id(env.finalize),
            )
        ),
        ",".join(sorted(_callable_id(type(e)) for e in env.extensions.values())),
    ]
    for kind, mapping in (("filter", env.filters), ("test", env.tests)):
        parts.extend(f"{kind}:{name}={_callable_id(f)}:{_PassArg.from_obj(f)}" for name, f in sorted(mapping.items()))
    return "\n".join(parts).encode()


@contextmanager
def compiled_templates(target_path: Path) -> Iterator[CacheStats]:
    """Within the block, Jinja's compile step reads and fills the cache under ``target_path``."""
    stats = CacheStats()
    if os.environ.get("DATAPLEX_DQ_TEMPLATE_CACHE", "1").strip().lower() in ("0", "false", "no", "off"):
        yield stats
        return
    import jinja2

    folder = Path(target_path) / CACHE_DIR
    original: Any = jinja2.Environment.compile
    used: set[str] = set()

    def key_of(env: Any, source: str, name: str | None, filename: str | None, defer_init: bool) -> str:
        # computed for each compile (dbt makes an environment per template and adds its filters after)
        digest = hashlib.sha256(environment_key(env))
        digest.update(repr((name, filename, defer_init)).encode())
        digest.update(source.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def compile(  # noqa: PLR0917 - the signature of jinja2.Environment.compile
        self: Any,
        source: Any,
        name: str | None = None,
        filename: str | None = None,
        raw: bool = False,
        defer_init: bool = False,
    ) -> Any:
        if raw or not isinstance(source, str) or os.environ.get("DBT_MACRO_DEBUGGING"):
            return original(self, source, name, filename, raw, defer_init)
        key = key_of(self, source, name, filename, defer_init)
        path = folder / key[:2] / f"{key}.code"
        used.add(key)
        code = _read(path)
        if code is not None:
            stats.hits += 1
            return code
        code = original(self, source, name, filename, raw, defer_init)
        stats.misses += 1
        _write(path, code)
        return code

    jinja2.Environment.compile = compile  # type: ignore[method-assign]
    try:
        yield stats
    finally:
        jinja2.Environment.compile = original  # type: ignore[method-assign]
        _prune(folder, used)


def _read(path: Path) -> CodeType | None:
    try:
        code = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, CodeType) else None


def _write(path: Path, code: CodeType) -> None:
    """Atomically (another process may read the same file); a cache that cannot be written is no cache, and
    leaves no partial file behind (a full disk)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(marshal.dumps(code))
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)


def _prune(folder: Path, used: set[str]) -> None:
    try:
        files = list(folder.glob("*/*.code"))
        if len(files) <= MAX_FILES:
            return
        for f in files:
            if f.stem not in used:
                f.unlink(missing_ok=True)
    except OSError:
        pass
