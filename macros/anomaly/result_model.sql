
{#- A numeric attribute ('' when unset) as a double. -#}
{% macro json_number_field(column, field) %}
  {{- return("cast(nullif(" ~ dataplex_dq.json_text_field(column, field) ~ ", '') as " ~ dataplex_dq.type_double() ~ ")") -}}
{% endmacro %}
