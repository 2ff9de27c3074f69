"""template_cache.py: compiled Jinja templates kept between processes, keyed so a cached code object is
only ever used for the same source in an environment that generates the same code."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import jinja2
import pytest
from dbt_common.clients import jinja as dbt_jinja

from dataplex_dq.template_cache import CACHE_DIR, compiled_templates, environment_key

MACRO = """{%- set xs = [] -%}{%- for i in range(3) -%}{%- do xs.append("'" ~ (name ~ i).replace("'", "''") ~ "'") -%}
{%- endfor -%}{{ xs | join(', ') }} {{ '%c' | format(39) }}{{ n }}"""


def render(template_source: str) -> object:
    context = {"name": "it's", "n": "7"}
    return dbt_jinja.get_template(template_source, context).render(context)


def files(target: Path) -> list[Path]:
    return sorted((target / CACHE_DIR).glob("*/*.code"))


def test_second_compile_is_read_from_the_cache_and_renders_the_same(tmp_path: Path) -> None:
    expected = render(MACRO)
    with compiled_templates(tmp_path) as first:
        assert render(MACRO) == expected
    assert (first.hits, first.misses) == (0, 1)
    assert len(files(tmp_path)) == 1
    # a new "process": nothing in memory, the file is read
    with compiled_templates(tmp_path) as second:
        assert render(MACRO) == expected
    assert (second.hits, second.misses) == (1, 0)
    assert expected == "'it''s0', 'it''s1', 'it''s2' '7"


def test_native_and_text_environments_never_share_code(tmp_path: Path) -> None:
    """dbt's native environment has filters of the same names with other implementations: Jinja reads the
    filters while generating code, so the two must have different keys."""
    text_env = dbt_jinja.get_environment()
    native_env = dbt_jinja.get_environment(native=True)
    assert environment_key(text_env) != environment_key(native_env)
    source = "{{ n | as_number }}"
    with compiled_templates(tmp_path) as stats:
        text = dbt_jinja.get_template(source, {"n": "7"}).render({"n": "7"})
        native = dbt_jinja.get_template(source, {"n": "7"}, native=True).render({"n": "7"})
    assert stats.misses == 2 and len(files(tmp_path)) == 2
    assert (text, native) == ("7", 7)


def test_a_filter_added_after_the_environment_changes_the_key() -> None:
    env = dbt_jinja.get_environment()
    before = environment_key(env)
    env.filters["dq_extra"] = lambda v: v
    assert environment_key(env) != before


def test_an_unreadable_cache_file_is_compiled_again(tmp_path: Path) -> None:
    with compiled_templates(tmp_path):
        render(MACRO)
    (path,) = files(tmp_path)
    path.write_bytes(b"not marshal data")
    with compiled_templates(tmp_path) as stats:
        assert render(MACRO) == "'it''s0', 'it''s1', 'it''s2' '7"
    assert (stats.hits, stats.misses) == (0, 1)
    with compiled_templates(tmp_path) as stats:
        render(MACRO)
    assert stats.hits == 1


def test_switched_off_by_the_environment_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATAPLEX_DQ_TEMPLATE_CACHE", "0")
    with compiled_templates(tmp_path) as stats:
        render(MACRO)
    assert (stats.hits, stats.misses) == (0, 0)
    assert not (tmp_path / CACHE_DIR).exists()


def test_jinja_compile_is_restored_after_the_block(tmp_path: Path) -> None:
    original = jinja2.Environment.compile
    with compiled_templates(tmp_path):
        assert jinja2.Environment.compile is not original
    assert jinja2.Environment.compile is original


def test_syntax_errors_are_raised_as_before_and_not_cached(tmp_path: Path) -> None:
    with compiled_templates(tmp_path), pytest.raises(Exception, match=r"(?i)unexpected end of template"):
        render("{% if x %}")
    assert files(tmp_path) == []


def test_a_cached_template_is_used_by_a_fresh_process(tmp_path: Path) -> None:
    """Across processes (the point of the cache): the second process reads what the first wrote."""
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from dbt_common.clients import jinja as dbt_jinja
        from dataplex_dq.template_cache import compiled_templates
        with compiled_templates(Path({str(tmp_path)!r})) as stats:
            out = dbt_jinja.get_template({MACRO!r}, {{"name": "x", "n": "1"}}).render(
                {{"name": "x", "n": "1"}})
        print(stats.hits, stats.misses, out)
        """
    )
    runs = [
        subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True) for _ in range(2)
    ]
    assert [r.stdout.strip() for r in runs] == ["0 1 'x0', 'x1', 'x2' '1", "1 0 'x0', 'x1', 'x2' '1"]
