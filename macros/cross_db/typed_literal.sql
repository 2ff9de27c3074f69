{#- A YAML bound (or set value) converted to the column's type WITHOUT changing its value (docs/SEMANTICS.md §5).
    `data_type` is the warehouse type of the column, or none when unknown (then the literal is left
    to the warehouse's own literal coercion). Integer and DECIMAL/NUMERIC columns compare with the
    bound's exact decimal value, cast to a type wide enough for it (never to the column's own
    precision/scale, which rounds: '10.005' as numeric(12,2) is 10.01); FLOAT columns with the
    nearest double; TIMESTAMP columns with the base type at microseconds (never timestamp(0));
    other types are cast to the column's type. validation.sql (bound_problem) has checked the value. -#}
{% macro typed_literal(value, data_type) %}
  {%- set family = dataplex_dq.type_family(data_type) if data_type is not none else 'unknown' -%}
  {%- if family in ['integer', 'decimal'] -%}
    {%- set d = dataplex_dq.decimal_parts(value) -%}
    {%- if d is not none -%}
      {%- if family == 'integer' and not d.frac and (d.int | length) <= 18 -%}
        {#- an integral value that fits a 64-bit integer: cast to the 64-bit integer type -#}
        {{- return("cast(" ~ dataplex_dq.string_literal(d.text) ~ " as " ~ adapter.dispatch('type_int64', 'dataplex_dq')() ~ ")") -}}
      {%- endif -%}
      {{- return(adapter.dispatch('exact_number_literal', 'dataplex_dq')(d)) -}}
    {%- endif -%}
  {%- elif family == 'float' -%}
    {{- return("cast(" ~ dataplex_dq.string_literal(dataplex_dq.double_text(value)) ~ " as " ~ adapter.dispatch('type_double', 'dataplex_dq')() ~ ")") -}}
  {%- elif family == 'timestamp' -%}
    {{- return("cast(" ~ dataplex_dq.string_literal(value) ~ " as " ~ dataplex_dq.timestamp_base_type(data_type) ~ ")") -}}
  {%- endif -%}
  {{- return(adapter.dispatch('typed_literal', 'dataplex_dq')(value, data_type)) -}}
{% endmacro %}

{#- A number as text every warehouse reads as its nearest double: the text itself, except a value that
    underflows to zero or overflows to infinity, which PostgreSQL refuses ('1e-324', '1e400': "out of
    range for type double precision") where the nearest double is ±0 or ±infinity: '0' / '-0', 'inf' /
    '-inf' (Python's float() rounds to the nearest double). Not a number: the text, for the validation's
    message. -#}
{% macro double_text(value) %}
  {%- set text = value | string | trim -%}
  {%- if dataplex_dq.decimal_parts(text) is none -%}{{ return(text) }}{%- endif -%}
  {%- set f = text | float -%}
  {%- set negative = text.startswith('-') -%}
  {%- if f == 0 -%}{{ return('-0' if negative else '0') }}{%- endif -%}
  {%- if f > 1.7976931348623157e308 or f < -1.7976931348623157e308 -%}{{ return('-inf' if negative else 'inf') }}{%- endif -%}
  {{ return(text) }}
{% endmacro %}

{% macro default__typed_literal(value, data_type) -%}
  {#- No cast for text columns: the literal already is text, and a cast to the column's declared
      type could truncate it (dbt reports PostgreSQL's unbounded varchar as character varying(256)). -#}
  {%- if data_type is none or dataplex_dq.is_text_type(data_type) -%}{{- return(dataplex_dq.string_literal(value)) -}}{%- endif -%}
  {{- return("cast(" ~ dataplex_dq.string_literal(value) ~ " as " ~ data_type ~ ")") -}}
{%- endmacro %}
