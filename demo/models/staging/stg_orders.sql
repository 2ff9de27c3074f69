-- One row per order: the source can hold older versions of an order, keep the
-- latest by updated_at. Test orders are kept here (the rules' row_filter skips them).
with ranked as (
    select
        *,
        row_number() over (partition by order_id order by updated_at desc) as version_rank
    from {{ ref('orders') }}
)

select
    order_id,
    customer_id,
    order_date,
    lower(trim(status))     as status,
    amount,
    upper(trim(currency))   as currency,
    updated_at
from ranked
where version_rank = 1
