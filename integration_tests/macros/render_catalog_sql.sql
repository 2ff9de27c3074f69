{#- For tests/test_post_scan_actions.py: logs the statement catalog publishing runs on the current
    target for a table `orders` in the target schema, rendered by the package's macro without running it:
      dbt run-operation render_catalog_sql --args '{comment: ..., labels: {...}}' -#}
{% macro render_catalog_sql(comment, labels={}) %}
  {%- set relation = api.Relation.create(database=target.database, schema=target.schema, identifier='orders') -%}
  {{ log('DATAPLEX_DQ_RENDERED ' ~ tojson({'sql': dataplex_dq.catalog_publish_sql(relation, comment, labels)}), info=True) }}
{% endmacro %}
