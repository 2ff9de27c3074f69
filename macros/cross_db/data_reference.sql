{#- `(data_sql)`, followed by `alias` where the warehouse needs an alias on a FROM subquery and the
    user gave none (alias is none when the user wrote one). -#}
{% macro data_reference(data_sql, alias=none) %}{{ return(adapter.dispatch('data_reference', 'dataplex_dq')(data_sql, alias)) }}{% endmacro %}

{% macro default__data_reference(data_sql, alias=none) %}{{ return("(" ~ data_sql ~ ")") }}{% endmacro %}

{% macro postgres__data_reference(data_sql, alias=none) %}{{ return("(" ~ data_sql ~ ")" ~ (" as " ~ alias if alias else "")) }}{% endmacro %}
