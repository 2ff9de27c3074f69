-- Valid, but never built in a `dbt build`: rules of error severity fail on its upstream seed
-- (exact_values), so dbt skips this model and every rule on it (its job is "not evaluated").
select id from {{ ref('exact_values') }}
