-- Fails on purpose (test_exact.py rewrites it before `dbt retry`): dbt skips every rule on it.
select id from {{ ref('exact_values') }} where no_such_column = 1
