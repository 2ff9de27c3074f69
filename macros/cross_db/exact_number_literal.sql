{#- An exact decimal literal of `d` (decimal_parts), in a type wide enough to hold it. -#}
{% macro default__exact_number_literal(d) -%}
  {#- PostgreSQL: unconstrained numeric holds any value exactly. -#}
  {{- return("cast(" ~ dataplex_dq.string_literal(d.text) ~ " as numeric)") -}}
{%- endmacro %}

{% macro duckdb__exact_number_literal(d) -%}
  {#- DuckDB: the narrowest DECIMAL(p, s) that holds the value (at most 38 digits), so that comparing
      it with a DECIMAL column still fits 38 digits; beyond that, a double (such a bound is far
      outside every DECIMAL column's range anyway). -#}
  {%- set p = ([d.int | length, 1] | max) + (d.frac | length) -%}
  {%- if p <= 38 -%}
    {{- return("cast(" ~ dataplex_dq.string_literal(d.text) ~ " as decimal(" ~ p ~ ", " ~ (d.frac | length) ~ "))") -}}
  {%- endif -%}
  {{- return("cast(" ~ dataplex_dq.string_literal(d.text) ~ " as double)") -}}
{%- endmacro %}

{% macro bigquery__exact_number_literal(d) -%}
  {#- BigQuery: NUMERIC holds 29 integer and 9 fractional digits, BIGNUMERIC 38 and 38. -#}
  {%- if (d.frac | length) <= 9 and (d.int | length) <= 29 -%}
    {{- return("cast(" ~ dataplex_dq.string_literal(d.text) ~ " as numeric)") -}}
  {%- elif (d.frac | length) <= 38 and (d.int | length) <= 38 -%}
    {{- return("cast(" ~ dataplex_dq.string_literal(d.text) ~ " as bignumeric)") -}}
  {%- endif -%}
  {{- return("cast(" ~ dataplex_dq.string_literal(d.text) ~ " as float64)") -}}
{%- endmacro %}
