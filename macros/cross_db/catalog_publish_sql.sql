{% macro catalog_publish_sql(relation, comment, labels) %}{{ return(adapter.dispatch('catalog_publish_sql', 'dataplex_dq')(relation, comment, labels)) }}{% endmacro %}

{% macro default__catalog_publish_sql(relation, comment, labels) %}
  {{ return("comment on table " ~ relation ~ " is " ~ dataplex_dq.string_literal(comment)) }}
{% endmacro %}

{% macro bigquery__catalog_publish_sql(relation, comment, labels) %}
  {%- set pairs = [] -%}
  {%- for k, v in labels | dictsort -%}
    {%- do pairs.append("(" ~ dataplex_dq.string_literal(k) ~ ", " ~ dataplex_dq.string_literal(v) ~ ")") -%}
  {%- endfor -%}
  {{ return("alter table " ~ relation ~ " set options (description = " ~ dataplex_dq.string_literal(comment) ~ ", labels = [" ~ (pairs | join(", ")) ~ "])") }}
{% endmacro %}
