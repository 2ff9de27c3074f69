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
        {{- return("cast(" ~ dataplex_dq.string_literal(d.text) ~ " as " ~ dataplex_dq.type_int64() ~ ")") -}}
      {%- endif -%}
      {{- return(adapter.dispatch('exact_number_literal', 'dataplex_dq')(d)) -}}
    {%- endif -%}
  {%- elif family == 'float' -%}
    {{- return("cast(" ~ dataplex_dq.string_literal(value) ~ " as " ~ dataplex_dq.type_double() ~ ")") -}}
  {%- elif family == 'timestamp' -%}
    {{- return("cast(" ~ dataplex_dq.string_literal(value) ~ " as " ~ dataplex_dq.timestamp_base_type(data_type) ~ ")") -}}
  {%- endif -%}
  {{- return(adapter.dispatch('typed_literal', 'dataplex_dq')(value, data_type)) -}}
{% endmacro %}

{% macro default__typed_literal(value, data_type) -%}
  {#- No cast for text columns: the literal already is text, and a cast to the column's declared
      type could truncate it (dbt reports PostgreSQL's unbounded varchar as character varying(256)). -#}
  {%- if data_type is none or dataplex_dq.is_text_type(data_type) -%}{{- return(dataplex_dq.string_literal(value)) -}}{%- endif -%}
  {{- return("cast(" ~ dataplex_dq.string_literal(value) ~ " as " ~ data_type ~ ")") -}}
{%- endmacro %}
