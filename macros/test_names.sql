{#- A dbt test's name for messages. dbt names a generic test declared without `name:` after all its
    arguments (dbt-core's synthesize_generic_test_names: the node's name is the full name, only its
    alias and compiled path get the short `<first 30 chars>_<md5>` form), which is kilobytes for a
    data_quality_scan. Such a name is never printed: `<generic test> on <data source> (<dbt's hash of
    the test>)` instead, the form the post-hook prints (python/dataplex_dq/run/report.py short_test_name). -#}
{% macro short_test_name(test_node, test_name, source_node=none) %}
  {%- set name = test_node.get('name') or '' -%}
  {%- if name | length <= 80 -%}{{ return(name) }}{%- endif -%}
  {%- set source = source_node.get('name') if source_node is mapping else (test_node.get('attached_node') or '').split('.')[-1] -%}
  {{ return(test_name ~ " on " ~ source ~ " (" ~ (test_node.get('unique_id') or '').split('.')[-1] ~ ")") }}
{% endmacro %}
