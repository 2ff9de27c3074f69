{#- Alerts (docs/SEMANTICS.md §11, "Alerts: owners, routes, once"): the project's alert settings, and the
    alert state table `dataplex_dq_alert_state` next to the results table, so "alert once" holds across
    machines and dbt Cloud runs. The table is append-only: one row each time a rule's alert state changes or
    an alert is sent; the latest row of a key is its state. Written and read by python/dataplex_dq/outputs/alerts.py
    through `dbt run-operation`'s path (Warehouse.macro), as the notification outcome is. Every column is text
    (times are ISO 8601 UTC), so one DDL serves every warehouse. -#}

{#- The vars `dataplex_dq_owners` (owner -> slack / teams / email) and `dataplex_dq_alert_routes` (a list of
    routes), as dbt_project.yml (or --vars) sets them. -#}
{% macro alert_settings() %}
  {{ return({'owners': var('dataplex_dq_owners', {}), 'routes': var('dataplex_dq_alert_routes', [])}) }}
{% endmacro %}

{% macro alert_state_relation(results_relation) %}
  {{ return(results_relation.incorporate(path={'identifier': 'dataplex_dq_alert_state'})) }}
{% endmacro %}

{% macro alert_state_columns() %}
  {{ return(['alert_key', 'data_source', 'rule_name', 'state', 'changed_at', 'alerted_at', 'invocation_id',
             'recorded_at', 'reason']) }}
{% endmacro %}

{% macro alert_state_create_sql(relation) %}
  {%- set cols = [] -%}
  {%- for c in dataplex_dq.alert_state_columns() -%}{%- do cols.append(c ~ ' ' ~ dbt.type_string()) -%}{%- endfor -%}
  {{ return('create table if not exists ' ~ relation ~ ' (' ~ cols | join(', ') ~ ')') }}
{% endmacro %}

{#- The latest row of every key: a list of {column: value}; [] when the table does not exist yet. -#}
{% macro alert_state_read(results_relation) %}
  {%- set relation = dataplex_dq.alert_state_relation(results_relation) -%}
  {%- if adapter.get_relation(relation.database, relation.schema, relation.identifier) is none -%}
    {{ return([]) }}
  {%- endif -%}
  {%- set cols = dataplex_dq.alert_state_columns() -%}
  {%- set sql -%}
    select {{ cols | join(', ') }} from (
      select {{ cols | join(', ') }},
             row_number() over (partition by alert_key order by recorded_at desc) as dq_latest
      from {{ relation }}
    ) dq_state where dq_latest = 1
  {%- endset -%}
  {%- set table = run_query(sql) -%}
  {%- set rows = [] -%}
  {%- for r in table.rows -%}
    {%- set row = {} -%}
    {%- for c in cols -%}{%- do row.update({c: r[loop.index0]}) -%}{%- endfor -%}
    {%- do rows.append(row) -%}
  {%- endfor -%}
  {{ return(rows) }}
{% endmacro %}

{#- Append `rows` (a list of {column: text or none}); the table is created when missing. -#}
{% macro alert_state_write(results_relation, rows) %}
  {%- set relation = dataplex_dq.alert_state_relation(results_relation) -%}
  {%- set cols = dataplex_dq.alert_state_columns() -%}
  {%- do run_query(dataplex_dq.alert_state_create_sql(relation)) -%}
  {%- if rows | length == 0 -%}{{ return('') }}{%- endif -%}
  {%- set tuples = [] -%}
  {%- for row in rows -%}
    {%- set values = [] -%}
    {%- for c in cols -%}
      {%- do values.append('null' if row.get(c) is none else dataplex_dq.string_literal(row.get(c))) -%}
    {%- endfor -%}
    {%- do tuples.append('(' ~ values | join(', ') ~ ')') -%}
  {%- endfor -%}
  {%- do dataplex_dq.hook_begin() -%}
  {%- do run_query('insert into ' ~ relation ~ ' (' ~ cols | join(', ') ~ ') values ' ~ tuples | join(', ')) -%}
  {%- do dataplex_dq.hook_commit() -%}
  {{ return('') }}
{% endmacro %}
