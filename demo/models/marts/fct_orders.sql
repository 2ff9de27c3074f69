-- One row per real (non-test) order with its customer's country and payment totals.
with payment_totals as (
    select
        order_id,
        count(*)        as payment_count,
        sum(amount)     as paid_amount,
        max(paid_at)    as last_paid_at
    from {{ ref('stg_payments') }}
    group by order_id
)

select
    o.order_id,
    o.customer_id,
    c.country_code                      as customer_country_code,
    o.order_date,
    o.status,
    o.amount,
    o.currency,
    coalesce(p.payment_count, 0)        as payment_count,
    p.paid_amount,
    p.last_paid_at,
    o.updated_at
from {{ ref('stg_orders') }} as o
left join {{ ref('stg_customers') }} as c
    on c.customer_id = o.customer_id
left join payment_totals as p
    on p.order_id = o.order_id
where o.status <> 'test'
